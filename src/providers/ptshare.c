/* The machine's process table shared by Process states: see ptshare.h. */
#include "ptshare.h"
#include "pl_ksrc.h"
#include "pl_names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pl_ptshare {
    int ready;               /* initialised (the attachment starts zeroed) */
    pl_ptbase b;             /* its env is not a reference: the env owns the table */
    pl_ksrc *k;              /* this table's attachment, for the generation */
    uint64_t list_gen;       /* generation of the last listing */
    int list_err;
    uint64_t lists;          /* listings of /proc so far (tests) */
    uint64_t lead_gen;       /* generation whose names a Process state records */
    uint32_t need;           /* stat fields any state asked for: parsed for all */
    pl_etab tab;             /* pl_ptproc by pid */
};

static const pl_ptkey status_keys[] = {
    PL_PTKEY("VmPeak", 1), PL_PTKEY("VmHWM", 1), PL_PTKEY("RssAnon", 1), PL_PTKEY("VmSwap", 1),
    PL_PTKEY("voluntary_ctxt_switches", 0), PL_PTKEY("nonvoluntary_ctxt_switches", 0),
};
static const pl_ptkey io_keys[] = {
    PL_PTKEY("rchar", 0), PL_PTKEY("wchar", 0), PL_PTKEY("syscr", 0), PL_PTKEY("syscw", 0),
    PL_PTKEY("read_bytes", 0), PL_PTKEY("write_bytes", 0),
};
static const pl_ptkey smaps_keys[] = {
    PL_PTKEY("Private_Clean", 1), PL_PTKEY("Private_Dirty", 1), PL_PTKEY("Private_Hugetlb", 1),
};
_Static_assert(sizeof status_keys / sizeof *status_keys == K_NVCSW + 1 &&
               sizeof io_keys / sizeof *io_keys == K_WBYTES + 1 &&
               sizeof smaps_keys / sizeof *smaps_keys == K_PRIV_HUGETLB + 1, "ptshare.h's key order");

static void close_all(pl_ptproc *p, int keep_stat)
{
    for (int k = 0; k < NFD; k++)
        if (!(keep_stat && k == F_STAT))
            pl_pt_close(&p->fd[k]);
    p->memstart = 0;         /* statm and comm are closed */
}

/* Entries arrive zeroed, with their pid (pl_etab_sync). */
static void proc_init(void *ud, void *ve, uint32_t id)
{
    pl_ptproc *p = ve;
    (void)ud;
    (void)id;
    for (int k = 0; k < NFD; k++)
        p->fd[k] = -1;
}

static void proc_retire(void *ud, void *ve)
{
    (void)ud;
    close_all(ve, 0);
}

static void share_release(void *data)
{
    pl_ptshare *t = data;
    if (!t->ready)
        return;
    pl_etab_free(&t->tab, proc_retire, t);
    pl_pt_base_release(&t->b);
}

static const pl_ksrc_def share_def = { NULL, sizeof(pl_ptshare), 0, NULL, share_release };

pl_ptshare *pl_ptshare_attach(pl_env *env)
{
    pl_ksrc *k = pl_ksrc_attach(env, &share_def);
    pl_ptshare *t;
    if (!k)
        return NULL;
    t = pl_ksrc_state(k);
    if (!t->ready) {
        pl_pt_base_setup(&t->b, env);
        pl_etab_init(&t->tab, sizeof(pl_ptproc));
        t->k = k;
        t->ready = 1;
    }
    return t;
}

pl_ptbase *pl_ptshare_base(pl_ptshare *t) { return &t->b; }

int pl_ptshare_lead(pl_ptshare *t, uint64_t *gen)
{
    uint64_t g = pl_ksrc_generation(t->k);
    *gen = g;
    if (!g)
        return -1;
    if (t->lead_gen == g)
        return 0;
    t->lead_gen = g;
    return 1;
}
uint32_t pl_ptshare_count(const pl_ptshare *t) { return t->tab.n; }
uint64_t pl_ptshare_lists(const pl_ptshare *t) { return t->lists; }
pl_ptproc *pl_ptshare_proc(pl_ptshare *t, uint32_t i) { return t->tab.v[i]; }

