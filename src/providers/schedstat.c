/* Scheduler (one instance per CPU, and _Total): the scheduler's run-queue
 * statistics from /proc/schedstat (schedstat.h), the kernel source read
 * once per collect; it exists only with CONFIG_SCHEDSTATS, and without it
 * the set fails with ENOENT and the file.
 *
 * Time on the CPU and time waiting for it are the kernel's nanoseconds
 * kept in 100 ns (floored: the rates lose under 100 ns a sample):
 * % Run Time is a multi-timer over the CPUs it covers (1, or all of them
 * for _Total, Windows' PERF_100NSEC_MULTI_TIMER), and Average Waiting Tasks
 * a 100 ns queue length: the waits summed over the interval are the mean
 * number of runnable tasks kept waiting (node_exporter's
 * node_schedstat_waiting_seconds_total as a rate).  A malformed CPU line
 * leaves its values unset and _Total's with them. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "schedstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define TOTAL_ID 0xFFFFFFFEu

enum { S_CPU, NSRC };
/* the walk's fields: schedstat's, then the CPUs covered */
enum { F_CPUS = PL_SCHED_N, F_RUN_100NS, F_WAIT_100NS, NF };
enum {
    C_RUN, C_RUN_BASE, C_WAITING, C_SLICES, C_SCHED, C_GOIDLE, C_TTWU, C_TTWU_LOCAL, NC
};

#define SC_ROWS(R) \
    R(C_RUN, "% Run Time", "Share of time the CPU ran tasks (/proc/schedstat rq_cpu_time, ns " \
      "kept in 100 ns); _Total is the mean over the CPUs.", PERF_100NSEC_MULTI_TIMER, C_RUN_BASE, \
      NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_FIELD(S_CPU, F_RUN_100NS)) \
    R(C_RUN_BASE, "% Run Time Base", "The CPUs % Run Time covers: 1, or every CPU for _Total.", \
      PERF_COUNTER_MULTI_BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_CPU, F_CPUS)) \
    R(C_WAITING, "Average Waiting Tasks", "Mean number of runnable tasks waiting for the CPU " \
      "over the interval: their waits summed (/proc/schedstat run_delay, ns kept in 100 ns) " \
      "over the time.", PERF_COUNTER_100NS_QUEUELEN_TYPE, PL_NO_ID, NOV, 0, \
      PL_U(SECONDS, 1e-7, COUNTER), PL_FIELD(S_CPU, F_WAIT_100NS)) \
    R(C_SLICES, "Timeslices/sec", "Timeslices run on the CPU per second (/proc/schedstat " \
      "pcount).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_CPU, PL_SS_SLICES)) \
    R(C_SCHED, "Schedule Calls/sec", "Calls of schedule() per second (/proc/schedstat " \
      "sched_count).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_CPU, PL_SS_SCHED)) \
    R(C_GOIDLE, "Idle Switches/sec", "Times per second schedule() left the CPU idle " \
      "(/proc/schedstat sched_goidle).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_CPU, PL_SS_GOIDLE)) \
    R(C_TTWU, "Wake-ups/sec", "Tasks woken per second by this CPU (/proc/schedstat " \
      "ttwu_count).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_CPU, PL_SS_TTWU)) \
    R(C_TTWU_LOCAL, "Local Wake-ups/sec", "Tasks woken per second by this CPU that run on it " \
      "(/proc/schedstat ttwu_local).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_CPU, PL_SS_TTWU_LOCAL))

static const pl_counter_def counters[] = { SC_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { SC_ROWS(PL_ROW_FEED) };

/* One CPU's (or _Total's) values as the walk reads them. */
typedef struct sc_vals {
    uint64_t v[NF];
    uint8_t st[NF];
} sc_vals;

static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, sc_vals) };

typedef struct sc_state {
    pl_ksrc *k;
} sc_state;

static int sc_open(pl_env *env, void **state)
{
    sc_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_schedstat))) {
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static void sc_close(void *state)
{
    free(state);             /* the reader is the environment's */
}

static void cpu_vals(const pl_schedrow *r, sc_vals *out)
{
    memset(out, 0, sizeof *out);
    if (!r->ok)
        return;
    memcpy(out->v, r->v, sizeof r->v);
    out->v[F_CPUS] = 1;
    out->v[F_RUN_100NS] = r->v[PL_SS_RUN_NS] / 100;
    out->v[F_WAIT_100NS] = r->v[PL_SS_WAIT_NS] / 100;
    memset(out->st, PL_NS_OK, sizeof out->st);
}

/* _Total's sums; *ok 0 once a CPU is unknown or a sum would wrap. */
static void add_vals(sc_vals *tot, const sc_vals *c, int *ok)
{
    if (!c->st[F_CPUS])
        *ok = 0;
    for (int f = 0; *ok && f < NF; f++)
        *ok = pl_add_ok(tot->v[f], c->v[f], &tot->v[f]);
}

static int sc_read(sc_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const pl_schedstat *t;
    const void *data;
    pl_feed_in in;
    sc_vals v, tot;
    int e, ti, ok = 1;
    pl_snap_clear(snap);
    if ((e = pl_feed_rows_source(s->k, snap, &data)) != 0)
        return e;
    t = data;
    memset(&tot, 0, sizeof tot);
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, s);
    for (uint32_t n = 0; t && n < t->rows.n; n++) {
        const pl_schedrow *r = (const pl_schedrow *)t->rows.row + n;
        char name[16];
        int k;
        snprintf(name, sizeof name, "%u", (unsigned)r->cpu);
        if ((k = pl_snap_add(snap, name, r->cpu)) < 0)
            return ENOMEM;
        if (!values)
            continue;
        cpu_vals(r, &v);
        add_vals(&tot, &v, &ok);
        pl_feed_put(&in, S_CPU, &v);
        pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
    }
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (!values || !t || !ok || t->rows.n == 0)
        return 0;            /* no values for _Total */
    memset(tot.st, PL_NS_OK, sizeof tot.st);
    pl_feed_put(&in, S_CPU, &tot);
    pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    return 0;
}

PL_READ_OPS(sc, sc_open, sc_close, sc_read);

const pl_counterset_def pl_schedstat_def = {
    /* UUIDv5(perflib namespace, "Scheduler") */
    { 0x0dd65d8e, 0x9071, 0x52eb, { 0xab, 0x64, 0xac, 0xac, 0x33, 0x96, 0x6f, 0x1b } },
    "Scheduler",
    "Run-queue statistics of each CPU and of all of them, from /proc/schedstat: time running "
    "tasks, tasks kept waiting, timeslices, schedule calls and wake-ups; absent without "
    "CONFIG_SCHEDSTATS.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &sc_ops, 35000, NULL,
};
