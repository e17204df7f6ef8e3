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

#include <dirent.h>
#include <errno.h>
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

enum { F_FILENR, F_ENTROPY, F_PIDMAX, F_THREADSMAX, NF };

typedef struct sys_state {
    pl_env *env;
    pl_ksrc *stat, *loadavg, *uptime;    /* the machine's readers */
    pl_file f[NF];
    DIR *proc;
} sys_state;

#define MAXTOK 8

/* Blank-separated tokens of the first line (pl_file_read ends it with '\n'). */
static int first_line_tokens(const char *buf, const char **tok, size_t *len)
{
    const char *nl = strchr(buf, '\n');
    const char *p = buf;
    int n = 0;
    if (!nl)
        return 0;
    while (p < nl && n < MAXTOK) {
        while (p < nl && (*p == ' ' || *p == '\t'))
            p++;
        if (p == nl)
            break;
        tok[n] = p;
        while (p < nl && *p != ' ' && *p != '\t')
            p++;
        len[n] = (size_t)(p - tok[n]);
        n++;
    }
    return n;
}

/* A whole token as an unsigned integer (digits == 0) or a fixed-point
 * decimal scaled by 10^digits.  Tokens end at a non-digit, so the parsers
 * never run past them. */
static int tok_num(const char *t, size_t n, unsigned digits, uint64_t *v)
{
    const char *p = t;
    if (n == 0 || *t < '0' || *t > '9')
        return 0;
    if (digits ? pl_parse_fixed(&p, digits, v) : pl_parse_u64(&p, v))
        return 0;
    return p == t + n;
}

/* One parsed value into a counter when the file had it whole. */
static void put(pl_snapshot *snap, unsigned ctr, const uint64_t *v, const uint8_t *st, int k)
{
    if (st[k] == PL_NS_OK)
        pl_snap_set(snap, 0, ctr, v[k]);
}

static void do_stat(const pl_procstat *ps, pl_snapshot *snap)
{
    put(snap, SC_CTXT, ps->v, ps->st, PL_STAT_CTXT);
    put(snap, SC_FORKS, ps->v, ps->st, PL_STAT_PROCESSES);
    put(snap, SC_BLOCKED, ps->v, ps->st, PL_STAT_BLOCKED);
}

/* A /proc/sys file holding one number, one source; 1 with *v, 0 if
 * unreadable or malformed. */
static int read_single(pl_sources *src, pl_file *f, const pl_env *env, const char *rel,
                       uint64_t *v)
{
    const char *tok[MAXTOK];
    size_t len[MAXTOK];
    if (!pl_source_read(src, f, env, rel))
        return 0;
    return first_line_tokens(f->buf, tok, len) == 1 && tok_num(tok[0], len[0], 0, v);
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

static void do_loadavg(const pl_loadavg *l, pl_snapshot *snap)
{
    for (int i = 0; i < 3; i++)
        put(snap, (unsigned)(SC_LOAD1 + i), l->v, l->st, PL_LOAD_1 + i);   /* load x 100 */
    if (l->st[PL_LOAD_RUNNING] == PL_NS_OK) {
        uint64_t run = l->v[PL_LOAD_RUNNING];
        pl_snap_set(snap, 0, SC_QUEUE, run > 0 ? run - 1 : 0);
    }
    put(snap, SC_THREADS, l->v, l->st, PL_LOAD_THREADS);
}

static void do_uptime(const pl_uptime *u, pl_snapshot *snap)
{
    /* The clock is the object time; the counter's own value is boot = 0. */
    if (u->st[PL_UPTIME_UP] == PL_NS_OK) {
        snap->obj_time = (int64_t)u->v[PL_UPTIME_UP];
        snap->obj_freq = 10000000;
        pl_snap_set(snap, 0, SC_UPTIME, 0);
    }
}

static void do_filenr(const char *buf, pl_snapshot *snap)
{
    const char *tok[MAXTOK];
    size_t len[MAXTOK];
    uint64_t alloc, max;
    int n = first_line_tokens(buf, tok, len), ha, hm;
    if (n != 3)
        return;
    ha = tok_num(tok[0], len[0], 0, &alloc);
    hm = tok_num(tok[2], len[2], 0, &max);
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
    s->stat = pl_ksrc_attach(env, &pl_ksrc_stat);
    s->loadavg = pl_ksrc_attach(env, &pl_ksrc_loadavg);
    s->uptime = pl_ksrc_attach(env, &pl_ksrc_uptime);
    if (!s->stat || !s->loadavg || !s->uptime) {
        sys_close(s);
        return ENOMEM;
    }
    return 0;
}

/* A kernel source read for this collect (at most once per collect). */
static int ksrc(pl_sources *src, pl_ksrc *k)
{
    return pl_source_done(src, pl_ksrc_get(k), pl_ksrc_path(k));
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
    if ((need & S_STAT) && ksrc(&src, s->stat)) {
        do_stat(pl_ksrc_data(s->stat), snap);
        snap->time = pl_ksrc_time(s->stat);     /* the instant Processor Information shares */
    }
    if ((need & S_LOADAVG) && ksrc(&src, s->loadavg))
        do_loadavg(pl_ksrc_data(s->loadavg), snap);
    if ((need & S_UPTIME) && ksrc(&src, s->uptime))
        do_uptime(pl_ksrc_data(s->uptime), snap);
    if ((need & S_PROCDIR) && pl_source_done(&src, count_processes(s, &v), "proc"))
        pl_snap_set(snap, 0, SC_PROCS, v);
    if ((need & S_FILENR) && pl_source_read(&src, &s->f[F_FILENR], s->env, "proc/sys/fs/file-nr"))
        do_filenr(s->f[F_FILENR].buf, snap);
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
