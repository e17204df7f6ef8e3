/* Bcache Device: the devices of the cache sets, in one set with two kinds
 * of instance, as /sys/fs/bcache/<uuid> links them (bcache.rst "SYSFS -
 * BACKING DEVICE", "SYSFS - CACHE DEVICE"; drivers/md/bcache/super.c makes
 * the links, sysfs.c the attributes):
 *  - a backing device, link bdev<N> to its /sys/block/<dev>/bcache, is
 *    named by the bcache disk it makes (bcacheK, id K; the name of its dev
 *    link's target): dirty data, state as a code, writeback rate,
 *    sequential cutoff, io_errors and its stats_total hits, misses and
 *    bypasses (rates) with % Cache Hit Ratio;
 *  - a cache device, link cache<N> to its /sys/block/<dev>/bcache, is named
 *    by its block device (sdc, nvme0n1p1; id a hash of the name): io_errors,
 *    written and metadata_written (rates), priority_stats' Unused, Clean,
 *    Dirty and Metadata percentages and Average priority.
 * Flash-only volumes (volume<N> links) have none of these files and are
 * left out.  One set, not two, so that one query sees a set's whole I/O
 * path; a counter of the other kind has no value.  The kind, the set's
 * UUID and the link are text facts (kind, cache_set, link), with
 * cache_mode or cache_replacement_policy.  A link whose target does not have the shape
 * keeps "<uuid>/<link>" as its name; names go through the one rule of
 * unique names ("#1" after a taken one).  priority_stats makes the kernel
 * sort every bucket's priority under the bucket lock (node_exporter reads
 * it only when asked): it is read only when one of its counters is wanted.
 * The sets are listed at each collect (a readdir of /sys/fs/bcache and of
 * each set, their directories kept open and rewound); files stay open
 * while their link stays. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "pl_names.h"
#include "bcache.h"
#include "bcache_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { F_STATE, F_DIRTY, F_WBRATE, F_SEQ, F_IOERR, F_HITS, F_MISSES, F_BHITS, F_BMISSES,
       F_BYPASSED, F_WRITTEN, F_META, F_PRIO, NF = F_PRIO + PL_BCHP_N };
enum { S_ROW, NSRC };
#define FLD(f) PL_FIELD(S_ROW, f)
#define PRIO(k) PL_FIELD(S_ROW, F_PRIO + PL_BCHP_##k)

/* Backing devices' files, then cache devices'. */
enum { NBF = 10, NCF = 4, NFD = NBF };
static const pl_bch_file bfiles[NBF] = {
    { "state", PL_BCH_STATE, F_STATE, 1 },
    { "dirty_data", PL_BCH_HSIZE, F_DIRTY, 1 },
    { "writeback_rate", PL_BCH_HSIZE, F_WBRATE, 1 },
    { "sequential_cutoff", PL_BCH_HSIZE, F_SEQ, 1 },
    { "io_errors", PL_BCH_DEC, F_IOERR, 1 },
    { "stats_total/cache_hits", PL_BCH_DEC, F_HITS, 1 },
    { "stats_total/cache_misses", PL_BCH_DEC, F_MISSES, 1 },
    { "stats_total/cache_bypass_hits", PL_BCH_DEC, F_BHITS, 1 },
    { "stats_total/cache_bypass_misses", PL_BCH_DEC, F_BMISSES, 1 },
    { "stats_total/bypassed", PL_BCH_HSIZE, F_BYPASSED, 1 },
};
static const pl_bch_file cfiles[NCF] = {
    { "io_errors", PL_BCH_DEC, F_IOERR, 1 },
    { "written", PL_BCH_HSIZE, F_WRITTEN, 1 },
    { "metadata_written", PL_BCH_HSIZE, F_META, 1 },
    { "priority_stats", PL_BCH_PRIO, F_PRIO, 1 },
};

enum { C_STATE, C_DIRTY, C_WBRATE, C_SEQ, C_HITS, C_MISSES, C_BHITS, C_BMISSES, C_BYP,
       C_RATIO, C_RATIO_BASE, C_IOERR, C_WRITTEN, C_META, C_UNUSED, C_CLEAN, C_DIRTYB, C_METAB,
       C_AVG, NC };

#define APPROX " Printed by bch_hprint to a tenth of its unit: approximate."
#define BK "Backing device: "
#define CD "Cache device: "
#define PS " (priority_stats; read only when wanted)."

