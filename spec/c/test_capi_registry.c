/* libperflib bundles the built-in families and registers them itself,
 * through the same door as everyone else (issue 11, item 6): nothing is
 * registered before its first call, then every built-in set is there at its
 * fixed title index (1000, 2000, ... in catalog order), and a set an
 * application published before or after is enumerated next to them. */
#include "ctest.h"
#include "ctest_door.h"
#include "perflib_v2.h"
#include "providers.h"

#include <string.h>

static const pl_counterset_def app = DOOR_SET(0x7e57a001, 1, "Door App", PL_INDEX_ASSIGN);
static const pl_counterset_def late = DOOR_SET(0x7e57a002, 2, "Door Late App", PL_INDEX_ASSIGN);

static int has_guid(const GUID *ids, DWORD n, const pl_guid *g)
{
    for (DWORD i = 0; i < n; i++)
        if (ids[i].Data1 == g->d1 && ids[i].Data2 == g->d2 && ids[i].Data3 == g->d3 &&
            memcmp(ids[i].Data4, g->d4, 8) == 0)
            return 1;
    return 0;
}

static void test_builtin_indexes(void)
{
    static const pl_counterset_def *const first[] = { &pl_processor_def, &pl_memory_def,
                                                      &pl_system_def };
    const pl_counterset_def *def = NULL;
    GUID ids[64];
    DWORD n = 0;
    CHECK_EQ_U64(pl_registered_count(), 0);          /* nothing before the first call */
    CHECK(pl_register_counterset(&app, &def, NULL, 0) == 0 && def);
    CHECK(PerfEnumerateCounterSet(NULL, ids, 64, &n) == ERROR_SUCCESS);
    CHECK_EQ_U64(n, 40);                              /* the application's + 39 built-in */
    CHECK_EQ_U64(pl_registered_count(), 40);
    CHECK(def && has_guid(ids, n, &def->guid) && has_guid(ids, n, &pl_processor_def.guid));
    /* the built-in sets, after the application's, at 1000 .. 36000 in catalog order */
    for (uint32_t k = 1; k < 37; k++) {
        const pl_counterset_def *cs = pl_registered(k);
        CHECK(cs != NULL);
        if (cs)
            CHECK_EQ_U64(cs->index, 1000u * k);
    }
    for (uint32_t k = 0; k < 3; k++)
        CHECK(pl_registered(k + 1) == first[k]);       /* their own definitions, not copies */
    CHECK_STR(pl_registered(1)->name, "Processor Information");
    CHECK_STR(pl_registered(28)->name, "ICMPv6");
    CHECK_STR(pl_registered(29)->name, "Processor");
    CHECK_STR(pl_registered(30)->name, "Softnet");
    CHECK_STR(pl_registered(31)->name, "Conntrack");
    CHECK_STR(pl_registered(32)->name, "Buddy Allocator");
    CHECK_STR(pl_registered(33)->name, "KSM");
    CHECK_STR(pl_registered(34)->name, "Slab Caches");
    CHECK_STR(pl_registered(35)->name, "Scheduler");
    CHECK_STR(pl_registered(36)->name, "NFS Server");
    /* issue 17's hardware sets at 44000 and up (37000-43000 are other engineers') */
    CHECK_STR(pl_registered(37)->name, "Energy Meter");
    CHECK_EQ_U64(pl_registered(37)->index, 44000);
    CHECK_STR(pl_registered(38)->name, "Cooling Device");
    CHECK_EQ_U64(pl_registered(38)->index, 45000);
    CHECK_STR(pl_registered(39)->name, "EDAC Memory Controller");
    CHECK_EQ_U64(pl_registered(39)->index, 46000);
    /* a second call registers nothing more */
    CHECK(PerfEnumerateCounterSet(NULL, ids, 64, &n) == ERROR_SUCCESS && n == 40);
    CHECK_EQ_U64(pl_registered_count(), 40);
    /* a set published after the first call is seen by the next one */
    CHECK(pl_register_counterset(&late, &def, NULL, 0) == 0 && def);
    CHECK(PerfEnumerateCounterSet(NULL, ids, 64, &n) == ERROR_SUCCESS);
    CHECK_EQ_U64(n, 41);
    CHECK(def && has_guid(ids, n, &def->guid));
}

int main(void)
{
    RUN(test_builtin_indexes);
    return CT_END();
}
