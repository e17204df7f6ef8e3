/* Rule windows, levels and flap histories of the core (pl_window.h), with
 * hand-computed values: the incremental reducers against a full pass over
 * the same samples, ring growth, raw deltas across a reset and across the
 * 64-bit wrap, the cook statuses, hysteresis latches, and the Nagios-style
 * weighted flap share.  Links against libperflib-core.a only. */
#include "ctest.h"
#include "pl_window.h"

#include <stdint.h>
#include <stdlib.h>
#include <errno.h>

static pl_wval D(double d) { pl_wval v = { d, 0, 0 }; return v; }
static pl_wval I(int64_t i) { pl_wval v = { (double)i, i, 1 }; return v; }

/* A full pass (the window made without reducer state) as the reference. */
static double full(const pl_window *src, pl_wfn fn, double window, double p, double now)
{
    pl_window w;
    pl_window_init(&w, src->span, 0, PL_WFN_NONE);
    size_t n = pl_window_count(src);
    for (size_t k = 0; k < n; k++) {
        double t;
        pl_wval v;
        int r;
        pl_window_at(src, k, &t, &v, &r);
        pl_window_append(&w, t, v, 0);
    }
    double out = -1;
    CHECK(pl_window_reduce(&w, fn, window, p, now, &out) == 1);
    pl_window_free(&w);
    return out;
}

static void test_avg_min_max_pct(void)
{
    /* 1 sample a second, span 10 s: at t = 20 the window holds t = 11..20 */
    pl_window a, mn, mx, pc;
    pl_window_init(&a, 10, 0, PL_WFN_AVG);
    pl_window_init(&mn, 10, 0, PL_WFN_MIN);
    pl_window_init(&mx, 10, 0, PL_WFN_MAX);
    pl_window_init(&pc, 10, 0, PL_WFN_PCT);
    for (int t = 0; t <= 20; t++) {
        double v = (double)((t * 7) % 11);            /* 0 7 3 10 6 2 9 5 1 8 4 0 7 ... */
        CHECK(pl_window_push(&a, t, D(v), 0, NULL) == 0);
        CHECK(pl_window_push(&mn, t, D(v), 0, NULL) == 0);
        CHECK(pl_window_push(&mx, t, D(v), 0, NULL) == 0);
        CHECK(pl_window_push(&pc, t, D(v), 0, NULL) == 0);
        double out;
        /* the kept state answers as the full pass does, at every step */
        CHECK(pl_window_reduce(&a, PL_WFN_AVG, 10, 0, t, &out) == 1);
        CHECK_NEAR(out, full(&a, PL_WFN_AVG, 10, 0, t), 1e-12);
        CHECK(pl_window_reduce(&mn, PL_WFN_MIN, 10, 0, t, &out) == 1);
        CHECK_NEAR(out, full(&mn, PL_WFN_MIN, 10, 0, t), 0);
        CHECK(pl_window_reduce(&mx, PL_WFN_MAX, 10, 0, t, &out) == 1);
        CHECK_NEAR(out, full(&mx, PL_WFN_MAX, 10, 0, t), 0);
        CHECK(pl_window_reduce(&pc, PL_WFN_PCT, 10, 90, t, &out) == 1);
        CHECK_NEAR(out, full(&pc, PL_WFN_PCT, 10, 90, t), 1e-12);
    }
    /* t = 11..20: values 0 7 3 10 6 2 9 5 1 8 (sum 51), sorted 0 1 2 3 5 6 7 8 9 10 */
    CHECK_EQ_U64(pl_window_count(&a), 10);
    double out;
    pl_window_reduce(&a, PL_WFN_AVG, 10, 0, 20, &out);
    CHECK_NEAR(out, 5.1, 1e-12);
    pl_window_reduce(&mn, PL_WFN_MIN, 10, 0, 20, &out);
    CHECK_NEAR(out, 0.0, 0);
    pl_window_reduce(&mx, PL_WFN_MAX, 10, 0, 20, &out);
    CHECK_NEAR(out, 10.0, 0);
    pl_window_reduce(&pc, PL_WFN_PCT, 10, 90, 20, &out);   /* position 0.9 * 9 + 1 = 9.1: 9 + 0.1 */
    CHECK_NEAR(out, 9.1, 1e-12);
    pl_window_reduce(&pc, PL_WFN_PCT, 10, 0, 20, &out);
    CHECK_NEAR(out, 0.0, 0);
    pl_window_reduce(&pc, PL_WFN_PCT, 10, 100, 20, &out);
    CHECK_NEAR(out, 10.0, 0);
    pl_window_reduce(&pc, PL_WFN_PCT, 10, -5, 20, &out);   /* below 0: the lowest, never before the array */
    CHECK_NEAR(out, 0.0, 0);
    /* a shorter window than the span: the samples after 17 (18, 19, 20): 5 1 8 */
    pl_window_reduce(&a, PL_WFN_AVG, 3, 0, 20, &out);
    CHECK_NEAR(out, 14.0 / 3.0, 1e-12);
    /* nothing after the window: unknown */
    CHECK(pl_window_reduce(&a, PL_WFN_AVG, 10, 0, 100, &out) == 0);
    pl_window_free(&a);
    pl_window_free(&mn);
    pl_window_free(&mx);
    pl_window_free(&pc);
}

