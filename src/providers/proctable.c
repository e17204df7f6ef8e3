/* Per-process file access shared by the Process and Thread providers: see
 * proctable.h.  Nothing here allocates per collection once buffers and
 * tables have grown to the machine's size. */
#include "proctable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- descriptor budget ---------------------------------------------------------- */

static long g_kept;                   /* kept descriptors of all states */
static long g_budget = -1;            /* -1: not computed yet */

void pl_pt_budget_refresh(void)
{
    struct rlimit rl;
    long b = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t soft = rl.rlim_cur;
        if (soft == RLIM_INFINITY || soft > (1u << 24))
            soft = 1u << 24;
        /* half for us, and a margin for everything else the program opens */
        b = (long)soft / 2 - 64;
    }
    __atomic_store_n(&g_budget, b < 0 ? 0 : b, __ATOMIC_RELAXED);
}

int pl_pt_budget_take(void)
{
    long b = __atomic_load_n(&g_budget, __ATOMIC_RELAXED);
    if (b < 0) {
        pl_pt_budget_refresh();
        b = __atomic_load_n(&g_budget, __ATOMIC_RELAXED);
    }
    if (__atomic_add_fetch(&g_kept, 1, __ATOMIC_RELAXED) > b) {
        __atomic_sub_fetch(&g_kept, 1, __ATOMIC_RELAXED);
        return 0;
    }
    return 1;
}

void pl_pt_close(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        __atomic_sub_fetch(&g_kept, 1, __ATOMIC_RELAXED);
    }
    *fd = -1;
}

long pl_pt_budget_left(void)
{
    long b = __atomic_load_n(&g_budget, __ATOMIC_RELAXED);
    if (b < 0) {
        pl_pt_budget_refresh();
        b = __atomic_load_n(&g_budget, __ATOMIC_RELAXED);
    }
    b -= __atomic_load_n(&g_kept, __ATOMIC_RELAXED);
    return b > 0 ? b : 0;
}

long pl_pt_kept(void)
{
    return __atomic_load_n(&g_kept, __ATOMIC_RELAXED);
}

/* ---- reads ------------------------------------------------------------------------ */

void pl_rbuf_free(pl_rbuf *b)
{
    free(b->buf);
    b->buf = NULL;
    b->cap = b->len = 0;
}

static int rbuf_grow(pl_rbuf *b, size_t min)
{
    size_t cap = b->cap ? b->cap : 4096;
    char *nb;
    while (cap < min)
        cap *= 2;
    if (cap == b->cap)
        return 0;
    if (cap > PL_FILE_MAX)
        return EFBIG;
    nb = realloc(b->buf, cap);
    if (!nb)
        return ENOMEM;
    b->buf = nb;
    b->cap = cap;
    return 0;
}

/* Opens rel below dirfd and keeps it when the budget allows; *kept says which. */
static int open_keep(int dirfd, const char *rel, int flags, int *fd, int *kept)
{
    int f;
    if (!rel)
        return EBADF;
    f = openat(dirfd, rel, flags | O_RDONLY | O_CLOEXEC);
    if (f < 0)
        return errno;
    *kept = pl_pt_budget_take();
    *fd = *kept ? f : -1;
    return *kept ? 0 : -f - 1;       /* negative: an fd to close after use */
}

int pl_pt_read(int dirfd, const char *rel, int *fd, pl_rbuf *b)
{
    int f = *fd, kept = 1, e = 0;
    size_t len = 0;
    if (f < 0) {
        int r = open_keep(dirfd, rel, 0, fd, &kept);
        if (r > 0)
            return r;
        f = kept ? *fd : -r - 1;
    }
    if (b->cap < 4096 && (e = rbuf_grow(b, 4096)) != 0)
        goto out;
    for (;;) {
        size_t want = b->cap - 1 - len;
        ssize_t r = pread(f, b->buf + len, want, (off_t)len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            e = errno;
            break;
        }
        len += (size_t)r;
        if ((size_t)r < want)
            break;           /* a short read is the end: seq_file gives all it has */
        if ((e = rbuf_grow(b, b->cap * 2)) != 0)
            break;
    }
out:
    if (e)
        len = 0;
    if (b->buf)
        b->buf[len] = '\0';
    b->len = len;
    if (!kept)
        close(f);
    else if (e && e != EACCES && e != ESRCH)
        pl_pt_close(fd);
    return e;
}

