/* Pressure Stall Information: one instance per resource of /proc/pressure
 * ("cpu", "io", "memory", and "irq" from 6.1 on), ids 0-3 in that order.
 *
 * A line reads "some avg10=0.41 avg60=2.33 avg300=2.67 total=21798863".
 * total (us of stall) is published x10 in 100 ns as PERF_100NSEC_TIMER, so
 * two samples give the % of wall time stalled; the kernel's running averages
 * are kept exact in hundredths (scale -2) as LRAW.
 *
 * Availability: a resource whose file is missing (ENOENT: kernel before 4.20,
 * no CONFIG_PSI, psi=0 on newer kernels, irq before 6.1) or whose read fails
 * with EOPNOTSUPP (psi=0 on older kernels) has no instance; a machine without
 * PSI has zero instances, not an error, so queries that include other sets
 * go on.  Any other read error (EACCES in a container) keeps the instance
 * with its values unset.  "full" is absent for cpu before 5.13 and "some" for
 * irq: those counters stay unset rather than 0.
 *
 * Every counter is a row (pl_rowset.h): a resource's file parses into one
 * row of values and statuses, which the generic walk turns into counters. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { R_CPU, R_IO, R_MEM, R_IRQ, NRES };

static const char *const res_name[NRES] = { "cpu", "io", "memory", "irq" };
static const char *const res_path[NRES] = {
    "proc/pressure/cpu", "proc/pressure/io", "proc/pressure/memory", "proc/pressure/irq",
};

/* counter indexes (= ids) */
enum { C_SOME, C_FULL, C_S10, C_S60, C_S300, C_F10, C_F60, C_F300, NC };

#define T100 PERF_100NSEC_TIMER
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* One resource's parsed file, handed to the walk: v[c] is counter c's value. */
typedef struct psi_row {
    uint64_t v[NC];
    uint8_t st[NC];          /* PL_NS_* */
} psi_row;

enum { S_RES, NSRC };

static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, psi_row) };

#define PSI_ROWS(R) \
    R(C_SOME, "% Some Stall Time", "Share of wall time in which at least one task was stalled " \
      "waiting for the resource (/proc/pressure/<r> some total=, us x 10 in 100 ns).", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_FIELD(S_RES, C_SOME)) \
    R(C_FULL, "% Full Stall Time", "Share of wall time in which all non-idle tasks were stalled " \
      "on the resource at once (/proc/pressure/<r> full total=, us x 10 in 100 ns); cpu has it " \
      "from kernel 5.13 on.", \
      T100, PL_NO_ID, NOV, 0, PL_U(SECONDS, 1e-7, COUNTER), PL_FIELD(S_RES, C_FULL)) \
    R(C_S10, "Some Avg10", "Kernel running average of the some-stall percentage over 10 s (some " \
      "avg10=), in hundredths of a percent.", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(PERCENT, 0.01, GAUGE), PL_FIELD(S_RES, C_S10)) \
    R(C_S60, "Some Avg60", "Kernel running average of the some-stall percentage over 60 s (some " \
      "avg60=), in hundredths of a percent.", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(PERCENT, 0.01, GAUGE), PL_FIELD(S_RES, C_S60)) \
    R(C_S300, "Some Avg300", "Kernel running average of the some-stall percentage over 300 s " \
      "(some avg300=), in hundredths of a percent.", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(PERCENT, 0.01, GAUGE), PL_FIELD(S_RES, C_S300)) \
    R(C_F10, "Full Avg10", "Kernel running average of the full-stall percentage over 10 s (full " \
      "avg10=), in hundredths of a percent.", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(PERCENT, 0.01, GAUGE), PL_FIELD(S_RES, C_F10)) \
    R(C_F60, "Full Avg60", "Kernel running average of the full-stall percentage over 60 s (full " \
      "avg60=), in hundredths of a percent.", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(PERCENT, 0.01, GAUGE), PL_FIELD(S_RES, C_F60)) \
    R(C_F300, "Full Avg300", "Kernel running average of the full-stall percentage over 300 s " \
      "(full avg300=), in hundredths of a percent.", \
      LRAW, PL_NO_ID, ADV, -2, PL_U(PERCENT, 0.01, GAUGE), PL_FIELD(S_RES, C_F300))


