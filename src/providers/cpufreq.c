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
        for (int k = 0; k < 3; k++) {
            pl_file_init(&c[i].idle[k].time);
            pl_file_init(&c[i].idle[k].usage);
        }
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
        for (int k = 0; k < 3; k++) {
            pl_file_close(&f->cpu[i].idle[k].time);
            pl_file_close(&f->cpu[i].idle[k].usage);
        }
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

void pl_cpufreq_idle(pl_cpufreq *f, uint32_t cpu, uint64_t time[3], uint64_t usage[3], int ok[3])
{
    char rel[96];
    rel[0] = '\0';
    for (int k = 0; k < 3; k++) {
        pl_idlefile *s = &f->cpu[cpu].idle[k];
        ok[k] = 0;
        if (s->absent)
            continue;
        if (s->time.fd < 0)
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%d/time", (unsigned)cpu, k + 1);
        int e = read_u64_file(&s->time, f->env, rel, &time[k]);
        if (e == ENOENT) {
            s->absent = 1;
            continue;
        }
        if (s->usage.fd < 0)
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%d/usage", (unsigned)cpu, k + 1);
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
    int ok = m->hcur && m->hnominal && m->nominal;
    if (c->util_seen == 1 && ok && busy >= c->busy_last && total >= c->total_last) {
        /* ticks of one interval are small: x 100 x MHz stays far from 2^64 */
        c->util += (busy - c->busy_last) * 100 * m->cur / m->nominal;
        c->util_base += total - c->total_last;
    } else if (!ok) {
        c->util_seen = -1;   /* a gap: no value until the sums start again */
    }
    if (ok && c->util_seen != 1) {
        c->util_seen = 1;    /* (re)start: the rate needs two collects from here */
    }
    c->busy_last = busy;
    c->total_last = total;
    return c->util_seen == 1;
}
