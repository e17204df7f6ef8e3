/* System counterset (single instance): /proc/stat, /proc/loadavg,
 * /proc/uptime, the /proc directory and a few /proc/sys values.  The first
 * three are kernel sources (procstat.h, proc_misc.h) read once per collect
 * for every set that wants them: /proc/stat with Processor Information,
 * whose instant System then shares.
 *
 * Error policy, as in memory.c: each file (and the /proc directory) is one
 * source (pl_sources).  A source that cannot be read, or is empty, leaves
 * only its own counters unset; the set fails (errno, err_path of the first
 * failure) only when every source the wanted counters need failed.  A
 * malformed field leaves only its counters unset.
 * System Calls/sec is left out: Linux has no syscall count without tracing. */
#include "providers.h"
#include "pl_provider.h"
#include "procstat.h"
#include "proc_misc.h"
#include "srcparse.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    SC_CTXT, SC_FORKS, SC_QUEUE, SC_BLOCKED, SC_PROCS, SC_THREADS, SC_UPTIME,
    SC_LOAD1, SC_LOAD5, SC_LOAD15, SC_FH_ALLOC, SC_FH_MAX, SC_FH_PCT,
    SC_FH_PCT_BASE, SC_ENTROPY, SC_PID_MAX, SC_THREADS_MAX, SC_N
};

/* Sources, one bit each, so `wanted` turns into a set of files to read. */
enum {
    S_STAT = 1, S_LOADAVG = 2, S_UPTIME = 4, S_PROCDIR = 8, S_FILENR = 16,
    S_ENTROPY = 32, S_PIDMAX = 64, S_THREADSMAX = 128
};

#define RAW PERF_COUNTER_RAWCOUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define CTR(id, name, help, type, base, detail, scale, u) \
    {id, name, help, type, base, detail, scale, 8, u }

