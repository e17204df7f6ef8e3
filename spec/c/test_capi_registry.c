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

/* The sets after NFS Server (36000), in catalog order: title indexes are
 * never reused, so a set's number stays even where the catalog has gaps. */
static const struct { uint32_t index; const char *name; } later[] = {
    { 37000, "Disk Partition" }, { 38000, "NFS RPC Client" }, { 39000, "MD RAID" },
    { 40000, "UDPLitev4" }, { 41000, "UDPLitev6" }, { 42000, "UDP Queues" }, { 43000, "Bonding" },
    { 44000, "Energy Meter" }, { 45000, "Cooling Device" }, { 46000, "EDAC Memory Controller" }, { 47000, "Clock" }, { 48000, "Watchdog" },
    { 49000, "GPU Device" }, { 50000, "GPU Adapter Memory" }, { 51000, "GPU Engine" },
    { 52000, "GPU Process Memory" },
    { 53000, "Task States" }, { 54000, "Container" }, { 55000, "IPVS" }, { 56000, "ARP Cache" },
    { 57000, "ZRAM" }, { 58000, "NVMe Controller" }, { 59000, "InfiniBand" }, { 60000, "Fibre Channel" },
    { 61000, "SCSI Tape" }, { 62000, "TCP States" },
    { 63000, "XFS" }, { 64000, "Btrfs" }, { 65000, "Bcache" }, { 66000, "Bcache Device" },
    { 67000, "ZFS" }, { 68000, "ZFS Pool" }, { 69000, "ZFS Dataset" },
    { 70000, "IPVS Backend" }, { 71000, "IPC" }, { 72000, "VFS" }, { 73000, "Btrfs Device" },
};
#define NLATER (sizeof later / sizeof later[0])
#define NBUILTIN (36 + NLATER)

static void test_builtin_indexes(void)
{
    static const pl_counterset_def *const first[] = { &pl_processor_def, &pl_memory_def,
                                                      &pl_system_def };
    const pl_counterset_def *def = NULL;
    GUID ids[128];
    DWORD n = 0;
    CHECK_EQ_U64(pl_registered_count(), 0);          /* nothing before the first call */
    CHECK(pl_register_counterset(&app, &def, NULL, 0) == 0 && def);
    CHECK(PerfEnumerateCounterSet(NULL, ids, 128, &n) == ERROR_SUCCESS);
    CHECK_EQ_U64(n, 1 + NBUILTIN);                   /* the application's + the built-in */
    CHECK_EQ_U64(pl_registered_count(), 1 + NBUILTIN);
    CHECK(def && has_guid(ids, n, &def->guid) && has_guid(ids, n, &pl_processor_def.guid));
    /* the built-in sets, after the application's: 1000 .. 36000 in catalog order, then the later ones */
    for (uint32_t k = 1; k <= NBUILTIN; k++) {
        const pl_counterset_def *cs = pl_registered(k);
        CHECK(cs != NULL);
        if (cs && k <= 36)
            CHECK_EQ_U64(cs->index, 1000u * k);
        if (cs && k > 36) {
            CHECK_EQ_U64(cs->index, later[k - 37].index);
            CHECK_STR(cs->name, later[k - 37].name);
        }
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
    /* a second call registers nothing more */
    CHECK(PerfEnumerateCounterSet(NULL, ids, 128, &n) == ERROR_SUCCESS && n == 1 + NBUILTIN);
    CHECK_EQ_U64(pl_registered_count(), 1 + NBUILTIN);
    /* a set published after the first call is seen by the next one */
    CHECK(pl_register_counterset(&late, &def, NULL, 0) == 0 && def);
    CHECK(PerfEnumerateCounterSet(NULL, ids, 128, &n) == ERROR_SUCCESS);
    CHECK_EQ_U64(n, 2 + NBUILTIN);
    CHECK(def && has_guid(ids, n, &def->guid));
}

int main(void)
{
    RUN(test_builtin_indexes);
    return CT_END();
}
