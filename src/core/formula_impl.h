/* The formulas of every counter type, as inline functions shared by the
 * one-value path (formula.c) and the bulk path (sample.c), which decides the
 * kind, cap and multiplier once per counter instead of once per value.
 * Private to the core. */
#ifndef PL_FORMULA_IMPL_H
#define PL_FORMULA_IMPL_H

#include "perflib.h"

#include <math.h>
#include <string.h>

typedef enum pl_kind {
    K_NONE,        /* no number: bases, text, no data, unknown */
    K_RATE,        /* dN / (dT / F) */
    K_QUEUE,       /* dN / dT */
    K_TIMER,       /* 100 dN / dT */
    K_TIMER_INV,   /* 100 (1 - dN / dT) */
    K_MULTI,       /* 100 (dN / dT) / M */
    K_MULTI_INV,   /* 100 (M - dN / dT) */
    K_PRECISION,   /* 100 dN / dB, B a private clock */
    K_SAMPLE_FRAC, /* 100 dN / dB */
    K_RAW_FRAC,    /* 100 N / B */
    K_AVG_TIMER,   /* (dN / F) / dB */
    K_AVG_BULK,    /* dN / dB */
    K_ELAPSED,     /* (T - N) / F */
    K_DELTA,       /* dN */
    K_RAW,         /* N */
    K_DEC1000,     /* N / 1000 */
    K_DOUBLE       /* N's bits as a double */
} pl_kind;

static inline pl_kind pl_kind_of(uint32_t type)
{
    switch (type) {
    case PERF_COUNTER_COUNTER: case PERF_COUNTER_BULK_COUNT: case PERF_SAMPLE_COUNTER:
        return K_RATE;
    case PERF_COUNTER_QUEUELEN_TYPE: case PERF_COUNTER_LARGE_QUEUELEN_TYPE:
    case PERF_COUNTER_100NS_QUEUELEN_TYPE: case PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
        return K_QUEUE;
    case PERF_COUNTER_TIMER: case PERF_100NSEC_TIMER: case PERF_OBJ_TIME_TIMER:
        return K_TIMER;
    case PERF_COUNTER_TIMER_INV: case PERF_100NSEC_TIMER_INV:
        return K_TIMER_INV;
    case PERF_COUNTER_MULTI_TIMER: case PERF_100NSEC_MULTI_TIMER:
        return K_MULTI;
    case PERF_COUNTER_MULTI_TIMER_INV: case PERF_100NSEC_MULTI_TIMER_INV:
        return K_MULTI_INV;
    case PERF_PRECISION_SYSTEM_TIMER: case PERF_PRECISION_100NS_TIMER:
    case PERF_PRECISION_OBJECT_TIMER:
        return K_PRECISION;
    case PERF_SAMPLE_FRACTION:
        return K_SAMPLE_FRAC;
    case PERF_RAW_FRACTION: case PERF_LARGE_RAW_FRACTION:
        return K_RAW_FRAC;
    case PERF_AVERAGE_TIMER:
        return K_AVG_TIMER;
    case PERF_AVERAGE_BULK:
        return K_AVG_BULK;
    case PERF_ELAPSED_TIME:
        return K_ELAPSED;
    case PERF_COUNTER_DELTA: case PERF_COUNTER_LARGE_DELTA:
        return K_DELTA;
    case PERF_COUNTER_RAWCOUNT: case PERF_COUNTER_RAWCOUNT_HEX:
    case PERF_COUNTER_LARGE_RAWCOUNT: case PERF_COUNTER_LARGE_RAWCOUNT_HEX:
        return K_RAW;
    case PERF_SIZE_DWORD | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000:
    case PERF_SIZE_LARGE | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000:
        return K_DEC1000;
    case 0x00012000u:                          /* PERF_DOUBLE_RAW */
        return K_DOUBLE;
    default:
        return K_NONE;
    }
}

static inline int pl_kind_needs_two(pl_kind k)
{
    return k != K_NONE && k != K_RAW_FRAC && k != K_ELAPSED && k != K_RAW &&
           k != K_DEC1000 && k != K_DOUBLE;
}

/* Percent types are kept within [0, 100] as PDH does, unless NOCAP100. */
static inline int pl_cap_of(uint32_t type, unsigned flags)
{
    return (type & 0x70000000u) == PERF_DISPLAY_PERCENT && !(flags & PL_FMT_NOCAP100);
}

static inline double pl_mult_of(unsigned flags, int scale)
{
    double m = (flags & PL_FMT_NOSCALE) || scale == 0 ? 1.0 : pow(10.0, scale);
    return flags & PL_FMT_1000 ? m * 1000.0 : m;
}

/* Difference of two raw values.  32-bit data wraps (unsigned arithmetic at
 * the stored width); 64-bit data that went backwards is a reset. */
