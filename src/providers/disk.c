/* PhysicalDisk: whole block devices from /proc/diskstats that have a
 * /sys/block/X/device link, plus _Total; and the diskstats engine that
 * LogicalDisk shares (disk.h).
 *
 * Traps handled: 14-, 18- and 20-field lines (discard and flush counters
 * only when the kernel has them), old 7-field partition lines (skipped), ms
 * fields that are 32-bit on every kernel (unwrapped per device before the
 * x10000 to 100 ns), a device whose counts all fell (re-registered: a reset,
 * published as it is), a transiently huge in-flight count (read as 0), and
 * partitions, loop, ram and zram devices (left out).  Instances are keyed by
 * major:minor (id = major << 20 | minor), named after the device. */
#include "disk.h"
#include "providers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MS_HNS 10000u        /* ms -> 100 ns */
#define SECTOR 512u

/* the ms fields, unwrapped at 32 bits */
static const uint8_t ms_field[] = { DS_RDMS, DS_WRMS, DS_IOMS, DS_WMS, DS_DCMS, DS_FLMS };

int pl_diskstats_init(pl_diskstats *d, pl_env *env, int classify, int join_offset)
{
    memset(d, 0, sizeof *d);
    d->blockfd = -1;
    d->classify = classify;
    d->join_offset = join_offset;
    d->src = pl_ksrc_attach(env, &pl_ksrc_diskstats);
    return d->src ? 0 : ENOMEM;
}

void pl_diskstats_free(pl_diskstats *d)
{
    if (d->blockfd >= 0)
        close(d->blockfd);
    free(d->dev);            /* the reader is the environment's */
    memset(d, 0, sizeof *d);
    d->blockfd = -1;
}

/* Whole disk with a device link, not loop/ram/zram.  Partitions have no
 * /sys/block entry; dm-* and md* have one but no device link. */
static int classify(pl_diskstats *d, const char *name)
{
    char rel[64];
    struct stat st;
    size_t n = strlen(name);
    if (strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0 ||
        strncmp(name, "zram", 4) == 0 || name[0] == '.' || n + 8 > sizeof rel)
        return 0;
    /* sysfs spells a '/' in a disk name (cciss/c0d0) as '!' */
    for (size_t i = 0; i <= n; i++)
        rel[i] = name[i] == '/' ? '!' : name[i];
    memcpy(rel + n, "/device", 8);
    return fstatat(d->blockfd, rel, &st, 0) == 0;
}

static void add_to(uint64_t *acc, const uint64_t *v, int sign)
{
    for (int k = 0; k < DS_NV; k++)
        if (k != DS_INFL)    /* an instantaneous count: never carried */
            acc[k] += sign > 0 ? v[k] : (uint64_t)0 - v[k];
}

/* All the counts that had started fell: the device was removed and added
 * again (sysstat check_disk_reg); one or two falling is not enough. */
static int fell_all(const uint64_t *old, const uint64_t *raw)
{
    static const uint8_t f[] = { DS_RD, DS_RDS, DS_WR, DS_WRS };
    int any = 0;
    for (size_t i = 0; i < sizeof f; i++) {
        if (old[f[i]] == 0)
            continue;
        if (raw[f[i]] >= old[f[i]])
            return 0;
        any = 1;
    }
    return any;
}

static void publish(pl_diskstats *d, pl_dsdev *x, const uint64_t *raw, int nf)
{
    if (x->primed && fell_all(x->raw, raw)) {
        if (x->member)
            add_to(d->adj, x->tv, 1);  /* the old incarnation's counts stay in _Total */
        x->primed = 0;
        x->reset = 1;
    } else {
        x->reset = 0;
    }
    if (!x->primed) {
        memcpy(x->v, raw, sizeof x->v);
    } else {
        uint64_t ms[sizeof ms_field];
        for (size_t i = 0; i < sizeof ms_field; i++)
            ms[i] = x->v[ms_field[i]];
        memcpy(x->v, raw, sizeof x->v);
        for (size_t i = 0; i < sizeof ms_field; i++) {
            int k = ms_field[i];
            /* a value over 32 bits means a kernel with wide fields: taken as is */
            if (raw[k] <= UINT32_MAX && x->raw[k] <= UINT32_MAX)
                x->v[k] = ms[i] + (uint32_t)(raw[k] - x->raw[k]);
        }
    }
    memcpy(x->raw, raw, sizeof x->raw);
    x->nf = nf;
    x->primed = 1;
}

