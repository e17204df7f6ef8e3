/* Softnet (one instance per CPU, and _Total): the network stack's per-CPU
 * receive path from /proc/net/softnet_stat (softnet.h), the kernel source
 * read once per collect: packets processed, packets dropped because the
 * backlog (net.core.netdev_max_backlog) was full, time squeezes (the
 * softirq ran out of net.core.netdev_budget with work left), RPS wake-ups,
 * flow-limit drops, and the backlog's length now (5.10).
 *
 * The kernel's counters are 32 bits and wrap; each is unwrapped into a
 * 64-bit count per CPU, so rates stay right across a wrap, provided a
 * collect comes at least once per 2^32 events.  A CPU is its line's index
 * field (5.10); older kernels list the online CPUs in order without it, so
 * their lines are mapped through sys/devices/system/cpu/online.  A CPU that
 * goes offline keeps its counts in _Total, so _Total never goes back.  A
 * malformed line leaves its CPU's values unset and _Total with them; a
 * line no CPU can be named for (no index, no online list) is not shown,
 * and leaves _Total unset. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "softnet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define TOTAL_ID 0xFFFFFFFEu
#define MAX_CPUS 8192u       /* a bound on ids from the file: state is indexed by them */

enum { C_PROCESSED, C_DROPPED, C_SQUEEZED, C_RPS, C_FLOW_LIMIT, C_BACKLOG, NC };
enum { S_CPU, NSRC };        /* one CPU's values, handed by the collect */

#define SN_ROWS(R) \
    R(C_PROCESSED, "Packets Processed/sec", "Packets the CPU's receive softirq took from its " \
      "queues per second (softnet_stat field 1, processed).", BULK, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_CPU, C_PROCESSED)) \
    R(C_DROPPED, "Packets Dropped/sec", "Packets dropped per second because the CPU's input " \
      "backlog was full, net.core.netdev_max_backlog (softnet_stat field 2, dropped).", BULK, \
      PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_CPU, C_DROPPED)) \
    R(C_SQUEEZED, "Time Squeezes/sec", "Times per second the receive softirq stopped with work " \
      "left because its budget (net.core.netdev_budget, netdev_budget_usecs) ran out " \
      "(softnet_stat field 3, time_squeeze).", BULK, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_CPU, C_SQUEEZED)) \
    R(C_RPS, "RPS Wake-ups/sec", "Times per second another CPU woke this one to process " \
      "packets steered to it by RPS (softnet_stat field 10, received_rps; 2.6.35).", BULK, \
      PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_CPU, C_RPS)) \
    R(C_FLOW_LIMIT, "Flow Limit Drops/sec", "Packets dropped per second by the per-flow limit " \
      "of the backlog, net.core.flow_limit_cpu_bitmap (softnet_stat field 11, " \
      "flow_limit_count; 3.11).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_CPU, C_FLOW_LIMIT)) \
    R(C_BACKLOG, "Backlog Length", "Packets waiting in the CPU's input backlog now " \
      "(softnet_stat field 12; kernel 5.10 and later).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_CPU, C_BACKLOG))

static const pl_counter_def counters[] = { SN_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { SN_ROWS(PL_ROW_FEED) };

/* The field of softnet_stat each counter unwraps (the backlog is a level). */
static const uint8_t field_of[NC] = {
    PL_SN_PROCESSED, PL_SN_DROPPED, PL_SN_SQUEEZED, PL_SN_RPS, PL_SN_FLOW_LIMIT, PL_SN_BACKLOG,
};

/* One CPU's values as the walk reads them: v[] and st[] per counter. */
typedef struct sn_vals {
    uint64_t v[NC];
    uint8_t st[NC];
} sn_vals;

static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, sn_vals) };

/* A CPU ever seen: its unwrapped counts. */
typedef struct sn_cpu {
    char name[12];           /* the CPU number, made once */
    uint64_t listed;         /* the read that last listed it (a hotplug race can repeat one) */
    uint32_t last[NC];       /* the previous raw 32-bit values */
    uint64_t acc[NC];        /* unwrapped */
    uint8_t has[NC];         /* acc holds a value for this field */
} sn_cpu;

typedef struct sn_state {
    pl_env *env;
    pl_ksrc *k;
    pl_file online;          /* only for kernels without the index field */
    uint64_t reads;          /* this state's reads, for sn_cpu.listed */
    sn_cpu *cpu;             /* indexed by CPU number */
    uint32_t ncpu;
    uint32_t *map;           /* line -> CPU, from the online list */
    uint32_t nmap, mapcap;
} sn_state;

static void sn_close(void *state)
{
    sn_state *s = state;
    if (!s)
        return;
    pl_file_close(&s->online);
    free(s->cpu);
    free(s->map);
    pl_env_unref(s->env);
    free(s);
}

