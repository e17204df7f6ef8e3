/* Processor Information: one instance per online CPU ("node,cpu"), one per
 * NUMA node ("node,_Total") and "_Total".  Processor, Windows' V1 object of
 * the same counters, names its instances as Windows does ("0", "1", ...,
 * "_Total", no node totals); the same code collects both.
 *
 * Times come from /proc/stat in USER_HZ ticks and are published in 100 ns.
 * The % counters are PERF_PRECISION_100NS_TIMER against a private base, the
 * sum of the CPU's own ticks, which is what mpstat, top and psutil divide by
 * (the wall clock loses 1-2 % of ticks).  Traps handled: iowait going
 * backwards (held, not a spike), guest time already inside user time, CPUs
 * going offline (instances keyed by CPU number; idle falling by 3 s or more
 * is a reset), 32-bit /proc/interrupts and /proc/softirqs cells (unwrapped).
 *
 * /proc/stat, /proc/interrupts and /proc/softirqs are kernel sources
 * (procstat.h, cputab.h): read at most once per collect for every set of
 * the machine (System, Interrupts, SoftIRQ, the other Processor object),
 * the two tables only when an interrupt or softirq counter is wanted.  The
 * idle-time logic, the per-CPU unwrapping and cpufreq stay here.
 */
#include "providers.h"
#include "processor_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Windows' counter 0 is exactly PERF_100NSEC_TIMER_INV on idle time, so that
 * programs written against its GUID and ids compute what they expect. */
static const pl_counter_def counters[] = { PROC_ROWS(PL_ROW_COUNTER, PL_ROW_COUNTER4) };

#define NC (sizeof counters / sizeof counters[0])
_Static_assert(PROC_NPOS == NC, "one position per row");

/* ---- sizing ------------------------------------------------------------------ */

static int grow_cpus(pstate *s, uint32_t n)
{
    if (n <= s->ncpu)
        return 0;
    cpustate *c = realloc(s->cpu, n * sizeof *c);
    if (!c) return ENOMEM;
    s->cpu = c;
    int *nd = realloc(s->node, n * sizeof *nd);
    if (!nd) return ENOMEM;
    s->node = nd;
    uint32_t *rw = realloc(s->row, n * sizeof *rw);
    if (!rw) return ENOMEM;
    s->row = rw;
    uint8_t *on = realloc(s->online, n);
    if (!on) return ENOMEM;
    s->online = on;
    if (pl_cpufreq_grow(&s->fq, n)) return ENOMEM;
    char (*cn)[24] = realloc(s->cname, n * sizeof *cn);
    if (!cn) return ENOMEM;
    s->cname = cn;
    int *ic = realloc(s->inst_of_cpu, n * sizeof *ic);
    if (!ic) return ENOMEM;
    s->inst_of_cpu = ic;
    for (uint32_t i = s->ncpu; i < n; i++) {
        memset(&s->cpu[i], 0, sizeof s->cpu[i]);
        s->node[i] = -1;
        s->online[i] = 0;
    }
    s->ncpu = n;
    return 0;
}

static void proc_close(void *state)
{
    pstate *s = state;
    if (!s)
        return;
    pl_cpufreq_free(&s->fq);
    pl_cputable_free(&s->sums[0]);
    pl_cputable_free(&s->sums[1]);
    free(s->cpu);
    free(s->node);
    free(s->nodes);
    free(s->row);
    free(s->online);
    free(s->cname);
    free(s->nname);
    free(s->inst_of_cpu);
    free(s->inst_of_node);
    pl_env_unref(s->env);
    free(s);
}

static int proc_open(pl_env *env, void **state)
{
    pstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->hz = pl_env_user_hz(env);
    s->hns_per_tick = 10000000 % s->hz == 0 ? (uint64_t)(10000000 / s->hz) : 0;
    pl_cputable_init(&s->sums[0]);
    pl_cputable_init(&s->sums[1]);
    pl_cputable_pick(&s->sums[0], "LOC");   /* Clock Interrupts/sec: x86's local timer row */
    *state = s;
    s->stat = pl_ksrc_attach(env, &pl_ksrc_stat);
    s->tab[0] = pl_ksrc_attach(env, &pl_ksrc_interrupts);
    s->tab[1] = pl_ksrc_attach(env, &pl_ksrc_softirqs);
    if (pl_cpufreq_init(&s->fq, s->env) || !s->stat || !s->tab[0] || !s->tab[1]) {
        proc_close(s);
        return ENOMEM;
    }
    return 0;
}

