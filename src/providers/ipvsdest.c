/* IPVS Backend (one instance per real server of each virtual service):
 * node_exporter's ipvs backend metrics (node_ipvs_backend_weight,
 * node_ipvs_backend_connections_active and _inactive) from /proc/net/ip_vs
 * (ipvsdest.h), the kernel source read once per collect.  Per-server bytes
 * and packets are not in /proc (netlink's IPVS_DEST_ATTR_STATS only): the
 * IPVS set has the totals.
 *
 * An instance is named after its service and itself, as node_exporter's
 * labels (proto, local_address:local_port or local_mark, remote_address:
 * remote_port) would read: "TCP 10.0.0.1:80 -> 10.0.0.2:80",
 * "UDP [2001:db8::1]:53 -> [2001:db8::2]:53", "FWM 1 -> 10.0.0.3:0".  Its id
 * is its slot in the keys this state has seen: a backend keeps it while it
 * is listed, and a slot gone for a whole read is taken by a new backend
 * (kube-proxy's services churn), so the slots never outgrow the largest
 * table.  Keys are found through a hash of slot numbers, not by comparing
 * names: a table of thousands of backends costs one probe per line.
 *
 * A line with no key (malformed, cut off) is no instance.  Without the
 * ip_vs module the file does not exist and the set fails with ENOENT, as
 * the IPVS set does; a table without servers has no instances. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "ipvsdest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define MAX_SLOTS (1u << 20)

enum { S_DEST };             /* the row of the line: put_vals reads its fields */

