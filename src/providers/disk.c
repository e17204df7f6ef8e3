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
#include <stdio.h>
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

/* loop, ram and zram are memory or files, not disks (a loop device may
 * have a device link); ".": never a sysfs name. */
static int not_a_disk(const char *name)
{
    return strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0 ||
           strncmp(name, "zram", 4) == 0 || name[0] == '.';
}

/* Appends n bytes of name to rel at *at, with sysfs's '!' for a '/' in a
 * disk name (cciss/c0d0). */
static void put_name(char *rel, size_t *at, const char *name, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rel[(*at)++] = name[i] == '/' ? '!' : name[i];
}

/* rel = [the first k bytes of name "/"] name suffix, below sys/block.  0 if
 * it does not fit. */
static int sys_rel(char *rel, size_t size, const char *name, size_t k, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix), at = 0;
    if (k + 1 + n + m + 1 > size)
        return 0;
    if (k) {
        put_name(rel, &at, name, k);
        rel[at++] = '/';
    }
    put_name(rel, &at, name, n);
    memcpy(rel + at, suffix, m + 1);
    return 1;
}

static int exists(const pl_diskstats *d, const char *rel)
{
    struct stat st;
    return fstatat(d->blockfd, rel, &st, 0) == 0;
}

/* A small sysfs file below sys/block, trailing blanks and newline cut: its
 * length, or -1 when it cannot be read. */
static int read_rel(int dirfd, const char *rel, char *buf, size_t size)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
    ssize_t r;
    if (fd < 0)
        return -1;
    do
        r = read(fd, buf, size - 1);
    while (r < 0 && errno == EINTR);
    close(fd);
    if (r < 0)
        return -1;
    while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' ' || buf[r - 1] == '\t'))
        r--;
    buf[r] = '\0';
    return (int)r;
}

/* The disk a partition belongs to: the longest leading part of its name
 * with sys/block/<disk>/<name>/partition (vdb1 on vdb, nvme0n1p2 on
 * nvme0n1, md0p1 on md0).  Its length, 0 for none. */
static size_t parent_of(const pl_diskstats *d, const char *name)
{
    char rel[128];
    for (size_t k = strlen(name) - 1; k > 0; k--)
        if (sys_rel(rel, sizeof rel, name, k, "/partition") && exists(d, rel))
            return k;
    return 0;
}

/* What the set makes of device x (PL_DS_*, disk.h), its instance name and
 * whether it spins.  Read once per device: a dm volume renamed later keeps
 * the name it had when it appeared. */
