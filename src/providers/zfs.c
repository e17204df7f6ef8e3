/* ZFS (single instance): OpenZFS's machine-wide statistics, node_exporter's
 * zfs collector (node_zfs_arc_*, _zil_*, _dmu_tx_*, _zfetch_*, _abd_*):
 * the ARC (sizes, hits and misses by kind, L2ARC), the ZIL, DMU
 * transactions, prefetch streams and ABD buffers, from the named kstats of
 * /proc/spl/kstat/zfs (zfs.h), each a kernel source read once per collect
 * and only for the counters that need it.  A set made only of rows.
 *
 * Counters are looked up by their kstat names, which change between
 * versions: a name the module does not have leaves its counter unset
 * (arc_meta_limit is gone in OpenZFS 2.2, iohits came with it).  Without
 * the zfs module there is no /proc/spl/kstat/zfs: the set fails with
 * ENOENT (no_data). */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "zfs.h"

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { S_ARC, S_ZIL, S_DMU, S_ZF, S_ABD, NSRC };

/* A byte size and an event count of arcstats, and the counts of the others. */
#define ARC_BYTES(R, id, name, f, det, what) \
    R(PL_ARC_##id, name, what " (/proc/spl/kstat/zfs/arcstats " f ").", LRAW, PL_NO_ID, det, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ARC, PL_ARC_##id))
#define ARC_RATE(R, id, name, f, det, what) \
    R(PL_ARC_##id, name, what " per second (/proc/spl/kstat/zfs/arcstats " f ").", BULK, PL_NO_ID, \
      det, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ARC, PL_ARC_##id))
#define RATE(R, base, k, name, s, file, f, det, what, unit) \
    R((base) + (k), name, what " per second (/proc/spl/kstat/zfs/" file " " f ").", BULK, \
      PL_NO_ID, det, 0, PL_U(unit, 1, COUNTER), PL_FIELD(s, k))

enum {
    C_RATIO = PL_ARC_N, C_RATIO_BASE,
    C_ZIL,
    C_DMU = C_ZIL + PL_ZIL_N,
    C_ZF = C_DMU + PL_DMU_N,
    C_ABD = C_ZF + PL_ZF_N,
    NC = C_ABD + PL_ABD_N
};

/* ids: arcstats' fields by their enum, then the ratio, then the other
 * kstats' fields after one another. */
#define ZFS_ARC_ROWS(R) \
    ARC_BYTES(R, SIZE, "ARC Size", "size", NOV, "Bytes the ARC holds now, all of its parts") \
    ARC_BYTES(R, C, "ARC Target Size", "c", NOV, "Size the ARC adapts towards") \
    ARC_BYTES(R, C_MIN, "ARC Min Size", "c_min", ADV, "Least target size (zfs_arc_min)") \
    ARC_BYTES(R, C_MAX, "ARC Max Size", "c_max", NOV, "Most target size (zfs_arc_max)") \
    ARC_RATE(R, HITS, "ARC Hits/sec", "hits", NOV, "Reads the ARC served from memory") \
    ARC_RATE(R, IOHITS, "ARC I/O Hits/sec", "iohits", ADV, \
             "Reads that found their block already being read (OpenZFS 2.2 and later)") \
    ARC_RATE(R, MISSES, "ARC Misses/sec", "misses", NOV, "Reads the ARC had to send to disk") \
    ARC_RATE(R, DD_HITS, "Demand Data Hits/sec", "demand_data_hits", ADV, \
             "Hits of data asked for by a read") \
    ARC_RATE(R, DD_MISSES, "Demand Data Misses/sec", "demand_data_misses", ADV, \
             "Misses of data asked for by a read") \
    ARC_RATE(R, DM_HITS, "Demand Metadata Hits/sec", "demand_metadata_hits", ADV, \
             "Hits of metadata asked for by a read") \
    ARC_RATE(R, DM_MISSES, "Demand Metadata Misses/sec", "demand_metadata_misses", ADV, \
             "Misses of metadata asked for by a read") \
    ARC_RATE(R, PD_HITS, "Prefetch Data Hits/sec", "prefetch_data_hits", ADV, \
             "Hits of prefetched data") \
    ARC_RATE(R, PD_MISSES, "Prefetch Data Misses/sec", "prefetch_data_misses", ADV, \
             "Misses of prefetched data") \
    ARC_RATE(R, PM_HITS, "Prefetch Metadata Hits/sec", "prefetch_metadata_hits", ADV, \
             "Hits of prefetched metadata") \
    ARC_RATE(R, PM_MISSES, "Prefetch Metadata Misses/sec", "prefetch_metadata_misses", ADV, \
             "Misses of prefetched metadata") \
    ARC_RATE(R, MRU_HITS, "MRU Hits/sec", "mru_hits", ADV, \
             "Hits in the most recently used list") \
    ARC_RATE(R, MFU_HITS, "MFU Hits/sec", "mfu_hits", ADV, \
             "Hits in the most frequently used list") \
    ARC_RATE(R, MRU_GHOST_HITS, "MRU Ghost Hits/sec", "mru_ghost_hits", ADV, \
             "Misses of blocks recently evicted from the MRU list") \
    ARC_RATE(R, MFU_GHOST_HITS, "MFU Ghost Hits/sec", "mfu_ghost_hits", ADV, \
             "Misses of blocks recently evicted from the MFU list") \
    ARC_RATE(R, L2_HITS, "L2ARC Hits/sec", "l2_hits", NOV, "Reads the L2ARC cache devices served") \
    ARC_RATE(R, L2_MISSES, "L2ARC Misses/sec", "l2_misses", NOV, \
             "Reads the L2ARC cache devices did not have") \
    ARC_BYTES(R, L2_SIZE, "L2ARC Size", "l2_size", NOV, \
              "Bytes the L2ARC holds, before compression") \
    ARC_BYTES(R, L2_ASIZE, "L2ARC Allocated Size", "l2_asize", ADV, \
              "Bytes the L2ARC takes on its devices") \
    R(PL_ARC_L2_READ_BYTES, "L2ARC Read Bytes/sec", "Bytes read from the L2ARC devices per " \
      "second (/proc/spl/kstat/zfs/arcstats l2_read_bytes).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, COUNTER), PL_FIELD(S_ARC, PL_ARC_L2_READ_BYTES)) \
    R(PL_ARC_L2_WRITE_BYTES, "L2ARC Write Bytes/sec", "Bytes written to the L2ARC devices per " \
      "second (/proc/spl/kstat/zfs/arcstats l2_write_bytes).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, COUNTER), PL_FIELD(S_ARC, PL_ARC_L2_WRITE_BYTES)) \
    ARC_RATE(R, MEM_THROTTLE, "Memory Throttles/sec", "memory_throttle_count", NOV, \
             "Writes held back because memory was short") \
    ARC_BYTES(R, META_USED, "ARC Metadata Used", "arc_meta_used", NOV, \
              "Bytes of metadata in the ARC, with headers, dnodes and dbufs") \
    ARC_BYTES(R, META_LIMIT, "ARC Metadata Limit", "arc_meta_limit", ADV, \
              "Most metadata the ARC keeps (before OpenZFS 2.2)") \
    ARC_BYTES(R, DATA_SIZE, "ARC Data Size", "data_size", ADV, "Bytes of file data in the ARC") \
    ARC_BYTES(R, METADATA_SIZE, "ARC Metadata Size", "metadata_size", ADV, \
              "Bytes of metadata blocks in the ARC") \
    ARC_BYTES(R, HDR_SIZE, "ARC Header Size", "hdr_size", ADV, "Bytes of ARC buffer headers") \
    ARC_BYTES(R, COMPRESSED_SIZE, "ARC Compressed Size", "compressed_size", ADV, \
              "Bytes the ARC's data takes as stored, compressed (0.7.0 and later)") \
    ARC_BYTES(R, UNCOMPRESSED_SIZE, "ARC Uncompressed Size", "uncompressed_size", ADV, \
              "Bytes the ARC's data would take uncompressed (0.7.0 and later)") \
    ARC_RATE(R, DELETED, "ARC Deleted/sec", "deleted", ADV, "Buffers evicted from the ARC") \
    ARC_RATE(R, EVICT_SKIP, "ARC Evictions Skipped/sec", "evict_skip", ADV, \
             "Buffers eviction passed over because they were in use") \
    ARC_RATE(R, MUTEX_MISS, "ARC Mutex Misses/sec", "mutex_miss", ADV, \
             "Buffers eviction passed over because their lock was taken") \
    R(C_RATIO, "% ARC Hit Ratio", "Share of ARC reads served from memory over the interval: " \
      "the change in hits over the change in hits and misses (/proc/spl/kstat/zfs/arcstats).", \
      PERF_SAMPLE_FRACTION, C_RATIO_BASE, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_ARC, PL_ARC_HITS)) \
    R(C_RATIO_BASE, "ARC Hit Ratio Base", "ARC hits and misses (/proc/spl/kstat/zfs/arcstats " \
      "hits + misses), the base of % ARC Hit Ratio.", PERF_SAMPLE_BASE, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_SUM(S_ARC, PL_ARC_HITS, PL_ARC_MISSES))

