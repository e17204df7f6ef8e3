/* Small bounded scanners shared by the source parsers (src/sources) and
 * the providers that read one-line files: they never read at or past the
 * end they are given, so a parser is safe on any bytes. */
#ifndef PL_SRCPARSE_H
#define PL_SRCPARSE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

static inline int pl_src_blank(char c) { return c == ' ' || c == '\t'; }

/* A hex digit's value, or -1 (the %08x tables: softnet_stat, nf_conntrack). */
static inline int pl_src_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

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

/* The blank-separated tokens of the first line of buf[0 .. len), at most
 * max; 0 when the line has no '\n' (cut off). */
int pl_src_tokens(const char *buf, size_t len, const char **tok, size_t *tl, int max);
/* A whole token t[0 .. n) as a decimal with up to `digits` fractional
 * digits ("0.38" with 2 -> 38; digits 0: an integer), scaled by 10^digits
 * and rounded half up on the first dropped digit.  1 with *v, else 0. */
int pl_src_fixed(const char *t, size_t n, unsigned digits, uint64_t *v);

#endif
