/* System counterset (single instance): /proc/stat, /proc/loadavg,
 * /proc/uptime, the /proc directory and a few /proc/sys values.  The files
 * are kernel sources (procstat.h, proc_misc.h, sysnum.h) read once per
 * collect for every set that wants them: /proc/stat with Processor
 * Information, whose instant System then shares.
 *
 * Error policy, as in memory.c: each file (and the /proc directory) is one
 * source (pl_sources).  A source that cannot be read, or is empty, leaves
 * only its own counters unset; the set fails (errno, err_path of the first
 * failure) only when every source the wanted counters need failed.  A
 * malformed field leaves only its counters unset.
 * System Calls/sec is left out: Linux has no syscall count without tracing.
 *
 * Every counter is a row (pl_rowset.h) walked by the generic code; the
 * count of /proc's numeric entries is the one row this collect fills by
 * hand. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "procstat.h"
#include "proc_misc.h"
#include "sysnum.h"
#include "sysfacts.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

enum {
    SC_CTXT, SC_FORKS, SC_QUEUE, SC_BLOCKED, SC_PROCS, SC_THREADS, SC_UPTIME,
    SC_LOAD1, SC_LOAD5, SC_LOAD15, SC_FH_ALLOC, SC_FH_MAX, SC_FH_PCT,
    SC_FH_PCT_BASE, SC_ENTROPY, SC_PID_MAX, SC_THREADS_MAX, SC_N
};

#define RAW PERF_COUNTER_RAWCOUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

#define SYS_ROWS(R) \
    R(0, "Context Switches/sec", "Context switches of all CPUs per second (/proc/stat ctxt).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_STAT, PL_STAT_CTXT)) \
    R(1, "Forks/sec", "Processes and threads created per second (/proc/stat processes, the fork " \
      "count since boot).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_STAT, PL_STAT_PROCESSES)) \
    R(2, "Processor Queue Length", "Runnable tasks other than the reader, sar's runq-sz " \
      "(/proc/loadavg running count minus 1).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_DERIVE(PL_BIT(S_LOAD), queue_length)) \
    R(3, "Processes Blocked", "Tasks blocked waiting for I/O (/proc/stat procs_blocked).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_STAT, PL_STAT_BLOCKED)) \
    R(4, "Processes", "Processes, kernel threads included, counted as the numeric entries of " \
      "/proc; fewer under hidepid.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(5, "Threads", "Threads in the system (/proc/loadavg nr_threads, the number after the " \
      "slash).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_LOAD, PL_LOAD_THREADS)) \
    R(6, "System Up Time", "Seconds since boot, suspend included (/proc/uptime, CLOCK_BOOTTIME).", \
      PERF_ELAPSED_TIME, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, DISCRETE), PL_DERIVE(PL_BIT(S_UPTIME), boot_clock)) \
    R(7, "Load Average 1 min", "Load average over 1 minute, runnable plus uninterruptible tasks " \
      "(/proc/loadavg field 1).", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(COUNT, 0.01, GAUGE), PL_FIELD(S_LOAD, PL_LOAD_1)) \
    R(8, "Load Average 5 min", "Load average over 5 minutes, runnable plus uninterruptible tasks " \
      "(/proc/loadavg field 2).", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(COUNT, 0.01, GAUGE), PL_FIELD(S_LOAD, PL_LOAD_5)) \
    R(9, "Load Average 15 min", "Load average over 15 minutes, runnable plus uninterruptible " \
      "tasks (/proc/loadavg field 3).", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(COUNT, 0.01, GAUGE), PL_FIELD(S_LOAD, PL_LOAD_15)) \
    R(10, "File Handles Allocated", "Open file handles in the kernel (/proc/sys/fs/file-nr field " \
      "1).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_FILENR, PL_FILENR_ALLOC)) \
    R(11, "File Handles Max", "Most file handles the kernel will allocate (/proc/sys/fs/file-nr " \
      "field 3, fs.file-max).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_FILENR, PL_FILENR_MAX)) \
    R(12, "% File Handles In Use", "File handles allocated as a percentage of the maximum " \
      "(/proc/sys/fs/file-nr field 1 over field 3).", \
      PERF_LARGE_RAW_FRACTION, 13, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_DERIVE(PL_BIT(S_FILENR), fh_pct)) \
    R(13, "% File Handles In Use Base", "The file handle maximum, the base of % File Handles In " \
      "Use.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE), PL_DERIVE(PL_BIT(S_FILENR), fh_base)) \
    R(14, "Entropy Available Bits", "Entropy in the kernel random pool in bits " \
      "(/proc/sys/kernel/random/entropy_avail; always 256 since 5.18).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_ENTROPY, 0)) \
    R(15, "Max Processes", "Highest process id plus one, the process limit " \
      "(/proc/sys/kernel/pid_max).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_PIDMAX, 0)) \
    R(16, "Max Threads", "Most threads the kernel allows (/proc/sys/kernel/threads-max).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_THREADSMAX, 0))


/* In read order: /proc/stat first, so System shares its instant with
 * Processor Information; the /proc directory is read after S_UPTIME. */
