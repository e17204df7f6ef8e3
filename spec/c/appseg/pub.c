/* A publisher for spec/98-appseg_spec.lua: "MyApp Requests" with
 * instances worker-1 and worker-2.  Each line on stdin "add <n>" adds n
 * requests to worker-1 and answers "ok"; end of input stops the provider.
 * It prints "ready <pid>" when published. */
#include "perflib_provider.h"
#include "pl_winperf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    GUID prov = { 0x9f5e0001, 1, 2, { 3 } };
    struct {
        PERF_COUNTERSET_INFO info;
        PERF_COUNTER_INFO c[2];
    } t = { { { 0x5e7a0001, 0xa995, 0, { 0x12 } }, { 0 }, 2, PERF_COUNTERSET_MULTI_INSTANCES },
            { { 1, PERF_COUNTER_COUNTER, 0, 8, PERF_DETAIL_NOVICE, 0, 0 },
              { 2, PERF_COUNTER_RAWCOUNT, 0, 4, PERF_DETAIL_NOVICE, 0, 8 } } };
    static const char *const names[] = { "Requests/sec", "Active" };
    PERFLIB_COUNTERSET_NAMES nm = { "MyApp Requests", "requests of the spec's publisher", names, NULL, NULL, NULL };
    HANDLE h;
    char line[64];
    unsigned long long n;
    if (PerfStartProvider(&prov, NULL, &h) || PerfSetCounterSetInfoEx(h, &t.info, sizeof t, &nm))
        return 1;
    PPERF_COUNTERSET_INSTANCE w1 = PerfCreateInstance(h, &t.info.CounterSetGuid, u"worker-1", 1);
    PPERF_COUNTERSET_INSTANCE w2 = PerfCreateInstance(h, &t.info.CounterSetGuid, u"worker-2", 2);
    if (!w1 || !w2)
        return 1;
    PerfSetULongCounterValue(h, w1, 2, 3);
    PerfSetULongCounterValue(h, w2, 2, 5);
    printf("ready %ld\n", (long)getpid());
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "add %llu", &n) == 1)
            PerfIncrementULongLongCounterValue(h, w1, 1, n);
        printf("ok\n");
        fflush(stdout);
    }
    PerfStopProvider(h);
    return 0;
}
