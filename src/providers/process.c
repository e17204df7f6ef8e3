/* Process: one instance per numeric /proc entry, plus _Total.
 *
 * Instances are named by comm (stat, between the first '(' and the LAST ')':
 * comm may hold blanks and parentheses) by the rule of every set (pl_names):
 * in pid order the first process of a name is "name", the next "name#1",
 * "name#2" ...; a process that calls itself "_Total" becomes "_Total#1".
 * instances() is a collection of no counter, so it names alike.  The
 * instance id is the pid and the key its start time (stat 22), so a reused
 * pid is a new process whose rates restart (first_sample).  Names of later
 * duplicates shift when an earlier one exits, as on Windows; id and key do not.
 *
 * Reads are lazy: stat always (names, keys), status, io, fd/ and
 * smaps_rollup only when a wanted counter needs them.  A query of sizes
 * only (SIZES, ID Process) reads statm and comm instead of stat once they
 * are kept fds of the process (ptshare.h, pl_ptshare_mem).  Descriptors
 * stay open across collections within the budget of proctable.c (half the
 * fd soft limit); past it, files are opened and closed each time.  A kept
 * stat fd of a process that exited reads ESRCH, even when its pid is
 * reused, so a kept fd never mixes two processes.  What a failed read means (pl_pt_outcome):
 * ENOENT/ESRCH of stat, or of another file when stat is gone too, is an exit:
 * the process is left out; EACCES/EPERM (io, fd/, smaps_rollup of other
 * users' processes) leaves those counters unset; any other errno (EMFILE,
 * ENFILE, ENOMEM ...) fails the collection.  Kernel threads and zombies have
 * no mm: no Vm lines, no smaps_rollup.  A stat without comm, state or start
 * time is left out.
 *
 * _Total sums the gauges (sizes, counts) over the listed processes, and the
 * cumulative counters (times, faults, I/O, switches) over the listed ones
 * plus the last values of those that exited during the query, so its rates
 * do not fall when a process exits.  A sum is published only when every
 * listed process had the value (a kernel thread's memory aside): a total of
 * the readable part is not the total, so it is unset (no_data). */
#include "pl_provider.h"
#include "pl_rowset.h"
#include "providers.h"
#include "proctable.h"
#include "ptshare.h"
#include "pl_names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* counter indexes in counters[] (ids are in the definitions) */
enum {
    X_PROC, X_USER, X_PRIV, X_VPEAK, X_VIRT, X_FAULTS, X_WSPEAK, X_WS, X_PF, X_PRIVB,
    X_THREADS, X_PRIO, X_ELAP, X_PID, X_PPID, X_HANDLES, X_IOR_OPS, X_IOW_OPS, X_IOD_OPS,
    X_IOO_OPS, X_IOR_B, X_IOW_B, X_IOD_B, X_IOO_B, X_WSPRIV, X_MAJ, X_DISK_R, X_DISK_W,
    X_CTXSW, X_IOWAIT, X_CPU, NC
};

#define T100 PERF_100NSEC_TIMER
#define BULK PERF_COUNTER_BULK_COUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define WIZ PERF_DETAIL_WIZARD