enum { S_STAT, S_LOAD, S_UPTIME, S_FILENR, S_ENTROPY, S_PIDMAX, S_THREADSMAX, NSRC };
#define S_FIRST (PL_BIT(S_STAT) | PL_BIT(S_LOAD) | PL_BIT(S_UPTIME))

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_stat, pl_procstat),
    PL_FEED_SRC_ST(&pl_ksrc_loadavg, pl_loadavg),
    PL_FEED_SRC_ST(&pl_ksrc_uptime, pl_uptime),
    PL_FEED_SRC_ST(&pl_ksrc_filenr, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_entropy, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_pidmax, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_threadsmax, pl_sysnum),
};

/* Processor Queue Length: the running count less the reader itself. */
static int queue_length(pl_feed_in *in, uint64_t *v)
{
    uint64_t run;
    if (!pl_feed_field(in, S_LOAD, PL_LOAD_RUNNING, &run))
        return 0;
    *v = run > 0 ? run - 1 : 0;
    return 1;
}

/* System Up Time: the clock is the object time (the seconds since boot in
 * 100 ns, at most INT64_MAX); the counter's own value is boot = 0. */
static int boot_clock(pl_feed_in *in, uint64_t *v)
{
    uint64_t up;
    if (!pl_feed_field(in, S_UPTIME, PL_UPTIME_UP, &up))
        return 0;
    in->snap->obj_time = (int64_t)up;
    in->snap->obj_freq = 10000000;
    *v = 0;
    return 1;
}

/* % File Handles In Use and its base: both fields, or neither. */
static int fh_both(pl_feed_in *in, uint64_t *alloc, uint64_t *max)
{
    return pl_feed_field(in, S_FILENR, PL_FILENR_ALLOC, alloc) &&
           pl_feed_field(in, S_FILENR, PL_FILENR_MAX, max);
}

static int fh_pct(pl_feed_in *in, uint64_t *v)
{
    uint64_t max;
    return fh_both(in, v, &max);
}

static int fh_base(pl_feed_in *in, uint64_t *v)
{
    uint64_t alloc;
    return fh_both(in, &alloc, v);
}

static const pl_counter_def sys_counters[] = { SYS_ROWS(PL_ROW_COUNTER) };
static const pl_feed sys_feeds[] = { SYS_ROWS(PL_ROW_FEED) };
_Static_assert(sizeof sys_counters / sizeof sys_counters[0] == SC_N, "one row per counter");

typedef struct sys_state {
    pl_env *env;
    pl_ksrc *k[NSRC];        /* the machine's readers */
    DIR *proc;
} sys_state;

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

static void sys_close(void *state)
{
    sys_state *s = state;
    if (!s)
        return;
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
    *state = s;
    for (int k = 0; k < NSRC; k++)
        if (!(s->k[k] = pl_ksrc_attach(env, srcs[k].def))) {
            sys_close(s);
            return ENOMEM;
        }
    return 0;
}

/* The needed sources, each read at most once per collect (with the other
 * sets of the machine), in the order above: the first failure names the
 * set's error when every source fails. */
static int sys_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    sys_state *s = state;
    pl_feed_in in;
    uint32_t need;
    uint64_t v = 0;
    int e;

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    need = pl_feed_need(sys_feeds, SC_N, wanted);
    pl_feed_begin(&in, srcs, NSRC, s->k, snap, s);
    pl_feed_read(&in, need & S_FIRST);
    if ((!wanted || wanted[SC_PROCS]) && pl_source_done(&in.files, count_processes(s, &v), "proc"))
        pl_snap_set(snap, 0, SC_PROCS, v);
    pl_feed_read(&in, need & ~S_FIRST);
    if ((e = pl_feed_end(&in)) != 0)
        return e;
    pl_feed_walk(&in, 0, sys_feeds, SC_N, wanted);
    return 0;
}

/* The machine's text facts: uname, os-release, DMI, SELinux (sysfacts.h). */
static int sys_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    const sys_state *s = state;
    if (instance)
        return ENOENT;
    (void)pl_sysfacts(s->env, emit, ud);     /* a stop by emit is no error */
    return 0;
}

static const pl_provider_ops sys_ops = {
    sys_open, sys_close, pl_single_instance, sys_collect, NULL, sys_info,
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
