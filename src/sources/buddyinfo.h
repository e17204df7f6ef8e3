/* /proc/buddyinfo as a kernel source (pl_ksrc.h): one row per memory zone
 * of each NUMA node with the free blocks of every order of the page
 * allocator (mm/vmstat.c frag_show_print), parsed once per collect.
 *
 *   Node 0, zone   Normal    676  11397   4559 ...
 *
 * A block of order k is 2^k pages.  The number of orders is the kernel's
 * (NR_PAGE_ORDERS: 11 on x86-64, up to 14 elsewhere): norders says how
 * many the line has, at most PL_BI_ORDERS kept.  A line that is not this
 * layout (no "Node N, zone NAME", a value that is not a decimal, cut off)
 * has norders 0: its zone still counts, its values are unset. */
#ifndef PL_BUDDYINFO_H
#define PL_BUDDYINFO_H

#include "pl_ksrc.h"
#include "rows.h"

#define PL_BI_ORDERS 16

typedef struct pl_birow {
    uint32_t node;
    char zone[16];           /* "DMA", "DMA32", "Normal", "Movable" ...; cut to 15 bytes */
    int norders;             /* 0 = malformed */
    uint64_t blocks[PL_BI_ORDERS];
} pl_birow;

/* The parsed file: a pl_rows of pl_birow. */
typedef pl_rows pl_buddyinfo;

/* A seq_file iterator: read until 0. */
extern const pl_ksrc_def pl_ksrc_buddyinfo;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_buddyinfo(const char *buf, size_t len, void *out);

#endif