int pl_ptshare_list(pl_ptshare *t, pl_snapshot *snap)
{
    uint64_t g = pl_ksrc_generation(t->k);
    int e;
    if (g && t->list_gen == g) {
        if (t->list_err)
            snap->err_path = "proc";
        return t->list_err;
    }
    t->list_gen = g;
    t->lists++;
    e = pl_pt_list_pids(&t->b, snap);
    if (!e)
        e = pl_etab_sync(&t->tab, t->b.ids, t->b.nids, proc_init, proc_retire, t);
    t->list_err = e;
    return e;
}

/* Reads file k of p into the shared buffer: 0 or errno. */
static int read_into(pl_ptshare *t, pl_ptproc *p, int k)
{
    static const char *const leaf[NFD] = { "/stat", "/status", "/io", "/fd", "/smaps_rollup",
                                           "/statm", "/comm" };
    char rel[40], *q;
    const char *r = NULL;
    if (p->fd[k] < 0) {      /* the path only when it must be opened */
        q = pl_utoa(rel, p->pid);
        strcpy(q, leaf[k]);
        r = rel;
    }
    if (k == F_FD)
        return pl_pt_count(t->b.procfd, r, &p->fd[k], &t->b.db, &p->nfd);
    return pl_pt_read(t->b.procfd, r, &p->fd[k], &t->b.rb);
}

static int parse_stat(pl_ptshare *t, pl_ptproc *p)
{
    uint32_t len;
    if (pl_pt_parse_stat(t->b.rb.buf, t->b.rb.len, t->need, &p->ps) || !(p->ps.have & PS_BIT(PS_START)))
        return EINVAL;
    len = p->ps.comm_len;
    memcpy(p->comm, p->ps.comm, len);   /* the buffer serves the next file */
    p->ps.comm = p->comm;
    p->need = t->need;
    if (p->fdstart && p->fdstart != p->ps.v[PS_START])
        close_all(p, 1);     /* the pid is another process now: its files are not ours */
    p->fdstart = p->ps.v[PS_START];
    return 0;
}

int pl_ptshare_stat(pl_ptshare *t, pl_ptproc *p, uint32_t need, int fresh)
{
    uint64_t g = pl_ksrc_generation(t->k);
    int err = 0;
    t->need |= need | PS_BIT(PS_START);
    if (g && p->gen[F_STAT] == g && !fresh && (need & ~p->need) == 0)
        return p->err[F_STAT];
    p->gen[F_STAT] = g;
    /* A kept fd that fails is closed and the path read afresh; when it says
     * the process exited (a new one may have the pid), every kept file of it
     * goes. */
    if (p->fd[F_STAT] >= 0 && (err = read_into(t, p, F_STAT)) != 0) {
        if (pl_pt_outcome(err) == PL_PT_GONE) {
            close_all(p, 0);
            p->fdstart = 0;
        }
        pl_pt_close(&p->fd[F_STAT]);
    }
    if (p->fd[F_STAT] < 0 && (err = read_into(t, p, F_STAT)) != 0) {
        if (pl_pt_outcome(err) == PL_PT_GONE) {
            close_all(p, 0);
            p->fdstart = 0;
        }
        return p->err[F_STAT] = err;
    }
    return p->err[F_STAT] = parse_stat(t, p);
}

int pl_ptshare_file(pl_ptshare *t, pl_ptproc *p, int k)
{
    uint64_t g = pl_ksrc_generation(t->k);
    int e;
    if (g && p->gen[k] == g)
        return p->err[k];
    p->gen[k] = g;
    e = read_into(t, p, k);
    if (e == 0 && k != F_FD) {
        const pl_ptkey *keys = k == F_STATUS ? status_keys : k == F_IO ? io_keys : smaps_keys;
        int n = k == F_SMAPS ? K_PRIV_HUGETLB + 1 : PL_PTSH_KEYS;
        pl_pt_scan_keys(t->b.rb.buf, t->b.rb.len, keys, n, p->kv[k], &p->kh[k]);
    }
    return p->err[k] = e;
}