static int proc_open_v1(pl_env *env, void **state)
{
    int e = proc_open(env, state);
    if (!e)
        ((pstate *)*state)->v1 = 1;
    return e;
}

/* ---- /proc/stat ------------------------------------------------------------------ */

/* This collect's /proc/stat (read once for every set of the collect): which
 * CPUs are online and where their rows are.  A malformed cpu line or no
 * aggregate line fails the set. */
static int take_stat(pstate *s)
{
    const pl_procstat *ps;
    int e = pl_ksrc_get(s->stat);
    if (e)
        return e;
    ps = s->ps = pl_ksrc_data(s->stat);
    if (ps->bad_cpu || ps->total.nf == 0)
        return EINVAL;
    if ((e = grow_cpus(s, ps->maxcpu)))
        return e;
    if (s->ncpu)             /* online is NULL before the first cpuN line */
        memset(s->online, 0, s->ncpu);
    for (uint32_t r = 0; r < ps->ncpu; r++) {
        s->online[ps->cpu[r].id] = 1;
        s->row[ps->cpu[r].id] = r;
    }
    return 0;
}

/* Holds each field monotonic: a small fall (iowait under NOHZ) keeps the old
 * value; idle falling by 3 s or more means the CPU was re-plugged, and the
 * new values are published as they are (a reset the formula reports). */
static void publish(cpustate *c, const uint64_t *raw, int nf, long hz)
{
    c->reset = !c->seen || raw[F_ID] + 3 * (uint64_t)hz <= c->f[F_ID];   /* fell by >= 3 s */
    if (c->reset) {
        memcpy(c->f, raw, sizeof c->f);
    } else {
        for (int i = 0; i < NF; i++)
            if (raw[i] > c->f[i])
                c->f[i] = raw[i];
    }
    c->nf = nf;
    c->seen = 1;
}

/* online: for a total, the CPUs online that it sums up (0 for a CPU).  A total's
 * % Processor Time is the mean over its CPUs: its idle time grows by the
 * growth of the summed idle time over the CPUs online, so that a CPU going
 * offline or coming back is neither a jump nor a reset. */

/* A total's raw value as the mean over its CPUs online: it grows by the
 * growth of sum over them (first collect, or a re-plug: sum / online). */
static uint64_t mean_acc(const cpustate *c, uint64_t sum, uint64_t *acc, uint64_t *prev, uint32_t online)
{
    if (c->reset || sum < *prev)
        *acc = sum / online;
    else
        *acc += (sum - *prev) / online;
    *prev = sum;
    return *acc;
}