/* Runs getdents64 over the whole directory from its start. */
static int dir_each(int f, pl_rbuf *scratch, void (*fn)(void *ud, const char *name), void *ud)
{
    int e;
    if (scratch->cap < 32768 && (e = rbuf_grow(scratch, 32768)) != 0)
        return e;
    if (lseek(f, 0, SEEK_SET) < 0)
        return errno;
    for (;;) {
        ssize_t r = getdents64(f, scratch->buf, scratch->cap);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (r == 0)
            return 0;
        for (ssize_t o = 0; o < r;) {
            const struct dirent64 *d = (const struct dirent64 *)(const void *)(scratch->buf + o);
            fn(ud, d->d_name);
            o += d->d_reclen;
        }
    }
}

static void count_one(void *ud, const char *name)
{
    if (!(name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))))
        ++*(uint32_t *)ud;
}

int pl_pt_count(int dirfd, const char *rel, int *fd, pl_rbuf *scratch, uint32_t *n)
{
    int f = *fd, kept = 1, e;
    if (f < 0) {
        int r = open_keep(dirfd, rel, O_DIRECTORY, fd, &kept);
        if (r > 0)
            return r;
        f = kept ? *fd : -r - 1;
    }
    *n = 0;
    e = dir_each(f, scratch, count_one, n);
    if (!kept)
        close(f);
    else if (e && e != EACCES)
        pl_pt_close(fd);
    return e;
}

typedef struct idlist {
    uint32_t *ids, n, cap;
    int sorted, err;
} idlist;

static void id_one(void *ud, const char *name)
{
    idlist *l = ud;
    uint64_t v = 0;
    const char *p = name;
    /* pids and tids: digits only, no leading zero, 32 bits */
    if (*p < '1' || *p > '9')
        return;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || p - name >= 10)
            return;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > UINT32_MAX || l->err)
        return;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 256;
        uint32_t *ni = realloc(l->ids, cap * sizeof *ni);
        if (!ni) {
            l->err = ENOMEM;
            return;
        }
        l->ids = ni;
        l->cap = cap;
    }
    if (l->n && l->ids[l->n - 1] >= v)
        l->sorted = 0;
    l->ids[l->n++] = (uint32_t)v;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int pl_pt_list_ids(int fd, pl_rbuf *scratch, uint32_t **ids, uint32_t *n, uint32_t *cap)
{
    idlist l = { *ids, 0, *cap, 1, 0 };
    int e = dir_each(fd, scratch, id_one, &l);
    *ids = l.ids;
    *cap = l.cap;
    *n = 0;
    if (e || l.err)
        return e ? e : l.err;
    if (!l.sorted) {         /* procfs lists in order; fixture trees need not */
        uint32_t k = 0;
        qsort(l.ids, l.n, sizeof *l.ids, cmp_u32);
        for (uint32_t i = 0; i < l.n; i++)
            if (k == 0 || l.ids[k - 1] != l.ids[i])
                l.ids[k++] = l.ids[i];
        l.n = k;
    }
    *n = l.n;
    return 0;
}

/* ---- /proc/[pid]/stat ------------------------------------------------------------ */

/* proc(5) field number of each PS_* slot, and the reverse (slot + 1, 0 = skip) */
static const uint8_t field_of[PS_N] = { 4, 9, 10, 12, 14, 15, 18, 19, 20, 22, 23, 24, 39, 40, 41, 42 };
#define MAXFIELD 42
static const uint8_t slot_of[MAXFIELD + 1] = {
    [4] = PS_PPID + 1, [9] = PS_FLAGS + 1, [10] = PS_MINFLT + 1, [12] = PS_MAJFLT + 1,
    [14] = PS_UTIME + 1, [15] = PS_STIME + 1, [18] = PS_PRIO + 1, [19] = PS_NICE + 1,
    [20] = PS_THREADS + 1, [22] = PS_START + 1, [23] = PS_VSIZE + 1, [24] = PS_RSS + 1,
    [39] = PS_CPU + 1, [40] = PS_RTPRIO + 1, [41] = PS_POLICY + 1, [42] = PS_BLKIO + 1,
};

