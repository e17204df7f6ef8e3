/* Processor Information's per-CPU files (processor_impl.h): cpuidle's C
 * states, cpufreq's frequencies and limits, APERF/MPERF, thermal throttling
 * and the isolated flag, read only for the counters wanted, and the node
 * totals and _Total over the CPUs' values. */
#include "processor_impl.h"

/* How a node total and _Total combine their CPUs' values. */
enum { G_SUM, G_MEAN, G_OR, G_MAX };

/* Idle-state, frequency, performance and throttle counters of a group of
 * online CPUs (node n, or all of them for n < 0), from the CPUs' own values
 * in the snapshot, so that a node total and _Total follow one rule: a time
 * or a frequency is the mean over the group's CPUs (a wall-clock % of one
 * CPU), transitions and sums over ticks add up, flags OR, counts shared by
 * siblings (throttle counts) the most; each only when every CPU of the
 * group had it. */
static void group_idle_freq(const pstate *s, pl_snapshot *snap, int inst, int n)
{
    static const struct { uint8_t id, how; } ctr[] = {
        { C_C1, G_MEAN }, { C_C2, G_MEAN }, { C_C3, G_MEAN }, { C_C1T, G_SUM }, { C_C2T, G_SUM },
        { C_C3T, G_SUM }, { C_FREQ, G_MEAN }, { C_PMAX, G_MEAN }, { C_MAXF, G_MEAN }, { C_UTIL, G_SUM },
        { C_UTILB, G_SUM }, { C_PUTIL, G_SUM }, { C_AIDLE, G_SUM }, { C_AIDLEB, G_SUM },
        { C_IBRK, G_SUM }, { C_PERF, G_SUM }, { C_PERFB, G_SUM }, { C_PLIM, G_MEAN },
        { C_PLIMF, G_OR }, { C_SMIN, G_MEAN }, { C_SMAX, G_MEAN }, { C_HMIN, G_MEAN },
        { C_HMAX, G_MEAN }, { C_ISOL, G_SUM }, { C_CTHR, G_MAX }, { C_PTHR, G_MAX },
        { C_CTT, G_MEAN }, { C_PTT, G_MEAN }, { C_DPCR, G_MEAN },
    };
    for (size_t k = 0; k < sizeof ctr / sizeof ctr[0]; k++) {
        uint32_t ix = id_ix[ctr[k].id], cpus = 0;
        uint64_t sum = 0, any = 0;
        int all = 1;
        for (uint32_t c = 0; c < s->ncpu && all; c++) {
            size_t at;
            if (!s->online[c] || (n >= 0 && s->node[c] != n))
                continue;
            at = (size_t)s->inst_of_cpu[c] * PROC_NPOS + ix;
            all = snap->have[at] == 1 && pl_add_ok(sum, snap->values[at], &sum);
            if (all && ctr[k].how == G_OR)
                any |= snap->values[at];
            else if (all && ctr[k].how == G_MAX && snap->values[at] > any)
                any = snap->values[at];
            cpus++;
        }
        if (all && cpus)
            pl_snap_set(snap, (uint32_t)inst, ix, ctr[k].how == G_MEAN ? sum / cpus
                        : ctr[k].how == G_SUM ? sum : any);
    }
}


void pl_proc_wants(const uint8_t *w, pwant *g)
{
    g->idle = w[C_C1] || w[C_C2] || w[C_C3] || w[C_C1T] || w[C_C2T] || w[C_C3T];
    g->states = w[C_AIDLE] || w[C_AIDLEB] || w[C_IBRK];     /* every state */
    g->util = w[C_UTIL] || w[C_UTILB] || w[C_PUTIL];
    g->freq = w[C_FREQ] || w[C_PMAX] || w[C_MAXF] || g->util;
    g->lim = w[C_SMIN] || w[C_SMAX] || w[C_HMIN] || w[C_HMAX];
    g->perf = w[C_PERF] || w[C_PERFB];
    g->limit = w[C_PLIM] || w[C_PLIMF];
    g->thr = w[C_CTHR] || w[C_PTHR] || w[C_CTT] || w[C_PTT] || g->limit;
    g->facts = w[C_ISOL] || w[C_VULN];
    g->dpc = w[C_DPCR];      /* set before: its totals are made here */
}

/* cpuidle: C1..C3 (states 1..3); with every state, Average Idle Time and
 * Idle Break Events. */
static void cpu_idle(pstate *s, pl_snapshot *snap, uint32_t c, int i, const pwant *g)
{
    uint64_t t[PL_IDLE_STATES], u[PL_IDLE_STATES], tsum = 0, usum = 0, busy, all;
    int ok[PL_IDLE_STATES], any = 0;
    pl_cpufreq_idle(&s->fq, c, g->states, t, u, ok);
    for (int k = 0; k < PL_IDLE_STATES; k++) {
        if (!ok[k])
            continue;
        if (k >= 1 && k <= 3) {
            set(snap, i, C_C1 + k - 1, t[k]);
            set(snap, i, C_C1T + k - 1, u[k]);
        }
        tsum += t[k];
        usum += u[k];
        any = 1;
    }
    if (g->states && any) {
        busy_total(&s->cpu[c], &busy, &all);
        set(snap, i, C_AIDLE, tsum);
        set(snap, i, C_AIDLEB, to_hns(all, s->hz));
        set(snap, i, C_IBRK, usum);
    }
}

