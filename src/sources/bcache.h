/* The texts of bcache's sysfs attributes (Documentation/admin-guide/
 * bcache.rst; drivers/md/bcache/sysfs.c, util.c, stats.c): pure parsers of
 * the sizes bch_hprint writes, of a cache device's priority_stats and of a
 * backing device's state. */
#ifndef PL_BCACHE_SRC_H
#define PL_BCACHE_SRC_H

#include <stddef.h>
#include <stdint.h>

/* A size as bch_hprint (drivers/md/bcache/util.c) prints it, with the '\n'
 * of sysfs_hprint.  Since Linux 4.14 ("bcache: fix bch_hprint crash and
 * improve output", also taken by stable kernels of the time, so the kernel
 * version does not tell) it is "%llu.%i%c": the value shifted right by 10 at
 * least once and until under 1000, one digit t * 10 / 1024 of the last
 * remainder t, and the unit of "kMGTPEZY" ("0.5k" is 512, "1.2M" about
 * 1.2 MiB).  Before, values under 1024 were bare decimals ("512", exact),
 * and larger ones "%lli" with ".%i" of t / 100 (0 to 10) only under 100
 * ("1.10k" is about 2 KiB).  Either way the digit is taken as tenths of the
 * unit, floored: q x 1024^u + d x 1024^u / 10 ("1.2M" = 1048576 + 209715 =
 * 1258291), so a printed size is approximate to about a tenth of its unit;
 * a bare decimal is exact.  st: PL_NS_OK, PL_NS_ABSENT (empty) or
 * PL_NS_BAD (anything else: a sign, a unit beyond 'E', two digits but
 * "10", garbage, 64-bit overflow). */
typedef struct pl_bch_size {
    uint64_t v;
    uint8_t st;
    uint8_t exact;           /* a bare decimal: the value itself */
} pl_bch_size;

pl_bch_size pl_bch_size_parse(const char *buf, size_t len);

/* A cache device's priority_stats (sysfs.c, __bch_cache_show): lines
 * "Unused:\t\t%zu%%", "Clean:", "Dirty:", "Metadata:\t%zu%%" and
 * "Average:\t%llu", then "Sectors per Q:" and "Quantiles:" (ignored).
 * Clean and Dirty came later than the others; a line the file lacks, or
 * one that is not "<key>:<blanks><digits>[%]" with the '%' where the
 * kernel puts it, leaves its field unset (st PL_NS_ABSENT or PL_NS_BAD). */
enum { PL_BCHP_UNUSED, PL_BCHP_CLEAN, PL_BCHP_DIRTY, PL_BCHP_METADATA, PL_BCHP_AVERAGE, PL_BCHP_N };
typedef struct pl_bch_prio {
    uint64_t v[PL_BCHP_N];
    uint8_t st[PL_BCHP_N];
} pl_bch_prio;

void pl_bch_prio_parse(const char *buf, size_t len, pl_bch_prio *out);

/* A backing device's state (sysfs.c, __bch_cached_dev_show: BDEV_STATE of
 * the superblock): "no cache" 0, "clean" 1, "dirty" 2, "inconsistent" 3;
 * -1 for anything else. */
int pl_bch_state(const char *buf, size_t len);

/* A cache set's directory name: the set's UUID as %pU prints it (36
 * characters, lower-case hex with dashes at 8, 13, 18, 23); 1 or 0.  The
 * other entries of /sys/fs/bcache (register, register_quiet,
 * pendings_cleanup) are not sets. */
int pl_bch_is_uuid(const char *name);

#endif