static void set_times(const pstate *s, pl_snapshot *snap, int inst, cpustate *c, long hz, uint32_t online)
{
    const uint64_t *f = c->f;
    uint64_t gu = c->nf > F_GU ? f[F_GU] : 0, gn = c->nf > F_GN ? f[F_GN] : 0;
    uint64_t st = c->nf > F_ST ? f[F_ST] : 0;
    uint64_t user = f[F_US] > gu ? f[F_US] - gu : 0;
    uint64_t nice = f[F_NI] > gn ? f[F_NI] - gn : 0;
    /* guest can outgrow user between reads (rounding): hold the differences
     * monotonic as well, so the subtraction never makes a false reset */
    if (!c->reset) {
        if (user < c->user)
            user = c->user;
        if (nice < c->nice)
            nice = c->nice;
    }
    c->user = user;
    c->nice = nice;
    uint64_t wa = c->nf > F_WA ? f[F_WA] : 0, hi = c->nf > F_HI ? f[F_HI] : 0;
    uint64_t si = c->nf > F_SI ? f[F_SI] : 0;
    uint64_t base = f[F_US] + f[F_NI] + f[F_SY] + f[F_ID] + wa + hi + si + st;
    uint64_t idle = f[F_ID] + wa;
    set(snap, inst, C_BASE, to_hns(base, hz));
    set(snap, inst, C_BUSY, to_hns(base - idle, hz));
    if (!online) {
        set(snap, inst, C_PROC, to_hns(idle, hz));
        set(snap, inst, C_PRIO, to_hns(idle + nice, hz));
    } else {
        set(snap, inst, C_PROC, mean_acc(c, to_hns(idle, hz), &c->idle_acc, &c->idle_prev, online));
        set(snap, inst, C_PRIO, mean_acc(c, to_hns(idle + nice, hz), &c->prio_acc, &c->prio_prev, online));
    }
    set(snap, inst, C_USER, to_hns(user + nice, hz));
    set(snap, inst, C_NICE, to_hns(nice, hz));
    set(snap, inst, C_PRIV, to_hns(f[F_SY] + hi + si, hz));
    set(snap, inst, C_IDLE, to_hns(idle, hz));
    if (c->nf > F_WA)
        set(snap, inst, C_IOW, to_hns(wa, hz));
    if (c->nf > F_HI)
        set(snap, inst, C_IRQT, to_hns(hi, hz));
    if (c->nf > F_SI)
        set(snap, inst, C_DPC, to_hns(si, hz));
    if (c->nf > F_ST)
        set(snap, inst, C_STEAL, to_hns(st, hz));
    if (c->nf > F_GU)
        set(snap, inst, C_GUEST, to_hns(gu + gn, hz));
}

/* ---- NUMA nodes --------------------------------------------------------------------- */

static int cpu_node(pstate *s, uint32_t cpu)
{
    char rel[64];
    DIR *d;
    struct dirent *de;
    int fd, node = 0;
    if (s->node[cpu] >= 0)
        return s->node[cpu];
    snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u", (unsigned)cpu);
    fd = pl_open_rel(s->env, rel);
    if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
        while ((de = readdir(d)) != NULL) {
            unsigned n;
            char extra;
            if (sscanf(de->d_name, "node%u%c", &n, &extra) == 1 && n < 4096) {
                node = (int)n;
                break;
            }
        }
        closedir(d);
    } else if (fd >= 0) {
        close(fd);
    }
    s->node[cpu] = node;     /* no sysfs or no node link: one node, 0 */
    if (s->v1)
        snprintf(s->cname[cpu], sizeof s->cname[cpu], "%u", (unsigned)cpu);
    else
        snprintf(s->cname[cpu], sizeof s->cname[cpu], "%d,%u", node, (unsigned)cpu);
    return node;
}

/* ---- instances and collection ------------------------------------------------------------ */

static int add_instances(pstate *s, pl_snapshot *snap, int *inst_of_cpu, int *inst_of_node)
{
    uint32_t maxnode = 0;
    for (uint32_t c = 0; c < s->ncpu; c++)
        if (s->online[c] && (uint32_t)cpu_node(s, c) + 1 > maxnode)
            maxnode = (uint32_t)cpu_node(s, c) + 1;
    if (maxnode > s->nnames) {
        char (*nn)[24] = realloc(s->nname, maxnode * sizeof *nn);
        if (!nn)
            return ENOMEM;
        for (uint32_t n = s->nnames; n < maxnode; n++)
            snprintf(nn[n], sizeof nn[n], "%u,_Total", (unsigned)n);
        s->nname = nn;
        s->nnames = maxnode;
    }
    for (uint32_t n = 0; n < maxnode; n++) {
        int any = 0;
        for (uint32_t c = 0; c < s->ncpu; c++) {
            if (!s->online[c] || s->node[c] != (int)n)
                continue;
            int i = pl_snap_add(snap, s->cname[c], c);
            if (i < 0)
                return ENOMEM;
            if (inst_of_cpu)
                inst_of_cpu[c] = i;
            any = 1;
        }
        if (any && !s->v1) {
            int i = pl_snap_add(snap, s->nname[n], NODE_TOTAL_ID(n));
            if (i < 0)
                return ENOMEM;
            if (inst_of_node)
                inst_of_node[n] = i;
        }
    }
    return pl_snap_add(snap, "_Total", TOTAL_ID) < 0 ? ENOMEM : 0;
}

