/* /proc/interrupts and /proc/softirqs as kernel sources: see cputab.h. */
#include "cputab.h"

#include "srcparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **a, size_t want, size_t *cap, size_t size)
{
    size_t n = *cap ? *cap : 16;
    void *b;
    if (want <= *cap)
        return 0;
    while (n < want)
        n *= 2;
    if (!(b = realloc(*a, n * size)))
        return ENOMEM;
    *a = b;
    *cap = n;
    return 0;
}

/* "CPU0 CPU1 ...\n" up to nl: the columns. */
static int header(pl_cputab *t, const char *p, const char *nl)
{
    t->ncols = t->maxcpu = 0;
    for (;;) {
        uint64_t cpu;
        while (p < nl && (*p == ' ' || *p == '\t'))
            p++;
        if (p == nl)
            break;
        if (nl - p < 3 || memcmp(p, "CPU", 3) != 0)
            return EINVAL;
        p += 3;
        if (pl_src_num(&p, nl, &cpu) || cpu >= 65536 || t->ncols == PL_CPUTAB_MAXCOLS)
            return EINVAL;
        if (t->ncols == t->colcap) {
            size_t cap = t->colcap;
            if (grow((void **)&t->cols, cap + 1, &cap, sizeof *t->cols))
                return ENOMEM;
            t->colcap = (uint32_t)cap;
        }
        t->cols[t->ncols++] = (uint32_t)cpu;
        if (cpu + 1 > t->maxcpu)
            t->maxcpu = (uint32_t)cpu + 1;
    }
    return t->ncols ? 0 : EINVAL;
}

static int machine_wide(const char *l, size_t n)
{
    return n == 3 && (memcmp(l, "ERR", 3) == 0 || memcmp(l, "MIS", 3) == 0 ||
                      memcmp(l, "Err", 3) == 0);
}

/* One complete line [p, nl): a row when it has a usable label. */
static int row(pl_cputab *t, const char *p, const char *nl, int wide_rows)
{
    const char *colon = memchr(p, ':', (size_t)(nl - p)), *q;
    pl_cputab_row *r;
    size_t len;
    uint64_t v;
    if (!colon)
        return 0;
    while (*p == ' ')
        p++;
    len = (size_t)(colon - p);
    if (len == 0 || len >= PL_CPUTAB_LABEL || memchr(p, ' ', len) || memchr(p, '\t', len))
        return 0;
    if (t->nrows == t->rowcap) {
        size_t cap = t->rowcap;
        if (grow((void **)&t->rows, cap + 1, &cap, sizeof *t->rows))
            return ENOMEM;
        t->rowcap = (uint32_t)cap;
    }
    if (grow((void **)&t->cells, t->ncells + t->ncols, &t->cellcap, sizeof *t->cells))
        return ENOMEM;
    r = &t->rows[t->nrows++];
    memcpy(r->label, p, len);
    r->label[len] = '\0';
    r->len = (uint8_t)len;
    r->wide = (uint8_t)(wide_rows && machine_wide(p, len));
    r->bad = 0;
    r->first = t->ncells;
    r->ncells = 0;
    for (q = colon + 1; r->ncells < t->ncols && pl_src_num(&q, nl, &v) == 0; r->ncells++) {
        r->bad |= v > UINT32_MAX;
        t->cells[t->ncells++] = (uint32_t)v;
    }
    return 0;
}

static int parse(const char *buf, size_t len, pl_cputab *t, int wide_rows)
{
    const char *end = buf + len, *p, *nl = memchr(buf, '\n', len);
    int e;
    t->nrows = 0;
    t->ncells = 0;
    if (!nl) {
        t->ncols = t->maxcpu = 0;
        return EINVAL;
    }
    if ((e = header(t, buf, nl)))
        return e;
    /* a last line without '\n' was cut off: it is no row */
    for (p = nl + 1; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1)
        if ((e = row(t, p, nl, wide_rows)))
            return e;
    return 0;
}

int pl_parse_interrupts(const char *buf, size_t len, void *out) { return parse(buf, len, out, 1); }
int pl_parse_softirqs(const char *buf, size_t len, void *out) { return parse(buf, len, out, 0); }

void pl_release_cputab(void *out)
{
    pl_cputab *t = out;
    free(t->cols);
    free(t->rows);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* /proc/interrupts is a seq_file iterator (one record per IRQ): only a read
 * of 0 ends it.  /proc/softirqs is single_open: the whole file per read. */
const pl_ksrc_def pl_ksrc_interrupts = { "proc/interrupts", sizeof(pl_cputab), 0, pl_parse_interrupts,
                                         pl_release_cputab };
const pl_ksrc_def pl_ksrc_softirqs = { "proc/softirqs", sizeof(pl_cputab), PL_KSRC_WHOLE, pl_parse_softirqs,
                                       pl_release_cputab };
