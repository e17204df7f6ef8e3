/* /proc/meminfo and /proc/vmstat as kernel sources (pl_ksrc.h), parsed once
 * per collect into the values perflib uses.
 *
 * Lines are matched by position with a name check: the parse remembers which
 * key each line held last time, compares that name first and searches all
 * keys only when it differs (a kernel that added or removed a line), so the
 * usual parse costs one compare a line.  st[k] is PL_NS_ABSENT for a key the
 * file did not have, PL_NS_BAD for a malformed or cut-off value, PL_NS_OK
 * with v[k].  The first line of a key counts in meminfo; vmstat's zoned keys
 * also add their <key>_<zone> lines (kernels before 4.8 split reclaim
 * counters per zone; allocstall still is), and one bad part makes the sum
 * bad. */
#ifndef PL_MEMINFO_H
#define PL_MEMINFO_H

#include "pl_ksrc.h"
#include "netsnmp.h"          /* PL_NS_ABSENT, PL_NS_OK, PL_NS_BAD */

/* meminfo keys, in the kernel's order (fs/proc/meminfo.c meminfo_proc_show,
 * then hugetlb_report_meminfo and the arch's DirectMap lines); values in kB
 * but the HugePages_ counts.  Many lines exist only with a config option or
 * from a kernel version on (their counters' help says which): absent keys
 * are PL_NS_ABSENT. */
enum {
    PL_MI_TOTAL, PL_MI_FREE, PL_MI_AVAIL, PL_MI_BUFFERS, PL_MI_CACHED, PL_MI_SWAPCACHED,
    PL_MI_ACTIVE, PL_MI_INACTIVE, PL_MI_ACT_ANON, PL_MI_INACT_ANON, PL_MI_ACT_FILE,
    PL_MI_INACT_FILE, PL_MI_UNEVICT, PL_MI_MLOCKED, PL_MI_HIGHTOTAL, PL_MI_HIGHFREE,
    PL_MI_LOWTOTAL, PL_MI_LOWFREE, PL_MI_MMAPCOPY, PL_MI_SWAPTOTAL, PL_MI_SWAPFREE,
    PL_MI_ZSWAP, PL_MI_ZSWAPPED, PL_MI_DIRTY, PL_MI_WRITEBACK, PL_MI_ANON, PL_MI_MAPPED,
    PL_MI_SHMEM, PL_MI_KRECL, PL_MI_SLAB, PL_MI_SRECL, PL_MI_SUNRECL, PL_MI_KSTACK,
    PL_MI_SCS, PL_MI_PTABLES, PL_MI_SECPT, PL_MI_NFS_UNSTABLE, PL_MI_BOUNCE, PL_MI_WBTMP,
    PL_MI_COMMITLIMIT, PL_MI_COMMITTED, PL_MI_VMTOTAL, PL_MI_VMUSED, PL_MI_VMCHUNK,
    PL_MI_PERCPU, PL_MI_HWCORRUPT, PL_MI_ANONHUGE, PL_MI_SHMEMHUGE, PL_MI_SHMEMPMD,
    PL_MI_FILEHUGE, PL_MI_FILEPMD, PL_MI_CMATOTAL, PL_MI_CMAFREE, PL_MI_UNACCEPTED,
    PL_MI_BALLOON, PL_MI_HP_TOTAL, PL_MI_HP_FREE, PL_MI_HP_RSVD, PL_MI_HP_SURP, PL_MI_HP_SIZE,
    PL_MI_HUGETLB, PL_MI_DM4K, PL_MI_DM4M, PL_MI_DM2M, PL_MI_DM1G, PL_MI_N
};

/* vmstat keys */
enum {
    PL_VM_PGPGIN, PL_VM_PGPGOUT, PL_VM_PSWPIN, PL_VM_PSWPOUT, PL_VM_PGFAULT, PL_VM_PGMAJFAULT,
    PL_VM_PGFREE, PL_VM_SCAN_KSWAPD, PL_VM_SCAN_DIRECT, PL_VM_STEAL_KSWAPD, PL_VM_STEAL_DIRECT,
    PL_VM_ALLOCSTALL, PL_VM_REFAULT, PL_VM_REFAULT_ANON, PL_VM_REFAULT_FILE, PL_VM_OOM_KILL,
    PL_VM_N
};

/* Lines whose key is remembered; later lines are matched by name alone. */
#define PL_MI_LINES 128
#define PL_VM_LINES 512

typedef struct pl_meminfo {
    uint64_t v[PL_MI_N];
    uint8_t st[PL_MI_N];
    uint8_t at[PL_MI_LINES];  /* key + 1 of each line last time, 0 for none */
} pl_meminfo;

typedef struct pl_vmstat {
    uint64_t v[PL_VM_N];
    uint8_t st[PL_VM_N];
    uint8_t at[PL_VM_LINES];  /* key + 1 of each line last time, 0 for none, 0xFF: not ours */
    uint64_t other[PL_VM_LINES];   /* for a line not ours: its key's hash (meminfo.c) */
} pl_vmstat;

/* /proc/zoneinfo, for the MemAvailable estimate of kernels before 3.14:
 * the sum of every zone's "low" watermark, in pages.  PL_NS_OK with 0 when
 * the file has no "low" line; PL_NS_BAD when one is malformed or the sum
 * passes 2^64-1. */
enum { PL_ZI_LOW, PL_ZI_N };

typedef struct pl_zoneinfo {
    uint64_t v[PL_ZI_N];
    uint8_t st[PL_ZI_N];
} pl_zoneinfo;

/* meminfo is one single_open buffer per read; vmstat and zoneinfo seq_file
 * iterators */
extern const pl_ksrc_def pl_ksrc_meminfo, pl_ksrc_vmstat, pl_ksrc_zoneinfo;

/* The pure parsers (buf[len] is '\0'; safe on any bytes).  Always 0. */
int pl_parse_meminfo(const char *buf, size_t len, void *out);
int pl_parse_vmstat(const char *buf, size_t len, void *out);
int pl_parse_zoneinfo(const char *buf, size_t len, void *out);

#endif
