/* Memory counterset (single instance): /proc/meminfo and /proc/vmstat, the
 * machine's kernel sources (meminfo.h), each read once per collect.
 *
 * Error policy, shared with system.c: each file is one source (pl_sources).
 * A file that cannot be read, or is empty, leaves only the counters built
 * from it unset; the set fails (errno, err_path) only when every file the
 * wanted counters need failed.  A single value that is absent or malformed
 * leaves only the counters built from it unset ("no_data"); a number is
 * never guessed or reported as 0.  The files are read to their end, so a
 * last line without '\n' is whole (pl_file_read adds the newline).
 *
 * Every counter is a row (pl_rowset.h) walked by pl_rowset_ops.  The
 * Available counters are derives: MemAvailable, or on kernels without it
 * the estimate, which reads /proc/zoneinfo (a third source) only then. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "pl_rowset.h"
#include "meminfo.h"

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
/* function-like: cppcheck's preprocessor splits an object-like macro's
 * commas inside a row */
#define VM_STEAL() PL_SUM(S_VM, PL_VM_STEAL_KSWAPD, PL_VM_STEAL_DIRECT)
#define VM_SCAN() PL_SUM(S_VM, PL_VM_SCAN_KSWAPD, PL_VM_SCAN_DIRECT)

#define MEM_ROWS(R) \
    R(0, "Available Bytes", "Physical memory available to processes without swapping, in bytes: " \
      "/proc/meminfo MemAvailable, or when that is missing or 0 the psutil estimate MemFree + " \
      "file LRU + SReclaimable less the low watermarks of /proc/zoneinfo (MemFree + Cached " \
      "without zoneinfo).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_MI), avail_b)) \
    R(1, "Available KBytes", "Available Bytes divided by 1024.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1024, GAUGE), PL_DERIVE(PL_BIT(S_MI), avail_k)) \
    R(2, "Available MBytes", "Available Bytes divided by 1048576.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1048576, GAUGE), PL_DERIVE(PL_BIT(S_MI), avail_m)) \
    R(3, "Committed Bytes", "Virtual memory committed to processes, in bytes (/proc/meminfo " \
      "Committed_AS).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_COMMITTED)) \
    R(4, "Commit Limit", "Memory that can be committed under strict overcommit, in bytes " \
      "(/proc/meminfo CommitLimit).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_COMMITLIMIT)) \
    R(5, "% Committed Bytes In Use", "Committed_AS as a percentage of CommitLimit from " \
      "/proc/meminfo; above 100 unless vm.overcommit_memory is 2.", \
      PERF_LARGE_RAW_FRACTION, 6, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_COMMITTED)) \
    R(6, "% Committed Bytes In Use Base", "CommitLimit in bytes, the base of % Committed Bytes " \
      "In Use.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_COMMITLIMIT)) \
    R(7, "Free & Zero Page List Bytes", "Memory not used for anything, in bytes (/proc/meminfo " \
      "MemFree).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_FREE)) \
    R(8, "Cache Bytes", "Page cache size in bytes (/proc/meminfo Cached); Buffers and " \
      "SReclaimable are reported separately.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_CACHED)) \
    R(9, "Modified Page List Bytes", "File pages waiting to be written back, in bytes " \
      "(/proc/meminfo Dirty + Writeback).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_SUM_KIB(S_MI, PL_MI_DIRTY, PL_MI_WRITEBACK)) \
    R(10, "Pool Nonpaged Bytes", "Unreclaimable kernel slab memory in bytes (/proc/meminfo " \
      "SUnreclaim), the nearest Linux match for the nonpaged pool.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SUNRECL)) \
    R(11, "Pool Paged Bytes", "Reclaimable kernel slab memory in bytes (/proc/meminfo " \
      "SReclaimable); Linux never pages kernel memory, it frees it.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SRECL)) \
    R(12, "Total Bytes", "Usable physical memory in bytes (/proc/meminfo MemTotal).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MI, PL_MI_TOTAL)) \
    R(13, "Buffers Bytes", "Block-device buffer memory in bytes (/proc/meminfo Buffers).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_BUFFERS)) \
    R(14, "Shared Bytes", "Shared memory and tmpfs pages in bytes (/proc/meminfo Shmem).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SHMEM)) \
    R(15, "Active Bytes", "Recently used memory on the active LRU lists, in bytes (/proc/meminfo " \
      "Active).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_ACTIVE)) \
    R(16, "Inactive Bytes", "Memory on the inactive LRU lists, first to be reclaimed, in bytes " \
      "(/proc/meminfo Inactive).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_INACTIVE)) \
    R(17, "Active Anon Bytes", "Anonymous memory on the active LRU list, in bytes (/proc/meminfo " \
      "Active(anon)).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_ACT_ANON)) \
    R(18, "Inactive Anon Bytes", "Anonymous memory on the inactive LRU list, in bytes " \
      "(/proc/meminfo Inactive(anon)).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_INACT_ANON)) \
    R(19, "Active File Bytes", "Page cache on the active LRU list, in bytes (/proc/meminfo " \
      "Active(file)).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_ACT_FILE)) \
    R(20, "Inactive File Bytes", "Page cache on the inactive LRU list, in bytes (/proc/meminfo " \
      "Inactive(file)).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_INACT_FILE)) \
    R(21, "Anonymous Bytes", "Anonymous pages mapped into user space, in bytes (/proc/meminfo " \
      "AnonPages).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_ANON)) \
    R(22, "Mapped Bytes", "Files mapped into memory, such as libraries, in bytes (/proc/meminfo " \
      "Mapped).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_MAPPED)) \
    R(23, "Slab Bytes", "Kernel slab allocator memory in bytes (/proc/meminfo Slab).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SLAB)) \
    R(24, "Slab Reclaimable Bytes", "Slab memory that can be reclaimed, such as dentry caches, " \
      "in bytes (/proc/meminfo SReclaimable).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SRECL)) \
    R(25, "Slab Unreclaimable Bytes", "Slab memory that cannot be reclaimed, in bytes " \
      "(/proc/meminfo SUnreclaim).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SUNRECL)) \
    R(26, "Kernel Stack Bytes", "Memory used by kernel stacks of all tasks, in bytes " \
      "(/proc/meminfo KernelStack).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_KSTACK)) \
    R(27, "Page Table Bytes", "Memory used by page tables, in bytes (/proc/meminfo PageTables).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_PTABLES)) \
    R(28, "Mlocked Bytes", "Memory locked with mlock, in bytes (/proc/meminfo Mlocked).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_MLOCKED)) \
    R(29, "Unevictable Bytes", "Memory that cannot be reclaimed or swapped, in bytes " \
      "(/proc/meminfo Unevictable).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_UNEVICT)) \
    R(30, "Percpu Bytes", "Memory used by per-CPU allocations, in bytes (/proc/meminfo Percpu).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_PERCPU)) \
    R(31, "Anon Huge Pages Bytes", "Anonymous memory in transparent huge pages, in bytes " \
      "(/proc/meminfo AnonHugePages).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_ANONHUGE)) \
    R(32, "Huge Pages Total Bytes", "Size of the hugetlbfs pool in bytes (/proc/meminfo " \
      "HugePages_Total x Hugepagesize).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_DERIVE(PL_BIT(S_MI), huge_total)) \
    R(33, "Huge Pages Free Bytes", "Unallocated part of the hugetlbfs pool in bytes " \
      "(/proc/meminfo HugePages_Free x Hugepagesize).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_MI), huge_free)) \
    R(34, "Swap Total Bytes", "Total swap space in bytes (/proc/meminfo SwapTotal).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MI, PL_MI_SWAPTOTAL)) \
    R(35, "Swap Free Bytes", "Unused swap space in bytes (/proc/meminfo SwapFree).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SWAPFREE)) \
    R(36, "Swap Cached Bytes", "Memory that is both in RAM and in swap, in bytes (/proc/meminfo " \
      "SwapCached).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SWAPCACHED)) \
    R(37, "Zswap Bytes", "RAM used by the zswap compressed cache, in bytes (/proc/meminfo Zswap, " \
      "kernel 5.19 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_ZSWAP)) \
    R(38, "Zswapped Bytes", "Uncompressed size of the pages held in zswap, in bytes " \
      "(/proc/meminfo Zswapped, kernel 5.19 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_ZSWAPPED)) \
    R(39, "Page Faults/sec", "Page faults, minor and major, per second (/proc/vmstat pgfault).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_PGFAULT)) \
    R(40, "Page Reads/sec", "Major (hard) page faults that needed disk reads, per second " \
      "(/proc/vmstat pgmajfault).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_PGMAJFAULT)) \
    R(41, "Pages Input/sec", "Pages read in from swap per second (/proc/vmstat pswpin).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_PSWPIN)) \
    R(42, "Pages Output/sec", "Pages written out to swap per second (/proc/vmstat pswpout).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_PSWPOUT)) \
    R(43, "Pages/sec", "Pages swapped in plus swapped out per second (/proc/vmstat pswpin + " \
      "pswpout).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_SUM(S_VM, PL_VM_PSWPIN, PL_VM_PSWPOUT)) \
    R(44, "Page-in Bytes/sec", "Bytes read by all block I/O, not only paging, per second " \
      "(/proc/vmstat pgpgin, which counts KiB).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), PL_KIB(S_VM, PL_VM_PGPGIN)) \
    R(45, "Page-out Bytes/sec", "Bytes written by all block I/O, not only paging, per second " \
      "(/proc/vmstat pgpgout, which counts KiB).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), PL_KIB(S_VM, PL_VM_PGPGOUT)) \
    R(46, "Pages Freed/sec", "Pages freed per second (/proc/vmstat pgfree).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_PGFREE)) \
    R(47, "Pages Scanned kswapd/sec", "Pages scanned by the kswapd background reclaim per second " \
      "(/proc/vmstat pgscan_kswapd).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_SCAN_KSWAPD)) \
    R(48, "Pages Scanned Direct/sec", "Pages scanned by direct reclaim in allocating tasks per " \
      "second (/proc/vmstat pgscan_direct).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_SCAN_DIRECT)) \
    R(49, "Pages Stolen/sec", "Pages reclaimed per second (/proc/vmstat pgsteal_kswapd + " \
      "pgsteal_direct).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), VM_STEAL()) \
    R(50, "% Reclaim Efficiency", "Pages reclaimed as a percentage of pages scanned over the " \
      "interval, sar's %vmeff (/proc/vmstat pgsteal over pgscan, kswapd + direct).", \
      PERF_SAMPLE_FRACTION, 51, ADV, 0, PL_U(COUNT, 1, COUNTER), VM_STEAL()) \
    R(51, "% Reclaim Efficiency Base", "Pages scanned by kswapd and direct reclaim (/proc/vmstat " \
      "pgscan_kswapd + pgscan_direct), the base of % Reclaim Efficiency.", \
      PERF_SAMPLE_BASE, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), VM_SCAN()) \
    R(52, "Allocation Stalls/sec", "Allocations that had to wait for direct reclaim, per second " \
      "(/proc/vmstat allocstall, summed over zones).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_ALLOCSTALL)) \
    R(53, "Working Set Refaults/sec", "Evicted pages faulted back in per second, a thrashing " \
      "sign (/proc/vmstat workingset_refault_anon + workingset_refault_file).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_DERIVE(PL_BIT(S_VM), refaults)) \
    R(54, "OOM Kills", "Processes killed by the out-of-memory killer since boot (/proc/vmstat " \
      "oom_kill).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_VM, PL_VM_OOM_KILL)) \
    R(55, "Dirty Bytes", "File pages modified in memory and not yet written back, in bytes " \
      "(/proc/meminfo Dirty; Modified Page List Bytes adds Writeback).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_DIRTY)) \
    R(56, "Writeback Bytes", "File pages being written back now, in bytes (/proc/meminfo " \
      "Writeback).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_WRITEBACK)) \
    R(57, "Writeback Temp Bytes", "Temporary writeback buffers of FUSE, in bytes " \
      "(/proc/meminfo WritebackTmp).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_WBTMP)) \
    R(58, "NFS Unstable Bytes", "NFS pages sent to the server but not yet committed, in " \
      "bytes (/proc/meminfo NFS_Unstable; always 0 since kernel 5.9, which counts them in " \
      "Writeback).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_NFS_UNSTABLE)) \
    R(59, "Bounce Bytes", "Memory used for block-device bounce buffers, in bytes " \
      "(/proc/meminfo Bounce).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_BOUNCE)) \
    R(60, "Kernel Reclaimable Bytes", "Kernel allocations the kernel can reclaim under " \
      "pressure, reclaimable slab included, in bytes (/proc/meminfo KReclaimable, kernel " \
      "4.20 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_KRECL)) \
    R(61, "Secondary Page Table Bytes", "Memory used by secondary page tables such as KVM's, " \
      "in bytes (/proc/meminfo SecPageTables, kernel 6.1 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SECPT)) \
    R(62, "Shadow Call Stack Bytes", "Memory used by shadow call stacks, in bytes " \
      "(/proc/meminfo ShadowCallStack, CONFIG_SHADOW_CALL_STACK only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SCS)) \
    R(63, "Vmalloc Total Bytes", "Size of the vmalloc address space, in bytes (/proc/meminfo " \
      "VmallocTotal).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MI, PL_MI_VMTOTAL)) \
    R(64, "Vmalloc Used Bytes", "Memory allocated with vmalloc, in bytes (/proc/meminfo " \
      "VmallocUsed; 0 on kernels  4.0 to 5.2).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_VMUSED)) \
    R(65, "Vmalloc Chunk Bytes", "Largest free block of the vmalloc area, in bytes " \
      "(/proc/meminfo VmallocChunk; always 0 since kernel 4.0).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_VMCHUNK)) \
    R(66, "Hardware Corrupted Bytes", "Memory taken out of use because the hardware reported " \
      "it corrupted, in bytes (/proc/meminfo HardwareCorrupted, CONFIG_MEMORY_FAILURE " \
      "only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_HWCORRUPT)) \
    R(67, "Shmem Huge Pages Bytes", "Shared memory and tmpfs in transparent huge pages, in " \
      "bytes (/proc/meminfo ShmemHugePages).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SHMEMHUGE)) \
    R(68, "Shmem Pmd Mapped Bytes", "Shared memory mapped into user space with huge pages, " \
      "in bytes (/proc/meminfo ShmemPmdMapped).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_SHMEMPMD)) \
    R(69, "File Huge Pages Bytes", "Page cache in transparent huge pages, in bytes " \
      "(/proc/meminfo FileHugePages, kernel 5.4 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_FILEHUGE)) \
    R(70, "File Pmd Mapped Bytes", "Page cache mapped into user space with huge pages, in " \
      "bytes (/proc/meminfo FilePmdMapped, kernel 5.4 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_FILEPMD)) \
    R(71, "CMA Total Bytes", "Memory reserved for the contiguous memory allocator, in bytes " \
      "(/proc/meminfo CmaTotal, CONFIG_CMA only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MI, PL_MI_CMATOTAL)) \
    R(72, "CMA Free Bytes", "Free part of the contiguous memory allocator's reserve, in " \
      "bytes (/proc/meminfo CmaFree, CONFIG_CMA only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_CMAFREE)) \
    R(73, "Unaccepted Bytes", "Memory a confidential-computing guest has not accepted yet, " \
      "in bytes (/proc/meminfo Unaccepted, kernel 6.5 and later with " \
      "CONFIG_UNACCEPTED_MEMORY).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_UNACCEPTED)) \
    R(74, "Balloon Bytes", "Memory taken from the guest by a balloon driver, in bytes " \
      "(/proc/meminfo Balloon, recent kernels).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_BALLOON)) \
    R(75, "Total Huge Pages", "Pages in the default-size hugetlbfs pool (/proc/meminfo " \
      "HugePages_Total).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_MI, PL_MI_HP_TOTAL)) \
    R(76, "Free Huge Pages", "Pages of the hugetlbfs pool not yet allocated (/proc/meminfo " \
      "HugePages_Free).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_MI, PL_MI_HP_FREE)) \
    R(77, "Reserved Huge Pages", "Pages of the hugetlbfs pool promised to mappings but not " \
      "yet faulted in (/proc/meminfo HugePages_Rsvd).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_MI, PL_MI_HP_RSVD)) \
    R(78, "Surplus Huge Pages", "Pages of the hugetlbfs pool above its size, allocated under " \
      "overcommit (/proc/meminfo HugePages_Surp).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_MI, PL_MI_HP_SURP)) \
    R(79, "Huge Page Size Bytes", "Size of the default huge page, in bytes (/proc/meminfo " \
      "Hugepagesize).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MI, PL_MI_HP_SIZE)) \
    R(80, "Hugetlb Bytes", "Memory in hugetlbfs pools of every page size, in bytes " \
      "(/proc/meminfo Hugetlb, kernel 4.16 and later).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_HUGETLB)) \
    R(81, "Direct Map 4k Bytes", "Kernel direct mapping of RAM in 4 KiB pages, in bytes " \
      "(/proc/meminfo DirectMap4k, x86).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_DM4K)) \
    R(82, "Direct Map 2M Bytes", "Kernel direct mapping of RAM in 2 MiB pages, in bytes " \
      "(/proc/meminfo DirectMap2M, x86).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_DM2M)) \
    R(83, "Direct Map 4M Bytes", "Kernel direct mapping of RAM in 4 MiB pages, in bytes " \
      "(/proc/meminfo DirectMap4M, 32-bit x86 without PAE).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_DM4M)) \
    R(84, "Direct Map 1G Bytes", "Kernel direct mapping of RAM in 1 GiB pages, in bytes " \
      "(/proc/meminfo DirectMap1G, x86).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_DM1G)) \
    R(85, "High Total Bytes", "Highmem, memory the kernel does not map permanently, in bytes " \
      "(/proc/meminfo HighTotal, 32-bit kernels with CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MI, PL_MI_HIGHTOTAL)) \
    R(86, "High Free Bytes", "Free highmem in bytes (/proc/meminfo HighFree, 32-bit kernels " \
      "with CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_HIGHFREE)) \
    R(87, "Low Total Bytes", "Lowmem, memory the kernel maps permanently, in bytes " \
      "(/proc/meminfo LowTotal,  32-bit kernels with CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_KIB(S_MI, PL_MI_LOWTOTAL)) \
    R(88, "Low Free Bytes", "Free lowmem in bytes (/proc/meminfo LowFree, 32-bit kernels " \
      "with CONFIG_HIGHMEM).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_LOWFREE)) \
    R(89, "Mmap Copy Bytes", "Memory copied for private file mappings on a kernel without an " \
      "MMU, in bytes (/proc/meminfo MmapCopy, !CONFIG_MMU only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_MMAPCOPY))


enum { S_MI, S_VM, S_ZI, NSRC };

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_meminfo, pl_meminfo),
    PL_FEED_SRC_ST(&pl_ksrc_vmstat, pl_vmstat),
    PL_FEED_SRC_ST(&pl_ksrc_zoneinfo, pl_zoneinfo),   /* read by the estimate alone */
};

