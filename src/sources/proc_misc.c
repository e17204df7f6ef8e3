/* /proc/uptime and /proc/loadavg as kernel sources: see proc_misc.h. */
#include "proc_misc.h"
#include "srcparse.h"

#include <string.h>

#define MAXTOK 6

/* The blank-separated tokens of the first complete line. */
static int tokens(const char *buf, size_t len, const char **tok, size_t *tl)
{
    const char *p = buf, *nl = memchr(buf, '\n', len);
    int n = 0;
    if (!nl)
        return 0;            /* cut off: no value from it */
    while (n < MAXTOK) {
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

/* tok[0 .. n) as a decimal with up to `digits` fractional digits, scaled by
 * 10^digits and rounded half up on the first dropped digit; the whole token. */
static uint8_t fixed(const char *t, size_t n, unsigned digits, uint64_t *v)
{
    const char *p = t, *e = t + n;
    uint64_t ip, frac = 0, scale = 1;
    unsigned got = 0;
    if (n == 0 || *t < '0' || *t > '9' || pl_src_num(&p, e, &ip))
        return PL_NS_BAD;
    for (unsigned i = 0; i < digits; i++)
        scale *= 10;
    if (p < e && *p == '.' && digits)
        for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
            if (got < digits)
                frac = frac * 10 + (uint64_t)(*p - '0');
            else if (got == digits && *p >= '5')
                frac++;
            got++;
        }
    for (unsigned i = got < digits ? got : digits; i < digits; i++)
        frac *= 10;
    if (p != e || ip > (UINT64_MAX - frac) / scale)
        return PL_NS_BAD;
    *v = ip * scale + frac;
    return PL_NS_OK;
}

static void store(const char *t, size_t n, unsigned digits, uint64_t *v, uint8_t *st)
{
    *st = fixed(t, n, digits, v);
}

int pl_parse_uptime(const char *buf, size_t len, void *out)
{
    pl_uptime *u = out;
    const char *tok[MAXTOK];
    size_t tl[MAXTOK];
    int n = tokens(buf, len, tok, tl);
    memset(u->st, PL_NS_ABSENT, sizeof u->st);
    for (int i = 0; i < PL_UPTIME_N && i < n; i++) {
        store(tok[i], tl[i], 7, &u->v[i], &u->st[i]);
        if (u->st[i] == PL_NS_OK && u->v[i] > (uint64_t)INT64_MAX)
            u->st[i] = PL_NS_BAD;
    }
    return 0;
}

int pl_parse_loadavg(const char *buf, size_t len, void *out)
{
    pl_loadavg *l = out;
    const char *tok[MAXTOK], *slash;
    size_t tl[MAXTOK];
    int n = tokens(buf, len, tok, tl);
    memset(l->st, PL_NS_ABSENT, sizeof l->st);
    for (int i = 0; i < 3 && i < n; i++)
        store(tok[i], tl[i], 2, &l->v[PL_LOAD_1 + i], &l->st[PL_LOAD_1 + i]);
    if (n >= 4) {
        slash = memchr(tok[3], '/', tl[3]);
        l->st[PL_LOAD_RUNNING] = l->st[PL_LOAD_THREADS] = PL_NS_BAD;
        if (slash) {
            store(tok[3], (size_t)(slash - tok[3]), 0, &l->v[PL_LOAD_RUNNING], &l->st[PL_LOAD_RUNNING]);
            store(slash + 1, tl[3] - (size_t)(slash + 1 - tok[3]), 0, &l->v[PL_LOAD_THREADS],
                  &l->st[PL_LOAD_THREADS]);
        }
    }
    if (n >= 5)
        store(tok[4], tl[4], 0, &l->v[PL_LOAD_LASTPID], &l->st[PL_LOAD_LASTPID]);
    return 0;
}

/* Both are single_open (fs/proc/uptime.c, loadavg.c): the whole line per read. */
const pl_ksrc_def pl_ksrc_uptime = { "proc/uptime", sizeof(pl_uptime), PL_KSRC_WHOLE, pl_parse_uptime, NULL };
const pl_ksrc_def pl_ksrc_loadavg = { "proc/loadavg", sizeof(pl_loadavg), PL_KSRC_WHOLE, pl_parse_loadavg,
                                      NULL };
