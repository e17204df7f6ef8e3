/* XFS's counters (xfs.c), one row each in the row form (pl_rowset.h): the
 * fields of the XFS statistics file (xfsstat.h) that node_exporter's xfs
 * collector and PCP's xfs metrics read.  A counter's id is its field's index
 * in pl_xfsstat.  The " %u" fields are 32-bit and wrap (xfs_stats_format
 * sums per-CPU __u32 counters): events are PERF_COUNTER_COUNTER and the
 * gauges PERF_COUNTER_RAWCOUNT, 4-byte counters (R4) whose deltas wrap at
 * 2^32; xpc and defer_relog are 64-bit (R, PERF_COUNTER_BULK_COUNT).
 * "Active Inodes", "Dquots" and "Unused Dquots" go up and down (the kernel
 * increments and decrements them); every other field only counts up. */
#ifndef PL_XFS_ROWS_H
#define PL_XFS_ROWS_H

#include "xfsstat.h"

#define CTR PERF_COUNTER_COUNTER
#define DRAW PERF_COUNTER_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

#define XFS_ROWS(R, R4) \
    R4(PL_XS_EXTENT_ALLOC, "Extents Allocated/sec", \
      "Extents allocated per second (/sys/fs/xfs/*/stats/stats extent_alloc " \
      "field 1, xs_allocx).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_EXTENT_ALLOC)) \
    R4(PL_XS_EXTENT_ALLOC + 1, "Blocks Allocated/sec", \
      "Filesystem blocks allocated per second (/sys/fs/xfs/*/stats/stats " \
      "extent_alloc field 2, xs_allocb).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_EXTENT_ALLOC + 1)) \
    R4(PL_XS_EXTENT_ALLOC + 2, "Extents Freed/sec", \
      "Extents freed per second (/sys/fs/xfs/*/stats/stats extent_alloc field " \
      "3, xs_freex).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_EXTENT_ALLOC + 2)) \
    R4(PL_XS_EXTENT_ALLOC + 3, "Blocks Freed/sec", \
      "Filesystem blocks freed per second (/sys/fs/xfs/*/stats/stats " \
      "extent_alloc field 4, xs_freeb).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_EXTENT_ALLOC + 3)) \
    R4(PL_XS_ABT, "Allocation Btree Lookups/sec", \
      "Lookups in the free-space (allocation) B-trees per second " \
      "(/sys/fs/xfs/*/stats/stats abt field 1, xs_abt_lookup).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ABT)) \
    R4(PL_XS_ABT + 1, "Allocation Btree Compares/sec", \
      "Record compares in the free-space B-trees per second " \
      "(/sys/fs/xfs/*/stats/stats abt field 2, xs_abt_compare).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ABT + 1)) \
    R4(PL_XS_ABT + 2, "Allocation Btree Records Inserted/sec", \
      "Records inserted into the free-space B-trees per second " \
      "(/sys/fs/xfs/*/stats/stats abt field 3, xs_abt_insrec).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ABT + 2)) \
    R4(PL_XS_ABT + 3, "Allocation Btree Records Deleted/sec", \
      "Records deleted from the free-space B-trees per second " \
      "(/sys/fs/xfs/*/stats/stats abt field 4, xs_abt_delrec).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ABT + 3)) \
    R4(PL_XS_BLK_MAP, "Block Map Reads/sec", \
      "Block mappings for reads per second (/sys/fs/xfs/*/stats/stats blk_map " \
      "field 1, xs_blk_mapr).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BLK_MAP)) \
    R4(PL_XS_BLK_MAP + 1, "Block Map Writes/sec", \
      "Block mappings for writes per second (/sys/fs/xfs/*/stats/stats blk_map " \
      "field 2, xs_blk_mapw).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BLK_MAP + 1)) \
    R4(PL_XS_BLK_MAP + 2, "Block Unmaps/sec", \
      "Block unmappings (deletes) per second (/sys/fs/xfs/*/stats/stats blk_map " \
      "field 3, xs_blk_unmap).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BLK_MAP + 2)) \
    R4(PL_XS_BLK_MAP + 3, "Extent List Insertions/sec", \
      "Insertions into inode extent lists per second (/sys/fs/xfs/*/stats/stats " \
      "blk_map field 4, xs_add_exlist).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BLK_MAP + 3)) \
    R4(PL_XS_BLK_MAP + 4, "Extent List Deletions/sec", \
      "Deletions from inode extent lists per second (/sys/fs/xfs/*/stats/stats " \
      "blk_map field 5, xs_del_exlist).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BLK_MAP + 4)) \
    R4(PL_XS_BLK_MAP + 5, "Extent List Lookups/sec", \
      "Lookups in inode extent lists per second (/sys/fs/xfs/*/stats/stats " \
      "blk_map field 6, xs_look_exlist).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BLK_MAP + 5)) \
    R4(PL_XS_BLK_MAP + 6, "Extent List Compares/sec", \
      "Compares in inode extent lists per second (/sys/fs/xfs/*/stats/stats " \
      "blk_map field 7, xs_cmp_exlist).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BLK_MAP + 6)) \
    R4(PL_XS_BMBT, "Block Map Btree Lookups/sec", \
      "Lookups in the block-map B-trees per second (/sys/fs/xfs/*/stats/stats " \
      "bmbt field 1, xs_bmbt_lookup).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BMBT)) \
    R4(PL_XS_BMBT + 1, "Block Map Btree Compares/sec", \
      "Record compares in the block-map B-trees per second " \
      "(/sys/fs/xfs/*/stats/stats bmbt field 2, xs_bmbt_compare).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BMBT + 1)) \
    R4(PL_XS_BMBT + 2, "Block Map Btree Records Inserted/sec", \
      "Records inserted into the block-map B-trees per second " \
      "(/sys/fs/xfs/*/stats/stats bmbt field 3, xs_bmbt_insrec).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BMBT + 2)) \
    R4(PL_XS_BMBT + 3, "Block Map Btree Records Deleted/sec", \
      "Records deleted from the block-map B-trees per second " \
      "(/sys/fs/xfs/*/stats/stats bmbt field 4, xs_bmbt_delrec).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BMBT + 3)) \
    R4(PL_XS_DIR, "Directory Lookups/sec", \
      "Directory lookups that missed the dentry cache per second " \
      "(/sys/fs/xfs/*/stats/stats dir field 1, xs_dir_lookup).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_DIR)) \
    R4(PL_XS_DIR + 1, "Directory Creates/sec", \
      "Directory entries created per second (/sys/fs/xfs/*/stats/stats dir " \
      "field 2, xs_dir_create).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_DIR + 1)) \
    R4(PL_XS_DIR + 2, "Directory Removes/sec", \
      "Directory entries removed per second (/sys/fs/xfs/*/stats/stats dir " \
      "field 3, xs_dir_remove).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_DIR + 2)) \
    R4(PL_XS_DIR + 3, "Directory Getdents/sec", \
      "Directory reads (getdents) per second (/sys/fs/xfs/*/stats/stats dir " \
      "field 4, xs_dir_getdents).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_DIR + 3)) \
    R4(PL_XS_TRANS, "Synchronous Transactions/sec", \
      "Transactions committed synchronously per second " \
      "(/sys/fs/xfs/*/stats/stats trans field 1, xs_trans_sync).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_TRANS)) \
    R4(PL_XS_TRANS + 1, "Asynchronous Transactions/sec", \
      "Transactions committed asynchronously per second " \
      "(/sys/fs/xfs/*/stats/stats trans field 2, xs_trans_async).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_TRANS + 1)) \
    R4(PL_XS_TRANS + 2, "Empty Transactions/sec", \
      "Transactions committed without changes per second " \
      "(/sys/fs/xfs/*/stats/stats trans field 3, xs_trans_empty).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_TRANS + 2)) \
    R4(PL_XS_IG, "Inode Get Attempts/sec", \
      "Inode cache lookups per second (/sys/fs/xfs/*/stats/stats ig field 1, " \
      "xs_ig_attempts).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_IG)) \
    R4(PL_XS_IG + 1, "Inode Cache Hits/sec", \
      "Inode lookups found in the cache per second (/sys/fs/xfs/*/stats/stats " \
      "ig field 2, xs_ig_found).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_IG + 1)) \
    R4(PL_XS_IG + 2, "Inode Recycles/sec", \
      "Inodes found in the cache being reclaimed and recycled per second " \
      "(/sys/fs/xfs/*/stats/stats ig field 3, xs_ig_frecycle).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_IG + 2)) \
    R4(PL_XS_IG + 3, "Inode Cache Misses/sec", \
      "Inode lookups not found in the cache per second " \
      "(/sys/fs/xfs/*/stats/stats ig field 4, xs_ig_missed).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_IG + 3)) \
    R4(PL_XS_IG + 4, "Inode Cache Duplicates/sec", \
      "Inodes read that another thread had added to the cache first, per second " \
      "(/sys/fs/xfs/*/stats/stats ig field 5, xs_ig_dup).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_IG + 4)) \
    R4(PL_XS_IG + 5, "Inode Reclaims/sec", \
      "Inodes reclaimed from the cache per second (/sys/fs/xfs/*/stats/stats ig " \
      "field 6, xs_ig_reclaims).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_IG + 5)) \
    R4(PL_XS_IG + 6, "Inode Attribute Changes/sec", \
      "Inode attribute changes per second (/sys/fs/xfs/*/stats/stats ig field " \
      "7, xs_ig_attrchg).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_IG + 6)) \
    R4(PL_XS_LOG, "Log Writes/sec", \
      "Log buffer writes to the log per second (/sys/fs/xfs/*/stats/stats log " \
      "field 1, xs_log_writes).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_LOG)) \
    R4(PL_XS_LOG + 1, "Log Blocks/sec", \
      "512-byte blocks written to the log per second (/sys/fs/xfs/*/stats/stats " \
      "log field 2, xs_log_blocks).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_LOG + 1)) \
    R4(PL_XS_LOG + 2, "Log No Iclogs/sec", \
      "Times per second no in-core log buffer was free to write into " \
      "(/sys/fs/xfs/*/stats/stats log field 3, xs_log_noiclogs).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_LOG + 2)) \
    R4(PL_XS_LOG + 3, "Log Forces/sec", \
      "Log forces (flushes of the in-core log to disk) per second " \
      "(/sys/fs/xfs/*/stats/stats log field 4, xs_log_force).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_LOG + 3)) \
    R4(PL_XS_LOG + 4, "Log Force Sleeps/sec", \
      "Log forces that had to wait per second (/sys/fs/xfs/*/stats/stats log " \
      "field 5, xs_log_force_sleep).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_LOG + 4)) \
    R4(PL_XS_PUSH_AIL, "Log Space Tries/sec", \
      "Attempts to reserve log space per second (/sys/fs/xfs/*/stats/stats " \
      "push_ail field 1, xs_try_logspace).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL)) \
    R4(PL_XS_PUSH_AIL + 1, "Log Space Sleeps/sec", \
      "Log space reservations that had to wait per second " \
      "(/sys/fs/xfs/*/stats/stats push_ail field 2, xs_sleep_logspace).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 1)) \
    R4(PL_XS_PUSH_AIL + 2, "AIL Pushes/sec", \
      "Pushes of the active item list (AIL) per second " \
      "(/sys/fs/xfs/*/stats/stats push_ail field 3, xs_push_ail).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 2)) \
    R4(PL_XS_PUSH_AIL + 3, "AIL Push Successes/sec", \
      "Items pushed from the AIL per second (/sys/fs/xfs/*/stats/stats push_ail " \
      "field 4, xs_push_ail_success).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 3)) \
    R4(PL_XS_PUSH_AIL + 4, "AIL Push Buffers/sec", \
      "AIL items whose buffer was pushed per second (/sys/fs/xfs/*/stats/stats " \
      "push_ail field 5, xs_push_ail_pushbuf).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 4)) \
    R4(PL_XS_PUSH_AIL + 5, "AIL Pinned Items/sec", \
      "AIL items found pinned per second (/sys/fs/xfs/*/stats/stats push_ail " \
      "field 6, xs_push_ail_pinned).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 5)) \
    R4(PL_XS_PUSH_AIL + 6, "AIL Locked Items/sec", \
      "AIL items found locked per second (/sys/fs/xfs/*/stats/stats push_ail " \
      "field 7, xs_push_ail_locked).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 6)) \
    R4(PL_XS_PUSH_AIL + 7, "AIL Flushing Items/sec", \
      "AIL items found being flushed per second (/sys/fs/xfs/*/stats/stats " \
      "push_ail field 8, xs_push_ail_flushing).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 7)) \
    R4(PL_XS_PUSH_AIL + 8, "AIL Push Restarts/sec", \
      "AIL push restarts per second (/sys/fs/xfs/*/stats/stats push_ail field " \
      "9, xs_push_ail_restarts).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 8)) \
    R4(PL_XS_PUSH_AIL + 9, "AIL Flushes/sec", \
      "Log forces made by AIL pushing per second (/sys/fs/xfs/*/stats/stats " \
      "push_ail field 10, xs_push_ail_flush).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_PUSH_AIL + 9)) \
    R4(PL_XS_XSTRAT, "Xstrat Quick/sec", \
      "Delayed-allocation conversions done in one extent per second " \
      "(/sys/fs/xfs/*/stats/stats xstrat field 1, xs_xstrat_quick).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_XSTRAT)) \
    R4(PL_XS_XSTRAT + 1, "Xstrat Split/sec", \
      "Delayed-allocation conversions that needed several extents per second " \
      "(/sys/fs/xfs/*/stats/stats xstrat field 2, xs_xstrat_split).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_XSTRAT + 1)) \
    R4(PL_XS_RW, "Write Calls/sec", \
      "Write calls to files per second (the first rw field) " \
      "(/sys/fs/xfs/*/stats/stats rw field 1, xs_write_calls).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_RW)) \
    R4(PL_XS_RW + 1, "Read Calls/sec", \
      "Read calls to files per second (the second rw field) " \
      "(/sys/fs/xfs/*/stats/stats rw field 2, xs_read_calls).", \
      CTR, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_RW + 1)) \
    R4(PL_XS_ATTR, "Attribute Gets/sec", \
      "Extended attribute gets per second (/sys/fs/xfs/*/stats/stats attr field " \
      "1, xs_attr_get).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ATTR)) \
    R4(PL_XS_ATTR + 1, "Attribute Sets/sec", \
      "Extended attribute sets per second (/sys/fs/xfs/*/stats/stats attr field " \
      "2, xs_attr_set).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ATTR + 1)) \
    R4(PL_XS_ATTR + 2, "Attribute Removes/sec", \
      "Extended attribute removes per second (/sys/fs/xfs/*/stats/stats attr " \
      "field 3, xs_attr_remove).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ATTR + 2)) \
    R4(PL_XS_ATTR + 3, "Attribute Lists/sec", \
      "Extended attribute lists per second (/sys/fs/xfs/*/stats/stats attr " \
      "field 4, xs_attr_list).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ATTR + 3)) \
    R4(PL_XS_ICLUSTER, "Inode Flushes/sec", \
      "Inode flushes per second (/sys/fs/xfs/*/stats/stats icluster field 1, " \
      "xs_iflush_count).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ICLUSTER)) \
    R4(PL_XS_ICLUSTER + 1, "Inode Cluster Flushes/sec", \
      "Inode cluster flushes per second (/sys/fs/xfs/*/stats/stats icluster " \
      "field 2, xs_icluster_flushcnt).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ICLUSTER + 1)) \
    R4(PL_XS_ICLUSTER + 2, "Inodes Flushed In Clusters/sec", \
      "Inodes flushed along with a cluster per second " \
      "(/sys/fs/xfs/*/stats/stats icluster field 3, xs_icluster_flushinode).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_ICLUSTER + 2)) \
    R4(PL_XS_VNODES, "Active Inodes", \
      "Inodes in memory now (vn_active; xs_inodes_active in 6.x) " \
      "(/sys/fs/xfs/*/stats/stats vnodes field 1, vn_active).", \
      DRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_XS, PL_XS_VNODES)) \
    R4(PL_XS_VNODES + 1, "Vnode Allocations/sec", \
      "vn_alloc calls per second (not counted by current kernels) " \
      "(/sys/fs/xfs/*/stats/stats vnodes field 2, vn_alloc).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_VNODES + 1)) \
    R4(PL_XS_VNODES + 2, "Vnode Gets/sec", \
      "vn_get calls per second (not counted by current kernels) " \
      "(/sys/fs/xfs/*/stats/stats vnodes field 3, vn_get).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_VNODES + 2)) \
    R4(PL_XS_VNODES + 3, "Vnode Holds/sec", \
      "vn_hold calls per second (not counted by current kernels) " \
      "(/sys/fs/xfs/*/stats/stats vnodes field 4, vn_hold).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_VNODES + 3)) \
    R4(PL_XS_VNODES + 4, "Vnode Releases/sec", \
      "Inodes released per second (vn_rele; xs_inode_destroy in 6.x) " \
      "(/sys/fs/xfs/*/stats/stats vnodes field 5, vn_rele).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_VNODES + 4)) \
    R4(PL_XS_VNODES + 5, "Vnode Reclaims/sec", \
      "Inodes reclaimed per second (vn_reclaim; xs_inode_destroy2 in 6.x) " \
      "(/sys/fs/xfs/*/stats/stats vnodes field 6, vn_reclaim).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_VNODES + 5)) \
    R4(PL_XS_VNODES + 6, "Vnode Removes/sec", \
      "Inodes marked reclaimable per second (vn_remove; " \
      "xs_inode_mark_reclaimable in 6.x) (/sys/fs/xfs/*/stats/stats vnodes " \
      "field 7, vn_remove).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_VNODES + 6)) \
    R4(PL_XS_VNODES + 7, "Vnode Frees/sec", \
      "vn_free calls per second (not counted by current kernels; older kernels " \
      "have 7 vnodes fields and no value) (/sys/fs/xfs/*/stats/stats vnodes " \
      "field 8, vn_free).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_VNODES + 7)) \
    R4(PL_XS_BUF, "Buffer Gets/sec", \
      "Buffer lookups per second (/sys/fs/xfs/*/stats/stats buf field 1, " \
      "xb_get).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF)) \
    R4(PL_XS_BUF + 1, "Buffer Creates/sec", \
      "Buffers created per second (/sys/fs/xfs/*/stats/stats buf field 2, " \
      "xb_create).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 1)) \
    R4(PL_XS_BUF + 2, "Buffer Locked Gets/sec", \
      "Buffers found in the cache and locked per second " \
      "(/sys/fs/xfs/*/stats/stats buf field 3, xb_get_locked).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 2)) \
    R4(PL_XS_BUF + 3, "Buffer Locked Get Waits/sec", \
      "Cached buffers that had to wait for their lock per second " \
      "(/sys/fs/xfs/*/stats/stats buf field 4, xb_get_locked_waited).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 3)) \
    R4(PL_XS_BUF + 4, "Buffer Busy Locked/sec", \
      "Cached buffers found locked by a trylock per second " \
      "(/sys/fs/xfs/*/stats/stats buf field 5, xb_busy_locked).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 4)) \
    R4(PL_XS_BUF + 5, "Buffer Missed Locked/sec", \
      "Buffer lookups that missed the cache per second " \
      "(/sys/fs/xfs/*/stats/stats buf field 6, xb_miss_locked).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 5)) \
    R4(PL_XS_BUF + 6, "Buffer Page Retries/sec", \
      "Page allocation retries for buffers per second " \
      "(/sys/fs/xfs/*/stats/stats buf field 7, xb_page_retries).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 6)) \
    R4(PL_XS_BUF + 7, "Buffer Pages Found/sec", \
      "Buffer pages found in the page cache per second " \
      "(/sys/fs/xfs/*/stats/stats buf field 8, xb_page_found).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 7)) \
    R4(PL_XS_BUF + 8, "Buffer Get Reads/sec", \
      "Buffer reads from disk per second (/sys/fs/xfs/*/stats/stats buf field " \
      "9, xb_get_read).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_BUF + 8)) \
    R4(PL_XS_QM, "Dquot Reclaims/sec", \
      "Quota dquots reclaimed per second (/sys/fs/xfs/*/stats/stats qm field 1, " \
      "xs_qm_dqreclaims).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_QM)) \
    R4(PL_XS_QM + 1, "Dquot Reclaim Misses/sec", \
      "Dquot reclaims that failed per second (/sys/fs/xfs/*/stats/stats qm " \
      "field 2, xs_qm_dqreclaim_misses).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_QM + 1)) \
    R4(PL_XS_QM + 2, "Dquot Duplicates/sec", \
      "Dquots read that another thread had cached first, per second " \
      "(/sys/fs/xfs/*/stats/stats qm field 3, xs_qm_dquot_dups).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_QM + 2)) \
    R4(PL_XS_QM + 3, "Dquot Cache Misses/sec", \
      "Dquot lookups not found in the cache per second " \
      "(/sys/fs/xfs/*/stats/stats qm field 4, xs_qm_dqcachemisses).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_QM + 3)) \
    R4(PL_XS_QM + 4, "Dquot Cache Hits/sec", \
      "Dquot lookups found in the cache per second (/sys/fs/xfs/*/stats/stats " \
      "qm field 5, xs_qm_dqcachehits).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_QM + 4)) \
    R4(PL_XS_QM + 5, "Dquot Wants/sec", \
      "Dquot reclaim wanted per second (/sys/fs/xfs/*/stats/stats qm field 6, " \
      "xs_qm_dqwants).", \
      CTR, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_QM + 5)) \
    R4(PL_XS_QM + 6, "Dquots", \
      "Quota dquots in memory now (/sys/fs/xfs/*/stats/stats qm field 7, " \
      "xs_qm_dquot).", \
      DRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_XS, PL_XS_QM + 6)) \
    R4(PL_XS_QM + 7, "Unused Dquots", \
      "Quota dquots in memory on the free list now (/sys/fs/xfs/*/stats/stats " \
      "qm field 8, xs_qm_dquot_unused).", \
      DRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_XS, PL_XS_QM + 7)) \
    R(PL_XS_XPC, "Xstrat Bytes/sec", \
      "Bytes flushed out by delayed-allocation conversion per second (64-bit) " \
      "(/sys/fs/xfs/*/stats/stats xpc field 1, xs_xstrat_bytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_FIELD(S_XS, PL_XS_XPC)) \
    R(PL_XS_XPC + 1, "Write Bytes/sec", \
      "Bytes written through write calls per second (64-bit) " \
      "(/sys/fs/xfs/*/stats/stats xpc field 2, xs_write_bytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_FIELD(S_XS, PL_XS_XPC + 1)) \
    R(PL_XS_XPC + 2, "Read Bytes/sec", \
      "Bytes read through read calls per second (64-bit) " \
      "(/sys/fs/xfs/*/stats/stats xpc field 3, xs_read_bytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_FIELD(S_XS, PL_XS_XPC + 2)) \
    R(PL_XS_DEFER_RELOG, "Deferred Relogs/sec", \
      "Deferred intent items relogged per second (5.10+; 64-bit) " \
      "(/sys/fs/xfs/*/stats/stats defer_relog field 1, defer_relog).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_XS, PL_XS_DEFER_RELOG))


#endif
