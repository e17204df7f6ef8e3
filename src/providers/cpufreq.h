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

#define PL_IDLE_STATES 8     /* cpuidle state0..7 (intel_idle has up to 8 on some models) */

/* Limits of a CPU's frequency (cpufreq), in kHz as the files hold them. */
enum { PL_LIM_SMIN, PL_LIM_SMAX, PL_LIM_HMIN, PL_LIM_HMAX, PL_NLIM };
/* thermal_throttle files (x86 therm_throt): counts, and times in ms. */
enum { PL_THR_CCOUNT, PL_THR_PCOUNT, PL_THR_CMS, PL_THR_PMS, PL_NTHR };

typedef struct pl_cpufiles {
    pl_idlefile idle[PL_IDLE_STATES];   /* cpuidle state0..7; C1..C3 are 1..3 */
    pl_file cur, max, base;  /* scaling_cur_freq; cpuinfo_max_freq, base_frequency (until read) */
    pl_file lim[PL_NLIM];    /* scaling_min/max_freq, cpuinfo_min/max_freq, kept open */
    pl_file thr[PL_NTHR];
    unsigned lim_absent, thr_absent;    /* bits of files found missing: not looked for again */
    int msr_fd, msr_absent;  /* dev/cpu/N/msr: -1 not open; absent once unreadable */
    int freq_absent;         /* no cpufreq: /proc/cpuinfo's MHz */
    uint64_t max_mhz, base_mhz;   /* read once (they do not change): 0 not yet, UINT64_MAX absent */
    uint64_t mhz;            /* /proc/cpuinfo MHz, UINT64_MAX absent */
    /* % Processor Utility: sums of busy ticks x 100 x cur/nominal, and of all ticks */
    uint64_t util, util_base;
    uint64_t busy_last, total_last;
    int util_seen;
    uint64_t putil, priv_last;          /* % Privileged Utility, over util_base */
    /* % Processor Performance: sums of busy ticks x 100 x dAPERF/dMPERF, and of busy ticks */
    uint64_t perf, perf_base, aperf_last, mperf_last, ptotal_last;
    int perf_seen;
    /* % Performance Limit: the throttle times and CPU time at the last collect */
    uint64_t thr_last[PL_NTHR], ms_last;
    int thr_seen;
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
/* cpuidle states of cpu: time (100 ns) and usage where ok[k], k the state
 * number; states 1..3 only unless all (then 0..PL_IDLE_STATES-1). */
void pl_cpufreq_idle(pl_cpufreq *f, uint32_t cpu, int all, uint64_t time[PL_IDLE_STATES],
                     uint64_t usage[PL_IDLE_STATES], int ok[PL_IDLE_STATES]);
/* cpufreq limits of cpu in kHz where ok[k] (PL_LIM_*). */
void pl_cpufreq_limits(pl_cpufreq *f, uint32_t cpu, uint64_t khz[PL_NLIM], int ok[PL_NLIM]);
/* thermal_throttle of cpu where ok[k] (PL_THR_*). */
void pl_cpufreq_throttle(pl_cpufreq *f, uint32_t cpu, uint64_t v[PL_NTHR], int ok[PL_NTHR]);
/* % Performance Limit (100 - the share of CPU time throttled, core or
 * package whichever is more) and its flags (1 core, 2 package throttled)
 * over the interval since the last call, the first over the time since
 * boot: ms is the CPU's time so far (its /proc/stat ticks) in ms.  1 with a
 * value (needs a throttle time), else 0. */
int pl_cpufreq_limit(pl_cpufiles *c, const uint64_t v[PL_NTHR], const int ok[PL_NTHR], uint64_t ms,
                     uint64_t *limit, uint64_t *flags);
/* APERF (MSR 0xE8) and MPERF (0xE7) of cpu from dev/cpu/N/msr (root and the
 * msr module): 0 or errno; a CPU whose MSRs cannot be read is not tried
 * again. */
int pl_cpufreq_msr(pl_cpufreq *f, uint32_t cpu, uint64_t *aperf, uint64_t *mperf);
/* Adds the interval since the last call to % Processor Performance's sums:
 * busy ticks x 100 x dAPERF / dMPERF (the ratio to 1/10000), and the busy
 * ticks (both MSRs count only while the CPU runs, so idle time is left
 * out).  1 (from the first call, sums 0); values going back (a re-plug)
 * add nothing for that interval. */
int pl_cpufreq_perf(pl_cpufiles *c, uint64_t aperf, uint64_t mperf, uint64_t busy);
void pl_cpufreq_read(pl_cpufreq *f, uint32_t cpu, pl_cpufreq_mhz *out);
/* Adds the interval since the last call to cpu's utility sums: busy and
 * total are the CPU's cumulative busy and total ticks, m its frequencies now
 * (the ratio cur/nominal is applied to the whole interval).  1 when the sums
 * hold a value (a nominal frequency was known at every call), else 0. */
int pl_cpufreq_utility(pl_cpufiles *c, uint64_t busy, uint64_t total, const pl_cpufreq_mhz *m);
/* The same that also sums privileged ticks (priv) x 100 x cur/nominal into
 * putil, % Privileged Utility over the same base. */
int pl_cpufreq_utilities(pl_cpufiles *c, uint64_t busy, uint64_t priv, uint64_t total,
                         const pl_cpufreq_mhz *m);

#endif
