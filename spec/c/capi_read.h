/* One counter of a single-instance set read through libperflib's V2 API, as
 * a Windows consumer reads it: for the C API tests of sets that are not
 * built in (plug-ins, application providers). */
#ifndef CAPI_READ_H
#define CAPI_READ_H

#include "perflib_v2.h"

#include <stdint.h>
#include <string.h>

static inline uint32_t capi_u32(const uint8_t *p, size_t off)
{
    uint32_t v;
    memcpy(&v, p + off, 4);
    return v;
}

/* Counter `counter` of the single-instance set on machine (NULL: this one)
 * through PerfAddCounters and PerfQueryCounterData: its raw value, *ok 1
 * when the block says valid. */
static inline uint64_t capi_machine_value(LPCWSTR machine, const GUID *set, ULONG counter, int *ok)
{
    HANDLE h;
    PERF_COUNTER_IDENTIFIER id;
    uint8_t data[4096];
    DWORD size = 0;
    uint64_t v = 0;
    *ok = 0;
    if (PerfOpenQueryHandle(machine, &h) != ERROR_SUCCESS)
        return 0;
    memset(&id, 0, sizeof id);
    id.CounterSetGuid = *set;
    id.Size = sizeof id;
    id.CounterId = counter;
    id.InstanceId = 0xFFFFFFFFu;
    if (PerfAddCounters(h, &id, sizeof id) == ERROR_SUCCESS && id.Status == ERROR_SUCCESS &&
        PerfQueryCounterData(h, (PPERF_DATA_HEADER)(void *)data, sizeof data, &size) == ERROR_SUCCESS) {
        /* PERF_DATA_HEADER (48), PERF_COUNTER_HEADER (16), PERF_COUNTER_DATA (8), the value */
        uint32_t status = capi_u32(data, 48), type = capi_u32(data, 52), dsize = capi_u32(data, 64);
        if (status == ERROR_SUCCESS && type == PERF_SINGLE_COUNTER && (dsize == 4 || dsize == 8)) {
            v = dsize == 4 ? capi_u32(data, 72) : (capi_u32(data, 72) | (uint64_t)capi_u32(data, 76) << 32);
            *ok = 1;
        }
    }
    PerfCloseQueryHandle(h);
    return v;
}

static inline uint64_t capi_single_value(const GUID *set, ULONG counter, int *ok)
{
    return capi_machine_value(NULL, set, counter, ok);
}

#endif