/* Frequencies, their limits and the utilities. */
static void cpu_freq(pstate *s, pl_snapshot *snap, uint32_t c, int i, const pwant *g)
{
    static const uint8_t lim_ids[PL_NLIM] = { C_SMIN, C_SMAX, C_HMIN, C_HMAX };
    pl_cpufiles *cf = &s->fq.cpu[c];
    if (g->freq) {
        pl_cpufreq_mhz m;
        uint64_t busy, all;
        const uint64_t *f = s->cpu[c].f;
        int nf = s->cpu[c].nf;
        pl_cpufreq_read(&s->fq, c, &m);
        if (m.hcur)
            set(snap, i, C_FREQ, m.cur);
        if (m.hcur && m.hmax) {
            set(snap, i, C_PMAX, m.cur);
            set(snap, i, C_MAXF, m.max);
        }
        busy_total(&s->cpu[c], &busy, &all);
        uint64_t priv = f[F_SY] + (nf > F_HI ? f[F_HI] : 0) + (nf > F_SI ? f[F_SI] : 0);
        if (g->util && pl_cpufreq_utilities(cf, busy, priv, all, &m)) {
            set(snap, i, C_UTIL, cf->util);
            set(snap, i, C_UTILB, cf->util_base);
            set(snap, i, C_PUTIL, cf->putil);
        }
    }
    if (g->lim) {
        uint64_t khz[PL_NLIM];
        int ok[PL_NLIM];
        pl_cpufreq_limits(&s->fq, c, khz, ok);
        for (int k = 0; k < PL_NLIM; k++)
            if (ok[k] && khz[k] <= UINT64_MAX / 1000)
                set(snap, i, lim_ids[k], khz[k] * 1000);
    }
}

/* APERF/MPERF, thermal throttling and the isolated flag. */
static void cpu_perf_thr(pstate *s, pl_snapshot *snap, uint32_t c, int i, const pwant *g)
{
    static const uint8_t thr_ids[PL_NTHR] = { C_CTHR, C_PTHR, C_CTT, C_PTT };
    pl_cpufiles *cf = &s->fq.cpu[c];
    uint64_t busy, all, a, m, v[PL_NTHR], lim, flags;
    int ok[PL_NTHR];
    busy_total(&s->cpu[c], &busy, &all);
    if (g->perf && pl_cpufreq_msr(&s->fq, c, &a, &m) == 0 && pl_cpufreq_perf(cf, a, m, busy)) {
        set(snap, i, C_PERF, cf->perf);
        set(snap, i, C_PERFB, cf->perf_base);
    }
    if (g->thr) {
        pl_cpufreq_throttle(&s->fq, c, v, ok);
        for (int k = 0; k < PL_NTHR; k++) {
            uint64_t scale = k >= PL_THR_CMS ? 10000 : 1, x;    /* ms -> 100 ns */
            if (ok[k] && pl_mul_ok(v[k], scale, &x))
                set(snap, i, thr_ids[k], x);
        }
        /* the CPU's time in ms from its ticks: the interval the throttle times fall in */
        if (g->limit && pl_cpufreq_limit(cf, v, ok, all * 1000 / (uint64_t)s->hz, &lim, &flags)) {
            set(snap, i, C_PLIM, lim);
            set(snap, i, C_PLIMF, flags);
        }
    }
    if (g->facts && s->facts.isol_ok)
        set(snap, i, C_ISOL, (uint64_t)pl_cpufacts_isolated(&s->facts, c));
}

/* The per-CPU files of the counters wanted, then the totals over them. */
void pl_proc_cpu_files(pstate *s, pl_snapshot *snap, int ti, uint32_t nnodes, const pwant *g)
{
    if (!(g->idle || g->states || g->freq || g->lim || g->perf || g->thr || g->facts || g->dpc))
        return;
    pl_cpufreq_begin(&s->fq);
    if (g->facts)
        pl_cpufacts_load(&s->facts, s->env);     /* once per query */
    for (uint32_t c = 0; c < s->ncpu; c++) {
        if (!s->online[c])
            continue;
        if (g->idle || g->states)
            cpu_idle(s, snap, c, s->inst_of_cpu[c], g);
        cpu_freq(s, snap, c, s->inst_of_cpu[c], g);
        cpu_perf_thr(s, snap, c, s->inst_of_cpu[c], g);
    }
    for (uint32_t n = 0; n < nnodes; n++)
        if (s->inst_of_node[n] >= 0)
            group_idle_freq(s, snap, s->inst_of_node[n], (int)n);
    group_idle_freq(s, snap, ti, -1);
    if (g->facts && s->facts.vuln_ok)
        set(snap, ti, C_VULN, s->facts.vulnerable);
}
