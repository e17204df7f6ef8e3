/* Pairing, clocks and extreme values of samples and data blocks (issue 10,
 * items 1, 4 and 16), through the whole path: two test countersets
 * registered into an environment, queries, samples, blocks written and read
 * back, and the formatted values of pl_sample_format and
 * pl_sample_format_block.
 *
 * "Fast" counts the clock itself: its one counter is the tick at which the
 * provider read it, so its rate is exactly the clock's frequency when the
 * formula uses the instant the set was read.  "Slow" sleeps for as long as
 * the test says, like Process at wizard detail. */
#include "ctest.h"
#include "perflib.h"
#include "pl_datablock.h"
#include "pl_le.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

static long slow_ms;                 /* how long the next Slow collect takes */
static int64_t fast_read;            /* the tick at which Fast was last read */

static const pl_counter_def fast_counters[] = {
    { 0, "Ticks/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 1, "Level", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 2, "% Busy", "", PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 3, "% Share", "", PERF_SAMPLE_FRACTION, 4, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 4, "Share Base", "", PERF_SAMPLE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 5, "Age", "", PERF_ELAPSED_TIME, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 6, "% Object Busy", "", PERF_OBJ_TIME_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
    { 7, "Queue", "", PERF_COUNTER_100NS_QUEUELEN_TYPE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
};
enum { N_FAST = sizeof fast_counters / sizeof fast_counters[0] };

static const pl_counter_def slow_counters[] = {
    { 0, "Items/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
};

static int t_open(pl_env *env, void **state)
{
    (void)env;
    *state = NULL;
    return 0;
}

static void t_close(void *state) { (void)state; }

static int one_instance(void *state, pl_snapshot *snap)
{
    (void)state;
    pl_snap_clear(snap);
    return pl_snap_add(snap, "only", 0) < 0 ? ENOMEM : 0;
}

static int fast_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    int e = one_instance(state, snap);
    if (e)
        return e;
    pl_now(&fast_read, NULL, NULL);
    pl_snap_set(snap, 0, 0, (uint64_t)fast_read);
    for (uint32_t c = 1; c < N_FAST; c++)
        pl_snap_set(snap, 0, c, (uint64_t)fast_read / 2);
    snap->obj_time = fast_read;
    snap->obj_freq = 10000000;
    return 0;
}

static int slow_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    struct timespec ts = { slow_ms / 1000, (slow_ms % 1000) * 1000000L };
    int e = one_instance(state, snap);
    if (e)
        return e;
    nanosleep(&ts, NULL);
    pl_snap_set(snap, 0, 0, 1);
    return 0;
}

static const pl_provider_ops fast_ops = { t_open, t_close, one_instance, fast_collect, NULL, NULL };
static const pl_provider_ops slow_ops = { t_open, t_close, one_instance, slow_collect, NULL, NULL };

static const pl_counterset_def fast_set = {
    { 0x5a5a0001, 0x1111, 0x2222, { 1, 2, 3, 4, 5, 6, 7, 8 } }, "Fast", "Reads the clock.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, N_FAST, fast_counters, &fast_ops, 91000, NULL,
};
static const pl_counterset_def slow_set = {
    { 0x5a5a0002, 0x1111, 0x2222, { 1, 2, 3, 4, 5, 6, 7, 8 } }, "Slow", "Takes its time.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, 1, slow_counters, &slow_ops, 92000, NULL,
};

static pl_env *test_env(void)
{
    pl_env *env = pl_env_new("/nonexistent");
    CHECK(env != NULL);
    CHECK(pl_env_register(env, &fast_set) == 0);
    CHECK(pl_env_register(env, &slow_set) == 0);
    return env;
}

static pl_query *query_of(pl_env *env, const char *const *paths, int n)
{
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t idx;
    for (int k = 0; k < n; k++)
        CHECK(pl_query_add_path(q, paths[k], &st, &idx) == 0 && st == 0);
    return q;
}

static pl_sample *collect(pl_query *q)
{
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0 && s);
    return s;
}

/* A sample through a data block with perflib's trailers, as another process reads it. */
static pl_sample *through_block(pl_env *env, const pl_sample *s)
{
    size_t n = pl_db_size(s, 1);
    uint8_t *buf = malloc(n);
    pl_sample *r = NULL;
    pl_db_error err;
    CHECK(buf && pl_db_write(s, 1, buf, n) == n);
    CHECK(pl_db_read(env, buf, n, NULL, NULL, &r, &err) == 0 && r);
    free(buf);
    return r;
}

