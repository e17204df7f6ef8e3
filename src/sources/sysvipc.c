/* The System V IPC tables as kernel sources: see sysvipc.h. */
#include "sysvipc.h"
#include "srcparse.h"
#include "sysnum.h"

#include <string.h>

#define MAXCOL 24            /* shm has 16 columns */
#define NSUM (PL_IPC_MAXF - 1)

/* What a table sums: field k + 1 from the column named col[k], summed, or
 * (zero[k]) counted where it is 0. */
typedef struct ipc_spec {
    int nf;                  /* fields, with the object count */
    const char *col[NSUM];
    uint8_t zero[NSUM];
} ipc_spec;

static const ipc_spec shm_spec = {
    PL_SHM_N, { "size", "rss", "swap", "nattch" }, { 0, 0, 0, 1 },
};
static const ipc_spec msg_spec = { PL_MSG_N, { "qnum", "cbytes" }, { 0, 0 } };
static const ipc_spec sem_spec = { PL_SEM_N, { "nsems" }, { 0 } };

/* The header: each summed column's index, or -1; the column count (0:
 * not a table of ipc_init_proc_interface's). */
static int header(const ipc_spec *sp, const char *p, size_t len, int *idx)
{
    const char *tok[MAXCOL + 1];
    size_t tl[MAXCOL + 1];
    int n = pl_src_tokens(p, len, tok, tl, MAXCOL + 1);
    if (n < 1 || n > MAXCOL || tl[0] != 3 || memcmp(tok[0], "key", 3) != 0)
        return 0;
    for (int k = 0; k < sp->nf - 1; k++) {
        size_t cl = strlen(sp->col[k]);
        idx[k] = -1;
        for (int i = 1; i < n; i++)
            if (tl[i] == cl && !memcmp(tok[i], sp->col[k], cl))
                idx[k] = i;
    }
    return n;
}

/* One object's line into the sums: 0 when it is malformed. */
static int line(const ipc_spec *sp, const char *p, size_t len, const int *idx, int ncol,
                pl_ipc_tab *t)
{
    const char *tok[MAXCOL + 1];
    size_t tl[MAXCOL + 1];
    int n = pl_src_tokens(p, len, tok, tl, MAXCOL + 1);
    if (n != ncol)
        return 0;            /* also a line cut off: n 0 */
    t->v[0]++;
    for (int k = 0; k < sp->nf - 1; k++) {
        const char *q, *end;
        uint64_t x;
        if (idx[k] < 0)
            continue;
        q = tok[idx[k]];
        end = q + tl[idx[k]];
        if (pl_src_num(&q, end, &x) || q != end)
            return 0;
        if (sp->zero[k])
            x = x == 0;
        if (t->v[k + 1] > UINT64_MAX - x)
            return 0;
        t->v[k + 1] += x;
    }
    return 1;
}

static int parse(const ipc_spec *sp, const char *buf, size_t len, pl_ipc_tab *t)
{
    const char *p = buf, *e = buf + len, *nl = memchr(buf, '\n', len);
    int idx[NSUM], ncol;
    memset(t, 0, sizeof *t);
    if (len == 0)
        return 0;                                    /* nothing: absent */
    if (!nl || !(ncol = header(sp, p, (size_t)(nl - p + 1), idx))) {
        memset(t->st, PL_NS_BAD, (size_t)sp->nf);
        return 0;
    }
    for (p = nl + 1; p < e; p = nl + 1) {
        const char *s = p;
        while (s < e && pl_src_blank(*s))
            s++;
        nl = memchr(p, '\n', (size_t)(e - p));
        if (s == nl)
            continue;                                /* a blank line */
        if (!nl || !line(sp, p, (size_t)(e - p), idx, ncol, t)) {
            memset(t->v, 0, sizeof t->v);
            memset(t->st, PL_NS_BAD, (size_t)sp->nf);
            return 0;
        }
    }
    t->st[0] = PL_NS_OK;
    for (int k = 0; k < sp->nf - 1; k++)
        t->st[k + 1] = idx[k] < 0 ? PL_NS_ABSENT : PL_NS_OK;
    return 0;
}

int pl_parse_ipc_shm(const char *buf, size_t len, void *out)
{
    return parse(&shm_spec, buf, len, out);
}

int pl_parse_ipc_msg(const char *buf, size_t len, void *out)
{
    return parse(&msg_spec, buf, len, out);
}

int pl_parse_ipc_sem(const char *buf, size_t len, void *out)
{
    return parse(&sem_spec, buf, len, out);
}

/* seq_file iterators: one object per show() */
const pl_ksrc_def pl_ksrc_ipc_shm = {
    "proc/sysvipc/shm", sizeof(pl_ipc_tab), 0, pl_parse_ipc_shm, NULL,
};
const pl_ksrc_def pl_ksrc_ipc_msg = {
    "proc/sysvipc/msg", sizeof(pl_ipc_tab), 0, pl_parse_ipc_msg, NULL,
};
const pl_ksrc_def pl_ksrc_ipc_sem = {
    "proc/sysvipc/sem", sizeof(pl_ipc_tab), 0, pl_parse_ipc_sem, NULL,
};

/* proc_sys handlers: the whole value per read */
const pl_ksrc_def pl_ksrc_shmmax = PL_SYSNUM_SRC("proc/sys/kernel/shmmax");
const pl_ksrc_def pl_ksrc_shmall = PL_SYSNUM_SRC("proc/sys/kernel/shmall");
const pl_ksrc_def pl_ksrc_shmmni = PL_SYSNUM_SRC("proc/sys/kernel/shmmni");
const pl_ksrc_def pl_ksrc_msgmax = PL_SYSNUM_SRC("proc/sys/kernel/msgmax");
const pl_ksrc_def pl_ksrc_msgmnb = PL_SYSNUM_SRC("proc/sys/kernel/msgmnb");
const pl_ksrc_def pl_ksrc_msgmni = PL_SYSNUM_SRC("proc/sys/kernel/msgmni");
const pl_ksrc_def pl_ksrc_semlim = {
    "proc/sys/kernel/sem", sizeof(pl_sysnum), PL_KSRC_WHOLE, pl_parse_sysnum4, NULL,
};
