/* Process: one instance per numeric /proc entry, plus _Total.
 *
 * Instances are named by comm (stat, between the first '(' and the LAST ')':
 * comm may hold blanks and parentheses), Windows V1 style: in pid order the
 * first process of a name is "name", the next "name#1", "name#2" ...; a
 * process that calls itself "_Total" becomes "_Total#1".  The instance id is
 * the pid and the key its start time (stat 22), so a reused pid is a new
 * process whose rates restart (first_sample).  Names of later duplicates
 * shift when an earlier one exits, as on Windows; id and key do not.
 *
 * Reads are lazy: stat always (names, keys), status, io, fd/ and
 * smaps_rollup only when a wanted counter needs them.  Descriptors stay open
 * across collections within the budget of proctable.c (half the fd soft
 * limit); past it, files are opened and closed each time.  A kept stat fd of
 * a process that exited reads ESRCH, even when its pid is reused, so a kept
 * fd never mixes two processes.  Processes that vanish between the listing
 * and the read (ENOENT, ESRCH) are left out; an EACCES file (io, fd/,
 * smaps_rollup of other users' processes) leaves its counters unset; kernel
 * threads have no mm: their status lacks the Vm lines and smaps_rollup is
 * not read.  A stat without comm, state or start time is left out.
 *
 * _Total sums the gauges (sizes, counts) over the listed processes, and the
 * cumulative counters (times, faults, I/O, switches) over the listed ones
 * plus the last values of those that exited during the query, so its rates
 * do not fall when a process exits. */
#include "pl_provider.h"
#include "providers.h"
#include "proctable.h"

#include <errno.h>
#include <fcntl.h>
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
#define CTR(id, name, help, type, detail) { id, name, help, type, PL_NO_ID, detail, 0, 8 }

