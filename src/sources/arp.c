/* /proc/net/arp as a kernel source: see arp.h. */
#include "arp.h"

#include "srcparse.h"

#include <string.h>

typedef struct arp_cols {
    int header;              /* the header line was seen */
    int flags, dev;          /* column indexes, -1 when absent */
} arp_cols;

/* The header: columns split at runs of two or more blanks. */
static void parse_header(const char *p, const char *eol, arp_cols *c)
{
    int col = 0;
    c->flags = c->dev = -1;
    while (p < eol) {
        const char *s = p, *e;
        while (p < eol && !(pl_src_blank(p[0]) && (p + 1 == eol || pl_src_blank(p[1]))))
            p++;
        e = p;
        if ((size_t)(e - s) == 5 && !memcmp(s, "Flags", 5))
            c->flags = col;
        else if ((size_t)(e - s) == 6 && !memcmp(s, "Device", 6))
            c->dev = col;
        while (p < eol && pl_src_blank(*p))
            p++;
        col++;
    }
}

/* "0x" and 1-8 hex digits: 1, else 0. */
static int hex_flags(const char *s, size_t n, uint32_t *v)
{
    int d;
    if (n < 3 || n > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return 0;
    *v = 0;
    for (size_t i = 2; i < n; i++) {
        if ((d = pl_src_hex(s[i])) < 0)
            return 0;
        *v = *v << 4 | (uint32_t)d;
    }
    return 1;
}

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_arprow *r = row;
    arp_cols *c = ctx;
    int col = 0, seen = 0;
    if (!c->header) {
        c->header = 1;
        parse_header(p, eol, c);
        return 0;
    }
    memset(r, 0, sizeof *r);
    while (p < eol && pl_src_blank(*p))
        p++;
    if (p == eol)
        return 0;            /* a blank line */
    if (c->flags < 0 || c->dev < 0)
        return 0;            /* not the layout this parser knows */
    if (*eol != '\n')
        return 1;            /* cut off: the device name may be cut too */
    while (p < eol) {
        const char *s = p;
        size_t n;
        while (p < eol && !pl_src_blank(*p) && *p != '\0')
            p++;
        n = (size_t)(p - s);
        if (n == 0)
            break;           /* a '\0' inside the line */
        if (col == c->flags)
            seen |= hex_flags(s, n, &r->flags);
        else if (col == c->dev && n < PL_ARP_DEV) {
            memcpy(r->dev, s, n);
            seen |= 2;
        }
        while (p < eol && pl_src_blank(*p))
            p++;
        col++;
    }
    r->ok = seen == 3;
    return 1;
}

int pl_parse_arp(const char *buf, size_t len, void *out)
{
    arp_cols c = { 0, -1, -1 };
    return pl_rows_parse(buf, len, out, sizeof(pl_arprow), parse_line, &c);
}

const pl_ksrc_def pl_ksrc_arp = {
    "proc/net/arp", sizeof(pl_arp), 0, pl_parse_arp, pl_rows_release,
};
