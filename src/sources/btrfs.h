/* The multi-line files of /sys/fs/btrfs/<fsid>/ (fs/btrfs/sysfs.c): lines of
 * "name value\n", one field each, the pure parsers of two of them.
 *
 * devinfo/<devid>/error_stats (Linux 5.14, btrfs_devinfo_error_stats_show):
 * write_errs, read_errs, flush_errs, corruption_errs, generation_errs, each
 * printed with %d, in the order of enum btrfs_dev_stat_values; or the one
 * line "invalid" when the kernel has not loaded the device's statistics
 * (dev_stats_valid unset, e.g. a missing device).
 *
 * commit_stats (Linux 6.0, btrfs_commit_stats_show): commits, then
 * last_commit_ms, max_commit_ms and total_commit_ms, durations divided down
 * from nanoseconds to whole milliseconds.  A later kernel (6.18 here) has
 * cur_commit_ms after commits, the running commit's time so far: not read.
 *
 * A name not listed is ignored (a later kernel may add lines).  A listed
 * name whose value is not all decimals, overflows 64 bits, repeats, or whose
 * line is cut (no '\n' before the end of the buffer) is PL_NS_BAD; a name
 * that is not there is PL_NS_ABSENT. */
#ifndef PL_BTRFS_SRC_H
#define PL_BTRFS_SRC_H

#include <stddef.h>
#include <stdint.h>

enum { PL_BTE_WRITE, PL_BTE_READ, PL_BTE_FLUSH, PL_BTE_CORRUPTION, PL_BTE_GENERATION, PL_BTE_N };

typedef struct pl_btrfs_errs {
    uint64_t v[PL_BTE_N];
    uint8_t st[PL_BTE_N];    /* PL_NS_* */
    int invalid;             /* the file said "invalid": no statistics for the device */
} pl_btrfs_errs;

enum { PL_BTC_COMMITS, PL_BTC_LAST_MS, PL_BTC_MAX_MS, PL_BTC_TOTAL_MS, PL_BTC_N };

typedef struct pl_btrfs_commits {
    uint64_t v[PL_BTC_N];
    uint8_t st[PL_BTC_N];    /* PL_NS_* */
} pl_btrfs_commits;

/* buf[0, len) (no NUL needed; safe on any bytes). */
void pl_btrfs_errs_parse(const char *buf, size_t len, pl_btrfs_errs *out);
void pl_btrfs_commits_parse(const char *buf, size_t len, pl_btrfs_commits *out);

#endif
