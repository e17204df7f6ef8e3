/* /proc/net/rpc/nfs as a kernel source: see nfsrpc.h. */
#include "nfsrpc.h"
#include "srcparse.h"
#include "pl_provider.h"

#include <string.h>

/* A line's tag and where its fields go: n fields from first, or (n 0) the
 * sum of a "<count> <v> x count" op line into first. */
static const struct {
    const char *tag;
    unsigned char len, first, n;
} tags[] = {
    { "net", 3, PL_NFSRPC_NET_COUNT, 4 },
    { "rpc", 3, PL_NFSRPC_CALLS, 3 },
    { "proc2", 5, PL_NFSRPC_V2_OPS, 0 },
    { "proc3", 5, PL_NFSRPC_V3_OPS, 0 },
    { "proc4", 5, PL_NFSRPC_V4_OPS, 0 },
};

/* A decimal token that ends at a blank or the end of the line. */
static int token(const char **p, const char *eol, uint64_t *v)
{
    return pl_src_num(p, eol, v) == 0 && (*p == eol || pl_src_blank(**p));
}

/* The sum of the n counts after n (n <= 1024: the kernel has under 100). */
static int counts_sum(const char *p, const char *eol, uint64_t *sum)
{
    uint64_t n, v, s = 0;
    if (!token(&p, eol, &n) || n > 1024)
        return 0;
    while (n--)
        if (!token(&p, eol, &v) || !pl_add_ok(s, v, &s))
            return 0;
    *sum = s;
    return 1;
}

static void put(pl_nfsrpc *d, unsigned f, int ok, uint64_t v)
{
    d->st[f] = ok ? PL_NS_OK : PL_NS_BAD;
    d->v[f] = ok ? v : 0;
}

static void one_line(pl_nfsrpc *d, const char *p, const char *eol)
{
    const char *t = p;
    uint64_t v = 0;
    int whole = *eol == '\n';
    while (p < eol && !pl_src_blank(*p))
        p++;
    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
        if ((size_t)(p - t) != tags[k].len || memcmp(t, tags[k].tag, tags[k].len) != 0)
            continue;
        if (tags[k].n == 0) {
            int ok = whole && counts_sum(p, eol, &v);
            put(d, tags[k].first, ok, v);
        }
        for (unsigned i = 0; i < tags[k].n; i++) {
            int ok = whole && token(&p, eol, &v);
            put(d, tags[k].first + i, ok, v);
        }
        return;
    }
}

int pl_parse_nfsrpc(const char *buf, size_t len, void *out)
{
    pl_nfsrpc *d = out;
    const char *end = buf + len;
    memset(d, 0, sizeof *d);  /* every field PL_NS_ABSENT */
    for (const char *p = buf; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        one_line(d, p, nl ? nl : end);
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}

const pl_ksrc_def pl_ksrc_nfsrpc = {
    "proc/net/rpc/nfs", sizeof(pl_nfsrpc), PL_KSRC_WHOLE, pl_parse_nfsrpc, NULL,
};