#define ZFS_OTHER_ROWS(R) \
    RATE(R, C_ZIL, PL_ZIL_COMMIT, "ZIL Commits/sec", S_ZIL, "zil", "zil_commit_count", NOV, \
         "Intent log commits (fsync, O_SYNC writes, sync=always)", COUNT) \
    RATE(R, C_ZIL, PL_ZIL_COMMIT_WRITER, "ZIL Commit Writers/sec", S_ZIL, "zil", \
         "zil_commit_writer_count", ADV, "Intent log commits that wrote the log themselves", COUNT) \
    RATE(R, C_ZIL, PL_ZIL_ITX, "ZIL Transactions/sec", S_ZIL, "zil", "zil_itx_count", ADV, \
         "Intent log transactions committed", COUNT) \
    RATE(R, C_ZIL, PL_ZIL_NORMAL_COUNT, "ZIL Pool Writes/sec", S_ZIL, "zil", \
         "zil_itx_metaslab_normal_count", ADV, "Intent log blocks written to the main pool", COUNT) \
    RATE(R, C_ZIL, PL_ZIL_NORMAL_BYTES, "ZIL Pool Bytes/sec", S_ZIL, "zil", \
         "zil_itx_metaslab_normal_bytes", NOV, "Intent log bytes written to the main pool", BYTES) \
    RATE(R, C_ZIL, PL_ZIL_SLOG_COUNT, "ZIL SLOG Writes/sec", S_ZIL, "zil", \
         "zil_itx_metaslab_slog_count", ADV, "Intent log blocks written to log devices", COUNT) \
    RATE(R, C_ZIL, PL_ZIL_SLOG_BYTES, "ZIL SLOG Bytes/sec", S_ZIL, "zil", \
         "zil_itx_metaslab_slog_bytes", NOV, "Intent log bytes written to log devices", BYTES) \
    RATE(R, C_DMU, PL_DMU_ASSIGNED, "DMU Transactions Assigned/sec", S_DMU, "dmu_tx", \
         "dmu_tx_assigned", NOV, "Transactions assigned to a transaction group", COUNT) \
    RATE(R, C_DMU, PL_DMU_DELAY, "DMU Transaction Delays/sec", S_DMU, "dmu_tx", "dmu_tx_delay", \
         ADV, "Transactions that had to wait for the next group", COUNT) \
    RATE(R, C_DMU, PL_DMU_ERROR, "DMU Transaction Errors/sec", S_DMU, "dmu_tx", "dmu_tx_error", \
         ADV, "Transactions that failed to be assigned", COUNT) \
    RATE(R, C_DMU, PL_DMU_DIRTY_THROTTLE, "DMU Dirty Throttles/sec", S_DMU, "dmu_tx", \
         "dmu_tx_dirty_throttle", NOV, "Transactions throttled because of dirty data", COUNT) \
    RATE(R, C_DMU, PL_DMU_DIRTY_DELAY, "DMU Dirty Delays/sec", S_DMU, "dmu_tx", \
         "dmu_tx_dirty_delay", ADV, "Transactions delayed because of dirty data", COUNT) \
    RATE(R, C_DMU, PL_DMU_DIRTY_OVER_MAX, "DMU Dirty Over Max/sec", S_DMU, "dmu_tx", \
         "dmu_tx_dirty_over_max", ADV, "Transactions stopped with dirty data over its most", COUNT) \
    RATE(R, C_DMU, PL_DMU_QUOTA, "DMU Quota Failures/sec", S_DMU, "dmu_tx", "dmu_tx_quota", ADV, \
         "Transactions refused for a quota", COUNT) \
    RATE(R, C_ZF, PL_ZF_HITS, "Prefetch Stream Hits/sec", S_ZF, "zfetchstats", "hits", ADV, \
         "Reads a prefetch stream predicted", COUNT) \
    RATE(R, C_ZF, PL_ZF_MISSES, "Prefetch Stream Misses/sec", S_ZF, "zfetchstats", "misses", \
         ADV, "Reads no prefetch stream predicted", COUNT) \
    R(C_ABD + PL_ABD_STRUCT_SIZE, "ABD Struct Bytes", "Bytes of ABD (ARC buffer data) headers " \
      "(/proc/spl/kstat/zfs/abdstats struct_size).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ABD, PL_ABD_STRUCT_SIZE)) \
    R(C_ABD + PL_ABD_LINEAR_CNT, "ABD Linear Buffers", "Linear ABD buffers (/proc/spl/kstat/zfs/" \
      "abdstats linear_cnt).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_ABD, PL_ABD_LINEAR_CNT)) \
    R(C_ABD + PL_ABD_LINEAR_SIZE, "ABD Linear Bytes", "Bytes of linear ABD buffers (/proc/spl/" \
      "kstat/zfs/abdstats linear_data_size).", LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), \
      PL_FIELD(S_ABD, PL_ABD_LINEAR_SIZE)) \
    R(C_ABD + PL_ABD_SCATTER_CNT, "ABD Scatter Buffers", "Scatter ABD buffers (/proc/spl/kstat/" \
      "zfs/abdstats scatter_cnt).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_ABD, PL_ABD_SCATTER_CNT)) \
    R(C_ABD + PL_ABD_SCATTER_SIZE, "ABD Scatter Bytes", "Bytes of scatter ABD buffers (/proc/" \
      "spl/kstat/zfs/abdstats scatter_data_size).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ABD, PL_ABD_SCATTER_SIZE)) \
    R(C_ABD + PL_ABD_SCATTER_WASTE, "ABD Scatter Waste Bytes", "Bytes allocated to scatter ABD " \
      "buffers beyond their data (/proc/spl/kstat/zfs/abdstats scatter_chunk_waste).", LRAW, \
      PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ABD, PL_ABD_SCATTER_WASTE))

