/* Application countersets through libperflib's PerfLib V2 C API, as a
 * Windows consumer would reach them: a set published before the first call
 * and one published after it are both enumerated by name and collected
 * with PerfQueryCounterData (the library enables discovery, and each call's
 * machine syncs, which runs it). */
#include "ctest.h"
#include "capi_read.h"
#include "perflib_v2.h"
#include "perflib_provider.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/perflib-appseg-capi-XXXXXX";

/* A single-instance set with one counter (id 3, 8 bytes) set to v. */
static HANDLE publish(uint32_t d1, const char *name, uint64_t v, GUID *set)
{
    GUID prov = { d1 ^ 0xff, 1, 2, { 3 } };
    struct {
        PERF_COUNTERSET_INFO info;
        PERF_COUNTER_INFO c[1];
    } t = { { { d1, 0xa995, 0, { 0x12 } }, { 0 }, 1, PERF_COUNTERSET_SINGLE_INSTANCE },
            { { 3, PERF_COUNTER_LARGE_RAWCOUNT, 0, 8, PERF_DETAIL_NOVICE, 0, 0 } } };
    static const char *const names[] = { "Total" };
    PERFLIB_COUNTERSET_NAMES nm = { name, NULL, names, NULL, NULL, NULL };
    HANDLE h = NULL;
    *set = t.info.CounterSetGuid;
    if (PerfStartProvider(&prov, NULL, &h) || PerfSetCounterSetInfoEx(h, &t.info, sizeof t, &nm))
        return NULL;
    PPERF_COUNTERSET_INSTANCE i = PerfCreateInstanceUtf8(h, set, "_Default", 0);
    if (!i || PerfSetULongLongCounterValue(h, i, 3, v))
        return NULL;
    return h;
}

/* Whether PerfEnumerateCounterSet lists guid. */
static int listed(const GUID *guid)
{
    GUID ids[512];
    DWORD n = 0;
    if (PerfEnumerateCounterSet(NULL, ids, 512, &n) != ERROR_SUCCESS)
        return 0;
    for (DWORD i = 0; i < n; i++)
        if (memcmp(&ids[i], guid, sizeof *guid) == 0)
            return 1;
    return 0;
}

static void test_v2_api_sees_application_sets(void)
{
    GUID early, late;
    int ok = 0;
    HANDLE a = publish(0xc0000001, "Capi Early", 77, &early);
    CHECK(a != NULL);
    CHECK(listed(&early));
    CHECK_EQ_U64(capi_single_value(&early, 3, &ok), 77);
    CHECK(ok);
    HANDLE b = publish(0xc0000002, "Capi Late", 88, &late);   /* after the library's first call */
    CHECK(b != NULL);
    CHECK(listed(&late));
    CHECK_EQ_U64(capi_single_value(&late, 3, &ok), 88);
    CHECK(ok);
    PerfStopProvider(a);
    PerfStopProvider(b);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 2;
    setenv("PERFLIB_APPSEG_DIR", dir, 1);
    RUN(test_v2_api_sees_application_sets);
    rmdir(dir);
    return CT_END();
}