#define D_ROWS(R) \
    R(C_STATE, "State", BK "0 no cache, 1 clean, 2 dirty, 3 inconsistent (state).", RAW, \
      PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), FLD(F_STATE)) \
    R(C_DIRTY, "Dirty Data Bytes", BK "data in the cache not yet written back (dirty_data)." \
      APPROX, RAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), FLD(F_DIRTY)) \
    R(C_WBRATE, "Writeback Rate", BK "bytes per second writeback aims at now, 0 when it is " \
      "not running (writeback_rate)." APPROX, RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES_PER_SECOND, 1, GAUGE), FLD(F_WBRATE)) \
    R(C_SEQ, "Sequential Cutoff Bytes", BK "sequential I/O above this bypasses the cache " \
      "(sequential_cutoff)." APPROX, RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), \
      FLD(F_SEQ)) \
    R(C_HITS, "Cache Hits/sec", BK "reads and writes found in the cache per second " \
      "(stats_total/cache_hits).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), FLD(F_HITS)) \
    R(C_MISSES, "Cache Misses/sec", BK "reads and writes not found in the cache per second " \
      "(stats_total/cache_misses).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      FLD(F_MISSES)) \
    R(C_BHITS, "Cache Bypass Hits/sec", BK "I/O meant to bypass the cache that was in it, per " \
      "second (stats_total/cache_bypass_hits).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), FLD(F_BHITS)) \
    R(C_BMISSES, "Cache Bypass Misses/sec", BK "I/O meant to bypass the cache that was not in " \
      "it, per second (stats_total/cache_bypass_misses).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), FLD(F_BMISSES)) \
    R(C_BYP, "Bypassed Bytes/sec", BK "data that bypassed the cache per second " \
      "(stats_total/bypassed; the difference of two printed sizes)." APPROX, BULK, PL_NO_ID, \
      NOV, 0, PL_U(BYTES, 1, COUNTER), FLD(F_BYPASSED)) \
    R(C_RATIO, "% Cache Hit Ratio", BK "hits as a share of hits and misses since it was " \
      "attached (stats_total/cache_hits / (cache_hits + cache_misses)).", \
      PERF_LARGE_RAW_FRACTION, C_RATIO_BASE, NOV, 0, PL_U(NONE, 1, GAUGE), FLD(F_HITS)) \
    R(C_RATIO_BASE, "% Cache Hit Ratio Base", BK "cache_hits + cache_misses, the base of % " \
      "Cache Hit Ratio (stats_total).", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_SUM(S_ROW, F_HITS, F_MISSES)) \
    R(C_IOERR, "IO Errors", "I/O errors of the device (io_errors); a cache device's count " \
      "decays by the set's io_error_halflife.", RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      FLD(F_IOERR)) \
    R(C_WRITTEN, "Written Bytes/sec", CD "data written to the cache per second (written; the " \
      "difference of two printed sizes)." APPROX, BULK, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, COUNTER), FLD(F_WRITTEN)) \
    R(C_META, "Metadata Written Bytes/sec", CD "btree and other metadata written per second " \
      "(metadata_written; the difference of two printed sizes)." APPROX, BULK, PL_NO_ID, ADV, \
      0, PL_U(BYTES, 1, COUNTER), FLD(F_META)) \
    R(C_UNUSED, "% Unused Buckets", CD "buckets without data, in whole percent (Unused" PS, \
      RAW, PL_NO_ID, NOV, 0, PL_U(PERCENT, 1, GAUGE), PRIO(UNUSED)) \
    R(C_CLEAN, "% Clean Buckets", CD "buckets that can be reclaimed, in whole percent (Clean; " \
      "later kernels" PS, RAW, PL_NO_ID, ADV, 0, PL_U(PERCENT, 1, GAUGE), PRIO(CLEAN)) \
    R(C_DIRTYB, "% Dirty Buckets", CD "buckets with dirty data, in whole percent (Dirty; " \
      "later kernels" PS, RAW, PL_NO_ID, ADV, 0, PL_U(PERCENT, 1, GAUGE), PRIO(DIRTY)) \
    R(C_METAB, "% Metadata Buckets", CD "buckets of metadata, in whole percent (Metadata" PS, \
      RAW, PL_NO_ID, ADV, 0, PL_U(PERCENT, 1, GAUGE), PRIO(METADATA)) \
    R(C_AVG, "Average Priority", CD "average priority of the cached buckets: higher is used " \
      "more recently (Average" PS, RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PRIO(AVERAGE))

