/* /proc/stat as a kernel source: see procstat.h. */
#include "procstat.h"

#include "srcparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The value of a key's line at q (just after its "key "), nl its '\n'.
 * only: the number must be the line's one token; else a whole first token
 * (intr and softirq: the total, then one number per IRQ or vector). */
static void key_value(pl_procstat *ps, int k, const char *q, const char *nl, int only)
{
    uint64_t v;
    if (ps->st[k] != PL_NS_ABSENT)
        return;              /* the first line of a key counts */
    ps->st[k] = PL_NS_BAD;
    if (pl_src_num(&q, nl, &v) || (q < nl && !pl_src_blank(*q)))
        return;
    while (only && q < nl && pl_src_blank(*q))
        q++;
    if (only && q != nl)
        return;
    ps->v[k] = v;
    ps->st[k] = PL_NS_OK;
}

static int grow_rows(pl_procstat *ps)
{
    uint32_t cap = ps->cap ? ps->cap * 2 : 16;
    pl_stat_cpu *c = realloc(ps->cpu, cap * sizeof *c);
    if (!c)
        return ENOMEM;
    ps->cpu = c;
    ps->cap = cap;
    return 0;
}

/* A cpu line: q just after "cpu", nl its '\n'.  Parsed into the next row's
 * slot (or the total), which counts only when the line is whole. */
static int cpu_line(pl_procstat *ps, const char *q, const char *nl)
{
    pl_stat_cpu *row;
    uint64_t id = 0;
    uint32_t nf = 0;
    int total = *q == ' ';
    if (!total && (pl_src_num(&q, nl, &id) || id >= PL_STAT_MAXCPU)) {
        ps->bad_cpu = 1;
        return 0;
    }
    if (total && ps->total.nf)
        return 0;            /* the first aggregate line counts */
    if (!total && ps->ncpu == ps->cap && grow_rows(ps))
        return ENOMEM;
    row = total ? &ps->total : &ps->cpu[ps->ncpu];
    while (nf < PL_STAT_NF && pl_src_num(&q, nl, &row->f[nf]) == 0)
        nf++;
    if (nf < 4) {
        ps->bad_cpu = 1;     /* user nice system idle at least */
        return 0;
    }
    for (uint32_t i = nf; i < PL_STAT_NF; i++)
        row->f[i] = 0;
    row->nf = nf;
    row->id = (uint32_t)id;
    if (!total) {
        ps->ncpu++;
        if (row->id + 1 > ps->maxcpu)
            ps->maxcpu = row->id + 1;
    }
    return 0;
}

static const struct { const char *key; uint8_t len, k, only; } keys[] = {
    { "intr ", 5, PL_STAT_INTR, 0 },           { "ctxt ", 5, PL_STAT_CTXT, 1 },
    { "btime ", 6, PL_STAT_BTIME, 1 },         { "processes ", 10, PL_STAT_PROCESSES, 1 },
    { "procs_running ", 14, PL_STAT_RUNNING, 1 }, { "procs_blocked ", 14, PL_STAT_BLOCKED, 1 },
    { "softirq ", 8, PL_STAT_SOFTIRQ, 0 },
};

/* Lines are told apart by their first letters, so the long intr line costs
 * one memchr; the kernel's order (cpu lines, intr, ctxt, btime, processes,
 * procs_*, softirq) makes the key tried first the right one. */
int pl_parse_stat(const char *buf, size_t len, void *out)
{
    pl_procstat *ps = out;
    const char *p = buf, *end = buf + len, *nl;
    size_t next = 0;
    ps->total.nf = 0;
    ps->ncpu = ps->maxcpu = 0;
    ps->bad_cpu = 0;
    memset(ps->st, PL_NS_ABSENT, sizeof ps->st);
    for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1) {
        size_t n = (size_t)(nl - p);
        if (n >= 3 && p[0] == 'c' && p[1] == 'p' && p[2] == 'u') {
            if (cpu_line(ps, p + 3, nl))
                return ENOMEM;
            continue;
        }
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            size_t k = (next + i) % (sizeof keys / sizeof keys[0]);
            if (n >= keys[k].len && memcmp(p, keys[k].key, keys[k].len) == 0) {
                key_value(ps, keys[k].k, p + keys[k].len, nl, keys[k].only);
                next = k + 1;
                break;
            }
        }
    }
    return 0;
}

void pl_release_stat(void *out)
{
    pl_procstat *ps = out;
    free(ps->cpu);
    ps->cpu = NULL;
    ps->cap = ps->ncpu = 0;
}

/* single_open_size (fs/proc/stat.c): the whole file per read */
const pl_ksrc_def pl_ksrc_stat = { "proc/stat", sizeof(pl_procstat), PL_KSRC_WHOLE, pl_parse_stat,
                                   pl_release_stat };
