/* The kernel files that hold one unsigned decimal on one line (sysctls
 * such as nf_conntrack_count, sysfs attributes such as
 * /sys/kernel/mm/ksm/pages_shared), as kernel sources: each file is its own
 * pl_ksrc_def with this parser.  st[0] is PL_NS_OK with v[0]; PL_NS_BAD for
 * anything else (a sign, a second number, garbage, past 2^64-1);
 * PL_NS_ABSENT for an empty read. */
#ifndef PL_ONEVALUE_H
#define PL_ONEVALUE_H

#include "pl_ksrc.h"

typedef struct pl_onevalue {
    uint64_t v[1];
    uint8_t st[1];
} pl_onevalue;

/* The pure parser (buf[len] is '\0'; safe on any bytes): always 0. */
int pl_parse_onevalue(const char *buf, size_t len, void *out);

/* A source of one such file below the root (whole per read). */
#define PL_ONEVALUE_SRC(path) \
    { path, sizeof(pl_onevalue), PL_KSRC_WHOLE, pl_parse_onevalue, NULL }

#endif
