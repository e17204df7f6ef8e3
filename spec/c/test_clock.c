/* Clock: the pure conversion of a struct timex (hand-built values, the
 * arithmetic beside each check), the set on a tree (not this kernel: the
 * instance without values), and live on "/". */
#include "perflib.h"
#include "clock.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double dbl(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

#define NEAR(a, b) CHECK((a) - (b) < 1e-12 && (b) - (a) < 1e-12)

static void test_convert_micro(void)
{
    struct timex tx;
    uint64_t v[PL_CLK_N];
    uint8_t has[PL_CLK_N];
    memset(&tx, 0, sizeof tx);
    tx.status = STA_PLL;                 /* 0x0001, no STA_NANO: offset in us */
    tx.offset = -1500;                   /* -1500 us = -0.0015 s */
    tx.freq = -1310720;                  /* -1310720 / 65536 = -20 ppm */
    tx.maxerror = 16000;
    tx.esterror = 250;
    tx.constant = 7;
    tx.tick = 10000;
    tx.tai = 37;
    tx.precision = 1;
    tx.jitter = 2000;                    /* 2000 us = 0.002 s */
    tx.ppsfreq = 98304;                  /* 98304 / 65536 = 1.5 ppm */
    tx.stabil = 32768;                   /* 0.5 ppm */
    tx.shift = 4;
    tx.jitcnt = 3;
    tx.calcnt = 9;
    tx.errcnt = 1;
    tx.stbcnt = 2;
    pl_timex_convert(&tx, TIME_OK, v, has);
    for (unsigned i = 0; i < PL_CLK_NOW; i++)
        CHECK(has[i]);
    CHECK(!has[PL_CLK_NOW]);             /* the time is not in struct timex */
    NEAR(dbl(v[PL_CLK_OFFSET]), -0.0015);
    NEAR(dbl(v[PL_CLK_FREQ]), -20.0);
    CHECK_EQ_U64(v[PL_CLK_MAXERR], 16000);
    CHECK_EQ_U64(v[PL_CLK_ESTERR], 250);
    CHECK_EQ_U64(v[PL_CLK_STATUS], 1);
    CHECK_EQ_U64(v[PL_CLK_SYNC], 1);     /* TIME_OK, STA_UNSYNC clear */
    CHECK_EQ_U64(v[PL_CLK_CONSTANT], 7);
    CHECK_EQ_U64(v[PL_CLK_TICK], 10000);
    NEAR(dbl(v[PL_CLK_PPSFREQ]), 1.5);
    NEAR(dbl(v[PL_CLK_JITTER]), 0.002);
    CHECK_EQ_U64(v[PL_CLK_SHIFT], 4);
    NEAR(dbl(v[PL_CLK_STABIL]), 0.5);
    CHECK_EQ_U64(v[PL_CLK_JITCNT], 3);
    CHECK_EQ_U64(v[PL_CLK_CALCNT], 9);
    CHECK_EQ_U64(v[PL_CLK_ERRCNT], 1);
    CHECK_EQ_U64(v[PL_CLK_STBCNT], 2);
    CHECK_EQ_U64(v[PL_CLK_TAI], 37);
    CHECK_EQ_U64(v[PL_CLK_PRECISION], 1);
}

static void test_convert_nano_unsync(void)
{
    struct timex tx;
    uint64_t v[PL_CLK_N];
    uint8_t has[PL_CLK_N];
    memset(&tx, 0, sizeof tx);
    tx.status = STA_NANO | STA_UNSYNC;   /* 0x2000 | 0x0040 = 8256 */
    tx.offset = 2500000;                 /* 2500000 ns = 0.0025 s */
    tx.jitter = 750;                     /* 750 ns = 7.5e-7 s */
    tx.freq = 655360;                    /* 655360 / 65536 = 10 ppm */
    tx.maxerror = -1;                    /* a negative bound is no value */
    tx.tai = -2;
    pl_timex_convert(&tx, TIME_OK, v, &has[0]);
    NEAR(dbl(v[PL_CLK_OFFSET]), 0.0025);
    NEAR(dbl(v[PL_CLK_JITTER]), 7.5e-7);
    NEAR(dbl(v[PL_CLK_FREQ]), 10.0);
    CHECK_EQ_U64(v[PL_CLK_STATUS], 8256);
    CHECK_EQ_U64(v[PL_CLK_SYNC], 0);     /* STA_UNSYNC set */
    CHECK(!has[PL_CLK_MAXERR]);
    CHECK(!has[PL_CLK_TAI]);
    /* TIME_ERROR alone, STA_UNSYNC clear: not synchronised either */
    tx.status = STA_PLL;
    pl_timex_convert(&tx, TIME_ERROR, v, has);
    CHECK_EQ_U64(v[PL_CLK_SYNC], 0);
    pl_timex_convert(&tx, TIME_INS, v, has);   /* a leap second pending: still in sync */
    CHECK_EQ_U64(v[PL_CLK_SYNC], 1);
}

