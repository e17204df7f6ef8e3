/* Every time base and base-counter kind through the whole path: a provider
 * registered into an environment, a query, two samples, and the formatted
 * values (pl_sample_format and pl_sample_format_block).  The provider is a
 * test double whose values the test sets; the sample timestamps (and their
 * results' own) are set to 0 and 1 s so every rate is exact. */
#include "ctest.h"
#include "perflib.h"

#include <errno.h>
#include <stdlib.h>

enum { N_COUNTERS = 13 };

/* values[inst][counter] served by the next collect */
static uint64_t values[2][N_COUNTERS];
static int64_t obj_time, obj_freq = 1000;
static int fail_with;

static const pl_counter_def counters[N_COUNTERS] = {
    { 0, "Bulk/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 1, "Dword/sec", "", PERF_COUNTER_COUNTER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 4, 0, 0, 0 },
    { 2, "% Busy", "", PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 3, "% Multi Busy", "", PERF_100NSEC_MULTI_TIMER, 4, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 4, "Multi Base", "", PERF_COUNTER_MULTI_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 5, "% Object Busy", "", PERF_OBJ_TIME_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 6, "Avg. sec/op", "", PERF_AVERAGE_TIMER, 7, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 7, "Ops", "", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 4, 0, 0, 0 },
    { 8, "% Orphan", "", PERF_LARGE_RAW_FRACTION, 99, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 9, "Age", "", PERF_ELAPSED_TIME, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 10, "Label", "", PERF_COUNTER_TEXT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 11, "Queue", "", PERF_COUNTER_100NS_QUEUELEN_TYPE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 12, "Scaled", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 3, 8, 0, 0, 0 },
};

static int t_open(pl_env *env, void **state)
{
    (void)env;
    *state = &values;
    return 0;
}

static void t_close(void *state) { (void)state; }

static int t_instances(void *state, pl_snapshot *snap)
{
    (void)state;
    pl_snap_clear(snap);
    return pl_snap_add(snap, "a", 1) < 0 || pl_snap_add(snap, "b", 2) < 0 ? ENOMEM : 0;
}

static int t_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    if (fail_with) {
        snap->err_path = "test/none";
        return fail_with;
    }
    int e = t_instances(state, snap);
    if (e)
        return e;
    for (uint32_t i = 0; i < 2; i++)
        for (uint32_t c = 0; c < N_COUNTERS; c++)
            pl_snap_set(snap, i, c, values[i][c]);
    snap->obj_time = obj_time;
    snap->obj_freq = obj_freq;
    return 0;
}

static const pl_provider_ops ops = { t_open, t_close, t_instances, t_collect, NULL, NULL };

static const pl_counterset_def test_set = {
    { 0x11111111, 0x2222, 0x3333, { 0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 } },
    "Test Types", "All kinds of counters.", PERF_COUNTERSET_MULTI_INSTANCES, 0,
    N_COUNTERS, counters, &ops, 90000, NULL,
};

static pl_sample *collect_at(pl_query *q, int64_t t)
{
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0 && s);
    if (s) {
        s->perf_time = t;        /* exact intervals, independent of the clock */
        for (uint32_t k = 0; k < s->nblocks; k++)
            s->blocks[k].time = t;   /* the results' own clocks, which formulas use */
    }
    return s;
}

static double F(const pl_sample *s1, const pl_sample *s0, uint32_t i, uint32_t c, pl_status want)
{
    double v = -1;
    pl_status st = pl_sample_format(s1, &s1->blocks[0], i, c, s0, NULL, &v);
    if (st != want)
        fprintf(stderr, "  counter %u instance %u: status %s, expected %s\n", (unsigned)c,
                (unsigned)i, pl_status_name(st), pl_status_name(want));
    CHECK(st == want);
    return v;
}

