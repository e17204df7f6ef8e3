/* /proc/cpuinfo as a kernel source: see cpuinfo.h. */
#include "cpuinfo.h"
#include "procstat.h"
#include "srcparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The value after the colon of the line [p, nl): q at its first blank-free
 * character, or NULL without a colon. */
static const char *after_colon(const char *p, const char *nl)
{
    const char *q = memchr(p, ':', (size_t)(nl - p));
    if (!q)
        return NULL;
    for (q++; q < nl && pl_src_blank(*q); q++)
        ;
    return q;
}

/* "2394.456" up to nl as whole MHz, rounded half up on the first decimal. */
static uint8_t mhz_value(const char *q, const char *nl, uint64_t *v)
{
    uint64_t x;
    if (q == nl || *q < '0' || *q > '9' || pl_src_num(&q, nl, &x))
        return PL_NS_BAD;
    if (q < nl && *q == '.') {
        q++;
        if (q < nl && *q >= '5' && *q <= '9') {
            if (x == UINT64_MAX)
                return PL_NS_BAD;
            x++;
        }
        while (q < nl && *q >= '0' && *q <= '9')
            q++;
    }
    while (q < nl && pl_src_blank(*q))
        q++;
    if (q != nl)
        return PL_NS_BAD;
    *v = x;
    return PL_NS_OK;
}

static int grow(pl_cpuinfo *ci, uint32_t n)
{
    uint32_t cap = ci->cap ? ci->cap : 8;
    uint64_t *m;
    uint8_t *st;
    while (cap < n)
        cap *= 2;
    if (cap == ci->cap)
        return 0;
    if (!(m = realloc(ci->mhz, cap * sizeof *m)))
        return ENOMEM;
    ci->mhz = m;
    if (!(st = realloc(ci->mhz_st, cap)))
        return ENOMEM;
    ci->mhz_st = st;
    ci->cap = cap;
    return 0;
}

int pl_parse_cpuinfo(const char *buf, size_t len, void *out)
{
    pl_cpuinfo *ci = out;
    const char *p = buf, *end = buf + len, *nl, *q;
    int64_t cur = -1;
    if (ci->n)
        memset(ci->mhz_st, PL_NS_ABSENT, ci->n);
    ci->n = 0;
    for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1) {
        size_t n = (size_t)(nl - p);
        uint64_t id;
        if (n >= 9 && memcmp(p, "processor", 9) == 0) {
            q = after_colon(p, nl);
            cur = q && pl_src_num(&q, nl, &id) == 0 && id < PL_STAT_MAXCPU ? (int64_t)id : -1;
            if (cur >= 0 && (uint32_t)cur >= ci->n) {
                if (grow(ci, (uint32_t)cur + 1))
                    return ENOMEM;
                memset(ci->mhz_st + ci->n, PL_NS_ABSENT, (size_t)cur + 1 - ci->n);
                ci->n = (uint32_t)cur + 1;
            }
        } else if (cur >= 0 && n >= 7 && memcmp(p, "cpu MHz", 7) == 0 &&
                   ci->mhz_st[cur] == PL_NS_ABSENT && (q = after_colon(p, nl)) != NULL) {
            ci->mhz_st[cur] = mhz_value(q, nl, &ci->mhz[cur]);
        }
    }
    return 0;
}

void pl_release_cpuinfo(void *out)
{
    pl_cpuinfo *ci = out;
    free(ci->mhz);
    free(ci->mhz_st);
    memset(ci, 0, sizeof *ci);
}

/* A seq_file iterator, one record per CPU (c_start, c_next): only a read of
 * 0 ends it. */
const pl_ksrc_def pl_ksrc_cpuinfo = { "proc/cpuinfo", sizeof(pl_cpuinfo), 0, pl_parse_cpuinfo,
                                      pl_release_cpuinfo };
