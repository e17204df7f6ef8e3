/* ZFS Pool (one instance per imported pool, a directory of
 * /proc/spl/kstat/zfs named after it): node_exporter's zfs_zpool_* metrics.
 *
 *   State   <pool>/state (module/zfs/spa_stats.c, spa_state_data: the text
 *           of spa_state_to_name, OpenZFS 0.8 and later) as a code:
 *           ONLINE 0, DEGRADED 1, FAULTED 2, OFFLINE 3, UNAVAIL 4, REMOVED 5,
 *           SUSPENDED 6; another text (TRANSITIONING, SPLIT, UNKNOWN) has no
 *           value.
 *   Dataset reads, writes and their bytes: the sums over the pool's
 *           objset-0x<id> kstats (module/zfs/dataset_kstats.c, 0.8 and
 *           later; one per dataset with kstats), read by their names
 *           (zfs.h); a file that cannot be read leaves the sums unset, one
 *           that lacks a value (or has a bad one) that sum: never short.
 *   Pool I/O <pool>/io, a KSTAT_TYPE_IO (kstat.h) that ZFS on Linux 0.6.5 to
 *           OpenZFS 2.0 have (spa_stats.c's spa_io_history; gone in 2.1).
 *
 * ZFS Dataset (below) shows the same objset kstats one dataset each.
 *
 * The directories are kept open and listed again each collect (rewinddir:
 * procfs tells nothing cheaper of a pool imported or a dataset mounted);
 * files are kept open and read only when a wanted counter needs them.  A
 * pool's id is its slot in the names this state has seen.  Without the
 * zfs module (no /proc/spl/kstat/zfs): zero instances. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "zfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define TOP "proc/spl/kstat/zfs"
#define MAX_POOLS 4096u      /* bounds on slots: names come from the directory */
#define MAX_OBJS 65536u
#define NAME_MAX_ZFS 256     /* ZFS_MAX_DATASET_NAME_LEN */

enum { C_STATE, C_DATASETS, C_READS, C_WRITES, C_NREAD, C_NWRITTEN, C_IO_NREAD, C_IO_NWRITTEN,
       C_IO_READS, C_IO_WRITES, C_IO_WCNT, C_IO_RCNT, NC };
enum { S_ROW, NSRC };

#define IO_ROW(R, id, name, f, type, det, kind, sem, what) \
    R(id, name, what " (/proc/spl/kstat/zfs/<pool>/io " f "; ZFS on Linux 0.6.5 to OpenZFS " \
      "2.0).", type, PL_NO_ID, det, 0, PL_U(kind, 1, sem), PL_FIELD(S_ROW, id))
#define DS_ROW(R, id, name, f, unit, what) \
    R(id, name, what " per second, summed over the pool's datasets (/proc/spl/kstat/zfs/" \
      "<pool>/objset-0x* " f ").", BULK, PL_NO_ID, NOV, 0, PL_U(unit, 1, COUNTER), \
      PL_FIELD(S_ROW, id))

#define ZP_ROWS(R) \
    R(C_STATE, "State", "The pool's state as a code: ONLINE 0, DEGRADED 1, FAULTED 2, OFFLINE " \
      "3, UNAVAIL 4, REMOVED 5, SUSPENDED 6 (/proc/spl/kstat/zfs/<pool>/state); no value for " \
      "another text.", LRAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), PL_FIELD(S_ROW, C_STATE)) \
    R(C_DATASETS, "Datasets", "Datasets of the pool with statistics: its /proc/spl/kstat/zfs/" \
      "<pool>/objset-0x* files.", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_ROW, C_DATASETS)) \
    DS_ROW(R, C_READS, "Dataset Reads/sec", "reads", COUNT, "Read operations") \
    DS_ROW(R, C_WRITES, "Dataset Writes/sec", "writes", COUNT, "Write operations") \
    DS_ROW(R, C_NREAD, "Dataset Read Bytes/sec", "nread", BYTES, "Bytes read") \
    DS_ROW(R, C_NWRITTEN, "Dataset Write Bytes/sec", "nwritten", BYTES, "Bytes written") \
    IO_ROW(R, C_IO_NREAD, "Pool Read Bytes/sec", "nread", BULK, ADV, BYTES, COUNTER, \
           "Bytes the pool read per second") \
    IO_ROW(R, C_IO_NWRITTEN, "Pool Write Bytes/sec", "nwritten", BULK, ADV, BYTES, \
           COUNTER, "Bytes the pool wrote per second") \
    IO_ROW(R, C_IO_READS, "Pool Reads/sec", "reads", BULK, ADV, COUNT, COUNTER, \
           "Read operations of the pool per second") \
    IO_ROW(R, C_IO_WRITES, "Pool Writes/sec", "writes", BULK, ADV, COUNT, COUNTER, \
           "Write operations of the pool per second") \
    IO_ROW(R, C_IO_WCNT, "Pool Wait Queue Length", "wcnt", LRAW, ADV, COUNT, GAUGE, \
           "Operations waiting to be issued") \
    IO_ROW(R, C_IO_RCNT, "Pool Run Queue Length", "rcnt", LRAW, ADV, COUNT, GAUGE, \
           "Operations being serviced")

