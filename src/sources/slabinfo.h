/* /proc/slabinfo as a kernel source (pl_ksrc.h): one row per slab cache,
 * parsed once per collect (mm/slab_common.c, format "slabinfo - version:
 * 2.1" since 2.6.10):
 *
 *   name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab>
 *     : tunables <limit> <batchcount> <sharedfactor>
 *     : slabdata <active_slabs> <num_slabs> <sharedavail>
 *
 * Only root may read it (mode 0400).  The two header lines (the version,
 * and "# name ...") are no rows; a file of another version has no rows at
 * all, since its columns may mean other things.  A row whose values are
 * not this layout (missing, not decimal, cut off) has ok 0: its cache
 * still counts.  Names are cut to 63 bytes. */
#ifndef PL_SLABINFO_H
#define PL_SLABINFO_H

#include "pl_ksrc.h"
#include "rows.h"

enum {
    PL_SL_ACTIVE_OBJS, PL_SL_NUM_OBJS, PL_SL_OBJSIZE, PL_SL_OBJPERSLAB, PL_SL_PAGESPERSLAB,
    PL_SL_ACTIVE_SLABS, PL_SL_NUM_SLABS, PL_SL_N
};

typedef struct pl_slabrow {
    char name[64];
    int ok;
    uint64_t v[PL_SL_N];
} pl_slabrow;

typedef struct pl_slabinfo {
    pl_rows rows;            /* of pl_slabrow */
    int version_ok;          /* the first line said 2.1 */
} pl_slabinfo;

/* A seq_file iterator: read until 0. */
extern const pl_ksrc_def pl_ksrc_slabinfo;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_slabinfo(const char *buf, size_t len, void *out);
void pl_slabinfo_release(void *out);

#endif
