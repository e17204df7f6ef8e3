/* Processor Information's internals, shared by processor.c (instances,
 * /proc/stat times, interrupts, DPCs) and processor_cpu.c (the per-CPU files:
 * cpuidle, cpufreq, MSRs, throttling, and their node and _Total groups). */
#ifndef PL_PROCESSOR_IMPL_H
#define PL_PROCESSOR_IMPL_H

#include "pl_provider.h"
#include "cputable.h"
#include "cpufreq.h"
#include "cpufacts.h"
#include "procstat.h"
#include "pl_rowset.h"
#include "processor_rows.h"

/* Snapshot values are indexed by position in the rows, not by id. */
static const uint8_t id_ix[C_PTT + 1] = { PROC_ROWS(PROC_IX, PROC_IX) };

static inline void set(pl_snapshot *snap, int inst, int id, uint64_t v)
{
    pl_snap_set(snap, (uint32_t)inst, id_ix[id], v);
}

/* /proc/stat cpu fields */
enum { F_US = PL_STAT_US, F_NI, F_SY, F_ID, F_WA, F_HI, F_SI, F_ST, F_GU, F_GN, NF };
_Static_assert((int)NF == (int)PL_STAT_NF && (int)F_GN == (int)PL_STAT_GN, "the cpu line's fields");

#define TOTAL_ID 0xFFFFFFFEu           /* instance id of "_Total" */
#define NODE_TOTAL_ID(n) (0xFFFF0000u | (uint32_t)(n))

/* Published fields of one instance, held monotonic between samples. */
typedef struct cpustate {
    uint64_t f[NF];
    uint64_t user, nice;     /* published user-guest, nice-guest_nice, held too */
    int nf;                  /* fields the kernel gave */
    int seen;
    int reset;               /* the last publish was a re-plug */
    uint64_t idle_acc;       /* totals: idle time per online CPU, accumulated (100 ns) */
    uint64_t idle_prev;      /* totals: the summed idle time at the last collect */
    uint64_t prio_acc, prio_prev;   /* the same for % Priority Time (idle + nice) */
    uint64_t dpc_sq, dpc_loc;       /* DPC Rate: softirq and LOC sums at the last collect */
} cpustate;


typedef struct pstate {
    pl_env *env;
    long hz;
    uint64_t hns_per_tick;   /* 10^7 / USER_HZ when exact, else 0 */
    char (*cname)[24];       /* instance name of each CPU, once its node is known */
    char (*nname)[24];       /* "node,_Total" of each node */
    uint32_t nnames;
    /* the machine's readers: /proc/stat, /proc/interrupts, /proc/softirqs */
    pl_ksrc *stat, *tab[2];
    const pl_procstat *ps;   /* the parse of this collect */
    uint32_t ncpu;           /* array sizes: max cpu number + 1 */
    cpustate *cpu;
    int *node;               /* node of each cpu, -1 unknown */
    cpustate total;
    uint32_t nnodes;         /* size of nodes and inst_of_node */
    cpustate *nodes;
    pl_cputable sums[2];     /* per-CPU sums of interrupts and softirqs */
    int sums_ok[2];          /* updated in this collect */
    pl_cpufreq fq;           /* cpuidle, cpufreq, % Processor Utility, MSRs, throttling */
    pl_cpufacts facts;       /* isolated CPUs, vulnerabilities: read once */
    int *inst_of_cpu, *inst_of_node;   /* snapshot index of each CPU / node */
    uint32_t *row;           /* each online CPU's row in ps */
    uint8_t *online;
    int v1;                  /* Processor: "cpu" names, no node totals */
} pstate;

static inline uint64_t to_hns_slow(uint64_t ticks, long hz)
{
    uint64_t h = (uint64_t)hz;
    return ticks / h * 10000000u + ticks % h * 10000000u / h;
}

/* USER_HZ is 100 nearly everywhere: one multiplication, no division */
#define to_hns(ticks, hz) (s->hns_per_tick ? (ticks) * s->hns_per_tick : to_hns_slow((ticks), (hz)))

/* A CPU's busy and total ticks, as % Busy Time and its base count them. */
static inline void busy_total(const cpustate *c, uint64_t *busy, uint64_t *total)
{
    const uint64_t *f = c->f;
    uint64_t wa = c->nf > F_WA ? f[F_WA] : 0, hi = c->nf > F_HI ? f[F_HI] : 0;
    uint64_t si = c->nf > F_SI ? f[F_SI] : 0, st = c->nf > F_ST ? f[F_ST] : 0;
    *total = f[F_US] + f[F_NI] + f[F_SY] + f[F_ID] + wa + hi + si + st;
    *busy = *total - (f[F_ID] + wa);
}

/* The per-CPU files a collect reads, from the counters it wants. */
typedef struct pwant {
    uint8_t idle, states, freq, util, lim, perf, thr, limit, facts, dpc;
} pwant;

/* The per-CPU files wanted counters need (processor_cpu.c). */
void pl_proc_wants(const uint8_t *w, pwant *g);
/* Reads them for every online CPU into snap, then the node totals and _Total
 * (ti) over them. */
void pl_proc_cpu_files(pstate *s, pl_snapshot *snap, int ti, uint32_t nnodes, const pwant *g);

#endif
