/* Countersets a test publishes through the registry's door, as a plug-in or
 * an application would: one instance, two counters whose raw values the
 * provider knows (DOOR_TICKS, DOOR_EVENTS), so a collect can be checked. */
#ifndef CTEST_DOOR_H
#define CTEST_DOOR_H

#include "perflib.h"
#include "pl_provider.h"

#define DOOR_TICKS 42u
#define DOOR_EVENTS 5000000000u

static const pl_counter_def door_counters[] = {
    { 0, "Ticks", "Ticks seen.", PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 4, 0, 0, 0 },
    { 1, "Events", "Events seen.", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
};

static int door_open(pl_env *env, void **st)
{
    (void)env;
    *st = NULL;
    return 0;
}

static void door_close(void *st) { (void)st; }

static int door_collect(void *st, const uint8_t *wanted, pl_snapshot *snap)
{
    int e = pl_single_instance(st, snap);
    (void)wanted;
    if (e)
        return e;
    pl_snap_set(snap, 0, 0, DOOR_TICKS);
    pl_snap_set(snap, 0, 1, DOOR_EVENTS);
    return 0;
}

static const pl_provider_ops door_ops = { door_open, door_close, pl_single_instance, door_collect, NULL, NULL };

/* A single-instance set named name with GUID d1-0000-4000-8000-<d4 tail>. */
#define DOOR_SET(d1, tail, name, index)                                                    \
    { { (d1), 0x0000, 0x4000, { 0x80, 0x00, 0, 0, 0, 0, (uint8_t)((tail) >> 8),            \
                                (uint8_t)(tail) } },                                       \
      (name), "A set published by a test.", PERF_COUNTERSET_SINGLE_INSTANCE, 0,            \
      2, door_counters, &door_ops, (index), NULL }

#endif