int pl_pt_parse_stat(const char *buf, size_t len, uint32_t need, pl_pstat *out)
{
    const char *end = buf + len, *open, *close, *p;
    unsigned maxf = 3, field;
    out->have = 0;
    out->state = 0;
    open = memchr(buf, '(', len);
    close = memrchr(buf, ')', len);     /* comm may hold ')' and blanks: the LAST one */
    if (!open || !close || close < open || end - close < 3 || close[1] != ' ')
        return EINVAL;
    out->comm = open + 1;
    out->comm_len = (uint32_t)(close - open - 1);
    if (out->comm_len > PL_COMM_MAX - 1)
        out->comm_len = PL_COMM_MAX - 1;
    p = close + 2;
    if (p + 1 >= end || *p == ' ' || *p == '\n' || (p[1] != ' ' && p[1] != '\n'))
        return EINVAL;
    out->state = *p++;
    need &= PS_BIT(PS_N) - 1;
    if (need)                /* field_of ascends: the highest bit has the last field */
        maxf = field_of[31 - __builtin_clz(need)];
    for (field = 4; field <= maxf && p < end && *p == ' '; field++) {
        unsigned s = slot_of[field];
        p++;
        if (s) {
            const char *start;
            uint64_t x = 0;
            int neg = 0, bad = 0;
            if (p < end && *p == '-') {
                neg = 1;
                p++;
            }
            start = p;
            while (p < end && *p >= '0' && *p <= '9') {
                unsigned d = (unsigned)(*p - '0');
                if (p - start >= 19 && x > (UINT64_MAX - d) / 10)
                    bad = 1;
                x = x * 10 + d;
                p++;
            }
            /* whole tokens only: digits up to a blank or the newline */
            if (p == start || p >= end || (*p != ' ' && *p != '\n'))
                bad = 1;
            s--;
            if (neg && !bad) {
                /* only the priorities are signed */
                if ((s == PS_PRIO || s == PS_NICE) && x <= (uint64_t)INT64_MAX)
                    x = (uint64_t)-(int64_t)x;
                else
                    bad = 1;
            }
            if (!bad) {
                out->v[s] = x;
                out->have |= PS_BIT(s);
            }
        }
        while (p < end && *p != ' ' && *p != '\n')
            p++;
    }
    return 0;
}

/* ---- "Key: value [kB]" files ----------------------------------------------------- */

int pl_pt_scan_keys(const char *buf, size_t len, const pl_ptkey *keys, int nkeys,
                    uint64_t *vals, uint32_t *have)
{
    const char *p = buf, *end = buf + len;
    int found = 0;
    *have = 0;
    while (p < end && found < nkeys) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;        /* a last line without its newline (the buffer ends in NUL) */
        for (int k = 0; k < nkeys; k++) {
            const pl_ptkey *key = &keys[k];
            const char *q = p + key->len;
            uint64_t v;
            if (*p != key->name[0] || nl - p <= key->len || *q != ':' ||
                memcmp(p, key->name, key->len) != 0 || (*have & (1u << k)))
                continue;
            found++;
            q++;
            if (pl_parse_u64(&q, &v) == 0) {
                while (*q == ' ' || *q == '\t')
                    q++;
                if (key->kb && q[0] == 'k' && q[1] == 'B') {
                    q += 2;
                    if (v > UINT64_MAX / 1024)
                        break;
                    v *= 1024;
                } else if (key->kb) {
                    break;   /* a size without its unit is not guessed at */
                }
                if (q == nl) {
                    vals[k] = v;
                    *have |= 1u << k;
                }
            }
            break;
        }
        p = nl + 1;
    }
    return found;
}

/* ---- entries in id order ------------------------------------------------------------ */

void pl_etab_init(pl_etab *t, size_t esize)
{
    memset(t, 0, sizeof *t);
    t->esize = esize;
}

void pl_etab_free(pl_etab *t, void (*retire)(void *ud, void *e), void *ud)
{
    for (uint32_t i = 0; i < t->n; i++) {
        if (retire)
            retire(ud, t->v[i]);
        free(t->v[i]);
    }
    for (uint32_t i = 0; i < t->nspare; i++)
        free(t->spare[i]);
    free(t->v);
    free(t->nv);
    free(t->id);
    free(t->nid);
    free(t->spare);
    pl_etab_init(t, t->esize);
}

static int spare_push(pl_etab *t, void *e)
{
    if (t->nspare == t->sparecap) {
        uint32_t cap = t->sparecap ? t->sparecap * 2 : 64;
        void **ns = realloc(t->spare, cap * sizeof *ns);
        if (!ns) {
            free(e);
            return ENOMEM;
        }
        t->spare = ns;
        t->sparecap = cap;
    }
    t->spare[t->nspare++] = e;
    return 0;
}

static int grow(void **p, size_t size, uint32_t cap)
{
    void *n = realloc(*p, cap * size);
    if (!n)
        return ENOMEM;
    *p = n;
    return 0;
}

