/* The per-CPU sysfs files of Processor Information (cpuidle states,
 * cpufreq frequencies, /proc/cpuinfo's MHz when there is no cpufreq), and
 * the accumulators of % Processor Utility, kept open between collections. */
#ifndef PL_CPUFREQ_H
#define PL_CPUFREQ_H

#include "pl_provider.h"
#include "pl_ksrc.h"

typedef struct pl_idlefile {
    pl_file time, usage;
    int absent;
} pl_idlefile;

typedef struct pl_cpufiles {
    pl_idlefile idle[3];     /* cpuidle state1..state3 */
    pl_file cur, max, base;  /* scaling_cur_freq; cpuinfo_max_freq, base_frequency (until read) */
    int freq_absent;         /* no cpufreq: /proc/cpuinfo's MHz */
    uint64_t max_mhz, base_mhz;   /* read once (they do not change): 0 not yet, UINT64_MAX absent */
    uint64_t mhz;            /* /proc/cpuinfo MHz, UINT64_MAX absent */
    /* % Processor Utility: sums of busy ticks x 100 x cur/nominal, and of all ticks */
    uint64_t util, util_base;
    uint64_t busy_last, total_last;
    int util_seen;
} pl_cpufiles;

typedef struct pl_cpufreq {
    pl_env *env;             /* not owned */
    pl_ksrc *cpuinfo;        /* the machine's reader of /proc/cpuinfo */
    int info_done;           /* cpuinfo taken in this collect */
    pl_cpufiles *cpu;
    uint32_t ncpu;
} pl_cpufreq;

/* One CPU's frequencies in MHz; h* say which were read. */
typedef struct pl_cpufreq_mhz {
    uint64_t cur, max, nominal;
    int hcur, hmax, hnominal;
} pl_cpufreq_mhz;

/* 0 or ENOMEM (pl_cpufreq_free it either way). */
int pl_cpufreq_init(pl_cpufreq *f, pl_env *env);
int pl_cpufreq_grow(pl_cpufreq *f, uint32_t n);      /* 0 or ENOMEM */
void pl_cpufreq_free(pl_cpufreq *f);
/* At the start of a collect: /proc/cpuinfo (a kernel source, cpuinfo.h)
 * is taken again when a CPU needs it, at most once. */
void pl_cpufreq_begin(pl_cpufreq *f);
/* cpuidle state1..3 of cpu: time (100 ns) and usage where ok[k]. */
void pl_cpufreq_idle(pl_cpufreq *f, uint32_t cpu, uint64_t time[3], uint64_t usage[3], int ok[3]);
void pl_cpufreq_read(pl_cpufreq *f, uint32_t cpu, pl_cpufreq_mhz *out);
/* Adds the interval since the last call to cpu's utility sums: busy and
 * total are the CPU's cumulative busy and total ticks, m its frequencies now
 * (the ratio cur/nominal is applied to the whole interval).  1 when the sums
 * hold a value (a nominal frequency was known at every call), else 0. */
int pl_cpufreq_utility(pl_cpufiles *c, uint64_t busy, uint64_t total, const pl_cpufreq_mhz *m);

#endif