static void test_time_bases(void)
{
    pl_env *env = pl_env_new("/nonexistent");
    pl_query *q;
    pl_sample *s0, *s1;
    pl_add_status st;
    uint32_t idx;
    CHECK(pl_env_register(env, &test_set) == 0);
    CHECK(pl_env_register(env, &test_set) == EEXIST);
    q = pl_query_new(env);
    pl_env_unref(env);
    CHECK(pl_query_add_path(q, "\\Test Types(*)\\*", &st, &idx) == 0 && st == 0);
    /* "*" leaves out the bases: 13 counters less Multi Base, Ops */
    CHECK_EQ_U64(pl_query_spec(q, 0)->ncounters, 11);

    /* instance a at t = 0 */
    uint64_t a0[N_COUNTERS] = { 1000, 4294967290u, 0, 0, 4, 0, 0, 10, 5, 0, 0, 0, 7 };
    /* instance a at t = 1 s (1e7 ticks) */
    uint64_t a1[N_COUNTERS] = { 3500, 9, 2500000, 20000000, 4, 300, 2000000, 14, 5, 0, 0, 35000000, 7 };
    for (int c = 0; c < N_COUNTERS; c++)
        values[0][c] = a0[c], values[1][c] = a0[c];
    obj_time = 1000;             /* object clock at 1000 Hz */
    s0 = collect_at(q, 0);
    for (int c = 0; c < N_COUNTERS; c++)
        values[0][c] = a1[c];
    obj_time = 1600;
    s1 = collect_at(q, 10000000);
    if (!s0 || !s1)
        goto out;
    const pl_block *b = &s1->blocks[0];
    /* visible counter positions in the result: 0..3, 5, 6, 8..12 -> 0..10 */
    CHECK_EQ_U64(b->ncounters, 11);
    CHECK_STR(pl_sample_counter(s1, b, 4)->name, "% Object Busy");
    /* Bulk: (3500-1000) / 1 s = 2500/s */
    CHECK_NEAR(F(s1, s0, 0, 0, PL_VALID), 2500.0, 1e-9);
    /* Dword (size 4): 4294967290 -> 9 wraps to +15 in 1 s */
    CHECK_NEAR(F(s1, s0, 0, 1, PL_VALID), 15.0, 1e-9);
    /* % Busy: 2.5e6 hns of 1e7 = 25 % */
    CHECK_NEAR(F(s1, s0, 0, 2, PL_VALID), 25.0, 1e-9);
    /* % Multi Busy: 100 * (2e7 / 1e7) / 4 = 50 % */
    CHECK_NEAR(F(s1, s0, 0, 3, PL_VALID), 50.0, 1e-9);
    /* % Object Busy: 300 object ticks of 600 = 50 % */
    CHECK_NEAR(F(s1, s0, 0, 4, PL_VALID), 50.0, 1e-9);
    /* Avg. sec/op: (2e6 hns / 1e7) / (14-10) ops = 0.05 s */
    CHECK_NEAR(F(s1, s0, 0, 5, PL_VALID), 0.05, 1e-12);
    /* % Orphan names a base that the set does not define */
    F(s1, s0, 0, 6, PL_INVALID_DATA);
    /* Age: (1600 - 0) / 1000 Hz = 1.6 s */
    CHECK_NEAR(F(s1, s0, 0, 7, PL_VALID), 1.6, 1e-12);
    F(s1, s0, 0, 8, PL_UNSUPPORTED_TYPE);
    /* Queue: 3.5e7 item-hns over 1e7 hns = 3.5 */
    CHECK_NEAR(F(s1, s0, 0, 9, PL_VALID), 3.5, 1e-12);
    /* Scaled: 7 x 10^3 */
    CHECK_NEAR(F(s1, s0, 0, 10, PL_VALID), 7000.0, 1e-9);
    /* instance b did not move: rates are 0, the timer is 0 %, the average has no ops */
    CHECK_NEAR(F(s1, s0, 1, 0, PL_VALID), 0.0, 0);
    CHECK_NEAR(F(s1, s0, 1, 2, PL_VALID), 0.0, 0);
    F(s1, s0, 1, 5, PL_ZERO_BASE);
    /* first sample */
    F(s1, NULL, 0, 0, PL_FIRST_SAMPLE);
    CHECK_NEAR(F(s1, NULL, 0, 10, PL_VALID), 7000.0, 1e-9);
    /* scale override and no-scale */
    pl_fmt fmt = { PL_FMT_NOSCALE, 0, 0 };
    double v;
    CHECK(pl_sample_format(s1, b, 0, 10, NULL, &fmt, &v) == PL_VALID && v == 7.0);
    pl_fmt sc = { 0, 1, -1 };
    CHECK(pl_sample_format(s1, b, 0, 10, NULL, &sc, &v) == PL_VALID && fabs(v - 0.7) < 1e-12);
    /* the bulk path agrees with the one-by-one path, value by value */
    double out[22];
    uint8_t sts[22];
    size_t valid = pl_sample_format_block(s1, b, s0, NULL, out, sts);
    size_t expect_valid = 0;
    for (uint32_t i = 0; i < 2; i++)
        for (uint32_t c = 0; c < 11; c++) {
            double one;
            pl_status st1 = pl_sample_format(s1, b, i, c, s0, NULL, &one);
            CHECK_EQ_U64(sts[i * 11 + c], st1);
            if (st1 == PL_VALID) {
                CHECK_NEAR(out[i * 11 + c], one, 0);
                expect_valid++;
            }
        }
    CHECK_EQ_U64(valid, expect_valid);
out:
    free(s0);
    free(s1);
    pl_query_free(q);
}

