/* Connection tracking as kernel sources: see conntrack.h. */
#include "conntrack.h"
#include "srcparse.h"

#include <string.h>

static const struct { const char *name; unsigned char len; } ct_names[PL_CT_N] = {
    { "found", 5 }, { "new", 3 }, { "invalid", 7 }, { "ignore", 6 }, { "delete", 6 },
    { "insert", 6 }, { "insert_failed", 13 }, { "drop", 4 }, { "early_drop", 10 },
    { "icmp_error", 10 }, { "search_restart", 14 }, { "clashres", 8 },
};

#define CT_MAXCOLS 64        /* far more than any kernel's 17 */

typedef struct ct_ctx {
    pl_ct_stat *t;
    int ncols;               /* the header's; -1 before it */
} ct_ctx;

/* The header: each name's column. */
static void header(ct_ctx *x, const char *p, const char *eol)
{
    int col = 0;
    for (int k = 0; k < PL_CT_N; k++)
        x->t->col[k] = -1;
    while (p < eol && col < CT_MAXCOLS) {
        const char *s;
        while (p < eol && pl_src_blank(*p))
            p++;
        if (p == eol)
            break;
        for (s = p; p < eol && !pl_src_blank(*p); p++)
            ;
        for (int k = 0; k < PL_CT_N; k++)
            if ((size_t)(p - s) == ct_names[k].len && memcmp(s, ct_names[k].name, ct_names[k].len) == 0)
                x->t->col[k] = col;
        col++;
    }
    x->ncols = col;
}

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    ct_ctx *x = ctx;
    pl_ctrow *r = row;
    uint32_t cell[CT_MAXCOLS];
    int n = 0;
    if (x->ncols < 0) {
        header(x, p, eol);
        return 0;
    }
    memset(r, 0, sizeof *r);
    while (p < eol && pl_src_blank(*p))
        p++;
    if (p == eol)
        return 0;            /* a blank line */
    if (*eol != '\n')
        return 1;            /* cut off: a CPU without values */
    while (p < eol) {
        uint32_t v = 0;
        int digits = 0, d;
        for (; p < eol && (d = pl_src_hex(*p)) >= 0; p++) {
            if (++digits > 8)
                return 1;
            v = v << 4 | (uint32_t)d;
        }
        if (digits == 0 || (p < eol && !pl_src_blank(*p)) || n == CT_MAXCOLS)
            return 1;
        cell[n++] = v;
        while (p < eol && pl_src_blank(*p))
            p++;
    }
    if (n < x->ncols)
        return 1;            /* fewer fields than names: which is which is unknown */
    for (int k = 0; k < PL_CT_N; k++)
        if (x->t->col[k] >= 0)
            r->v[k] = cell[x->t->col[k]];
    r->ok = 1;
    return 1;
}

int pl_parse_ct_stat(const char *buf, size_t len, void *out)
{
    pl_ct_stat *t = out;
    ct_ctx x = { t, -1 };
    for (int k = 0; k < PL_CT_N; k++)
        t->col[k] = -1;
    return pl_rows_parse(buf, len, &t->rows, sizeof(pl_ctrow), parse_line, &x);
}

void pl_ct_stat_release(void *out)
{
    pl_rows_release(&((pl_ct_stat *)out)->rows);
}

const pl_ksrc_def pl_ksrc_ct_count = PL_SYSNUM_SRC("proc/sys/net/netfilter/nf_conntrack_count");
const pl_ksrc_def pl_ksrc_ct_max = PL_SYSNUM_SRC("proc/sys/net/netfilter/nf_conntrack_max");
/* a seq_file iterator over the CPUs: read until 0 */
const pl_ksrc_def pl_ksrc_ct_stat = {
    "proc/net/stat/nf_conntrack", sizeof(pl_ct_stat), 0, pl_parse_ct_stat, pl_ct_stat_release,
};