static inline pl_status pl_delta(uint64_t a1, uint64_t a0, uint32_t size, double *d)
{
    if (size == 4) {
        *d = (double)(uint32_t)((uint32_t)a1 - (uint32_t)a0);
        return PL_VALID;
    }
    if (a1 < a0)
        return PL_NEGATIVE_DELTA;
    *d = (double)(a1 - a0);
    return PL_VALID;
}

/* Difference of two timestamps. */
static inline pl_status pl_interval(uint64_t t1, uint64_t t0, double *d)
{
    if ((int64_t)t1 == (int64_t)t0)
        return PL_ZERO_INTERVAL;
    if ((int64_t)t1 < (int64_t)t0)
        return PL_NEGATIVE_INTERVAL;
    uint64_t u = t1 - t0;            /* t1 > t0 as signed: exact in unsigned, never an overflow */
    /* a signed conversion is one instruction, an unsigned one a branch and more */
    *d = u <= (uint64_t)INT64_MAX ? (double)(int64_t)u : (double)u;
    return PL_VALID;
}

/* Difference of two base values (operation counts, sample bases). */
static inline pl_status pl_base_delta(uint64_t b1, uint64_t b0, uint32_t size, double *d)
{
    pl_status st = pl_delta(b1, b0, size, d);
    if (st == PL_VALID && *d == 0)
        return PL_ZERO_BASE;
    return st;
}

#define PL_TRY(x) do { pl_status st_ = (x); if (st_ != PL_VALID) return st_; } while (0)

/* The value of one counter of kind k; n0 is ignored by one-sample kinds. */
static inline pl_status pl_compute(pl_kind k, const pl_raw *n1, const pl_raw *n0, int64_t freq,
                                   int cap, double mult, double *out)
{
    double v, dn, dt, db;
    uint32_t sz = n1->size == 4 ? 4 : 8;
    *out = 0;
    switch (k) {
    case K_RATE:
        if (freq <= 0)
            return PL_INVALID_DATA;
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_interval(n1->second, n0->second, &dt));
        v = dn / (dt / (double)freq);
        break;
    case K_QUEUE:
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_interval(n1->second, n0->second, &dt));
        v = dn / dt;
        break;
    case K_TIMER:
    case K_PRECISION:
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_interval(n1->second, n0->second, &dt));
        v = 100.0 * dn / dt;
        break;
    case K_TIMER_INV:
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_interval(n1->second, n0->second, &dt));
        v = 100.0 * (1.0 - dn / dt);
        break;
    case K_MULTI:
    case K_MULTI_INV:
        if (n1->multi == 0)
            return PL_ZERO_BASE;
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_interval(n1->second, n0->second, &dt));
        /* winperf.h: the _INV form is 100 * M - delta over delta time, not normalised */
        v = k == K_MULTI ? 100.0 * (dn / dt) / (double)n1->multi
                         : 100.0 * ((double)n1->multi - dn / dt);
        break;
    case K_SAMPLE_FRAC:
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_base_delta(n1->second, n0->second, sz, &db));
        v = 100.0 * dn / db;
        break;
    case K_RAW_FRAC:
        if (n1->second == 0)
            return PL_ZERO_BASE;
        v = 100.0 * (double)n1->first / (double)n1->second;
        break;
    case K_AVG_TIMER:
        if (freq <= 0)
            return PL_INVALID_DATA;
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_base_delta(n1->second, n0->second, sz, &db));
        v = (dn / (double)freq) / db;
        break;
    case K_AVG_BULK:
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        PL_TRY(pl_base_delta(n1->second, n0->second, sz, &db));
        v = dn / db;
        break;
    case K_ELAPSED:
        /* value = start time, second = object time now, both at freq */
        if (freq <= 0)
            return PL_INVALID_DATA;
        if ((int64_t)n1->second < (int64_t)n1->first)
            return PL_NEGATIVE_DELTA;
        v = (double)(n1->second - n1->first) / (double)freq;   /* unsigned: no overflow */
        break;
    case K_DELTA:
        PL_TRY(pl_delta(n1->first, n0->first, sz, &dn));
        v = dn;
        break;
    case K_RAW:
        v = sz == 4 ? (double)(uint32_t)n1->first : (double)n1->first;
        break;
    case K_DEC1000:
        v = (sz == 4 ? (double)(uint32_t)n1->first : (double)n1->first) / 1000.0;
        break;
    case K_DOUBLE:
        memcpy(&v, &n1->first, sizeof v);
        break;
    default:
        return PL_UNSUPPORTED_TYPE;
    }
    if (!isfinite(v))
        return PL_INVALID_DATA;
    if (cap) {
        if (v > 100.0)
            v = 100.0;
        if (v < 0.0)
            v = 0.0;     /* inverse timers overshoot by rounding, never below zero */
    }
    *out = v * mult;
    return PL_VALID;
}

#endif
