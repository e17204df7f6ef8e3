/* /proc/schedstat as a kernel source (pl_ksrc.h): the scheduler's per-CPU
 * statistics (kernel/sched/stats.c show_schedstat), parsed once per
 * collect.  It exists with CONFIG_SCHEDSTATS.
 *
 *   version 15
 *   timestamp 4295678922
 *   cpu0 0 0 2541476 1178082 1363212 1110478 71364116372 4128637609 1352108
 *   domain0 00000003 ...
 *
 * The cpu line of versions 15 to 17 (2.6.x's 14 had another) holds
 * yld_count, a 0, sched_count, sched_goidle, ttwu_count, ttwu_local,
 * rq_cpu_time (ns the CPU ran tasks), run_delay (ns tasks waited on its run
 * queue) and pcount (timeslices).  Another version gives no rows at all;
 * domain lines are not read.  A cpu line that is cut, short or not decimal
 * has ok 0. */
#ifndef PL_SCHEDSTAT_H
#define PL_SCHEDSTAT_H

#include "pl_ksrc.h"
#include "rows.h"

enum {
    PL_SS_YLD, PL_SS_ZERO, PL_SS_SCHED, PL_SS_GOIDLE, PL_SS_TTWU, PL_SS_TTWU_LOCAL,
    PL_SS_RUN_NS, PL_SS_WAIT_NS, PL_SS_SLICES, PL_SCHED_N
};

typedef struct pl_schedrow {
    uint32_t cpu;
    int ok;
    uint64_t v[PL_SCHED_N];
} pl_schedrow;

typedef struct pl_schedstat {
    pl_rows rows;            /* of pl_schedrow, cpu lines only */
    uint64_t version;        /* 0: no version line */
} pl_schedstat;

extern const pl_ksrc_def pl_ksrc_schedstat;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_schedstat(const char *buf, size_t len, void *out);
void pl_schedstat_release(void *out);

#endif
