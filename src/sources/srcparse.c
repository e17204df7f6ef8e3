/* Token scanners shared by the source parsers and the providers that
 * read one-line files: see srcparse.h. */
#include "srcparse.h"

#include <string.h>

int pl_src_tokens(const char *buf, size_t len, const char **tok, size_t *tl, int max)
{
    const char *p = buf, *nl = memchr(buf, '\n', len);
    int n = 0;
    if (!nl)
        return 0;            /* cut off: no value from it */
    while (n < max) {
        while (p < nl && pl_src_blank(*p))
            p++;
        if (p == nl)
            break;
        tok[n] = p;
        while (p < nl && !pl_src_blank(*p))
            p++;
        tl[n] = (size_t)(p - tok[n]);
        n++;
    }
    return n;
}

int pl_src_fixed(const char *t, size_t n, unsigned digits, uint64_t *v)
{
    const char *p = t, *e = t + n;
    uint64_t ip, frac = 0, scale = 1;
    unsigned got = 0;
    if (n == 0 || *t < '0' || *t > '9' || pl_src_num(&p, e, &ip))
        return 0;
    for (unsigned i = 0; i < digits; i++)
        scale *= 10;
    if (p < e && *p == '.' && digits)
        for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
            if (got < digits)
                frac = frac * 10 + (uint64_t)(*p - '0');
            else if (got == digits && *p >= '5')
                frac++;      /* round half up on the first dropped digit */
            got++;
        }
    for (unsigned i = got < digits ? got : digits; i < digits; i++)
        frac *= 10;
    if (p != e || ip > (UINT64_MAX - frac) / scale)
        return 0;
    *v = ip * scale + frac;
    return 1;
}
