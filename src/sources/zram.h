/* The number lines of /sys/block/zramN (Documentation/admin-guide/blockdev/
 * zram.rst): mm_stat, io_stat and bd_stat are one line of blank-separated
 * unsigned decimals each, with fields appended over kernel versions.  The
 * pure parser of such a line. */
#ifndef PL_ZRAM_SRC_H
#define PL_ZRAM_SRC_H

#include <stdint.h>

/* mm_stat's fields in order, as zram.rst lists them: the first seven came
 * with mm_stat itself (same_pages and pages_compacted had older names,
 * zero_pages and num_migrated); huge_pages and huge_pages_since were
 * appended later, and newer kernels append more (objs_moved), which are
 * ignored.  A shorter line leaves the fields it lacks unset. */
enum {
    PL_ZMM_ORIG, PL_ZMM_COMPR, PL_ZMM_USED, PL_ZMM_LIMIT, PL_ZMM_USED_MAX, PL_ZMM_SAME,
    PL_ZMM_COMPACTED, PL_ZMM_HUGE, PL_ZMM_HUGE_SINCE, PL_ZMM_FIELDS
};
/* io_stat: failed_reads failed_writes invalid_io notify_free. */
enum { PL_ZIO_FAILED_READS, PL_ZIO_FAILED_WRITES, PL_ZIO_INVALID, PL_ZIO_NOTIFY_FREE, PL_ZIO_FIELDS };
/* bd_stat (CONFIG_ZRAM_WRITEBACK, 4.14): bd_count bd_reads bd_writes, in 4 KiB units. */
enum { PL_ZBD_COUNT, PL_ZBD_READS, PL_ZBD_WRITES, PL_ZBD_FIELDS };

/* The decimals of the line at p (NUL-terminated; a trailing '\n' allowed)
 * into v[0..max): their count (at most max; more on the line are ignored),
 * or -1 when a field is not a decimal or overflows 64 bits (then nothing
 * of the line is believed). */
int pl_zram_fields(const char *p, uint64_t *v, int max);

#endif