static void test_order_and_failures(void)
{
    pl_env *env = pl_env_new("/nonexistent");
    pl_query *q;
    pl_sample *s0, *s1, *s2;
    pl_add_status st;
    uint32_t idx;
    double v;
    pl_env_register(env, &test_set);
    q = pl_query_new(env);
    pl_env_unref(env);
    pl_query_add_path(q, "\\Test Types(a)\\Bulk/sec", &st, &idx);
    values[0][0] = 100;
    s0 = collect_at(q, 0);
    values[0][0] = 50;           /* a reset: never a negative rate */
    s1 = collect_at(q, 10000000);
    fail_with = EIO;             /* the source fails as a whole */
    s2 = collect_at(q, 20000000);
    fail_with = 0;
    if (s0 && s1 && s2) {
        CHECK(pl_sample_format(s1, &s1->blocks[0], 0, 0, s0, NULL, &v) == PL_NEGATIVE_DELTA);
        /* samples out of order: the interval is negative */
        values[0][0] = 60;
        CHECK(pl_sample_format(s0, &s0->blocks[0], 0, 0, s1, NULL, &v) == PL_NEGATIVE_INTERVAL);
        CHECK_EQ_U64(s2->blocks[0].shape, PERF_ERROR_RETURN);
        CHECK_EQ_U64(s2->blocks[0].err, EIO);
        CHECK_STR(s2->blocks[0].err_path, "test/none");
        CHECK(pl_sample_format(s2, &s2->blocks[0], 0, 0, s1, NULL, &v) == PL_NO_DATA);
        /* the same instant twice */
        s1->perf_time = s1->blocks[0].time = 0;
        CHECK(pl_sample_format(s1, &s1->blocks[0], 0, 0, s0, NULL, &v) == PL_NEGATIVE_DELTA);
        values[0][0] = 100;
    }
    free(s0);
    free(s1);
    free(s2);
    pl_query_free(q);
}

static void test_statistics(void)
{
    pl_stats st;
    /* one-sample type: 2, 4, 9 -> min 2, max 9, mean 5 */
    pl_raw r[3] = { { 2, 0, 0, 8 }, { 4, 0, 0, 8 }, { 9, 0, 0, 8 } };
    CHECK(pl_statistics(PERF_COUNTER_LARGE_RAWCOUNT, r, 3, 0, 0, 0, 0, &st) == PL_VALID);
    CHECK_EQ_U64(st.count, 3);
    CHECK_NEAR(st.min, 2, 0);
    CHECK_NEAR(st.max, 9, 0);
    CHECK_NEAR(st.mean, 5, 1e-12);
    /* rates from a ring buffer whose oldest entry is at index 1:
     * t=0 v=0, t=1s v=10, t=2s v=40, then index 0 holds t=3s v=100
     * -> rates 10, 30, 60: min 10, max 60, mean 100/3 */
    pl_raw ring[4] = { { 100, 30000000, 0, 8 }, { 0, 0, 0, 8 }, { 10, 10000000, 0, 8 },
                       { 40, 20000000, 0, 8 } };
    CHECK(pl_statistics(PERF_COUNTER_BULK_COUNT, ring, 4, 1, 10000000, 0, 0, &st) == PL_VALID);
    CHECK_EQ_U64(st.count, 3);
    CHECK_NEAR(st.min, 10, 1e-9);
    CHECK_NEAR(st.max, 60, 1e-9);
    CHECK_NEAR(st.mean, 100.0 / 3, 1e-9);
    /* a reset in the middle is left out, not averaged in */
    pl_raw reset[3] = { { 50, 0, 0, 8 }, { 10, 10000000, 0, 8 }, { 30, 20000000, 0, 8 } };
    CHECK(pl_statistics(PERF_COUNTER_BULK_COUNT, reset, 3, 0, 10000000, 0, 0, &st) == PL_VALID);
    CHECK_EQ_U64(st.count, 1);
    CHECK_NEAR(st.mean, 20, 1e-9);
    /* nothing valid: the status says why */
    CHECK(pl_statistics(PERF_COUNTER_BULK_COUNT, r, 1, 0, 10000000, 0, 0, &st) == PL_FIRST_SAMPLE);
    CHECK(pl_statistics(PERF_COUNTER_BULK_COUNT, r, 0, 0, 10000000, 0, 0, &st) == PL_NO_DATA);
    CHECK(pl_statistics(PERF_COUNTER_BULK_COUNT, r, 3, 3, 10000000, 0, 0, &st) == PL_NO_DATA);
    CHECK(pl_statistics(PERF_COUNTER_TEXT, r, 3, 0, 0, 0, 0, &st) == PL_UNSUPPORTED_TYPE);
}

int main(void)
{
    RUN(test_time_bases);
    RUN(test_order_and_failures);
    RUN(test_statistics);
    return CT_END();
}
