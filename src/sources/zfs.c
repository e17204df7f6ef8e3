/* OpenZFS's kstats as kernel sources: see zfs.h. */
#include "zfs.h"

static const char *const arc_names[PL_ARC_N] = {
    "size", "c", "c_min", "c_max", "hits", "iohits", "misses",
    "demand_data_hits", "demand_data_misses", "demand_metadata_hits", "demand_metadata_misses",
    "prefetch_data_hits", "prefetch_data_misses", "prefetch_metadata_hits",
    "prefetch_metadata_misses", "mru_hits", "mfu_hits", "mru_ghost_hits", "mfu_ghost_hits",
    "l2_hits", "l2_misses", "l2_size", "l2_asize", "l2_read_bytes", "l2_write_bytes",
    "memory_throttle_count", "arc_meta_used", "arc_meta_limit", "data_size", "metadata_size",
    "hdr_size", "compressed_size", "uncompressed_size", "deleted", "evict_skip", "mutex_miss",
};
static const char *const zil_names[PL_ZIL_N] = {
    "zil_commit_count", "zil_commit_writer_count", "zil_itx_count",
    "zil_itx_metaslab_normal_count", "zil_itx_metaslab_normal_bytes",
    "zil_itx_metaslab_slog_count", "zil_itx_metaslab_slog_bytes",
};
static const char *const dmu_names[PL_DMU_N] = {
    "dmu_tx_assigned", "dmu_tx_delay", "dmu_tx_error", "dmu_tx_dirty_throttle",
    "dmu_tx_dirty_delay", "dmu_tx_dirty_over_max", "dmu_tx_quota",
};
static const char *const zf_names[PL_ZF_N] = { "hits", "misses" };
static const char *const abd_names[PL_ABD_N] = {
    "struct_size", "linear_cnt", "linear_data_size", "scatter_cnt", "scatter_data_size",
    "scatter_chunk_waste",
};
const char *const pl_zfs_objset_names[PL_OBJSET_N] = {
    "dataset_name", "reads", "writes", "nread", "nwritten", "nunlinks", "nunlinked",
};

#define KSTAT_PARSER(fn, names) \
    int fn(const char *buf, size_t len, void *out) \
    { \
        return pl_kstat_named(buf, len, names, sizeof names / sizeof names[0], out); \
    }

KSTAT_PARSER(pl_parse_zfs_arcstats, arc_names)
KSTAT_PARSER(pl_parse_zfs_objset, pl_zfs_objset_names)
static KSTAT_PARSER(parse_zil, zil_names)
static KSTAT_PARSER(parse_dmu, dmu_names)
static KSTAT_PARSER(parse_zf, zf_names)
static KSTAT_PARSER(parse_abd, abd_names)

#define KSTAT_SRC(var, file, fn) \
    const pl_ksrc_def var = { "proc/spl/kstat/zfs/" file, sizeof(pl_kstat), 0, fn, pl_kstat_release };

KSTAT_SRC(pl_ksrc_zfs_arcstats, "arcstats", pl_parse_zfs_arcstats)
KSTAT_SRC(pl_ksrc_zfs_zil, "zil", parse_zil)
KSTAT_SRC(pl_ksrc_zfs_dmu_tx, "dmu_tx", parse_dmu)
KSTAT_SRC(pl_ksrc_zfs_zfetch, "zfetchstats", parse_zf)
KSTAT_SRC(pl_ksrc_zfs_abd, "abdstats", parse_abd)

_Static_assert(PL_ARC_N <= PL_KSTAT_MAX && PL_OBJSET_N <= PL_KSTAT_MAX, "names per parse");
