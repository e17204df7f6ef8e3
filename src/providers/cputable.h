/* Per-CPU sums of a per-CPU table (/proc/interrupts, /proc/softirqs, parsed
 * by the kernel sources of cputab.h): each 32-bit cell is unwrapped into
 * its CPU's 64-bit sum, so the sums only ever grow.  Processor Information
 * keeps one per file. */
#ifndef PL_CPUTABLE_H
#define PL_CPUTABLE_H

#include "pl_provider.h"
#include "cputab.h"

typedef struct pl_cputable {
    uint32_t nrows, rowcap;
    char (*label)[PL_CPUTAB_LABEL];
    uint32_t **last;         /* [row][cpu] last raw cell */
    uint8_t **known;
    uint64_t *acc;           /* per cpu unwrapped sum */
    uint32_t ncpu;           /* columns allocated per row */
    const char *pick;        /* a row also summed apart ("LOC"), or NULL */
    int pick_row;            /* its row, -1 until seen */
    uint64_t *pick_acc;      /* per cpu unwrapped sum of that row alone */
} pl_cputable;

void pl_cputable_init(pl_cputable *t);
/* Also sums the row labelled label (a static string) apart, in pick_acc. */
void pl_cputable_pick(pl_cputable *t, const char *label);
void pl_cputable_free(pl_cputable *t);
/* Adds each cell's difference since the last table to its CPU's sum
 * (acc[cpu]); rows that appear count from their value since boot.  Only
 * rows with one cell per column count (not ERR, MIS, short or bad rows).
 * 0 or ENOMEM. */
int pl_cputable_update(pl_cputable *t, const pl_cputab *tab);

/* A 32-bit cell's growth since the last read, wraps included; a cell not
 * seen before counts from zero. */
static inline uint32_t pl_cputable_step(uint32_t *last, uint8_t *known, uint32_t cell)
{
    uint32_t d = *known ? cell - *last : cell;
    *last = cell;
    *known = 1;
    return d;
}

#endif
