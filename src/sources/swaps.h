/* /proc/swaps as a kernel source (pl_ksrc.h): one row per active swap area,
 * parsed once per collect.
 *
 * A row's name is the file name with the kernel's octal escapes undone
 * (\040 is a space), kept in the struct's name pool; the header line and
 * blank lines are no rows.  Size and Used are in bytes (the file's KiB x
 * 1024).  ok is 0 for a line whose values are malformed, cut off (no '\n'),
 * out of range (a priority beyond +-2^31, sizes that overflow in bytes) or
 * inconsistent (Used above Size): its name still counts. */
#ifndef PL_SWAPS_H
#define PL_SWAPS_H

#include "pl_ksrc.h"
#include "rows.h"

typedef struct pl_swaprow {
    size_t name;              /* offset of its name in pool */
    int ok;
    uint64_t size, used;      /* bytes */
    int64_t prio;
} pl_swaprow;

typedef struct pl_swaps {
    pl_rows rows;             /* of pl_swaprow */
    char *pool;               /* the names, each '\0'-terminated; grown and kept */
    size_t plen, pcap;
} pl_swaps;

/* A seq_file iterator: read until 0. */
extern const pl_ksrc_def pl_ksrc_swaps;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_swaps(const char *buf, size_t len, void *out);

#endif