static int proc_instances(void *state, pl_snapshot *snap)
{
    pstate *s = state;
    int e;
    pl_snap_clear(snap);     /* a reused snapshot starts empty */
    e = take_stat(s);
    if (e) {
        snap->err_path = "proc/stat";
        return e;
    }
    return add_instances(s, snap, NULL, NULL);
}

/* Clock Interrupts/sec: the LOC row's sums, per CPU, node (its CPUs, the
 * offline ones at their last sums as for Interrupts/sec) and _Total (every
 * CPU's: /proc/stat has no line for it). */
static void set_clock(pstate *s, pl_snapshot *snap, const pl_cputable *t, int ti, uint32_t nnodes)
{
    uint64_t all = 0;
    for (uint32_t n = 0; n < nnodes; n++) {
        uint64_t sum = 0;
        for (uint32_t c = 0; c < s->ncpu && c < t->ncpu; c++) {
            if (s->node[c] != (int)n)
                continue;
            sum += t->pick_acc[c];
            if (s->online[c])
                set(snap, s->inst_of_cpu[c], C_CLK, t->pick_acc[c]);
        }
        if (s->inst_of_node[n] >= 0)
            set(snap, s->inst_of_node[n], C_CLK, sum);
        all += sum;
    }
    set(snap, ti, C_CLK, all);
}

/* DPC Rate of each online CPU: softirqs per LOC tick over the interval
 * since the last collect (the first: since boot); none for an interval
 * without a tick.  Totals the mean (group_idle_freq). */
static void set_dpc_rate(pstate *s, pl_snapshot *snap)
{
    const pl_cputable *iq = &s->sums[0], *sq = &s->sums[1];
    if (!s->sums_ok[0] || !s->sums_ok[1] || iq->pick_row < 0)
        return;
    for (uint32_t c = 0; c < s->ncpu && c < iq->ncpu && c < sq->ncpu; c++) {
        cpustate *cs = &s->cpu[c];
        uint64_t loc = iq->pick_acc[c], soft = sq->acc[c], dl, ds;
        if (!s->online[c])
            continue;
        /* a first collect, or sums that went back: since boot */
        int again = cs->dpc_loc && loc >= cs->dpc_loc && soft >= cs->dpc_sq;
        dl = again ? loc - cs->dpc_loc : loc;
        ds = again ? soft - cs->dpc_sq : soft;
        cs->dpc_loc = loc;
        cs->dpc_sq = soft;
        if (dl)
            set(snap, s->inst_of_cpu[c], C_DPCR, ds / dl);
    }
}

/* Interrupts/sec (k 0) or DPCs Queued/sec (k 1): per CPU and node the
 * CPU's column of /proc/interrupts or /proc/softirqs summed, _Total the
 * intr or softirq line of /proc/stat.  A table that cannot be read (a
 * container, an old kernel) leaves the per-CPU values absent. */
static int set_irq_sums(pstate *s, pl_snapshot *snap, int k, int ti, uint32_t nnodes)
{
    static const int ids[2] = { C_INTR, C_DPCQ };
    static const int totals[2] = { PL_STAT_INTR, PL_STAT_SOFTIRQ };
    pl_cputable *t = &s->sums[k];
    int e;
    if (s->ps->st[totals[k]] == PL_NS_OK)
        set(snap, ti, ids[k], s->ps->v[totals[k]]);
    if ((e = pl_ksrc_get(s->tab[k])) != 0)
        return e == ENOMEM ? e : 0;
    if ((e = pl_cputable_update(t, pl_ksrc_data(s->tab[k]))) != 0)
        return e;
    s->sums_ok[k] = 1;
    for (uint32_t n = 0; n < nnodes; n++) {
        uint64_t sum = 0;
        int any = 0;
        for (uint32_t c = 0; c < s->ncpu && c < t->ncpu; c++) {
            if (s->node[c] != (int)n)
                continue;
            /* offline CPUs keep their sums in the node's, as for times */
            sum += t->acc[c];
            if (!s->online[c])
                continue;
            set(snap, s->inst_of_cpu[c], ids[k], t->acc[c]);
            any = 1;
        }
        if (any && s->inst_of_node[n] >= 0)
            set(snap, s->inst_of_node[n], ids[k], sum);
    }
    if (k == 0 && t->pick_row >= 0)
        set_clock(s, snap, t, ti, nnodes);
    return 0;
}

