/* /proc/interrupts and /proc/softirqs as kernel sources (pl_ksrc.h): the
 * per-CPU tables read by Processor Information (a CPU's column summed) and
 * by the Interrupts and SoftIRQ sets (a row summed), parsed once per
 * collect for all of them.
 *
 * The header names the columns: "CPU0 CPU1 ..." (offline CPUs have none in
 * /proc/interrupts); a header with anything else, no column, a CPU number
 * of 65536 or more, or more than PL_CPUTAB_MAXCOLS columns is not this file
 * (EINVAL).  A row is a complete line "label: cells ...": a label of 1 to
 * PL_CPUTAB_LABEL - 1 characters without blanks (other lines are no rows).
 * Its cells are the numbers after the colon, at most one per column; a
 * number above 2^32-1 (the kernel prints 32-bit %10u cells) makes the row
 * bad.  ERR, MIS and Err in /proc/interrupts are machine-wide: one count,
 * under the first column, not CPU0's. */
#ifndef PL_CPUTAB_H
#define PL_CPUTAB_H

#include "pl_ksrc.h"

#define PL_CPUTAB_LABEL 32
#define PL_CPUTAB_MAXCOLS 8192u

typedef struct pl_cputab_row {
    char label[PL_CPUTAB_LABEL];
    uint8_t len;             /* of label */
    uint8_t wide;            /* machine-wide (ERR, MIS, Err) */
    uint8_t bad;             /* a cell over 2^32-1 */
    uint32_t ncells;         /* numbers read, up to ncols */
    size_t first;            /* its cells: cells[first .. first + ncells) */
} pl_cputab_row;

typedef struct pl_cputab {
    uint32_t *cols;          /* the CPU number of each column */
    uint32_t ncols, colcap;
    uint32_t maxcpu;         /* the highest CPU number + 1 */
    pl_cputab_row *rows;     /* in file order */
    uint32_t nrows, rowcap;
    uint32_t *cells;
    size_t ncells, cellcap;
} pl_cputab;

/* A row whose cells are one per column: its per-CPU counts. */
static inline int pl_cputab_full(const pl_cputab *t, const pl_cputab_row *r)
{
    return !r->bad && !r->wide && r->ncells == t->ncols;
}

extern const pl_ksrc_def pl_ksrc_interrupts, pl_ksrc_softirqs;

/* The pure parsers (buf[len] is '\0'): 0, EINVAL for a header that is not
 * a CPU list, ENOMEM. */
int pl_parse_interrupts(const char *buf, size_t len, void *out);
int pl_parse_softirqs(const char *buf, size_t len, void *out);
void pl_release_cputab(void *out);

#endif
