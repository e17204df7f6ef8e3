/* Per-CPU tables such as /proc/interrupts and /proc/softirqs: a header of
 * CPUn columns (offline CPUs have none), rows of 32-bit cells.  Each cell is
 * unwrapped into a per-CPU 64-bit sum, so the sums only ever grow. */
#ifndef PL_CPUTABLE_H
#define PL_CPUTABLE_H

#include "pl_provider.h"

#include <string.h>

typedef struct pl_cputable {
    pl_file file;
    const char *rel;
    uint32_t nrows, rowcap;
    char (*label)[24];
    uint32_t **last;         /* [row][cpu] last raw cell, UINT32_MAX+ unknown */
    uint8_t **known;
    uint64_t *acc;           /* per cpu unwrapped sum */
    uint32_t ncpu;           /* columns allocated per row */
} pl_cputable;

void pl_cputable_init(pl_cputable *t, const char *rel);
void pl_cputable_free(pl_cputable *t);
/* Re-reads the file and adds each cell's difference to its CPU's sum
 * (acc[cpu]); rows that appear count from their value since boot. 0 or errno. */
int pl_cputable_update(pl_cputable *t, const pl_env *env);

/* The label of a complete row "  label: cells" ending at nl, leading blanks
 * skipped, with its length (the cells follow its colon); NULL without one. */
static inline const char *pl_cputable_label(const char *p, const char *nl, size_t *len)
{
    const char *colon = memchr(p, ':', (size_t)(nl - p));
    if (!colon)
        return NULL;
    while (*p == ' ')
        p++;
    *len = (size_t)(colon - p);
    return p;
}

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
