/* /proc/cpuinfo as a kernel source (pl_ksrc.h): each processor's "cpu MHz",
 * the frequency Processor Information reports on machines without cpufreq.
 * Read once per collect for every set of the machine that wants it.
 *
 * A "processor : N" line (N below PL_STAT_MAXCPU) starts a CPU's record;
 * its "cpu MHz : 2394.456" line is rounded half up on the first decimal
 * (2394).  mhz_st[N] is PL_NS_ABSENT for a CPU without such a line,
 * PL_NS_BAD for a value that is not a whole decimal. */
#ifndef PL_CPUINFO_H
#define PL_CPUINFO_H

#include "pl_ksrc.h"
#include "netsnmp.h"

typedef struct pl_cpuinfo {
    uint64_t *mhz;           /* by CPU number */
    uint8_t *mhz_st;         /* PL_NS_* */
    uint32_t n, cap;         /* the highest CPU number + 1; the arrays' size */
} pl_cpuinfo;

extern const pl_ksrc_def pl_ksrc_cpuinfo;

/* The pure parser (buf[len] is '\0'): 0 or ENOMEM. */
int pl_parse_cpuinfo(const char *buf, size_t len, void *out);
void pl_release_cpuinfo(void *out);

#endif
