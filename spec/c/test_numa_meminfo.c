/* NUMA Node Memory's node meminfo lines of issue 17 (ids 16 and up) and
 * numastat, on spec/fixtures/numa-full: two nodes of a 6.18 x86-64 kernel
 * with CONFIG_UNACCEPTED_MEMORY, laid out as drivers/base/node.c
 * (node_read_meminfo, node_read_numastat) prints them; node1's Writeback
 * is garbage.  kB x 1024 beside each check; _Total is the sum of the
 * nodes' kB and has a value only when every node had it.  Then the line
 * order (found by name), a wanted mask and this machine. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <string.h>

#define FX "spec/fixtures/numa-full"
#define KB 1024ull

static void test_nodes(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "NUMA Node Memory", 0, 0, NULL, &s) == 0);
    NAMES(&s, "0", "1", "_Total");
    EXPECT(&s, "0", "Used Bytes", 12582912 * KB);             /* 12 GiB = 12884901888 */
    EXPECT(&s, "1", "Used Bytes", 2621440 * KB);              /* 2684354560 */
    EXPECT(&s, "_Total", "Used Bytes", (12582912 + 2621440) * KB);   /* 15204352 kB */
    EXPECT(&s, "0", "Swap Cached Bytes", 1024 * KB);
    EXPECT(&s, "_Total", "Swap Cached Bytes", (1024 + 0) * KB);
    EXPECT(&s, "0", "Active Bytes", 6291456 * KB);
    EXPECT(&s, "0", "Inactive Bytes", 4194304 * KB);
    EXPECT(&s, "_Total", "Active Anon Bytes", (2097152 + 131072) * KB);  /* 2228224 kB */
    EXPECT(&s, "_Total", "Inactive Anon Bytes", (524288 + 65536) * KB);
    EXPECT(&s, "1", "Active File Bytes", 393216 * KB);
    EXPECT(&s, "0", "Unevictable Bytes", 16384 * KB);
    EXPECT(&s, "0", "Mlocked Bytes", 8192 * KB);
    EXPECT(&s, "0", "Writeback Bytes", 512 * KB);             /* 524288 */
    UNSET(&s, "1", "Writeback Bytes");                        /* "12x4 kB" */
    UNSET(&s, "_Total", "Writeback Bytes");                   /* node1 had none */
    EXPECT(&s, "1", "Dirty MBytes", 0);                       /* 64 / 1024: its neighbour is fine */
    EXPECT(&s, "_Total", "Mapped Bytes", (262144 + 32768) * KB);
    EXPECT(&s, "_Total", "Shared Bytes", (65536 + 4096) * KB);
    EXPECT(&s, "_Total", "Kernel Stack Bytes", (12288 + 6144) * KB);  /* 18432 kB */
    EXPECT(&s, "0", "Page Table Bytes", 32768 * KB);
    EXPECT(&s, "0", "Secondary Page Table Bytes", 2048 * KB);
    EXPECT(&s, "0", "NFS Unstable Bytes", 0);
    EXPECT(&s, "0", "Bounce Bytes", 4 * KB);
    EXPECT(&s, "0", "Writeback Temp Bytes", 8 * KB);
    EXPECT(&s, "_Total", "Kernel Reclaimable Bytes", (786432 + 131072) * KB);   /* 917504 kB */
    EXPECT(&s, "_Total", "Slab Reclaimable Bytes", (786432 + 131072) * KB);
    EXPECT(&s, "_Total", "Slab Unreclaimable Bytes", (262144 + 65536) * KB);
    EXPECT(&s, "0", "Anon Huge Pages Bytes", 409600 * KB);    /* 200 x 2 MiB */
    EXPECT(&s, "0", "Shmem Huge Pages Bytes", 20480 * KB);
    EXPECT(&s, "0", "Shmem Pmd Mapped Bytes", 10240 * KB);
    EXPECT(&s, "0", "File Huge Pages Bytes", 6144 * KB);
    EXPECT(&s, "0", "File Pmd Mapped Bytes", 2048 * KB);
    EXPECT(&s, "0", "Unaccepted Bytes", 131072 * KB);
    EXPECT(&s, "_Total", "Unaccepted Bytes", (131072 + 0) * KB);
    EXPECT(&s, "0", "Total Huge Pages", 256);                 /* pages, not kB */
    EXPECT(&s, "_Total", "Total Huge Pages", 256 + 256);
    EXPECT(&s, "_Total", "Free Huge Pages", 192 + 250);
    EXPECT(&s, "0", "Surplus Huge Pages", 4);
    EXPECT(&s, "_Total", "Surplus Huge Pages", 4 + 0);
    /* lines of other configs: none here */
    UNSET(&s, "0", "High Total Bytes");
    UNSET(&s, "0", "Low Free Bytes");
    UNSET(&s, "_Total", "Shadow Call Stack Bytes");
    /* the counters of before, from the same files */
    EXPECT(&s, "_Total", "Total MBytes", (33554432 + 33030144) / 1024);   /* 65024 */
    EXPECT(&s, "0", "NUMA Hits/sec", 81234567);
    EXPECT(&s, "_Total", "NUMA Misses/sec", 1234 + 4321);
    EXPECT(&s, "_Total", "NUMA Foreign/sec", 4321 + 1234);
    EXPECT(&s, "1", "Interleave Hits/sec", 20471);
    EXPECT(&s, "_Total", "Local Allocations/sec", 81200000 + 3450000);
    EXPECT(&s, "_Total", "Remote Allocations/sec", 35801 + 11110);
    pl_snap_free(&s);
}

