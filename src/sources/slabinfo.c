/* /proc/slabinfo as a kernel source: see slabinfo.h. */
#include "slabinfo.h"
#include "srcparse.h"

#include <string.h>

/* n decimals into v (blanks before each); 1 when all were there. */
static int nums(const char **p, const char *eol, uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        if (pl_src_num(p, eol, &v[i]))
            return 0;
    return 1;
}

/* ": word" before the next group of values. */
static int group(const char **p, const char *eol, const char *word)
{
    size_t n = strlen(word);
    const char *q = *p;
    while (q < eol && pl_src_blank(*q))
        q++;
    if (q >= eol || *q++ != ':')
        return 0;
    while (q < eol && pl_src_blank(*q))
        q++;
    if ((size_t)(eol - q) < n || memcmp(q, word, n) != 0)
        return 0;
    *p = q + n;
    return 1;
}

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_slabinfo *t = ctx;
    pl_slabrow *r = row;
    uint64_t first[5], tun[3], slab[3];
    const char *s;
    size_t n;
    if (!t->version_ok || p == eol || *p == '#' ||
        ((size_t)(eol - p) >= 19 && memcmp(p, "slabinfo - version:", 19) == 0))
        return 0;            /* the two header lines */
    for (s = p; p < eol && !pl_src_blank(*p); p++)
        ;
    if (p == s)
        return 0;
    memset(r, 0, sizeof *r);
    n = (size_t)(p - s) < sizeof r->name ? (size_t)(p - s) : sizeof r->name - 1;
    memcpy(r->name, s, n);
    if (*eol != '\n' || !nums(&p, eol, first, 5) || !group(&p, eol, "tunables") ||
        !nums(&p, eol, tun, 3) || !group(&p, eol, "slabdata") || !nums(&p, eol, slab, 3))
        return 1;            /* the cache, without values */
    while (p < eol && pl_src_blank(*p))
        p++;
    if (p != eol)
        return 1;
    memcpy(r->v, first, sizeof first);
    r->v[PL_SL_ACTIVE_SLABS] = slab[0];
    r->v[PL_SL_NUM_SLABS] = slab[1];
    r->ok = 1;
    return 1;
}

int pl_parse_slabinfo(const char *buf, size_t len, void *out)
{
    static const char v21[] = "slabinfo - version: 2.1\n";
    pl_slabinfo *t = out;
    t->version_ok = len >= sizeof v21 - 1 && memcmp(buf, v21, sizeof v21 - 1) == 0;
    return pl_rows_parse(buf, len, &t->rows, sizeof(pl_slabrow), parse_line, t);
}

void pl_slabinfo_release(void *out)
{
    pl_rows_release(&((pl_slabinfo *)out)->rows);
}

const pl_ksrc_def pl_ksrc_slabinfo = {
    "proc/slabinfo", sizeof(pl_slabinfo), 0, pl_parse_slabinfo, pl_slabinfo_release,
};
