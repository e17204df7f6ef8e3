/* Bcache (one instance per cache set, named by its UUID as the directory
 * /sys/fs/bcache/<uuid> is): node_exporter's bcache collector.  The set's
 * own attributes, internal/ and stats_total/ (Documentation/admin-guide/
 * bcache.rst "SYSFS - CACHE SET", "SYSFS - CACHE SET INTERNAL", "SYSFS -
 * CACHE STATS"; drivers/md/bcache/sysfs.c, __bch_cache_set_show, and
 * stats.c, bch_stats_show).  Sizes are bch_hprint texts, approximate to a
 * tenth of their unit (bcache.h); hit, miss and bypass counts are exact.
 * % Cache Hit Ratio is computed from the totals (the kernel's own
 * cache_hit_ratio file is a whole percent).  The documented dirty_data of a
 * set is not in the kernel's bch_cache_set_files, so it is not read.  A
 * missing attribute leaves its counter unset (btree_read_average_duration_us
 * and cache_readaheads are not in every kernel); no /sys/fs/bcache: zero
 * instances.  Each file is kept open and read with one pread, only when a
 * wanted counter needs it. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
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

/* Row fields, one per file (the order of files[]). */
enum { F_AKS, F_BTC, F_AVAIL, F_CONG, F_ROOT, F_DEPTH, F_BUCKET, F_BLOCK, F_JOURNAL, F_NODES,
       F_USED, F_READ_US, F_RACES, F_HITS, F_MISSES, F_BHITS, F_BMISSES, F_COLL, F_RA,
       F_BYPASSED, NF };
enum { S_ROW, NSRC };
#define FLD(f) PL_FIELD(S_ROW, f)

static const pl_bch_file files[NF] = {
    { "average_key_size", PL_BCH_HSIZE, F_AKS, 512 },
    { "btree_cache_size", PL_BCH_HSIZE, F_BTC, 1 },
    { "cache_available_percent", PL_BCH_DEC, F_AVAIL, 1 },
    { "congested", PL_BCH_HSIZE, F_CONG, 1 },
    { "root_usage_percent", PL_BCH_DEC, F_ROOT, 1 },
    { "tree_depth", PL_BCH_DEC, F_DEPTH, 1 },
    { "bucket_size", PL_BCH_HSIZE, F_BUCKET, 1 },
    { "block_size", PL_BCH_HSIZE, F_BLOCK, 1 },
    { "internal/active_journal_entries", PL_BCH_DEC, F_JOURNAL, 1 },
    { "internal/btree_nodes", PL_BCH_DEC, F_NODES, 1 },
    { "internal/btree_used_percent", PL_BCH_DEC, F_USED, 1 },
    { "internal/btree_read_average_duration_us", PL_BCH_DEC, F_READ_US, 1 },
    { "internal/cache_read_races", PL_BCH_DEC, F_RACES, 1 },
    { "stats_total/cache_hits", PL_BCH_DEC, F_HITS, 1 },
    { "stats_total/cache_misses", PL_BCH_DEC, F_MISSES, 1 },
    { "stats_total/cache_bypass_hits", PL_BCH_DEC, F_BHITS, 1 },
    { "stats_total/cache_bypass_misses", PL_BCH_DEC, F_BMISSES, 1 },
    { "stats_total/cache_miss_collisions", PL_BCH_DEC, F_COLL, 1 },
    { "stats_total/cache_readaheads", PL_BCH_DEC, F_RA, 1 },
    { "stats_total/bypassed", PL_BCH_HSIZE, F_BYPASSED, 1 },
};

enum { C_AKS, C_BTC, C_AVAIL, C_CONG, C_ROOT, C_DEPTH, C_BUCKET, C_BLOCK, C_JOURNAL, C_NODES,
       C_USED, C_READ, C_RACES, C_HITS, C_HITS_S, C_MISSES, C_MISSES_S, C_BHITS, C_BHITS_S,
       C_BMISSES, C_BMISSES_S, C_COLL, C_COLL_S, C_RA, C_RA_S, C_BYP, C_BYP_S, C_RATIO,
       C_RATIO_BASE, NC };

#define APPROX " Printed by bch_hprint to a tenth of its unit: approximate."
#define TOT "(/sys/fs/bcache/<uuid>/stats_total/"

