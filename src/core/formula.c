/* Formatted values from raw values, per counter type: the home of every
 * PerfLib formula.  Each result carries a status; no status means no number. */
#include "perflib.h"

#include <math.h>
#include <string.h>

static const struct { uint32_t type; const char *name; } type_names[] = {
    { PERF_COUNTER_COUNTER, "PERF_COUNTER_COUNTER" },
    { PERF_COUNTER_BULK_COUNT, "PERF_COUNTER_BULK_COUNT" },
    { PERF_SAMPLE_COUNTER, "PERF_SAMPLE_COUNTER" },
    { PERF_COUNTER_QUEUELEN_TYPE, "PERF_COUNTER_QUEUELEN_TYPE" },
    { PERF_COUNTER_LARGE_QUEUELEN_TYPE, "PERF_COUNTER_LARGE_QUEUELEN_TYPE" },
    { PERF_COUNTER_100NS_QUEUELEN_TYPE, "PERF_COUNTER_100NS_QUEUELEN_TYPE" },
    { PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, "PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE" },
    { PERF_COUNTER_TIMER, "PERF_COUNTER_TIMER" },
    { PERF_COUNTER_TIMER_INV, "PERF_COUNTER_TIMER_INV" },
    { PERF_100NSEC_TIMER, "PERF_100NSEC_TIMER" },
    { PERF_100NSEC_TIMER_INV, "PERF_100NSEC_TIMER_INV" },
    { PERF_OBJ_TIME_TIMER, "PERF_OBJ_TIME_TIMER" },
    { PERF_COUNTER_MULTI_TIMER, "PERF_COUNTER_MULTI_TIMER" },
    { PERF_COUNTER_MULTI_TIMER_INV, "PERF_COUNTER_MULTI_TIMER_INV" },
    { PERF_100NSEC_MULTI_TIMER, "PERF_100NSEC_MULTI_TIMER" },
    { PERF_100NSEC_MULTI_TIMER_INV, "PERF_100NSEC_MULTI_TIMER_INV" },
    { PERF_COUNTER_MULTI_BASE, "PERF_COUNTER_MULTI_BASE" },
    { PERF_SAMPLE_FRACTION, "PERF_SAMPLE_FRACTION" },
    { PERF_SAMPLE_BASE, "PERF_SAMPLE_BASE" },
    { PERF_RAW_FRACTION, "PERF_RAW_FRACTION" },
    { PERF_LARGE_RAW_FRACTION, "PERF_LARGE_RAW_FRACTION" },
    { PERF_RAW_BASE, "PERF_RAW_BASE" },
    { PERF_LARGE_RAW_BASE, "PERF_LARGE_RAW_BASE" },  /* == PERF_PRECISION_TIMESTAMP */
    { PERF_AVERAGE_TIMER, "PERF_AVERAGE_TIMER" },
    { PERF_AVERAGE_BULK, "PERF_AVERAGE_BULK" },
    { PERF_AVERAGE_BASE, "PERF_AVERAGE_BASE" },
    { PERF_PRECISION_SYSTEM_TIMER, "PERF_PRECISION_SYSTEM_TIMER" },
    { PERF_PRECISION_100NS_TIMER, "PERF_PRECISION_100NS_TIMER" },
    { PERF_PRECISION_OBJECT_TIMER, "PERF_PRECISION_OBJECT_TIMER" },
    { PERF_ELAPSED_TIME, "PERF_ELAPSED_TIME" },
    { PERF_COUNTER_DELTA, "PERF_COUNTER_DELTA" },
    { PERF_COUNTER_LARGE_DELTA, "PERF_COUNTER_LARGE_DELTA" },
    { PERF_COUNTER_RAWCOUNT, "PERF_COUNTER_RAWCOUNT" },
    { PERF_COUNTER_LARGE_RAWCOUNT, "PERF_COUNTER_LARGE_RAWCOUNT" },
    { PERF_COUNTER_RAWCOUNT_HEX, "PERF_COUNTER_RAWCOUNT_HEX" },
    { PERF_COUNTER_LARGE_RAWCOUNT_HEX, "PERF_COUNTER_LARGE_RAWCOUNT_HEX" },
    { PERF_COUNTER_TEXT, "PERF_COUNTER_TEXT" },
    { PERF_COUNTER_NODATA, "PERF_COUNTER_NODATA" },
    { PERF_COUNTER_HISTOGRAM_TYPE, "PERF_COUNTER_HISTOGRAM_TYPE" },
    { 0x00012000u, "PERF_DOUBLE_RAW" },
};

const char *pl_type_name(uint32_t type)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].type == type)
            return type_names[i].name;
    return NULL;
}

int pl_type_known(uint32_t type) { return pl_type_name(type) != NULL; }

