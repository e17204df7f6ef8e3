/* /proc/buddyinfo as a kernel source: see buddyinfo.h. */
#include "buddyinfo.h"
#include "srcparse.h"

#include <string.h>

#define MAX_NODE 65536u      /* MAX_NUMNODES is at most 2^10 */

/* "Node N, zone NAME": 1 with the row's node and zone, p past them. */
static int zone_head(const char **pp, const char *eol, pl_birow *r)
{
    const char *p = *pp, *s;
    uint64_t node;
    size_t n;
    if ((size_t)(eol - p) < 5 || memcmp(p, "Node ", 5) != 0)
        return 0;
    p += 5;
    if (pl_src_num(&p, eol, &node) || node >= MAX_NODE || p >= eol || *p != ',')
        return 0;
    p++;
    while (p < eol && pl_src_blank(*p))
        p++;
    if ((size_t)(eol - p) < 5 || memcmp(p, "zone ", 5) != 0)
        return 0;
    p += 5;
    while (p < eol && pl_src_blank(*p))
        p++;
    for (s = p; p < eol && !pl_src_blank(*p); p++)
        ;
    if (p == s)
        return 0;
    n = (size_t)(p - s) < sizeof r->zone ? (size_t)(p - s) : sizeof r->zone - 1;
    r->node = (uint32_t)node;
    memcpy(r->zone, s, n);
    r->zone[n] = '\0';
    *pp = p;
    return 1;
}

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_birow *r = row;
    int n = 0;
    (void)ctx;
    memset(r, 0, sizeof *r);
    if (!zone_head(&p, eol, r))
        return 0;            /* not a zone line: no row */
    if (*eol != '\n')
        return 1;            /* cut off: the zone without values */
    for (;;) {
        uint64_t v;
        while (p < eol && pl_src_blank(*p))
            p++;
        if (p == eol)
            break;
        if (pl_src_num(&p, eol, &v) || (p < eol && !pl_src_blank(*p))) {
            memset(r->blocks, 0, sizeof r->blocks);
            return 1;        /* malformed: norders stays 0 */
        }
        if (n < PL_BI_ORDERS)
            r->blocks[n] = v;
        n++;
    }
    r->norders = n > PL_BI_ORDERS ? PL_BI_ORDERS : n;
    return 1;
}

int pl_parse_buddyinfo(const char *buf, size_t len, void *out)
{
    return pl_rows_parse(buf, len, out, sizeof(pl_birow), parse_line, NULL);
}

const pl_ksrc_def pl_ksrc_buddyinfo = {
    "proc/buddyinfo", sizeof(pl_buddyinfo), 0, pl_parse_buddyinfo, pl_rows_release,
};