#define B_ROWS(R) \
    R(C_AKS, "Average Key Size Bytes", "Average data per btree key, as of the last garbage " \
      "collection (average_key_size, in 512-byte sectors, x 512)." APPROX, RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), FLD(F_AKS)) \
    R(C_BTC, "Btree Cache Bytes", "Memory the btree node cache uses (btree_cache_size)." \
      APPROX, RAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), FLD(F_BTC)) \
    R(C_AVAIL, "% Cache Available", "Share of the cache without dirty data, usable for " \
      "writeback (cache_available_percent: 100 - in use).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(PERCENT, 1, GAUGE), FLD(F_AVAIL)) \
    R(C_CONG, "Congested Threshold Bytes", "Sequential I/O above this bypasses the cache " \
      "because the cache device is congested; 0 when it is not (congested, " \
      "bch_get_congested x 512)." APPROX, RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), \
      FLD(F_CONG)) \
    R(C_ROOT, "% Root Usage", "Share of the root btree node in use; near 100 it splits " \
      "(root_usage_percent).", RAW, PL_NO_ID, ADV, 0, PL_U(PERCENT, 1, GAUGE), FLD(F_ROOT)) \
    R(C_DEPTH, "Tree Depth", "Depth of the btree, 0 for a single node (tree_depth).", RAW, \
      PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), FLD(F_DEPTH)) \
    R(C_BUCKET, "Bucket Size Bytes", "Size of the set's buckets (bucket_size)." APPROX, RAW, \
      PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), FLD(F_BUCKET)) \
    R(C_BLOCK, "Block Size Bytes", "Block size of the cache devices (block_size)." APPROX, \
      RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), FLD(F_BLOCK)) \
    R(C_JOURNAL, "Active Journal Entries", "Journal entries newer than the index " \
      "(internal/active_journal_entries).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      FLD(F_JOURNAL)) \
    R(C_NODES, "Btree Nodes", "Nodes of the btree, as of the last garbage collection " \
      "(internal/btree_nodes).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), FLD(F_NODES)) \
    R(C_USED, "% Btree Used", "Average share of the btree nodes in use " \
      "(internal/btree_used_percent).", RAW, PL_NO_ID, ADV, 0, PL_U(PERCENT, 1, GAUGE), \
      FLD(F_USED)) \
    R(C_READ, "Btree Read Average Duration", "Moving average of a btree node read, in " \
      "microseconds (internal/btree_read_average_duration_us).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(SECONDS, 1e-6, GAUGE), FLD(F_READ_US)) \
    R(C_RACES, "Cache Read Races/sec", "Reads from the cache whose bucket was reused meanwhile, " \
      "read again from the backing device (internal/cache_read_races).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), FLD(F_RACES)) \
    R(C_HITS, "Cache Hits", "Reads and writes found in the cache since the set started " TOT \
      "cache_hits).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), FLD(F_HITS)) \
    R(C_HITS_S, "Cache Hits/sec", "Reads and writes found in the cache per second " TOT \
      "cache_hits).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), FLD(F_HITS)) \
    R(C_MISSES, "Cache Misses", "Reads and writes not found in the cache since the set " \
      "started " TOT "cache_misses).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      FLD(F_MISSES)) \
    R(C_MISSES_S, "Cache Misses/sec", "Reads and writes not found in the cache per second " \
      TOT "cache_misses).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), FLD(F_MISSES)) \
    R(C_BHITS, "Cache Bypass Hits", "I/O meant to bypass the cache that was in it, since the " \
      "set started " TOT "cache_bypass_hits).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      FLD(F_BHITS)) \
    R(C_BHITS_S, "Cache Bypass Hits/sec", "I/O meant to bypass the cache that was in it, per " \
      "second " TOT "cache_bypass_hits).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      FLD(F_BHITS)) \
    R(C_BMISSES, "Cache Bypass Misses", "I/O meant to bypass the cache that was not in it, " \
      "since the set started " TOT "cache_bypass_misses).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), FLD(F_BMISSES)) \
    R(C_BMISSES_S, "Cache Bypass Misses/sec", "I/O meant to bypass the cache that was not in " \
      "it, per second " TOT "cache_bypass_misses).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), FLD(F_BMISSES)) \
    R(C_COLL, "Cache Miss Collisions", "Misses whose data another request put in the cache " \
      "meanwhile, since the set started " TOT "cache_miss_collisions).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), FLD(F_COLL)) \
    R(C_COLL_S, "Cache Miss Collisions/sec", "Misses whose data another request put in the " \
      "cache meanwhile, per second " TOT "cache_miss_collisions).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), FLD(F_COLL)) \
    R(C_RA, "Cache Readaheads", "Readaheads since the set started " TOT "cache_readaheads; " \
      "not in every kernel).", RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), FLD(F_RA)) \
    R(C_RA_S, "Cache Readaheads/sec", "Readaheads per second " TOT "cache_readaheads; not in " \
      "every kernel).", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), FLD(F_RA)) \
    R(C_BYP, "Bypassed Bytes", "Data that bypassed the cache since the set started " TOT \
      "bypassed)." APPROX, RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), FLD(F_BYPASSED)) \
    R(C_BYP_S, "Bypassed Bytes/sec", "Data that bypassed the cache per second " TOT \
      "bypassed; the difference of two printed sizes)." APPROX, BULK, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, COUNTER), FLD(F_BYPASSED)) \
    R(C_RATIO, "% Cache Hit Ratio", "Hits as a share of hits and misses since the set " \
      "started " TOT "cache_hits / (cache_hits + cache_misses)).", PERF_LARGE_RAW_FRACTION, \
      C_RATIO_BASE, NOV, 0, PL_U(NONE, 1, GAUGE), FLD(F_HITS)) \
    R(C_RATIO_BASE, "% Cache Hit Ratio Base", "cache_hits + cache_misses, the base of % Cache " \
      "Hit Ratio " TOT ").", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_SUM(S_ROW, F_HITS, F_MISSES))

static const pl_counter_def counters[] = { B_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { B_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, pl_bch_row) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");
_Static_assert(NF <= 32, "a row holds 32 fields");

typedef struct bset {
    char key[PL_BCH_KEY];    /* first: the UUID */
    int fd[NF];
} bset;

typedef struct b_state {
    pl_env *env;
    pl_classdir top;
    pl_bch_keyed sets;       /* of bset */
} b_state;

static void set_init(void *rec, void *ctx)
{
    bset *b = rec;
    (void)ctx;
    for (int k = 0; k < NF; k++)
        b->fd[k] = -1;
}

static void set_close(void *rec)
{
    bset *b = rec;
    for (int k = 0; k < NF; k++) {
        if (b->fd[k] >= 0)
            close(b->fd[k]);
        b->fd[k] = -1;
    }
}

static int b_open(pl_env *env, void **state)
{
    b_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_bch_keyed_init(&s->sets, sizeof(bset));
    *state = s;
    return 0;
}

static void b_close(void *state)
{
    b_state *s = state;
    if (!s)
        return;
    pl_bch_keyed_free(&s->sets, set_close);
    pl_classdir_close(&s->top);
    pl_env_unref(s->env);
    free(s);
}

static int list_sets(b_state *s, pl_snapshot *snap)
{
    int e;
    pl_snap_clear(snap);
    if ((e = pl_bch_list_sets(&s->sets, &s->top, s->env)) != 0 ||
        (e = pl_bch_keyed_sync(&s->sets, set_init, NULL, set_close)) != 0)
        return e;
    for (uint32_t i = 0; i < s->sets.n; i++) {
        const bset *b = (const bset *)s->sets.v + i;
        if (pl_snap_add(snap, b->key, pl_bch_name_id(b->key)) < 0)
            return ENOMEM;
    }
    return 0;
}

static int b_instances(void *state, pl_snapshot *snap)
{
    return list_sets(state, snap);
}

static int b_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    b_state *s = state;
    uint32_t need = pl_bch_fields(counters, feeds, NC, wanted);
    char dir[PL_BCH_KEY + 32];
    pl_feed_in in;
    pl_bch_row r;
    int e;
    if ((e = list_sets(s, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->sets.n; i++) {
        bset *b = (bset *)s->sets.v + i;
        snprintf(dir, sizeof dir, PL_BCH_SETS "/%s", b->key);
        pl_bch_read(s->env, dir, files, NF, b->fd, need, feeds, NC, i, &r, snap);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

static const pl_provider_ops b_ops = { b_open, b_close, b_instances, b_collect, NULL, NULL };

const pl_counterset_def pl_bcache_def = {
    /* UUIDv5(perflib namespace, "Bcache") */
    { 0x17a6c770, 0xe130, 0x5eec, { 0x88, 0xf7, 0x3d, 0x73, 0x0a, 0xbc, 0x97, 0x29 } },
    "Bcache",
    "bcache cache sets (/sys/fs/bcache/<uuid>): btree and cache sizes, available and root "
    "usage, congestion, journal, cache hits, misses and bypasses as totals and rates, % Cache "
    "Hit Ratio; sizes printed by bch_hprint are approximate; no instances without bcache.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &b_ops, 65000, NULL,
};
