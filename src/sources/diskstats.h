/* /proc/diskstats as a kernel source (pl_ksrc.h): one row per device line,
 * parsed once per collect for PhysicalDisk and LogicalDisk, which keep
 * their own unwrapping and _Total state over the rows (disk.h).
 *
 * A row holds the line's major, minor and name and its values, fields 4 ..
 * 20 of the kernel's documentation in order.  The kernel writes 11, 15
 * (4.18) or 17 (5.5) values and later kernels may add more (the first 17
 * are kept); any other count is a cut or damaged line: nf 0, values unset.
 * Old 2.6.0-2.6.24 partition lines (4 values, another layout) and lines
 * without a device number and name are no rows. */
#ifndef PL_DISKSTATS_H
#define PL_DISKSTATS_H

#include "pl_ksrc.h"
#include "rows.h"

#define PL_DS_FIELDS 17

typedef struct pl_dsrow {
    uint32_t major, minor;    /* major < 4096, minor < 2^20 */
    char name[40];
    int nf;                   /* 11, 15 or 17 values; 0 = malformed */
    uint64_t raw[PL_DS_FIELDS];  /* the values, 0 past nf */
} pl_dsrow;

/* The parsed file: a pl_rows of pl_dsrow. */
typedef pl_rows pl_dstab;

/* A seq_file iterator: read until 0. */
extern const pl_ksrc_def pl_ksrc_diskstats;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_diskstats(const char *buf, size_t len, void *out);

#endif