static void classify(pl_diskstats *d, pl_dsdev *x)
{
    char rel[128], buf[160];
    const char *name = x->name;
    x->physical = PL_DS_NONE;
    x->rotational = -1;
    strcpy(x->label, name);
    if (!d->classify || not_a_disk(name))
        return;
    if (d->classify == PL_DS_PARTS) {
        size_t k = parent_of(d, name);
        memcpy(buf, name, k);
        buf[k] = '\0';
        x->physical = k && !not_a_disk(buf) ? PL_DS_PART : PL_DS_NONE;
        return;
    }
    /* partitions have no sys/block entry; dm-N and mdN have one but no device link */
    if (sys_rel(rel, sizeof rel, name, 0, "/device") && exists(d, rel))
        x->physical = PL_DS_WHOLE;
    else if (strncmp(name, "dm-", 3) == 0 && sys_rel(rel, sizeof rel, name, 0, "/dm") &&
             exists(d, rel)) {
        x->physical = PL_DS_STACKED;
        /* "dm-0 vg-root", as Windows names a disk "0 C:": the kernel's name
         * and the /dev/mapper one users know */
        char dm[128];        /* DM_NAME_LEN; with the name, fits in label */
        if (sys_rel(rel, sizeof rel, name, 0, "/dm/name") &&
            read_rel(d->blockfd, rel, dm, sizeof dm) > 0) {
            pl_name_sanitize(dm);
            snprintf(x->label, sizeof x->label, "%s %s", x->name, dm);
        }
    } else if (strncmp(name, "md", 2) == 0 && sys_rel(rel, sizeof rel, name, 0, "/md") &&
               exists(d, rel)) {
        x->physical = PL_DS_STACKED;
    }
    if (x->physical && sys_rel(rel, sizeof rel, name, 0, "/queue/rotational") &&
        read_rel(d->blockfd, rel, buf, sizeof buf) == 1 && (buf[0] == '0' || buf[0] == '1'))
        x->rotational = buf[0] - '0';
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
        memcpy(x->pub.v, raw, sizeof x->pub.v);
    } else {
        uint64_t ms[sizeof ms_field];
        for (size_t i = 0; i < sizeof ms_field; i++)
            ms[i] = x->pub.v[ms_field[i]];
        memcpy(x->pub.v, raw, sizeof x->pub.v);
        for (size_t i = 0; i < sizeof ms_field; i++) {
            int k = ms_field[i];
            /* a value over 32 bits means a kernel with wide fields: taken as is */
            if (raw[k] <= UINT32_MAX && x->raw[k] <= UINT32_MAX)
                x->pub.v[k] = ms[i] + (uint32_t)(raw[k] - x->raw[k]);
        }
    }
    memcpy(x->raw, raw, sizeof x->raw);
    x->pub.nf = nf;
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
        classify(d, x);
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
        classify(d, x);
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
        /* PhysicalDisk publishes only the disks it lists */
        if (values && (x->physical || !d->classify)) {
            if (row->nf)
                publish(d, x, row->raw, row->nf);
            else
                x->pub.nf = 0;   /* malformed: values unset, last good ones kept */
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
    memcpy(d->total.v, d->adj, sizeof d->total.v);
    d->total.v[DS_INFL] = 0;
    for (uint32_t i = 0; i < d->ndev; i++) {
        pl_dsdev *x = &d->dev[i];
        if (!x->seen)
            continue;
        if (x->member && !x->want) {
            add_to(d->adj, x->tv, 1);      /* left (unmounted): keep what it counted */
            add_to(d->total.v, x->tv, 1);
            x->member = 0;
        }
        if (!x->want)
            continue;
        if (x->primed && !x->member) {
            /* joined after the first total: only its growth from now on */
            if (d->primed && d->join_offset) {
                add_to(d->adj, x->pub.v, -1);
                add_to(d->total.v, x->pub.v, -1);
            }
            x->member = 1;
        }
        if (x->pub.nf < nf)
            nf = x->pub.nf;
        if (x->primed) {
            memcpy(x->tv, x->pub.v, sizeof x->tv);
            add_to(d->total.v, x->pub.v, 1);
            /* clamped as each device's own value is (pl_disk_infl) */
            d->total.v[DS_INFL] += x->pub.v[DS_INFL] > (1ull << 31) ? 0 : x->pub.v[DS_INFL];
        }
        any = 1;
        x->want = 0;
    }
    d->total.nf = any ? nf : 11;
    d->primed = 1;
}

/* ---- the shared I/O rows' derives ---------------------------------------- */

/* Field f of the handed row (pl_feed_field's rule for PL_DS_SRC, read in
 * place: these run 30 times per device and collect). */
static inline int fld(pl_feed_in *in, unsigned f, uint64_t *v)
{
    const pl_dsvals *d = in->data[PL_DS_ROW];
    if (!d || f >= (unsigned)d->nf)
        return 0;
    *v = d->v[f];
    return 1;
}

/* field f times k */
static int times(pl_feed_in *in, unsigned f, uint64_t k, uint64_t *v)
{
    uint64_t x;
    return fld(in, f, &x) && pl_mul_ok(x, k, v);
}