static void test_nonfinite_and_replace(void)
{
    pl_window w;
    pl_window_init(&w, 100, 0, PL_WFN_AVG);
    double out;
    pl_window_push(&w, 1, D(2), 0, NULL);
    pl_window_push(&w, 2, D(4), 0, NULL);
    CHECK(pl_window_reduce(&w, PL_WFN_AVG, 100, 0, 2, &out) == 1);
    CHECK_NEAR(out, 3.0, 0);
    pl_window_push(&w, 2, D(10), 0, NULL);             /* the same time: replaces the last value */
    CHECK_EQ_U64(pl_window_count(&w), 2);
    pl_window_reduce(&w, PL_WFN_AVG, 100, 0, 2, &out);
    CHECK_NEAR(out, 6.0, 0);
    pl_window_push(&w, 3, D(INFINITY), 0, NULL);        /* a non-finite value: the full pass answers */
    pl_window_reduce(&w, PL_WFN_AVG, 100, 0, 3, &out);
    CHECK(isinf(out));
    pl_window_free(&w);
}

static void test_growth_keeps_order(void)
{
    pl_window w;
    pl_window_init(&w, 1000, 0, PL_WFN_MAX);
    for (int t = 0; t < 300; t++)
        CHECK(pl_window_push(&w, t, D(t % 50 == 0 ? 1000.0 - t : (double)(t % 50)), 0, NULL) == 0);
    CHECK_EQ_U64(pl_window_count(&w), 300);
    CHECK(w.mask + 1 >= 300);
    double out;
    pl_window_reduce(&w, PL_WFN_MAX, 1000, 0, 299, &out);
    CHECK_NEAR(out, 1000.0, 0);
    for (size_t k = 0; k < 300; k++) {
        double t;
        pl_wval v;
        int r;
        pl_window_at(&w, k, &t, &v, &r);
        CHECK_NEAR(t, (double)k, 0);
    }
    pl_window_free(&w);
    pl_window_free(&w);                                 /* idempotent */
}

static void test_raw_rate_reset_wrap(void)
{
    pl_window w;
    pl_window_init(&w, 60, 1, PL_WFN_RATE);
    int wr = -1;
    double out;
    pl_window_push(&w, 0, I(1000), 0, &wr);
    CHECK(wr == 0);
    CHECK(pl_window_reduce(&w, PL_WFN_RATE, 60, 0, 0, &out) == 0);   /* one sample: no interval */
    pl_window_push(&w, 10, I(1500), 0, &wr);
    pl_window_push(&w, 20, I(100), 0, &wr);            /* backwards: a reset */
    CHECK(wr == 1);
    pl_window_push(&w, 30, I(400), 0, &wr);
    CHECK(wr == 0);
    /* intervals 0-10 (+500) and 20-30 (+300); the reset interval is never counted */
    pl_window_reduce(&w, PL_WFN_INCREASE, 60, 0, 30, &out);
    CHECK_NEAR(out, 800.0, 0);
    pl_window_reduce(&w, PL_WFN_RATE, 60, 0, 30, &out);
    CHECK_NEAR(out, 40.0, 0);                           /* 800 / 20 s */
    pl_window_free(&w);

    /* an unsigned counter past 2^63 reads negative as int64: still an increase */
    pl_window_init(&w, 60, 1, PL_WFN_RATE);
    pl_window_push(&w, 0, I(INT64_MAX - 9), 0, &wr);
    pl_window_push(&w, 10, I(INT64_MIN + 10), 0, &wr);
    CHECK(wr == 0);
    pl_window_reduce(&w, PL_WFN_INCREASE, 60, 0, 10, &out);
    CHECK_NEAR(out, 20.0, 0);
    pl_window_free(&w);
}

