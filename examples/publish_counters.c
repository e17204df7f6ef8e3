/* An application publishing its own counters with libperflib-provider, as a
 * Windows program would with PerfStartProvider and friends:
 *
 *   make build/examples/publish_counters && build/examples/publish_counters [seconds]
 *
 * publishes "Example Requests" (one instance per worker) and updates it in a
 * loop; read it meanwhile with
 *
 *   build/perflua -e 'local perflib = require "perflib"; local q = perflib.query(); q:add "\\Example Requests(*)\\*"
 *     local s0 = q:collect(); os.execute "sleep 1"
 *     for i, v, st, c in q:collect():formatted(s0) do print(c, i, v, st) end'
 *
 * Builds against the installed header alone: pkg-config --cflags --libs perflib-provider. */
#include "perflib_provider.h"
#include "pl_winperf.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORKERS 3

/* The template, laid out as ctrpp generates it: the set, then its counters. */
static struct {
    PERF_COUNTERSET_INFO set;
    PERF_COUNTER_INFO counters[4];
} example_template = {
    { { 0x6a1e0001, 0x7c3d, 0x4b8e, { 0x9a, 0x51, 0x20, 0x11, 0x0c, 0x7e, 0x42, 0x01 } },
      { 0x6a1e0000, 0x7c3d, 0x4b8e, { 0x9a, 0x51, 0x20, 0x11, 0x0c, 0x7e, 0x42, 0x00 } },
      4, PERF_COUNTERSET_MULTI_INSTANCES },
    { { 1, PERF_COUNTER_COUNTER, 0, 8, PERF_DETAIL_NOVICE, 0, 0 },          /* a rate */
      { 2, PERF_COUNTER_RAWCOUNT, 0, 4, PERF_DETAIL_NOVICE, 0, 8 },         /* a level */
      { 3, PERF_AVERAGE_BULK, 0, 8, PERF_DETAIL_ADVANCED, 0, 16 },          /* bytes per request */
      { 4, PERF_AVERAGE_BASE, 0, 4, PERF_DETAIL_ADVANCED, 0, 24 } },        /* its base */
};

static const char *const counter_names[] = { "Requests/sec", "Queue Length", "Bytes/Request", "Bytes/Request Base" };
static const char *const counter_help[] = { "Requests served per second", "Requests waiting",
                                            "Average bytes per request", "Requests counted for the average" };
/* Units and semantics (perflib extension); NULL entries or arrays: from the type. */
static const char *const counter_units[] = { "count", "count", "bytes", "count" };
static const char *const counter_semantics[] = { "counter", "gauge", "counter", "counter" };

int main(int argc, char **argv)
{
    GUID *provider = &example_template.set.ProviderGuid, *set = &example_template.set.CounterSetGuid;
    PERFLIB_COUNTERSET_NAMES names = { "Example Requests", "Requests of the example server", counter_names,
                                       counter_help, counter_units, counter_semantics };
    PPERF_COUNTERSET_INSTANCE worker[WORKERS];
    HANDLE h;
    ULONG e;
    int seconds = argc > 1 ? atoi(argv[1]) : 60;
    if ((e = PerfStartProvider(provider, NULL, &h)) != ERROR_SUCCESS) {
        fprintf(stderr, "PerfStartProvider: error %lu\n", (unsigned long)e);
        return 1;
    }
    e = PerfSetCounterSetInfoEx(h, &example_template.set, sizeof example_template, &names);
    for (int w = 0; !e && w < WORKERS; w++) {
        char name[16];
        snprintf(name, sizeof name, "worker-%d", w + 1);
        worker[w] = PerfCreateInstanceUtf8(h, set, name, (ULONG)w);
        if (!worker[w])
            e = PerfGetLastError();
    }
    if (e) {
        fprintf(stderr, "publishing: error %lu\n", (unsigned long)e);
        PerfStopProvider(h);
        return 1;
    }
    printf("publishing 'Example Requests' in %s for %d s\n", PerfProviderSegmentPath(h), seconds);
    fflush(stdout);
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    for (long i = 0; i < seconds * 100L; i++) {          /* 100 rounds a second */
        for (int w = 0; w < WORKERS; w++) {
            ULONG served = (ULONG)(w + 1);                  /* worker n serves 100 n requests a second */
            PerfIncrementULongLongCounterValue(h, worker[w], 1, served);
            PerfSetULongCounterValue(h, worker[w], 2, (ULONG)((i + w) % 7));
            PerfIncrementULongLongCounterValue(h, worker[w], 3, 512ull * served);
            PerfIncrementULongCounterValue(h, worker[w], 4, served);
        }
        nanosleep(&tick, NULL);
    }
    for (int w = 0; w < WORKERS; w++)
        PerfDeleteInstance(h, worker[w]);
    PerfStopProvider(h);
    return 0;
}
