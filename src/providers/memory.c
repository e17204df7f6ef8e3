/* Memory counterset (single instance): /proc/meminfo and /proc/vmstat, the
 * machine's kernel sources (meminfo.h), each read once per collect.
 *
 * Error policy, shared with system.c: each file is one source (pl_sources).
 * A file that cannot be read, or is empty, leaves only the counters built
 * from it unset; the set fails (errno, err_path) only when every file the
 * wanted counters need failed.  A single value that is absent or malformed
 * leaves only the counters built from it unset ("no_data"); a number is
 * never guessed or reported as 0.  The files are read to their end, so a
 * last line without '\n' is whole (pl_file_read adds the newline). */
#include "providers.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "meminfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { V_ABSENT = PL_NS_ABSENT, V_OK = PL_NS_OK, V_BAD = PL_NS_BAD };

/* ---- how each counter is derived ---- */
enum {
    K_AVAIL_B, K_AVAIL_K, K_AVAIL_M,  /* MemAvailable or its estimate */
    K_KB,                             /* meminfo a, kB -> bytes */
    K_KB2,                            /* meminfo a + b, kB -> bytes */
    K_HUGE,                           /* meminfo count a x Hugepagesize */
    K_VM,                             /* vmstat a */
    K_VM2,                            /* vmstat a + b */
    K_VM_KB,                          /* vmstat a, KiB -> bytes */
    K_REFAULT                         /* anon + file, or the pre-5.9 total */
};

typedef struct mem_src {
    unsigned char kind, a, b;
} mem_src;

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define CTR(id, name, help, type, base, detail, u) {id, name, help, type, base, detail, 0, 8, u }