#define ZFS_ROWS(R) ZFS_ARC_ROWS(R) ZFS_OTHER_ROWS(R)

static const pl_counter_def counters[] = { ZFS_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { ZFS_ROWS(PL_ROW_FEED) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_zfs_arcstats, pl_kstat),
    PL_FEED_SRC_ST(&pl_ksrc_zfs_zil, pl_kstat),
    PL_FEED_SRC_ST(&pl_ksrc_zfs_dmu_tx, pl_kstat),
    PL_FEED_SRC_ST(&pl_ksrc_zfs_zfetch, pl_kstat),
    PL_FEED_SRC_ST(&pl_ksrc_zfs_abd, pl_kstat),
};

static pl_rowset rowset = { srcs, NSRC, feeds };

const pl_counterset_def pl_zfs_def = {
    /* UUIDv5(perflib namespace, "ZFS") */
    { 0x770468e8, 0x0ac8, 0x5eb5, { 0xa1, 0xe9, 0xfc, 0x02, 0x69, 0x0f, 0xd8, 0xac } },
    "ZFS",
    "OpenZFS's machine-wide statistics from /proc/spl/kstat/zfs: the ARC's sizes, hits and "
    "misses and hit ratio, the L2ARC, the intent log, DMU transactions, prefetch streams and "
    "ABD buffers; absent without the zfs module.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, NC, counters, &pl_rowset_ops, 67000, &rowset,
};