/* f x k + g x k */
static int sum_times(pl_feed_in *in, unsigned f, unsigned g, uint64_t k, uint64_t *v)
{
    uint64_t a, b;
    return times(in, f, k, &a) && times(in, g, k, &b) && pl_add_ok(a, b, v);
}

static int rw_ops(pl_feed_in *in, uint64_t *v)
{
    uint64_t a, b;
    return fld(in, DS_RD, &a) && fld(in, DS_WR, &b) && pl_add_ok(a, b, v);
}

int pl_disk_rwt(pl_feed_in *in, uint64_t *v) { return sum_times(in, DS_RDMS, DS_WRMS, MS_HNS, v); }
int pl_disk_wt(pl_feed_in *in, uint64_t *v) { return times(in, DS_WMS, MS_HNS, v); }
int pl_disk_rdt(pl_feed_in *in, uint64_t *v) { return times(in, DS_RDMS, MS_HNS, v); }
int pl_disk_wrt(pl_feed_in *in, uint64_t *v) { return times(in, DS_WRMS, MS_HNS, v); }
int pl_disk_rwb(pl_feed_in *in, uint64_t *v) { return sum_times(in, DS_RDS, DS_WRS, SECTOR, v); }
int pl_disk_rdb(pl_feed_in *in, uint64_t *v) { return times(in, DS_RDS, SECTOR, v); }
int pl_disk_wrb(pl_feed_in *in, uint64_t *v) { return times(in, DS_WRS, SECTOR, v); }
int pl_disk_iot(pl_feed_in *in, uint64_t *v) { return times(in, DS_IOMS, MS_HNS, v); }
int pl_disk_dcb(pl_feed_in *in, uint64_t *v) { return times(in, DS_DCS, SECTOR, v); }
int pl_disk_dct(pl_feed_in *in, uint64_t *v) { return times(in, DS_DCMS, MS_HNS, v); }
int pl_disk_flt(pl_feed_in *in, uint64_t *v) { return times(in, DS_FLMS, MS_HNS, v); }

static int rd(pl_feed_in *in, uint64_t *v) { return fld(in, DS_RD, v); }
static int wr(pl_feed_in *in, uint64_t *v) { return fld(in, DS_WR, v); }

/* An average and its base: each only when the other is known too. */
static int both(pl_feed_in *in, pl_derive_fn *other, pl_derive_fn *value, uint64_t *v)
{
    uint64_t o;
    return other(in, &o) && value(in, v);
}

int pl_disk_rwt_x(pl_feed_in *in, uint64_t *v) { return both(in, rw_ops, pl_disk_rwt, v); }
int pl_disk_ops_t(pl_feed_in *in, uint64_t *v) { return both(in, pl_disk_rwt, rw_ops, v); }
int pl_disk_rd_t(pl_feed_in *in, uint64_t *v) { return both(in, pl_disk_rdt, rd, v); }
int pl_disk_wr_t(pl_feed_in *in, uint64_t *v) { return both(in, pl_disk_wrt, wr, v); }
int pl_disk_rwb_x(pl_feed_in *in, uint64_t *v) { return both(in, rw_ops, pl_disk_rwb, v); }
int pl_disk_ops_b(pl_feed_in *in, uint64_t *v) { return both(in, pl_disk_rwb, rw_ops, v); }
int pl_disk_rd_b(pl_feed_in *in, uint64_t *v) { return both(in, pl_disk_rdb, rd, v); }
int pl_disk_wr_b(pl_feed_in *in, uint64_t *v) { return both(in, pl_disk_wrb, wr, v); }

/* in flight is an unsigned print of a count that can dip below 0 */
int pl_disk_infl(pl_feed_in *in, uint64_t *v)
{
    if (!fld(in, DS_INFL, v))
        return 0;
    if (*v > (1ull << 31))
        *v = 0;
    return 1;
}

/* ---- PhysicalDisk and Disk Partition ------------------------------------------- */

/* PhysicalDisk's rows: the I/O rows, then what the disk is.  Disk Partition
 * has the I/O rows alone (the first PL_DISK_NIO of these). */