pl_dsdev *pl_diskstats_find(pl_diskstats *d, uint32_t major, uint32_t minor)
{
    for (uint32_t i = 0; i < d->ndev; i++)
        if (d->dev[i].seen && d->dev[i].major == major && d->dev[i].minor == minor)
            return &d->dev[i];
    return NULL;
}

/* The device of row r: the one with its number (the kernel keeps its order,
 * so the search starts where the last match ended), renamed when another
 * device took the number, or a new one.  NULL for ENOMEM. */
static pl_dsdev *device(pl_diskstats *d, const pl_dsrow *r, uint32_t *hint)
{
    pl_dsdev *x = NULL;
    for (uint32_t k = 0; k < d->ndev; k++) {
        uint32_t i = (*hint + k) % d->ndev;
        if (d->dev[i].major == r->major && d->dev[i].minor == r->minor && !d->dev[i].seen) {
            x = &d->dev[i];
            break;
        }
    }
    if (x && strcmp(x->name, r->name) != 0) {
        /* same number, another device: the old one is gone */
        if (x->member)
            add_to(d->adj, x->tv, 1);
        x->member = 0;
        x->primed = 0;
        strcpy(x->name, r->name);
        x->physical = d->classify && classify(d, r->name);
    }
    if (!x) {
        if (d->ndev == d->cap) {
            uint32_t cap = d->cap ? d->cap * 2 : 16;
            pl_dsdev *nd = realloc(d->dev, cap * sizeof *nd);
            if (!nd)
                return NULL;
            d->dev = nd;
            d->cap = cap;
        }
        x = &d->dev[d->ndev++];
        memset(x, 0, sizeof *x);
        x->major = r->major;
        x->minor = r->minor;
        strcpy(x->name, r->name);
        x->physical = d->classify && classify(d, r->name);
    }
    *hint = (uint32_t)(x - d->dev) + 1;
    return x;
}

int pl_diskstats_update(pl_diskstats *d, const pl_env *env, int values, const char **err_path)
{
    static const pl_dstab none;
    const pl_dstab *t = &none;
    uint32_t hint = 0;
    int e;
    if (d->classify && d->blockfd < 0) {
        d->blockfd = pl_open_rel(env, "sys/block");
        if (d->blockfd < 0) {
            *err_path = "sys/block";
            return errno;
        }
    }
    /* EINVAL: an empty file, a machine without block devices */
    if ((e = pl_ksrc_get(d->src)) != 0 && e != EINVAL) {
        *err_path = pl_ksrc_path(d->src);
        return e;
    }
    if (!e)
        t = pl_ksrc_data(d->src);
    for (uint32_t i = 0; i < d->ndev; i++)
        d->dev[i].seen = 0;
    for (uint32_t r = 0; r < t->n; r++) {
        const pl_dsrow *row = (const pl_dsrow *)t->row + r;
        pl_dsdev *x = device(d, row, &hint);
        if (!x)
            return ENOMEM;
        x->seen = 1;
        if (values) {
            if (row->nf)
                publish(d, x, row->raw, row->nf);
            else
                x->nf = 0;   /* malformed: values unset, last good ones kept */
        }
    }
    if (values) {
        /* devices gone since the last read: their counts stay in _Total */
        uint32_t n = 0;
        for (uint32_t i = 0; i < d->ndev; i++) {
            if (!d->dev[i].seen) {
                if (d->dev[i].member)
                    add_to(d->adj, d->dev[i].tv, 1);
                continue;
            }
            d->dev[n++] = d->dev[i];
        }
        d->ndev = n;
    }
    return 0;
}

void pl_diskstats_total(pl_diskstats *d)
{
    int nf = 17, any = 0;
    memcpy(d->total, d->adj, sizeof d->total);
    d->total[DS_INFL] = 0;
    for (uint32_t i = 0; i < d->ndev; i++) {
        pl_dsdev *x = &d->dev[i];
        if (!x->seen)
            continue;
        if (x->member && !x->want) {
            add_to(d->adj, x->tv, 1);      /* left (unmounted): keep what it counted */
            add_to(d->total, x->tv, 1);
            x->member = 0;
        }
        if (!x->want)
            continue;
        if (x->primed && !x->member) {
            /* joined after the first total: only its growth from now on */
            if (d->primed && d->join_offset) {
                add_to(d->adj, x->v, -1);
                add_to(d->total, x->v, -1);
            }
            x->member = 1;
        }
        if (x->nf < nf)
            nf = x->nf;
        if (x->primed) {
            memcpy(x->tv, x->v, sizeof x->tv);
            add_to(d->total, x->v, 1);
            /* clamped as each device's own value is (pl_disk_io_set) */
            d->total[DS_INFL] += x->v[DS_INFL] > (1ull << 31) ? 0 : x->v[DS_INFL];
        }
        any = 1;
        x->want = 0;
    }
    d->total_nf = any ? nf : 11;
    d->primed = 1;
}