/* Item 16: a slow set in the same query does not move another set's interval. */
static void test_own_read_instant(void)
{
    pl_env *env = test_env();
    static const char *const paths[] = { "\\Fast\\Ticks/sec", "\\Slow\\Items/sec" };
    pl_query *q = query_of(env, paths, 2);
    struct timespec pause = { 0, 100000000L };
    slow_ms = 0;
    pl_sample *s0 = collect(q);
    int64_t read0 = fast_read;
    nanosleep(&pause, NULL);
    slow_ms = 200;                   /* the slow set's cost changes between samples */
    pl_sample *s1 = collect(q);
    int64_t read1 = fast_read;
    double v = 0;
    if (s0 && s1 && s0->nblocks == 2 && s1->nblocks == 2) {
        const pl_block *f0 = &s0->blocks[0], *f1 = &s1->blocks[0], *w1 = &s1->blocks[1];
        /* Fast's value is the tick it was read at: 100 ms (1e6 ticks and
         * more) of ticks over the same 100 ms is 1e7 ticks per second.  The
         * result's time is the middle of Fast's own read, so it lies near the
         * tick it stored; the bound allows 5 ms for a preempted read on a
         * loaded machine (the middle of all reads was 1e6 ticks away). */
        int64_t e0 = f0->time - read0, e1 = f1->time - read1;
        CHECK(llabs(e0) < 50000 && llabs(e1) < 50000);
        CHECK(pl_sample_format(s1, f1, 0, 0, s0, NULL, &v) == PL_VALID);
        /* by hand: (read1 - read0) / ((f1->time - f0->time) / 1e7) */
        CHECK_NEAR(v, (double)(read1 - read0) / ((double)(f1->time - f0->time) / 1e7), 1e-6);
        /* so v is 1e7 but for the two read offsets: 1e7 (1 - (e1 - e0) / interval) */
        CHECK_NEAR(v, 1e7 * (1.0 - (double)(e1 - e0) / (double)(f1->time - f0->time)), 1e-3);
        /* the middle of all reads would have said about 1e6 / (1e6 + 1e6) s:
         * 5e6 per second, half the truth */
        CHECK(v > 9e6);
        /* Slow was read in the middle of its 200 ms: about 100 ms after Fast */
        CHECK(w1->time - f1->time > 950000 && w1->time - f1->time < 1300000);
        /* a round trip keeps each result's own time and formats the same */
        pl_sample *r1 = through_block(env, s1);
        if (r1) {
            double w = 0;
            CHECK(r1->foreign == 1);
            CHECK(r1->blocks[0].time == f1->time && r1->blocks[1].time == w1->time);
            CHECK(pl_sample_format(r1, &r1->blocks[0], 0, 0, s0, NULL, &w) == PL_VALID);
            CHECK(w == v);
        }
        free(r1);
    }
    free(s0);
    free(s1);
    pl_query_free(q);
    pl_env_unref(env);
}

