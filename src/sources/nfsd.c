/* /proc/net/rpc/nfsd as a kernel source: see nfsd.h. */
#include "nfsd.h"
#include "srcparse.h"
#include "pl_provider.h"

#include <string.h>

/* A line's tag and where its first n fields go (first: the struct's). */
static const struct {
    const char *tag;
    unsigned char len, first, n;
} lines[] = {
    { "rc", 2, PL_NFSD_RC_HITS, 3 },
    { "fh", 2, PL_NFSD_FH_STALE, 1 },
    { "io", 2, PL_NFSD_IO_READ, 2 },
    { "th", 2, PL_NFSD_THREADS, 1 },
    { "net", 3, PL_NFSD_NET_COUNT, 4 },
    { "rpc", 3, PL_NFSD_RPC_CALLS, 5 },
};

static void set(pl_nfsd *d, int f, int ok, uint64_t v)
{
    d->st[f] = ok ? PL_NS_OK : PL_NS_BAD;
    d->v[f] = ok ? v : 0;
}

/* A decimal token that ends at a blank or the end of the line. */
static int field(const char **p, const char *eol, uint64_t *v)
{
    return pl_src_num(p, eol, v) == 0 && (*p == eol || pl_src_blank(**p));
}

/* "<n> <count> x n" after an op line's tag: 1 with the counts' sum. */
static int op_sum(const char *p, const char *eol, uint64_t *sum)
{
    uint64_t n, v, s = 0;
    if (!field(&p, eol, &n) || n > 1024)
        return 0;
    for (uint64_t i = 0; i < n; i++)
        if (!field(&p, eol, &v) || !pl_add_ok(s, v, &s))
            return 0;
    *sum = s;
    return 1;
}

static void parse_line(pl_nfsd *d, const char *p, const char *eol)
{
    const char *t = p;
    size_t tl;
    uint64_t v = 0, n = 0;
    int whole = *eol == '\n', ok;
    while (p < eol && !pl_src_blank(*p))
        p++;
    tl = (size_t)(p - t);
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
        if (tl != lines[k].len || memcmp(t, lines[k].tag, tl) != 0)
            continue;
        for (int i = 0; i < lines[k].n; i++) {
            ok = whole && field(&p, eol, &v);
            set(d, lines[k].first + i, ok, v);
        }
        return;
    }
    if (tl == 5 && memcmp(t, "proc3", 5) == 0) {
        ok = whole && op_sum(p, eol, &v);
        set(d, PL_NFSD_V3_OPS, ok, v);
    } else if (tl == 8 && memcmp(t, "proc4ops", 8) == 0) {
        ok = whole && op_sum(p, eol, &v);
        set(d, PL_NFSD_V4_OPS, ok, v);
    } else if (tl == 5 && memcmp(t, "proc4", 5) == 0) {
        /* "proc4 2 <null> <compound>" */
        ok = whole && field(&p, eol, &n) && n >= 2 && field(&p, eol, &v) && field(&p, eol, &v);
        set(d, PL_NFSD_V4_COMPOUNDS, ok, v);
    }
}

int pl_parse_nfsd(const char *buf, size_t len, void *out)
{
    pl_nfsd *d = out;
    const char *end = buf + len;
    memset(d->st, PL_NS_ABSENT, sizeof d->st);
    memset(d->v, 0, sizeof d->v);
    for (const char *p = buf; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        parse_line(d, p, nl ? nl : end);
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}

const pl_ksrc_def pl_ksrc_nfsd = {
    "proc/net/rpc/nfsd", sizeof(pl_nfsd), PL_KSRC_WHOLE, pl_parse_nfsd, NULL,
};