static const pl_counter_def sys_counters[SC_N] = {
    CTR(SC_CTXT, "Context Switches/sec", "Context switches of all CPUs per second "
        "(/proc/stat ctxt).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER)),
    CTR(SC_FORKS, "Forks/sec", "Processes and threads created per second "
        "(/proc/stat processes, the fork count since boot).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER)),
    CTR(SC_QUEUE, "Processor Queue Length", "Runnable tasks other than the reader, sar's "
        "runq-sz (/proc/loadavg running count minus 1).", RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE)),
    CTR(SC_BLOCKED, "Processes Blocked", "Tasks blocked waiting for I/O "
        "(/proc/stat procs_blocked).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE)),
    CTR(SC_PROCS, "Processes", "Processes, kernel threads included, counted as the numeric "
        "entries of /proc; fewer under hidepid.", RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE)),
    CTR(SC_THREADS, "Threads", "Threads in the system (/proc/loadavg nr_threads, the "
        "number after the slash).", RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE)),
    CTR(SC_UPTIME, "System Up Time", "Seconds since boot, suspend included "
        "(/proc/uptime, CLOCK_BOOTTIME).", PERF_ELAPSED_TIME, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, DISCRETE)),
    CTR(SC_LOAD1, "Load Average 1 min", "Load average over 1 minute, runnable plus "
        "uninterruptible tasks (/proc/loadavg field 1).", LRAW, PL_NO_ID, ADV, -2, PL_U(COUNT, 0.01, GAUGE)),
    CTR(SC_LOAD5, "Load Average 5 min", "Load average over 5 minutes, runnable plus "
        "uninterruptible tasks (/proc/loadavg field 2).", LRAW, PL_NO_ID, ADV, -2, PL_U(COUNT, 0.01, GAUGE)),
    CTR(SC_LOAD15, "Load Average 15 min", "Load average over 15 minutes, runnable plus "
        "uninterruptible tasks (/proc/loadavg field 3).", LRAW, PL_NO_ID, ADV, -2, PL_U(COUNT, 0.01, GAUGE)),
    CTR(SC_FH_ALLOC, "File Handles Allocated", "Open file handles in the kernel "
        "(/proc/sys/fs/file-nr field 1).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE)),
    CTR(SC_FH_MAX, "File Handles Max", "Most file handles the kernel will allocate "
        "(/proc/sys/fs/file-nr field 3, fs.file-max).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE)),
    CTR(SC_FH_PCT, "% File Handles In Use", "File handles allocated as a percentage of "
        "the maximum (/proc/sys/fs/file-nr field 1 over field 3).",
        PERF_LARGE_RAW_FRACTION, SC_FH_PCT_BASE, ADV, 0, PL_U(COUNT, 1, GAUGE)),
    CTR(SC_FH_PCT_BASE, "% File Handles In Use Base", "The file handle maximum, the base "
        "of % File Handles In Use.", PERF_LARGE_RAW_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE)),
    CTR(SC_ENTROPY, "Entropy Available Bits", "Entropy in the kernel random pool in bits "
        "(/proc/sys/kernel/random/entropy_avail; always 256 since 5.18).",
        RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE)),
    CTR(SC_PID_MAX, "Max Processes", "Highest process id plus one, the process limit "
        "(/proc/sys/kernel/pid_max).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE)),
    CTR(SC_THREADS_MAX, "Max Threads", "Most threads the kernel allows "
        "(/proc/sys/kernel/threads-max).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE)),
};

static const unsigned char sys_src[SC_N] = {
    S_STAT, S_STAT, S_LOADAVG, S_STAT, S_PROCDIR, S_LOADAVG, S_UPTIME,
    S_LOADAVG, S_LOADAVG, S_LOADAVG, S_FILENR, S_FILENR, S_FILENR, S_FILENR,
    S_ENTROPY, S_PIDMAX, S_THREADSMAX,
};

/* The kernel sources (pl_ksrc.h) and the counters they feed, one row each:
 * the source's field, as it is or through a derive.  Each source's struct
 * holds its fields as v[] and st[] (PL_NS_*), so one walk serves them all. */
enum { K_STAT, K_LOADAVG, K_UPTIME, NK };

static const struct {
    const pl_ksrc_def *def;
    unsigned need;           /* its S_* bit */
    size_t v, st;            /* offsets of v[] and st[] in its struct */
} ksrcs[NK] = {
    { &pl_ksrc_stat, S_STAT, offsetof(pl_procstat, v), offsetof(pl_procstat, st) },
    { &pl_ksrc_loadavg, S_LOADAVG, offsetof(pl_loadavg, v), offsetof(pl_loadavg, st) },
    { &pl_ksrc_uptime, S_UPTIME, offsetof(pl_uptime, v), offsetof(pl_uptime, st) },
};

/* Processor Queue Length: the running count less the reader itself. */
static void queue_length(pl_snapshot *snap, unsigned ctr, uint64_t run)
{
    pl_snap_set(snap, 0, ctr, run > 0 ? run - 1 : 0);
}

/* System Up Time: the clock is the object time (the seconds since boot in
 * 100 ns, at most INT64_MAX); the counter's own value is boot = 0. */
static void boot_clock(pl_snapshot *snap, unsigned ctr, uint64_t up)
{
    snap->obj_time = (int64_t)up;
    snap->obj_freq = 10000000;
    pl_snap_set(snap, 0, ctr, 0);
}

static const struct {
    uint8_t ctr, src, field;
    void (*derive)(pl_snapshot *snap, unsigned ctr, uint64_t v);   /* NULL: v itself */
} fed[] = {
    { SC_CTXT, K_STAT, PL_STAT_CTXT, NULL },
    { SC_FORKS, K_STAT, PL_STAT_PROCESSES, NULL },
    { SC_BLOCKED, K_STAT, PL_STAT_BLOCKED, NULL },
    { SC_QUEUE, K_LOADAVG, PL_LOAD_RUNNING, queue_length },
    { SC_THREADS, K_LOADAVG, PL_LOAD_THREADS, NULL },
    { SC_LOAD1, K_LOADAVG, PL_LOAD_1, NULL },      /* load x 100 */
    { SC_LOAD5, K_LOADAVG, PL_LOAD_5, NULL },
    { SC_LOAD15, K_LOADAVG, PL_LOAD_15, NULL },
    { SC_UPTIME, K_UPTIME, PL_UPTIME_UP, boot_clock },
};

enum { F_FILENR, F_ENTROPY, F_PIDMAX, F_THREADSMAX, NF };

typedef struct sys_state {
    pl_env *env;
    pl_ksrc *k[NK];          /* the machine's readers */
    pl_file f[NF];
    DIR *proc;
} sys_state;

#define MAXTOK 8

/* A /proc/sys file holding one number, one source; 1 with *v, 0 if
 * unreadable or malformed. */
static int read_single(pl_sources *src, pl_file *f, const pl_env *env, const char *rel,
                       uint64_t *v)
{
    const char *tok[MAXTOK];
    size_t len[MAXTOK];
    if (!pl_source_read(src, f, env, rel))
        return 0;
    return pl_src_tokens(f->buf, f->len, tok, len, MAXTOK) == 1 && pl_src_fixed(tok[0], len[0], 0, v);
}

/* Numeric entries of the /proc directory: 0 or errno. */
static int count_processes(sys_state *s, uint64_t *n)
{
    struct dirent *d;
    uint64_t c = 0;
    if (!s->proc) {
        int fd = pl_open_rel(s->env, "proc");
        if (fd < 0 || !(s->proc = fdopendir(fd))) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return e ? e : EIO;
        }
    } else {
        rewinddir(s->proc);          /* re-reads the live directory */
    }
    errno = 0;
    while ((d = readdir(s->proc)) != NULL) {
        const char *p = d->d_name;
        if (*p < '1' || *p > '9')
            continue;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '\0')
            c++;
    }
    if (errno)
        return errno;
    *n = c;
    return 0;
}

