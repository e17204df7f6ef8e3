/* NUMA Node Memory: one instance per online node ("0", "1" ..., the node
 * number as id, as Windows names them) from /sys/devices/system/node/online,
 * and "_Total".  Memory comes from nodeN/meminfo ("Node 0 MemFree: 3395144
 * kB"), allocation counts from nodeN/numastat (pages).
 *
 * The kernel keeps no per-node MemAvailable: Available MBytes is
 * approximated as MemFree + Inactive(file) + SReclaimable, which leaves out
 * the watermarks and active file pages that /proc/meminfo's estimate weighs;
 * Standby List MBytes is Inactive(file).  MBytes are kB / 1024 truncated;
 * _Total sums the kB of every node first, and has a value only when every
 * node had it.  The node sums need not equal /proc/meminfo (memory still
 * being onlined, hotplug): the two are never mixed.  Every other line of
 * nodeN/meminfo is a counter too (ids 16 and up, issue 17), in bytes (kB x
 * 1024, exact where MBytes truncate) or pages (HugePages_); lines matched
 * by name, so a kernel or config without one leaves it unset.
 *
 * No /sys/devices/system/node/online (no NUMA sysfs, a container without
 * /sys) is zero instances.  A malformed online file fails the set; a node
 * whose files are missing or malformed keeps its instance with those values
 * unset.  Only complete lines count, so a cut-off file gives no cut-off
 * number.
 *
 * Every counter is a row (pl_rowset.h): the collect parses each node's
 * files into one row (and _Total's sums into another), and the generic
 * walk fills the counters from it. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"

#include <stddef.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    C_TOTAL, C_FREE, C_AVAIL, C_STANDBY, C_FILE, C_ANON, C_SLAB, C_DIRTY,
    C_LOCAL, C_REMOTE, C_HIT, C_MISS, C_FOREIGN, C_INTERLEAVE, C_PLOCAL, C_PLOCAL_BASE,
    C_FIRST_BYTES,           /* 16: the other meminfo lines, in bytes (issue 17) */
    NC = C_FIRST_BYTES + 35
};

/* meminfo keys, in the kernel's order (drivers/base/node.c node_read_meminfo,
 * 6.18); lines of a config option or a later kernel are absent elsewhere */
enum {
    M_TOTAL, M_FREE, M_USED, M_SWAPCACHED, M_ACTIVE, M_INACTIVE, M_ACT_ANON, M_INACT_ANON,
    M_ACT_FILE, M_INACT_FILE, M_UNEVICT, M_MLOCKED, M_HIGHTOTAL, M_HIGHFREE, M_LOWTOTAL,
    M_LOWFREE, M_DIRTY, M_WRITEBACK, M_FILE, M_MAPPED, M_ANON, M_SHMEM, M_KSTACK, M_SCS,
    M_PTABLES, M_SECPT, M_NFS_UNSTABLE, M_BOUNCE, M_WBTMP, M_KRECL, M_SLAB, M_SRECL, M_SUNRECL,
    M_ANONHUGE, M_SHMEMHUGE, M_SHMEMPMD, M_FILEHUGE, M_FILEPMD, M_UNACCEPTED, M_HP_TOTAL,
    M_HP_FREE, M_HP_SURP, NM
};
/* numastat keys */
enum { S_LOCAL, S_OTHER, S_HIT, S_MISS, S_FOREIGN, S_INTERLEAVE, NS };

