/* /proc/locks and the VFS sysctls as kernel sources: see locks.h. */
#include "locks.h"
#include "srcparse.h"
#include "sysnum.h"

#include <string.h>

#define MAXTOK 6

static int is(const char *t, size_t n, const char *w)
{
    return n == strlen(w) && memcmp(t, w, n) == 0;
}

/* "N:" with N decimal digits. */
static int lock_id(const char *t, size_t n)
{
    if (n < 2 || t[n - 1] != ':')
        return 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (t[i] < '0' || t[i] > '9')
            return 0;
    return 1;
}

/* One line into the counts: 0 when it is malformed. */
static int line(const char *p, size_t len, pl_locks *t)
{
    const char *tok[MAXTOK];
    size_t tl[MAXTOK];
    int n = pl_src_tokens(p, len, tok, tl, MAXTOK), i = 1, cls, r, w;
    if (n < 4 || !lock_id(tok[0], tl[0]))
        return 0;            /* also a line cut off: n 0 */
    if (is(tok[1], tl[1], "->")) {
        if (n < 5)
            return 0;
        t->v[PL_LK_BLOCKED]++;
        return 1;
    }
    r = is(tok[i + 2], tl[i + 2], "READ");
    w = is(tok[i + 2], tl[i + 2], "WRITE");
    if (is(tok[i], tl[i], "POSIX"))
        cls = PL_LK_POSIX;
    else if (is(tok[i], tl[i], "FLOCK"))
        cls = PL_LK_FLOCK;
    else if (is(tok[i], tl[i], "OFDLCK"))
        cls = PL_LK_OFD;
    else if (is(tok[i], tl[i], "LEASE") || is(tok[i], tl[i], "DELEG"))
        cls = PL_LK_LEASE;
    else
        cls = -1;            /* ACCESS, UNKNOWN: in all only */
    t->v[PL_LK_HELD]++;
    t->v[PL_LK_READ] += (uint64_t)r;
    t->v[PL_LK_WRITE] += (uint64_t)w;
    if (cls >= 0) {
        t->v[cls]++;
        t->v[cls + 1] += (uint64_t)r;
        t->v[cls + 2] += (uint64_t)w;
    }
    return 1;
}

int pl_parse_locks(const char *buf, size_t len, void *out)
{
    pl_locks *t = out;
    const char *p = buf, *e = buf + len;
    memset(t, 0, sizeof *t);
    for (const char *nl; p < e; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl || !line(p, (size_t)(e - p), t)) {
            memset(t->v, 0, sizeof t->v);
            memset(t->st, PL_NS_BAD, sizeof t->st);
            return 0;
        }
    }
    memset(t->st, PL_NS_OK, sizeof t->st);
    return 0;
}

/* a seq_file iterator, one lock and its blocked requests per show(), and
 * empty without locks: no locks, not no source */
const pl_ksrc_def pl_ksrc_locks = {
    "proc/locks", sizeof(pl_locks), PL_KSRC_EMPTY, pl_parse_locks, NULL,
};

/* proc_sys handlers: the whole value per read */
const pl_ksrc_def pl_ksrc_inodenr = {
    "proc/sys/fs/inode-nr", sizeof(pl_sysnum), PL_KSRC_WHOLE, pl_parse_sysnum2, NULL,
};
const pl_ksrc_def pl_ksrc_dentry = {
    "proc/sys/fs/dentry-state", sizeof(pl_sysnum), PL_KSRC_WHOLE, pl_parse_sysnum6, NULL,
};
const pl_ksrc_def pl_ksrc_aionr = PL_SYSNUM_SRC("proc/sys/fs/aio-nr");
const pl_ksrc_def pl_ksrc_aiomax = PL_SYSNUM_SRC("proc/sys/fs/aio-max-nr");
