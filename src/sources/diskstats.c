/* /proc/diskstats as a kernel source: see diskstats.h. */
#include "diskstats.h"
#include "pl_provider.h"

#include <string.h>

/* A value at *p (no blank before it): pl_parse_u64's rule, with the digits
 * of the usual value read in place (up to 17 per line, on every line). */
static inline int value(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    while ((unsigned)(*s - '0') < 10 && s - *p < 19)
        x = x * 10 + (uint64_t)(*s++ - '0');
    if (s == *p)
        return 0;
    if ((unsigned)(*s - '0') < 10)
        return pl_parse_u64(p, v) == 0;   /* 20 digits or more: checked for overflow */
    *v = x;
    *p = s;
    return 1;
}

/* Parses "major minor name v4 ... vN" into r.  1 for a device line (nf 0 if
 * its values are malformed), 0 for a line to skip.  The line ends at '\n'
 * or '\0' (buf[len]). */
static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_dsrow *r = row;
    uint64_t a, b;
    const char *s;
    size_t len;
    int n = 0;
    (void)eol;               /* the line's '\n' or '\0' ends it */
    (void)ctx;
    if (pl_parse_u64(&p, &a) || pl_parse_u64(&p, &b) || a >= 4096 || b >= (1u << 20))
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    for (s = p; *p && *p != ' ' && *p != '\t' && *p != '\n'; p++)
        ;
    len = (size_t)(p - s);
    if (len == 0 || len >= sizeof r->name)
        return 0;
    memcpy(r->name, s, len);
    r->name[len] = '\0';
    r->major = (uint32_t)a;
    r->minor = (uint32_t)b;
    memset(r->raw, 0, sizeof r->raw);
    for (;;) {
        uint64_t v;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\0')
            break;
        if (!value(&p, &v) || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0')) {
            n = -1;          /* garbage in the line */
            break;
        }
        if (n < PL_DS_FIELDS)
            r->raw[n] = v;
        if (n < 1000)
            n++;
    }
    if (n == 4)
        return 0;            /* 2.6.0-2.6.24 partition line: 4 values, another layout */
    r->nf = n >= 17 ? 17 : n == 15 || n == 11 ? n : 0;
    return 1;
}

int pl_parse_diskstats(const char *buf, size_t len, void *out)
{
    return pl_rows_parse(buf, len, out, sizeof(pl_dsrow), parse_line, NULL);
}

const pl_ksrc_def pl_ksrc_diskstats = { "proc/diskstats", sizeof(pl_dstab), 0, pl_parse_diskstats,
                                        pl_rows_release };
