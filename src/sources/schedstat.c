/* /proc/schedstat as a kernel source: see schedstat.h. */
#include "schedstat.h"
#include "srcparse.h"

#include <string.h>

#define MAX_CPU 65536u

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    pl_schedstat *t = ctx;
    pl_schedrow *r = row;
    uint64_t cpu;
    if ((size_t)(eol - p) >= 8 && memcmp(p, "version ", 8) == 0) {
        p += 8;
        if (pl_src_num(&p, eol, &t->version) || p != eol)
            t->version = 0;
        return 0;
    }
    if (t->version < 15 || t->version > 17 || (size_t)(eol - p) < 4 || memcmp(p, "cpu", 3) != 0)
        return 0;            /* another version, timestamp, domain lines */
    p += 3;
    if (*p < '0' || *p > '9' || pl_src_num(&p, eol, &cpu) || cpu >= MAX_CPU)
        return 0;
    memset(r, 0, sizeof *r);
    r->cpu = (uint32_t)cpu;
    if (*eol != '\n')
        return 1;            /* cut off: the CPU without values */
    for (int i = 0; i < PL_SCHED_N; i++)
        if (pl_src_num(&p, eol, &r->v[i]))
            return 1;
    while (p < eol && pl_src_blank(*p))
        p++;
    r->ok = p == eol;        /* more fields: not the layout we know */
    return 1;
}

int pl_parse_schedstat(const char *buf, size_t len, void *out)
{
    pl_schedstat *t = out;
    t->version = 0;
    return pl_rows_parse(buf, len, &t->rows, sizeof(pl_schedrow), parse_line, t);
}

void pl_schedstat_release(void *out)
{
    pl_rows_release(&((pl_schedstat *)out)->rows);
}

/* a seq_file iterator over the CPUs (schedstat_sops): read until 0 */
const pl_ksrc_def pl_ksrc_schedstat = {
    "proc/schedstat", sizeof(pl_schedstat), 0, pl_parse_schedstat, pl_schedstat_release,
};
