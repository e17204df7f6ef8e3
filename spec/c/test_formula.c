/* The golden table at the C level: hand-computed vectors for every PerfLib
 * counter type through pl_format_raw (newer first, older second), each with
 * its arithmetic; the type table (names, two-sample rule) for all 41 types of
 * the reference; the status names (their PDH codes: test_capi_codes.c).  Links against
 * libperflib-core.a only. */
#include "ctest.h"
#include "perflib.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define F7 10000000              /* 10^7 ticks per second (100 ns) */
#define F9 1000000000            /* 10^9 ticks per second (ns) */
#define PERF_DOUBLE_RAW 0x00012000u
#define DEC_1000 (PERF_SIZE_DWORD | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000)   /* 0x00020000 */

/* Raw values: 8-byte data, 4-byte data, with an instance count. */
#define R8(v, s) (&(pl_raw){ (v), (s), 0, 8 })
#define R4(v, s) (&(pl_raw){ (v), (s), 0, 4 })
#define RM(v, s, m) (&(pl_raw){ (v), (s), (m), 8 })

static double tol(double want)
{
    return 1e-12 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

/* OK(type, newer, older, freq, flags, scale, want): valid, value want. */
static void ok_at(int line, const char *what, uint32_t type, const pl_raw *n1, const pl_raw *n0,
                  int64_t freq, unsigned flags, int scale, double want)
{
    double v = -12345.0;
    pl_status st = pl_format_raw(type, n1, n0, freq, flags, scale, &v);
    if (st != PL_VALID || !(fabs(v - want) <= tol(want))) {
        ct_failed_checks++;
        fprintf(stderr, "  %s:%d: %s: %s %.17g, expected valid %.17g\n", __FILE__, line, what,
                pl_status_name(st), v, want);
    }
}

/* NO(type, newer, older, freq, flags, scale, status): that status, value 0. */
static void no_at(int line, const char *what, uint32_t type, const pl_raw *n1, const pl_raw *n0,
                  int64_t freq, unsigned flags, int scale, pl_status want)
{
    double v = -12345.0;
    pl_status st = pl_format_raw(type, n1, n0, freq, flags, scale, &v);
    if (st != want || v != 0.0) {
        ct_failed_checks++;
        fprintf(stderr, "  %s:%d: %s: %s %.17g, expected %s 0\n", __FILE__, line, what,
                pl_status_name(st), v, pl_status_name(want));
    }
}

#define OK(type, ...) ok_at(__LINE__, #type, type, __VA_ARGS__)
#define NO(type, ...) no_at(__LINE__, #type, type, __VA_ARGS__)

/* The bits of a double as PERF_DOUBLE_RAW data. */
static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* ---- rates: ΔN / (ΔT / F) ---------------------------------------------- */
static void test_rates(void)
{
    /* (1500-1000) / ((25e6-5e6)/1e7 s) = 500 / 2 s = 250/s */
    OK(PERF_COUNTER_COUNTER, R8(1500, 25000000), R8(1000, 5000000), F7, 0, 0, 250.0);
    /* F = 1e9: (4000-1000) / ((3e9-1e9)/1e9 s) = 3000 / 2 s = 1500/s */
    OK(PERF_COUNTER_COUNTER, R8(4000, 3000000000u), R8(1000, 1000000000u), F9, 0, 0, 1500.0);
    /* 32-bit wrap: 4294967290 -> 5 is (2^32 - 4294967290) + 5 = 11, over 1 s: 11/s */
    OK(PERF_COUNTER_COUNTER, R4(5, F7), R4(4294967290u, 0), F7, 0, 0, 11.0);
    /* the same fall in 64-bit data is a reset */
    NO(PERF_COUNTER_COUNTER, R8(5, F7), R8(4294967290u, 0), F7, 0, 0, PL_NEGATIVE_DELTA);

    /* (2497631-2472631) / (25e6/1e7 s) = 25000 / 2.5 s = 10000/s */
    OK(PERF_COUNTER_BULK_COUNT, R8(2497631, 25000000), R8(2472631, 0), F7, 0, 0, 10000.0);
    /* beyond 32 bits: (2^40+3e6 - 2^40) / (3e7/1e7 s) = 1e6/s */
    OK(PERF_COUNTER_BULK_COUNT, R8((1ULL << 40) + 3000000, 30000000), R8(1ULL << 40, 0), F7, 0, 0, 1e6);
    NO(PERF_COUNTER_BULK_COUNT, R8(4, 10), R8(5, 0), F7, 0, 0, PL_NEGATIVE_DELTA);      /* 4 < 5 */
    NO(PERF_COUNTER_BULK_COUNT, R8(6, 0), R8(5, 0), F7, 0, 0, PL_ZERO_INTERVAL);        /* T1 = T0 */
    NO(PERF_COUNTER_BULK_COUNT, R8(6, 0), R8(5, 9), F7, 0, 0, PL_NEGATIVE_INTERVAL);    /* T1 < T0 */
    NO(PERF_COUNTER_BULK_COUNT, R8(6, 10), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
    /* a frequency is needed: F = 0 is malformed */
    NO(PERF_COUNTER_BULK_COUNT, R8(2497631, 25000000), R8(2472631, 0), 0, 0, 0, PL_INVALID_DATA);

    /* (130-100) / (3e7/1e7 s) = 30 / 3 s = 10 */
    OK(PERF_SAMPLE_COUNTER, R8(130, 30000000), R8(100, 0), F7, 0, 0, 10.0);
    /* 32-bit wrap: 4294967295 -> 9 is 1 + 9 = 10, over 2 s: 5 */
    OK(PERF_SAMPLE_COUNTER, R4(9, 20000000), R4(4294967295u, 0), F7, 0, 0, 5.0);
}

/* ---- queue lengths: ΔN / ΔT, no frequency -------------------------------- */
static void test_queuelen(void)
{
    /* (600-200) / (400-200) = 2, whatever F */
    OK(PERF_COUNTER_QUEUELEN_TYPE, R8(600, 400), R8(200, 200), F7, 0, 0, 2.0);
    OK(PERF_COUNTER_QUEUELEN_TYPE, R8(600, 400), R8(200, 200), 1000, 0, 0, 2.0);
    /* 32-bit wrap: 4294967286 -> 10 is 10 + 10 = 20, over 20: 1 */
    OK(PERF_COUNTER_QUEUELEN_TYPE, R4(10, 20), R4(4294967286u, 0), F7, 0, 0, 1.0);
    NO(PERF_COUNTER_QUEUELEN_TYPE, R8(6, 7), R8(5, 8), F7, 0, 0, PL_NEGATIVE_INTERVAL);  /* 7 < 8 */
    /* (7500-0) / (3000-0) = 2.5 */
    OK(PERF_COUNTER_LARGE_QUEUELEN_TYPE, R8(7500, 3000), R8(0, 0), F7, 0, 0, 2.5);
    NO(PERF_COUNTER_LARGE_QUEUELEN_TYPE, R8(0, 3000), R8(7500, 0), F7, 0, 0, PL_NEGATIVE_DELTA);
    /* (35e6-5e6) / (2e7-1e7) = 3 */
    OK(PERF_COUNTER_100NS_QUEUELEN_TYPE, R8(35000000, 20000000), R8(5000000, 10000000), F7, 0, 0, 3.0);
    NO(PERF_COUNTER_100NS_QUEUELEN_TYPE, R8(35000000, F7), R8(5000000, F7), F7, 0, 0, PL_ZERO_INTERVAL);
    /* (1250-250) / (1500-1000) = 2, whatever the object frequency */
    OK(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, R8(1250, 1500), R8(250, 1000), F7, 0, 0, 2.0);
    OK(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, R8(1250, 1500), R8(250, 1000), 1000, 0, 0, 2.0);
    NO(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, R8(1250, 1500), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
}

/* ---- % of elapsed time: 100·ΔN/ΔT; _INV 100·(1 − ΔN/ΔT) ----------------- */
static void test_timers(void)
{
    /* 100 * 3e6 / 1e7 = 30 %, whatever F */
    OK(PERF_COUNTER_TIMER, R8(3000000, F7), R8(0, 0), F7, 0, 0, 30.0);
    OK(PERF_COUNTER_TIMER, R8(3000000, F7), R8(0, 0), F9, 0, 0, 30.0);
    /* 100 * 2e7 / 1e7 = 200 %: capped at 100, 200 with NOCAP100 */
    OK(PERF_COUNTER_TIMER, R8(20000000, F7), R8(0, 0), F7, 0, 0, 100.0);
    OK(PERF_COUNTER_TIMER, R8(20000000, F7), R8(0, 0), F7, PL_FMT_NOCAP100, 0, 200.0);
    NO(PERF_COUNTER_TIMER, R8(6, 7), R8(5, 7), F7, 0, 0, PL_ZERO_INTERVAL);
    NO(PERF_COUNTER_TIMER, R8(6, 7), R8(5, 8), F7, 0, 0, PL_NEGATIVE_INTERVAL);
    /* 100 * (1 - 3e6/1e7) = 70 % */
    OK(PERF_COUNTER_TIMER_INV, R8(3000000, F7), R8(0, 0), F7, 0, 0, 70.0);
    /* 100 * (1 - 1.2e7/1e7) = -20 %: capped at 0, -20 with NOCAP100 */
    OK(PERF_COUNTER_TIMER_INV, R8(12000000, F7), R8(0, 0), F7, 0, 0, 0.0);
    OK(PERF_COUNTER_TIMER_INV, R8(12000000, F7), R8(0, 0), F7, PL_FMT_NOCAP100, 0, -20.0);
    /* 100 * (7.5e6-5e6) / (3e7-1e7) = 12.5 % */
    OK(PERF_100NSEC_TIMER, R8(7500000, 30000000), R8(5000000, F7), F7, 0, 0, 12.5);
    /* 100 * 15 / 10 = 150 %: capped at 100, 150 with NOCAP100 */
    OK(PERF_100NSEC_TIMER, R8(15, 10), R8(0, 0), F7, 0, 0, 100.0);
    OK(PERF_100NSEC_TIMER, R8(15, 10), R8(0, 0), F7, PL_FMT_NOCAP100, 0, 150.0);
    /* 100 * (1 - 2.5e6/2e7) = 87.5 % */
    OK(PERF_100NSEC_TIMER_INV, R8(7500000, 30000000), R8(5000000, F7), F7, 0, 0, 87.5);
    /* 100 * (1 - 15/10) = -50 %: capped at 0, -50 with NOCAP100 */
    OK(PERF_100NSEC_TIMER_INV, R8(15, 10), R8(0, 0), F7, 0, 0, 0.0);
    OK(PERF_100NSEC_TIMER_INV, R8(15, 10), R8(0, 0), F7, PL_FMT_NOCAP100, 0, -50.0);
    /* 100 * (450-200) / (1500-1000) = 50 %, whatever the object frequency */
    OK(PERF_OBJ_TIME_TIMER, R8(450, 1500), R8(200, 1000), F7, 0, 0, 50.0);
    OK(PERF_OBJ_TIME_TIMER, R8(450, 1500), R8(200, 1000), 1000, 0, 0, 50.0);
    NO(PERF_OBJ_TIME_TIMER, R8(450, 1500), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
}

/* ---- multi timers: 100·(ΔN/ΔT)/M; _INV 100·(M − ΔN/ΔT); M of the newer --- */
static void test_multi_timers(void)
{
    /* 100 * (3e7/1e7) / 4 = 75 % */
    OK(PERF_COUNTER_MULTI_TIMER, RM(30000000, F7, 4), RM(0, 0, 4), F7, 0, 0, 75.0);
    /* M is the newer's (4), not the older's (2): still 75 % */
    OK(PERF_COUNTER_MULTI_TIMER, RM(30000000, F7, 4), RM(0, 0, 2), F7, 0, 0, 75.0);
    /* 100 * (6e7/1e7) / 4 = 150 %: capped at 100, 150 with NOCAP100 */
    OK(PERF_COUNTER_MULTI_TIMER, RM(60000000, F7, 4), RM(0, 0, 4), F7, 0, 0, 100.0);
    OK(PERF_COUNTER_MULTI_TIMER, RM(60000000, F7, 4), RM(0, 0, 4), F7, PL_FMT_NOCAP100, 0, 150.0);
    NO(PERF_COUNTER_MULTI_TIMER, RM(30000000, F7, 0), RM(0, 0, 0), F7, 0, 0, PL_ZERO_BASE);   /* M = 0 */
    /* 100 * (2 - 1.7e7/1e7) = 30 % */
    OK(PERF_COUNTER_MULTI_TIMER_INV, RM(17000000, F7, 2), RM(0, 0, 2), F7, 0, 0, 30.0);
    /* 100 * (4 - 1.5e7/1e7) = 250 %: capped at 100, 250 with NOCAP100 (un-normalised) */
    OK(PERF_COUNTER_MULTI_TIMER_INV, RM(15000000, F7, 4), RM(0, 0, 4), F7, 0, 0, 100.0);
    OK(PERF_COUNTER_MULTI_TIMER_INV, RM(15000000, F7, 4), RM(0, 0, 4), F7, PL_FMT_NOCAP100, 0, 250.0);
    NO(PERF_COUNTER_MULTI_TIMER_INV, RM(15000000, F7, 0), RM(0, 0, 0), F7, 0, 0, PL_ZERO_BASE);
    /* 100 * ((1.2e7-0)/(2e7-1e7)) / 2 = 60 % */
    OK(PERF_100NSEC_MULTI_TIMER, RM(12000000, 20000000, 2), RM(0, F7, 2), F7, 0, 0, 60.0);
    NO(PERF_100NSEC_MULTI_TIMER, RM(12000000, 20000000, 0), RM(0, F7, 0), F7, 0, 0, PL_ZERO_BASE);
    NO(PERF_100NSEC_MULTI_TIMER, RM(12000000, 20000000, 2), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
    /* 100 * (4 - 3.5e7/1e7) = 50 % */
    OK(PERF_100NSEC_MULTI_TIMER_INV, RM(35000000, F7, 4), RM(0, 0, 4), F7, 0, 0, 50.0);
    /* NOCAP100: 100 * (4 - 1e7/1e7) = 300 % */
    OK(PERF_100NSEC_MULTI_TIMER_INV, RM(10000000, F7, 4), RM(0, 0, 4), F7, PL_FMT_NOCAP100, 0, 300.0);
    NO(PERF_100NSEC_MULTI_TIMER_INV, RM(10000000, F7, 0), RM(0, 0, 0), F7, 0, 0, PL_ZERO_BASE);
}

/* ---- % against a private clock in the base: 100·ΔN/ΔB -------------------- */
static void test_precision(void)
{
    /* 100 * (600-100) / (2000-1000) = 50 %, whatever F */
    OK(PERF_PRECISION_SYSTEM_TIMER, R8(600, 2000), R8(100, 1000), F7, 0, 0, 50.0);
    OK(PERF_PRECISION_SYSTEM_TIMER, R8(600, 2000), R8(100, 1000), F9, 0, 0, 50.0);
    NO(PERF_PRECISION_SYSTEM_TIMER, R8(600, 1000), R8(100, 1000), F7, 0, 0, PL_ZERO_INTERVAL);     /* ΔB = 0 */
    NO(PERF_PRECISION_SYSTEM_TIMER, R8(600, 900), R8(100, 1000), F7, 0, 0, PL_NEGATIVE_INTERVAL);  /* ΔB < 0 */
    /* 100 * 4.8e7 / 1e8 = 48 % */
    OK(PERF_PRECISION_100NS_TIMER, R8(48000000, 100000000), R8(0, 0), F7, 0, 0, 48.0);
    NO(PERF_PRECISION_100NS_TIMER, R8(48000000, 100000000), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
    /* 100 * (1300-1000) / (5000-4000) = 30 % */
    OK(PERF_PRECISION_OBJECT_TIMER, R8(1300, 5000), R8(1000, 4000), F7, 0, 0, 30.0);
    NO(PERF_PRECISION_OBJECT_TIMER, R8(1300, 4000), R8(1000, 4000), F7, 0, 0, PL_ZERO_INTERVAL);
}

/* ---- fractions -------------------------------------------------------------- */
static void test_fractions(void)
{
    /* 100 * (130-100) / (540-500) = 75 % */
    OK(PERF_SAMPLE_FRACTION, R8(130, 540), R8(100, 500), F7, 0, 0, 75.0);
    /* 32-bit base wraps: 4294967291 -> 10 is 5 + 10 = 15; 100 * (20-10) / 15 = 66.67 % */
    OK(PERF_SAMPLE_FRACTION, R4(20, 10), R4(10, 4294967291u), F7, 0, 0, 200.0 / 3.0);
    /* 100 * 50 / 40 = 125 %: capped at 100, 125 with NOCAP100 */
    OK(PERF_SAMPLE_FRACTION, R8(150, 540), R8(100, 500), F7, 0, 0, 100.0);
    OK(PERF_SAMPLE_FRACTION, R8(150, 540), R8(100, 500), F7, PL_FMT_NOCAP100, 0, 125.0);
    NO(PERF_SAMPLE_FRACTION, R8(130, 500), R8(100, 500), F7, 0, 0, PL_ZERO_BASE);       /* ΔB = 0 */
    NO(PERF_SAMPLE_FRACTION, R8(130, 540), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
    /* 100 * 3 / 8 = 37.5 %; one sample, an older plays no part */
    OK(PERF_RAW_FRACTION, R4(3, 8), NULL, F7, 0, 0, 37.5);
    OK(PERF_RAW_FRACTION, R4(3, 8), R4(1, 2), F7, 0, 0, 37.5);
    NO(PERF_RAW_FRACTION, R4(3, 0), NULL, F7, 0, 0, PL_ZERO_BASE);                      /* B = 0 */
    /* 100 * 2^33 / 2^35 = 25 % */
    OK(PERF_LARGE_RAW_FRACTION, R8(1ULL << 33, 1ULL << 35), NULL, F7, 0, 0, 25.0);
    /* 100 * 677 / 2466177 = 0.027451...% */
    OK(PERF_LARGE_RAW_FRACTION, R8(677, 2466177), NULL, F7, 0, 0, 100.0 * 677 / 2466177);
    NO(PERF_LARGE_RAW_FRACTION, R8(677, 0), NULL, F7, 0, 0, PL_ZERO_BASE);
}

/* ---- averages per operation: two samples ------------------------------------- */
static void test_averages(void)
{
    /* ((2e5-0)/1e7 s) / (14-10) = 0.02 s / 4 = 0.005 s */
    OK(PERF_AVERAGE_TIMER, R8(200000, 14), R8(0, 10), F7, 0, 0, 0.005);
    /* F = 1e9: (3e9/1e9 s) / (16-10) = 0.5 s */
    OK(PERF_AVERAGE_TIMER, R8(3000000000u, 16), R8(0, 10), F9, 0, 0, 0.5);
    NO(PERF_AVERAGE_TIMER, R8(200000, 10), R8(0, 10), F7, 0, 0, PL_ZERO_BASE);          /* ΔB = 0 */
    NO(PERF_AVERAGE_TIMER, R8(200000, 14), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
    /* (4096-0) / (14-10) = 1024 */
    OK(PERF_AVERAGE_BULK, R8(4096, 14), R8(0, 10), F7, 0, 0, 1024.0);
    NO(PERF_AVERAGE_BULK, R8(4096, 10), R8(0, 10), F7, 0, 0, PL_ZERO_BASE);
    NO(PERF_AVERAGE_BULK, R8(4096, 14), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
}

/* ---- one-sample values and differences ----------------------------------------- */
static void test_single(void)
{
    /* (T - N) / F = (6.5e8 - 5e7) / 1e7 = 60 s; an older plays no part */
    OK(PERF_ELAPSED_TIME, R8(50000000, 650000000), NULL, F7, 0, 0, 60.0);
    OK(PERF_ELAPSED_TIME, R8(50000000, 650000000), R8(0, 1), F7, 0, 0, 60.0);
    /* F = 1000: (91000 - 1000) / 1000 = 90 s */
    OK(PERF_ELAPSED_TIME, R8(1000, 91000), NULL, 1000, 0, 0, 90.0);
    /* (3.6e10 - 0) / 1e7 = 3600 s; (5e7 - 5e7) / 1e7 = 0 s */
    OK(PERF_ELAPSED_TIME, R8(0, 36000000000ULL), NULL, F7, 0, 0, 3600.0);
    OK(PERF_ELAPSED_TIME, R8(50000000, 50000000), NULL, F7, 0, 0, 0.0);

    /* 1050 - 1000 = 50 */
    OK(PERF_COUNTER_DELTA, R4(1050, 0), R4(1000, 0), F7, 0, 0, 50.0);
    /* 32-bit wrap: 4294967290 -> 5 is 6 + 5 = 11 */
    OK(PERF_COUNTER_DELTA, R4(5, 0), R4(4294967290u, 0), F7, 0, 0, 11.0);
    NO(PERF_COUNTER_DELTA, R4(1050, 0), NULL, F7, 0, 0, PL_FIRST_SAMPLE);
    /* (2^40 + 5) - 2^40 = 5; the other way round is a reset */
    OK(PERF_COUNTER_LARGE_DELTA, R8((1ULL << 40) + 5, 0), R8(1ULL << 40, 0), F7, 0, 0, 5.0);
    NO(PERF_COUNTER_LARGE_DELTA, R8(1ULL << 40, 0), R8((1ULL << 40) + 5, 0), F7, 0, 0, PL_NEGATIVE_DELTA);

    /* N = 42, one sample; an older plays no part */
    OK(PERF_COUNTER_RAWCOUNT, R4(42, 0), NULL, F7, 0, 0, 42.0);
    OK(PERF_COUNTER_RAWCOUNT, R4(42, 0), R4(99, 0), F7, 0, 0, 42.0);
    /* N = 25178882048 (beyond 32 bits) */
    OK(PERF_COUNTER_LARGE_RAWCOUNT, R8(25178882048ULL, 0), NULL, F7, 0, 0, 25178882048.0);
    /* the hex types format to the plain value: 0xBEEF = 48879, 0x123456789A = 78187493530 */
    OK(PERF_COUNTER_RAWCOUNT_HEX, R4(0xBEEF, 0), NULL, F7, 0, 0, 48879.0);
    OK(PERF_COUNTER_LARGE_RAWCOUNT_HEX, R8(0x123456789AULL, 0), NULL, F7, 0, 0, 78187493530.0);
    /* PERF_NUMBER_DEC_1000: 5000 / 1000 = 5, 1234 / 1000 = 1.234 */
    OK(DEC_1000, R4(5000, 0), NULL, F7, 0, 0, 5.0);
    OK(DEC_1000, R4(1234, 0), NULL, F7, 0, 0, 1.234);
    /* the same in 64-bit data (0x00020100): 2^40 / 1000 = 1099511627.776 */
    OK(DEC_1000 | PERF_SIZE_LARGE, R8(1ULL << 40, 0), NULL, F7, 0, 0, 1099511627.776);
    /* PERF_DOUBLE_RAW: the bits of 2.5, -0.125, 1e300 */
    OK(PERF_DOUBLE_RAW, R8(dbits(2.5), 0), NULL, F7, 0, 0, 2.5);
    OK(PERF_DOUBLE_RAW, R8(dbits(-0.125), 0), NULL, F7, 0, 0, -0.125);
    OK(PERF_DOUBLE_RAW, R8(dbits(1e300), 0), NULL, F7, 0, 0, 1e300);
    /* a NaN or an infinity is no value */
    NO(PERF_DOUBLE_RAW, R8(dbits(NAN), 0), NULL, F7, 0, 0, PL_INVALID_DATA);
    NO(PERF_DOUBLE_RAW, R8(dbits(INFINITY), 0), NULL, F7, 0, 0, PL_INVALID_DATA);
    /* no newer raw value at all */
    NO(PERF_COUNTER_RAWCOUNT, NULL, NULL, F7, 0, 0, PL_NO_DATA);
}

/* ---- types that format to no number ------------------------------------------- */
static void test_unsupported(void)
{
    static const uint32_t none[] = {
        PERF_COUNTER_MULTI_BASE, PERF_SAMPLE_BASE, PERF_RAW_BASE, PERF_LARGE_RAW_BASE,
        PERF_AVERAGE_BASE, PERF_PRECISION_TIMESTAMP, PERF_COUNTER_TEXT, PERF_COUNTER_NODATA,
        PERF_COUNTER_HISTOGRAM_TYPE,
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "type 0x%08x", (unsigned)none[i]);
        /* one sample or two */
        no_at(__LINE__, what, none[i], R8(7, 9), NULL, F7, 0, 0, PL_UNSUPPORTED_TYPE);
        no_at(__LINE__, what, none[i], R8(7, 9), R8(3, 4), F7, 0, 0, PL_UNSUPPORTED_TYPE);
    }
    /* a type of no table */
    NO(0x12345678u, R8(7, 9), NULL, F7, 0, 0, PL_UNSUPPORTED_TYPE);
}

/* ---- format flags: NOCAP100, 1000, scale, NOSCALE ----------------------------- */
static void test_flags(void)
{
    const pl_raw *n1 = R8(2497631, 25000000), *n0 = R8(2472631, 0);   /* 10000/s */
    /* 38 * 1000 */
    OK(PERF_COUNTER_LARGE_RAWCOUNT, R8(38, 0), NULL, F7, PL_FMT_1000, 0, 38000.0);
    /* 38 * 10^-2 = 0.38; 38 * 10^3 = 38000 */
    OK(PERF_COUNTER_LARGE_RAWCOUNT, R8(38, 0), NULL, F7, 0, -2, 0.38);
    OK(PERF_COUNTER_RAWCOUNT, R4(38, 0), NULL, F7, 0, 3, 38000.0);
    /* NOSCALE ignores the scale */
    OK(PERF_COUNTER_RAWCOUNT, R4(38, 0), NULL, F7, PL_FMT_NOSCALE, 3, 38.0);
    OK(PERF_COUNTER_LARGE_RAWCOUNT, R8(38, 0), NULL, F7, PL_FMT_NOSCALE, -2, 38.0);
    /* 38 * 10^-2 * 1000 = 380; NOSCALE with 1000: 38 * 1000 */
    OK(PERF_COUNTER_LARGE_RAWCOUNT, R8(38, 0), NULL, F7, PL_FMT_1000, -2, 380.0);
    OK(PERF_COUNTER_LARGE_RAWCOUNT, R8(38, 0), NULL, F7, PL_FMT_1000 | PL_FMT_NOSCALE, -2, 38000.0);
    /* rates scale too: 10000/s * 10^3 = 1e7, 10000/s * 10^-2 = 100 */
    OK(PERF_COUNTER_BULK_COUNT, n1, n0, F7, 0, 3, 1e7);
    OK(PERF_COUNTER_BULK_COUNT, n1, n0, F7, 0, -2, 100.0);
    /* a rate is no percentage: 15 / (10/1e7 s) = 1.5e7/s, not capped */
    OK(PERF_COUNTER_BULK_COUNT, R8(15, 10), R8(0, 0), F7, 0, 0, 1.5e7);
    /* statuses stay statuses whatever the flags */
    NO(PERF_COUNTER_BULK_COUNT, n1, NULL, F7, PL_FMT_1000 | PL_FMT_NOCAP100, 3, PL_FIRST_SAMPLE);
}

/* ---- the type table ------------------------------------------------------------ */
static void test_type_table(void)
{
    static const struct { const char *name; uint32_t type, hex; int two; } t[] = {
#define T(n, hex, two) { #n, n, hex, two }
        T(PERF_COUNTER_COUNTER, 0x10410400u, 1),
        T(PERF_COUNTER_BULK_COUNT, 0x10410500u, 1),
        T(PERF_SAMPLE_COUNTER, 0x00410400u, 1),
        T(PERF_COUNTER_QUEUELEN_TYPE, 0x00450400u, 1),
        T(PERF_COUNTER_LARGE_QUEUELEN_TYPE, 0x00450500u, 1),
        T(PERF_COUNTER_100NS_QUEUELEN_TYPE, 0x00550500u, 1),
        T(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, 0x00650500u, 1),
        T(PERF_COUNTER_TIMER, 0x20410500u, 1),
        T(PERF_COUNTER_TIMER_INV, 0x21410500u, 1),
        T(PERF_100NSEC_TIMER, 0x20510500u, 1),
        T(PERF_100NSEC_TIMER_INV, 0x21510500u, 1),
        T(PERF_OBJ_TIME_TIMER, 0x20610500u, 1),
        T(PERF_COUNTER_MULTI_TIMER, 0x22410500u, 1),
        T(PERF_COUNTER_MULTI_TIMER_INV, 0x23410500u, 1),
        T(PERF_100NSEC_MULTI_TIMER, 0x22510500u, 1),
        T(PERF_100NSEC_MULTI_TIMER_INV, 0x23510500u, 1),
        T(PERF_COUNTER_MULTI_BASE, 0x42030500u, 0),
        T(PERF_SAMPLE_FRACTION, 0x20C20400u, 1),
        T(PERF_SAMPLE_BASE, 0x40030401u, 0),
        T(PERF_RAW_FRACTION, 0x20020400u, 0),
        T(PERF_LARGE_RAW_FRACTION, 0x20020500u, 0),
        T(PERF_RAW_BASE, 0x40030403u, 0),
        T(PERF_LARGE_RAW_BASE, 0x40030500u, 0),
        T(PERF_AVERAGE_TIMER, 0x30020400u, 1),
        T(PERF_AVERAGE_BULK, 0x40020500u, 1),
        T(PERF_AVERAGE_BASE, 0x40030402u, 0),
        T(PERF_PRECISION_SYSTEM_TIMER, 0x20470500u, 1),
        T(PERF_PRECISION_100NS_TIMER, 0x20570500u, 1),
        T(PERF_PRECISION_OBJECT_TIMER, 0x20670500u, 1),
        T(PERF_PRECISION_TIMESTAMP, 0x40030500u, 0),
        T(PERF_ELAPSED_TIME, 0x30240500u, 0),
        T(PERF_COUNTER_DELTA, 0x00400400u, 1),
        T(PERF_COUNTER_LARGE_DELTA, 0x00400500u, 1),
        T(PERF_COUNTER_RAWCOUNT, 0x00010000u, 0),
        T(PERF_COUNTER_LARGE_RAWCOUNT, 0x00010100u, 0),
        T(PERF_COUNTER_RAWCOUNT_HEX, 0x00000000u, 0),
        T(PERF_COUNTER_LARGE_RAWCOUNT_HEX, 0x00000100u, 0),
        T(PERF_COUNTER_TEXT, 0x00000B00u, 0),
        T(PERF_COUNTER_NODATA, 0x40000200u, 0),
        T(PERF_COUNTER_HISTOGRAM_TYPE, 0x80000000u, 0),
        T(PERF_DOUBLE_RAW, 0x00012000u, 0),
#undef T
    };
    CHECK_EQ_U64(sizeof t / sizeof t[0], 41);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        /* PERF_PRECISION_TIMESTAMP is PERF_LARGE_RAW_BASE by definition */
        const char *want = t[i].type == PERF_LARGE_RAW_BASE ? "PERF_LARGE_RAW_BASE" : t[i].name;
        if (t[i].type != t[i].hex || !pl_type_known(t[i].hex) || !pl_type_name(t[i].hex) ||
            strcmp(pl_type_name(t[i].hex), want) != 0 || pl_type_needs_two(t[i].hex) != t[i].two) {
            ct_failed_checks++;
            fprintf(stderr, "  %s: value 0x%08x, expected 0x%08x; known %d; name %s; needs_two %d, expected %d\n",
                    t[i].name, (unsigned)t[i].type, (unsigned)t[i].hex, pl_type_known(t[i].hex),
                    pl_type_name(t[i].hex) ? pl_type_name(t[i].hex) : "(null)",
                    pl_type_needs_two(t[i].hex), t[i].two);
        }
    }
    CHECK(!pl_type_known(0x12345678u));
    CHECK(pl_type_name(0x12345678u) == NULL);
    CHECK(pl_type_name(0x40030503u) == NULL);      /* WMI's LARGE_RAW_BASE value is not winperf.h's */
    /* DEC_1000 numbers are known (they format) though winperf.h names none */
    CHECK(pl_type_known(DEC_1000));
    CHECK(pl_type_known(DEC_1000 | PERF_SIZE_LARGE));
    CHECK(pl_type_name(DEC_1000) == NULL);
    CHECK(!pl_type_needs_two(DEC_1000));
}

/* ---- statuses ------------------------------------------------------------------ */
static void test_status_names(void)
{
    static const struct { pl_status st; const char *name; } s[] = {
        { PL_VALID, "valid" },
        { PL_FIRST_SAMPLE, "first_sample" },
        { PL_NEGATIVE_DELTA, "negative_delta" },
        { PL_ZERO_INTERVAL, "zero_interval" },
        { PL_NEGATIVE_INTERVAL, "negative_interval" },
        { PL_ZERO_BASE, "zero_base" },
        { PL_NO_INSTANCE, "no_instance" },
        { PL_NO_DATA, "no_data" },
        { PL_INVALID_DATA, "invalid_data" },
        { PL_UNSUPPORTED_TYPE, "unsupported_type" },
        { PL_NO_ACCESS, "no_access" },
    };
    CHECK_EQ_U64(sizeof s / sizeof s[0], PL_STATUS_COUNT);
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        CHECK_STR(pl_status_name(s[i].st), s[i].name);
    CHECK_STR(pl_status_name(PL_STATUS_COUNT), "invalid_data");
}

int main(void)
{
    RUN(test_rates);
    RUN(test_queuelen);
    RUN(test_timers);
    RUN(test_multi_timers);
    RUN(test_precision);
    RUN(test_fractions);
    RUN(test_averages);
    RUN(test_single);
    RUN(test_unsupported);
    RUN(test_flags);
    RUN(test_type_table);
    RUN(test_status_names);
    return CT_END();
}
