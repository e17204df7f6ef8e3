/* Hardware Events: perf_event_open(2) counts per online CPU ("0", "1", ...)
 * and "_Total".  Costly: it holds one fd per CPU and event, takes PMU
 * counters from other users and needs perf_event_paranoid <= 0 or
 * CAP_PERFMON for system-wide counting (pid = -1, cpu = N).
 *
 * Events open lazily, at the first collect that wants them (never in
 * `instances`, which only lists CPUs), per CPU in groups read with one read()
 * each (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING): the
 * hardware events in one group led by cycles (an event that does not fit the
 * PMU with the others starts a second group), the software events in another,
 * so that they neither wait for the PMU nor get scaled.  An event that fails
 * to open (EACCES, ENOENT without a PMU, ...) is left unset; the rest still
 * count.  When no wanted event opens anywhere, collect returns that errno.
 *
 * Multiplexing: each interval's count is scaled by dtime_enabled /
 * dtime_running of its group, rounded half up, and added to a 64-bit
 * accumulator, so the published value is monotonic and its deltas are the
 * scaled interval counts (perf stat -I does the same).  An interval in which
 * the group never ran has no estimate: its values are unset and the interval
 * is merged into the next one (except right after opening, when the
 * accumulators' start values are published).  A failed open is not retried
 * within the query.  A CPU seen offline has its events closed and reopened
 * when it comes back; its accumulators continue.  "Cycles first" and lazy
 * opening mean the group leader is the first wanted hardware event.
 *
 * perf_event_open cannot be rooted: with a root other than "/", collect fails
 * with ENOTSUP (instances still list the root's CPUs).  The kernel calls sit
 * behind hwev_sys so tests can replace them. */
#include "pl_provider.h"
#include "pl_rowset.h"
#include "providers.h"
#include "procstat.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Ids are the positions in counters[]: index == id. */
enum {
    C_CYC, C_INS, C_IPC, C_IPCB, C_CREF, C_CMISS, C_CMR, C_CMRB, C_BR, C_BMISS, C_BMR, C_BMRB,
    C_CS, C_MIG, C_PF, C_ACT, C_ACTB, NC
};

#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