static const pl_counter_def counters[NC] = {
    CTR(0, "% Processor Time", "Share of one CPU's time the process ran, user and kernel mode "
        "(stat 14 utime + 15 stime); above 100 when it runs on several CPUs.", T100, NOV),
    CTR(1, "% User Time", "Share of one CPU's time the process ran in user mode, guest time "
        "included (stat 14 utime).", T100, NOV),
    CTR(2, "% Privileged Time", "Share of one CPU's time the process ran in the kernel "
        "(stat 15 stime).", T100, NOV),
    CTR(3, "Virtual Bytes Peak", "Largest virtual address space size the process has had, in "
        "bytes (status VmPeak).", LRAW, NOV),
    CTR(4, "Virtual Bytes", "Virtual address space size in bytes (stat 23 vsize).", LRAW, NOV),
    CTR(5, "Page Faults/sec", "Page faults per second, minor and major (stat 10 minflt + "
        "12 majflt).", BULK, NOV),
    CTR(6, "Working Set Peak", "Largest resident set the process has had, in bytes "
        "(status VmHWM).", LRAW, NOV),
    CTR(7, "Working Set", "Resident memory in bytes (stat 24 rss x page size).", LRAW, NOV),
    CTR(9, "Page File Bytes", "Memory of the process swapped out, in bytes (status VmSwap).",
        LRAW, NOV),
    CTR(10, "Private Bytes", "Anonymous memory of the process, resident or swapped, in bytes "
        "(status RssAnon + VmSwap); untouched allocations are not counted.", LRAW, NOV),
    CTR(11, "Thread Count", "Threads in the process (stat 20 num_threads).", RAW, NOV),
    CTR(12, "Priority Base", "Scheduling priority on the kernel's 0-139 scale (stat 18 + 100): "
        "120 + nice for normal processes, 99 - rtprio for real-time ones; lower is more "
        "urgent.", RAW, NOV),
    CTR(13, "Elapsed Time", "Seconds since the process started (stat 22 starttime against "
        "/proc/uptime).", PERF_ELAPSED_TIME, NOV),
    CTR(14, "ID Process", "The process id, the name of its /proc directory.", RAW, NOV),
    CTR(15, "Creating Process ID", "The parent's process id (stat 4 ppid); 0 for the first "
        "processes.", RAW, NOV),
    CTR(18, "Handle Count", "Open file descriptors: the entries of /proc/[pid]/fd (one "
        "directory read per process).", RAW, WIZ),
    CTR(19, "IO Read Operations/sec", "Read system calls per second, files, pipes, sockets "
        "and devices alike (io syscr).", BULK, NOV),
    CTR(20, "IO Write Operations/sec", "Write system calls per second (io syscw).", BULK, NOV),
    CTR(21, "IO Data Operations/sec", "Read and write system calls per second (io syscr + "
        "syscw).", BULK, NOV),
    CTR(22, "IO Other Operations/sec", "Always 0: Linux counts no other class of I/O calls; "
        "kept for Windows compatibility.", BULK, NOV),
    CTR(23, "IO Read Bytes/sec", "Bytes per second returned by read system calls (io rchar).",
        BULK, NOV),
    CTR(24, "IO Write Bytes/sec", "Bytes per second passed to write system calls (io wchar).",
        BULK, NOV),
    CTR(25, "IO Data Bytes/sec", "Bytes per second read and written by system calls (io rchar "
        "+ wchar).", BULK, NOV),
    CTR(26, "IO Other Bytes/sec", "Always 0: Linux counts no other class of I/O; kept for "
        "Windows compatibility.", BULK, NOV),
    CTR(27, "Working Set - Private", "Resident memory no other process maps, in bytes "
        "(smaps_rollup Private_Clean + Private_Dirty + Private_Hugetlb; a costly read).",
        LRAW, WIZ),
    CTR(32, "Major Page Faults/sec", "Page faults per second that needed a disk read "
        "(stat 12 majflt).", BULK, ADV),
    CTR(33, "Disk Read Bytes/sec", "Bytes per second the process caused to be read from "
        "storage (io read_bytes).", BULK, ADV),
    CTR(34, "Disk Write Bytes/sec", "Bytes per second the process caused to be written to "
        "storage (io write_bytes, cancelled writes not subtracted).", BULK, ADV),
    CTR(35, "Context Switches/sec", "Context switches of the process per second, voluntary "
        "and forced (status voluntary_ctxt_switches + nonvoluntary_ctxt_switches).", BULK, ADV),
    CTR(36, "% IO Wait Time", "Share of time the process waited for block I/O (stat 42 "
        "delayacct_blkio_ticks; 0 unless delay accounting is on).", T100, ADV),
    CTR(37, "Processor", "The CPU the process last ran on (stat 39).", RAW, ADV),
};

/* Sources, one bit each, so `wanted` turns into a set of files to read. */
enum { S_STAT = 1, S_STATUS = 2, S_IO = 4, S_FD = 8, S_SMAPS = 16, S_UPTIME = 32 };
enum { F_STAT, F_STATUS, F_IO, F_FD, F_SMAPS, NFD };

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

/* One process (pid + start time) across collections.  Entries are touched
 * once per collect and are out of cache by then: what a stat-only collect
 * needs (up to last[X_PROC]) sits in the first 64 bytes. */
typedef struct pent {
    uint32_t pid;            /* first: the table's id */
    uint32_t known;          /* start holds the identity */
    uint64_t start;          /* stat 22, ticks after boot */
    int fd[NFD];             /* kept descriptors, -1 when not open */
    uint64_t acc_have;       /* BIT(c) of last[c] published at the last collect */
    uint64_t last[NC];       /* cumulative values last published */
} pent;

/* Duplicate-name counting for one collection: comm -> occurrences so far;
 * the first occurrence of each name is copied to the arena. */
typedef struct nslot {
    uint32_t off, hash, stamp, count, len;
} nslot;

typedef struct pstate {
    pl_ptbase b;             /* env, /proc, clock, buffers, pids */
    uint64_t page;
    pl_etab tab;
    nslot *names;
    uint32_t nmask, stamp;
    char *arena;
    size_t alen, acap;
    uint64_t dead[NC], dead_have;   /* exited processes' last cumulative values */
} pstate;