typedef struct key { const char *k; size_t len; } key;
#define K(s) { s, sizeof s - 1 }
static const key mkeys[NM] = {
    K("MemTotal"), K("MemFree"), K("MemUsed"), K("SwapCached"), K("Active"), K("Inactive"),
    K("Active(anon)"), K("Inactive(anon)"), K("Active(file)"), K("Inactive(file)"),
    K("Unevictable"), K("Mlocked"), K("HighTotal"), K("HighFree"), K("LowTotal"), K("LowFree"),
    K("Dirty"), K("Writeback"), K("FilePages"), K("Mapped"), K("AnonPages"), K("Shmem"),
    K("KernelStack"), K("ShadowCallStack"), K("PageTables"), K("SecPageTables"),
    K("NFS_Unstable"), K("Bounce"), K("WritebackTmp"), K("KReclaimable"), K("Slab"),
    K("SReclaimable"), K("SUnreclaim"), K("AnonHugePages"), K("ShmemHugePages"),
    K("ShmemPmdMapped"), K("FileHugePages"), K("FilePmdMapped"), K("Unaccepted"),
    K("HugePages_Total"), K("HugePages_Free"), K("HugePages_Surp"),
};
static const key skeys[NS] = {
    K("local_node"), K("other_node"), K("numa_hit"), K("numa_miss"), K("numa_foreign"),
    K("interleave_hit"),
};

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define MB(k) PL_DERIVE(PL_BIT(S_MEM), mb_##k)

/* One instance's parsed values, handed to the walk: a node's two files,
 * or _Total's sums. */
typedef struct numa_row {
    uint64_t m[NM];          /* meminfo, kB */
    uint8_t mst[NM];         /* PL_NS_* */
    uint64_t s[NS];          /* numastat, pages */
    uint8_t sst[NS];
} numa_row;

enum { S_MEM, S_NS, NSRC };   /* S_NS: numastat */

static const pl_feed_src srcs[NSRC] = {
    { NULL, offsetof(numa_row, m), offsetof(numa_row, mst), PL_FEED_NO_ST },
    { NULL, offsetof(numa_row, s), offsetof(numa_row, sst), PL_FEED_NO_ST },
};

/* MBytes: kB / 1024, truncated. */
#define MB_FN(k) \
    static int mb_##k(pl_feed_in *in, uint64_t *v) \
    { \
        if (!pl_feed_field(in, S_MEM, k, v)) \
            return 0; \
        *v >>= 10; \
        return 1; \
    }
MB_FN(M_TOTAL)
MB_FN(M_FREE)
MB_FN(M_INACT_FILE)
MB_FN(M_FILE)
MB_FN(M_ANON)
MB_FN(M_SLAB)
MB_FN(M_DIRTY)

/* MemFree + Inactive(file) + SReclaimable, in MiB. */
static int avail_mb(pl_feed_in *in, uint64_t *v)
{
    uint64_t f, i, r;
    if (!pl_feed_field(in, S_MEM, M_FREE, &f) || !pl_feed_field(in, S_MEM, M_INACT_FILE, &i) ||
        !pl_feed_field(in, S_MEM, M_SRECL, &r) || !pl_add_ok(f, i, v) || !pl_add_ok(*v, r, v))
        return 0;
    *v >>= 10;
    return 1;
}

/* local_node, when its base local_node + other_node is known too. */
static int local_share(pl_feed_in *in, uint64_t *v)
{
    uint64_t o, sum;
    return pl_feed_field(in, S_NS, S_LOCAL, v) && pl_feed_field(in, S_NS, S_OTHER, &o) &&
           pl_add_ok(*v, o, &sum);
}

#define NUMA_ROWS(R) \
    R(C_TOTAL, "Total MBytes", "Memory of the node in MiB (nodeN/meminfo MemTotal / 1024).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1048576, DISCRETE), MB(M_TOTAL)) \
    R(C_FREE, "Free & Zero Page List MBytes", "Unused memory of the node in MiB (nodeN/meminfo " \
      "MemFree / 1024).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1048576, GAUGE), MB(M_FREE)) \
    R(C_AVAIL, "Available MBytes", "Approximate memory of the node available without swapping, " \
      "in MiB: nodeN/meminfo MemFree + Inactive(file) + SReclaimable (the kernel has no " \
      "per-node MemAvailable).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1048576, GAUGE), PL_DERIVE(PL_BIT(S_MEM), avail_mb)) \
    R(C_STANDBY, "Standby List MBytes", "Page cache of the node on the inactive list, first to " \
      "be reclaimed, in MiB (nodeN/meminfo Inactive(file) / 1024).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1048576, GAUGE), MB(M_INACT_FILE)) \
    R(C_FILE, "File MBytes", "Page cache of the node in MiB (nodeN/meminfo FilePages / 1024).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1048576, GAUGE), MB(M_FILE)) \
    R(C_ANON, "Anon MBytes", "Anonymous memory of the node in MiB (nodeN/meminfo AnonPages / " \
      "1024).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1048576, GAUGE), MB(M_ANON)) \
    R(C_SLAB, "Slab MBytes", "Kernel slab memory of the node in MiB (nodeN/meminfo Slab / 1024).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1048576, GAUGE), MB(M_SLAB)) \
    R(C_DIRTY, "Dirty MBytes", "File pages of the node waiting to be written back, in MiB " \
      "(nodeN/meminfo Dirty / 1024).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1048576, GAUGE), MB(M_DIRTY)) \
    R(C_LOCAL, "Local Allocations/sec", "Pages allocated on this node by a process running on " \
      "it, per second (nodeN/numastat local_node).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_NS, S_LOCAL)) \
    R(C_REMOTE, "Remote Allocations/sec", "Pages allocated on this node by a process running on " \
      "another node, per second (nodeN/numastat other_node).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_NS, S_OTHER)) \
    R(C_HIT, "NUMA Hits/sec", "Pages allocated on this node as intended, per second " \
      "(nodeN/numastat numa_hit).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_NS, S_HIT)) \
    R(C_MISS, "NUMA Misses/sec", "Pages allocated on this node though another was preferred, per " \
      "second (nodeN/numastat numa_miss).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_NS, S_MISS)) \
    R(C_FOREIGN, "NUMA Foreign/sec", "Pages meant for this node but allocated on another, per " \
      "second (nodeN/numastat numa_foreign).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_NS, S_FOREIGN)) \
    R(C_INTERLEAVE, "Interleave Hits/sec", "Interleaved-policy pages allocated on this node as " \
      "intended, per second (nodeN/numastat interleave_hit).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_NS, S_INTERLEAVE)) \
    R(C_PLOCAL, "% Local Allocations", "Share of the interval's allocations on this node made by " \
      "processes running on it (numastat local_node over local_node + other_node).", \
      PERF_SAMPLE_FRACTION, C_PLOCAL_BASE, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_DERIVE(PL_BIT(S_NS), local_share)) \
    R(C_PLOCAL_BASE, "% Local Allocations Base", "numastat local_node + other_node, the base of " \
      "% Local Allocations.", \
      PERF_SAMPLE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_SUM(S_NS, S_LOCAL, S_OTHER)) \
    R(C_FIRST_BYTES + 0, "Used Bytes", "Memory of the node in use, in bytes (nodeN/meminfo " \
      "MemUsed: MemTotal - MemFree).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_USED)) \
    R(C_FIRST_BYTES + 1, "Swap Cached Bytes", "Pages of the node both in RAM and in swap, in " \
      "bytes (nodeN/meminfo SwapCached).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SWAPCACHED)) \
    R(C_FIRST_BYTES + 2, "Active Bytes", "Memory of the node on the active LRU lists, in " \
      "bytes (nodeN/meminfo Active).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_ACTIVE)) \
    R(C_FIRST_BYTES + 3, "Inactive Bytes", "Memory of the node on the inactive LRU lists, in " \
      "bytes (nodeN/meminfo Inactive).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_INACTIVE)) \
    R(C_FIRST_BYTES + 4, "Active Anon Bytes", "Anonymous memory of the node on the active " \
      "LRU list, in bytes (nodeN/meminfo Active(anon)).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_ACT_ANON)) \
    R(C_FIRST_BYTES + 5, "Inactive Anon Bytes", "Anonymous memory of the node on the " \
      "inactive LRU list, in bytes (nodeN/meminfo Inactive(anon)).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_INACT_ANON)) \
    R(C_FIRST_BYTES + 6, "Active File Bytes", "Page cache of the node on the active LRU " \
      "list, in bytes (nodeN/meminfo Active(file)).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_ACT_FILE)) \
    R(C_FIRST_BYTES + 7, "Unevictable Bytes", "Memory of the node that cannot be reclaimed, " \
      "in bytes (nodeN/meminfo Unevictable).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_UNEVICT)) \
    R(C_FIRST_BYTES + 8, "Mlocked Bytes", "Memory of the node locked with mlock, in bytes " \
      "(nodeN/meminfo Mlocked).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_MLOCKED)) \
    R(C_FIRST_BYTES + 9, "High Total Bytes", "Highmem of the node in bytes (nodeN/meminfo " \
      "HighTotal, 32-bit kernels with CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MEM, M_HIGHTOTAL)) \
    R(C_FIRST_BYTES + 10, "High Free Bytes", "Free highmem of the node in bytes " \
      "(nodeN/meminfo HighFree, CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_HIGHFREE)) \
    R(C_FIRST_BYTES + 11, "Low Total Bytes", "Lowmem of the node in bytes (nodeN/meminfo " \
      "LowTotal, CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MEM, M_LOWTOTAL)) \
    R(C_FIRST_BYTES + 12, "Low Free Bytes", "Free lowmem of the node in bytes (nodeN/meminfo " \
      "LowFree, CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_LOWFREE)) \
    R(C_FIRST_BYTES + 13, "Writeback Bytes", "File pages of the node being written back now, " \
      "in bytes (nodeN/meminfo Writeback).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_WRITEBACK)) \
    R(C_FIRST_BYTES + 14, "Mapped Bytes", "Files of the node mapped into memory, in bytes " \
      "(nodeN/meminfo Mapped).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_MAPPED)) \
    R(C_FIRST_BYTES + 15, "Shared Bytes", "Shared memory and tmpfs pages of the node, in " \
      "bytes (nodeN/meminfo Shmem).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SHMEM)) \
    R(C_FIRST_BYTES + 16, "Kernel Stack Bytes", "Kernel stacks on the node, in bytes " \
      "(nodeN/meminfo KernelStack).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_KSTACK)) \
    R(C_FIRST_BYTES + 17, "Shadow Call Stack Bytes", "Shadow call stacks on the node, in " \
      "bytes (nodeN/meminfo ShadowCallStack, CONFIG_SHADOW_CALL_STACK only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SCS)) \
    R(C_FIRST_BYTES + 18, "Page Table Bytes", "Page tables on the node, in bytes " \
      "(nodeN/meminfo PageTables).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_PTABLES)) \
    R(C_FIRST_BYTES + 19, "Secondary Page Table Bytes", "Secondary page tables such as KVM's " \
      "on the node, in bytes (nodeN/meminfo SecPageTables, kernel 6.1 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SECPT)) \
    R(C_FIRST_BYTES + 20, "NFS Unstable Bytes", "NFS pages of the node not yet committed by " \
      "the server, in bytes (nodeN/meminfo NFS_Unstable; 0 since kernel 5.9).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_NFS_UNSTABLE)) \
    R(C_FIRST_BYTES + 21, "Bounce Bytes", "Bounce buffers on the node, in bytes " \
      "(nodeN/meminfo Bounce).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_BOUNCE)) \
    R(C_FIRST_BYTES + 22, "Writeback Temp Bytes", "FUSE temporary writeback buffers on the " \
      "node, in bytes (nodeN/meminfo WritebackTmp).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_WBTMP)) \
    R(C_FIRST_BYTES + 23, "Kernel Reclaimable Bytes", "Reclaimable kernel allocations on the " \
      "node, in bytes (nodeN/meminfo KReclaimable, kernel 4.20 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_KRECL)) \
    R(C_FIRST_BYTES + 24, "Slab Reclaimable Bytes", "Reclaimable slab memory of the node, in " \
      "bytes (nodeN/meminfo SReclaimable).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SRECL)) \
    R(C_FIRST_BYTES + 25, "Slab Unreclaimable Bytes", "Unreclaimable slab memory of the " \
      "node, in bytes (nodeN/meminfo SUnreclaim).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SUNRECL)) \
    R(C_FIRST_BYTES + 26, "Anon Huge Pages Bytes", "Anonymous memory of the node in " \
      "transparent huge pages, in bytes (nodeN/meminfo AnonHugePages).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_ANONHUGE)) \
    R(C_FIRST_BYTES + 27, "Shmem Huge Pages Bytes", "Shared memory of the node in " \
      "transparent huge pages, in bytes (nodeN/meminfo ShmemHugePages).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SHMEMHUGE)) \
    R(C_FIRST_BYTES + 28, "Shmem Pmd Mapped Bytes", "Shared memory of the node mapped with " \
      "huge pages, in bytes (nodeN/meminfo ShmemPmdMapped).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_SHMEMPMD)) \
    R(C_FIRST_BYTES + 29, "File Huge Pages Bytes", "Page cache of the node in huge pages, in " \
      "bytes (nodeN/meminfo FileHugePages, kernel 5.4 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_FILEHUGE)) \
    R(C_FIRST_BYTES + 30, "File Pmd Mapped Bytes", "Page cache of the node mapped with huge " \
      "pages, in bytes (nodeN/meminfo FilePmdMapped, kernel 5.4 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_FILEPMD)) \
    R(C_FIRST_BYTES + 31, "Unaccepted Bytes", "Memory of the node a confidential guest has " \
      "not accepted yet, in bytes (nodeN/meminfo Unaccepted, kernel 6.5 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MEM, M_UNACCEPTED)) \
    R(C_FIRST_BYTES + 32, "Total Huge Pages", "Default-size hugetlbfs pages on the node " \
      "(nodeN/meminfo HugePages_Total).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_MEM, M_HP_TOTAL)) \
    R(C_FIRST_BYTES + 33, "Free Huge Pages", "Unallocated hugetlbfs pages on the node " \
      "(nodeN/meminfo HugePages_Free).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_MEM, M_HP_FREE)) \
    R(C_FIRST_BYTES + 34, "Surplus Huge Pages", "Hugetlbfs pages on the node above the " \
      "pool's size (nodeN/meminfo HugePages_Surp).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_MEM, M_HP_SURP))


