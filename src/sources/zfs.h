/* OpenZFS's machine-wide kstats as kernel sources (pl_ksrc.h): the named
 * kstats (kstat.h) /proc/spl/kstat/zfs/arcstats (module/zfs/arc.c,
 * arc_stats), zil (module/zfs/zil.c, zil_stats), dmu_tx (module/zfs/
 * dmu_tx.c, dmu_tx_stats), zfetchstats (module/zfs/dmu_zfetch.c) and
 * abdstats (module/os/linux/zfs/abd_os.c), each parsed for the names below
 * (field k of the source's pl_kstat is the k-th name).  Names change
 * between versions: OpenZFS 2.2 dropped arc_meta_limit and p and added
 * iohits; ZFS on Linux 0.7 had no compressed_size; a name the running
 * module lacks is absent.  And the names a dataset's objset-0x<id> kstat
 * (module/zfs/dataset_kstats.c, 0.8 and later) is read for.
 *
 * They are seq_files (kstat_seq_show, a record per entry): read to a 0. */
#ifndef PL_ZFS_SRC_H
#define PL_ZFS_SRC_H

#include "pl_ksrc.h"
#include "kstat.h"

enum {
    PL_ARC_SIZE, PL_ARC_C, PL_ARC_C_MIN, PL_ARC_C_MAX, PL_ARC_HITS, PL_ARC_IOHITS, PL_ARC_MISSES,
    PL_ARC_DD_HITS, PL_ARC_DD_MISSES, PL_ARC_DM_HITS, PL_ARC_DM_MISSES,
    PL_ARC_PD_HITS, PL_ARC_PD_MISSES, PL_ARC_PM_HITS, PL_ARC_PM_MISSES,
    PL_ARC_MRU_HITS, PL_ARC_MFU_HITS, PL_ARC_MRU_GHOST_HITS, PL_ARC_MFU_GHOST_HITS,
    PL_ARC_L2_HITS, PL_ARC_L2_MISSES, PL_ARC_L2_SIZE, PL_ARC_L2_ASIZE, PL_ARC_L2_READ_BYTES,
    PL_ARC_L2_WRITE_BYTES, PL_ARC_MEM_THROTTLE, PL_ARC_META_USED, PL_ARC_META_LIMIT,
    PL_ARC_DATA_SIZE, PL_ARC_METADATA_SIZE, PL_ARC_HDR_SIZE, PL_ARC_COMPRESSED_SIZE,
    PL_ARC_UNCOMPRESSED_SIZE, PL_ARC_DELETED, PL_ARC_EVICT_SKIP, PL_ARC_MUTEX_MISS, PL_ARC_N
};
enum {
    PL_ZIL_COMMIT, PL_ZIL_COMMIT_WRITER, PL_ZIL_ITX, PL_ZIL_NORMAL_COUNT, PL_ZIL_NORMAL_BYTES,
    PL_ZIL_SLOG_COUNT, PL_ZIL_SLOG_BYTES, PL_ZIL_N
};
enum {
    PL_DMU_ASSIGNED, PL_DMU_DELAY, PL_DMU_ERROR, PL_DMU_DIRTY_THROTTLE, PL_DMU_DIRTY_DELAY,
    PL_DMU_DIRTY_OVER_MAX, PL_DMU_QUOTA, PL_DMU_N
};
enum { PL_ZF_HITS, PL_ZF_MISSES, PL_ZF_N };
enum {
    PL_ABD_STRUCT_SIZE, PL_ABD_LINEAR_CNT, PL_ABD_LINEAR_SIZE, PL_ABD_SCATTER_CNT,
    PL_ABD_SCATTER_SIZE, PL_ABD_SCATTER_WASTE, PL_ABD_N
};
enum {
    PL_OBJSET_NAME, PL_OBJSET_READS, PL_OBJSET_WRITES, PL_OBJSET_NREAD, PL_OBJSET_NWRITTEN,
    PL_OBJSET_NUNLINKS, PL_OBJSET_NUNLINKED, PL_OBJSET_N
};

/* The parsed struct of each: a pl_kstat. */
extern const pl_ksrc_def pl_ksrc_zfs_arcstats, pl_ksrc_zfs_zil, pl_ksrc_zfs_dmu_tx,
    pl_ksrc_zfs_zfetch, pl_ksrc_zfs_abd;
extern const char *const pl_zfs_objset_names[PL_OBJSET_N];

/* The pure parsers (buf[len] is '\0'; safe on any bytes): 0, EINVAL or
 * ENOMEM (pl_kstat_named). */
int pl_parse_zfs_arcstats(const char *buf, size_t len, void *out);
int pl_parse_zfs_objset(const char *buf, size_t len, void *out);

#endif