static int sn_open(pl_env *env, void **state)
{
    sn_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_file_init(&s->online);
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_softnet))) {
        sn_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static int map_push(sn_state *s, uint32_t cpu)
{
    if (s->nmap == s->mapcap) {
        uint32_t cap = s->mapcap ? s->mapcap * 2 : 64;
        uint32_t *m = realloc(s->map, cap * sizeof *m);
        if (!m)
            return ENOMEM;
        s->map = m;
        s->mapcap = cap;
    }
    s->map[s->nmap++] = cpu;
    return 0;
}

/* The online CPUs in order into s->map: 0, ENOMEM, or EINVAL when the
 * list cannot be read or is malformed (then no line is mapped). */
static int read_online(sn_state *s)
{
    const char *p;
    uint32_t lo, hi;
    int r;
    s->nmap = 0;
    if (pl_file_read(&s->online, s->env, "sys/devices/system/cpu/online") || !s->online.len)
        return EINVAL;
    p = s->online.buf;
    while ((r = pl_cpulist_next(&p, MAX_CPUS, &lo, &hi)) == 1)
        for (uint32_t c = lo; c <= hi; c++)
            if (map_push(s, c))
                return ENOMEM;
    if (r < 0)
        s->nmap = 0;
    return r < 0 ? EINVAL : 0;
}

/* The CPU of line n: its index field, else the n-th online CPU; -1 if unknown. */
static int64_t line_cpu(const sn_state *s, const pl_snrow *r, uint32_t n)
{
    if (r->nf > PL_SN_CPU)
        return r->v[PL_SN_CPU] < MAX_CPUS ? (int64_t)r->v[PL_SN_CPU] : -1;
    return n < s->nmap ? (int64_t)s->map[n] : -1;
}

static sn_cpu *cpu_slot(sn_state *s, uint32_t cpu)
{
    if (cpu >= s->ncpu) {
        uint32_t n = cpu + 1 > s->ncpu * 2 ? cpu + 1 : s->ncpu * 2;
        sn_cpu *c = realloc(s->cpu, n * sizeof *c);
        if (!c)
            return NULL;
        memset(c + s->ncpu, 0, (n - s->ncpu) * sizeof *c);
        s->cpu = c;
        s->ncpu = n;
    }
    return &s->cpu[cpu];
}

/* Unwraps the line's counters into the CPU's counts and gives its values. */
static void take_line(sn_cpu *c, const pl_snrow *r, sn_vals *out)
{
    memset(out->st, PL_NS_ABSENT, sizeof out->st);
    for (unsigned k = 0; k < NC; k++) {
        unsigned f = field_of[k];
        if ((unsigned)r->nf <= f)
            continue;        /* an older kernel, or a malformed line (nf 0) */
        if (k == C_BACKLOG)
            out->v[k] = r->v[f];
        else {
            /* mod 2^32: the kernel's unsigned int wrapped at most once */
            c->acc[k] = c->has[k] ? c->acc[k] + (uint32_t)(r->v[f] - c->last[k]) : r->v[f];
            c->last[k] = r->v[f];
            c->has[k] = 1;
            out->v[k] = c->acc[k];
        }
        out->st[k] = PL_NS_OK;
    }
}

static int sn_read(sn_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const pl_softnet *t;
    const void *data;
    pl_feed_in in;
    sn_vals v, total;
    int e, ti, need_map = 0;
    pl_snap_clear(snap);
    if ((e = pl_feed_rows_source(s->k, snap, &data)) != 0)
        return e;
    t = data;
    for (uint32_t n = 0; t && n < t->n; n++)
        if (((const pl_snrow *)t->row)[n].nf <= PL_SN_CPU)
            need_map = 1;
    if (need_map && read_online(s) == ENOMEM)
        return ENOMEM;
    s->reads++;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, s);
    for (uint32_t n = 0; t && n < t->n; n++) {
        const pl_snrow *r = (const pl_snrow *)t->row + n;
        int64_t cpu = line_cpu(s, r, n);
        sn_cpu *c;
        int k;
        if (cpu < 0)
            continue;        /* a line no CPU can be named for: not shown */
        if (!(c = cpu_slot(s, (uint32_t)cpu)))
            return ENOMEM;
        if (!c->name[0])
            snprintf(c->name, sizeof c->name, "%u", (unsigned)cpu);
        if (c->listed == s->reads)
            continue;        /* named twice (the online list changed between reads) */
        c->listed = s->reads;
        if ((k = pl_snap_add(snap, c->name, (uint32_t)cpu)) < 0)
            return ENOMEM;
        if (!values)
            continue;
        take_line(c, r, &v);
        pl_feed_put(&in, S_CPU, &v);
        pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
    }
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (!values || !t)
        return 0;            /* an empty file: _Total without values */
    /* _Total: every CPU ever seen (offline ones keep their counts); the
     * backlog of the CPUs on this read's lines */
    memset(&total, 0, sizeof total);
    memset(total.st, PL_NS_OK, sizeof total.st);
    for (uint32_t c = 0; c < s->ncpu; c++)
        for (unsigned k = 0; k < C_BACKLOG; k++)
            total.v[k] += s->cpu[c].acc[k];
    for (uint32_t n = 0; n < t->n; n++) {
        const pl_snrow *r = (const pl_snrow *)t->row + n;
        int named = line_cpu(s, r, n) >= 0;
        /* a CPU's value unknown, or a line that names no CPU: so is the sum */
        for (unsigned k = 0; k < NC; k++)
            if ((unsigned)r->nf <= field_of[k] || !named)
                total.st[k] = PL_NS_ABSENT;
        if (r->nf > PL_SN_BACKLOG)
            total.v[C_BACKLOG] += r->v[PL_SN_BACKLOG];
    }
    pl_feed_put(&in, S_CPU, &total);
    pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    return 0;
}

PL_READ_OPS(sn, sn_open, sn_close, sn_read);

const pl_counterset_def pl_softnet_def = {
    /* UUIDv5(perflib namespace, "Softnet") */
    { 0xdaabfd1c, 0x96cc, 0x5ffa, { 0x95, 0x34, 0x86, 0x08, 0x46, 0x1e, 0x07, 0xb1 } },
    "Softnet",
    "The network receive path of each CPU and of all of them, from /proc/net/softnet_stat: "
    "packets processed, backlog drops, budget squeezes, RPS wake-ups, flow-limit drops and "
    "the backlog's length.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &sn_ops, 30000, NULL,
};