/* ---- the shared I/O counters ------------------------------------------------ */

static void put(pl_snapshot *snap, uint32_t inst, uint32_t ix, int ok, uint64_t v)
{
    if (ok)
        pl_snap_set(snap, inst, ix, v);
}

void pl_disk_io_set(pl_snapshot *snap, uint32_t inst, uint32_t first, const uint64_t *v, int nf)
{
    uint64_t rdt = 0, wrt = 0, rwt = 0, iot = 0, wt = 0, ops = 0, rdb = 0, wrb = 0, rwb = 0, x = 0;
    /* an absurd count that overflows in bytes or 100 ns is left unset, not wrapped */
    int ok_rd = !__builtin_mul_overflow(v[DS_RDMS], MS_HNS, &rdt);
    int ok_wr = !__builtin_mul_overflow(v[DS_WRMS], MS_HNS, &wrt);
    int ok_rw = ok_rd && ok_wr && !__builtin_add_overflow(rdt, wrt, &rwt);
    int ok_io = !__builtin_mul_overflow(v[DS_IOMS], MS_HNS, &iot);
    int ok_wt = !__builtin_mul_overflow(v[DS_WMS], MS_HNS, &wt);
    int ok_ops = !__builtin_add_overflow(v[DS_RD], v[DS_WR], &ops);
    int ok_rdb = !__builtin_mul_overflow(v[DS_RDS], SECTOR, &rdb);
    int ok_wrb = !__builtin_mul_overflow(v[DS_WRS], SECTOR, &wrb);
    int ok_rwb = ok_rdb && ok_wrb && !__builtin_add_overflow(rdb, wrb, &rwb);
    uint32_t f = first;
    if (nf < 11)
        return;
    put(snap, inst, f + 0, ok_rw, rwt);          /* % Disk Time */
    put(snap, inst, f + 1, ok_wt, wt);           /* Avg. Disk Queue Length */
    put(snap, inst, f + 2, ok_rd, rdt);
    put(snap, inst, f + 3, ok_rd, rdt);
    put(snap, inst, f + 4, ok_wr, wrt);
    put(snap, inst, f + 5, ok_wr, wrt);
    put(snap, inst, f + 6, ok_rw && ok_ops, rwt);   /* sec/Transfer and its base */
    put(snap, inst, f + 7, ok_rw && ok_ops, ops);
    put(snap, inst, f + 8, ok_rd, rdt);
    put(snap, inst, f + 9, ok_rd, v[DS_RD]);
    put(snap, inst, f + 10, ok_wr, wrt);
    put(snap, inst, f + 11, ok_wr, v[DS_WR]);
    put(snap, inst, f + 12, ok_ops, ops);
    put(snap, inst, f + 13, 1, v[DS_RD]);
    put(snap, inst, f + 14, 1, v[DS_WR]);
    put(snap, inst, f + 15, ok_rwb, rwb);
    put(snap, inst, f + 16, ok_rdb, rdb);
    put(snap, inst, f + 17, ok_wrb, wrb);
    put(snap, inst, f + 18, ok_rwb && ok_ops, rwb);
    put(snap, inst, f + 19, ok_rwb && ok_ops, ops);
    put(snap, inst, f + 20, ok_rdb, rdb);
    put(snap, inst, f + 21, ok_rdb, v[DS_RD]);
    put(snap, inst, f + 22, ok_wrb, wrb);
    put(snap, inst, f + 23, ok_wrb, v[DS_WR]);
    put(snap, inst, f + 24, ok_io, iot);         /* % Idle Time, inverse */
    /* in flight is an unsigned print of a count that can dip below 0 */
    put(snap, inst, f + 25, 1, v[DS_INFL] > (1ull << 31) ? 0 : v[DS_INFL]);
    put(snap, inst, f + 26, ok_io, iot);         /* % Disk Utilization */
    put(snap, inst, f + 27, 1, v[DS_RDM]);
    put(snap, inst, f + 28, 1, v[DS_WRM]);
    if (nf >= 15) {
        int ok;
        put(snap, inst, f + 29, 1, v[DS_DC]);
        ok = !__builtin_mul_overflow(v[DS_DCS], SECTOR, &x);
        put(snap, inst, f + 30, ok, x);
        ok = !__builtin_mul_overflow(v[DS_DCMS], MS_HNS, &x);
        put(snap, inst, f + 31, ok, x);
        put(snap, inst, f + 32, 1, v[DS_DC]);
    }
    if (nf >= 17) {
        int ok = !__builtin_mul_overflow(v[DS_FLMS], MS_HNS, &x);
        put(snap, inst, f + 33, 1, v[DS_FL]);
        put(snap, inst, f + 34, ok, x);
        put(snap, inst, f + 35, 1, v[DS_FL]);
    }
}

