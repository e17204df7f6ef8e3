/* /proc/diskstats as a kernel source: see diskstats.h. */
#include "diskstats.h"
#include "pl_provider.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parses "major minor name v4 ... vN" into r.  1 for a device line (nf 0 if
 * its values are malformed), 0 for a line to skip.  The line ends at '\n'
 * or '\0' (buf[len]). */
static int parse_line(const char *p, pl_dsrow *r)
{
    uint64_t a, b;
    const char *s;
    size_t len;
    int n = 0;
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
        if (pl_parse_u64(&p, &v) || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\0')) {
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
    pl_dstab *t = out;
    const char *end = buf + len;
    t->n = 0;
    for (const char *p = buf; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (t->n == t->cap) {
            uint32_t cap = t->cap ? t->cap * 2 : 16;
            pl_dsrow *nr = realloc(t->row, cap * sizeof *nr);
            if (!nr)
                return ENOMEM;
            t->row = nr;
            t->cap = cap;
        }
        if (parse_line(p, &t->row[t->n]))
            t->n++;
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}

static void release(void *out)
{
    pl_dstab *t = out;
    free(t->row);
    t->row = NULL;
    t->n = t->cap = 0;
}

const pl_ksrc_def pl_ksrc_diskstats = { "proc/diskstats", sizeof(pl_dstab), 0, pl_parse_diskstats,
                                        release };
