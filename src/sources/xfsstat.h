/* XFS statistics files: the per-filesystem /sys/fs/xfs/<dev>/stats/stats
 * (Linux 4.4, "xfs: per-filesystem stats in sysfs") and the global
 * /sys/fs/xfs/stats/stats (/proc/fs/xfs/stat is a symlink to it since 4.4).
 * Both are made by xfs_stats_format (fs/xfs/xfs_stats.c): one line per group,
 * its name and the group's counters of struct __xfsstats (fs/xfs/xfs_stats.h)
 * as " %u" (32-bit, summed over CPUs, wrapping), then "xpc" with three
 * " %llu" byte counts, "defer_relog %llu" (5.10) and "debug 0|1".  Lines came
 * and went over versions (rmapbt 4.8, refcntbt 4.9, rmapbt_mem, rcbagbt,
 * rtrmapbt... 6.x), so lines are found by their name; a line's fields are by
 * position, and a line may have fewer than this parser knows (vnodes had 7
 * before vn_free), which leaves the rest unset.  The pure parser. */
#ifndef PL_XFSSTAT_H
#define PL_XFSSTAT_H

#include <stddef.h>
#include <stdint.h>

/* The first field of each line this parser takes, in the file's order; a
 * line's fields run to the next line's first.  Fields in struct __xfsstats
 * order (6.18 names where they were renamed). */
enum {
    PL_XS_EXTENT_ALLOC = 0,                     /* allocx allocb freex freeb */
    PL_XS_ABT = PL_XS_EXTENT_ALLOC + 4,         /* lookup compare insrec delrec */
    PL_XS_BLK_MAP = PL_XS_ABT + 4,              /* mapr mapw unmap add_ del_ look_ cmp_exlist */
    PL_XS_BMBT = PL_XS_BLK_MAP + 7,             /* lookup compare insrec delrec */
    PL_XS_DIR = PL_XS_BMBT + 4,                 /* lookup create remove getdents */
    PL_XS_TRANS = PL_XS_DIR + 4,                /* sync async empty */
    PL_XS_IG = PL_XS_TRANS + 3,                 /* attempts found frecycle missed dup reclaims attrchg */
    PL_XS_LOG = PL_XS_IG + 7,                   /* writes blocks noiclogs force force_sleep */
    PL_XS_PUSH_AIL = PL_XS_LOG + 5,             /* try_ sleep_logspace push_ail success pushbuf
                                                   pinned locked flushing restarts flush */
    PL_XS_XSTRAT = PL_XS_PUSH_AIL + 10,         /* quick split */
    PL_XS_RW = PL_XS_XSTRAT + 2,                /* write_calls read_calls (write first) */
    PL_XS_ATTR = PL_XS_RW + 2,                  /* get set remove list */
    PL_XS_ICLUSTER = PL_XS_ATTR + 4,            /* iflush_count flushcnt flushinode */
    PL_XS_VNODES = PL_XS_ICLUSTER + 3,          /* active alloc get hold rele reclaim remove free */
    PL_XS_BUF = PL_XS_VNODES + 8,               /* get create get_locked get_locked_waited
                                                   busy_locked miss_locked page_retries
                                                   page_found get_read */
    PL_XS_QM = PL_XS_BUF + 9,                   /* dqreclaims dqreclaim_misses dquot_dups
                                                   dqcachemisses dqcachehits dqwants dquot
                                                   dquot_unused */
    PL_XS_XPC = PL_XS_QM + 8,                   /* xstrat_bytes write_bytes read_bytes (64-bit) */
    PL_XS_DEFER_RELOG = PL_XS_XPC + 3,          /* defer_relog (64-bit) */
    PL_XS_FIELDS = PL_XS_DEFER_RELOG + 1
};

typedef struct pl_xfsstat {
    uint64_t v[PL_XS_FIELDS];
    uint8_t st[PL_XS_FIELDS];    /* 1 (PL_NS_OK) where the file had the field, else 0 */
    unsigned bad;                /* known lines not believed: malformed or repeated */
} pl_xfsstat;

/* Parses buf[0..len) (any bytes; no NUL needed) into *out, cleared first.
 * Only lines ending in '\n' are read: the kernel formats into one page, and
 * a line cut there is left out.  A known line whose fields are not all
 * decimals separated by blanks, or that overflows its width (32 bits, 64
 * for xpc and defer_relog), or that appears twice, sets none of its fields.
 * Unknown lines and fields past those known are ignored.  The number of
 * fields set. */
int pl_xfsstat_parse(const char *buf, size_t len, pl_xfsstat *out);

#endif
