/* Processor Information's per-CPU sysfs files (cpufreq.h).  Paths are
 * formatted only to open a file; an open file is just read again.  A state
 * or a frequency file that is missing once is not looked for again: they do
 * not come and go while a CPU is online. */
#include "cpufreq.h"
#include "cpuinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pl_cpufreq_init(pl_cpufreq *f, pl_env *env)
{
    memset(f, 0, sizeof *f);
    f->env = env;
    f->cpuinfo = pl_ksrc_attach(env, &pl_ksrc_cpuinfo);
    return f->cpuinfo ? 0 : ENOMEM;
}

int pl_cpufreq_grow(pl_cpufreq *f, uint32_t n)
{
    if (n <= f->ncpu)
        return 0;
    pl_cpufiles *c = realloc(f->cpu, n * sizeof *c);
    if (!c)
        return ENOMEM;
    f->cpu = c;
    for (uint32_t i = f->ncpu; i < n; i++) {
        memset(&c[i], 0, sizeof c[i]);
        for (int k = 0; k < PL_IDLE_STATES; k++) {
            pl_file_init(&c[i].idle[k].time);
            pl_file_init(&c[i].idle[k].usage);
        }
        pl_files_init(c[i].lim, PL_NLIM);
        pl_files_init(c[i].thr, PL_NTHR);
        c[i].msr_fd = -1;
        pl_file_init(&c[i].cur);
        pl_file_init(&c[i].max);
        pl_file_init(&c[i].base);
        c[i].mhz = UINT64_MAX;
    }
    f->ncpu = n;
    return 0;
}

void pl_cpufreq_free(pl_cpufreq *f)
{
    for (uint32_t i = 0; i < f->ncpu; i++) {
        for (int k = 0; k < PL_IDLE_STATES; k++) {
            pl_file_close(&f->cpu[i].idle[k].time);
            pl_file_close(&f->cpu[i].idle[k].usage);
        }
        pl_files_close(f->cpu[i].lim, PL_NLIM);
        pl_files_close(f->cpu[i].thr, PL_NTHR);
        if (f->cpu[i].msr_fd >= 0)
            close(f->cpu[i].msr_fd);
        pl_file_close(&f->cpu[i].cur);
        pl_file_close(&f->cpu[i].max);
        pl_file_close(&f->cpu[i].base);
    }
    free(f->cpu);
    f->cpu = NULL;
    f->ncpu = 0;
}

void pl_cpufreq_begin(pl_cpufreq *f)
{
    f->info_done = 0;
}

static int read_u64_file(pl_file *file, const pl_env *env, const char *rel, uint64_t *v)
{
    const char *p;
    int e = pl_file_read(file, env, rel);
    if (e)
        return e;
    p = file->buf;
    return pl_parse_u64(&p, v);
}

void pl_cpufreq_idle(pl_cpufreq *f, uint32_t cpu, int all, uint64_t time[PL_IDLE_STATES],
                     uint64_t usage[PL_IDLE_STATES], int ok[PL_IDLE_STATES])
{
    char rel[96];
    rel[0] = '\0';
    memset(ok, 0, PL_IDLE_STATES * sizeof *ok);
    for (int k = all ? 0 : 1; k < (all ? PL_IDLE_STATES : 4); k++) {
        pl_idlefile *s = &f->cpu[cpu].idle[k];
        if (s->absent)
            continue;
        if (s->time.fd < 0)
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%d/time", (unsigned)cpu, k);
        int e = read_u64_file(&s->time, f->env, rel, &time[k]);
        if (e == ENOENT) {
            s->absent = 1;
            continue;
        }
        if (s->usage.fd < 0)
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%d/usage", (unsigned)cpu, k);
        if (e == 0 && read_u64_file(&s->usage, f->env, rel, &usage[k]) == 0) {
            time[k] *= 10;   /* us -> 100 ns */
            ok[k] = 1;
        }
    }
}

/* MHz from /proc/cpuinfo "cpu MHz", for machines without cpufreq: the
 * source is taken once per collect, for all CPUs. */
static int cpuinfo_mhz(pl_cpufreq *f, uint32_t cpu, uint64_t *mhz)
{
    const pl_cpuinfo *ci;
    if (!f->info_done) {
        f->info_done = 1;
        for (uint32_t c = 0; c < f->ncpu; c++)
            f->cpu[c].mhz = UINT64_MAX;
        if (pl_ksrc_get(f->cpuinfo) == 0) {
            ci = pl_ksrc_data(f->cpuinfo);
            for (uint32_t c = 0; c < f->ncpu && c < ci->n; c++)
                if (ci->mhz_st[c] == PL_NS_OK && ci->mhz[c] != UINT64_MAX)
                    f->cpu[c].mhz = ci->mhz[c];
        }
    }
    if (cpu >= f->ncpu || f->cpu[cpu].mhz == UINT64_MAX)
        return ENOENT;
    *mhz = f->cpu[cpu].mhz;
    return 0;
}

