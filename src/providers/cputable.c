/* Per-CPU sums of /proc/interrupts and /proc/softirqs: the 32-bit cells of
 * the parsed tables (cputab.h) unwrapped into 64-bit sums per CPU. */
#include "cputable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pl_cputable_init(pl_cputable *t)
{
    memset(t, 0, sizeof *t);
    t->pick_row = -1;
}

void pl_cputable_pick(pl_cputable *t, const char *label)
{
    t->pick = label;
}

void pl_cputable_free(pl_cputable *t)
{
    for (uint32_t r = 0; r < t->nrows; r++) {
        free(t->last[r]);
        free(t->known[r]);
    }
    free(t->label);
    free(t->last);
    free(t->known);
    free(t->acc);
    free(t->pick_acc);
}

static int cputable_cols(pl_cputable *t, uint32_t n)
{
    if (n <= t->ncpu)
        return 0;
    uint64_t *a = realloc(t->acc, n * sizeof *a);
    if (!a) return ENOMEM;
    t->acc = a;
    for (uint32_t i = t->ncpu; i < n; i++)
        t->acc[i] = 0;
    if (t->pick) {
        uint64_t *pa = realloc(t->pick_acc, n * sizeof *pa);
        if (!pa) return ENOMEM;
        t->pick_acc = pa;
        for (uint32_t i = t->ncpu; i < n; i++)
            t->pick_acc[i] = 0;
    }
    for (uint32_t r = 0; r < t->nrows; r++) {
        uint32_t *l = realloc(t->last[r], n * sizeof *l);
        if (!l) return ENOMEM;
        t->last[r] = l;
        uint8_t *k = realloc(t->known[r], n);
        if (!k) return ENOMEM;
        t->known[r] = k;
        memset(k + t->ncpu, 0, n - t->ncpu);
    }
    t->ncpu = n;
    return 0;
}

static int cputable_row(pl_cputable *t, const char *label, size_t len, uint32_t hint)
{
    if (hint < t->nrows && t->label[hint][len] == '\0' && memcmp(t->label[hint], label, len) == 0)
        return (int)hint;
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->label[r][len] == '\0' && memcmp(t->label[r], label, len) == 0)
            return (int)r;
    if (t->nrows == t->rowcap) {
        uint32_t cap = t->rowcap ? t->rowcap * 2 : 64;
        char (*nl)[PL_CPUTAB_LABEL] = realloc(t->label, cap * sizeof *nl);
        if (!nl) return -1;
        t->label = nl;
        uint32_t **ls = realloc(t->last, cap * sizeof *ls);
        if (!ls) return -1;
        t->last = ls;
        uint8_t **ks = realloc(t->known, cap * sizeof *ks);
        if (!ks) return -1;
        t->known = ks;
        t->rowcap = cap;
    }
    uint32_t r = t->nrows;
    t->last[r] = malloc((t->ncpu ? t->ncpu : 1) * sizeof **t->last);
    t->known[r] = calloc(t->ncpu ? t->ncpu : 1, 1);
    if (!t->last[r] || !t->known[r]) {
        free(t->last[r]);
        free(t->known[r]);
        return -1;
    }
    memcpy(t->label[r], label, len);
    t->label[r][len] = '\0';
    if (t->pick && strcmp(t->label[r], t->pick) == 0)
        t->pick_row = (int)r;
    t->nrows++;
    return (int)r;
}

/* Adds each cell's 32-bit difference to its CPU's 64-bit sum. */
int pl_cputable_update(pl_cputable *t, const pl_cputab *tab)
{
    int e = cputable_cols(t, tab->maxcpu);
    if (e)
        return e;
    for (uint32_t i = 0; i < tab->nrows; i++) {
        const pl_cputab_row *row = &tab->rows[i];
        const uint32_t *cell = tab->cells + row->first;
        int r;
        if (!pl_cputab_full(tab, row))
            continue;        /* machine-wide, short or bad: not per-CPU */
        if ((r = cputable_row(t, row->label, row->len, i)) < 0)
            return ENOMEM;
        for (uint32_t c = 0; c < tab->ncols; c++) {
            uint32_t cpu = tab->cols[c];
            uint32_t d = pl_cputable_step(&t->last[r][cpu], &t->known[r][cpu], cell[c]);
            t->acc[cpu] += d;
            if (r == t->pick_row)
                t->pick_acc[cpu] += d;
        }
    }
    return 0;
}