/* ---- entries ------------------------------------------------------------------------ */

/* The identity ended (exit or pid reuse): its cumulative values move to
 * _Total's share of the dead, its descriptors close. */
static void forget(pstate *s, pent *e, int keep_stat)
{
    for (uint64_t m = e->acc_have; m; m &= m - 1) {
        int c = __builtin_ctzll(m);
        s->dead[c] += e->last[c];
        s->dead_have |= BIT(c);
    }
    e->acc_have = 0;
    e->known = 0;
    for (int k = 0; k < NFD; k++)
        if (!(keep_stat && k == F_STAT))
            pl_pt_close(&e->fd[k]);
}

static void ent_init(void *ud, void *ve, uint32_t id)
{
    pent *e = ve;
    (void)ud;
    (void)id;
    for (int k = 0; k < NFD; k++)
        e->fd[k] = -1;
}

static void ent_retire(void *ud, void *ve)
{
    forget(ud, ve, 0);
}

static void p_close(void *state)
{
    pstate *s = state;
    if (!s)
        return;
    pl_etab_free(&s->tab, ent_retire, s);
    free(s->names);
    free(s->arena);
    pl_pt_base_free(&s->b);
    free(s);
}

static int p_open(pl_env *env, void **state)
{
    pstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    pl_pt_base_init(&s->b, env);
    s->page = (uint64_t)pl_env_page_size(env);
    pl_etab_init(&s->tab, sizeof(pent));
    *state = s;
    return 0;
}

/* ---- names ------------------------------------------------------------------------- */

static int names_reset(pstate *s, uint32_t n)
{
    uint32_t size = 64;
    while (size < 2 * n)
        size *= 2;
    if (size > s->nmask + 1 || !s->names) {
        nslot *t = calloc(size, sizeof *t);
        if (!t)
            return ENOMEM;
        free(s->names);
        s->names = t;
        s->nmask = size - 1;
        s->stamp = 0;
    }
    if (++s->stamp == 0) {   /* wrapped: stamps start again from a clean table */
        memset(s->names, 0, (s->nmask + 1) * sizeof *s->names);
        s->stamp = 1;
    }
    s->alen = 0;
    return 0;
}

/* Eight bytes at a time: kworker names run to 30 bytes. */
static uint32_t hash_name(const char *p, uint32_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    for (w = 0; len; len--)
        w = w << 8 | (unsigned char)p[len - 1];
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ h >> 32);
}

/* Occurrences of this name before, in this collection (the name is counted);
 * UINT32_MAX for ENOMEM. */
static uint32_t name_seen(pstate *s, const char *name, uint32_t len)
{
    uint32_t h = hash_name(name, len), i;
    for (i = h & s->nmask;; i = (i + 1) & s->nmask) {
        nslot *n = &s->names[i];
        if (n->stamp != s->stamp) {
            if (s->alen + len > s->acap) {
                size_t cap = s->acap ? s->acap * 2 : 16384;
                char *a = realloc(s->arena, cap);
                if (!a)
                    return UINT32_MAX;
                s->arena = a;
                s->acap = cap;
            }
            memcpy(s->arena + s->alen, name, len);
            n->stamp = s->stamp;
            n->hash = h;
            n->off = (uint32_t)s->alen;
            n->len = len;
            n->count = 1;
            s->alen += len;
            return 0;
        }
        if (n->hash == h && n->len == len && memcmp(s->arena + n->off, name, len) == 0)
            return n->count++;
    }
}

/* "name" or "name#k" into out (PL_COMM_MAX + 12 bytes); NULL for ENOMEM. */
static const char *dup_name(pstate *s, const char *comm, uint32_t len, char *out)
{
    uint32_t k = name_seen(s, comm, len);
    char *p = out + len;
    if (k == UINT32_MAX)
        return NULL;
    memcpy(out, comm, len);
    if (k) {
        *p++ = '#';
        p = pl_pt_utoa(p, k);
    }
    *p = '\0';
    return out;
}

/* ---- reads ------------------------------------------------------------------------- */