static void test_cook(void)
{
    pl_window w;
    pl_window_init(&w, 60, 0, PL_WFN_AVG);
    double v = -1;
    pl_why why;
    pl_wval x = D(10);
    CHECK(pl_window_cook(&w, 0, &x, PL_WST_VALID, PL_WFN_AVG, 60, 0, &v, &why) == 0);
    CHECK(why == PL_WHY_NONE);
    CHECK_NEAR(v, 10.0, 0);
    pl_window_cook(&w, 10, NULL, PL_WST_OTHER, PL_WFN_AVG, 60, 0, &v, &why);
    CHECK(why == PL_WHY_NODATA);
    pl_window_cook(&w, 20, &x, PL_WST_RESET, PL_WFN_AVG, 60, 0, &v, &why);
    CHECK(why == PL_WHY_RESET);
    pl_window_cook(&w, 30, &x, PL_WST_FIRST, PL_WFN_AVG, 60, 0, &v, &why);
    CHECK(why == PL_WHY_FIRST);
    CHECK_EQ_U64(pl_window_count(&w), 1);               /* none of those entered the window */
    pl_window_free(&w);

    pl_window_init(&w, 60, 1, PL_WFN_RATE);
    x = I(5);
    pl_window_cook(&w, 0, &x, PL_WST_VALID, PL_WFN_RATE, 60, 0, &v, &why);
    CHECK(why == PL_WHY_FIRST);                         /* one raw sample: no rate yet */
    x = I(25);
    pl_window_cook(&w, 10, &x, PL_WST_VALID, PL_WFN_RATE, 60, 0, &v, &why);
    CHECK(why == PL_WHY_NONE);
    CHECK_NEAR(v, 2.0, 0);
    x = I(30);
    pl_window_cook(&w, 20, &x, PL_WST_RESET, PL_WFN_RATE, 60, 0, &v, &why);
    CHECK(why == PL_WHY_RESET);                         /* flagged by the sample, though it went up */
    pl_window_free(&w);
}

static void test_levels(void)
{
    /* warn above 70 clearing below 60, crit above 90 (no hysteresis) */
    pl_wlevel lv[2] = { { 1, 1, 70, 60, 3 }, { 1, 0, 90, 0, 5 } };
    uint32_t latch = 0;
    int sev;
    CHECK(pl_levels_eval(lv, 2, 65, &latch, &sev) == 0);
    CHECK(sev == -1);
    CHECK(pl_levels_eval(lv, 2, 71, &latch, &sev) == 1);
    CHECK(sev == 0);
    CHECK(pl_levels_eval(lv, 2, 65, &latch, &sev) == 1);    /* latched until below 60 */
    CHECK(pl_levels_eval(lv, 2, 95, &latch, &sev) == 1);
    CHECK(sev == 1);
    CHECK_EQ_U64(latch, 3);
    CHECK(pl_levels_eval(lv, 2, 60, &latch, &sev) == 1);    /* 60 >= 60: still on */
    CHECK(sev == 0);
    CHECK(pl_levels_eval(lv, 2, 59.9, &latch, &sev) == 0);
    CHECK_EQ_U64(latch, 0);
    /* below 10 clearing above 15 */
    pl_wlevel low = { 0, 1, 10, 15, 3 };
    latch = 0;
    CHECK(pl_levels_eval(&low, 1, 9, &latch, &sev) == 1);
    CHECK(pl_levels_eval(&low, 1, 14, &latch, &sev) == 1);
    CHECK(pl_levels_eval(&low, 1, 15.5, &latch, &sev) == 0);
    CHECK(pl_levels_eval(&low, 1, NAN, &latch, &sev) == 0);  /* NaN is never above or below */
}

static void test_flap(void)
{
    pl_flap f;
    CHECK(pl_flap_init(&f, 1) == EINVAL);
    CHECK(pl_flap_init(&f, 5) == 0);
    double pct;
    CHECK(pl_flap_peek(&f, 1, &pct) == 0);              /* one bit: no share */
    pl_flap_push(&f, 1);
    /* 1 0: one change at position 3 of 4 (window 5: denom 4, spread 3): (0.8 + 0.4 * 3/3) / 4 */
    CHECK(pl_flap_peek(&f, 0, &pct) == 1);
    CHECK_NEAR(pct, 1.2 / 4, 1e-15);
    pl_flap_push(&f, 0);
    pl_flap_push(&f, 1);                                /* 1 0 1: positions 2 and 3 */
    CHECK_NEAR(f.pct, ((0.8 + 0.4 * 2 / 3) + 1.2) / 4, 1e-15);
    CHECK(pl_flap_change(0, 1, f.pct, 0.5, 0.3) == 1);  /* 0.5667 >= 0.5: starts */
    pl_flap_push(&f, 1);
    pl_flap_push(&f, 1);                                /* 1 0 1 1 1: full */
    pl_flap_push(&f, 1);                                /* 0 1 1 1 1: the oldest dropped */
    CHECK_EQ_U64(f.n, 5);
    CHECK_EQ_U64(f.cnt, 1);
    CHECK(pl_flap_bit(&f, 0) == 0);
    CHECK_NEAR(f.pct, 0.8 / 4, 1e-15);                  /* the change at the oldest position */
    CHECK(pl_flap_change(1, 1, f.pct, 0.5, 0.3) == -1); /* 0.2 < 0.3: ends */
    pl_flap_push(&f, 1);
    CHECK_EQ_U64(f.cnt, 0);
    CHECK_NEAR(f.pct, 0.0, 0);
    pl_flap_free(&f);
    pl_flap_free(&f);
}

int main(void)
{
    RUN(test_avg_min_max_pct);
    RUN(test_nonfinite_and_replace);
    RUN(test_growth_keeps_order);
    RUN(test_raw_rate_reset_wrap);
    RUN(test_cook);
    RUN(test_levels);
    RUN(test_flap);
    return CT_END();
}