static void do_filenr(const pl_file *f, pl_snapshot *snap)
{
    const char *tok[MAXTOK];
    size_t len[MAXTOK];
    uint64_t alloc, max;
    int n = pl_src_tokens(f->buf, f->len, tok, len, MAXTOK), ha, hm;
    if (n != 3)
        return;
    ha = pl_src_fixed(tok[0], len[0], 0, &alloc);
    hm = pl_src_fixed(tok[2], len[2], 0, &max);
    if (ha)
        pl_snap_set(snap, 0, SC_FH_ALLOC, alloc);
    if (hm)
        pl_snap_set(snap, 0, SC_FH_MAX, max);
    if (ha && hm) {
        pl_snap_set(snap, 0, SC_FH_PCT, alloc);
        pl_snap_set(snap, 0, SC_FH_PCT_BASE, max);
    }
}

static void sys_close(void *state)
{
    sys_state *s = state;
    if (!s)
        return;
    pl_files_close(s->f, NF);
    if (s->proc)
        closedir(s->proc);
    pl_env_unref(s->env);
    free(s);
}

static int sys_open(pl_env *env, void **state)
{
    sys_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_files_init(s->f, NF);
    *state = s;
    for (int k = 0; k < NK; k++)
        if (!(s->k[k] = pl_ksrc_attach(env, ksrcs[k].def))) {
            sys_close(s);
            return ENOMEM;
        }
    return 0;
}

/* The needed kernel sources, each read at most once per collect (with the
 * other sets of the machine), into the counters they feed.  System shares
 * /proc/stat's instant with Processor Information. */
static void from_ksrcs(sys_state *s, unsigned need, pl_sources *src, pl_snapshot *snap)
{
    for (int k = 0; k < NK; k++) {
        const char *d;
        if (!(need & ksrcs[k].need) ||
            !pl_source_done(src, pl_ksrc_get(s->k[k]), pl_ksrc_path(s->k[k])))
            continue;
        d = pl_ksrc_data(s->k[k]);
        if (k == K_STAT)
            snap->time = pl_ksrc_time(s->k[k]);
        for (size_t i = 0; i < sizeof fed / sizeof fed[0]; i++) {
            const uint64_t *v = (const uint64_t *)(const void *)(d + ksrcs[k].v);
            const uint8_t *st = (const uint8_t *)(d + ksrcs[k].st);
            if (fed[i].src != k || st[fed[i].field] != PL_NS_OK)
                continue;    /* another file's, absent or malformed */
            if (fed[i].derive)
                fed[i].derive(snap, fed[i].ctr, v[fed[i].field]);
            else
                pl_snap_set(snap, 0, fed[i].ctr, v[fed[i].field]);
        }
    }
}

static int sys_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    sys_state *s = state;
    pl_sources src;
    unsigned need = 0;
    uint64_t v;
    int e;

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    for (int i = 0; i < SC_N; i++)
        if (!wanted || wanted[i])
            need |= sys_src[i];
    pl_sources_init(&src);
    from_ksrcs(s, need, &src, snap);
    if ((need & S_PROCDIR) && pl_source_done(&src, count_processes(s, &v), "proc"))
        pl_snap_set(snap, 0, SC_PROCS, v);
    if ((need & S_FILENR) && pl_source_read(&src, &s->f[F_FILENR], s->env, "proc/sys/fs/file-nr"))
        do_filenr(&s->f[F_FILENR], snap);
    if ((need & S_ENTROPY) && read_single(&src, &s->f[F_ENTROPY], s->env,
                                          "proc/sys/kernel/random/entropy_avail", &v))
        pl_snap_set(snap, 0, SC_ENTROPY, v);
    if ((need & S_PIDMAX) &&
        read_single(&src, &s->f[F_PIDMAX], s->env, "proc/sys/kernel/pid_max", &v))
        pl_snap_set(snap, 0, SC_PID_MAX, v);
    if ((need & S_THREADSMAX) &&
        read_single(&src, &s->f[F_THREADSMAX], s->env, "proc/sys/kernel/threads-max", &v))
        pl_snap_set(snap, 0, SC_THREADS_MAX, v);
    return pl_sources_end(&src, snap);
}

static const pl_provider_ops sys_ops = {
    sys_open, sys_close, pl_single_instance, sys_collect, NULL,
};

const pl_counterset_def pl_system_def = {
    {0x5823c5ba, 0x7886, 0x523b, {0x9e, 0x1b, 0x85, 0xb4, 0xb1, 0x27, 0x27, 0x44}},
    "System",
    "Machine-wide scheduler, process and kernel-limit counters from /proc; inside a "
    "container these are mostly the host's figures.",
    PERF_COUNTERSET_SINGLE_INSTANCE,
    0,
    SC_N,
    sys_counters,
    &sys_ops,
    3000, NULL,
};