static const char *const leaf[NFD] = { "/stat", "/status", "/io", "/fd", "/smaps_rollup" };

/* The relative path of a file of e: built only when it must be opened. */
static const char *rel_of(const pent *e, int k, char *rel)
{
    char *p;
    if (e->fd[k] >= 0)
        return NULL;
    p = pl_pt_utoa(rel, e->pid);
    strcpy(p, leaf[k]);
    return rel;
}

static int read_file(pstate *s, pent *e, int k)
{
    char rel[40];
    return pl_pt_read(s->b.procfd, rel_of(e, k, rel), &e->fd[k], &s->b.rb);
}

/* stat of e into ps; a kept fd that fails (the process exited; its pid may
 * live on in a new process) is dropped and the path opened afresh.  0, or
 * errno when the process is to be left out. */
static int read_stat(pstate *s, pent *e, uint32_t need, pl_pstat *ps)
{
    int err;
    if (e->fd[F_STAT] >= 0 && read_file(s, e, F_STAT) != 0)
        forget(s, e, 0);     /* ESRCH: that process is gone */
    else if (e->fd[F_STAT] >= 0)
        goto parse;
    if ((err = read_file(s, e, F_STAT)) != 0) {
        forget(s, e, 0);
        return err;
    }
parse:
    if (pl_pt_parse_stat(s->b.rb.buf, s->b.rb.len, need, ps) || !(ps->have & PS_BIT(PS_START)))
        return EINVAL;
    if (e->known && e->start != ps->v[PS_START])
        forget(s, e, 1);     /* same pid, another process: rates restart */
    e->start = ps->v[PS_START];
    e->known = 1;
    return 0;
}

static const pl_ptkey status_keys[] = {
    PL_PTKEY("VmPeak", 1), PL_PTKEY("VmHWM", 1), PL_PTKEY("RssAnon", 1), PL_PTKEY("VmSwap", 1),
    PL_PTKEY("voluntary_ctxt_switches", 0), PL_PTKEY("nonvoluntary_ctxt_switches", 0),
};
enum { K_VMPEAK, K_VMHWM, K_RSSANON, K_VMSWAP, K_VCSW, K_NVCSW };

static const pl_ptkey io_keys[] = {
    PL_PTKEY("rchar", 0), PL_PTKEY("wchar", 0), PL_PTKEY("syscr", 0), PL_PTKEY("syscw", 0),
    PL_PTKEY("read_bytes", 0), PL_PTKEY("write_bytes", 0),
};
enum { K_RCHAR, K_WCHAR, K_SYSCR, K_SYSCW, K_RBYTES, K_WBYTES };

static const pl_ptkey smaps_keys[] = {
    PL_PTKEY("Private_Clean", 1), PL_PTKEY("Private_Dirty", 1), PL_PTKEY("Private_Hugetlb", 1),
};

#define HAS(h, k) (((h) >> (k)) & 1u)
#define PUT(c, x) (v[c] = (x), have |= BIT(c))

/* ---- collection -------------------------------------------------------------------- */

