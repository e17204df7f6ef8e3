/* Per-CPU tables (/proc/interrupts, /proc/softirqs) with 32-bit cells
 * unwrapped into 64-bit per-CPU sums.  Shared by the providers that read them. */
#include "cputable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pl_cputable_init(pl_cputable *t, const char *rel)
{
    memset(t, 0, sizeof *t);
    pl_file_init(&t->file);
    t->rel = rel;
}

void pl_cputable_free(pl_cputable *t)
{
    pl_file_close(&t->file);
    for (uint32_t r = 0; r < t->nrows; r++) {
        free(t->last[r]);
        free(t->known[r]);
    }
    free(t->label);
    free(t->last);
    free(t->known);
    free(t->acc);
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
    if (len >= sizeof t->label[0])
        len = sizeof t->label[0] - 1;
    if (hint < t->nrows && t->label[hint][len] == '\0' && memcmp(t->label[hint], label, len) == 0)
        return (int)hint;
    for (uint32_t r = 0; r < t->nrows; r++)
        if (t->label[r][len] == '\0' && memcmp(t->label[r], label, len) == 0)
            return (int)r;
    if (t->nrows == t->rowcap) {
        uint32_t cap = t->rowcap ? t->rowcap * 2 : 64;
        char (*nl)[24] = realloc(t->label, cap * sizeof *nl);
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
    t->nrows++;
    return (int)r;
}

/* ERR and MIS (x86) and Err (arm) hold one machine-wide count printed under
 * the first column; it is not CPU0's.  Such rows, and any row without a
 * cell for every column, are left out of the per-CPU sums. */
static int machine_wide(const char *label, size_t len)
{
    return len == 3 && (memcmp(label, "ERR", 3) == 0 || memcmp(label, "MIS", 3) == 0 ||
                        memcmp(label, "Err", 3) == 0);
}

/* Adds each cell's 32-bit difference to its CPU's 64-bit sum. */
int pl_cputable_update(pl_cputable *t, const pl_env *env)
{
    uint32_t cols[1024], ncols = 0, row = 0;
    uint64_t cells[1024];
    const char *p, *nl;
    int e = pl_file_read(&t->file, env, t->rel);
    if (e)
        return e;
    p = t->file.buf;
    /* header: CPU0 CPU1 ... (offline CPUs have no column) */
    while (*p && *p != '\n') {
        unsigned long cpu;
        char *end;
        while (*p == ' ')
            p++;
        if (strncmp(p, "CPU", 3) != 0)
            break;
        cpu = strtoul(p + 3, &end, 10);
        if (end == p + 3 || cpu >= 65536 || ncols == sizeof cols / sizeof cols[0])
            return EINVAL;
        cols[ncols++] = (uint32_t)cpu;
        if ((e = cputable_cols(t, (uint32_t)cpu + 1)))
            return e;
        p = end;
    }
    if (ncols == 0)
        return EINVAL;
    nl = strchr(p, '\n');
    for (p = nl ? nl + 1 : NULL; p && *p; p = nl + 1, row++) {
        const char *lab, *q;
        size_t len;
        uint32_t n = 0;
        int r;
        nl = strchr(p, '\n');
        if (!nl)
            break;           /* a cut-off last line is not counted */
        if (!(lab = pl_cputable_label(p, nl, &len)) || machine_wide(lab, len))
            continue;
        /* one pass over the cells; a short row is not per-CPU */
        for (q = lab + len + 1; n < ncols && pl_parse_u64(&q, &cells[n]) == 0; n++)
            ;
        if (n != ncols)
            continue;
        r = cputable_row(t, lab, len, row);
        if (r < 0)
            return ENOMEM;
        for (uint32_t c = 0; c < ncols; c++) {
            uint32_t cpu = cols[c];
            t->acc[cpu] += pl_cputable_step(&t->last[r][cpu], &t->known[r][cpu],
                                            (uint32_t)cells[c]);
        }
    }
    return 0;
}
