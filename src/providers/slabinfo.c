/* Slab Caches (costly; one instance per kernel slab cache, and _Total):
 * the kernel's object caches from /proc/slabinfo (slabinfo.h), the kernel
 * source read once per collect.  Reading it takes the slab mutex and walks
 * every cache, and only root may: the set is costly (left out of Global),
 * and without root it fails with EACCES and the file.
 *
 * A cache's memory is its slabs x pages per slab x the page size; its live
 * objects' bytes are active objects x object size.  A malformed line keeps
 * its cache with its values unset, and _Total then has none.  Instance ids
 * are line positions, as Paging File's: a cache that comes or goes moves
 * the ids after it, never a name. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "slabinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define TOTAL_ID 0xFFFFFFFEu

enum { S_CACHE, NSRC };
enum {
    C_TOTAL_BYTES, C_ACTIVE_BYTES, C_ACTIVE_OBJS, C_OBJS, C_PCT_ACTIVE, C_PCT_ACTIVE_BASE,
    C_OBJSIZE, C_ACTIVE_SLABS, C_SLABS, NC
};

static int total_bytes(pl_feed_in *in, uint64_t *v);
static int active_bytes(pl_feed_in *in, uint64_t *v);

#define SL_ROWS(R) \
    R(C_TOTAL_BYTES, "Bytes", "Memory the cache holds, in bytes: its slabs x pages per slab x " \
      "the page size (/proc/slabinfo num_slabs, pagesperslab).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_CACHE), total_bytes)) \
    R(C_ACTIVE_BYTES, "Active Bytes", "Bytes of the objects in use: active objects x object " \
      "size (/proc/slabinfo active_objs, objsize).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_CACHE), active_bytes)) \
    R(C_ACTIVE_OBJS, "Active Objects", "Objects in use (/proc/slabinfo active_objs).", LRAW, \
      PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_CACHE, PL_SL_ACTIVE_OBJS)) \
    R(C_OBJS, "Objects", "Objects allocated, in use or free in the cache's slabs " \
      "(/proc/slabinfo num_objs).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_CACHE, PL_SL_NUM_OBJS)) \
    R(C_PCT_ACTIVE, "% Objects Active", "Objects in use as a percentage of the objects " \
      "allocated (active_objs over num_objs); low values are memory the cache holds unused.", \
      PERF_LARGE_RAW_FRACTION, C_PCT_ACTIVE_BASE, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_CACHE, PL_SL_ACTIVE_OBJS)) \
    R(C_PCT_ACTIVE_BASE, "% Objects Active Base", "Objects allocated (num_objs), the base of " \
      "% Objects Active.", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_CACHE, PL_SL_NUM_OBJS)) \
    R(C_OBJSIZE, "Object Size", "Size of one object in bytes, alignment included " \
      "(/proc/slabinfo objsize).", LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), \
      PL_FIELD(S_CACHE, PL_SL_OBJSIZE)) \
    R(C_ACTIVE_SLABS, "Active Slabs", "Slabs holding objects in use (/proc/slabinfo " \
      "active_slabs).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_CACHE, PL_SL_ACTIVE_SLABS)) \
    R(C_SLABS, "Slabs", "Slabs of the cache (/proc/slabinfo num_slabs).", LRAW, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_CACHE, PL_SL_NUM_SLABS))

static const pl_counter_def counters[] = { SL_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { SL_ROWS(PL_ROW_FEED) };

/* A cache's values as the walk reads them; _Total's sums are one too. */
typedef struct sl_vals {
    uint64_t v[PL_SL_N];
    uint8_t st[PL_SL_N];
    uint64_t bytes, active_bytes;     /* set with their ok flags */
    int bytes_ok, active_ok;
} sl_vals;

static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, sl_vals) };

typedef struct sl_state {
    pl_ksrc *k;
    uint64_t page;
} sl_state;

static int total_bytes(pl_feed_in *in, uint64_t *v)
{
    const sl_vals *c = pl_feed_get(in, S_CACHE);
    *v = c ? c->bytes : 0;
    return c && c->bytes_ok;
}

