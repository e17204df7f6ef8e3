/* Buddy Allocator (one instance per NUMA node and zone, "0,Normal",
 * and _Total): memory fragmentation, the page allocator's free blocks of
 * each order from
 * /proc/buddyinfo (buddyinfo.h), the kernel source read once per collect.
 * A block of order k is 2^k pages; large allocations (huge pages, DMA
 * buffers, order-3 network buffers) fail or stall in compaction when the
 * high orders are empty although plenty of memory is free.
 *
 * Orders past the kernel's count (11 on x86-64) are unset.  A zone whose
 * line is malformed keeps its instance with its values unset, and _Total
 * then has none either.  Instance ids: node x 256 + the zone's place in
 * the node's lines, which the kernel keeps in one order (DMA, DMA32,
 * Normal, Movable, Device). */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "buddyinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define ADV PERF_DETAIL_ADVANCED
#define TOTAL_ID 0xFFFFFFFEu

enum { S_ZONE, NSRC };
enum { C_FREE_BYTES = PL_BI_ORDERS, C_LARGEST, NC };

#define ORDER(R, k) \
    R(k, "Free Blocks Order " #k, "Free blocks of 2^" #k " pages in the zone now " \
      "(/proc/buddyinfo column " #k "); unset past the kernel's orders.", RAW, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_ZONE, k))

#define BI_ROWS(R) \
    ORDER(R, 0) ORDER(R, 1) ORDER(R, 2) ORDER(R, 3) ORDER(R, 4) ORDER(R, 5) ORDER(R, 6) \
    ORDER(R, 7) ORDER(R, 8) ORDER(R, 9) ORDER(R, 10) ORDER(R, 11) ORDER(R, 12) ORDER(R, 13) \
    ORDER(R, 14) ORDER(R, 15) \
    R(C_FREE_BYTES, "Free Bytes", "Memory free in the zone, in bytes: the blocks of every order " \
      "x 2^order pages x the page size (/proc/buddyinfo).", RAW, PL_NO_ID, PERF_DETAIL_NOVICE, 0, \
      PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_ZONE), free_bytes)) \
    R(C_LARGEST, "Largest Free Block Bytes", "The largest free block in the zone, in bytes " \
      "(2^order pages of the highest order with a free block in /proc/buddyinfo; 0 when none): " \
      "an allocation larger than this needs compaction or fails.", RAW, PL_NO_ID, \
      PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_ZONE), largest_block))

static int free_bytes(pl_feed_in *in, uint64_t *v);
static int largest_block(pl_feed_in *in, uint64_t *v);