static int kb_bytes(pl_feed_in *in, unsigned k, uint64_t *out)
{
    uint64_t kb;
    return pl_feed_field(in, S_MI, k, &kb) && pl_mul_ok(kb, 1024, out);
}

/* psutil calculate_avail_vmem(), itself the kernel's si_mem_available()
 * from commit 34e431b0ae39, in bytes.  1 ok, 0 unknown. */
static int estimate_available(pl_feed_in *in, const pl_meminfo *mi, uint64_t *out)
{
    uint64_t free_b, cached_b = 0, af, inf, pc, sr, wl_pages, wl, avail;
    const pl_zoneinfo *zi;
    if (!kb_bytes(in, PL_MI_FREE, &free_b) || mi->st[PL_MI_CACHED] == PL_NS_BAD)
        return 0;
    if (mi->st[PL_MI_CACHED] == PL_NS_OK && !kb_bytes(in, PL_MI_CACHED, &cached_b))
        return 0;
    if (mi->st[PL_MI_ACT_FILE] == PL_NS_BAD || mi->st[PL_MI_INACT_FILE] == PL_NS_BAD ||
        mi->st[PL_MI_SRECL] == PL_NS_BAD)
        return 0;
    /* Before 2.6.28 or without zoneinfo psutil falls back to free + cached. */
    if (mi->st[PL_MI_ACT_FILE] == PL_NS_ABSENT || mi->st[PL_MI_INACT_FILE] == PL_NS_ABSENT ||
        mi->st[PL_MI_SRECL] == PL_NS_ABSENT || !(zi = pl_feed_get(in, S_ZI)))
        return pl_add_ok(free_b, cached_b, out);
    if (!pl_feed_field(in, S_ZI, PL_ZI_LOW, &wl_pages) ||
        !pl_mul_ok(wl_pages, (uint64_t)pl_env_page_size(in->ctx), &wl))
        return 0;
    if (!kb_bytes(in, PL_MI_ACT_FILE, &af) || !kb_bytes(in, PL_MI_INACT_FILE, &inf) ||
        !kb_bytes(in, PL_MI_SRECL, &sr) || !pl_add_ok(af, inf, &pc))
        return 0;
    pc -= pc / 2 < wl ? pc / 2 : wl;
    sr -= sr / 2 < wl ? sr / 2 : wl;
    if (!pl_add_ok(free_b, pc, &avail) || !pl_add_ok(avail, sr, &avail))
        return 0;
    *out = avail > wl ? avail - wl : 0;   /* psutil can go negative; bytes can't */
    return 1;
}