/* Per-node arrays sized by the highest node of an online CPU (node numbers
 * can exceed the CPU count: cpu0 alone on node 3). */
static int size_nodes(pstate *s, uint32_t *nnodes)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < s->ncpu; c++)
        if (s->online[c] && (uint32_t)cpu_node(s, c) + 1 > n)
            n = (uint32_t)cpu_node(s, c) + 1;
    if (n > s->nnodes) {
        cpustate *nn = realloc(s->nodes, n * sizeof *nn);
        if (!nn)
            return ENOMEM;
        memset(nn + s->nnodes, 0, (n - s->nnodes) * sizeof *nn);
        s->nodes = nn;
        int *in = realloc(s->inst_of_node, n * sizeof *in);
        if (!in)
            return ENOMEM;
        s->inst_of_node = in;
        s->nnodes = n;
    }
    *nnodes = n;
    return 0;
}

/* Times: per CPU, per node (the sum of its CPUs), _Total (the aggregate line). */
static void set_all_times(pstate *s, pl_snapshot *snap, int ti, uint32_t nnodes)
{
    uint32_t nonline = 0;
    for (uint32_t n = 0; n < nnodes; n++) {
        uint64_t sum[NF] = { 0 };
        int nf = NF, any = 0;
        for (uint32_t c = 0; c < s->ncpu; c++) {
            if (!s->online[c] || s->node[c] != (int)n)
                continue;
            const pl_stat_cpu *row = &s->ps->cpu[s->row[c]];
            publish(&s->cpu[c], row->f, (int)row->nf, s->hz);
            set_times(s, snap, s->inst_of_cpu[c], &s->cpu[c], s->hz, 0);
            any++;
        }
        if (!any)
            continue;
        /* A CPU seen before and now offline counts at its last values, as
         * the kernel's aggregate line keeps it: the node sum neither drops
         * when a CPU leaves nor jumps by its whole history when it returns
         * (its idle restarting from 0 is then a reset). */
        for (uint32_t c = 0; c < s->ncpu; c++) {
            if (!s->cpu[c].seen || s->node[c] != (int)n)
                continue;
            for (int f = 0; f < NF; f++)
                sum[f] += s->cpu[c].f[f];
            if (s->cpu[c].nf < nf)
                nf = s->cpu[c].nf;
        }
        publish(&s->nodes[n], sum, nf, s->hz);
        if (s->inst_of_node[n] >= 0)
            set_times(s, snap, s->inst_of_node[n], &s->nodes[n], s->hz, (uint32_t)any);
        nonline += (uint32_t)any;
    }
    publish(&s->total, s->ps->total.f, (int)s->ps->total.nf, s->hz);
    set_times(s, snap, ti, &s->total, s->hz, nonline);
}

