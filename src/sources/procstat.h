/* /proc/stat as a kernel source (pl_ksrc.h): the cpu lines with their
 * numbers, and the one-number lines (ctxt, btime, processes, procs_running,
 * procs_blocked) with the first number of the intr and softirq lines (their
 * totals), parsed once per collect for Processor Information, Processor and
 * System.
 *
 * A cpu line counts when it has a CPU number below 65536 (the aggregate
 * "cpu " line has none) and at least user, nice, system and idle; any other
 * cpu line sets bad_cpu and is not a row.  A key's st is PL_NS_ABSENT
 * when the file has no such line, PL_NS_BAD when its value is not one whole
 * unsigned number (for ctxt ... procs_blocked: the only token of the line),
 * else PL_NS_OK with v.  The first line of a key counts. */
#ifndef PL_PROCSTAT_H
#define PL_PROCSTAT_H

#include "pl_ksrc.h"
#include "netsnmp.h"

/* the numbers of a cpu line, in the kernel's order */
enum { PL_STAT_US, PL_STAT_NI, PL_STAT_SY, PL_STAT_ID, PL_STAT_WA, PL_STAT_HI, PL_STAT_SI,
       PL_STAT_ST, PL_STAT_GU, PL_STAT_GN, PL_STAT_NF };

/* the other lines */
enum { PL_STAT_CTXT, PL_STAT_BTIME, PL_STAT_PROCESSES, PL_STAT_RUNNING, PL_STAT_BLOCKED,
       PL_STAT_INTR, PL_STAT_SOFTIRQ, PL_STAT_NKEYS };

#define PL_STAT_MAXCPU 65536u   /* beyond any kernel's NR_CPUS */

typedef struct pl_stat_cpu {
    uint32_t id;             /* N of cpuN */
    uint32_t nf;             /* numbers the line had, 4..PL_STAT_NF; the rest are 0 */
    uint64_t f[PL_STAT_NF];
} pl_stat_cpu;

typedef struct pl_procstat {
    pl_stat_cpu total;       /* the "cpu " line; total.nf == 0 when the file has none */
    pl_stat_cpu *cpu;        /* the cpuN lines in file order (online CPUs) */
    uint32_t ncpu, cap;
    uint32_t maxcpu;         /* the highest N + 1, 0 without a row */
    int bad_cpu;             /* a malformed cpu line was seen */
    uint64_t v[PL_STAT_NKEYS];
    uint8_t st[PL_STAT_NKEYS];   /* PL_NS_* */
} pl_procstat;

extern const pl_ksrc_def pl_ksrc_stat;

/* The pure parser (buf[len] is '\0'): 0, or ENOMEM when the rows cannot
 * grow. */
int pl_parse_stat(const char *buf, size_t len, void *out);
void pl_release_stat(void *out);

#endif
