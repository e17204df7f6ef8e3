/* /proc/net/softnet_stat as a kernel source (pl_ksrc.h): one row per online
 * CPU of the network stack's per-CPU receive statistics (net/core/
 * net-procfs.c softnet_seq_show), parsed once per collect.
 *
 * Each line is %08x fields of 32-bit counters: processed, dropped,
 * time_squeeze, five zeros, cpu_collision (0 since 4.x), received_rps
 * (2.6.35), flow_limit_count (3.11), then backlog length and the CPU's
 * index (5.10); later kernels append more, which are ignored.  Before 5.10
 * the lines are the online CPUs in order, without their index.  A line
 * with a field that is not 1-8 hex digits, or cut off (no '\n'), has nf 0:
 * its values are unset, never guessed. */
#ifndef PL_SOFTNET_H
#define PL_SOFTNET_H

#include "pl_ksrc.h"
#include "rows.h"

enum {
    PL_SN_PROCESSED, PL_SN_DROPPED, PL_SN_SQUEEZED,
    PL_SN_COLLISION = 8, PL_SN_RPS, PL_SN_FLOW_LIMIT, PL_SN_BACKLOG, PL_SN_CPU,
    PL_SN_FIELDS             /* kept: the 13 of 5.10 */
};

typedef struct pl_snrow {
    int nf;                  /* fields on the line (at most PL_SN_FIELDS kept); 0 = malformed */
    uint32_t v[PL_SN_FIELDS];
} pl_snrow;

/* The parsed file: a pl_rows of pl_snrow. */
typedef pl_rows pl_softnet;

/* A seq_file iterator: read until 0. */
extern const pl_ksrc_def pl_ksrc_softnet;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_softnet(const char *buf, size_t len, void *out);

#endif
