/* Issue 16: pl_sample_format_block's flat loop for the percent-of-a-clock
 * kinds (a mix of PERF_PRECISION_100NS_TIMER and PERF_100NSEC_TIMER_INV, as
 * in \Processor Information(*)\% ???* Time) gives every value and status
 * that pl_sample_format gives, bit for bit, and the hand-computed values.
 *
 * The machine is spec/fixtures/basic copied into a temporary directory;
 * its proc/stat is replaced by basic2's between the collects (deltas in
 * test_processor.c's test_basic_rates), then by a stat whose cpu0 user time
 * went backwards. */
#include "ctest.h"
#include "ct_tmp.h"
#include "perflib.h"

#include <stdlib.h>
#include <time.h>

#define PATH "\\Processor Information(*)\\% ???* Time"

static int copy_file(const char *from, const char *to)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    return system(cmd);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static pl_sample *collect(pl_query *q)
{
    pl_sample *s = NULL;
    struct timespec ms = { 0, 2000000L };
    nanosleep(&ms, NULL);            /* a result's own interval is never zero */
    CHECK(pl_query_collect(q, &s) == 0 && s);
    return s;
}

/* Position of an instance or a counter of block b by name; -1 if none. */
static int inst_at(const pl_sample *s, const pl_block *b, const char *name)
{
    for (uint32_t i = 0; i < b->ninst; i++)
        if (strcmp(pl_sample_inst_name(s, b, i), name) == 0)
            return (int)i;
    return -1;
}

static int ctr_at(const pl_sample *s, const pl_block *b, const char *name)
{
    for (uint32_t c = 0; c < b->ncounters; c++)
        if (strcmp(pl_sample_counter(s, b, c)->name, name) == 0)
            return (int)c;
    return -1;
}

/* format_block against pl_sample_format, value by value: the same status and
 * the same bits.  Returns the valid count; fills out/st. */
static size_t block_equals_single(const pl_sample *s1, const pl_sample *s0, double *out, uint8_t *st)
{
    const pl_block *b = &s1->blocks[0];
    size_t valid = pl_sample_format_block(s1, b, s0, NULL, out, st), k = 0, count = 0;
    for (uint32_t i = 0; i < b->ninst; i++)
        for (uint32_t c = 0; c < b->ncounters; c++, k++) {
            double v = -1;
            pl_status one = pl_sample_format(s1, b, i, c, s0, NULL, &v);
            CHECK_EQ_U64(st[k], one);
            CHECK(memcmp(&v, &out[k], sizeof v) == 0);
            count += one == PL_VALID;
        }
    CHECK_EQ_U64(valid, count);
    return valid;
}

static double value(const pl_sample *s, const double *out, const char *inst, const char *ctr)
{
    const pl_block *b = &s->blocks[0];
    int i = inst_at(s, b, inst), c = ctr_at(s, b, ctr);
    CHECK(i >= 0 && c >= 0);
    return i >= 0 && c >= 0 ? out[(size_t)i * b->ncounters + (size_t)c] : -1;
}

static uint8_t status(const pl_sample *s, const uint8_t *st, const char *inst, const char *ctr)
{
    const pl_block *b = &s->blocks[0];
    int i = inst_at(s, b, inst), c = ctr_at(s, b, ctr);
    CHECK(i >= 0 && c >= 0);
    return i >= 0 && c >= 0 ? st[(size_t)i * b->ncounters + (size_t)c] : 0xFF;
}

static void test_mixed_timers(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cp -R spec/fixtures/basic/. '%s'", ct_dir);
    CHECK(system(cmd) == 0);
    pl_env *env = pl_env_new(ct_dir);
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_add_status ast = PL_ADD_NO_SET;
    CHECK(q && pl_query_add_path(q, PATH, &ast, NULL) == 0 && ast == PL_ADD_OK);
    if (!q || ast != PL_ADD_OK)
        goto out;
    pl_sample *s0 = collect(q);
    CHECK(copy_file("spec/fixtures/basic2/proc/stat", tmp("proc/stat")) == 0);
    pl_sample *s1 = collect(q);
    /* cpu0's user time goes back from 4856 to 4000 ticks while its idle
     * time moves on by 1000; cpu1 is idle for 100 ticks */
    CHECK(write_file(tmp("proc/stat"), "cpu  14473 11 10708 115536 603 0 202 46 0 0\n"
                                       "cpu0 4000 0 5396 60711 121 0 78 27 0 0\n"
                                       "cpu1 9617 11 5312 54825 482 0 123 19 0 0\n") == 0);
    pl_sample *s2 = collect(q);
    pl_sample *s3 = collect(q);      /* the same file again: no tick passed */
    if (s0 && s1 && s2 && s3) {
        const pl_block *b = &s1->blocks[0];
        size_t n = (size_t)b->ninst * b->ncounters;
        double *out = malloc(n * sizeof *out);
        uint8_t *st = malloc(n);
        /* 12 with % Priority Time (another PERF_100NSEC_TIMER_INV) */
        CHECK(b->ncounters == 12 && b->ninst == 4);     /* 0,0 0,1 0,_Total _Total */
        if (out && st && b->ncounters == 12) {
            /* every value valid between basic and basic2 */
            CHECK_EQ_U64(block_equals_single(s1, s0, out, st), n);
            CHECK_NEAR(value(s1, out, "0,0", "% User Time"), 30.0, 1e-9);       /* 300/1000 */
            CHECK_NEAR(value(s1, out, "0,0", "% Idle Time"), 52.0, 1e-9);       /* 520/1000 */
            CHECK_NEAR(value(s1, out, "0,1", "% User Time"), 41.0, 1e-9);       /* 410/1000 */
            CHECK_NEAR(value(s1, out, "_Total", "% User Time"), 35.5, 1e-9);    /* 710/2000 */
            CHECK_NEAR(value(s1, out, "0,0", "% Interrupt Time"), 0.0, 0);
            /* % Processor Time counts the result's own clock: a percentage */
            double pt = value(s1, out, "_Total", "% Processor Time");
            CHECK(pt >= 0.0 && pt <= 100.0);
            /* a CPU whose ticks went backwards gives what the one-value
             * path gives, whatever that is; the other is still valid */
            block_equals_single(s2, s1, out, st);
            CHECK_EQ_U64(status(s2, st, "0,1", "% User Time"), PL_VALID);
            CHECK_NEAR(value(s2, out, "0,1", "% User Time"), 0.0, 0);            /* 0/100 */
            CHECK_NEAR(value(s2, out, "0,1", "% Idle Time"), 100.0, 1e-9);      /* 100/100 */
            /* no tick between s2 and s3: the base clock did not move, while
             * the result's own clock (% Processor Time's) did */
            block_equals_single(s3, s2, out, st);
            CHECK_EQ_U64(status(s3, st, "0,1", "% User Time"), PL_ZERO_INTERVAL);
            CHECK_EQ_U64(status(s3, st, "_Total", "% Processor Time"), PL_VALID);
            /* against no older sample: every value says so */
            CHECK_EQ_U64(pl_sample_format_block(s1, b, NULL, NULL, out, st), 0);
            CHECK_EQ_U64(st[0], PL_FIRST_SAMPLE);
        }
        free(out);
        free(st);
    }
    free(s0);
    free(s1);
    free(s2);
    free(s3);
out:
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    ct_tmp_init("test_speed_block");
    RUN(test_mixed_timers);
    ct_tmp_remove();
    return CT_END();
}