int pl_type_needs_two(uint32_t type)
{
    return (type & PERF_DELTA_COUNTER) || type == PERF_AVERAGE_TIMER || type == PERF_AVERAGE_BULK;
}

static const char *const status_names[PL_STATUS_COUNT] = {
    "valid", "first_sample", "negative_delta", "zero_interval", "negative_interval",
    "zero_base", "no_instance", "no_data", "invalid_data", "unsupported_type",
};

const char *pl_status_name(pl_status st)
{
    return (unsigned)st < PL_STATUS_COUNT ? status_names[st] : "invalid_data";
}

uint32_t pl_status_pdh(pl_status st)
{
    switch (st) {
    case PL_VALID: return 0x00000000u;               /* PDH_CSTATUS_VALID_DATA */
    case PL_FIRST_SAMPLE: return 0xC0000BBAu;        /* PDH_CSTATUS_INVALID_DATA, as PDH on a first collect */
    case PL_NEGATIVE_DELTA: return 0x800007D8u;      /* PDH_CALC_NEGATIVE_VALUE */
    case PL_ZERO_INTERVAL: return 0x800007D6u;       /* PDH_CALC_NEGATIVE_DENOMINATOR */
    case PL_NEGATIVE_INTERVAL: return 0x800007D7u;   /* PDH_CALC_NEGATIVE_TIMEBASE */
    case PL_ZERO_BASE: return 0x800007D6u;           /* PDH_CALC_NEGATIVE_DENOMINATOR */
    case PL_NO_INSTANCE: return 0x800007D1u;         /* PDH_CSTATUS_NO_INSTANCE */
    case PL_NO_DATA: return 0x800007D5u;             /* PDH_NO_DATA */
    case PL_UNSUPPORTED_TYPE: return 0xC0000BBEu;    /* PDH_FUNCTION_NOT_FOUND */
    default: return 0xC0000BBAu;                     /* PDH_CSTATUS_INVALID_DATA */
    }
}

/* Difference of two raw values.  32-bit data wraps (unsigned arithmetic at
 * the stored width); 64-bit data that went backwards is a reset. */
static pl_status delta(uint64_t a1, uint64_t a0, uint32_t size, double *d)
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
static pl_status interval(uint64_t t1, uint64_t t0, double *d)
{
    if ((int64_t)t1 == (int64_t)t0)
        return PL_ZERO_INTERVAL;
    if ((int64_t)t1 < (int64_t)t0)
        return PL_NEGATIVE_INTERVAL;
    *d = (double)((int64_t)t1 - (int64_t)t0);
    return PL_VALID;
}

/* Difference of two base values (operation counts, sample bases). */
static pl_status base_delta(uint64_t b1, uint64_t b0, uint32_t size, double *d)
{
    pl_status st = delta(b1, b0, size, d);
    if (st == PL_VALID && *d == 0)
        return PL_ZERO_BASE;
    return st;
}

#define TRY(x) do { pl_status st_ = (x); if (st_ != PL_VALID) return st_; } while (0)

