/* Conntrack (single instance): the netfilter connection tracking table of
 * the query's network namespace, from the kernel sources of conntrack.h,
 * each read once per collect and only when a wanted counter needs it: the
 * entries and the limit (the sysctls nf_conntrack_count and _max) and the
 * event counts of /proc/net/stat/nf_conntrack summed over the CPUs.
 *
 * The event counts are 32 bits per CPU and wrap: each CPU's line is
 * unwrapped on its own before the sum, so the rates stay right across a
 * wrap of one CPU's cell (a collect at least once per 2^32 events).  A
 * malformed line leaves every sum unset; a field the kernel does not have
 * (clashres before 5.x, found/insert on others) leaves its counter unset.
 *
 * Errors, as in memory.c: each file is one source; without the
 * nf_conntrack module none exists and the set fails (ENOENT and the first
 * file); a source that fails leaves only its own counters unset. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "conntrack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define MAX_LINES 8192u      /* possible CPUs: state is kept per line */

enum { S_COUNT, S_MAX, S_SUMS, NSRC };
enum {
    C_ENTRIES, C_LIMIT, C_USED, C_USED_BASE, C_FOUND, C_NEW, C_INVALID, C_IGNORE, C_DELETE,
    C_INSERT, C_INSERT_FAILED, C_DROP, C_EARLY_DROP, C_ICMP_ERROR, C_SEARCH_RESTART,
    C_CLASHRES, NC
};

/* A rate of the stat table: name, detail, field (its header name in lower
 * case), help's words. */
#define CT_RATE(R, id, name, det, F, f, what) \
    R(id, name, what " per second, summed over the CPUs (/proc/net/stat/nf_conntrack " \
      f ").", BULK, PL_NO_ID, det, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_SUMS, PL_CT_##F))

#define CT_ROWS(R) \
    R(C_ENTRIES, "Entries", "Connections in the tracking table now " \
      "(/proc/sys/net/netfilter/nf_conntrack_count).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_COUNT, 0)) \
    R(C_LIMIT, "Entries Limit", "Most connections the table holds before new ones are " \
      "dropped (/proc/sys/net/netfilter/nf_conntrack_max).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_MAX, 0)) \
    R(C_USED, "% Table Used", "Entries as a percentage of the limit (nf_conntrack_count over " \
      "nf_conntrack_max); at 100 new connections are dropped.", PERF_LARGE_RAW_FRACTION, \
      C_USED_BASE, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_COUNT, 0)) \
    R(C_USED_BASE, "% Table Used Base", "The limit, nf_conntrack_max: the base of % Table Used.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_MAX, 0)) \
    CT_RATE(R, C_FOUND, "Found/sec", ADV, FOUND, "found", "Lookups that found a connection") \
    CT_RATE(R, C_NEW, "New/sec", NOV, NEW, "new", "Connections added that were not expected") \
    CT_RATE(R, C_INVALID, "Invalid/sec", NOV, INVALID, "invalid", "Packets that could not be tracked") \
    CT_RATE(R, C_IGNORE, "Ignored/sec", ADV, IGNORE, "ignore", "Packets already tracked or untracked") \
    CT_RATE(R, C_DELETE, "Deleted/sec", ADV, DELETE, "delete", "Connections removed") \
    CT_RATE(R, C_INSERT, "Inserted/sec", ADV, INSERT, "insert", "Connections inserted into the table") \
    CT_RATE(R, C_INSERT_FAILED, "Insert Failures/sec", NOV, INSERT_FAILED, "insert_failed", \
            "Insertions that failed, a duplicate entry for instance") \
    CT_RATE(R, C_DROP, "Drops/sec", NOV, DROP, "drop", \
            "Packets dropped because tracking failed, the table being full for instance") \
    CT_RATE(R, C_EARLY_DROP, "Early Drops/sec", NOV, EARLY_DROP, "early_drop", \
            "Connections evicted early to make room when the table was full") \
    CT_RATE(R, C_ICMP_ERROR, "ICMP Errors/sec", ADV, ICMP_ERROR, "icmp_error", \
            "ICMP errors that matched no connection") \
    CT_RATE(R, C_SEARCH_RESTART, "Search Restarts/sec", ADV, SEARCH_RESTART, "search_restart", \
            "Table lookups restarted because a resize moved entries") \
    CT_RATE(R, C_CLASHRES, "Clash Resolutions/sec", ADV, CLASHRES, "clashres", \
            "Insert races resolved by merging with the entry already there (kernel 5.x)")

static const pl_counter_def counters[] = { CT_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { CT_ROWS(PL_ROW_FEED) };

/* The summed event counts as the walk reads them. */
typedef struct ct_sums {
    uint64_t v[PL_CT_N];
    uint8_t st[PL_CT_N];
} ct_sums;

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_ct_count, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_ct_max, pl_sysnum),
    PL_FEED_SRC_ST(NULL, ct_sums),
};