static const pl_counter_def mem_counters[] = {
    CTR(0, "Available Bytes", "Physical memory available to processes without swapping, in bytes: "
      "/proc/meminfo MemAvailable, or when that is missing or 0 the psutil estimate "
      "MemFree + file LRU + SReclaimable less the low watermarks of /proc/zoneinfo "
      "(MemFree + Cached without zoneinfo).", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(1, "Available KBytes", "Available Bytes divided by 1024.", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1024, GAUGE)),
    CTR(2, "Available MBytes", "Available Bytes divided by 1048576.", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1048576, GAUGE)),
    CTR(3, "Committed Bytes", "Virtual memory committed to processes, in bytes "
      "(/proc/meminfo Committed_AS).", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(4, "Commit Limit", "Memory that can be committed under strict overcommit, in bytes "
      "(/proc/meminfo CommitLimit).", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(5, "% Committed Bytes In Use", "Committed_AS as a percentage of CommitLimit from "
      "/proc/meminfo; above 100 unless vm.overcommit_memory is 2.",
      PERF_LARGE_RAW_FRACTION, 6, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(6, "% Committed Bytes In Use Base", "CommitLimit in bytes, the base of "
      "% Committed Bytes In Use.", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(7, "Free & Zero Page List Bytes", "Memory not used for anything, in bytes "
      "(/proc/meminfo MemFree).", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(8, "Cache Bytes", "Page cache size in bytes (/proc/meminfo Cached); Buffers and "
      "SReclaimable are reported separately.", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(9, "Modified Page List Bytes", "File pages waiting to be written back, in bytes "
      "(/proc/meminfo Dirty + Writeback).", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(10, "Pool Nonpaged Bytes", "Unreclaimable kernel slab memory in bytes (/proc/meminfo "
      "SUnreclaim), the nearest Linux match for the nonpaged pool.", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(11, "Pool Paged Bytes", "Reclaimable kernel slab memory in bytes (/proc/meminfo "
      "SReclaimable); Linux never pages kernel memory, it frees it.", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1, GAUGE)),
    CTR(12, "Total Bytes", "Usable physical memory in bytes (/proc/meminfo MemTotal).",
      LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, DISCRETE)),
    CTR(13, "Buffers Bytes", "Block-device buffer memory in bytes (/proc/meminfo Buffers).",
      LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(14, "Shared Bytes", "Shared memory and tmpfs pages in bytes (/proc/meminfo Shmem).",
      LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(15, "Active Bytes", "Recently used memory on the active LRU lists, in bytes "
      "(/proc/meminfo Active).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(16, "Inactive Bytes", "Memory on the inactive LRU lists, first to be reclaimed, in "
      "bytes (/proc/meminfo Inactive).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(17, "Active Anon Bytes", "Anonymous memory on the active LRU list, in bytes "
      "(/proc/meminfo Active(anon)).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(18, "Inactive Anon Bytes", "Anonymous memory on the inactive LRU list, in bytes "
      "(/proc/meminfo Inactive(anon)).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(19, "Active File Bytes", "Page cache on the active LRU list, in bytes "
      "(/proc/meminfo Active(file)).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(20, "Inactive File Bytes", "Page cache on the inactive LRU list, in bytes "
      "(/proc/meminfo Inactive(file)).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(21, "Anonymous Bytes", "Anonymous pages mapped into user space, in bytes "
      "(/proc/meminfo AnonPages).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(22, "Mapped Bytes", "Files mapped into memory, such as libraries, in bytes "
      "(/proc/meminfo Mapped).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(23, "Slab Bytes", "Kernel slab allocator memory in bytes (/proc/meminfo Slab).",
      LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(24, "Slab Reclaimable Bytes", "Slab memory that can be reclaimed, such as dentry "
      "caches, in bytes (/proc/meminfo SReclaimable).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(25, "Slab Unreclaimable Bytes", "Slab memory that cannot be reclaimed, in bytes "
      "(/proc/meminfo SUnreclaim).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(26, "Kernel Stack Bytes", "Memory used by kernel stacks of all tasks, in bytes "
      "(/proc/meminfo KernelStack).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(27, "Page Table Bytes", "Memory used by page tables, in bytes "
      "(/proc/meminfo PageTables).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(28, "Mlocked Bytes", "Memory locked with mlock, in bytes (/proc/meminfo Mlocked).",
      LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(29, "Unevictable Bytes", "Memory that cannot be reclaimed or swapped, in bytes "
      "(/proc/meminfo Unevictable).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(30, "Percpu Bytes", "Memory used by per-CPU allocations, in bytes "
      "(/proc/meminfo Percpu).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(31, "Anon Huge Pages Bytes", "Anonymous memory in transparent huge pages, in bytes "
      "(/proc/meminfo AnonHugePages).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(32, "Huge Pages Total Bytes", "Size of the hugetlbfs pool in bytes (/proc/meminfo "
      "HugePages_Total x Hugepagesize).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, DISCRETE)),
    CTR(33, "Huge Pages Free Bytes", "Unallocated part of the hugetlbfs pool in bytes "
      "(/proc/meminfo HugePages_Free x Hugepagesize).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(34, "Swap Total Bytes", "Total swap space in bytes (/proc/meminfo SwapTotal).",
      LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, DISCRETE)),
    CTR(35, "Swap Free Bytes", "Unused swap space in bytes (/proc/meminfo SwapFree).",
      LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(36, "Swap Cached Bytes", "Memory that is both in RAM and in swap, in bytes "
      "(/proc/meminfo SwapCached).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(37, "Zswap Bytes", "RAM used by the zswap compressed cache, in bytes "
      "(/proc/meminfo Zswap, kernel 5.19 and later).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(38, "Zswapped Bytes", "Uncompressed size of the pages held in zswap, in bytes "
      "(/proc/meminfo Zswapped, kernel 5.19 and later).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(39, "Page Faults/sec", "Page faults, minor and major, per second "
      "(/proc/vmstat pgfault).", BULK, PL_NO_ID, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(40, "Page Reads/sec", "Major (hard) page faults that needed disk reads, per second "
      "(/proc/vmstat pgmajfault).", BULK, PL_NO_ID, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(41, "Pages Input/sec", "Pages read in from swap per second (/proc/vmstat pswpin).",
      BULK, PL_NO_ID, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(42, "Pages Output/sec", "Pages written out to swap per second (/proc/vmstat pswpout).",
      BULK, PL_NO_ID, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(43, "Pages/sec", "Pages swapped in plus swapped out per second "
      "(/proc/vmstat pswpin + pswpout).", BULK, PL_NO_ID, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(44, "Page-in Bytes/sec", "Bytes read by all block I/O, not only paging, per second "
      "(/proc/vmstat pgpgin, which counts KiB).", BULK, PL_NO_ID, ADV, PL_U(BYTES, 1, COUNTER)),
    CTR(45, "Page-out Bytes/sec", "Bytes written by all block I/O, not only paging, per second "
      "(/proc/vmstat pgpgout, which counts KiB).", BULK, PL_NO_ID, ADV, PL_U(BYTES, 1, COUNTER)),
    CTR(46, "Pages Freed/sec", "Pages freed per second (/proc/vmstat pgfree).",
      BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(47, "Pages Scanned kswapd/sec", "Pages scanned by the kswapd background reclaim per "
      "second (/proc/vmstat pgscan_kswapd).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(48, "Pages Scanned Direct/sec", "Pages scanned by direct reclaim in allocating tasks "
      "per second (/proc/vmstat pgscan_direct).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(49, "Pages Stolen/sec", "Pages reclaimed per second (/proc/vmstat pgsteal_kswapd + "
      "pgsteal_direct).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(50, "% Reclaim Efficiency", "Pages reclaimed as a percentage of pages scanned over the "
      "interval, sar's %vmeff (/proc/vmstat pgsteal over pgscan, kswapd + direct).",
      PERF_SAMPLE_FRACTION, 51, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(51, "% Reclaim Efficiency Base", "Pages scanned by kswapd and direct reclaim "
      "(/proc/vmstat pgscan_kswapd + pgscan_direct), the base of % Reclaim Efficiency.",
      PERF_SAMPLE_BASE, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(52, "Allocation Stalls/sec", "Allocations that had to wait for direct reclaim, per "
      "second (/proc/vmstat allocstall, summed over zones).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(53, "Working Set Refaults/sec", "Evicted pages faulted back in per second, a thrashing "
      "sign (/proc/vmstat workingset_refault_anon + workingset_refault_file).",
      BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(54, "OOM Kills", "Processes killed by the out-of-memory killer since boot "
      "(/proc/vmstat oom_kill).", LRAW, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
};

#define MEM_N (sizeof mem_counters / sizeof mem_counters[0])

static const mem_src mem_srcs[] = {
    {K_AVAIL_B, 0, 0}, {K_AVAIL_K, 0, 0}, {K_AVAIL_M, 0, 0},
    {K_KB, PL_MI_COMMITTED, 0}, {K_KB, PL_MI_COMMITLIMIT, 0},
    {K_KB, PL_MI_COMMITTED, 0}, {K_KB, PL_MI_COMMITLIMIT, 0},
    {K_KB, PL_MI_FREE, 0}, {K_KB, PL_MI_CACHED, 0}, {K_KB2, PL_MI_DIRTY, PL_MI_WRITEBACK},
    {K_KB, PL_MI_SUNRECL, 0}, {K_KB, PL_MI_SRECL, 0},
    {K_KB, PL_MI_TOTAL, 0}, {K_KB, PL_MI_BUFFERS, 0}, {K_KB, PL_MI_SHMEM, 0},
    {K_KB, PL_MI_ACTIVE, 0}, {K_KB, PL_MI_INACTIVE, 0}, {K_KB, PL_MI_ACT_ANON, 0},
    {K_KB, PL_MI_INACT_ANON, 0}, {K_KB, PL_MI_ACT_FILE, 0}, {K_KB, PL_MI_INACT_FILE, 0},
    {K_KB, PL_MI_ANON, 0}, {K_KB, PL_MI_MAPPED, 0}, {K_KB, PL_MI_SLAB, 0},
    {K_KB, PL_MI_SRECL, 0}, {K_KB, PL_MI_SUNRECL, 0}, {K_KB, PL_MI_KSTACK, 0},
    {K_KB, PL_MI_PTABLES, 0}, {K_KB, PL_MI_MLOCKED, 0}, {K_KB, PL_MI_UNEVICT, 0},
    {K_KB, PL_MI_PERCPU, 0}, {K_KB, PL_MI_ANONHUGE, 0},
    {K_HUGE, PL_MI_HP_TOTAL, 0}, {K_HUGE, PL_MI_HP_FREE, 0},
    {K_KB, PL_MI_SWAPTOTAL, 0}, {K_KB, PL_MI_SWAPFREE, 0}, {K_KB, PL_MI_SWAPCACHED, 0},
    {K_KB, PL_MI_ZSWAP, 0}, {K_KB, PL_MI_ZSWAPPED, 0},
    {K_VM, PL_VM_PGFAULT, 0}, {K_VM, PL_VM_PGMAJFAULT, 0}, {K_VM, PL_VM_PSWPIN, 0},
    {K_VM, PL_VM_PSWPOUT, 0}, {K_VM2, PL_VM_PSWPIN, PL_VM_PSWPOUT},
    {K_VM_KB, PL_VM_PGPGIN, 0}, {K_VM_KB, PL_VM_PGPGOUT, 0}, {K_VM, PL_VM_PGFREE, 0},
    {K_VM, PL_VM_SCAN_KSWAPD, 0}, {K_VM, PL_VM_SCAN_DIRECT, 0},
    {K_VM2, PL_VM_STEAL_KSWAPD, PL_VM_STEAL_DIRECT},
    {K_VM2, PL_VM_STEAL_KSWAPD, PL_VM_STEAL_DIRECT}, {K_VM2, PL_VM_SCAN_KSWAPD, PL_VM_SCAN_DIRECT},
    {K_VM, PL_VM_ALLOCSTALL, 0}, {K_REFAULT, 0, 0}, {K_VM, PL_VM_OOM_KILL, 0},
};

_Static_assert(sizeof mem_srcs / sizeof mem_srcs[0] == MEM_N, "one source per counter");

typedef struct mem_state {
    pl_env *env;
    pl_ksrc *mi, *vm;        /* the machine's readers */
    pl_file zoneinfo;        /* only for the MemAvailable estimate */
} mem_state;

/* The parsed files of this collect; a file not read has every value absent. */
typedef struct mem_vals {
    const pl_meminfo *mi;
    const pl_vmstat *vm;
} mem_vals;

static int kb_bytes(const mem_vals *m, int k, uint64_t *out)
{
    return m->mi->st[k] == V_OK && pl_mul_ok(m->mi->v[k], 1024, out);
}

/* Sum of the "low" watermarks (pages) of every zone in /proc/zoneinfo.
 * 1 ok, 0 malformed, -1 unreadable. */
static int zone_low_pages(mem_state *s, uint64_t *pages)
{
    uint64_t sum = 0;
    if (pl_file_read(&s->zoneinfo, s->env, "proc/zoneinfo") || s->zoneinfo.len == 0)
        return -1;
    for (const char *p = s->zoneinfo.buf; p && *p; p = pl_next_line(p)) {
        uint64_t v;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "low", 3) != 0 || (p[3] != ' ' && p[3] != '\t'))
            continue;
        if (!pl_parse_kb_line(p + 3, &v) || !pl_add_ok(sum, v, &sum))
            return 0;
    }
    *pages = sum;
    return 1;
}

/* psutil calculate_avail_vmem(), itself the kernel's si_mem_available()
 * from commit 34e431b0ae39, in bytes.  1 ok, 0 unknown. */
static int estimate_available(mem_state *s, const mem_vals *m, uint64_t *out)
{
    uint64_t free_b, cached_b = 0, af, inf, pc, sr, wl_pages, wl, avail;
    int z;
    if (!kb_bytes(m, PL_MI_FREE, &free_b) || m->mi->st[PL_MI_CACHED] == V_BAD)
        return 0;
    if (m->mi->st[PL_MI_CACHED] == V_OK && !kb_bytes(m, PL_MI_CACHED, &cached_b))
        return 0;
    if (m->mi->st[PL_MI_ACT_FILE] == V_BAD || m->mi->st[PL_MI_INACT_FILE] == V_BAD ||
        m->mi->st[PL_MI_SRECL] == V_BAD)
        return 0;
    /* Before 2.6.28 or without zoneinfo psutil falls back to free + cached. */
    if (m->mi->st[PL_MI_ACT_FILE] == V_ABSENT || m->mi->st[PL_MI_INACT_FILE] == V_ABSENT ||
        m->mi->st[PL_MI_SRECL] == V_ABSENT || (z = zone_low_pages(s, &wl_pages)) < 0)
        return pl_add_ok(free_b, cached_b, out);
    if (z == 0 || !pl_mul_ok(wl_pages, (uint64_t)pl_env_page_size(s->env), &wl))
        return 0;
    if (!kb_bytes(m, PL_MI_ACT_FILE, &af) || !kb_bytes(m, PL_MI_INACT_FILE, &inf) ||
        !kb_bytes(m, PL_MI_SRECL, &sr) || !pl_add_ok(af, inf, &pc))
        return 0;
    pc -= pc / 2 < wl ? pc / 2 : wl;
    sr -= sr / 2 < wl ? sr / 2 : wl;
    if (!pl_add_ok(free_b, pc, &avail) || !pl_add_ok(avail, sr, &avail))
        return 0;
    *out = avail > wl ? avail - wl : 0;   /* psutil can go negative; bytes can't */
    return 1;
}

static int available(mem_state *s, const mem_vals *m, uint64_t *out)
{
    if (m->mi->st[PL_MI_AVAIL] == V_BAD)
        return 0;
    /* MemAvailable is missing before 3.14 and reads 0 on some kernels. */
    if (m->mi->st[PL_MI_AVAIL] == V_OK && m->mi->v[PL_MI_AVAIL] > 0)
        return kb_bytes(m, PL_MI_AVAIL, out);
    return estimate_available(s, m, out);
}

/* Value of counter i from the parsed files: 1 with *v, 0 if unknown. */
static int counter_value(const mem_src *src, const mem_vals *m, int avail_ok,
                         uint64_t avail_b, uint64_t *v)
{
    uint64_t x, y;
    switch (src->kind) {
    case K_AVAIL_B: *v = avail_b; return avail_ok;
    case K_AVAIL_K: *v = avail_b >> 10; return avail_ok;
    case K_AVAIL_M: *v = avail_b >> 20; return avail_ok;
    case K_KB: return kb_bytes(m, src->a, v);
    case K_KB2:
        return kb_bytes(m, src->a, &x) && kb_bytes(m, src->b, &y) && pl_add_ok(x, y, v);
    case K_HUGE:
        return m->mi->st[src->a] == V_OK && kb_bytes(m, PL_MI_HP_SIZE, &y) &&
               pl_mul_ok(m->mi->v[src->a], y, v);
    case K_VM:
        *v = m->vm->v[src->a];
        return m->vm->st[src->a] == V_OK;
    case K_VM2:
        return m->vm->st[src->a] == V_OK && m->vm->st[src->b] == V_OK &&
               pl_add_ok(m->vm->v[src->a], m->vm->v[src->b], v);
    case K_VM_KB:
        return m->vm->st[src->a] == V_OK && pl_mul_ok(m->vm->v[src->a], 1024, v);
    case K_REFAULT:
        /* 5.9 split the counter into anon and file; earlier kernels have one. */
        if (m->vm->st[PL_VM_REFAULT_ANON] == V_ABSENT && m->vm->st[PL_VM_REFAULT_FILE] == V_ABSENT) {
            *v = m->vm->v[PL_VM_REFAULT];
            return m->vm->st[PL_VM_REFAULT] == V_OK;
        }
        return m->vm->st[PL_VM_REFAULT_ANON] == V_OK && m->vm->st[PL_VM_REFAULT_FILE] == V_OK &&
               pl_add_ok(m->vm->v[PL_VM_REFAULT_ANON], m->vm->v[PL_VM_REFAULT_FILE], v);
    default:
        return 0;
    }
}

static int is_vm(const mem_src *src)
{
    return src->kind >= K_VM;
}

static int is_avail(const mem_src *src)
{
    return src->kind <= K_AVAIL_M;
}

static void mem_close(void *state)
{
    mem_state *s = state;
    if (!s)
        return;
    pl_file_close(&s->zoneinfo);
    pl_env_unref(s->env);    /* the readers are the environment's */
    free(s);
}

static int mem_open(pl_env *env, void **state)
{
    mem_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);  /* zoneinfo is read below its root */
    pl_file_init(&s->zoneinfo);
    s->mi = pl_ksrc_attach(env, &pl_ksrc_meminfo);
    s->vm = pl_ksrc_attach(env, &pl_ksrc_vmstat);
    if (!s->mi || !s->vm) {
        mem_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

/* Reads source k when need: its parse, or the empty one (every value absent). */
static const void *mem_get(pl_sources *files, pl_ksrc *k, int need, const void *none,
                           pl_snapshot *snap, int *timed)
{
    if (!need || !pl_source_done(files, pl_ksrc_get(k), pl_ksrc_path(k)))
        return none;
    if (!*timed)
        snap->time = pl_ksrc_time(k);      /* the instant of the read it shares */
    *timed = 1;
    return pl_ksrc_data(k);
}

static int mem_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    static const pl_meminfo no_mi;
    static const pl_vmstat no_vm;
    mem_state *s = state;
    mem_vals m;
    pl_sources files;
    int need_mi = 0, need_vm = 0, need_avail = 0, avail_ok = 0, timed = 0, e;
    uint64_t avail_b = 0;

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    for (size_t i = 0; i < MEM_N; i++) {
        if (wanted && !wanted[i])
            continue;
        if (is_vm(&mem_srcs[i]))
            need_vm = 1;
        else
            need_mi = 1;
        if (is_avail(&mem_srcs[i]))
            need_avail = 1;
    }
    pl_sources_init(&files);
    /* a file that cannot be read is not parsed: its values stay absent */
    m.mi = mem_get(&files, s->mi, need_mi, &no_mi, snap, &timed);
    m.vm = mem_get(&files, s->vm, need_vm, &no_vm, snap, &timed);
    if ((e = pl_sources_end(&files, snap)) != 0)
        return e;
    if (need_avail)
        avail_ok = available(s, &m, &avail_b);
    /* Every counter of a file that was read: bases come along for free. */
    for (size_t i = 0; i < MEM_N; i++) {
        const mem_src *src = &mem_srcs[i];
        uint64_t v;
        if (is_vm(src) ? !need_vm : !need_mi)
            continue;
        if (is_avail(src) && !need_avail)
            continue;
        if (counter_value(src, &m, avail_ok, avail_b, &v))
            pl_snap_set(snap, 0, (uint32_t)i, v);
    }
    return 0;
}

static const pl_provider_ops mem_ops = {
    mem_open, mem_close, pl_single_instance, mem_collect, NULL,
};

const pl_counterset_def pl_memory_def = {
    {0x146c2676, 0x5548, 0x53f3, {0xb7, 0xe0, 0xd4, 0xbd, 0x51, 0x61, 0xf2, 0x7f}},
    "Memory",
    "Physical and virtual memory of the whole machine, from /proc/meminfo and "
    "/proc/vmstat; inside a container these are the host's figures.",
    PERF_COUNTERSET_SINGLE_INSTANCE,
    0,
    (uint32_t)MEM_N,
    mem_counters,
    &mem_ops,
    2000, NULL,
};
