/* /proc/net/dev as a kernel source: see netdev.h. */
#include "netdev.h"
#include "pl_provider.h"

#include <string.h>

/* The fields after the ':' (the line ends at '\n' or '\0'); a number counts
 * only when a blank or '\n' follows it (a truncated read cuts no value). */
static void parse_fields(const char *p, uint64_t *v, uint8_t *ok)
{
    memset(ok, 0, PL_ND_FIELDS);
    for (int f = 0; f < PL_ND_FIELDS; f++) {
        const char *t;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\0')
            return;
        t = p;
        ok[f] = pl_parse_u64(&p, &v[f]) == 0 && (*p == ' ' || *p == '\t' || *p == '\n');
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
        if (*p == '\0' && p != t)
            ok[f] = 0;
    }
}

/* One line [p, eol) into r: 1 for an interface, 0 for a line to skip. */
static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_ndrow *r = row;
    const char *colon = memrchr(p, ':', (size_t)(eol - p)), *a, *b;
    (void)ctx;
    if (!colon)
        return 0;            /* the two header lines */
    for (a = p; a < colon && (*a == ' ' || *a == '\t'); a++)
        ;
    for (b = colon; b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
        ;
    if (b == a || (size_t)(b - a) >= PL_ND_NAME || memchr(a, '\0', (size_t)(b - a)))
        return 0;
    r->len = (size_t)(b - a);
    memcpy(r->name, a, r->len);
    r->name[r->len] = '\0';
    parse_fields(colon + 1, r->v, r->ok);
    return 1;
}

int pl_parse_netdev(const char *buf, size_t len, void *out)
{
    return pl_rows_parse(buf, len, out, sizeof(pl_ndrow), parse_line, NULL);
}

const pl_ksrc_def pl_ksrc_netdev = { "proc/net/dev", sizeof(pl_netdev), 0, pl_parse_netdev,
                                     pl_rows_release };