/* A line's unwrapped counts. */
typedef struct ct_line {
    uint32_t last[PL_CT_N];
    uint64_t acc[PL_CT_N];
    int seen;
} ct_line;

typedef struct ct_state {
    pl_ksrc *k[NSRC];        /* the machine's readers; S_SUMS is made here */
    pl_ksrc *stat;
    ct_line *line;
    uint32_t nline;
} ct_state;

static void ct_close(void *state)
{
    ct_state *s = state;
    if (!s)
        return;
    free(s->line);
    free(s);                 /* the readers are the environment's */
}

static int ct_open(pl_env *env, void **state)
{
    ct_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->k[S_COUNT] = pl_ksrc_attach(env, &pl_ksrc_ct_count);
    s->k[S_MAX] = pl_ksrc_attach(env, &pl_ksrc_ct_max);
    s->stat = pl_ksrc_attach(env, &pl_ksrc_ct_stat);
    if (!s->k[S_COUNT] || !s->k[S_MAX] || !s->stat) {
        ct_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

/* Unwraps every line and sums them into out: 0, or ENOMEM. */
static int sum_lines(ct_state *s, const pl_ct_stat *t, ct_sums *out)
{
    int all_ok = t->rows.n <= MAX_LINES;
    memset(out, 0, sizeof *out);
    if (t->rows.n > s->nline && all_ok) {
        ct_line *l = realloc(s->line, t->rows.n * sizeof *l);
        if (!l)
            return ENOMEM;
        memset(l + s->nline, 0, (t->rows.n - s->nline) * sizeof *l);
        s->line = l;
        s->nline = t->rows.n;
    }
    for (uint32_t n = 0; all_ok && n < t->rows.n; n++) {
        const pl_ctrow *r = (const pl_ctrow *)t->rows.row + n;
        ct_line *l = &s->line[n];
        if (!r->ok) {
            all_ok = 0;
            break;
        }
        for (int k = 0; k < PL_CT_N; k++) {
            /* mod 2^32: the kernel's unsigned int wrapped at most once */
            l->acc[k] = l->seen ? l->acc[k] + (uint32_t)(r->v[k] - l->last[k]) : r->v[k];
            l->last[k] = r->v[k];
            out->v[k] += l->acc[k];
        }
        l->seen = 1;
    }
    for (int k = 0; k < PL_CT_N; k++)
        out->st[k] = !all_ok ? PL_NS_BAD : t->col[k] < 0 ? PL_NS_ABSENT : PL_NS_OK;
    return 0;
}

static int ct_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    ct_state *s = state;
    uint32_t need = pl_feed_need(feeds, NC, wanted);
    pl_feed_in in;
    ct_sums sums;
    int e;
    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, s->k, snap, s);
    pl_feed_read(&in, need & ~PL_BIT(S_SUMS));
    if ((need & PL_BIT(S_SUMS)) &&
        pl_source_done(&in.files, pl_ksrc_get(s->stat), pl_ksrc_path(s->stat))) {
        if (!in.timed)
            snap->time = pl_ksrc_time(s->stat);
        in.timed = 1;
        if (sum_lines(s, pl_ksrc_data(s->stat), &sums))
            return ENOMEM;
        pl_feed_put(&in, S_SUMS, &sums);
    }
    if ((e = pl_feed_end(&in)) != 0)
        return e;
    pl_feed_walk(&in, 0, feeds, NC, wanted);
    return 0;
}

static const pl_provider_ops ops = { ct_open, ct_close, pl_single_instance, ct_collect, NULL, NULL };

const pl_counterset_def pl_conntrack_def = {
    /* UUIDv5(perflib namespace, "Conntrack") */
    { 0xc652cc6a, 0xecff, 0x5139, { 0x9f, 0x8a, 0x3d, 0xf2, 0x33, 0xe1, 0x2e, 0x51 } },
    "Conntrack",
    "The netfilter connection tracking table of this network namespace: its entries against "
    "its limit, and the tracking events of all CPUs, from /proc/sys/net/netfilter and "
    "/proc/net/stat/nf_conntrack; absent without the nf_conntrack module.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, NC, counters, &ops, 31000, NULL,
};