/* ---- statm and comm ------------------------------------------------------------------ */

int pl_pt_parse_statm(const char *buf, size_t len, uint64_t *size, uint64_t *resident)
{
    const char *p = buf, *end = buf + len;
    uint64_t v[2];
    for (int i = 0; i < 2; i++) {
        if (p >= end || *p < '0' || *p > '9' || pl_parse_u64(&p, &v[i]) || p >= end ||
            (*p != ' ' && *p != '\n'))
            return EINVAL;   /* a cut or foreign token is no number */
        p++;
    }
    *size = v[0];
    *resident = v[1];
    return 0;
}

/* statm and comm through the kept fds of p's process into p->ps: 0, EINVAL
 * when malformed, or the errno of a read. */
static int mem_read(pl_ptshare *t, pl_ptproc *p)
{
    uint64_t size, res, page = (uint64_t)pl_env_page_size(t->b.env);
    size_t len;
    int e;
    if ((e = read_into(t, p, F_STATM)) != 0)
        return e;
    if (pl_pt_parse_statm(t->b.rb.buf, t->b.rb.len, &size, &res) || size > UINT64_MAX / page)
        return EINVAL;
    if ((e = read_into(t, p, F_COMM)) != 0)
        return e;
    len = t->b.rb.len;
    if (!len || t->b.rb.buf[len - 1] != '\n')
        return EINVAL;       /* the kernel writes "comm\n" whole */
    len = len - 1 < PL_COMM_MAX - 1 ? len - 1 : PL_COMM_MAX - 1;
    memcpy(p->comm, t->b.rb.buf, len);
    p->ps.comm = p->comm;
    p->ps.comm_len = (uint32_t)len;
    p->ps.state = 0;
    p->ps.have = PS_BIT(PS_START) | PS_BIT(PS_VSIZE) | PS_BIT(PS_RSS);
    p->ps.v[PS_START] = p->memstart;
    p->ps.v[PS_VSIZE] = size * page;
    p->ps.v[PS_RSS] = res;
    return 0;
}

/* stat by the rules of pl_ptshare_stat, with statm and comm opened just
 * before when two more fds may be kept: the stat read then proves they are
 * its process's (a pid is not reused while its process lives). */
static int mem_bind(pl_ptshare *t, pl_ptproc *p)
{
    int e;
    if (p->fd[F_STATM] < 0 && p->fd[F_COMM] < 0 && pl_pt_budget_left() >= 2 &&
        (read_into(t, p, F_STATM) != 0 || p->fd[F_STATM] < 0 || read_into(t, p, F_COMM) != 0 ||
         p->fd[F_COMM] < 0)) {
        pl_pt_close(&p->fd[F_STATM]);   /* both or neither */
        pl_pt_close(&p->fd[F_COMM]);
    }
    e = pl_ptshare_stat(t, p, PS_BIT(PS_VSIZE) | PS_BIT(PS_RSS), 1);
    if (e == 0 && p->fd[F_STATM] >= 0 && p->fd[F_COMM] >= 0)
        p->memstart = p->fdstart;
    return e;
}

int pl_ptshare_mem(pl_ptshare *t, pl_ptproc *p)
{
    uint64_t g = pl_ksrc_generation(t->k);
    const uint32_t need = PS_BIT(PS_VSIZE) | PS_BIT(PS_RSS);
    int e;
    if (g && p->gen[F_STAT] == g && (p->err[F_STAT] || (need & ~p->need) == 0))
        return p->err[F_STAT];       /* another query read stat: nothing more to read */
    if (g && p->gen[F_STATM] == g)
        return p->err[F_STATM];
    p->gen[F_STATM] = g;
    if (p->memstart && p->memstart == p->fdstart) {
        e = mem_read(t, p);
        if (pl_pt_outcome(e) != PL_PT_GONE)
            return p->err[F_STATM] = e;
        close_all(p, 0);     /* it exited: the pid may hold another process now */
        p->fdstart = 0;
    }
    return p->err[F_STATM] = mem_bind(t, p);
}