static int active_bytes(pl_feed_in *in, uint64_t *v)
{
    const sl_vals *c = pl_feed_get(in, S_CACHE);
    *v = c ? c->active_bytes : 0;
    return c && c->active_ok;
}

/* One cache's values, its bytes worked out (overflow: unset). */
static void cache_vals(const sl_state *s, const pl_slabrow *r, sl_vals *out)
{
    uint64_t b;
    memset(out, 0, sizeof *out);
    if (!r->ok)
        return;              /* every st absent */
    memcpy(out->v, r->v, sizeof out->v);
    memset(out->st, PL_NS_OK, sizeof out->st);
    out->bytes_ok = pl_mul_ok(r->v[PL_SL_NUM_SLABS], r->v[PL_SL_PAGESPERSLAB], &b) &&
                    pl_mul_ok(b, s->page, &out->bytes);
    out->active_ok = pl_mul_ok(r->v[PL_SL_ACTIVE_OBJS], r->v[PL_SL_OBJSIZE], &out->active_bytes);
}

/* _Total's: sums of the caches (object size has no sum: unset). */
static void add_vals(sl_vals *tot, const sl_vals *c, int *ok)
{
    static const int summed[] = { PL_SL_ACTIVE_OBJS, PL_SL_NUM_OBJS, PL_SL_ACTIVE_SLABS,
                                  PL_SL_NUM_SLABS };
    if (!c->st[PL_SL_NUM_OBJS] || !c->bytes_ok || !c->active_ok)
        *ok = 0;
    for (size_t i = 0; *ok && i < sizeof summed / sizeof summed[0]; i++)
        *ok = pl_add_ok(tot->v[summed[i]], c->v[summed[i]], &tot->v[summed[i]]);
    if (*ok)
        *ok = pl_add_ok(tot->bytes, c->bytes, &tot->bytes) &&
              pl_add_ok(tot->active_bytes, c->active_bytes, &tot->active_bytes);
}

static int sl_open(pl_env *env, void **state)
{
    sl_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->page = (uint64_t)pl_env_page_size(env);
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_slabinfo))) {
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static void sl_close(void *state)
{
    free(state);             /* the reader is the environment's */
}

static int sl_read(sl_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const pl_slabinfo *t;
    const void *data;
    pl_feed_in in;
    sl_vals v, tot;
    int e, ti, ok = 1;
    pl_snap_clear(snap);
    if ((e = pl_feed_rows_source(s->k, snap, &data)) != 0)
        return e;
    t = data;
    memset(&tot, 0, sizeof tot);
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, s);
    for (uint32_t n = 0; t && n < t->rows.n; n++) {
        const pl_slabrow *r = (const pl_slabrow *)t->rows.row + n;
        char name[64];
        int k;
        memcpy(name, r->name, sizeof name);
        pl_name_sanitize(name);
        if ((k = pl_snap_add(snap, name, n)) < 0)
            return ENOMEM;
        if (!values)
            continue;
        cache_vals(s, r, &v);
        add_vals(&tot, &v, &ok);
        pl_feed_put(&in, S_CACHE, &v);
        pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
    }
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (!values || !t || !ok || !t->version_ok)
        return 0;            /* no values for _Total */
    for (int f = 0; f < PL_SL_N; f++)
        tot.st[f] = f == PL_SL_ACTIVE_OBJS || f == PL_SL_NUM_OBJS || f == PL_SL_ACTIVE_SLABS ||
                    f == PL_SL_NUM_SLABS ? PL_NS_OK : PL_NS_ABSENT;
    tot.bytes_ok = tot.active_ok = 1;
    pl_feed_put(&in, S_CACHE, &tot);
    pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    return 0;
}

PL_READ_OPS(sl, sl_open, sl_close, sl_read);

const pl_counterset_def pl_slabinfo_def = {
    /* UUIDv5(perflib namespace, "Slab Caches") */
    { 0x18dc07f6, 0xafe5, 0x5bae, { 0x95, 0xfd, 0x08, 0x85, 0x11, 0x45, 0x9b, 0x16 } },
    "Slab Caches",
    "The kernel's slab object caches and their memory, from /proc/slabinfo (root only; "
    "costly: reading it walks every cache under the slab mutex).",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NC, counters, &sl_ops, 34000, NULL,
};
