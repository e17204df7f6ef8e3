/* Small bounded scanners shared by the source parsers (src/sources): they
 * never read at or past e, so a parser is safe on any bytes. */
#ifndef PL_SRCPARSE_H
#define PL_SRCPARSE_H

#include <errno.h>
#include <stdint.h>

static inline int pl_src_blank(char c) { return c == ' ' || c == '\t'; }

/* An unsigned decimal after blanks, within [*p, e): 0 with *p past it,
 * EINVAL (no digit) or ERANGE (over 2^64-1). */
static inline int pl_src_num(const char **p, const char *e, uint64_t *v)
{
    const char *s = *p, *start;
    uint64_t x = 0;
    while (s < e && pl_src_blank(*s))
        s++;
    start = s;
    /* 19 digits always fit in 64 bits: the overflow check starts at the 20th */
    while (s < e && *s >= '0' && *s <= '9' && s - start < 19)
        x = x * 10 + (uint64_t)(*s++ - '0');
    if (s == start)
        return EINVAL;
    for (; s < e && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return ERANGE;
        x = x * 10 + d;
    }
    *v = x;
    *p = s;
    return 0;
}

#endif
