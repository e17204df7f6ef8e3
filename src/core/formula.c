/* Formatted values from raw values, per counter type: the home of every
 * PerfLib formula.  Each result carries a status; no status means no number. */
#include "perflib.h"
#include "formula_impl.h"

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

/* Named types, plus numbers displayed /1000 (PERF_NUMBER_DEC_1000), which
 * winperf.h composes but does not name. */
int pl_type_known(uint32_t type)
{
    return pl_type_name(type) != NULL ||
           type == (PERF_SIZE_DWORD | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000) ||
           type == (PERF_SIZE_LARGE | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000);
}

int pl_type_needs_two(uint32_t type)
{
    return pl_kind_needs_two(pl_kind_of(type));
}

static const char *const status_names[PL_STATUS_COUNT] = {
    "valid", "first_sample", "negative_delta", "zero_interval", "negative_interval",
    "zero_base", "no_instance", "no_data", "invalid_data", "unsupported_type", "no_access",
};

const char *pl_status_name(pl_status st)
{
    return (unsigned)st < PL_STATUS_COUNT ? status_names[st] : "invalid_data";
}

pl_status pl_format_raw(uint32_t type, const pl_raw *newer, const pl_raw *older,
                        int64_t freq, unsigned flags, int scale, double *out)
{
    pl_kind k = pl_kind_of(type);
    *out = 0;
    if (!newer)
        return PL_NO_DATA;
    if (pl_kind_needs_two(k) && !older)
        return PL_FIRST_SAMPLE;
    return pl_compute(k, newer, older ? older : newer, freq, pl_cap_of(type, flags),
                      pl_mult_of(flags, scale), out);
}

pl_status pl_statistics(uint32_t type, const pl_raw *raws, size_t n, size_t first,
                        int64_t freq, unsigned flags, int scale, pl_stats *out)
{
    int two = pl_type_needs_two(type);
    pl_status last = two ? PL_FIRST_SAMPLE : PL_NO_DATA;
    double sum = 0;
    memset(out, 0, sizeof *out);
    if (!raws || n == 0 || first >= n)
        return PL_NO_DATA;
    /* oldest at first, wrapping round to the newest at first - 1 */
    for (size_t k = two ? 1 : 0; k < n; k++) {
        const pl_raw *r1 = &raws[(first + k) % n];
        const pl_raw *r0 = two ? &raws[(first + k - 1) % n] : NULL;
        double v;
        pl_status st = pl_format_raw(type, r1, r0, freq, flags, scale, &v);
        if (st != PL_VALID) {
            last = st;
            continue;
        }
        if (out->count == 0 || v < out->min)
            out->min = v;
        if (out->count == 0 || v > out->max)
            out->max = v;
        sum += v;
        out->count++;
    }
    if (out->count == 0)
        return last;
    out->mean = sum / (double)out->count;
    return PL_VALID;
}