/* A cpufreq file of cpu in kHz, as MHz (0 and below 1 MHz: not a frequency). */
static int khz_file(pl_cpufreq *f, pl_file *file, uint32_t cpu, const char *name, uint64_t *mhz)
{
    char rel[96];
    rel[0] = '\0';
    if (file->fd < 0)
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpufreq/%s", (unsigned)cpu, name);
    int e = read_u64_file(file, f->env, rel, mhz);
    if (e)
        return e;
    *mhz /= 1000;
    return *mhz ? 0 : EINVAL;
}

/* A frequency that does not change (cpuinfo_max_freq, base_frequency): read
 * once, its file closed; a missing one is not looked for again. */
static int fixed_mhz(pl_cpufreq *f, pl_file *file, uint32_t cpu, const char *name, uint64_t *mhz)
{
    if (*mhz == 0) {
        int e = khz_file(f, file, cpu, name, mhz);
        pl_file_close(file);
        if (e) {
            *mhz = e == ENOENT ? UINT64_MAX : 0;
            return e;
        }
    }
    return *mhz == UINT64_MAX ? ENOENT : 0;
}

void pl_cpufreq_read(pl_cpufreq *f, uint32_t cpu, pl_cpufreq_mhz *m)
{
    pl_cpufiles *c = &f->cpu[cpu];
    memset(m, 0, sizeof *m);
    if (!c->freq_absent) {
        int e = khz_file(f, &c->cur, cpu, "scaling_cur_freq", &m->cur);
        if (e == 0) {
            m->hcur = 1;
            if ((m->hmax = fixed_mhz(f, &c->max, cpu, "cpuinfo_max_freq", &c->max_mhz) == 0))
                m->max = c->max_mhz;
            if ((m->hnominal = fixed_mhz(f, &c->base, cpu, "base_frequency", &c->base_mhz) == 0))
                m->nominal = c->base_mhz;
            if (!m->hnominal && m->hmax) {
                m->nominal = m->max;
                m->hnominal = 1;
            }
            return;
        }
        c->freq_absent = 1;
    }
    m->hcur = cpuinfo_mhz(f, cpu, &m->cur) == 0;
}

int pl_cpufreq_utility(pl_cpufiles *c, uint64_t busy, uint64_t total, const pl_cpufreq_mhz *m)
{
    return pl_cpufreq_utilities(c, busy, c->priv_last, total, m);
}

int pl_cpufreq_utilities(pl_cpufiles *c, uint64_t busy, uint64_t priv, uint64_t total,
                         const pl_cpufreq_mhz *m)
{
    int ok = m->hcur && m->hnominal && m->nominal;
    if (c->util_seen == 1 && ok && busy >= c->busy_last && total >= c->total_last && priv >= c->priv_last) {
        /* ticks of one interval are small: x 100 x MHz stays far from 2^64 */
        c->util += (busy - c->busy_last) * 100 * m->cur / m->nominal;
        c->putil += (priv - c->priv_last) * 100 * m->cur / m->nominal;
        c->util_base += total - c->total_last;
    } else if (!ok) {
        c->util_seen = -1;   /* a gap: no value until the sums start again */
    }
    if (ok && c->util_seen != 1) {
        c->util_seen = 1;    /* (re)start: the rate needs two collects from here */
    }
    c->busy_last = busy;
    c->priv_last = priv;
    c->total_last = total;
    return c->util_seen == 1;
}

/* Numbers of cpu's sysfs directory (names below it), kept open; a missing
 * file (its bit of *absent) is not looked for again.  ok[k] where read. */
static void read_kept(pl_cpufreq *f, uint32_t cpu, pl_file *files, const char *const *names, int n,
                      unsigned *absent, uint64_t *v, int *ok)
{
    char rel[112];
    for (int k = 0; k < n; k++) {
        int e = ENOENT;
        if (!(*absent & (1u << k))) {
            rel[0] = '\0';
            if (files[k].fd < 0)
                snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/%s", (unsigned)cpu, names[k]);
            if ((e = read_u64_file(&files[k], f->env, rel, &v[k])) == ENOENT)
                *absent |= 1u << k;
        }
        ok[k] = e == 0;
    }
}