int pl_etab_sync(pl_etab *t, const uint32_t *ids, uint32_t n,
                 void (*init)(void *ud, void *e, uint32_t id),
                 void (*retire)(void *ud, void *e), void *ud)
{
    uint32_t i = 0, k = 0, out = 0;
    int err = 0;
    /* the usual case, nothing came or went: the entries are not even touched */
    if (n == t->n && (n == 0 || memcmp(ids, t->id, n * sizeof *ids) == 0))
        return 0;
    if (n > t->cap) {
        uint32_t cap = t->cap ? t->cap : 64;
        while (cap < n)
            cap *= 2;
        if (grow((void **)&t->v, sizeof *t->v, cap) || grow((void **)&t->nv, sizeof *t->nv, cap) ||
            grow((void **)&t->id, sizeof *t->id, cap) || grow((void **)&t->nid, sizeof *t->nid, cap))
            return ENOMEM;
        t->cap = cap;
    }
    /* merge two ascending lists: old entries and the new listing */
    for (; k < n; k++) {
        void *e;
        while (i < t->n && t->id[i] < ids[k]) {
            retire(ud, t->v[i]);
            spare_push(t, t->v[i++]);
        }
        if (i < t->n && t->id[i] == ids[k]) {
            t->nid[out] = ids[k];
            t->nv[out++] = t->v[i++];
            continue;
        }
        /* cache-line aligned: a collect touches each entry once, cold */
        e = t->nspare ? t->spare[--t->nspare] : aligned_alloc(64, (t->esize + 63) & ~(size_t)63);
        if (!e) {
            err = ENOMEM;    /* the rest of the listing is left out */
            break;
        }
        memset(e, 0, t->esize);
        *(uint32_t *)e = ids[k];
        if (init)
            init(ud, e, ids[k]);
        t->nid[out] = ids[k];
        t->nv[out++] = e;
    }
    for (; i < t->n; i++) {
        retire(ud, t->v[i]);
        spare_push(t, t->v[i]);
    }
    void **sw = t->v;
    t->v = t->nv;
    t->nv = sw;
    uint32_t *si = t->id;
    t->id = t->nid;
    t->nid = si;
    t->n = out;
    return err;
}

/* ---- clocks ------------------------------------------------------------------------ */

int pl_pt_uptime(pl_file *f, const pl_env *env, int64_t *hns)
{
    const char *p;
    uint64_t v;
    int e = pl_file_read(f, env, "proc/uptime");
    if (e)
        return e;
    p = f->buf;
    /* seconds with a fraction, read straight into 100 ns units */
    if (pl_parse_fixed(&p, 7, &v) || *p != ' ' || v > (uint64_t)INT64_MAX)
        return EINVAL;
    *hns = (int64_t)v;
    return 0;
}

int pl_pt_elapsed_clock(pl_ptbase *b, pl_snapshot *snap, uint32_t col)
{
    int64_t now;
    int e = pl_pt_uptime(&b->uptime, b->env, &now);
    if (e == 0) {
        snap->obj_time = now;
        snap->obj_freq = 10000000;
        return 0;
    }
    if (e != EINVAL && pl_pt_outcome(e) == PL_PT_FAILED) {
        snap->err_path = "proc/uptime";
        return e;            /* out of descriptors is not "no clock" */
    }
    for (uint32_t i = 0; i < snap->ninst; i++)
        snap->have[(size_t)i * snap->cs->ncounters + col] = 0;
    return 0;
}

void pl_pt_base_setup(pl_ptbase *b, pl_env *env)
{
    b->env = env;
    b->procfd = -1;
    b->hz = (uint64_t)pl_env_user_hz(env);
    b->per_tick = 10000000 % b->hz == 0 ? 10000000 / b->hz : 0;
    pl_file_init(&b->uptime);
}

void pl_pt_base_release(pl_ptbase *b)
{
    if (b->procfd >= 0)
        close(b->procfd);
    pl_file_close(&b->uptime);
    pl_rbuf_free(&b->rb);
    pl_rbuf_free(&b->db);
    free(b->ids);
}

void pl_pt_base_init(pl_ptbase *b, pl_env *env)
{
    pl_pt_base_setup(b, pl_env_ref(env));
}

void pl_pt_base_free(pl_ptbase *b)
{
    pl_pt_base_release(b);
    pl_env_unref(b->env);
}

int pl_pt_list_pids(pl_ptbase *b, pl_snapshot *snap)
{
    int e;
    if (b->procfd < 0) {
        b->procfd = pl_open_rel(b->env, "proc");
        if (b->procfd < 0) {
            snap->err_path = "proc";
            return errno;
        }
    }
    pl_pt_budget_refresh();
    if ((e = pl_pt_list_ids(b->procfd, &b->db, &b->ids, &b->nids, &b->idcap)) != 0) {
        snap->err_path = "proc";
        return e;
    }
    return 0;
}