#define HWEV_ROWS(R) \
    R(C_CYC, "Cycles/sec", "CPU cycles per second (PERF_COUNT_HW_CPU_CYCLES, scaled for " \
        "multiplexing).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_INS, "Instructions/sec", "Instructions retired per second " \
        "(PERF_COUNT_HW_INSTRUCTIONS, scaled for multiplexing).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_IPC, "Instructions Per Cycle", "Instructions retired per CPU cycle over the interval: the " \
        "change in instructions over the change in cycles of the same perf group.", \
      PERF_AVERAGE_BULK, C_IPCB, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_IPCB, "Instructions Per Cycle Base", "CPU cycles (PERF_COUNT_HW_CPU_CYCLES), the base of " \
        "Instructions Per Cycle.", \
      PERF_AVERAGE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_CREF, "Cache References/sec", "Last-level cache accesses per second " \
        "(PERF_COUNT_HW_CACHE_REFERENCES, scaled for multiplexing).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_CMISS, "Cache Misses/sec", "Last-level cache misses per second " \
        "(PERF_COUNT_HW_CACHE_MISSES, scaled for multiplexing).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_CMR, "% Cache Miss Ratio", "Share of cache references that missed over the interval: " \
        "the change in cache misses over the change in cache references.", \
      PERF_SAMPLE_FRACTION, C_CMRB, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_CMRB, "Cache Miss Ratio Base", "Cache references (PERF_COUNT_HW_CACHE_REFERENCES), the " \
        "base of % Cache Miss Ratio.", \
      PERF_SAMPLE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_BR, "Branch Instructions/sec", "Branch instructions retired per second " \
        "(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, scaled for multiplexing).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_BMISS, "Branch Misses/sec", "Mispredicted branches per second " \
        "(PERF_COUNT_HW_BRANCH_MISSES, scaled for multiplexing).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_BMR, "% Branch Miss Ratio", "Share of branch instructions that were mispredicted over the " \
        "interval: the change in branch misses over the change in branch instructions.", \
      PERF_SAMPLE_FRACTION, C_BMRB, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_BMRB, "Branch Miss Ratio Base", "Branch instructions (PERF_COUNT_HW_BRANCH_INSTRUCTIONS), " \
        "the base of % Branch Miss Ratio.", \
      PERF_SAMPLE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_CS, "Context Switches/sec", "Context switches per second on the CPU " \
        "(PERF_COUNT_SW_CONTEXT_SWITCHES; needs no PMU).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_MIG, "CPU Migrations/sec", "Tasks migrated to the CPU per second " \
        "(PERF_COUNT_SW_CPU_MIGRATIONS; needs no PMU).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_PF, "Page Faults/sec", "Page faults per second on the CPU, minor and major " \
        "(PERF_COUNT_SW_PAGE_FAULTS; needs no PMU).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_ACT, "% Counter Active", "Share of the interval the cycles group was on the PMU " \
        "(the change in time_running over that in time_enabled, in 100 ns); below 100 the hardware counts are " \
        "multiplexed and scaled up.", \
      PERF_SAMPLE_FRACTION, C_ACTB, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND()) \
    R(C_ACTB, "Counter Active Base", "time_enabled of the cycles group in 100 ns, the base of " \
        "% Counter Active.", \
      PERF_SAMPLE_BASE, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_BY_HAND())

static const pl_counter_def counters[NC] = { HWEV_ROWS(PL_ROW_COUNTER) };

/* ---- events ------------------------------------------------------------------------ */

enum { E_CYC, E_INS, E_CREF, E_CMISS, E_BR, E_BMISS, E_CS, E_MIG, E_PF, NEV };
#define B(e) (1u << (e))
#define SW_FIRST E_CS        /* events from here on are software events */

static const struct { uint32_t type; uint64_t config; } events[NEV] = {
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

/* Events each counter needs (a ratio needs both of its events). */
static const uint16_t needs[NC] = {
    [C_CYC] = B(E_CYC), [C_INS] = B(E_INS), [C_IPC] = B(E_INS) | B(E_CYC), [C_IPCB] = B(E_CYC),
    [C_CREF] = B(E_CREF), [C_CMISS] = B(E_CMISS), [C_CMR] = B(E_CMISS) | B(E_CREF),
    [C_CMRB] = B(E_CREF), [C_BR] = B(E_BR), [C_BMISS] = B(E_BMISS),
    [C_BMR] = B(E_BMISS) | B(E_BR), [C_BMRB] = B(E_BR), [C_CS] = B(E_CS), [C_MIG] = B(E_MIG),
    [C_PF] = B(E_PF), [C_ACT] = B(E_CYC), [C_ACTB] = B(E_CYC),
};

/* Counters holding one event's count: {counter, event}. */
static const uint8_t plain[][2] = {
    { C_CYC, E_CYC }, { C_IPCB, E_CYC }, { C_INS, E_INS }, { C_CREF, E_CREF }, { C_CMRB, E_CREF },
    { C_CMISS, E_CMISS }, { C_BR, E_BR }, { C_BMRB, E_BR }, { C_BMISS, E_BMISS }, { C_CS, E_CS },
    { C_MIG, E_MIG }, { C_PF, E_PF },
};
/* Numerators published only when their base's event has a value too: {counter, event, base event}. */
static const uint8_t ratio[][3] = {
    { C_IPC, E_INS, E_CYC }, { C_CMR, E_CMISS, E_CREF }, { C_BMR, E_BMISS, E_BR },
};

/* ---- pure parts: group reads and multiplex scaling ---------------------------------- */

/* A PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING read:
 * { u64 nr, time_enabled, time_running, value[nr] }.  0, or EINVAL when the
 * buffer is short or holds another number of members than expected. */
static int hwev_parse_group(const void *buf, size_t len, uint32_t n, uint64_t *vals,
                            uint64_t *enabled, uint64_t *running)
{
    const unsigned char *p = buf;
    uint64_t nr;
    if (len < 3 * sizeof nr)
        return EINVAL;
    memcpy(&nr, p, sizeof nr);
    if (nr != n || len < (3 + (size_t)n) * sizeof nr)
        return EINVAL;
    memcpy(enabled, p + 8, 8);
    memcpy(running, p + 16, 8);
    memcpy(vals, p + 24, (size_t)n * 8);
    return 0;
}

__extension__ typedef unsigned __int128 hwev_u128;

/* count x enabled / running rounded half up: the estimate of what the event
 * would have counted had it been on the PMU all the time.  running >=
 * enabled (or 0) means no multiplexing: the count as it is. */
static uint64_t hwev_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
    hwev_u128 v;
    if (running == 0 || running >= enabled)
        return count;
    v = ((hwev_u128)count * enabled + running / 2) / running;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* Scaled deltas d[n] of a group read against its baseline (*b_en, *b_run,
 * b_raw[n]), and the baseline moved on.  1: d is valid; 0: the group was not
 * on the PMU since the baseline (no estimate; the baseline stays, so the
 * interval joins the next); -1: a value went backwards, which no kernel
 * counter does: re-based, no value. */
static int hwev_deltas(uint64_t *b_en, uint64_t *b_run, uint64_t *b_raw, uint32_t n,
                       uint64_t en, uint64_t run, const uint64_t *raw, uint64_t *d)
{
    int back = en < *b_en || run < *b_run;
    for (uint32_t k = 0; k < n && !back; k++)
        back = raw[k] < b_raw[k];
    if (back) {
        *b_en = en;
        *b_run = run;
        memcpy(b_raw, raw, n * sizeof *raw);
        return -1;
    }
    if (run == *b_run)
        return 0;
    for (uint32_t k = 0; k < n; k++)
        d[k] = hwev_scale(raw[k] - b_raw[k], en - *b_en, run - *b_run);
    *b_en = en;
    *b_run = run;
    memcpy(b_raw, raw, n * sizeof *raw);
    return 1;
}

#define MAX_CPUS 65536u

/* ---- kernel calls, replaceable by tests --------------------------------------------- */

typedef struct hwev_sys {
    /* fd, or -errno */
    int (*open)(void *ud, uint32_t type, uint64_t config, int cpu, int group_fd);
    ssize_t (*read)(void *ud, int fd, void *buf, size_t len);    /* -1 + errno */
    void (*close)(void *ud, int fd);
    void *ud;
} hwev_sys;

static int sys_open(void *ud, uint32_t type, uint64_t config, int cpu, int group_fd)
{
    struct perf_event_attr a;
    long fd;
    (void)ud;
    memset(&a, 0, sizeof a);
    a.type = type;
    a.size = sizeof a;
    a.config = config;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    fd = syscall(SYS_perf_event_open, &a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

static ssize_t sys_read(void *ud, int fd, void *buf, size_t len)
{
    ssize_t r;
    (void)ud;
    do
        r = read(fd, buf, len);
    while (r < 0 && errno == EINTR);
    return r;
}

static void sys_close(void *ud, int fd)
{
    (void)ud;
    close(fd);
}

/* ---- state ------------------------------------------------------------------------- */

typedef struct hwgroup {
    int fd[NEV];             /* fd[0] is the leader */
    uint8_t ev[NEV];         /* event of each member, in the order of the read */
    uint32_t n;
    int sw;                  /* software group */
    uint64_t en, run, raw[NEV];   /* baseline: the last read that gave values */
    uint64_t t_en, t_run;    /* the last times read */
    int fresh;               /* not on the PMU yet since it was opened */
} hwgroup;

typedef struct hwcpu {
    hwgroup *g;              /* NEV groups at most, allocated at the first open */
    uint32_t ng;
    int8_t grp[NEV];         /* group of each open event, -1 */
    int err[NEV];            /* errno of an open that failed; not retried while online */
    uint64_t acc[NEV];       /* scaled counts, continued across reopens */
    uint64_t act_run, act_en;     /* published times of the cycles group (ns) */
    uint64_t off_run, off_en;     /* times of closed groups, carried on */
    uint8_t got[NEV], got_act;    /* values of this collect */
    uint8_t online, seen;
} hwcpu;

typedef struct hwstate {
    pl_env *env;
    int rooted;              /* root is not "/": real events are not this machine's */
    hwev_sys sys;
    pl_file online;
    pl_ksrc *stat;           /* the machine's /proc/stat (src/sources/procstat.h) */
    uint32_t ncpu;           /* size of cpu[]: highest CPU number + 1 */
    hwcpu *cpu;
} hwstate;

static int grow(hwstate *s, uint32_t n)
{
    hwcpu *c;
    if (n <= s->ncpu)
        return 0;
    c = realloc(s->cpu, n * sizeof *c);
    if (!c)
        return ENOMEM;
    memset(c + s->ncpu, 0, (n - s->ncpu) * sizeof *c);
    for (uint32_t i = s->ncpu; i < n; i++)
        memset(c[i].grp, -1, sizeof c[i].grp);
    s->cpu = c;
    s->ncpu = n;
    return 0;
}

static void close_cpu(hwstate *s, hwcpu *h)
{
    for (uint32_t g = 0; g < h->ng; g++) {
        for (uint32_t k = 0; k < h->g[g].n; k++)
            s->sys.close(s->sys.ud, h->g[g].fd[k]);
        if (h->grp[E_CYC] == (int8_t)g) {     /* the next group's times start at 0 */
            h->off_run += h->g[g].t_run;
            h->off_en += h->g[g].t_en;
        }
    }
    h->ng = 0;
    memset(h->grp, -1, sizeof h->grp);
    memset(h->err, 0, sizeof h->err);
}

static void hw_close(void *state)
{
    hwstate *s = state;
    if (!s)
        return;
    for (uint32_t c = 0; c < s->ncpu; c++) {
        close_cpu(s, &s->cpu[c]);
        free(s->cpu[c].g);
    }
    free(s->cpu);
    pl_file_close(&s->online);
    pl_env_unref(s->env);
    free(s);
}

static int hw_open(pl_env *env, void **state)
{
    hwstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->rooted = strcmp(pl_env_root_prefix(env), "/") != 0;
    s->sys.open = sys_open;
    s->sys.read = sys_read;
    s->sys.close = sys_close;
    pl_file_init(&s->online);
    if (!(s->stat = pl_ksrc_attach(env, &pl_ksrc_stat))) {
        hw_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

/* ---- online CPUs ------------------------------------------------------------------- */

/* Marks the online CPUs: sys/devices/system/cpu/online, else the cpuN lines of
 * /proc/stat, read through the machine's procstat source (one read per
 * generation with Processor and System).  A malformed online file or cpu
 * line is an error, not a guess. */
static int read_online(hwstate *s, pl_snapshot *snap)
{
    int e = pl_file_read(&s->online, s->env, "sys/devices/system/cpu/online");
    uint32_t lo, hi, any = 0;
    const pl_procstat *ps;
    for (uint32_t c = 0; c < s->ncpu; c++)
        s->cpu[c].online = 0;
    if (e == 0) {
        const char *p = s->online.buf;
        int r;
        while ((r = pl_cpulist_next(&p, MAX_CPUS, &lo, &hi)) == 1) {
            if ((e = grow(s, hi + 1)))
                return e;
            for (uint32_t c = lo; c <= hi; c++)
                s->cpu[c].online = 1;
            any = 1;
        }
        if (r < 0 || !any) {
            snap->err_path = "sys/devices/system/cpu/online";
            return EINVAL;
        }
        return 0;
    }
    if (e != ENOENT && e != ENOTDIR) {
        snap->err_path = "sys/devices/system/cpu/online";
        return e;
    }
    if ((e = pl_ksrc_get(s->stat))) {     /* shared with Processor and System */
        snap->err_path = "proc/stat";
        return e;
    }
    ps = pl_ksrc_data(s->stat);
    for (uint32_t i = 0; i < ps->ncpu && !ps->bad_cpu; i++) {
        if ((e = grow(s, ps->cpu[i].id + 1)))
            return e;
        s->cpu[ps->cpu[i].id].online = 1;
        any = 1;
    }
    if (ps->bad_cpu || !any) {   /* a malformed cpu line: an error, not a guess */
        snap->err_path = "proc/stat";
        return EINVAL;
    }
    return 0;
}

#define TOTAL_ID 0xFFFFFFFEu

static int add_instances(hwstate *s, pl_snapshot *snap, int *total)
{
    char name[16];
    for (uint32_t c = 0; c < s->ncpu; c++) {
        if (!s->cpu[c].online)
            continue;
        snprintf(name, sizeof name, "%u", (unsigned)c);
        if (pl_snap_add(snap, name, c) < 0)
            return ENOMEM;
    }
    *total = pl_snap_add(snap, "_Total", TOTAL_ID);
    return *total < 0 ? ENOMEM : 0;
}

static int hw_instances(void *state, pl_snapshot *snap)
{
    hwstate *s = state;
    int total, e;
    pl_snap_clear(snap);
    if ((e = read_online(s, snap)))
        return e;
    return add_instances(s, snap, &total);
}

/* ---- collection -------------------------------------------------------------------- */

/* Opens event e on cpu: into the first group of its kind that takes it; an
 * event that does not fit (EINVAL, ENOSPC) tries the next group, then leads a
 * new one.  0 or errno (kept in h->err). */
static int open_event(hwstate *s, uint32_t cpu, int e)
{
    hwcpu *h = &s->cpu[cpu];
    int sw = e >= SW_FIRST, fd;
    if (!h->g && !(h->g = calloc(NEV, sizeof *h->g)))
        return h->err[e] = ENOMEM;
    for (uint32_t g = 0; g < h->ng; g++) {
        hwgroup *gr = &h->g[g];
        if (gr->sw != sw)
            continue;
        fd = s->sys.open(s->sys.ud, events[e].type, events[e].config, (int)cpu, gr->fd[0]);
        if (fd >= 0) {
            gr->fd[gr->n] = fd;
            gr->ev[gr->n] = (uint8_t)e;
            gr->raw[gr->n] = 0;      /* a new member counts from 0 */
            gr->n++;
            h->grp[e] = (int8_t)g;
            return 0;
        }
        if (fd != -EINVAL && fd != -ENOSPC)
            return h->err[e] = -fd;
    }
    fd = s->sys.open(s->sys.ud, events[e].type, events[e].config, (int)cpu, -1);
    if (fd < 0)
        return h->err[e] = -fd;
    hwgroup *gr = &h->g[h->ng];
    memset(gr, 0, sizeof *gr);
    gr->fd[0] = fd;
    gr->ev[0] = (uint8_t)e;
    gr->n = 1;
    gr->sw = sw;
    gr->fresh = 1;
    h->grp[e] = (int8_t)h->ng++;
    return 0;
}

/* One read() of a group; scaled deltas go into the accumulators. */
static void read_group(hwstate *s, hwcpu *h, uint32_t g)
{
    hwgroup *gr = &h->g[g];
    uint64_t buf[3 + NEV], vals[NEV], d[NEV], en, run;
    ssize_t r = s->sys.read(s->sys.ud, gr->fd[0], buf, sizeof buf);
    if (r < 0 || hwev_parse_group(buf, (size_t)r, gr->n, vals, &en, &run))
        return;              /* unreadable: this group's values stay unset */
    gr->t_en = en;
    gr->t_run = run;
    if (h->grp[E_CYC] == (int8_t)g) {
        h->act_run = h->off_run + run;
        h->act_en = h->off_en + en;
        h->got_act = 1;
    }
    int r2 = hwev_deltas(&gr->en, &gr->run, gr->raw, gr->n, en, run, vals, d);
    if (r2 == 0 && gr->fresh) {
        /* opened and still waiting for the PMU (another user holds it): nothing
         * counted yet, and no older value of this query to pair with, so the
         * accumulators are the right start */
        for (uint32_t k = 0; k < gr->n; k++)
            h->got[gr->ev[k]] = 1;
        return;
    }
    if (r2 != 1)
        return;
    gr->fresh = 0;
    for (uint32_t k = 0; k < gr->n; k++) {
        h->acc[gr->ev[k]] += d[k];
        h->got[gr->ev[k]] = 1;
    }
}

static const char *err_hint(int e)
{
    if (e == EACCES || e == EPERM)
        return "proc/sys/kernel/perf_event_paranoid";
    if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
        return "sys/bus/event_source/devices";
    return NULL;
}

/* Values of one instance; an event the paranoia level (EACCES/EPERM)
 * refused leaves its counters no_access (denied: B(event)). */
static void set_values(pl_snapshot *snap, uint32_t inst, const uint8_t *got, const uint64_t *v,
                       uint32_t denied, int act, uint64_t run, uint64_t en)
{
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++)
        if (got[plain[k][1]])
            pl_snap_set(snap, inst, plain[k][0], v[plain[k][1]]);
        else if (denied & B(plain[k][1]))
            pl_snap_deny(snap, inst, plain[k][0]);
    for (size_t k = 0; k < sizeof ratio / sizeof ratio[0]; k++)
        if (got[ratio[k][1]] && got[ratio[k][2]])
            pl_snap_set(snap, inst, ratio[k][0], v[ratio[k][1]]);
        else if (denied & (B(ratio[k][1]) | B(ratio[k][2])))
            pl_snap_deny(snap, inst, ratio[k][0]);
    if (act) {
        pl_snap_set(snap, inst, C_ACT, run / 100);    /* ns -> 100 ns */
        pl_snap_set(snap, inst, C_ACTB, en / 100);
    }
}

static int hw_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    hwstate *s = state;
    uint32_t need = 0, opened = 0, inst = 0, tdenied = 0;
    uint8_t tgot[NEV];
    uint64_t tacc[NEV] = { 0 }, trun = 0, ten = 0;
    int e, first_err = 0, total, tact = 1;

    pl_snap_clear(snap);
    for (int c = 0; c < NC; c++)
        if (!wanted || wanted[c])
            need |= needs[c];
    if (need && s->rooted && s->sys.open == sys_open)
        return ENOTSUP;      /* perf counts this machine, not the one below the root */
    if ((e = read_online(s, snap)))
        return e;

    for (uint32_t c = 0; c < s->ncpu; c++) {
        hwcpu *h = &s->cpu[c];
        memset(h->got, 0, sizeof h->got);
        h->got_act = 0;
        if (!h->online) {
            if (h->seen)
                close_cpu(s, h);        /* events of an unplugged CPU stop: reopen later */
            h->seen = 0;
            continue;
        }
        h->seen = 1;
        for (int ev = 0; ev < NEV; ev++) {
            if (!(need & B(ev)))
                continue;
            if (h->grp[ev] < 0 && !h->err[ev])
                open_event(s, c, ev);
            if (h->grp[ev] >= 0)
                opened++;
            else if (!first_err)
                first_err = h->err[ev];
        }
        for (uint32_t g = 0; g < h->ng; g++) {
            uint32_t m = 0;
            for (uint32_t k = 0; k < h->g[g].n; k++)
                m |= B(h->g[g].ev[k]);
            if (m & need)
                read_group(s, h, g);
        }
    }
    if (need && !opened) {
        e = first_err ? first_err : ENODEV;
        snap->err_path = err_hint(e);
        return e;
    }

    if ((e = add_instances(s, snap, &total)))
        return e;
    memset(tgot, 1, sizeof tgot);
    for (uint32_t c = 0; c < s->ncpu; c++) {
        hwcpu *h = &s->cpu[c];
        /* _Total sums every CPU ever counted (offline ones at their last
         * values, so it never falls) once each online CPU has the value */
        for (int ev = 0; ev < NEV; ev++)
            tacc[ev] += h->acc[ev];
        trun += h->act_run;
        ten += h->act_en;
        if (!h->online)
            continue;
        for (int ev = 0; ev < NEV; ev++)
            tgot[ev] &= h->got[ev];
        tact &= h->got_act;
        uint32_t denied = 0;
        for (int ev = 0; ev < NEV; ev++)
            if (h->err[ev] == EACCES || h->err[ev] == EPERM)
                denied |= B(ev);
        tdenied |= denied;
        set_values(snap, inst++, h->got, h->acc, denied, h->got_act, h->act_run, h->act_en);
    }
    set_values(snap, (uint32_t)total, tgot, tacc, tdenied, tact, trun, ten);
    return 0;
}

static const pl_provider_ops ops = { hw_open, hw_close, hw_instances, hw_collect, NULL, NULL };

const pl_counterset_def pl_hwevents_def = {
    /* UUIDv5("Hardware Events") in the perflib namespace */
    { 0x2d397b95, 0x60ba, 0x5777, { 0x8d, 0x2d, 0x5e, 0xd9, 0x6c, 0x99, 0xcc, 0xc6 } },
    "Hardware Events",
    "CPU cycles, instructions, cache and branch events and scheduler software events of each "
    "online CPU and of the machine, counted with perf_event_open(2) (needs perf_event_paranoid "
    "<= 0 or CAP_PERFMON; hardware events need a PMU).",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NC, counters, &ops, 27000, NULL,
};
