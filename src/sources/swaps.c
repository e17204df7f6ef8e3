/* /proc/swaps as a kernel source: see swaps.h. */
#include "swaps.h"
#include "pl_provider.h"

#include <stdlib.h>
#include <string.h>

/* The n bytes at f into the pool, unescaped; its offset, or (size_t)-1 for
 * ENOMEM. */
static size_t pool_name(pl_swaps *w, const char *f, size_t n)
{
    size_t off = w->plen;
    char *o;
    if (w->plen + n + 1 > w->pcap) {
        size_t cap = w->pcap ? w->pcap : 256;
        while (cap < w->plen + n + 1)
            cap *= 2;
        char *np = realloc(w->pool, cap);
        if (!np)
            return (size_t)-1;
        w->pool = np;
        w->pcap = cap;
    }
    o = w->pool + w->plen;
    for (size_t i = 0; i < n; i++) {
        if (f[i] == '\\' && i + 3 < n && f[i + 1] >= '0' && f[i + 1] <= '3' &&
            f[i + 2] >= '0' && f[i + 2] <= '7' && f[i + 3] >= '0' && f[i + 3] <= '7' &&
            (f[i + 1] != '0' || f[i + 2] != '0' || f[i + 3] != '0')) {
            *o++ = (char)((f[i + 1] - '0') * 64 + (f[i + 2] - '0') * 8 + (f[i + 3] - '0'));
            i += 3;
        } else {
            *o++ = f[i];
        }
    }
    *o++ = '\0';
    w->plen = (size_t)(o - w->pool);
    return off;
}

/* "Type Size Used Priority" after the name; 1 when whole and consistent. */
static int take_values(const char *p, pl_swaprow *r)
{
    uint64_t pr;
    int neg;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++;                 /* partition / file */
    if (pl_parse_u64(&p, &r->size) || pl_parse_u64(&p, &r->used))
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    neg = *p == '-';
    p += neg;
    if (pl_parse_u64(&p, &pr) || pr > 2147483648u || (*p != '\n' && *p != ' '))
        return 0;
    r->prio = neg ? -(int64_t)pr : (int64_t)pr;
    /* KiB -> bytes must fit, and used cannot exceed size */
    if (r->size > UINT64_MAX / 1024 || r->used > r->size)
        return 0;
    r->size *= 1024;
    r->used *= 1024;
    return 1;
}

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_swaprow *r = row;
    const char *e;
    if ((size_t)(eol - p) >= 8 && memcmp(p, "Filename", 8) == 0)
        return 0;            /* the header */
    while (*p == ' ' || *p == '\t')
        p++;
    for (e = p; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
        ;
    if (e == p)
        return 0;            /* a blank line */
    if ((r->name = pool_name(ctx, p, (size_t)(e - p))) == (size_t)-1)
        return -1;
    /* a cut last line (no '\n') has no trustworthy values */
    r->ok = *eol == '\n' && take_values(e, r);
    return 1;
}

int pl_parse_swaps(const char *buf, size_t len, void *out)
{
    pl_swaps *w = out;
    w->plen = 0;
    return pl_rows_parse(buf, len, &w->rows, sizeof(pl_swaprow), parse_line, w);
}

static void release(void *out)
{
    pl_swaps *w = out;
    pl_rows_release(&w->rows);
    free(w->pool);
    w->pool = NULL;
    w->plen = w->pcap = 0;
}

const pl_ksrc_def pl_ksrc_swaps = { "proc/swaps", sizeof(pl_swaps), 0, pl_parse_swaps, release };
