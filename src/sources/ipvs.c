/* IPVS totals as a kernel source: see ipvs.h. */
#include "ipvs.h"
#include "srcparse.h"

#include <string.h>

/* The line at *p within [*p, e): its end (a '\n' or e), *p moved past it. */
static const char *line_end(const char **p, const char *e)
{
    const char *s = *p, *eol = memchr(s, '\n', (size_t)(e - s));
    if (!eol)
        eol = e;
    *p = eol < e ? eol + 1 : e;
    return eol;
}

/* Whether the line [p, eol) starts, after blanks, with the word w. */
static int first_word(const char *p, const char *eol, const char *w)
{
    size_t n = strlen(w);
    while (p < eol && pl_src_blank(*p))
        p++;
    return (size_t)(eol - p) >= n && memcmp(p, w, n) == 0 &&
           (p + n == eol || pl_src_blank(p[n]));
}

/* Five hex fields of 1-16 digits and nothing else: 1 with v[]. */
static int totals(const char *p, const char *eol, uint64_t *v)
{
    int n = 0;
    for (;;) {
        uint64_t x = 0;
        int digits = 0, d;
        while (p < eol && pl_src_blank(*p))
            p++;
        if (p == eol)
            return n == PL_IPVS_N;
        if (n == PL_IPVS_N)
            return 0;
        for (; p < eol && (d = pl_src_hex(*p)) >= 0; p++) {
            if (++digits > 16)
                return 0;
            x = x << 4 | (uint64_t)d;
        }
        if (digits == 0 || (p < eol && !pl_src_blank(*p)))
            return 0;
        v[n++] = x;
    }
}

int pl_parse_ipvs_stats(const char *buf, size_t len, void *out)
{
    pl_ipvs_stats *t = out;
    const char *p = buf, *e = buf + len, *eol;
    uint8_t st = PL_NS_BAD;
    memset(t, 0, sizeof *t);
    if (len == 0)
        return 0;                                   /* nothing: absent */
    eol = line_end(&p, e);
    if (first_word(buf, eol, "Total") && p < e) {
        const char *l2 = p;
        eol = line_end(&p, e);
        if (first_word(l2, eol, "Conns")) {
            const char *l3 = p;
            eol = line_end(&p, e);
            if (eol == e)
                st = PL_NS_ABSENT;                  /* cut off before the totals end */
            else if (totals(l3, eol, t->v))
                st = PL_NS_OK;
        }
    }
    if (st != PL_NS_OK)
        memset(t->v, 0, sizeof t->v);
    memset(t->st, st, sizeof t->st);
    return 0;
}

/* a seq_file of one show(): the whole table per read */
const pl_ksrc_def pl_ksrc_ipvs_stats = {
    "proc/net/ip_vs_stats", sizeof(pl_ipvs_stats), PL_KSRC_WHOLE, pl_parse_ipvs_stats, NULL,
};