#define PD_ROWS(R) \
    PL_DISK_IO_ROWS(R, "/proc/diskstats") \
    R(42, "Rotational", "1 for a spinning disk, 0 for one without seek time (SSD, NVMe, " \
      "most virtual disks), as the kernel says in /sys/block/X/queue/rotational; unset for " \
      "_Total and where the file is missing.", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, \
      PERF_DETAIL_ADVANCED, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND())

static const pl_counter_def counters[] = { PD_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { PD_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[] = { PL_DS_SRC };

#define NC (sizeof counters / sizeof counters[0])
enum { C_ROTATIONAL = PL_DISK_NIO };
_Static_assert(NC == PL_DISK_NIO + 1, "the I/O counters and Rotational are the whole set");

typedef struct pdstate {
    pl_env *env;
    int kind;                /* PL_DS_DISKS or PL_DS_PARTS */
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

static int open_kind(pl_env *env, void **state, int kind)
{
    pdstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->kind = kind;
    if (pl_diskstats_init(&s->ds, env, kind, 0)) {
        pd_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static int pd_open(pl_env *env, void **state) { return open_kind(env, state, PL_DS_DISKS); }
static int pt_open(pl_env *env, void **state) { return open_kind(env, state, PL_DS_PARTS); }

static int add(pl_snapshot *snap, const pl_dsdev *x)
{
    return pl_snap_add(snap, x->label, x->major << 20 | x->minor);
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
    uint32_t nc = snap->cs->ncounters;
    pl_feed_in in;
    int e, ti;
    pl_snap_clear(snap);
    if ((e = pl_diskstats_update(&s->ds, s->env, 1, &snap->err_path)))
        return e;
    snap->time = pl_ksrc_time(s->ds.src);   /* the instant LogicalDisk shares */
    pl_feed_begin(&in, srcs, 1, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->ds.ndev; i++) {
        pl_dsdev *x = &s->ds.dev[i];
        int k;
        if (!x->seen || !x->physical)
            continue;
        if ((k = add(snap, x)) < 0)
            return ENOMEM;
        /* dm and md volumes stay out of _Total: their I/O is their disks' */
        x->want = x->physical != PL_DS_STACKED;
        pl_feed_put(&in, PL_DS_ROW, &x->pub);
        pl_feed_walk(&in, (uint32_t)k, feeds, PL_DISK_NIO, wanted);
        if (nc > C_ROTATIONAL && x->rotational >= 0 && (!wanted || wanted[C_ROTATIONAL]))
            pl_snap_set(snap, (uint32_t)k, C_ROTATIONAL, (uint64_t)x->rotational);
    }
    pl_diskstats_total(&s->ds);
    if ((ti = pl_snap_add(snap, "_Total", PL_DISK_TOTAL_ID)) < 0)
        return ENOMEM;
    pl_feed_put(&in, PL_DS_ROW, &s->ds.total);
    pl_feed_walk(&in, (uint32_t)ti, feeds, PL_DISK_NIO, wanted);
    return 0;
}

/* ---- text facts (the info op) ------------------------------------------------ */

typedef struct fact {
    const char *key, *file;  /* file below sys/block/<name> */
} fact;

/* The first file of a key that has a value gives it; SCSI/ATA and virtio
 * keep model, vendor and rev in device/, NVMe's device/ is the controller
 * (model, serial, firmware_rev) and its namespace has wwid itself. */
static const fact disk_facts[] = {
    { "model", "/device/model" },        { "vendor", "/device/vendor" },
    { "serial", "/device/serial" },      { "serial", "/serial" },
    { "wwn", "/wwid" },                  { "wwn", "/device/wwid" },
    { "firmware", "/device/firmware_rev" }, { "firmware", "/device/rev" },
    { "dm_name", "/dm/name" },           { "dm_uuid", "/dm/uuid" },
    { "md_level", "/md/level" },
};

/* Emits the facts of name (below sys/block/<disk k bytes of name>/ when k). */
static int emit_facts(const pl_diskstats *d, const char *name, size_t k, const fact *f, size_t n,
                      pl_info_fn emit, void *ud)
{
    char rel[160], raw[256], val[1024];
    const char *done = NULL;
    for (size_t i = 0; i < n; i++) {
        if (done && strcmp(done, f[i].key) == 0)
            continue;        /* an earlier file gave this key */
        if (!sys_rel(rel, sizeof rel, name, k, f[i].file) || read_rel(d->blockfd, rel, raw, sizeof raw) <= 0)
            continue;
        pl_fact_escape(raw, val, sizeof val);
        if (emit(ud, f[i].key, val))
            return 0;
        done = f[i].key;
    }
    return 0;
}

static const fact part_facts[] = { { "partition", "/partition" }, { "start", "/start" } };

static int pd_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    pdstate *s = state;
    const char *err;
    const pl_dsdev *x = NULL;
    int e;
    if (!instance)
        return ENOENT;
    if ((e = pl_diskstats_update(&s->ds, s->env, 0, &err)))
        return e;
    for (uint32_t i = 0; i < s->ds.ndev && !x; i++)
        if (s->ds.dev[i].seen && s->ds.dev[i].physical && strcmp(s->ds.dev[i].label, instance) == 0)
            x = &s->ds.dev[i];
    if (!x)
        return ENOENT;
    if (s->kind == PL_DS_PARTS) {
        char disk[sizeof x->name * 4];
        size_t k = parent_of(&s->ds, x->name);
        char parent[sizeof x->name];
        memcpy(parent, x->name, k);
        parent[k] = '\0';
        pl_fact_escape(parent, disk, sizeof disk);
        if (emit(ud, "disk", disk))
            return 0;
        return emit_facts(&s->ds, x->name, k, part_facts, sizeof part_facts / sizeof *part_facts,
                          emit, ud);
    }
    return emit_facts(&s->ds, x->name, 0, disk_facts, sizeof disk_facts / sizeof *disk_facts, emit, ud);
}

static const pl_provider_ops ops = { pd_open, pd_close, pd_instances, pd_collect, NULL, pd_info };
static const pl_provider_ops part_ops = { pt_open, pd_close, pd_instances, pd_collect, NULL, pd_info };

const pl_counterset_def pl_physicaldisk_def = {
    /* UUIDv5(perflib namespace, "PhysicalDisk") */
    { 0xb10a5961, 0xb496, 0x5a61, { 0xbf, 0xf6, 0x38, 0x9c, 0x22, 0x2a, 0xfe, 0x60 } },
    "PhysicalDisk",
    "I/O of each whole disk (a /sys/block entry with a device link, so not partitions, "
    "loop, ram nor zram) and of each device-mapper and md volume (dm-N named with its "
    "/dev/mapper name, \"dm-0 vg-root\"; mdN), from /proc/diskstats; _Total sums the whole "
    "disks only, since a volume's I/O reaches its disks too.  Instances are keyed by "
    "major:minor (id major << 20 | minor); model, vendor, serial, wwn and firmware are "
    "text facts.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 4000, NULL,
};

const pl_counterset_def pl_diskpartition_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x91e58600, 0x1a03, 0x5d0f, { 0xa5, 0x44, 0x18, 0xbb, 0x15, 0xe4, 0xc4, 0x2a } },
    "Disk Partition",
    "I/O of each partition of a disk (sys/block/<disk>/<name>/partition; not of loop, ram "
    "or zram devices), from the /proc/diskstats read PhysicalDisk uses, and of all of "
    "them in _Total; instances are keyed by major:minor (id major << 20 | minor), the "
    "disk, partition number and start sector are text facts.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, PL_DISK_NIO, counters, &part_ops, 37000, NULL,
};