/* ---- PhysicalDisk ------------------------------------------------------------ */

static const pl_counter_def counters[] = {
    PL_DISK_IO_COUNTERS(PL_DISK_CTR, "/proc/diskstats")
};

#define NC (sizeof counters / sizeof counters[0])
_Static_assert(NC == PL_DISK_NIO, "the I/O counters are the whole set");

typedef struct pdstate {
    pl_env *env;
    pl_diskstats ds;
} pdstate;

static void pd_close(void *state)
{
    pdstate *s = state;
    if (!s)
        return;
    pl_diskstats_free(&s->ds);
    pl_env_unref(s->env);
    free(s);
}

static int pd_open(pl_env *env, void **state)
{
    pdstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    if (pl_diskstats_init(&s->ds, env, 1, 0)) {
        pd_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static int add(pl_snapshot *snap, const pl_dsdev *x)
{
    return pl_snap_add(snap, x->name, x->major << 20 | x->minor);
}

static int pd_instances(void *state, pl_snapshot *snap)
{
    pdstate *s = state;
    int e;
    pl_snap_clear(snap);
    if ((e = pl_diskstats_update(&s->ds, s->env, 0, &snap->err_path)))
        return e;
    for (uint32_t i = 0; i < s->ds.ndev; i++)
        if (s->ds.dev[i].seen && s->ds.dev[i].physical && add(snap, &s->ds.dev[i]) < 0)
            return ENOMEM;
    return pl_snap_add(snap, "_Total", PL_DISK_TOTAL_ID) < 0 ? ENOMEM : 0;
}

static int pd_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pdstate *s = state;
    int e, ti;
    (void)wanted;            /* one file gives every counter */
    pl_snap_clear(snap);
    if ((e = pl_diskstats_update(&s->ds, s->env, 1, &snap->err_path)))
        return e;
    snap->time = pl_ksrc_time(s->ds.src);   /* the instant LogicalDisk shares */
    for (uint32_t i = 0; i < s->ds.ndev; i++) {
        pl_dsdev *x = &s->ds.dev[i];
        int k;
        if (!x->seen || !x->physical)
            continue;
        if ((k = add(snap, x)) < 0)
            return ENOMEM;
        x->want = 1;
        pl_disk_io_set(snap, (uint32_t)k, 0, x->v, x->nf);
    }
    pl_diskstats_total(&s->ds);
    if ((ti = pl_snap_add(snap, "_Total", PL_DISK_TOTAL_ID)) < 0)
        return ENOMEM;
    pl_disk_io_set(snap, (uint32_t)ti, 0, s->ds.total, s->ds.total_nf);
    return 0;
}

static const pl_provider_ops ops = { pd_open, pd_close, pd_instances, pd_collect, NULL };

const pl_counterset_def pl_physicaldisk_def = {
    /* UUIDv5(perflib namespace, "PhysicalDisk") */
    { 0xb10a5961, 0xb496, 0x5a61, { 0xbf, 0xf6, 0x38, 0x9c, 0x22, 0x2a, 0xfe, 0x60 } },
    "PhysicalDisk",
    "I/O of each whole physical disk (a /sys/block entry with a device link, so not "
    "partitions, loop, ram, zram, nor dm-* and md* volumes) and of all of them, from "
    "/proc/diskstats; instances are keyed by major:minor (id major << 20 | minor).",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 4000, NULL,
};