static pl_status compute(uint32_t type, const pl_raw *n1, const pl_raw *n0, int64_t freq, double *v)
{
    double dn, dt, db;
    uint32_t sz = n1->size == 4 ? 4 : 8;

    switch (type) {
    /* ---- rates: delta over seconds ---- */
    case PERF_COUNTER_COUNTER:
    case PERF_COUNTER_BULK_COUNT:
    case PERF_SAMPLE_COUNTER:
        if (freq <= 0)
            return PL_INVALID_DATA;
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(interval(n1->second, n0->second, &dt));
        *v = dn / (dt / (double)freq);
        return PL_VALID;
    /* ---- queue lengths: time integral over time ---- */
    case PERF_COUNTER_QUEUELEN_TYPE:
    case PERF_COUNTER_LARGE_QUEUELEN_TYPE:
    case PERF_COUNTER_100NS_QUEUELEN_TYPE:
    case PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(interval(n1->second, n0->second, &dt));
        *v = dn / dt;
        return PL_VALID;
    /* ---- % of elapsed time ---- */
    case PERF_COUNTER_TIMER:
    case PERF_100NSEC_TIMER:
    case PERF_OBJ_TIME_TIMER:
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(interval(n1->second, n0->second, &dt));
        *v = 100.0 * dn / dt;
        return PL_VALID;
    case PERF_COUNTER_TIMER_INV:
    case PERF_100NSEC_TIMER_INV:
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(interval(n1->second, n0->second, &dt));
        *v = 100.0 * (1.0 - dn / dt);
        return PL_VALID;
    case PERF_COUNTER_MULTI_TIMER:
    case PERF_100NSEC_MULTI_TIMER:
        if (n1->multi == 0)
            return PL_ZERO_BASE;
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(interval(n1->second, n0->second, &dt));
        *v = 100.0 * (dn / dt) / (double)n1->multi;
        return PL_VALID;
    case PERF_COUNTER_MULTI_TIMER_INV:
    case PERF_100NSEC_MULTI_TIMER_INV:
        /* winperf.h: 100 * _MULTI_BASE - delta / delta time (not normalised) */
        if (n1->multi == 0)
            return PL_ZERO_BASE;
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(interval(n1->second, n0->second, &dt));
        *v = 100.0 * ((double)n1->multi - dn / dt);
        return PL_VALID;
    /* ---- % against a private time base carried in the base counter ---- */
    case PERF_PRECISION_SYSTEM_TIMER:
    case PERF_PRECISION_100NS_TIMER:
    case PERF_PRECISION_OBJECT_TIMER:
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(interval(n1->second, n0->second, &dt));
        *v = 100.0 * dn / dt;
        return PL_VALID;
    /* ---- fractions ---- */
    case PERF_SAMPLE_FRACTION:
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(base_delta(n1->second, n0->second, sz, &db));
        *v = 100.0 * dn / db;
        return PL_VALID;
    case PERF_RAW_FRACTION:
    case PERF_LARGE_RAW_FRACTION:
        if (n1->second == 0)
            return PL_ZERO_BASE;
        *v = 100.0 * (double)n1->first / (double)n1->second;
        return PL_VALID;
    /* ---- averages per operation ---- */
    case PERF_AVERAGE_TIMER:
        if (freq <= 0)
            return PL_INVALID_DATA;
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(base_delta(n1->second, n0->second, sz, &db));
        *v = (dn / (double)freq) / db;
        return PL_VALID;
    case PERF_AVERAGE_BULK:
        TRY(delta(n1->first, n0->first, sz, &dn));
        TRY(base_delta(n1->second, n0->second, sz, &db));
        *v = dn / db;
        return PL_VALID;
    /* ---- single-sample values ---- */
    case PERF_ELAPSED_TIME:
        /* value = start time, second = object time now, both at freq */
        if (freq <= 0)
            return PL_INVALID_DATA;
        if ((int64_t)n1->second < (int64_t)n1->first)
            return PL_NEGATIVE_DELTA;
        *v = (double)((int64_t)n1->second - (int64_t)n1->first) / (double)freq;
        return PL_VALID;
    case PERF_COUNTER_DELTA:
    case PERF_COUNTER_LARGE_DELTA:
        TRY(delta(n1->first, n0->first, sz, &dn));
        *v = dn;
        return PL_VALID;
    case PERF_COUNTER_RAWCOUNT:
    case PERF_COUNTER_RAWCOUNT_HEX:
        *v = sz == 4 ? (double)(uint32_t)n1->first : (double)n1->first;
        return PL_VALID;
    case PERF_COUNTER_LARGE_RAWCOUNT:
    case PERF_COUNTER_LARGE_RAWCOUNT_HEX:
        *v = (double)n1->first;
        return PL_VALID;
    case 0x00012000u: {            /* PERF_DOUBLE_RAW: the bits of a double */
        double d;
        memcpy(&d, &n1->first, sizeof d);
        if (isnan(d))
            return PL_INVALID_DATA;
        *v = d;
        return PL_VALID;
    }
    default:
        break;
    }
    /* Other decimal numbers, e.g. DEC_1000 display */
    if ((type & 0xC00u) == PERF_TYPE_NUMBER && (type & 0xF0000u) == PERF_NUMBER_DEC_1000 &&
        (type & 0x300u) != PERF_SIZE_ZERO && (type & 0x300u) != PERF_SIZE_VARIABLE_LEN) {
        *v = (double)n1->first / 1000.0;
        return PL_VALID;
    }
    return PL_UNSUPPORTED_TYPE;
}

pl_status pl_format_raw(uint32_t type, const pl_raw *newer, const pl_raw *older,
                        int64_t freq, unsigned flags, int scale, double *out)
{
    double v = 0;
    pl_status st;
    *out = 0;
    if (!newer)
        return PL_NO_DATA;
    if (pl_type_needs_two(type) && !older)
        return PL_FIRST_SAMPLE;
    st = compute(type, newer, older ? older : newer, freq, &v);
    if (st != PL_VALID)
        return st;
    if (!isfinite(v))
        return PL_INVALID_DATA;
    if ((type & 0x70000000u) == PERF_DISPLAY_PERCENT && !(flags & PL_FMT_NOCAP100)) {
        if (v > 100.0)
            v = 100.0;
        if (v < 0.0)
            v = 0.0;     /* inverse timers overshoot by rounding, never below zero */
    }
    if (!(flags & PL_FMT_NOSCALE) && scale != 0)
        v *= pow(10.0, scale);
    if (flags & PL_FMT_1000)
        v *= 1000.0;
    *out = v;
    return PL_VALID;
}
