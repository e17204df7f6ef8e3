/* NUMA Node Memory: one instance per online node ("0", "1" ..., the node
 * number as id, as Windows names them) from /sys/devices/system/node/online,
 * and "_Total".  Memory comes from nodeN/meminfo ("Node 0 MemFree: 3395144
 * kB"), allocation counts from nodeN/numastat (pages).
 *
 * The kernel keeps no per-node MemAvailable: Available MBytes is
 * approximated as MemFree + Inactive(file) + SReclaimable, which leaves out
 * the watermarks and active file pages that /proc/meminfo's estimate weighs;
 * Standby List MBytes is Inactive(file).  MBytes are kB / 1024 truncated;
 * _Total sums the kB of every node first, and has a value only when every
 * node had it.  The node sums need not equal /proc/meminfo (memory still
 * being onlined, hotplug): the two are never mixed.
 *
 * No /sys/devices/system/node/online (no NUMA sysfs, a container without
 * /sys) is zero instances.  A malformed online file fails the set; a node
 * whose files are missing or malformed keeps its instance with those values
 * unset.  Only complete lines count, so a cut-off file gives no cut-off
 * number. */
#include "pl_provider.h"
#include "providers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    C_TOTAL, C_FREE, C_AVAIL, C_STANDBY, C_FILE, C_ANON, C_SLAB, C_DIRTY,
    C_LOCAL, C_REMOTE, C_HIT, C_MISS, C_FOREIGN, C_INTERLEAVE, C_PLOCAL, C_PLOCAL_BASE, NC
};

/* meminfo keys */
enum { M_TOTAL, M_FREE, M_INACT_FILE, M_SRECL, M_FILE, M_ANON, M_SLAB, M_DIRTY, NM };
/* numastat keys */
enum { S_LOCAL, S_OTHER, S_HIT, S_MISS, S_FOREIGN, S_INTERLEAVE, NS };

typedef struct key { const char *k; size_t len; } key;
#define K(s) { s, sizeof s - 1 }
static const key mkeys[NM] = {
    K("MemTotal"), K("MemFree"), K("Inactive(file)"), K("SReclaimable"), K("FilePages"),
    K("AnonPages"), K("Slab"), K("Dirty"),
};
static const key skeys[NS] = {
    K("local_node"), K("other_node"), K("numa_hit"), K("numa_miss"), K("numa_foreign"),
    K("interleave_hit"),
};

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define CTR(id, name, help, type, base, detail, u) { id, name, help, type, base, detail, 0, 8, u }

