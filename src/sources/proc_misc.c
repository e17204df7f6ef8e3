/* /proc/uptime and /proc/loadavg as kernel sources: see proc_misc.h. */
#include "proc_misc.h"
#include "srcparse.h"

#include <string.h>

#define MAXTOK 6

static void store(const char *t, size_t n, unsigned digits, uint64_t *v, uint8_t *st)
{
    *st = pl_src_fixed(t, n, digits, v) ? PL_NS_OK : PL_NS_BAD;
}

int pl_parse_uptime(const char *buf, size_t len, void *out)
{
    pl_uptime *u = out;
    const char *tok[MAXTOK];
    size_t tl[MAXTOK];
    int n = pl_src_tokens(buf, len, tok, tl, MAXTOK);
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
    int n = pl_src_tokens(buf, len, tok, tl, MAXTOK);
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