/* Lines in another order are found by name; a repeated key keeps its
 * first value; a wanted mask reads meminfo alone. */
static void test_order_and_wanted(void)
{
    const char *root = tmp("numa-order");
    static const char *const only[] = { "Writeback Bytes", NULL };
    pl_snapshot s;
    pctx p;
    uint8_t *w;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "sys/devices/system/node/online", "0\n") == 1);
    CHECK(put(root, "sys/devices/system/node/node0/meminfo",
              "Node 0 HugePages_Surp:  3\nNode 0 Writeback:  20 kB\nNode 0 MemUsed:  100 kB\n"
              "Node 0 Writeback:  99 kB\nNode 0 GPUActive:  7 kB\nNode 0 Mlocked:  5 kB\n") == 1);
    CHECK(put(root, "sys/devices/system/node/node0/numastat", "numa_hit 9\n") == 1);
    CHECK(pc_collect_tree(root, "NUMA Node Memory", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "0", "Surplus Huge Pages", 3);
    EXPECT(&s, "0", "Writeback Bytes", 20 * KB);              /* the first line counts */
    EXPECT(&s, "0", "Used Bytes", 100 * KB);
    EXPECT(&s, "0", "Mlocked Bytes", 5 * KB);                 /* an unknown key takes nothing */
    UNSET(&s, "0", "Total MBytes");
    EXPECT(&s, "0", "NUMA Hits/sec", 9);
    pl_snap_free(&s);
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, root, "NUMA Node Memory", 0, 0) == 0);
    w = want_only(p.cs, only);
    CHECK(w != NULL && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "0", "Writeback Bytes", 20 * KB);
    UNSET(&s, "0", "NUMA Hits/sec");                          /* numastat not read */
    pl_snap_free(&s);
    pc_close(&p);
    free(w);
}

/* This machine: node 0's lines add up as the kernel prints them. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t used, total, mb;
    CHECK(pc_collect_tree("/", "NUMA Node Memory", 0, 0, NULL, &s) == 0);
    if (s.ninst == 0) {
        printf("  (no NUMA sysfs here: zero instances)\n");
        pl_snap_free(&s);
        return;
    }
    CHECK(get(&s, "0", "Used Bytes", &used) && get(&s, "0", "Total MBytes", &mb));
    total = mb << 20;
    CHECK(used > 0 && used <= total + (1u << 20));            /* MBytes truncate */
    CHECK(get(&s, "_Total", "Kernel Stack Bytes", &used) && used > 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_numa_meminfo");
    RUN(test_nodes);
    RUN(test_order_and_wanted);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