static const pl_counter_def counters[] = { ZP_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { ZP_ROWS(PL_ROW_FEED) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

typedef struct zprow {
    uint64_t v[NC];
    uint8_t st[NC];
} zprow;
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, zprow) };

typedef struct zobj {
    char file[32];           /* objset-0x<hex> */
    uint32_t id;             /* ZFS Dataset's instance id: given in order of first sight */
    pl_file f;
    pl_kstat k;
    uint64_t seen;
} zobj;

typedef struct zpool {
    char name[NAME_MAX_ZFS];
    char inst[NAME_MAX_ZFS]; /* sanitized */
    DIR *dir;                /* kept, rewound each listing */
    int state_fd;
    int io_absent;           /* no <pool>/io (OpenZFS 2.1 and later): not tried again */
    pl_file io;
    zobj *obj;
    uint32_t nobj, ocap;
    uint64_t seen;
} zpool;

typedef struct zp_state {
    pl_env *env;
    DIR *top;
    zpool *pool;
    uint32_t npool, cap;
    uint64_t gen;
    uint32_t next_id;        /* of the next objset seen */
} zp_state;

static void obj_close(zobj *o)
{
    pl_file_close(&o->f);
    pl_kstat_release(&o->k);
}

static void pool_close(zpool *p)
{
    if (p->dir)
        closedir(p->dir);
    p->dir = NULL;
    if (p->state_fd >= 0)
        close(p->state_fd);
    p->state_fd = -1;
    pl_file_close(&p->io);
    p->io_absent = 0;
    for (uint32_t i = 0; i < p->nobj; i++)
        obj_close(&p->obj[i]);
    free(p->obj);
    p->obj = NULL;
    p->nobj = p->ocap = 0;
}

static void zp_close(void *state)
{
    zp_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->npool; i++)
        pool_close(&s->pool[i]);
    free(s->pool);
    if (s->top)
        closedir(s->top);
    pl_env_unref(s->env);
    free(s);
}

static int zp_open(pl_env *env, void **state)
{
    zp_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    *state = s;
    return 0;
}

/* A directory below dirfd at, kept by the caller; NULL when it is not one. */
static DIR *open_dir(int at, const char *name)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0)
        close(fd);
    return d;
}