void pl_cpufreq_limits(pl_cpufreq *f, uint32_t cpu, uint64_t khz[PL_NLIM], int ok[PL_NLIM])
{
    static const char *const names[PL_NLIM] = {
        "cpufreq/scaling_min_freq", "cpufreq/scaling_max_freq",
        "cpufreq/cpuinfo_min_freq", "cpufreq/cpuinfo_max_freq",
    };
    pl_cpufiles *c = &f->cpu[cpu];
    read_kept(f, cpu, c->lim, names, PL_NLIM, &c->lim_absent, khz, ok);
}

/* The files of arch/x86/kernel/cpu/mce/therm_throt.c (x86 with the thermal
 * interrupt): the counts since 2.6.x; the _total_time_ms files came with
 * the therm_throt rework of Linux 5.5 ("Optimize notifications of thermal
 * throttle"), so older kernels give counts only (no % Performance Limit). */
void pl_cpufreq_throttle(pl_cpufreq *f, uint32_t cpu, uint64_t v[PL_NTHR], int ok[PL_NTHR])
{
    static const char *const names[PL_NTHR] = {
        "thermal_throttle/core_throttle_count", "thermal_throttle/package_throttle_count",
        "thermal_throttle/core_throttle_total_time_ms", "thermal_throttle/package_throttle_total_time_ms",
    };
    pl_cpufiles *c = &f->cpu[cpu];
    read_kept(f, cpu, c->thr, names, PL_NTHR, &c->thr_absent, v, ok);
}

int pl_cpufreq_limit(pl_cpufiles *c, const uint64_t v[PL_NTHR], const int ok[PL_NTHR], uint64_t ms,
                     uint64_t *limit, uint64_t *flags)
{
    uint64_t now[PL_NTHR], d[PL_NTHR], dms, thr;
    int again = c->thr_seen && ms >= c->ms_last;
    if (!ok[PL_THR_CMS]) {
        c->thr_seen = 0;
        return 0;
    }
    for (int k = 0; k < PL_NTHR; k++) {
        now[k] = ok[k] ? v[k] : 0;
        if (now[k] < c->thr_last[k])
            again = 0;       /* went back: a re-plug, count since boot again */
    }
    for (int k = 0; k < PL_NTHR; k++)
        d[k] = again ? now[k] - c->thr_last[k] : now[k];
    dms = again ? ms - c->ms_last : ms;
    thr = d[PL_THR_CMS] > d[PL_THR_PMS] ? d[PL_THR_CMS] : d[PL_THR_PMS];
    *flags = (d[PL_THR_CCOUNT] || d[PL_THR_CMS] ? 1u : 0u) | (d[PL_THR_PCOUNT] || d[PL_THR_PMS] ? 2u : 0u);
    *limit = thr >= dms ? (dms ? 0 : 100) : 100 - thr * 100 / dms;
    memcpy(c->thr_last, now, sizeof now);
    c->ms_last = ms;
    c->thr_seen = 1;
    return 1;
}

int pl_cpufreq_msr(pl_cpufreq *f, uint32_t cpu, uint64_t *aperf, uint64_t *mperf)
{
    pl_cpufiles *c = &f->cpu[cpu];
    char rel[48];
    int e = 0;
    if (c->msr_absent)
        return ENOENT;
    if (c->msr_fd < 0) {
        snprintf(rel, sizeof rel, "dev/cpu/%u/msr", (unsigned)cpu);
        if ((c->msr_fd = pl_open_rel(f->env, rel)) < 0) {
            c->msr_absent = 1;       /* not root, or no msr module: it will not change */
            return errno;
        }
    }
    /* the msr device reads the register whose number is the offset, 8 bytes
     * in the CPU's byte order (arch/x86/kernel/msr.c) */
    if (pread(c->msr_fd, mperf, 8, 0xE7) != 8 || pread(c->msr_fd, aperf, 8, 0xE8) != 8)
        e = EIO;
    if (e) {
        close(c->msr_fd);
        c->msr_fd = -1;
        c->msr_absent = 1;
    }
    return e;
}

int pl_cpufreq_perf(pl_cpufiles *c, uint64_t aperf, uint64_t mperf, uint64_t busy)
{
    if (c->perf_seen && aperf >= c->aperf_last && mperf > c->mperf_last && busy >= c->ptotal_last) {
        uint64_t da = aperf - c->aperf_last, dm = mperf - c->mperf_last, r;
        /* the ratio in 1/10000 first: da x 10000 overflows only after
         * years of cycles in one interval */
        if (pl_mul_ok(da, 10000, &r)) {
            c->perf += (busy - c->ptotal_last) * (r / dm) / 100;
            c->perf_base += busy - c->ptotal_last;
        }
    }
    c->perf_seen = 1;
    c->aperf_last = aperf;
    c->mperf_last = mperf;
    c->ptotal_last = busy;
    return 1;
}