static const pl_counter_def counters[NC] = {
    CTR(C_TOTAL, "Total MBytes", "Memory of the node in MiB (nodeN/meminfo MemTotal / 1024).",
        LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1048576, DISCRETE)),
    CTR(C_FREE, "Free & Zero Page List MBytes", "Unused memory of the node in MiB "
        "(nodeN/meminfo MemFree / 1024).", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1048576, GAUGE)),
    CTR(C_AVAIL, "Available MBytes", "Approximate memory of the node available without "
        "swapping, in MiB: nodeN/meminfo MemFree + Inactive(file) + SReclaimable (the kernel "
        "has no per-node MemAvailable).", LRAW, PL_NO_ID, NOV, PL_U(BYTES, 1048576, GAUGE)),
    CTR(C_STANDBY, "Standby List MBytes", "Page cache of the node on the inactive list, first "
        "to be reclaimed, in MiB (nodeN/meminfo Inactive(file) / 1024).", LRAW, PL_NO_ID, NOV,
          PL_U(BYTES, 1048576, GAUGE)),
    CTR(C_FILE, "File MBytes", "Page cache of the node in MiB (nodeN/meminfo FilePages / 1024).",
        LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1048576, GAUGE)),
    CTR(C_ANON, "Anon MBytes", "Anonymous memory of the node in MiB (nodeN/meminfo AnonPages "
        "/ 1024).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1048576, GAUGE)),
    CTR(C_SLAB, "Slab MBytes", "Kernel slab memory of the node in MiB (nodeN/meminfo Slab / "
        "1024).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1048576, GAUGE)),
    CTR(C_DIRTY, "Dirty MBytes", "File pages of the node waiting to be written back, in MiB "
        "(nodeN/meminfo Dirty / 1024).", LRAW, PL_NO_ID, ADV, PL_U(BYTES, 1048576, GAUGE)),
    CTR(C_LOCAL, "Local Allocations/sec", "Pages allocated on this node by a process running "
        "on it, per second (nodeN/numastat local_node).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(C_REMOTE, "Remote Allocations/sec", "Pages allocated on this node by a process running "
        "on another node, per second (nodeN/numastat other_node).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(C_HIT, "NUMA Hits/sec", "Pages allocated on this node as intended, per second "
        "(nodeN/numastat numa_hit).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(C_MISS, "NUMA Misses/sec", "Pages allocated on this node though another was preferred, "
        "per second (nodeN/numastat numa_miss).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(C_FOREIGN, "NUMA Foreign/sec", "Pages meant for this node but allocated on another, per "
        "second (nodeN/numastat numa_foreign).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(C_INTERLEAVE, "Interleave Hits/sec", "Interleaved-policy pages allocated on this node "
        "as intended, per second (nodeN/numastat interleave_hit).", BULK, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(C_PLOCAL, "% Local Allocations", "Share of the interval's allocations on this node made "
        "by processes running on it (numastat local_node over local_node + other_node).",
        PERF_SAMPLE_FRACTION, C_PLOCAL_BASE, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(C_PLOCAL_BASE, "% Local Allocations Base", "numastat local_node + other_node, the base "
        "of % Local Allocations.", PERF_SAMPLE_BASE, PL_NO_ID, ADV, PL_U(COUNT, 1, COUNTER)),
};

#define ONLINE "sys/devices/system/node/online"
#define MAX_NODES 4096
#define TOTAL_ID 0xFFFFFFFEu

typedef struct node {
    pl_file meminfo, numastat;
    char name[12];
} node;

typedef struct numa_state {
    pl_env *env;
    pl_file online;
    int no_numa;
    node *n;                 /* indexed by node number */
    uint32_t cap;
    uint32_t *list, nlist, listcap;   /* online nodes of this read */
} numa_state;

static int numa_open(pl_env *env, void **state)
{
    numa_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_file_init(&s->online);
    *state = s;
    return 0;
}

static void numa_close(void *state)
{
    numa_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->cap; i++) {
        pl_file_close(&s->n[i].meminfo);
        pl_file_close(&s->n[i].numastat);
    }
    free(s->n);
    free(s->list);
    pl_file_close(&s->online);
    pl_env_unref(s->env);
    free(s);
}

static int push_node(numa_state *s, uint64_t v)
{
    if (v >= MAX_NODES || s->nlist >= MAX_NODES)
        return EINVAL;
    if (s->nlist == s->listcap) {
        uint32_t nc = s->listcap ? s->listcap * 2 : 8;
        uint32_t *nl = realloc(s->list, nc * sizeof *nl);
        if (!nl)
            return ENOMEM;
        s->list = nl;
        s->listcap = nc;
    }
    if (v >= s->cap) {
        uint32_t nc = (uint32_t)v + 1;
        node *nn = realloc(s->n, nc * sizeof *nn);
        if (!nn)
            return ENOMEM;
        for (uint32_t i = s->cap; i < nc; i++) {
            pl_file_init(&nn[i].meminfo);
            pl_file_init(&nn[i].numastat);
            snprintf(nn[i].name, sizeof nn[i].name, "%u", (unsigned)i);
        }
        s->n = nn;
        s->cap = nc;
    }
    s->list[s->nlist++] = (uint32_t)v;
    return 0;
}

/* "0-1,3\n": a list of nodes or ranges, ascending.  0, ENOENT (no NUMA
 * sysfs), or an errno for the set. */
static int read_online(numa_state *s)
{
    const char *p;
    int e;
    s->nlist = 0;
    if (s->no_numa)
        return ENOENT;
    e = pl_file_read(&s->online, s->env, ONLINE);
    if (e == ENOENT || e == ENOTDIR) {
        s->no_numa = 1;
        return ENOENT;
    }
    if (e)
        return e;
    p = s->online.buf;
    for (;;) {
        uint64_t a, b;
        if (*p < '0' || *p > '9' || pl_parse_u64(&p, &a))
            return EINVAL;
        b = a;
        if (*p == '-') {
            p++;
            if (*p < '0' || *p > '9' || pl_parse_u64(&p, &b) || b < a || b >= MAX_NODES)
                return EINVAL;
        }
        if (s->nlist && a <= s->list[s->nlist - 1])
            return EINVAL;   /* not ascending: not the kernel's format */
        for (uint64_t v = a; v <= b; v++)
            if ((e = push_node(s, v)) != 0)
                return e;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\n')
            p++;
        return *p ? EINVAL : 0;
    }
}

static int add_nodes(numa_state *s, pl_snapshot *snap)
{
    for (uint32_t i = 0; i < s->nlist; i++)
        if (pl_snap_add(snap, s->n[s->list[i]].name, s->list[i]) < 0)
            return ENOMEM;
    if (s->nlist && pl_snap_add(snap, "_Total", TOTAL_ID) < 0)
        return ENOMEM;
    return 0;
}

static int fill(numa_state *s, pl_snapshot *snap)
{
    int e;
    pl_snap_clear(snap);
    e = read_online(s);
    if (e == ENOENT)
        return 0;            /* no NUMA sysfs: no instances */
    if (e) {
        snap->err_path = ONLINE;
        return e;
    }
    return add_nodes(s, snap);
}

static int numa_instances(void *state, pl_snapshot *snap)
{
    return fill(state, snap);
}

/* Parses "Node N Key: value kB" (meminfo, prefix 1) or "key value"
 * (numastat) lines into v[]; ok bit i set when key i parsed, bad when it
 * was there but malformed. */
static void parse_keys(const char *buf, int prefix, const key *keys, int nk, uint64_t *v,
                       unsigned *ok)
{
    unsigned bad = 0;
    const char *nl;
    *ok = 0;
    for (const char *p = buf; *p; p = nl + 1) {
        const char *end;
        size_t klen;
        nl = strchr(p, '\n');
        if (!nl)
            break;           /* cut-off last line */
        if (prefix) {
            uint64_t num;
            if (strncmp(p, "Node ", 5) != 0)
                continue;
            p += 5;
            if (pl_parse_u64(&p, &num) || *p != ' ')
                continue;
            while (*p == ' ')
                p++;
        }
        end = p;
        while (end < nl && *end != ':' && *end != ' ')
            end++;
        klen = (size_t)(end - p);
        for (int k = 0; k < nk; k++) {
            if (keys[k].len != klen || memcmp(p, keys[k].k, klen) != 0)
                continue;
            if (!((*ok | bad) & 1u << k)) {
                if (pl_parse_kb_line(*end == ':' ? end + 1 : end, &v[k]))
                    *ok |= 1u << k;
                else
                    bad |= 1u << k;
            }
            break;
        }
    }
}

/* Sets the counters of instance i from kB values m (ok bits mok) and page
 * counts st (ok bits sok). */
static void set_node(pl_snapshot *snap, uint32_t i, const uint64_t *m, unsigned mok,
                     const uint64_t *st, unsigned sok, int want_m, int want_s)
{
    static const uint8_t mb[][2] = {
        { C_TOTAL, M_TOTAL }, { C_FREE, M_FREE }, { C_STANDBY, M_INACT_FILE },
        { C_FILE, M_FILE }, { C_ANON, M_ANON }, { C_SLAB, M_SLAB }, { C_DIRTY, M_DIRTY },
    };
    static const uint8_t sc[][2] = {
        { C_LOCAL, S_LOCAL }, { C_REMOTE, S_OTHER }, { C_HIT, S_HIT }, { C_MISS, S_MISS },
        { C_FOREIGN, S_FOREIGN }, { C_INTERLEAVE, S_INTERLEAVE },
    };
    uint64_t a;
    if (want_m) {
        for (size_t k = 0; k < sizeof mb / sizeof mb[0]; k++)
            if (mok & 1u << mb[k][1])
                pl_snap_set(snap, i, mb[k][0], m[mb[k][1]] >> 10);
        if ((mok & 7u << M_FREE) == 7u << M_FREE &&   /* MemFree, Inactive(file), SReclaimable */
            pl_add_ok(m[M_FREE], m[M_INACT_FILE], &a) && pl_add_ok(a, m[M_SRECL], &a))
            pl_snap_set(snap, i, C_AVAIL, a >> 10);
    }
    if (want_s) {
        for (size_t k = 0; k < sizeof sc / sizeof sc[0]; k++)
            if (sok & 1u << sc[k][1])
                pl_snap_set(snap, i, sc[k][0], st[sc[k][1]]);
        if ((sok & 3u) == 3u && pl_add_ok(st[S_LOCAL], st[S_OTHER], &a)) {
            pl_snap_set(snap, i, C_PLOCAL, st[S_LOCAL]);
            pl_snap_set(snap, i, C_PLOCAL_BASE, a);
        }
    }
}

static int numa_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    numa_state *s = state;
    int e, want_m = 0, want_s = 0;
    uint64_t tm[NM] = { 0 }, ts[NS] = { 0 };
    unsigned tmok = (1u << NM) - 1, tsok = (1u << NS) - 1;
    char rel[64] = "";
    if ((e = fill(s, snap)) != 0 || s->nlist == 0)
        return e;
    for (int c = 0; c < NC; c++) {
        if (wanted && !wanted[c])
            continue;
        if (c < C_LOCAL)
            want_m = 1;
        else
            want_s = 1;
    }
    for (uint32_t i = 0; i < s->nlist; i++) {
        node *n = &s->n[s->list[i]];
        uint64_t m[NM], st[NS];
        unsigned mok = 0, sok = 0;
        if (want_m) {
            if (n->meminfo.fd < 0)
                snprintf(rel, sizeof rel, "sys/devices/system/node/node%u/meminfo", s->list[i]);
            if (pl_file_read(&n->meminfo, s->env, rel) == 0)
                parse_keys(n->meminfo.buf, 1, mkeys, NM, m, &mok);
            for (int k = 0; k < NM; k++)
                if (!(mok & 1u << k) || !pl_add_ok(tm[k], m[k], &tm[k]))
                    tmok &= ~(1u << k);
        }
        if (want_s) {
            if (n->numastat.fd < 0)
                snprintf(rel, sizeof rel, "sys/devices/system/node/node%u/numastat", s->list[i]);
            if (pl_file_read(&n->numastat, s->env, rel) == 0)
                parse_keys(n->numastat.buf, 0, skeys, NS, st, &sok);
            for (int k = 0; k < NS; k++)
                if (!(sok & 1u << k) || !pl_add_ok(ts[k], st[k], &ts[k]))
                    tsok &= ~(1u << k);
        }
        set_node(snap, i, m, mok, st, sok, want_m, want_s);
    }
    set_node(snap, s->nlist, tm, tmok, ts, tsok, want_m, want_s);
    return 0;
}

static const pl_provider_ops numa_ops = { numa_open, numa_close, numa_instances, numa_collect, NULL };

const pl_counterset_def pl_numa_def = {
    {0xdf7d9d95, 0x28c0, 0x5132, {0x87, 0xe8, 0xd2, 0x8c, 0xc0, 0x8c, 0xa5, 0x65}},
    "NUMA Node Memory",
    "Memory and allocation counts of each online NUMA node and their sum, from "
    "/sys/devices/system/node; no instances without NUMA sysfs.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &numa_ops, 18000, NULL,
};
