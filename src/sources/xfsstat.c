/* The XFS statistics file parser: see xfsstat.h. */
#include "xfsstat.h"

#include <string.h>

static const struct xline {
    const char *name;
    uint16_t first, next;
    uint8_t wide;                /* 64-bit fields ("%llu") */
} lines[] = {
    { "extent_alloc", PL_XS_EXTENT_ALLOC, PL_XS_ABT, 0 },
    { "abt", PL_XS_ABT, PL_XS_BLK_MAP, 0 },
    { "blk_map", PL_XS_BLK_MAP, PL_XS_BMBT, 0 },
    { "bmbt", PL_XS_BMBT, PL_XS_DIR, 0 },
    { "dir", PL_XS_DIR, PL_XS_TRANS, 0 },
    { "trans", PL_XS_TRANS, PL_XS_IG, 0 },
    { "ig", PL_XS_IG, PL_XS_LOG, 0 },
    { "log", PL_XS_LOG, PL_XS_PUSH_AIL, 0 },
    { "push_ail", PL_XS_PUSH_AIL, PL_XS_XSTRAT, 0 },
    { "xstrat", PL_XS_XSTRAT, PL_XS_RW, 0 },
    { "rw", PL_XS_RW, PL_XS_ATTR, 0 },
    { "attr", PL_XS_ATTR, PL_XS_ICLUSTER, 0 },
    { "icluster", PL_XS_ICLUSTER, PL_XS_VNODES, 0 },
    { "vnodes", PL_XS_VNODES, PL_XS_BUF, 0 },
    { "buf", PL_XS_BUF, PL_XS_QM, 0 },
    { "qm", PL_XS_QM, PL_XS_XPC, 0 },
    { "xpc", PL_XS_XPC, PL_XS_DEFER_RELOG, 1 },
    { "defer_relog", PL_XS_DEFER_RELOG, PL_XS_FIELDS, 1 },
};
#define NLINES (sizeof lines / sizeof lines[0])

static int find_line(const char *p, size_t n)
{
    for (unsigned i = 0; i < NLINES; i++)
        if (strlen(lines[i].name) == n && memcmp(lines[i].name, p, n) == 0)
            return (int)i;
    return -1;
}

/* The decimals of [p, e) into v (at most max kept): their count, or -1 when
 * a field is not a decimal or exceeds limit. */
static int fields(const char *p, const char *e, uint64_t limit, uint64_t *v, int max)
{
    int n = 0;
    for (;;) {
        uint64_t x = 0;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p == e)
            return n;
        if (*p < '0' || *p > '9')
            return -1;
        for (; p < e && *p >= '0' && *p <= '9'; p++) {
            unsigned d = (unsigned)(*p - '0');
            if (x > (limit - d) / 10)
                return -1;
            x = x * 10 + d;
        }
        if (p < e && *p != ' ' && *p != '\t')
            return -1;
        if (n < max)
            v[n] = x;
        n += n < max;
    }
}

int pl_xfsstat_parse(const char *buf, size_t len, pl_xfsstat *out)
{
    uint8_t seen[NLINES] = { 0 };
    const char *p = buf, *end = buf + len;
    int set = 0;
    memset(out, 0, sizeof *out);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
        const struct xline *l;
        uint64_t v[PL_XS_FIELDS];
        int k, n, max;
        if (!nl)
            break;               /* cut at the page's end: not believed */
        for (sp = p; sp < nl && *sp != ' '; sp++)
            ;
        k = find_line(p, (size_t)(sp - p));
        p = nl + 1;
        if (k < 0)
            continue;
        l = &lines[k];
        max = l->next - l->first;
        n = fields(sp, nl, l->wide ? UINT64_MAX : UINT32_MAX, v, max);
        if (seen[k] || n < 0) {
            seen[k] = 1;
            /* which of two lines is the kernel's is unknown: neither */
            memset(out->st + l->first, 0, (size_t)max);
            memset(out->v + l->first, 0, (size_t)max * sizeof out->v[0]);
            out->bad++;
            continue;
        }
        seen[k] = 1;
        for (int i = 0; i < n; i++) {
            out->v[l->first + i] = v[i];
            out->st[l->first + i] = 1;
        }
    }
    for (int i = 0; i < PL_XS_FIELDS; i++)
        set += out->st[i];
    return set;
}
