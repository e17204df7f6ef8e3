/* ARP Cache (one instance per network device with IPv4 neighbour entries, and
 * _Total): node_exporter's arp collector (node_arp_entries) from
 * /proc/net/arp (arp.h), the kernel source read once per collect, with the
 * entries split by their Flags column: complete (ATF_COM, 0x2), permanent
 * (ATF_PERM, 0x4; a permanent entry is complete too: 0x6) and incomplete
 * (no ATF_COM: 0x0, resolution pending or failed).
 *
 * A device is an instance while it has entries; its id is its slot in the
 * names this state has seen (stable while the state lives).  A malformed
 * line counts in no device and leaves _Total's values unset, never a value
 * from the wrong column.  No /proc/net/arp (no IPv4): the set fails with
 * the errno; an empty table is _Total alone with zeros. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "arp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define TOTAL_ID 0xFFFFFFFEu
#define MAX_DEVS 65536u      /* a bound on slots: names come from the file */

enum { C_ENTRIES, C_COMPLETE, C_PERM, C_INCOMPLETE, NC };
enum { S_DEV, NSRC };

#define ARP_ROWS(R) \
    R(C_ENTRIES, "Entries", "IPv4 neighbour entries of the device (lines of /proc/net/arp; " \
      "node_arp_entries).", RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_DEV, C_ENTRIES)) \
    R(C_COMPLETE, "Complete Entries", "Entries resolved to a hardware address (Flags with " \
      "ATF_COM 0x2 in /proc/net/arp; permanent ones included).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_DEV, C_COMPLETE)) \
    R(C_PERM, "Permanent Entries", "Static entries that never expire (Flags with ATF_PERM " \
      "0x4 in /proc/net/arp).", RAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_DEV, C_PERM)) \
    R(C_INCOMPLETE, "Incomplete Entries", "Entries without a hardware address: resolution " \
      "pending or failed (Flags without ATF_COM, 0x0, in /proc/net/arp).", RAW, PL_NO_ID, NOV, \
      0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_DEV, C_INCOMPLETE))

static const pl_counter_def counters[] = { ARP_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { ARP_ROWS(PL_ROW_FEED) };

typedef struct arp_vals {
    uint64_t v[NC];
    uint8_t st[NC];
} arp_vals;

static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, arp_vals) };

typedef struct arp_dev {
    char name[PL_ARP_DEV];
    arp_vals vals;           /* this read's counts */
    uint64_t seen;           /* the read that last counted it */
} arp_dev;

typedef struct arp_state {
    pl_env *env;
    pl_ksrc *k;
    uint64_t reads;
    arp_dev *dev;
    uint32_t ndev, cap;
} arp_state;

static void arp_close(void *state)
{
    arp_state *s = state;
    if (!s)
        return;
    free(s->dev);
    pl_env_unref(s->env);
    free(s);
}

static int arp_open(pl_env *env, void **state)
{
    arp_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_arp))) {
        arp_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

/* The slot of a device name, added on first sight: NULL on ENOMEM or when
 * the bound is reached. */
static arp_dev *dev_slot(arp_state *s, const char *name)
{
    for (uint32_t i = 0; i < s->ndev; i++)
        if (!strcmp(s->dev[i].name, name))
            return &s->dev[i];
    if (s->ndev == MAX_DEVS)
        return NULL;
    if (s->ndev == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        arp_dev *d = realloc(s->dev, cap * sizeof *d);
        if (!d)
            return NULL;
        s->dev = d;
        s->cap = cap;
    }
    memset(&s->dev[s->ndev], 0, sizeof s->dev[0]);
    memcpy(s->dev[s->ndev].name, name, PL_ARP_DEV);
    return &s->dev[s->ndev++];
}

static void count(arp_vals *v, uint32_t flags)
{
    v->v[C_ENTRIES]++;
    v->v[C_COMPLETE] += (flags & PL_ATF_COM) != 0;
    v->v[C_PERM] += (flags & PL_ATF_PERM) != 0;
    v->v[C_INCOMPLETE] += (flags & PL_ATF_COM) == 0;
}

static int arp_read(arp_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const pl_arp *t;
    const void *data;
    pl_feed_in in;
    arp_vals total;
    int e, ti;
    pl_snap_clear(snap);
    if ((e = pl_feed_rows_source(s->k, snap, &data)) != 0)
        return e;
    t = data;
    s->reads++;
    memset(&total, 0, sizeof total);
    memset(total.st, PL_NS_OK, sizeof total.st);
    for (uint32_t n = 0; t && n < t->n; n++) {
        const pl_arprow *r = (const pl_arprow *)t->row + n;
        arp_dev *d;
        if (!r->ok || !r->dev[0]) {
            memset(total.st, PL_NS_ABSENT, sizeof total.st);
            continue;        /* counted nowhere: the sum is unknown */
        }
        if (!(d = dev_slot(s, r->dev)))
            return ENOMEM;
        if (d->seen != s->reads) {
            d->seen = s->reads;
            memset(&d->vals, 0, sizeof d->vals);
            memset(d->vals.st, PL_NS_OK, sizeof d->vals.st);
        }
        count(&d->vals, r->flags);
        count(&total, r->flags);
    }
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, s);
    for (uint32_t i = 0; i < s->ndev; i++) {
        arp_dev *d = &s->dev[i];
        int k;
        if (d->seen != s->reads)
            continue;        /* no entries now */
        if ((k = pl_snap_add(snap, d->name, i)) < 0)
            return ENOMEM;
        if (values) {
            pl_feed_put(&in, S_DEV, &d->vals);
            pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
        }
    }
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (values) {
        pl_feed_put(&in, S_DEV, &total);
        pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    }
    return 0;
}

PL_READ_OPS(arp, arp_open, arp_close, arp_read);

const pl_counterset_def pl_arp_def = {
    /* UUIDv5(perflib namespace, "ARP Cache") */
    { 0xadaa85a0, 0xb2b0, 0x5b13, { 0xa0, 0x4f, 0xce, 0x7d, 0x60, 0x40, 0xcd, 0xc6 } },
    "ARP Cache",
    "IPv4 neighbour (ARP) entries per network device and in all, from /proc/net/arp: "
    "entries, complete, permanent and incomplete ones.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &arp_ops, 56000, NULL,
};