/* POSIX TZ strings: "XST-2" is 2 h east of UTC (the sign is inverted), so
 * 2 * 3600 = 7200 s; "EST5EDT,M3.2.0,M11.1.0" is 5 h west in winter,
 * -5 * 3600 = -18000 s, and 4 h west in daylight saving time, -4 * 3600 =
 * -14400 s.  1782907200 is 2026-07-01 12:00 UTC (EDT), 1768478400 is
 * 2026-01-15 12:00 UTC (EST). */
static void test_zone(void)
{
    char name[16];
    long off = 1;
    CHECK(setenv("TZ", "XST-2", 1) == 0);
    tzset();
    CHECK(pl_clock_zone(1768478400, &off, name, sizeof name) == 0);
    CHECK(off == 7200);
    CHECK_STR(name, "XST");
    CHECK(setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1) == 0);
    tzset();
    CHECK(pl_clock_zone(1782907200, &off, name, sizeof name) == 0);
    CHECK(off == -14400);
    CHECK_STR(name, "EDT");
    CHECK(pl_clock_zone(1768478400, &off, name, sizeof name) == 0);
    CHECK(off == -18000);
    CHECK_STR(name, "EST");
}

static int add_fact(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 64 - l, "%s=%s;", key, value);
    return 0;
}

/* A tree is not this kernel: the instance, no values, no failure. */
static void test_tree_no_data(void)
{
    const char *root = tmp("tree");
    pl_snapshot s;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(pc_collect_tree(root, "Clock", 0, 0, NULL, &s) == 0);
    NAMES(&s, "");
    UNSET(&s, "", "Offset Seconds");
    UNSET(&s, "", "Synchronized");
    UNSET(&s, "", "Current Time Seconds");
    UNSET(&s, "", "Time Zone Offset Seconds");
    pl_snap_free(&s);
}

/* Live: adjtimex works without privileges for a read; the time is now. */
static void test_live(void)
{
    static const char *const sync[] = { "Synchronized", NULL };
    pl_snapshot s;
    uint64_t v;
    pctx p;
    uint8_t *w;
    double t0 = (double)time(NULL), now;
    CHECK(pc_collect_tree("/", "Clock", 0, 0, NULL, &s) == 0);
    CHECK(get(&s, "", "Synchronized", &v) == 1 && v <= 1);
    CHECK(get(&s, "", "Tick Seconds", &v) == 1 && v > 0 && v <= 1000000);
    CHECK(get(&s, "", "Current Time Seconds", &v) == 1);
    now = dbl(v);
    CHECK(now >= t0 - 1 && now <= t0 + 60);
    /* TZ as test_zone left it: EST or EDT now, -18000 or -14400 s */
    CHECK(get(&s, "", "Time Zone Offset Seconds", &v) == 1);
    CHECK(dbl(v) == -18000.0 || dbl(v) == -14400.0);
    pl_snap_free(&s);
    /* only what is wanted is set */
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, "/", "Clock", 0, 0) == 0);
    w = want_only(p.cs, sync);
    CHECK(pc_collect(&p, w, &s) == 0);
    CHECK(have_of(&s, "", "Synchronized"));
    UNSET(&s, "", "Offset Seconds");
    free(w);
    pl_snap_free(&s);
    /* the zone's abbreviation as a text fact; none for an instance */
    {
        char facts[64] = "";
        CHECK(p.cs->ops->info(p.st, NULL, add_fact, facts) == 0);
        CHECK(strcmp(facts, "time_zone=EST;") == 0 || strcmp(facts, "time_zone=EDT;") == 0);
        CHECK(p.cs->ops->info(p.st, "x", add_fact, facts) == ENOENT);
    }
    pc_close(&p);
}

int main(void)
{
    ct_tmp_init("test_clock");
    RUN(test_convert_micro);
    RUN(test_convert_nano_unsync);
    RUN(test_zone);
    RUN(test_tree_no_data);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