static const pl_counter_def counters[] = { PSI_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { PSI_ROWS(PL_ROW_FEED) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

typedef struct psi_state {
    pl_env *env;
    pl_file f[NRES];
    uint8_t absent[NRES];    /* PSI does not come back during a query */
} psi_state;

static int psi_open(pl_env *env, void **state)
{
    psi_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    for (int r = 0; r < NRES; r++)
        pl_file_init(&s->f[r]);
    *state = s;
    return 0;
}

static void psi_close(void *state)
{
    psi_state *s = state;
    if (!s)
        return;
    for (int r = 0; r < NRES; r++)
        pl_file_close(&s->f[r]);
    pl_env_unref(s->env);
    free(s);
}

/* key=<value> where the value ends at a blank or the end of the line. */
static int field(const char *p, const char *key, size_t klen, unsigned digits, uint64_t *v)
{
    if (strncmp(p, key, klen) != 0)
        return 0;
    p += klen;
    if (pl_parse_fixed(&p, digits, v))
        return 0;
    return *p == ' ' || *p == '\n';
}

/* One complete "some ..." or "full ..." line; sets what parses. */
static void parse_line(const char *p, psi_row *row, int full)
{
    static const struct { const char *key; size_t len; unsigned digits; } keys[4] = {
        { "avg10=", 6, 2 }, { "avg60=", 6, 2 }, { "avg300=", 7, 2 }, { "total=", 6, 0 },
    };
    int k = 0;
    p += 5;
    /* the fields come in this order; a missing or bad one leaves its counter unset */
    while (*p != '\n' && k < 4) {
        uint64_t v;
        int i;
        while (*p == ' ')
            p++;
        for (i = k; i < 4; i++)
            if (strncmp(p, keys[i].key, keys[i].len) == 0)
                break;
        if (i < 4 && field(p, keys[i].key, keys[i].len, keys[i].digits, &v)) {
            int c = i == 3 ? (full ? C_FULL : C_SOME) : (full ? C_F10 : C_S10) + i;
            if (i == 3 && !pl_mul_ok(v, 10, &v))
                c = -1;      /* us x 10 past 2^64: unset */
            if (c >= 0) {
                row->v[c] = v;
                row->st[c] = PL_NS_OK;
            }
            k = i + 1;
        }
        while (*p != ' ' && *p != '\n')
            p++;
    }
}

static void parse(const char *buf, psi_row *row)
{
    memset(row->st, PL_NS_ABSENT, sizeof row->st);
    for (const char *p = buf; p && *p; p = pl_next_line(p)) {
        int full;
        if (!strchr(p, '\n'))
            break;                   /* the end: pl_file_read ends every line */
        if (strncmp(p, "some ", 5) == 0)
            full = 0;
        else if (strncmp(p, "full ", 5) == 0)
            full = 1;
        else
            continue;
        parse_line(p, row, full);
    }
}

/* Reads every resource not known to be absent and adds its instance;
 * values only when `values`. */
static int psi_fill(psi_state *s, pl_snapshot *snap, const uint8_t *wanted, int values)
{
    pl_feed_in in;
    psi_row row;
    pl_snap_clear(snap);
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (int r = 0; r < NRES; r++) {
        int e, i;
        if (s->absent[r])
            continue;
        e = pl_file_read(&s->f[r], s->env, res_path[r]);
        if (e == ENOENT || e == EOPNOTSUPP || e == ENOTDIR) {
            s->absent[r] = 1;
            continue;
        }
        if (e == ENOMEM)
            return ENOMEM;
        i = pl_snap_add(snap, res_name[r], (uint32_t)r);
        if (i < 0)
            return ENOMEM;
        if (!e && values) {
            parse(s->f[r].buf, &row);
            pl_feed_put(&in, S_RES, &row);
            pl_feed_walk(&in, (uint32_t)i, feeds, NC, wanted);
        }
    }
    return 0;
}

static int psi_instances(void *state, pl_snapshot *snap)
{
    return psi_fill(state, snap, NULL, 0);
}

static int psi_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    /* one small file holds every counter of a resource: wanted changes nothing */
    return psi_fill(state, snap, wanted, 1);
}

static const pl_provider_ops psi_ops = { psi_open, psi_close, psi_instances, psi_collect, NULL, NULL };

const pl_counterset_def pl_psi_def = {
    {0x0fc9bc92, 0x5314, 0x5798, {0xaa, 0xd1, 0xc5, 0x0c, 0xf2, 0x25, 0x93, 0xbe}},
    "Pressure Stall Information",
    "Time tasks spent stalled on CPU, I/O, memory and IRQs, from /proc/pressure (kernel 4.20 "
    "and later with CONFIG_PSI); no instances where PSI is absent or disabled.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &psi_ops, 19000, NULL,
};