static const pl_counter_def counters[] = { D_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { D_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, pl_bch_row) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");
_Static_assert(NF <= 32, "a row holds 32 fields");

typedef struct bdev {
    char key[PL_BCH_KEY];    /* first: "<uuid>/bdev<N>" or "<uuid>/cache<N>" */
    int cache;               /* 1: a cache device */
    uint32_t id;
    char name[PL_BCH_KEY];
    char uname[PL_BCH_KEY + PL_NAMES_EXTRA];  /* unique, in this listing */
    int fd[NFD];
} bdev;

/* A set's directory, kept open and rewound for each listing of its links. */
typedef struct bset_dir {
    char key[PL_BCH_KEY];    /* first: the UUID */
    DIR *dir;
} bset_dir;

typedef struct d_state {
    pl_env *env;
    pl_classdir top;
    pl_bch_keyed sets;       /* of bset_dir */
    pl_bch_keyed devs;       /* of bdev */
    pl_names names;
} d_state;

/* The last component of the link rel's target before the suffix tail
 * (NULL: the last one), into out: 1, or 0 when the link cannot be read or
 * has not that shape. */
static int link_part(const pl_env *env, const char *rel, const char *tail, char *out, size_t size)
{
    char path[PL_BCH_KEY + 320], target[512];
    const char *b;
    ssize_t n;
    size_t len, tl = tail ? strlen(tail) : 0;
    snprintf(path, sizeof path, "%s%s", pl_env_root_prefix(env), rel);
    if ((n = readlink(path, target, sizeof target - 1)) <= 0)
        return 0;
    len = (size_t)n;
    target[len] = '\0';
    if (tail) {
        if (len <= tl + 1 || strcmp(target + len - tl, tail) || target[len - tl - 1] != '/')
            return 0;
        len -= tl + 1;
        target[len] = '\0';
    }
    b = strrchr(target, '/');
    b = b ? b + 1 : target;
    if (!*b || strlen(b) >= size)
        return 0;
    memcpy(out, b, strlen(b) + 1);
    return 1;
}

/* A new link: its kind, and its name from where it points (super.c:
 * bcache_device_link makes bdev<N> and cache<N>; cached_dev_run the
 * backing device's dev link to its bcache<K> disk). */
static void dev_init(void *rec, void *ctx)
{
    bdev *d = rec;
    const pl_env *env = ctx;
    const char *link = strchr(d->key, '/') + 1;
    char rel[PL_BCH_KEY + 32];
    unsigned k;
    for (int i = 0; i < NFD; i++)
        d->fd[i] = -1;
    d->cache = strncmp(link, "cache", 5) == 0;
    if (d->cache) {
        snprintf(rel, sizeof rel, PL_BCH_SETS "/%s", d->key);
        if (link_part(env, rel, "bcache", d->name, sizeof d->name)) {
            pl_name_sanitize(d->name);
            d->id = pl_bch_name_id(d->name);
            return;
        }
    } else {
        snprintf(rel, sizeof rel, PL_BCH_SETS "/%s/dev", d->key);
        if (link_part(env, rel, NULL, d->name, sizeof d->name) &&
            pl_entry_number(d->name, "bcache", 1u << 20, &k)) {
            d->id = k;
            return;
        }
    }
    memcpy(d->name, d->key, sizeof d->name);      /* no such target: the link's own name */
    d->id = pl_bch_name_id(d->name);
}

static void dev_close(void *rec)
{
    bdev *d = rec;
    for (int i = 0; i < NFD; i++) {
        if (d->fd[i] >= 0)
            close(d->fd[i]);
        d->fd[i] = -1;
    }
}

static void dir_init(void *rec, void *ctx)
{
    (void)ctx;
    ((bset_dir *)rec)->dir = NULL;
}

static void dir_close(void *rec)
{
    bset_dir *b = rec;
    if (b->dir)
        closedir(b->dir);
    b->dir = NULL;
}

static int d_open(pl_env *env, void **state)
{
    d_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_bch_keyed_init(&s->sets, sizeof(bset_dir));
    pl_bch_keyed_init(&s->devs, sizeof(bdev));
    pl_names_init(&s->names);
    *state = s;
    return 0;
}

static void d_close(void *state)
{
    d_state *s = state;
    if (!s)
        return;
    pl_bch_keyed_free(&s->devs, dev_close);
    pl_bch_keyed_free(&s->sets, dir_close);
    pl_names_free(&s->names);
    pl_classdir_close(&s->top);
    pl_env_unref(s->env);
    free(s);
}

/* The bdev<N> and cache<N> links of set b, as keys of s->devs; its
 * directory is opened once and rewound after (no allocation). */
static int list_links(d_state *s, bset_dir *b)
{
    char rel[PL_BCH_KEY + 32], key[PL_BCH_KEY + 256];    /* a longer key is refused */
    struct dirent *de;
    unsigned n;
    int fd, e = 0;
    if (b->dir) {
        rewinddir(b->dir);
    } else {
        snprintf(rel, sizeof rel, PL_BCH_SETS "/%s", b->key);
        if ((fd = pl_open_rel(s->env, rel)) < 0)
            return 0;                              /* gone meanwhile */
        if (!(b->dir = fdopendir(fd))) {
            close(fd);
            return errno == ENOMEM ? ENOMEM : 0;
        }
    }
    while (!e && (de = readdir(b->dir)) != NULL)
        if (pl_entry_number(de->d_name, "bdev", 1u << 20, &n) ||
            pl_entry_number(de->d_name, "cache", 1u << 20, &n)) {
            snprintf(key, sizeof key, "%s/%s", b->key, de->d_name);
            e = pl_bch_key_add(&s->devs, key);
        }
    return e;
}

static int list_devs(d_state *s, pl_snapshot *snap)
{
    int e;
    if (snap)
        pl_snap_clear(snap);
    if ((e = pl_bch_list_sets(&s->sets, &s->top, s->env)) != 0 ||
        (e = pl_bch_keyed_sync(&s->sets, dir_init, NULL, dir_close)) != 0)
        return e;
    for (uint32_t i = 0; i < s->sets.n; i++)
        if ((e = list_links(s, (bset_dir *)s->sets.v + i)) != 0)
            return e;
    if ((e = pl_bch_keyed_sync(&s->devs, dev_init, s->env, dev_close)) != 0 ||
        (e = pl_names_begin(&s->names, s->devs.n)) != 0)
        return e;
    for (uint32_t i = 0; i < s->devs.n; i++) {
        bdev *d = (bdev *)s->devs.v + i;
        if (!pl_names_next(&s->names, d->name, strlen(d->name), d->uname) ||
            (snap && pl_snap_add(snap, d->uname, d->id) < 0))
            return ENOMEM;
    }
    return 0;
}

static int d_instances(void *state, pl_snapshot *snap)
{
    return list_devs(state, snap);
}

static int d_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    d_state *s = state;
    uint32_t need = pl_bch_fields(counters, feeds, NC, wanted);
    char dir[PL_BCH_KEY + 32];
    pl_feed_in in;
    pl_bch_row r;
    int e;
    if ((e = list_devs(s, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->devs.n; i++) {
        bdev *d = (bdev *)s->devs.v + i;
        snprintf(dir, sizeof dir, PL_BCH_SETS "/%s", d->key);
        if (d->cache)
            pl_bch_read(s->env, dir, cfiles, NCF, d->fd, need, feeds, NC, i, &r, snap);
        else
            pl_bch_read(s->env, dir, bfiles, NBF, d->fd, need, feeds, NC, i, &r, snap);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

/* "a [b] c" -> "b" into out; 0 when there is no bracketed word. */
static int selected(const char *buf, char *out, size_t size)
{
    const char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
    if (!b || b == a + 1 || (size_t)(b - a - 1) >= size)
        return 0;
    memcpy(out, a + 1, (size_t)(b - a - 1));
    out[b - a - 1] = '\0';
    return 1;
}

static int d_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    d_state *s = state;
    const char *mode;
    char rel[PL_BCH_KEY + 48], buf[256], val[256], esc[256];
    const bdev *d = NULL;
    int e;
    if (!instance)
        return ENOENT;
    if ((e = list_devs(s, NULL)) != 0)
        return e;
    for (uint32_t i = 0; i < s->devs.n && !d; i++)
        if (!strcmp(((const bdev *)s->devs.v)[i].uname, instance))
            d = (const bdev *)s->devs.v + i;
    if (!d)
        return ENOENT;
    memcpy(val, d->key, strchr(d->key, '/') - d->key);
    val[strchr(d->key, '/') - d->key] = '\0';
    if (emit(ud, "kind", d->cache ? "cache" : "backing") || emit(ud, "cache_set", val) ||
        emit(ud, "link", strchr(d->key, '/') + 1))
        return 0;
    mode = d->cache ? "cache_replacement_policy" : "cache_mode";
    snprintf(rel, sizeof rel, PL_BCH_SETS "/%s/%s", d->key, mode);
    if (pl_read_text(s->env, rel, buf, sizeof buf) == 0 && selected(buf, val, sizeof val)) {
        pl_fact_escape(val, esc, sizeof esc);
        emit(ud, mode, esc);
    }
    return 0;
}

static const pl_provider_ops d_ops = { d_open, d_close, d_instances, d_collect, NULL, d_info };

const pl_counterset_def pl_bcache_dev_def = {
    /* UUIDv5(perflib namespace, "Bcache Device") */
    { 0x9836a97d, 0xe8a7, 0x53c8, { 0xa3, 0x18, 0xb1, 0xd2, 0xa7, 0x4c, 0xe4, 0x96 } },
    "Bcache Device",
    "bcache backing devices (named by their bcacheN disk: state, dirty data, writeback rate, "
    "sequential cutoff, hits, misses, bypasses, % Cache Hit Ratio) and cache devices (named "
    "by their block device: I/O errors, written and metadata written, priority_stats' bucket "
    "shares) of /sys/fs/bcache/<uuid>; kind, set and link as text facts.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &d_ops, 66000, NULL,
};