static int is_dir(DIR *in, const struct dirent *de)
{
    struct stat st;
    if (de->d_type != DT_UNKNOWN)
        return de->d_type == DT_DIR;
    return fstatat(dirfd(in), de->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/* The slot of pool name in *out, added on first sight (NULL past the
 * bounds): 0 or ENOMEM. */
static int pool_slot(zp_state *s, const char *name, zpool **out)
{
    zpool *p;
    *out = NULL;
    for (uint32_t i = 0; i < s->npool; i++)
        if (!strcmp(s->pool[i].name, name)) {
            *out = &s->pool[i];
            return 0;
        }
    if (s->npool == MAX_POOLS || strlen(name) >= NAME_MAX_ZFS)
        return 0;
    if (s->npool == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 4;
        zpool *v = realloc(s->pool, cap * sizeof *v);
        if (!v)
            return ENOMEM;
        s->pool = v;
        s->cap = cap;
    }
    p = &s->pool[s->npool++];
    memset(p, 0, sizeof *p);
    strcpy(p->name, name);
    strcpy(p->inst, name);
    pl_name_sanitize(p->inst);
    p->state_fd = -1;
    pl_file_init(&p->io);
    *out = p;
    return 0;
}

/* Lists the pools: 0 or ENOMEM.  The top directory is opened when absent
 * (the module may load later) and dropped when it lists nothing (a module
 * unloaded leaves it empty). */
static int list_pools(zp_state *s)
{
    struct dirent *de;
    unsigned entries = 0;
    s->gen++;
    if (!s->top) {
        int fd = pl_open_rel(s->env, TOP);
        if (fd < 0)
            return 0;
        if (!(s->top = fdopendir(fd))) {
            close(fd);
            return 0;
        }
    } else
        rewinddir(s->top);
    while ((de = readdir(s->top)) != NULL) {
        zpool *p;
        if (de->d_name[0] == '.')
            continue;
        entries++;
        if (!is_dir(s->top, de))
            continue;
        if (pool_slot(s, de->d_name, &p) != 0)
            return ENOMEM;
        if (p)
            p->seen = s->gen;
    }
    for (uint32_t i = 0; i < s->npool; i++)
        if (s->pool[i].seen != s->gen)
            pool_close(&s->pool[i]);         /* exported: its files go */
    if (!entries) {
        closedir(s->top);
        s->top = NULL;
    }
    return 0;
}

/* The objset slot of file name in *out (NULL past the bound): 0 or ENOMEM. */
static int obj_slot(zp_state *s, zpool *p, const char *name, zobj **out)
{
    zobj *o;
    *out = NULL;
    for (uint32_t i = 0; i < p->nobj; i++)
        if (!strcmp(p->obj[i].file, name)) {
            *out = &p->obj[i];
            return 0;
        }
    if (p->nobj == MAX_OBJS || strlen(name) >= sizeof o->file)
        return 0;
    if (p->nobj == p->ocap) {
        uint32_t cap = p->ocap ? p->ocap * 2 : 8;
        zobj *v = realloc(p->obj, cap * sizeof *v);
        if (!v)
            return ENOMEM;
        p->obj = v;
        p->ocap = cap;
    }
    o = &p->obj[p->nobj++];
    memset(o, 0, sizeof *o);
    strcpy(o->file, name);
    o->id = s->next_id++;
    pl_file_init(&o->f);
    *out = o;
    return 0;
}

/* Lists the pool's objset-0x* files: 0 or ENOMEM.  Its directory is kept;
 * one that lists nothing (the pool exported and imported again between two
 * collects leaves the old one empty) is opened afresh next time. */
static int list_objs(zp_state *s, zpool *p)
{
    struct dirent *de;
    unsigned entries = 0;
    if (!p->dir) {
        if (!s->top || !(p->dir = open_dir(dirfd(s->top), p->name)))
            return 0;
    } else
        rewinddir(p->dir);
    while ((de = readdir(p->dir)) != NULL) {
        zobj *o;
        entries += de->d_name[0] != '.';
        if (strncmp(de->d_name, "objset-0x", 9) != 0)
            continue;
        if (obj_slot(s, p, de->d_name, &o) != 0)
            return ENOMEM;
        if (o)
            o->seen = s->gen;
    }
    for (uint32_t i = 0; i < p->nobj;)
        if (p->obj[i].seen != s->gen) {       /* unmounted: dropped */
            obj_close(&p->obj[i]);
            p->obj[i] = p->obj[--p->nobj];
        } else
            i++;
    if (!entries) {
        closedir(p->dir);
        p->dir = NULL;
    }
    return 0;
}

/* Reads a file of the pool into f, opening it on first use: 0 or errno
 * (the file is then closed, to be opened afresh). */
static int pool_file(zp_state *s, zpool *p, const char *file, pl_file *f)
{
    char rel[sizeof TOP + 2 * NAME_MAX_ZFS] = "";
    int e;
    if (f->fd < 0)
        snprintf(rel, sizeof rel, TOP "/%s/%s", p->name, file);
    if ((e = pl_file_read(f, s->env, rel)) != 0)
        pl_file_close(f);
    return e;
}

/* Reads and parses objset o: 0 or errno (ENOMEM, or the file's). */
static int read_obj(zp_state *s, zpool *p, zobj *o)
{
    int e = pool_file(s, p, o->file, &o->f);
    return e ? e : pl_parse_zfs_objset(o->f.buf, o->f.len, &o->k);
}

/* The sums of the objsets' reads, writes and bytes, and their number: 0 or
 * ENOMEM.  A file unread leaves every sum unset, a value missing its own. */
static int sum_objs(zp_state *s, zpool *p, zprow *r)
{
    static const int field[4] = { PL_OBJSET_READS, PL_OBJSET_WRITES, PL_OBJSET_NREAD,
                                  PL_OBJSET_NWRITTEN };
    int ok[4] = { 1, 1, 1, 1 }, e;
    if ((e = list_objs(s, p)) != 0)
        return e;
    memset(&r->v[C_READS], 0, 4 * sizeof r->v[0]);
    for (uint32_t i = 0; i < p->nobj; i++) {
        zobj *o = &p->obj[i];
        if ((e = read_obj(s, p, o)) != 0) {
            if (e == ENOMEM)
                return e;
            memset(ok, 0, sizeof ok);
            continue;
        }
        for (int k = 0; k < 4; k++)
            ok[k] &= o->k.st[field[k]] == PL_NS_OK &&
                     pl_add_ok(r->v[C_READS + k], o->k.v[field[k]], &r->v[C_READS + k]);
    }
    r->v[C_DATASETS] = p->nobj;
    r->st[C_DATASETS] = PL_NS_OK;
    for (int k = 0; k < 4; k++)
        r->st[C_READS + k] = ok[k] ? PL_NS_OK : PL_NS_ABSENT;
    return 0;
}

/* spa_state_to_name's texts in the order of their codes. */
static const char *const states[] = { "ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL",
                                      "REMOVED", "SUSPENDED" };

static void read_state(zp_state *s, zpool *p, zprow *r)
{
    char rel[sizeof TOP + NAME_MAX_ZFS + 8] = "", buf[64];
    size_t n;
    if (p->state_fd < 0)
        snprintf(rel, sizeof rel, TOP "/%s/state", p->name);
    if (pl_read_once(&p->state_fd, s->env, rel, buf, sizeof buf) != 0)
        return;
    n = strcspn(buf, "\n");
    /* the whole text: up to its newline, or the file's end when the read did not fill buf
     * (recordings and containers' views may lack the last newline) */
    if (buf[n] != '\n' && n >= sizeof buf - 1)
        return;
    for (unsigned c = 0; c < sizeof states / sizeof states[0]; c++)
        if (strlen(states[c]) == n && !memcmp(buf, states[c], n)) {
            r->v[C_STATE] = c;
            r->st[C_STATE] = PL_NS_OK;
        }
}

static void read_io(zp_state *s, zpool *p, zprow *r)
{
    pl_kstat_io io;
    int e;
    if (p->io_absent)
        return;
    if ((e = pool_file(s, p, "io", &p->io)) != 0) {
        p->io_absent = e == ENOENT;
        return;
    }
    if (pl_kstat_io_parse(p->io.buf, p->io.len, &io) != 0)
        return;
    static const int col[] = { PL_KIO_NREAD, PL_KIO_NWRITTEN, PL_KIO_READS, PL_KIO_WRITES,
                               PL_KIO_WCNT, PL_KIO_RCNT };
    for (int k = 0; k < 6; k++) {
        r->v[C_IO_NREAD + k] = io.v[col[k]];
        r->st[C_IO_NREAD + k] = io.st[col[k]];
    }
}

static int wants(const uint8_t *wanted, int from, int to)
{
    for (int c = from; c <= to; c++)
        if (!wanted || wanted[c])
            return 1;
    return 0;
}

static int zp_read(void *state, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    zp_state *s = state;
    int need_obj = wants(wanted, C_DATASETS, C_NWRITTEN), need_io = wants(wanted, C_IO_NREAD,
                                                                           C_IO_RCNT);
    pl_feed_in in;
    zprow r;
    int e;
    pl_snap_clear(snap);
    if ((e = list_pools(s)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->npool; i++) {
        zpool *p = &s->pool[i];
        int k;
        if (p->seen != s->gen)
            continue;
        if ((k = pl_snap_add(snap, p->inst, i)) < 0)
            return ENOMEM;
        if (!values)
            continue;
        memset(r.st, PL_NS_ABSENT, sizeof r.st);
        if (wants(wanted, C_STATE, C_STATE))
            read_state(s, p, &r);
        if (need_obj && (e = sum_objs(s, p, &r)) != 0)
            return e;
        if (need_io)
            read_io(s, p, &r);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
    }
    return 0;
}

PL_READ_OPS(zp, zp_open, zp_close, zp_read);

const pl_counterset_def pl_zfs_pool_def = {
    /* UUIDv5(perflib namespace, "ZFS Pool") */
    { 0xfeab370c, 0x1456, 0x5ec6, { 0xaa, 0x6c, 0x51, 0xeb, 0x73, 0x6c, 0xc2, 0xd1 } },
    "ZFS Pool",
    "OpenZFS pools from /proc/spl/kstat/zfs/<pool>: state as a code, the datasets' read and "
    "write operations and bytes summed, and the pool I/O kstat of versions before 2.1; no "
    "instances without the zfs module.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &zp_ops, 68000, NULL,
};

/* ---- ZFS Dataset ------------------------------------------------------------ */
/* One instance per dataset with an objset kstat, named by its dataset_name
 * (`tank/home`, escaped), id given in order of first sight; the same files
 * as above, each kept open and read once per collect (its name is in it). */
enum { D_READS, D_WRITES, D_NREAD, D_NWRITTEN, D_NUNLINKS, D_NUNLINKED, ND };

#define DS_ROWS(R) \
    R(D_READS, "Reads/sec", "Read operations on the dataset per second (/proc/spl/kstat/zfs/" \
      "<pool>/objset-0x* reads).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(0, PL_OBJSET_READS)) \
    R(D_WRITES, "Writes/sec", "Write operations on the dataset per second (/proc/spl/kstat/zfs/" \
      "<pool>/objset-0x* writes).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(0, PL_OBJSET_WRITES)) \
    R(D_NREAD, "Read Bytes/sec", "Bytes read from the dataset per second (/proc/spl/kstat/zfs/" \
      "<pool>/objset-0x* nread).", BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), \
      PL_FIELD(0, PL_OBJSET_NREAD)) \
    R(D_NWRITTEN, "Write Bytes/sec", "Bytes written to the dataset per second (/proc/spl/kstat/" \
      "zfs/<pool>/objset-0x* nwritten).", BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), \
      PL_FIELD(0, PL_OBJSET_NWRITTEN)) \
    R(D_NUNLINKS, "Unlinks/sec", "Files unlinked on the dataset per second, queued for freeing " \
      "(/proc/spl/kstat/zfs/<pool>/objset-0x* nunlinks).", BULK, PL_NO_ID, PERF_DETAIL_ADVANCED, \
      0, PL_U(COUNT, 1, COUNTER), PL_FIELD(0, PL_OBJSET_NUNLINKS)) \
    R(D_NUNLINKED, "Unlinked/sec", "Unlinked files whose space was freed per second (/proc/spl/" \
      "kstat/zfs/<pool>/objset-0x* nunlinked).", BULK, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(0, PL_OBJSET_NUNLINKED))

static const pl_counter_def dcounters[] = { DS_ROWS(PL_ROW_COUNTER) };
static const pl_feed dfeeds[] = { DS_ROWS(PL_ROW_FEED) };
_Static_assert(sizeof dcounters / sizeof dcounters[0] == ND, "one row per counter");
static const pl_feed_src dsrcs[1] = { PL_FEED_SRC_ST(NULL, pl_kstat) };

static int ds_read(void *state, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    zp_state *s = state;
    pl_feed_in in;
    char name[NAME_MAX_ZFS];
    int e;
    pl_snap_clear(snap);
    if ((e = list_pools(s)) != 0)
        return e;
    pl_feed_begin(&in, dsrcs, 1, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->npool; i++) {
        zpool *p = &s->pool[i];
        if (p->seen != s->gen)
            continue;
        if ((e = list_objs(s, p)) != 0)
            return e;
        for (uint32_t j = 0; j < p->nobj; j++) {
            zobj *o = &p->obj[j];
            const char *t;
            int k;
            if ((e = read_obj(s, p, o)) != 0) {
                if (e == ENOMEM)
                    return e;
                continue;    /* unreadable: no name, no instance */
            }
            if (!(t = pl_kstat_text(&o->k, PL_OBJSET_NAME)) || !*t || strlen(t) >= sizeof name)
                continue;
            strcpy(name, t);
            pl_name_sanitize(name);
            if ((k = pl_snap_add(snap, name, o->id)) < 0)
                return ENOMEM;
            if (values) {
                pl_feed_put(&in, 0, &o->k);
                pl_feed_walk(&in, (uint32_t)k, dfeeds, ND, wanted);
            }
        }
    }
    return 0;
}

PL_READ_OPS(ds, zp_open, zp_close, ds_read);

const pl_counterset_def pl_zfs_dataset_def = {
    /* UUIDv5(perflib namespace, "ZFS Dataset") */
    { 0x0b226a3a, 0xeb62, 0x59d2, { 0xac, 0x43, 0x3b, 0x42, 0x35, 0x90, 0x22, 0x00 } },
    "ZFS Dataset",
    "OpenZFS datasets with statistics, from /proc/spl/kstat/zfs/<pool>/objset-0x* (0.8 and "
    "later): read and write operations and bytes, unlinks; no instances without the zfs module.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, ND, dcounters, &ds_ops, 69000, NULL,
};