#define DEST_ROWS(R) \
    R(0, "Active Connections", "Connections to the real server in the ESTABLISHED state " \
      "(ActiveConn of /proc/net/ip_vs; node_ipvs_backend_connections_active).", RAW, PL_NO_ID, \
      NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_DEST, PL_IPVSD_ACTIVE)) \
    R(1, "Inactive Connections", "Connections to the real server in any other state, such as " \
      "TIME_WAIT (InActConn of /proc/net/ip_vs; node_ipvs_backend_connections_inactive).", RAW, \
      PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_DEST, PL_IPVSD_INACTIVE)) \
    R(2, "Weight", "The real server's scheduling weight; 0 takes it out of rotation " \
      "(Weight of /proc/net/ip_vs; node_ipvs_backend_weight).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_DEST, PL_IPVSD_WEIGHT))

static const pl_counter_def counters[] = { DEST_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { DEST_ROWS(PL_ROW_FEED) };
#define NC ((uint32_t)(sizeof counters / sizeof counters[0]))


typedef struct dest_slot {
    pl_ipvs_key key;
    char name[PL_IPVS_NAME];
    uint64_t seen;           /* the read that last listed it */
} dest_slot;

typedef struct dest_state {
    pl_env *env;
    pl_ksrc *k;
    uint64_t reads;
    dest_slot *slot;
    uint32_t nslot, cap, hint;   /* hint: where the search for a free slot goes on */
    uint32_t *tab;           /* slot + 1 per bucket, 0 empty; stale ones compare unequal */
    uint32_t tcap, tused;
    uint32_t *order;         /* the slot of each row of the last read: tried first */
    uint32_t ocap;
} dest_state;

static void dest_close(void *state)
{
    dest_state *s = state;
    if (!s)
        return;
    free(s->slot);
    free(s->tab);
    free(s->order);
    pl_env_unref(s->env);
    free(s);
}

static int dest_open(pl_env *env, void **state)
{
    dest_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_ipvs_dests))) {
        dest_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static uint32_t key_hash(const pl_ipvs_key *k)
{
    const unsigned char *b = (const unsigned char *)k;
    uint32_t h = 2166136261u;                        /* FNV-1a */
    for (size_t i = 0; i < sizeof *k; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static void tab_insert(dest_state *s, uint32_t slot)
{
    uint32_t m = s->tcap - 1, h = key_hash(&s->slot[slot].key) & m;
    while (s->tab[h])
        h = (h + 1) & m;
    s->tab[h] = slot + 1;
    s->tused++;
}

/* Keeps the table at most half full: a new one, rid of stale buckets,
 * when the next insert would pass that.  0 or ENOMEM. */
static int tab_room(dest_state *s)
{
    uint32_t cap = 64;
    uint32_t *t;
    if (s->tcap && (s->tused + 1) * 2 <= s->tcap)
        return 0;
    while (cap < (s->nslot + 1) * 4)
        cap *= 2;
    if (!(t = calloc(cap, sizeof *t)))
        return ENOMEM;
    free(s->tab);
    s->tab = t;
    s->tcap = cap;
    s->tused = 0;
    for (uint32_t i = 0; i < s->nslot; i++)
        tab_insert(s, i);
    return 0;
}

static dest_slot *find(const dest_state *s, const pl_ipvs_key *k)
{
    uint32_t m = s->tcap - 1, h;
    if (!s->tcap)
        return NULL;
    for (h = key_hash(k) & m; s->tab[h]; h = (h + 1) & m) {
        dest_slot *d = &s->slot[s->tab[h] - 1];
        if (!memcmp(&d->key, k, sizeof *k))
            return d;
    }
    return NULL;
}

/* A slot for a key not in the table: one unlisted in the last read and so
 * far in this one, else a new one.  NULL on ENOMEM or past MAX_SLOTS. */
static dest_slot *take(dest_state *s, const pl_ipvs_key *k)
{
    uint32_t i;
    if (tab_room(s))
        return NULL;
    for (i = s->hint; i < s->nslot && s->slot[i].seen + 1 >= s->reads; i++)
        ;
    s->hint = i;
    if (i == s->nslot) {
        if (s->nslot == MAX_SLOTS)
            return NULL;
        if (s->nslot == s->cap) {
            uint32_t cap = s->cap ? s->cap * 2 : 16;
            dest_slot *d = realloc(s->slot, cap * sizeof *d);
            if (!d)
                return NULL;
            s->slot = d;
            s->cap = cap;
        }
        s->nslot++;
    }
    s->slot[i].key = *k;
    pl_ipvs_key_name(k, s->slot[i].name);
    tab_insert(s, i);
    return &s->slot[i];
}

/* The slot of row n's key: the one row n had in the last read when the
 * table has not moved (the kernel lists in hash order), else through the
 * hash, else a new one.  NULL on ENOMEM. */
static dest_slot *slot_of(dest_state *s, uint32_t n, const pl_ipvs_key *k)
{
    dest_slot *d;
    if (n >= s->ocap) {
        uint32_t cap = s->ocap ? s->ocap * 2 : 64, *o;
        while (cap <= n)
            cap *= 2;
        if (!(o = realloc(s->order, cap * sizeof *o)))
            return NULL;
        memset(o + s->ocap, 0xFF, (cap - s->ocap) * sizeof *o);
        s->order = o;
        s->ocap = cap;
    }
    if (s->order[n] < s->nslot && !memcmp(&s->slot[s->order[n]].key, k, sizeof *k))
        return &s->slot[s->order[n]];
    if (!(d = find(s, k)) && !(d = take(s, k)))
        return NULL;
    s->order[n] = (uint32_t)(d - s->slot);
    return d;
}

/* A line's counts into instance k, as the rows' PL_FIELDs say: what
 * pl_feed_walk would set, without its general case per instance (tables
 * of thousands of backends). */
static void put_vals(pl_snapshot *snap, uint32_t k, const pl_ipvs_vals *v)
{
    for (uint32_t i = 0; i < NC; i++) {
        uint16_t f = feeds[i].a;
        if (v->st[f] == PL_NS_OK)
            pl_snap_set(snap, k, i, v->v[f]);
    }
}

static int dest_read(dest_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const pl_ipvs_dests *t;
    const void *data;
    int e;
    (void)wanted;            /* one line holds all three: each is set where known */
    pl_snap_clear(snap);
    if ((e = pl_feed_rows_source(s->k, snap, &data)) != 0)
        return e;
    t = data;
    s->reads++;
    s->hint = 0;
    for (uint32_t n = 0; t && n < t->n; n++) {
        const pl_ipvsrow *r = (const pl_ipvsrow *)t->row + n;
        dest_slot *d;
        int k;
        if (!r->ok)
            continue;        /* no key: no instance */
        if (!(d = slot_of(s, n, &r->key)))
            return ENOMEM;
        if (d->seen == s->reads)
            continue;        /* listed twice: the kernel does not */
        d->seen = s->reads;
        if ((k = pl_snap_add(snap, d->name, (uint32_t)(d - s->slot))) < 0)
            return ENOMEM;
        if (values)
            put_vals(snap, (uint32_t)k, &r->vals);
    }
    return 0;
}

PL_READ_OPS(dest, dest_open, dest_close, dest_read);

const pl_counterset_def pl_ipvs_backend_def = {
    /* UUIDv5(perflib namespace, "IPVS Backend") */
    { 0xe7c9243c, 0xb921, 0x559e, { 0x92, 0xa7, 0x9c, 0xc7, 0xe5, 0xdb, 0x13, 0x5a } },
    "IPVS Backend",
    "Each real server of each IP virtual server (LVS) service, from /proc/net/ip_vs: active "
    "and inactive connections and weight; absent without the ip_vs module.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &dest_ops, 70000, NULL,
};