static const pl_counter_def counters[] = { BI_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { BI_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_N(NULL, pl_birow, blocks, norders) };

/* A line's instance name, kept while the line's zone stays (no
 * formatting per collect). */
typedef struct bi_name {
    uint32_t node;
    char zone[16];
    char name[48];
} bi_name;

typedef struct bi_state {
    pl_ksrc *k;
    uint64_t page;
    bi_name *names;
    uint32_t nnames;
} bi_state;

static const pl_birow *zone_of(pl_feed_in *in)
{
    const pl_birow *r = pl_feed_get(in, S_ZONE);
    return r && r->norders > 0 ? r : NULL;
}

static int free_bytes(pl_feed_in *in, uint64_t *v)
{
    const bi_state *s = in->ctx;
    const pl_birow *r = zone_of(in);
    uint64_t sum = 0, b;
    if (!r)
        return 0;
    for (int k = 0; k < r->norders; k++)
        if (!pl_mul_ok(r->blocks[k], (uint64_t)1 << k, &b) || !pl_mul_ok(b, s->page, &b) ||
            !pl_add_ok(sum, b, &sum))
            return 0;        /* past 2^64 bytes: not a real zone */
    *v = sum;
    return 1;
}

static int largest_block(pl_feed_in *in, uint64_t *v)
{
    const bi_state *s = in->ctx;
    const pl_birow *r = zone_of(in);
    if (!r)
        return 0;
    *v = 0;
    for (int k = r->norders - 1; k >= 0; k--)
        if (r->blocks[k] > 0)
            return pl_mul_ok((uint64_t)1 << k, s->page, v);
    return 1;
}

static int bi_open(pl_env *env, void **state)
{
    bi_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->page = (uint64_t)pl_env_page_size(env);
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_buddyinfo))) {
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static void bi_close(void *state)
{
    bi_state *s = state;
    if (!s)
        return;
    free(s->names);
    free(s);                 /* the reader is the environment's */
}

/* Line n's instance name: "node,zone", control characters made '_'. */
static const char *zone_name(bi_state *s, uint32_t n, const pl_birow *r)
{
    bi_name *b;
    if (n >= s->nnames) {
        bi_name *nb = realloc(s->names, (n + 1) * sizeof *nb);
        if (!nb)
            return NULL;
        memset(nb + s->nnames, 0, (n + 1 - s->nnames) * sizeof *nb);
        for (uint32_t i = s->nnames; i <= n; i++)
            nb[i].node = UINT32_MAX;             /* no name yet */
        s->names = nb;
        s->nnames = n + 1;
    }
    b = &s->names[n];
    if (b->node != r->node || strcmp(b->zone, r->zone) != 0) {
        b->node = r->node;
        memcpy(b->zone, r->zone, sizeof b->zone);
        snprintf(b->name, sizeof b->name, "%u,%s", (unsigned)r->node, r->zone);
        pl_name_sanitize(b->name);
    }
    return b->name;
}

/* _Total's row: the blocks of each order over every zone; norders 0 when
 * a zone is malformed or the zones disagree on their orders. */
static void total_row(const pl_buddyinfo *t, pl_birow *tot)
{
    memset(tot, 0, sizeof *tot);
    for (uint32_t n = 0; n < t->n; n++) {
        const pl_birow *r = (const pl_birow *)t->row + n;
        if (r->norders == 0 || (n > 0 && r->norders != tot->norders)) {
            tot->norders = 0;
            return;
        }
        tot->norders = r->norders;
        for (int k = 0; k < r->norders; k++)
            if (!pl_add_ok(tot->blocks[k], r->blocks[k], &tot->blocks[k])) {
                tot->norders = 0;
                return;
            }
    }
}

static int bi_read(bi_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const pl_buddyinfo *t;
    const void *data;
    pl_feed_in in;
    pl_birow tot;
    uint32_t last_node = UINT32_MAX, zk = 0;
    int e, ti;
    pl_snap_clear(snap);
    if ((e = pl_feed_rows_source(s->k, snap, &data)) != 0)
        return e;
    t = data;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, s);
    for (uint32_t n = 0; t && n < t->n; n++) {
        const pl_birow *r = (const pl_birow *)t->row + n;
        const char *name = zone_name(s, n, r);
        int k;
        zk = r->node == last_node ? zk + 1 : 0;
        last_node = r->node;
        if (!name || (k = pl_snap_add(snap, name, r->node * 256u + (zk & 255u))) < 0)
            return ENOMEM;
        if (!values)
            continue;
        pl_feed_put(&in, S_ZONE, r);
        pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
    }
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (!values || !t)
        return 0;            /* an empty file: _Total without values */
    total_row(t, &tot);
    pl_feed_put(&in, S_ZONE, &tot);
    pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    return 0;
}

PL_READ_OPS(bi, bi_open, bi_close, bi_read);

const pl_counterset_def pl_buddyinfo_def = {
    /* UUIDv5(perflib namespace, "Buddy Allocator") */
    { 0x278b2f8d, 0xd844, 0x5e28, { 0xb9, 0xc8, 0xfd, 0x23, 0xda, 0xea, 0x55, 0xff } },
    "Buddy Allocator",
    "Memory fragmentation: free memory of each NUMA node's zones by block size, from "
    "/proc/buddyinfo: the page allocator's free blocks of each order, the free bytes and the "
    "largest free block.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &bi_ops, 32000, NULL,
};