static const pl_counter_def counters[] = { NUMA_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { NUMA_ROWS(PL_ROW_FEED) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

#define ONLINE "sys/devices/system/node/online"
#define MAX_NODES 4096
#define TOTAL_ID 0xFFFFFFFEu

typedef struct node {
    pl_file meminfo, numastat;
    char name[12];
} node;

typedef struct numa_state {
    pl_env *env;
    pl_file online;
    int no_numa;
    node *n;                 /* indexed by node number */
    uint32_t cap;
    uint32_t *list, nlist, listcap;   /* online nodes of this read */
} numa_state;

static int numa_open(pl_env *env, void **state)
{
    numa_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_file_init(&s->online);
    *state = s;
    return 0;
}

static void numa_close(void *state)
{
    numa_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->cap; i++) {
        pl_file_close(&s->n[i].meminfo);
        pl_file_close(&s->n[i].numastat);
    }
    free(s->n);
    free(s->list);
    pl_file_close(&s->online);
    pl_env_unref(s->env);
    free(s);
}

static int push_node(numa_state *s, uint64_t v)
{
    if (v >= MAX_NODES || s->nlist >= MAX_NODES)
        return EINVAL;
    if (s->nlist == s->listcap) {
        uint32_t nc = s->listcap ? s->listcap * 2 : 8;
        uint32_t *nl = realloc(s->list, nc * sizeof *nl);
        if (!nl)
            return ENOMEM;
        s->list = nl;
        s->listcap = nc;
    }
    if (v >= s->cap) {
        uint32_t nc = (uint32_t)v + 1;
        node *nn = realloc(s->n, nc * sizeof *nn);
        if (!nn)
            return ENOMEM;
        for (uint32_t i = s->cap; i < nc; i++) {
            pl_file_init(&nn[i].meminfo);
            pl_file_init(&nn[i].numastat);
            snprintf(nn[i].name, sizeof nn[i].name, "%u", (unsigned)i);
        }
        s->n = nn;
        s->cap = nc;
    }
    s->list[s->nlist++] = (uint32_t)v;
    return 0;
}

/* "0-1,3\n": a list of nodes or ranges, ascending.  0, ENOENT (no NUMA
 * sysfs), or an errno for the set. */
static int read_online(numa_state *s)
{
    const char *p;
    int e;
    s->nlist = 0;
    if (s->no_numa)
        return ENOENT;
    e = pl_file_read(&s->online, s->env, ONLINE);
    if (e == ENOENT || e == ENOTDIR) {
        s->no_numa = 1;
        return ENOENT;
    }
    if (e)
        return e;
    p = s->online.buf;
    for (;;) {
        uint64_t a, b;
        if (*p < '0' || *p > '9' || pl_parse_u64(&p, &a))
            return EINVAL;
        b = a;
        if (*p == '-') {
            p++;
            if (*p < '0' || *p > '9' || pl_parse_u64(&p, &b) || b < a || b >= MAX_NODES)
                return EINVAL;
        }
        if (s->nlist && a <= s->list[s->nlist - 1])
            return EINVAL;   /* not ascending: not the kernel's format */
        for (uint64_t v = a; v <= b; v++)
            if ((e = push_node(s, v)) != 0)
                return e;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\n')
            p++;
        return *p ? EINVAL : 0;
    }
}

static int add_nodes(numa_state *s, pl_snapshot *snap)
{
    for (uint32_t i = 0; i < s->nlist; i++)
        if (pl_snap_add(snap, s->n[s->list[i]].name, s->list[i]) < 0)
            return ENOMEM;
    if (s->nlist && pl_snap_add(snap, "_Total", TOTAL_ID) < 0)
        return ENOMEM;
    return 0;
}

static int fill(numa_state *s, pl_snapshot *snap)
{
    int e;
    pl_snap_clear(snap);
    e = read_online(s);
    if (e == ENOENT)
        return 0;            /* no NUMA sysfs: no instances */
    if (e) {
        snap->err_path = ONLINE;
        return e;
    }
    return add_nodes(s, snap);
}

static int numa_instances(void *state, pl_snapshot *snap)
{
    return fill(state, snap);
}

/* Parses "Node N Key: value kB" (meminfo, prefix 1) or "key value"
 * (numastat) lines into v[] and st[] (PL_NS_*): the first line of a key
 * counts. */
static void parse_keys(const char *buf, int prefix, const key *keys, int nk, uint64_t *v,
                       uint8_t *st)
{
    const char *nl;
    int next = 0;
    memset(st, PL_NS_ABSENT, (size_t)nk);
    for (const char *p = buf; *p; p = nl + 1) {
        const char *end;
        size_t klen;
        nl = strchr(p, '\n');
        if (!nl)
            break;           /* cut-off last line */
        if (prefix) {
            uint64_t num;
            if (strncmp(p, "Node ", 5) != 0)
                continue;
            p += 5;
            if (pl_parse_u64(&p, &num) || *p != ' ')
                continue;
            while (*p == ' ')
                p++;
        }
        end = p;
        while (end < nl && *end != ':' && *end != ' ')
            end++;
        klen = (size_t)(end - p);
        /* from the key after the last match: the kernel's order costs one
         * compare a line */
        for (int n = 0, k = next; n < nk; n++, k = k + 1 == nk ? 0 : k + 1) {
            if (keys[k].len != klen || memcmp(p, keys[k].k, klen) != 0)
                continue;
            if (st[k] == PL_NS_ABSENT)
                st[k] = pl_parse_kb_line(*end == ':' ? end + 1 : end, &v[k]) ? PL_NS_OK : PL_NS_BAD;
            next = k + 1 == nk ? 0 : k + 1;
            break;
        }
    }
}

/* Adds n values into the total t: a total has a value only when every
 * node had it. */
static void add_total(uint64_t *t, uint8_t *tst, const uint64_t *v, const uint8_t *st, int n)
{
    for (int k = 0; k < n; k++)
        if (st[k] != PL_NS_OK || !pl_add_ok(t[k], v[k], &t[k]))
            tst[k] = PL_NS_BAD;
}

/* Reads file `name` of node nid (f) into v, st. */
static void read_node_file(numa_state *s, pl_file *f, const char *name, uint32_t nid, int prefix,
                           const key *keys, int nk, uint64_t *v, uint8_t *st)
{
    char rel[64] = "";
    if (f->fd < 0)
        snprintf(rel, sizeof rel, "sys/devices/system/node/node%u/%s", (unsigned)nid, name);
    if (pl_file_read(f, s->env, rel) == 0)
        parse_keys(f->buf, prefix, keys, nk, v, st);
    else
        memset(st, PL_NS_ABSENT, (size_t)nk);
}

static int numa_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    numa_state *s = state;
    uint32_t need = pl_feed_need(feeds, NC, wanted);
    int e, want_m = (need & PL_BIT(S_MEM)) != 0, want_s = (need & PL_BIT(S_NS)) != 0;
    numa_row row, tot;
    pl_feed_in in;
    if ((e = fill(s, snap)) != 0 || s->nlist == 0)
        return e;
    memset(&tot, 0, sizeof tot);
    memset(tot.mst, PL_NS_OK, sizeof tot.mst);
    memset(tot.sst, PL_NS_OK, sizeof tot.sst);
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i <= s->nlist; i++) {
        numa_row *r = &row;
        if (i == s->nlist) {
            r = &tot;        /* _Total, the last instance */
        } else {
            node *n = &s->n[s->list[i]];
            if (want_m)
                read_node_file(s, &n->meminfo, "meminfo", s->list[i], 1, mkeys, NM, row.m,
                               row.mst);
            if (want_s)
                read_node_file(s, &n->numastat, "numastat", s->list[i], 0, skeys, NS, row.s,
                               row.sst);
            if (want_m)
                add_total(tot.m, tot.mst, row.m, row.mst, NM);
            if (want_s)
                add_total(tot.s, tot.sst, row.s, row.sst, NS);
        }
        pl_feed_put(&in, S_MEM, want_m ? r : NULL);
        pl_feed_put(&in, S_NS, want_s ? r : NULL);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

static const pl_provider_ops numa_ops = { numa_open, numa_close, numa_instances, numa_collect, NULL, NULL };

const pl_counterset_def pl_numa_def = {
    {0xdf7d9d95, 0x28c0, 0x5132, {0x87, 0xe8, 0xd2, 0x8c, 0xc0, 0x8c, 0xa5, 0x65}},
    "NUMA Node Memory",
    "Memory and allocation counts of each online NUMA node and their sum, from "
    "/sys/devices/system/node; no instances without NUMA sysfs.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &numa_ops, 18000, NULL,
};