static int proc_collect(void *state, const uint8_t *wanted_, pl_snapshot *snap)
{
    pstate *s = state;
    uint8_t w[64] = { 0 };   /* wanted, by counter id */
    int e, ti;
    uint32_t nnodes = 0;
    pwant g;

    pl_snap_clear(snap);     /* a reused snapshot starts empty */
    for (size_t i = 0; i < NC; i++)
        w[counters[i].id] = (uint8_t)(!wanted_ || wanted_[i]);
    if ((e = take_stat(s))) {
        snap->err_path = "proc/stat";
        return e;
    }
    snap->time = pl_ksrc_time(s->stat);     /* the instant of the read System shares */
    if (s->ncpu == 0) {
        snap->err_path = "proc/stat";
        return EINVAL;       /* no cpuN line at all */
    }
    if ((e = size_nodes(s, &nnodes)))
        return e;
    for (uint32_t c = 0; c < s->ncpu; c++)
        s->inst_of_cpu[c] = -1;
    for (uint32_t n = 0; n < nnodes; n++)
        s->inst_of_node[n] = -1;
    if ((e = add_instances(s, snap, s->inst_of_cpu, s->inst_of_node)))
        return e;
    ti = (int)snap->ninst - 1;
    set_all_times(s, snap, ti, nnodes);
    s->sums_ok[0] = s->sums_ok[1] = 0;
    for (int k = 0; k < 2; k++)
        if ((k ? w[C_DPCQ] : w[C_INTR] || w[C_CLK]) || w[C_DPCR])
            if ((e = set_irq_sums(s, snap, k, ti, nnodes)) != 0)
                return e;
    if (w[C_DPCR])
        set_dpc_rate(s, snap);
    pl_proc_wants(w, &g);            /* idle states, frequency, MSRs ...: read only when asked for */
    pl_proc_cpu_files(s, snap, ti, nnodes, &g);
    return 0;
}

/* Text facts: a CPU's cpufreq governor and driver, the machine's isolated
 * CPUs, cpuidle driver and vulnerabilities on _Total; node totals have
 * none.  The instance is found as a collect names it. */
static int proc_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    pstate *s = state;
    int e;
    if (!instance)
        return EINVAL;
    if (strcmp(instance, "_Total") == 0) {
        pl_cpufacts_total(s->env, emit, ud);     /* emit may stop it: not an error */
        return 0;
    }
    if ((e = take_stat(s)))
        return e;
    for (uint32_t c = 0; c < s->ncpu; c++) {
        if (!s->online[c])
            continue;
        int node = cpu_node(s, c);
        if (strcmp(s->cname[c], instance) == 0) {
            pl_cpufacts_cpu(s->env, c, emit, ud);
            return 0;
        }
        if (!s->v1 && node >= 0) {
            char nn[24];
            snprintf(nn, sizeof nn, "%d,_Total", node);
            if (strcmp(nn, instance) == 0)
                return 0;
        }
    }
    return ENOENT;
}

static const pl_provider_ops ops = { proc_open, proc_close, proc_instances, proc_collect, NULL, proc_info };

const pl_counterset_def pl_processor_def = {
    /* the Windows GUID of Processor Information, as in the PerfLib sample */
    { 0xb4fc721a, 0x0378, 0x476f, { 0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36 } },
    "Processor Information",
    "Time, interrupts, idle states, frequency, performance and thermal throttling of each "
    "logical processor, of each NUMA node and of the whole machine, from /proc/stat, "
    "/proc/interrupts, /proc/softirqs, sysfs (cpuidle, cpufreq, thermal_throttle) and the "
    "APERF/MPERF MSRs.  Windows' ids 16 (Parking Status) and 19 (Processor State Flags) "
    "have no Linux source and are left out.  Text facts (perflib.info): a CPU's "
    "governor and driver; on _Total the isolated CPUs and the vulnerabilities.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 1000, NULL,
};

static const pl_provider_ops ops_v1 = { proc_open_v1, proc_close, proc_instances, proc_collect, NULL, proc_info };

const pl_counterset_def pl_processor_v1_def = {
    /* UUIDv5(perflib namespace, "Processor"): Windows gives the V1 object no GUID */
    { 0x76a7cc68, 0x6a91, 0x517c, { 0xad, 0xe7, 0xe0, 0xeb, 0xa8, 0x66, 0xa9, 0x4f } },
    "Processor",
    "Processor Information under Windows' V1 object name and instance names: \"0\", \"1\", ... (the "
    "CPU number) and \"_Total\", without node totals; the same counters and values.  Left out of "
    "Global, which has them as Processor Information.",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NC, counters, &ops_v1, 29000, NULL,
};