static int avail_b(pl_feed_in *in, uint64_t *out)
{
    const pl_meminfo *mi = pl_feed_get(in, S_MI);
    if (!mi || mi->st[PL_MI_AVAIL] == PL_NS_BAD)
        return 0;
    /* MemAvailable is missing before 3.14 and reads 0 on some kernels. */
    if (mi->st[PL_MI_AVAIL] == PL_NS_OK && mi->v[PL_MI_AVAIL] > 0)
        return kb_bytes(in, PL_MI_AVAIL, out);
    return estimate_available(in, mi, out);
}

static int avail_k(pl_feed_in *in, uint64_t *out)
{
    if (!avail_b(in, out))
        return 0;
    *out >>= 10;
    return 1;
}

static int avail_m(pl_feed_in *in, uint64_t *out)
{
    if (!avail_b(in, out))
        return 0;
    *out >>= 20;
    return 1;
}

/* A HugePages_ count x Hugepagesize (kB). */
static int huge_bytes(pl_feed_in *in, unsigned k, uint64_t *out)
{
    uint64_t n, size;
    return pl_feed_field(in, S_MI, k, &n) && kb_bytes(in, PL_MI_HP_SIZE, &size) &&
           pl_mul_ok(n, size, out);
}

static int huge_total(pl_feed_in *in, uint64_t *out)
{
    return huge_bytes(in, PL_MI_HP_TOTAL, out);
}

