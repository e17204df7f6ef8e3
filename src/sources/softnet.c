/* /proc/net/softnet_stat as a kernel source: see softnet.h. */
#include "softnet.h"

#include "srcparse.h"

#include <string.h>

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_snrow *r = row;
    int nf = 0;
    (void)ctx;
    memset(r, 0, sizeof *r);
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (p == eol)
        return 0;            /* a blank line */
    if (*eol != '\n')
        return 1;            /* cut off: a row (it is a CPU) without values */
    while (p < eol) {
        uint32_t v = 0;
        int digits = 0, d;
        while (p < eol && (d = pl_src_hex(*p)) >= 0) {
            if (++digits > 8)
                return 1;    /* wider than the kernel's 32 bits */
            v = v << 4 | (uint32_t)d;
            p++;
        }
        if (digits == 0 || (p < eol && *p != ' ' && *p != '\t'))
            return 1;        /* not a field: the whole line is malformed */
        if (nf < PL_SN_FIELDS)
            r->v[nf] = v;
        nf++;
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
    }
    /* 2.6.x wrote 9 or 10 fields; anything shorter is not this file */
    r->nf = nf < 9 ? 0 : nf > PL_SN_FIELDS ? PL_SN_FIELDS : nf;
    if (r->nf == 0)
        memset(r->v, 0, sizeof r->v);
    return 1;
}

int pl_parse_softnet(const char *buf, size_t len, void *out)
{
    return pl_rows_parse(buf, len, out, sizeof(pl_snrow), parse_line, NULL);
}

const pl_ksrc_def pl_ksrc_softnet = {
    "proc/net/softnet_stat", sizeof(pl_softnet), 0, pl_parse_softnet, pl_rows_release,
};