/* A block written before results carried their own time: it reads with the header's. */
static void test_block_without_result_time(void)
{
    pl_env *env = test_env();
    static const char *const paths[] = { "\\Fast\\*" };
    pl_query *q = query_of(env, paths, 1);
    pl_sample *s = collect(q), *r = NULL;
    if (s && s->nblocks == 1) {
        size_t n = pl_db_size(s, 1);
        uint8_t *buf = malloc(n);
        pl_db_error err;
        CHECK(buf && pl_db_write(s, 1, buf, n) == n);
        /* one block: header 48, the counter block, then the 24-byte sample
         * trailer; its own trailer ends in time (8), size (4), "PLX1" (4) */
        size_t bend = 48 + pl_r32(buf + 48 + 8);
        CHECK(bend + 24 == n);
        memmove(buf + bend - 16, buf + bend - 8, n - (bend - 8));
        pl_w32(buf + 48 + 8, pl_r32(buf + 48 + 8) - 8);
        pl_w32(buf + bend - 16, pl_r32(buf + bend - 16) - 8);
        pl_w32(buf, (uint32_t)(n - 8));
        CHECK(pl_db_validate(buf, n - 8, &err) == 0);
        CHECK(pl_db_read(env, buf, n - 8, NULL, NULL, &r, &err) == 0 && r);
        if (r)
            CHECK(r->blocks[0].time == s->perf_time);
        free(buf);
    }
    free(r);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Every value of b1 against s0, both ways of formatting, which must agree. */
static size_t format_both(const pl_sample *s1, const pl_block *b1, const pl_sample *s0, uint8_t *st)
{
    double out[64], v;
    size_t valid = pl_sample_format_block(s1, b1, s0, NULL, out, st);
    for (uint32_t c = 0; c < b1->ncounters && c < 64; c++) {
        pl_status one = pl_sample_format(s1, b1, 0, c, s0, NULL, &v);
        CHECK(one == st[c]);
        if (one == PL_VALID)
            CHECK(v == out[c]);
    }
    return valid;
}

/* Item 1: results pair only when counterset and counter list agree, whatever
 * their ids say. */
static void test_pairing_by_definition(void)
{
    pl_env *env = test_env();
    static const char *const one[] = { "\\Fast\\Ticks/sec" };
    static const char *const all[] = { "\\Fast\\*" };
    static const char *const two[] = { "\\Slow\\*", "\\Fast\\*" };
    pl_query *qa = query_of(env, one, 1), *qb = query_of(env, all, 1), *qc = query_of(env, two, 2);
    pl_sample *a = collect(qa), *b0 = collect(qb), *c = collect(qc), *b1 = collect(qb);
    uint8_t st[64];
    if (a && b0 && b1 && c && a->nblocks == 1 && b1->nblocks == 1 && b0->nblocks == 1 && c->nblocks == 2) {
        const pl_block *bb = &b1->blocks[0];
        CHECK(bb->ncounters == N_FAST - 1);          /* "*" leaves out the base */
        /* another process's query and result ids are the same numbers: a
         * live sample that claims them still does not pair */
        a->query_id = b1->query_id;
        CHECK(pl_sample_pair(b1, bb, a) == NULL);
        CHECK(format_both(b1, bb, a, st) == 2);      /* Level and Age, one-sample types */
        CHECK(st[0] == PL_FIRST_SAMPLE && st[1] == PL_VALID);
        /* the same through a block (foreign): refused the same way */
        pl_sample *fa = through_block(env, a);
        if (fa) {
            fa->query_id = b1->query_id;
            CHECK(pl_sample_pair(b1, bb, fa) == NULL);
            CHECK(format_both(b1, bb, fa, st) == 2);
            CHECK(pl_sample_pair(fa, &fa->blocks[0], b1) == NULL);
            CHECK(format_both(fa, &fa->blocks[0], b1, st) == 0);
        }
        free(fa);
        /* the same definition from elsewhere pairs, here under another
         * result id: found by its definition and instance filter */
        pl_sample *fc = through_block(env, c);
        if (fc) {
            CHECK(pl_sample_pair(b1, bb, fc) == &fc->blocks[1]);
            CHECK(format_both(b1, bb, fc, st) >= 1);
            CHECK(st[0] == PL_VALID);
            /* clocks at other frequencies do not pair */
            fc->perf_freq = 1000;
            CHECK(pl_sample_pair(b1, bb, fc) == NULL);
        }
        free(fc);
        /* two live queries never pair */
        CHECK(pl_sample_pair(b1, bb, c) == NULL);
        CHECK(pl_sample_pair(b1, bb, b0) == &b0->blocks[0]);
    }
    free(a);
    free(b0);
    free(b1);
    free(c);
    pl_query_free(qa);
    pl_query_free(qb);
    pl_query_free(qc);
    pl_env_unref(env);
}

/* Item 4: extreme times, frequencies, bases and values, as a block from
 * outside may carry them: every formula path is defined (UBSan aborts the
 * sanitizer build on a signed overflow) and both paths agree. */
static void test_extreme_clocks(void)
{
    static const int64_t times[] = { INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX };
    static const int64_t freqs[] = { INT64_MIN, -1, 0, 1, 10000000, INT64_MAX };
    enum { NT = sizeof times / sizeof times[0], NF = sizeof freqs / sizeof freqs[0] };
    pl_env *env = test_env();
    static const char *const all[] = { "\\Fast\\*" };
    pl_query *q = query_of(env, all, 1);
    pl_sample *s0 = collect(q), *s1 = collect(q);
    uint8_t st[64];
    if (s0 && s1 && s0->nblocks == 1 && s1->nblocks == 1) {
        pl_block *b0 = &s0->blocks[0], *b1 = &s1->blocks[0];
        size_t n = b1->ncounters;
        for (int i = 0; i < NT; i++)
            for (int j = 0; j < NT; j++)
                for (int f = 0; f < NF; f++) {
                    s0->perf_freq = s1->perf_freq = freqs[f];
                    b0->obj_freq = b1->obj_freq = freqs[f];
                    s0->perf_time = b0->time = times[i];
                    s1->perf_time = b1->time = times[j];
                    for (size_t k = 0; k < n; k++) {
                        /* values, bases and object times at the extremes too */
                        s0->vals[b0->vals_off + k].v = (uint64_t)times[j];
                        s1->vals[b1->vals_off + k].v = (uint64_t)times[i];
                        s0->vals[b0->vals_off + k].b = (uint64_t)times[i];
                        s1->vals[b1->vals_off + k].b = (uint64_t)times[j];
                    }
                    format_both(s1, b1, s0, st);
                    format_both(s0, b0, s1, st);
                }
        /* INT64_MIN to INT64_MAX is 2^64 - 1 ticks: a valid, exact interval */
        double v = 0;
        pl_raw r1 = { 0, (uint64_t)INT64_MAX, 0, 8 }, r0 = { 0, (uint64_t)INT64_MIN, 0, 8 };
        CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &r1, &r0, 1, 0, 0, &v) == PL_VALID && v == 0);
        r1.first = (uint64_t)INT64_MIN;  /* PERF_ELAPSED_TIME: now - start over the whole range */
        CHECK(pl_format_raw(PERF_ELAPSED_TIME, &r1, NULL, 1, 0, 0, &v) == PL_VALID);
        CHECK_NEAR(v, 18446744073709551615.0, 1e4);
    }
    free(s0);
    free(s1);
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    RUN(test_own_read_instant);
    RUN(test_block_without_result_time);
    RUN(test_pairing_by_definition);
    RUN(test_extreme_clocks);
    return CT_END();
}