#define PROC_ROWS(R) \
    R(0, "% Processor Time", "Share of one CPU's time the process ran, user and kernel mode " \
        "(stat 14 utime + 15 stime); above 100 when it runs on several CPUs.", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(1, "% User Time", "Share of one CPU's time the process ran in user mode, guest time " \
        "included (stat 14 utime).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(2, "% Privileged Time", "Share of one CPU's time the process ran in the kernel " \
        "(stat 15 stime).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(3, "Virtual Bytes Peak", "Largest virtual address space size the process has had, in " \
        "bytes (status VmPeak).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(4, "Virtual Bytes", "Virtual address space size in bytes (stat 23 vsize).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(5, "Page Faults/sec", "Page faults per second, minor and major (stat 10 minflt + " \
        "12 majflt).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(6, "Working Set Peak", "Largest resident set the process has had, in bytes " \
        "(status VmHWM).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(7, "Working Set", "Resident memory in bytes (stat 24 rss x page size).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(9, "Page File Bytes", "Memory of the process swapped out, in bytes (status VmSwap).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(10, "Private Bytes", "Anonymous memory of the process, resident or swapped, in bytes " \
        "(status RssAnon + VmSwap); untouched allocations are not counted.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(11, "Thread Count", "Threads in the process (stat 20 num_threads).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(12, "Priority Base", "Scheduling priority on the kernel's 0-139 scale (stat 18 + 100): " \
        "120 + nice for normal processes, 99 - rtprio for real-time ones; lower is more " \
        "urgent.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(13, "Elapsed Time", "Seconds since the process started (stat 22 starttime against " \
        "/proc/uptime).", \
      PERF_ELAPSED_TIME, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, DISCRETE), PL_BY_HAND()) \
    R(14, "ID Process", "The process id, the name of its /proc directory.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(15, "Creating Process ID", "The parent's process id (stat 4 ppid); 0 for the first " \
        "processes.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(18, "Handle Count", "Open file descriptors: the entries of /proc/[pid]/fd (one " \
        "directory read per process).", \
      RAW, PL_NO_ID, WIZ, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(19, "IO Read Operations/sec", "Read system calls per second, files, pipes, sockets " \
        "and devices alike (io syscr).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(20, "IO Write Operations/sec", "Write system calls per second (io syscw).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(21, "IO Data Operations/sec", "Read and write system calls per second (io syscr + " \
        "syscw).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(22, "IO Other Operations/sec", "Always 0: Linux counts no other class of I/O calls; " \
        "kept for Windows compatibility.", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(23, "IO Read Bytes/sec", "Bytes per second returned by read system calls (io rchar).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(24, "IO Write Bytes/sec", "Bytes per second passed to write system calls (io wchar).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(25, "IO Data Bytes/sec", "Bytes per second read and written by system calls (io rchar " \
        "+ wchar).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(26, "IO Other Bytes/sec", "Always 0: Linux counts no other class of I/O; kept for " \
        "Windows compatibility.", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(27, "Working Set - Private", "Resident memory no other process maps, in bytes " \
        "(smaps_rollup Private_Clean + Private_Dirty + Private_Hugetlb; a costly read).", \
      LRAW, PL_NO_ID, WIZ, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(32, "Major Page Faults/sec", "Page faults per second that needed a disk read " \
        "(stat 12 majflt).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(33, "Disk Read Bytes/sec", "Bytes per second the process caused to be read from " \
        "storage (io read_bytes).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(34, "Disk Write Bytes/sec", "Bytes per second the process caused to be written to " \
        "storage (io write_bytes, cancelled writes not subtracted).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(35, "Context Switches/sec", "Context switches of the process per second, voluntary " \
        "and forced (status voluntary_ctxt_switches + nonvoluntary_ctxt_switches).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(36, "% IO Wait Time", "Share of time the process waited for block I/O (stat 42 " \
        "delayacct_blkio_ticks; 0 unless delay accounting is on).", \
      T100, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(37, "Processor", "The CPU the process last ran on (stat 39).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND())

static const pl_counter_def counters[NC] = { PROC_ROWS(PL_ROW_COUNTER) };

/* Sources, one bit each, so `wanted` turns into a set of files to read. */
enum { S_STAT = 1, S_STATUS = 2, S_IO = 4, S_FD = 8, S_SMAPS = 16, S_UPTIME = 32 };

#define B(f) PS_BIT(PS_##f)
static const struct {
    uint8_t src;
    uint8_t total;           /* T_* */
    uint16_t fields;         /* stat fields the counter needs */
} cinfo[NC] = {
    [X_PROC] = { S_STAT, 2, B(UTIME) | B(STIME) }, [X_USER] = { S_STAT, 2, B(UTIME) },
    [X_PRIV] = { S_STAT, 2, B(STIME) }, [X_VPEAK] = { S_STATUS, 0, 0 },
    [X_VIRT] = { S_STAT, 1, B(VSIZE) }, [X_FAULTS] = { S_STAT, 2, B(MINFLT) | B(MAJFLT) },
    [X_WSPEAK] = { S_STATUS, 0, 0 }, [X_WS] = { S_STAT, 1, B(RSS) },
    [X_PF] = { S_STATUS, 1, 0 }, [X_PRIVB] = { S_STATUS, 1, 0 },
    [X_THREADS] = { S_STAT, 1, B(THREADS) }, [X_PRIO] = { S_STAT, 0, B(PRIO) },
    [X_ELAP] = { S_STAT | S_UPTIME, 0, B(START) }, [X_PID] = { S_STAT, 0, 0 },
    [X_PPID] = { S_STAT, 0, B(PPID) }, [X_HANDLES] = { S_FD, 1, 0 },
    [X_IOR_OPS] = { S_IO, 2, 0 }, [X_IOW_OPS] = { S_IO, 2, 0 }, [X_IOD_OPS] = { S_IO, 2, 0 },
    [X_IOO_OPS] = { S_IO, 2, 0 }, [X_IOR_B] = { S_IO, 2, 0 }, [X_IOW_B] = { S_IO, 2, 0 },
    [X_IOD_B] = { S_IO, 2, 0 }, [X_IOO_B] = { S_IO, 2, 0 }, [X_WSPRIV] = { S_SMAPS, 1, 0 },
    [X_MAJ] = { S_STAT, 2, B(MAJFLT) }, [X_DISK_R] = { S_IO, 2, 0 },
    [X_DISK_W] = { S_IO, 2, 0 }, [X_CTXSW] = { S_STATUS, 2, 0 },
    [X_IOWAIT] = { S_STAT, 2, B(BLKIO) }, [X_CPU] = { S_STAT, 0, B(CPU) },
};
#undef B
enum { T_NONE, T_SUM, T_ACC };       /* _Total: not summed, sum, sum + exited */

#define BIT(c) ((uint64_t)1 << (c))
#define TOTAL_ID 0xFFFFFFFEu
/* The counters statm holds: a query of these (and ID Process) reads statm
 * and comm instead of stat once they are kept (ptshare.h). */
#define SIZES (BIT(X_VIRT) | BIT(X_WS))

/* One process (pid + start time) as this state published it across
 * collections: its identity and the cumulative values _Total keeps.  The
 * files, descriptors and parsed values are the machine's (ptshare.h). */
typedef struct pent {
    uint32_t pid;            /* first: the table's id */
    uint32_t known;          /* start holds the identity */
    uint64_t start;          /* stat 22, ticks after boot */
    uint64_t acc_have;       /* BIT(c) of last[c] published at the last collect */
    uint64_t last[NC];       /* cumulative values last published */
} pent;

typedef struct pstate {
    pl_ptshare *sh;          /* the machine's process table */
    pl_ptbase *b;            /* its /proc, clock and listing */
    uint64_t page;
    pl_etab tab;
    pl_names names;          /* this collection's instance names */
    uint64_t dead[NC], dead_have;   /* exited processes' last cumulative values */
    uint64_t of_source[S_SMAPS + 1];  /* counters each source (S_*) gives, made once */
} pstate;

/* ---- entries ------------------------------------------------------------------------ */

/* The identity ended (exit or pid reuse): its cumulative values move to
 * _Total's share of the dead. */
static void forget(pstate *s, pent *e)
{
    for (uint64_t m = e->acc_have; m; m &= m - 1) {
        int c = __builtin_ctzll(m);
        s->dead[c] += e->last[c];
        s->dead_have |= BIT(c);
    }
    e->acc_have = 0;
    e->known = 0;
}

static void ent_retire(void *ud, void *ve)
{
    forget(ud, ve);
}

static void p_close(void *state)
{
    pstate *s = state;
    if (!s)
        return;
    pl_etab_free(&s->tab, ent_retire, s);
    pl_names_free(&s->names);
    free(s);
}

static int p_open(pl_env *env, void **state)
{
    pstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    if (!(s->sh = pl_ptshare_attach(env))) {
        free(s);
        return ENOMEM;
    }
    s->b = pl_ptshare_base(s->sh);
    s->page = (uint64_t)pl_env_page_size(env);
    pl_etab_init(&s->tab, sizeof(pent));
    pl_names_init(&s->names);
    for (unsigned x = 0; x < NC; x++)        /* what a denied file leaves no_access */
        for (unsigned src = 1; src <= S_SMAPS; src <<= 1)
            if (cinfo[x].src & src)
                s->of_source[src] |= BIT(x);
    *state = s;
    return 0;
}

/* ---- reads ------------------------------------------------------------------------- */

/* stat of e (the machine's sp); need 0: a query of sizes only, statm and
 * comm once they are kept (pl_ptshare_mem).  0 with sp->ps; EINVAL for a
 * malformed file (left out); else the errno of the read.  An exit, or another process on
 * the pid, ends the identity this state published. */
static int read_stat(pstate *s, pent *e, pl_ptproc *sp, uint32_t need, int fresh)
{
    int err = need ? pl_ptshare_stat(s->sh, sp, need, fresh) : pl_ptshare_mem(s->sh, sp);
    if (err) {
        if (pl_pt_outcome(err) == PL_PT_GONE)
            forget(s, e);
        return err;
    }
    if (e->known && e->start != sp->ps.v[PS_START])
        forget(s, e);        /* same pid, another process: rates restart */
    e->start = sp->ps.v[PS_START];
    e->known = 1;
    return 0;
}

/* Paths for messages (static: a result keeps the pointer). */
static const char *const errpath[NFD] = {
    "proc/[pid]/stat", "proc/[pid]/status", "proc/[pid]/io", "proc/[pid]/fd", "proc/[pid]/smaps_rollup",
    "proc/[pid]/statm", "proc/[pid]/comm",
};

/* After file k of e failed with err: 0 to go on without its counters (not
 * ours to read, or a file this process lacks), -1 when the process itself
 * exited meanwhile (its stat is gone or names another process), or the
 * errno that fails the collection. */
static int after_fail(pstate *s, pent *e, pl_ptproc *sp, int k, int err, pl_snapshot *snap)
{
    uint64_t start = e->start;
    int o = pl_pt_outcome(err);
    if (o == PL_PT_DENIED)
        return 0;
    if (o == PL_PT_FAILED) {
        snap->err_path = errpath[k];
        return err;
    }
    err = read_stat(s, e, sp, PS_BIT(PS_START), 1);
    if (err == 0)
        return e->start == start ? 0 : -1;
    if (err == EINVAL || pl_pt_outcome(err) != PL_PT_FAILED)
        return -1;                   /* gone, or denied: it counts as gone */
    snap->err_path = errpath[F_STAT];
    return err;
}



#define HAS(h, k) (((h) >> (k)) & 1u)
#define PUT(c, x) (v[c] = (x), *have |= BIT(c))

/* Counters a process without memory (a kernel thread, a zombie) has no
 * source for: their absence does not make _Total partial. */
#define NOMM_FREE (BIT(X_PF) | BIT(X_PRIVB) | BIT(X_WSPRIV))

/* ---- values ------------------------------------------------------------------------ */

static void stat_values(const pstate *s, const pent *pe, const pl_pstat *ps, unsigned src,
                        uint64_t *v, uint64_t *have)
{
    uint64_t pt = s->b->per_tick, hz = s->b->hz;
#define ST(f) ((ps->have & PS_BIT(PS_##f)) != 0)
    if (ST(UTIME) && ST(STIME))
        PUT(X_PROC, pl_pt_hns(ps->v[PS_UTIME] + ps->v[PS_STIME], pt, hz));
    if (ST(UTIME))
        PUT(X_USER, pl_pt_hns(ps->v[PS_UTIME], pt, hz));
    if (ST(STIME))
        PUT(X_PRIV, pl_pt_hns(ps->v[PS_STIME], pt, hz));
    if (ST(VSIZE))
        PUT(X_VIRT, ps->v[PS_VSIZE]);
    if (ST(MINFLT) && ST(MAJFLT))
        PUT(X_FAULTS, ps->v[PS_MINFLT] + ps->v[PS_MAJFLT]);
    if (ST(MAJFLT))
        PUT(X_MAJ, ps->v[PS_MAJFLT]);
    if (ST(RSS) && ps->v[PS_RSS] <= UINT64_MAX / s->page)
        PUT(X_WS, ps->v[PS_RSS] * s->page);
    if (ST(THREADS))
        PUT(X_THREADS, ps->v[PS_THREADS]);
    /* -100..39; SCHED_DEADLINE's -101 has no place on the scale */
    if (ST(PRIO) && (int64_t)ps->v[PS_PRIO] >= -100 && (int64_t)ps->v[PS_PRIO] <= 39)
        PUT(X_PRIO, (uint64_t)((int64_t)ps->v[PS_PRIO] + 100));
    if (src & S_UPTIME)      /* the clock is read after every stat: pl_pt_elapsed_clock */
        PUT(X_ELAP, pl_pt_hns(pe->start, pt, hz));
    PUT(X_PID, pe->pid);
    if (ST(PPID))
        PUT(X_PPID, ps->v[PS_PPID]);
    if (ST(BLKIO))
        PUT(X_IOWAIT, pl_pt_hns(ps->v[PS_BLKIO], pt, hz));
    if (ST(CPU))
        PUT(X_CPU, ps->v[PS_CPU]);
#undef ST
}

/* The values of a file's keys (ptshare.c's status, io and smaps_rollup key lists). */
static void status_values(const uint64_t *kv, uint32_t kh, uint64_t *v, uint64_t *have)
{
    if (HAS(kh, K_VMPEAK))
        PUT(X_VPEAK, kv[K_VMPEAK]);
    if (HAS(kh, K_VMHWM))
        PUT(X_WSPEAK, kv[K_VMHWM]);
    if (HAS(kh, K_VMSWAP))
        PUT(X_PF, kv[K_VMSWAP]);
    if (HAS(kh, K_RSSANON) && HAS(kh, K_VMSWAP))
        PUT(X_PRIVB, kv[K_RSSANON] + kv[K_VMSWAP]);
    if (HAS(kh, K_VCSW) && HAS(kh, K_NVCSW))
        PUT(X_CTXSW, kv[K_VCSW] + kv[K_NVCSW]);
}

static void io_values(const uint64_t *kv, uint32_t kh, uint64_t *v, uint64_t *have)
{
    if (HAS(kh, K_SYSCR))
        PUT(X_IOR_OPS, kv[K_SYSCR]);
    if (HAS(kh, K_SYSCW))
        PUT(X_IOW_OPS, kv[K_SYSCW]);
    if (HAS(kh, K_SYSCR) && HAS(kh, K_SYSCW))
        PUT(X_IOD_OPS, kv[K_SYSCR] + kv[K_SYSCW]);
    if (HAS(kh, K_RCHAR))
        PUT(X_IOR_B, kv[K_RCHAR]);
    if (HAS(kh, K_WCHAR))
        PUT(X_IOW_B, kv[K_WCHAR]);
    if (HAS(kh, K_RCHAR) && HAS(kh, K_WCHAR))
        PUT(X_IOD_B, kv[K_RCHAR] + kv[K_WCHAR]);
    if (HAS(kh, K_RBYTES))
        PUT(X_DISK_R, kv[K_RBYTES]);
    if (HAS(kh, K_WBYTES))
        PUT(X_DISK_W, kv[K_WBYTES]);
    if ((kh & 0xF) == 0xF) {         /* a readable io file: no "other" class */
        PUT(X_IOO_OPS, 0);
        PUT(X_IOO_B, 0);
    }
}

static void smaps_values(const uint64_t *kv, uint32_t kh, uint64_t *v, uint64_t *have)
{
    if (HAS(kh, K_PRIV_CLEAN) && HAS(kh, K_PRIV_DIRTY))   /* Private_Hugetlb is newer: 0 without it */
        PUT(X_WSPRIV, kv[K_PRIV_CLEAN] + kv[K_PRIV_DIRTY] + (HAS(kh, K_PRIV_HUGETLB) ? kv[K_PRIV_HUGETLB] : 0));
}

/* The files beyond stat, each only when asked for; the counters of a file
 * this user may not read go to *denied.  0, -1 when the process exited
 * meanwhile, or the errno that fails the collection. */
static int read_more(pstate *s, pent *pe, pl_ptproc *sp, unsigned src, int nomm, uint64_t *v,
                     uint64_t *have, uint64_t *denied, pl_snapshot *snap)
{
    static void (*const parse[NFD])(const uint64_t *, uint32_t, uint64_t *, uint64_t *) = {
        NULL, status_values, io_values, NULL, smaps_values,
    };
    static const uint8_t need[NFD] = { 0, S_STATUS, S_IO, S_FD, S_SMAPS };
    for (int k = F_STATUS; k <= F_SMAPS; k++) {
        int e, r;
        if (!(src & need[k]) || (k == F_SMAPS && nomm))
            continue;        /* no mm, no smaps_rollup to read */
        if ((e = pl_ptshare_file(s->sh, sp, k)) == 0) {
            if (k == F_FD)
                PUT(X_HANDLES, sp->nfd);
            else
                parse[k](sp->kv[k], sp->kh[k], v, have);
        }
        if (e && pl_pt_outcome(e) == PL_PT_DENIED)
            *denied |= s->of_source[need[k]];
        if (e && (r = after_fail(s, pe, sp, k, e, snap)) != 0)
            return r;
    }
    return 0;
}

/* ---- collection -------------------------------------------------------------------- */

typedef struct pcol {
    uint8_t wl[NC];          /* wanted counters */
    unsigned nw, src;
    uint32_t need;           /* stat fields; 0: sizes only (statm and comm) */
    uint64_t tmask;          /* wanted counters that _Total sums */
    uint64_t lack;           /* of those, counters some listed process lacks */
    uint64_t denied;         /* of those, lacked because a file was not readable */
    uint64_t tot[NC], tot_have;
    int naming;              /* pl_ptshare_lead: 1 records names, 0 takes them, -1 own */
    uint64_t gen;            /* the generation of the recorded names */
    uint32_t next;           /* entries below it were decided as the leader did */
} pcol;

/* Publishes what was asked for (no_access where a file was not readable);
 * keeps cumulative values for _Total. */
static void publish(pent *pe, pcol *c, pl_snapshot *snap, uint32_t inst, const uint64_t *v,
                    uint64_t have, uint64_t denied)
{
    pe->acc_have = 0;
    for (unsigned k = 0; k < c->nw; k++) {
        unsigned x = c->wl[k];
        if (!(have & BIT(x))) {
            if (denied & BIT(x))
                pl_snap_deny(snap, inst, x);
            continue;
        }
        pl_snap_set(snap, inst, x, v[x]);
        if (cinfo[x].total != T_NONE) {
            c->tot[x] += v[x];
            c->tot_have |= BIT(x);
        }
        if (cinfo[x].total == T_ACC) {
            pe->last[x] = v[x];
            pe->acc_have |= BIT(x);
        }
    }
}

/* From here on this state names by itself: its names take over those of
 * the entries named alike so far (the leader's, in the same order). */
static int name_alone(pstate *s, pcol *c)
{
    char tmp[PL_COMM_MAX + PL_NAMES_EXTRA];
    c->naming = -1;
    for (uint32_t j = 0; j < c->next; j++) {
        const pl_ptproc *q = pl_ptshare_proc(s->sh, j);
        if (q->name_gen == c->gen && !pl_names_next(&s->names, q->name, q->name_clen, tmp))
            return ENOMEM;
    }
    return 0;
}

/* The name of listed entry i (published by this query): the leading state's
 * of this generation while both left out and named the same entries with
 * the same comms (so the rule gives the same names), else our own.  NULL
 * on ENOMEM. */
static const char *proc_name(pstate *s, pcol *c, uint32_t i, pl_ptproc *sp, char *buf)
{
    const char *name;
    if (c->naming == 0) {
        while (c->next < i && pl_ptshare_proc(s->sh, c->next)->name_gen != c->gen)
            c->next++;       /* left out by both */
        if (c->next == i && sp->name_gen == c->gen && sp->name_clen == sp->ps.comm_len &&
            memcmp(sp->name, sp->comm, sp->name_clen) == 0) {
            c->next = i + 1;
            return sp->name;
        }
        if (name_alone(s, c))
            return NULL;
    }
    name = pl_names_next(&s->names, sp->comm, sp->ps.comm_len, buf);
    if (name && c->naming == 1) {
        memcpy(sp->name, name, strlen(name) + 1);
        sp->name_clen = sp->ps.comm_len;
        sp->name_gen = c->gen;
    }
    return name;
}

/* One listed process (entry i): 0 (published, or left out), or the errno
 * that fails the collection. */
static int one_process(pstate *s, uint32_t i, pcol *c, pl_snapshot *snap)
{
    pent *pe = s->tab.v[i];
    pl_ptproc *sp = pl_ptshare_proc(s->sh, i);
    const char *nm;
    const pl_pstat *ps = &sp->ps;
    uint64_t v[NC], have = 0, denied = 0;
    char name[PL_COMM_MAX + PL_NAMES_EXTRA];
    int e = read_stat(s, pe, sp, c->need, 0), nomm, inst;
    if (e == EINVAL)
        return 0;            /* no comm, state or start time: not a process we can name */
    switch (pl_pt_outcome(e)) {
    case PL_PT_READ:
        break;
    case PL_PT_GONE:
        return 0;
    case PL_PT_DENIED:       /* there, but hidden from us: no total can be whole */
        c->lack = c->tmask;
        c->denied = c->tmask;
        return 0;
    default:
        snap->err_path = errpath[F_STAT];
        return e;
    }
    nomm = ((ps->have & PS_BIT(PS_FLAGS)) && (ps->v[PS_FLAGS] & PL_PF_KTHREAD)) ||
           ps->state == 'Z' || ps->state == 'X' || ps->state == 'x';
    stat_values(s, pe, ps, c->src, v, &have);
    if ((e = read_more(s, pe, sp, c->src, nomm, v, &have, &denied, snap)) != 0)
        return e < 0 ? 0 : e;        /* -1: exited meanwhile, left out */
    /* after read_more: a fresh stat there may have named the process anew */
    if (!(nm = proc_name(s, c, i, sp, name)) ||
        (inst = pl_snap_add_key(snap, nm, pe->pid, pe->start)) < 0)
        return ENOMEM;
    publish(pe, c, snap, (uint32_t)inst, v, have, denied);
    c->lack |= c->tmask & ~have & ~(nomm ? NOMM_FREE : 0);
    c->denied |= c->tmask & ~have & denied;
    return 0;
}

static int p_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pstate *s = state;
    pcol c;
    uint64_t wm = 0;         /* wanted counters */
    char total[6 + PL_NAMES_EXTRA];
    int e, ti;

    pl_snap_clear(snap);     /* a reused snapshot starts empty */
    memset(&c, 0, sizeof c);
    c.need = PS_BIT(PS_START) | PS_BIT(PS_FLAGS);
    for (unsigned x = 0; x < NC; x++)
        if (!wanted || wanted[x]) {
            wm |= BIT(x);
            c.wl[c.nw++] = (uint8_t)x;
            c.src |= cinfo[x].src;
            c.need |= cinfo[x].fields;
            if (cinfo[x].total != T_NONE)
                c.tmask |= BIT(x);
        }
    if ((wm & SIZES) && !(wm & ~(SIZES | BIT(X_PID))))
        c.need = 0;          /* sizes only: statm and comm hold them (pl_ptshare_mem) */
    if ((e = pl_ptshare_list(s->sh, snap)) != 0)
        return e;
    /* the same listing as the machine's table: entry i of both is one pid */
    if ((e = pl_etab_sync(&s->tab, s->b->ids, s->b->nids, NULL, ent_retire, s)) != 0 ||
        (e = pl_names_begin(&s->names, s->tab.n + 1)) != 0)
        return e;
    if (!pl_names_next(&s->names, "_Total", 6, total))   /* a process _Total is _Total#1 */
        return ENOMEM;
    c.naming = pl_ptshare_lead(s->sh, &c.gen);
    for (uint32_t i = 0; i < s->tab.n; i++) {
        if (i + 2 < s->tab.n)        /* cold after a collect's kernel work: load it early */
            __builtin_prefetch(s->tab.v[i + 2]);
        if ((e = one_process(s, i, &c, snap)) != 0)
            return e;
    }
    if ((c.src & S_UPTIME) && (e = pl_pt_elapsed_clock(s->b, snap, X_ELAP)) != 0)
        return e;

    /* _Total: a sum over every listed process, or no value (no_data) */
    ti = pl_snap_add(snap, "_Total", TOTAL_ID);
    if (ti < 0)
        return ENOMEM;
    for (unsigned k = 0; k < c.nw; k++) {
        unsigned x = c.wl[k];
        if (cinfo[x].total == T_ACC && (s->dead_have & BIT(x))) {
            c.tot[x] += s->dead[x];
            c.tot_have |= BIT(x);
        }
        if ((c.tot_have & BIT(x)) && !(c.lack & BIT(x)))
            pl_snap_set(snap, (uint32_t)ti, x, c.tot[x]);
        else if (c.denied & BIT(x))  /* a total of the readable part is not the total */
            pl_snap_deny(snap, (uint32_t)ti, x);
    }
    return 0;
}

/* Metadata: the instances of a collection of no counter, so that names, ids
 * and keys come from the one source (stat) by the one rule. */
static int p_instances(void *state, pl_snapshot *snap)
{
    static const uint8_t none[NC];
    return p_collect(state, none, snap);
}

static const pl_provider_ops ops = { p_open, p_close, p_instances, p_collect, NULL, NULL };

const pl_counterset_def pl_process_def = {
    /* UUIDv5 of "Process" in the perflib namespace */
    { 0x7f6354f6, 0xb0e1, 0x5efd, { 0xae, 0xa3, 0x52, 0x22, 0xce, 0x8a, 0xf8, 0xc5 } },
    "Process",
    "Processor time, memory, page faults, threads and I/O of each process, from "
    "/proc/[pid]/stat, and status, io, fd/ and smaps_rollup when their counters are asked for.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 14000, NULL,
};