static int p_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pstate *s = state;
    uint8_t wl[NC];
    unsigned nw = 0, src = 0;
    uint32_t need = PS_BIT(PS_START) | PS_BIT(PS_FLAGS);
    uint64_t tot[NC] = { 0 }, tot_have = 0;
    char name[PL_COMM_MAX + 16];
    int e, ti;

    pl_snap_clear(snap);     /* a reused snapshot starts empty */
    for (unsigned c = 0; c < NC; c++)
        if (!wanted || wanted[c]) {
            wl[nw++] = (uint8_t)c;
            src |= cinfo[c].src;
            need |= cinfo[c].fields;
        }
    if (src & S_UPTIME) {
        int64_t now;
        if (pl_pt_uptime(&s->b.uptime, s->b.env, &now) == 0) {
            snap->obj_time = now;
            snap->obj_freq = 10000000;
        } else {
            src &= ~(unsigned)S_UPTIME;      /* no clock: Elapsed Time unset */
        }
    }
    if ((e = pl_pt_list_pids(&s->b, 1, snap)) != 0)
        return e;
    if ((e = pl_etab_sync(&s->tab, s->b.ids, s->b.nids, ent_init, ent_retire, s)) != 0 ||
        (e = names_reset(s, s->tab.n + 1)) != 0)
        return e;
    if (name_seen(s, "_Total", 6))   /* a process named _Total becomes _Total#1 */
        return ENOMEM;

    for (uint32_t i = 0; i < s->tab.n; i++) {
        pent *pe = s->tab.v[i];
        pl_pstat ps;
        uint64_t v[NC], have = 0, kv[6];
        if (i + 2 < s->tab.n)        /* cold after a collect's kernel work: load it early */
            __builtin_prefetch(s->tab.v[i + 2]);
        uint32_t kh;
        int kthread;
        if (read_stat(s, pe, need, &ps))
            continue;        /* vanished, unreadable or malformed */
        const char *nm = dup_name(s, ps.comm, ps.comm_len, name);
        int inst = nm ? pl_snap_add_key(snap, nm, pe->pid, pe->start) : -1;
        if (inst < 0)
            return ENOMEM;
        kthread = (ps.have & PS_BIT(PS_FLAGS)) && (ps.v[PS_FLAGS] & PL_PF_KTHREAD);

        /* stat */
#define ST(f) ((ps.have & PS_BIT(PS_##f)) != 0)
        if (ST(UTIME) && ST(STIME))
            PUT(X_PROC, pl_pt_hns(ps.v[PS_UTIME] + ps.v[PS_STIME], s->b.per_tick, s->b.hz));
        if (ST(UTIME))
            PUT(X_USER, pl_pt_hns(ps.v[PS_UTIME], s->b.per_tick, s->b.hz));
        if (ST(STIME))
            PUT(X_PRIV, pl_pt_hns(ps.v[PS_STIME], s->b.per_tick, s->b.hz));
        if (ST(VSIZE))
            PUT(X_VIRT, ps.v[PS_VSIZE]);
        if (ST(MINFLT) && ST(MAJFLT))
            PUT(X_FAULTS, ps.v[PS_MINFLT] + ps.v[PS_MAJFLT]);
        if (ST(MAJFLT))
            PUT(X_MAJ, ps.v[PS_MAJFLT]);
        if (ST(RSS) && ps.v[PS_RSS] <= UINT64_MAX / s->page)
            PUT(X_WS, ps.v[PS_RSS] * s->page);
        if (ST(THREADS))
            PUT(X_THREADS, ps.v[PS_THREADS]);
        /* -100..39; SCHED_DEADLINE's -101 has no place on the scale */
        if (ST(PRIO) && (int64_t)ps.v[PS_PRIO] >= -100 && (int64_t)ps.v[PS_PRIO] <= 39)
            PUT(X_PRIO, (uint64_t)((int64_t)ps.v[PS_PRIO] + 100));
        if (src & S_UPTIME)
            PUT(X_ELAP, pl_pt_hns(pe->start, s->b.per_tick, s->b.hz));
        PUT(X_PID, pe->pid);
        if (ST(PPID))
            PUT(X_PPID, ps.v[PS_PPID]);
        if (ST(BLKIO))
            PUT(X_IOWAIT, pl_pt_hns(ps.v[PS_BLKIO], s->b.per_tick, s->b.hz));
        if (ST(CPU))
            PUT(X_CPU, ps.v[PS_CPU]);
#undef ST
        /* the other files, each only when asked for */
        if ((src & S_STATUS) && read_file(s, pe, F_STATUS) == 0) {
            pl_pt_scan_keys(s->b.rb.buf, s->b.rb.len, status_keys, 6, kv, &kh);
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
        if ((src & S_IO) && read_file(s, pe, F_IO) == 0) {
            pl_pt_scan_keys(s->b.rb.buf, s->b.rb.len, io_keys, 6, kv, &kh);
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
        if (src & S_FD) {
            char rel[40];
            uint32_t n;
            if (pl_pt_count(s->b.procfd, rel_of(pe, F_FD, rel), &pe->fd[F_FD], &s->b.db, &n) == 0)
                PUT(X_HANDLES, n);
        }
        if ((src & S_SMAPS) && !kthread && read_file(s, pe, F_SMAPS) == 0) {
            pl_pt_scan_keys(s->b.rb.buf, s->b.rb.len, smaps_keys, 3, kv, &kh);
            if (HAS(kh, 0) && HAS(kh, 1))    /* Private_Hugetlb is newer: 0 without it */
                PUT(X_WSPRIV, kv[0] + kv[1] + (HAS(kh, 2) ? kv[2] : 0));
        }

        /* publish what was asked for; keep cumulative values for _Total */
        pe->acc_have = 0;
        for (unsigned k = 0; k < nw; k++) {
            unsigned c = wl[k];
            if (!(have & BIT(c)))
                continue;
            pl_snap_set(snap, (uint32_t)inst, c, v[c]);
            if (cinfo[c].total != T_NONE) {
                tot[c] += v[c];
                tot_have |= BIT(c);
            }
            if (cinfo[c].total == T_ACC) {
                pe->last[c] = v[c];
                pe->acc_have |= BIT(c);
            }
        }
    }

    ti = pl_snap_add(snap, "_Total", TOTAL_ID);
    if (ti < 0)
        return ENOMEM;
    for (unsigned k = 0; k < nw; k++) {
        unsigned c = wl[k];
        if (cinfo[c].total == T_ACC && (s->dead_have & BIT(c))) {
            tot[c] += s->dead[c];
            tot_have |= BIT(c);
        }
        if (tot_have & BIT(c))
            pl_snap_set(snap, (uint32_t)ti, c, tot[c]);
    }
    return 0;
}

/* ---- metadata: names and ids from the listing and comm ------------------------------- */

static int p_instances(void *state, pl_snapshot *snap)
{
    pstate *s = state;
    char name[PL_COMM_MAX + 16];
    int e;
    pl_snap_clear(snap);
    if ((e = pl_pt_list_pids(&s->b, 0, snap)) != 0)
        return e;
    if ((e = pl_etab_sync(&s->tab, s->b.ids, s->b.nids, ent_init, ent_retire, s)) != 0 ||
        (e = names_reset(s, s->tab.n + 1)) != 0)
        return e;
    if (name_seen(s, "_Total", 6))
        return ENOMEM;
    for (uint32_t i = 0; i < s->tab.n; i++) {
        pent *pe = s->tab.v[i];
        char rel[40], comm[PL_COMM_MAX];
        int fd = -1;
        char *p = pl_pt_utoa(rel, pe->pid);
        const char *nm;
        size_t len;
        strcpy(p, "/comm");
        fd = openat(s->b.procfd, rel, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;        /* gone, or hidden */
        ssize_t r = read(fd, comm, sizeof comm);
        close(fd);
        if (r <= 0)
            continue;
        len = (size_t)r;
        if (comm[len - 1] == '\n')
            len--;
        if (len > PL_COMM_MAX - 1)
            len = PL_COMM_MAX - 1;
        nm = dup_name(s, comm, (uint32_t)len, name);
        if (!nm || pl_snap_add(snap, nm, pe->pid) < 0)
            return ENOMEM;
    }
    return pl_snap_add(snap, "_Total", TOTAL_ID) < 0 ? ENOMEM : 0;
}

static const pl_provider_ops ops = { p_open, p_close, p_instances, p_collect };

const pl_counterset_def pl_process_def = {
    /* UUIDv5 of "Process" in the perflib namespace */
    { 0x7f6354f6, 0xb0e1, 0x5efd, { 0xae, 0xa3, 0x52, 0x22, 0xce, 0x8a, 0xf8, 0xc5 } },
    "Process",
    "Processor time, memory, page faults, threads and I/O of each process, from "
    "/proc/[pid]/stat, and status, io, fd/ and smaps_rollup when their counters are asked for.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 14000,
};