static int huge_free(pl_feed_in *in, uint64_t *out)
{
    return huge_bytes(in, PL_MI_HP_FREE, out);
}

/* 5.9 split the refault counter into anon and file; earlier kernels have one. */
static int refaults(pl_feed_in *in, uint64_t *out)
{
    const pl_vmstat *vm = pl_feed_get(in, S_VM);
    uint64_t a, f;
    if (!vm)
        return 0;
    if (vm->st[PL_VM_REFAULT_ANON] == PL_NS_ABSENT && vm->st[PL_VM_REFAULT_FILE] == PL_NS_ABSENT)
        return pl_feed_field(in, S_VM, PL_VM_REFAULT, out);
    return pl_feed_field(in, S_VM, PL_VM_REFAULT_ANON, &a) &&
           pl_feed_field(in, S_VM, PL_VM_REFAULT_FILE, &f) && pl_add_ok(a, f, out);
}

static const pl_counter_def mem_counters[] = { MEM_ROWS(PL_ROW_COUNTER) };
static const pl_feed mem_feeds[] = { MEM_ROWS(PL_ROW_FEED) };

#define MEM_N (sizeof mem_counters / sizeof mem_counters[0])

static pl_rowset rowset = { srcs, NSRC, mem_feeds };

const pl_counterset_def pl_memory_def = {
    {0x146c2676, 0x5548, 0x53f3, {0xb7, 0xe0, 0xd4, 0xbd, 0x51, 0x61, 0xf2, 0x7f}},
    "Memory",
    "Physical and virtual memory of the whole machine, from /proc/meminfo and "
    "/proc/vmstat; inside a container these are the host's figures.",
    PERF_COUNTERSET_SINGLE_INSTANCE,
    0,
    (uint32_t)MEM_N,
    mem_counters,
    &pl_rowset_ops,
    2000, &rowset,
};
