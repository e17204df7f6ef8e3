/* Bonding (issue 17, item 2): one instance per bond the bonding driver lists
 * in /sys/class/net/bonding_masters, with its slaves' link states, its own
 * MII status and its mode as a code; the mode's name, the slaves and the
 * active slave are text facts (the info op).  Layout and values: kernel
 * Documentation/networking/bonding.rst, drivers/net/bonding/bond_sysfs.c
 * and bond_sysfs_slave.c (parsers in src/sources/bonding.c).
 *
 * Without the bonding module there is no bonding_masters: zero instances,
 * not an error.  A bond listed there whose directory has gone (a race with
 * its removal) is left out.  A file that cannot be read or holds something
 * else leaves its counters unset.  Small sysfs files: each is kept open
 * (pl_file) while its bond or slave exists, and read once per collect. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "bonding.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define NAME_CAP 64              /* IFNAMSIZ is 16: room to spare */

enum { C_SLAVES, C_UP, C_DOWN, C_MII, C_MODE, C_ACTIVE, NC };

#define BOND_ROWS(R) \
    R(C_SLAVES, "Slaves", "Interfaces enslaved to the bond now (the names in " \
      "/sys/class/net/<bond>/bonding/slaves).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_UP, "Slaves Up", "Slaves whose link is up (/sys/class/net/<slave>/bonding_slave/" \
      "mii_status \"up\"); \"going down\" and \"going back\" count as neither up nor down.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_DOWN, "Slaves Down", "Slaves whose link is down (/sys/class/net/<slave>/" \
      "bonding_slave/mii_status \"down\").", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(C_MII, "MII Status", "The bond's own link (/sys/class/net/<bond>/bonding/mii_status): " \
      "1 up, 0 down.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(C_MODE, "Mode", "The bonding mode's number (/sys/class/net/<bond>/bonding/mode): 0 " \
      "balance-rr, 1 active-backup, 2 balance-xor, 3 broadcast, 4 802.3ad, 5 balance-tlb, " \
      "6 balance-alb.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(C_ACTIVE, "Active Slave Present", "1 when /sys/class/net/<bond>/bonding/active_slave " \
      "names a slave, 0 when it is empty; only modes 1, 5 and 6 have an active slave " \
      "(no data in the others).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND())

static const pl_counter_def counters[] = { BOND_ROWS(PL_ROW_COUNTER) };

/* A kept sysfs file, by its path below the root. */
typedef struct bfile {
    char rel[2 * NAME_CAP + 48];
    pl_file f;
    uint64_t gen;            /* the last collect that read it */
} bfile;

typedef struct bond_state {
    pl_env *env;
    pl_file masters;
    bfile *files;
    uint32_t n, cap;
    uint64_t gen;
} bond_state;

static int bond_open(pl_env *env, void **state)
{
    bond_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_file_init(&s->masters);
    *state = s;
    return 0;
}

static void bond_close(void *state)
{
    bond_state *s = state;
    if (!s)
        return;
    pl_file_close(&s->masters);
    for (uint32_t i = 0; i < s->n; i++)
        pl_file_close(&s->files[i].f);
    free(s->files);
    pl_env_unref(s->env);
    free(s);
}

/* The text of sys/class/net/<name>/<file> (kept open), or NULL. */
static const char *bread(bond_state *s, const char *name, const char *file)
{
    char rel[sizeof s->files[0].rel];
    bfile *b = NULL;
    snprintf(rel, sizeof rel, "sys/class/net/%s/%s", name, file);
    for (uint32_t i = 0; i < s->n && !b; i++)
        if (strcmp(s->files[i].rel, rel) == 0)
            b = &s->files[i];
    if (!b) {
        if (s->n == s->cap) {
            uint32_t cap = s->cap ? 2 * s->cap : 16;
            bfile *nf = realloc(s->files, cap * sizeof *nf);
            if (!nf)
                return NULL;
            s->files = nf;
            s->cap = cap;
        }
        b = &s->files[s->n++];
        memcpy(b->rel, rel, sizeof rel);
        pl_file_init(&b->f);
    }
    b->gen = s->gen;
    if (pl_file_read(&b->f, s->env, b->rel) != 0)
        return NULL;
    return b->f.buf ? b->f.buf : "";
}

/* Files of bonds and slaves that were not read in this collect are gone. */
static void sweep(bond_state *s)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->files[i].gen != s->gen) {
            pl_file_close(&s->files[i].f);
            continue;
        }
        s->files[j++] = s->files[i];
    }
    s->n = j;
}

/* Slaves, up and down of one bond: 0, or -1 when the list is unreadable. */
static int count_slaves(bond_state *s, const char *bond, uint64_t v[3])
{
    const char *list = bread(s, bond, "bonding/slaves"), *link;
    char name[NAME_CAP];
    int r;
    v[0] = v[1] = v[2] = 0;
    if (!list)
        return -1;
    while ((r = pl_bond_next_name(&list, name, sizeof name)) == 1) {
        v[0]++;
        link = bread(s, name, "bonding_slave/mii_status");
        r = link ? pl_bond_link(link) : -1;
        v[1] += r == PL_BOND_UP;
        v[2] += r == PL_BOND_DOWN;
    }
    return r;                /* 0 at the end, -1 for a name that is no name */
}

static void bond_values(bond_state *s, const char *bond, uint32_t inst, pl_snapshot *snap)
{
    const char *t = bread(s, bond, "bonding/mode");
    int mode = t ? pl_bond_mode(t) : -1, mii;
    uint64_t v[3];
    if (mode >= 0)
        pl_snap_set(snap, inst, C_MODE, (uint64_t)mode);
    t = bread(s, bond, "bonding/mii_status");
    mii = t ? pl_bond_link(t) : -1;
    if (mii == PL_BOND_UP || mii == PL_BOND_DOWN)
        pl_snap_set(snap, inst, C_MII, mii == PL_BOND_UP);
    if (count_slaves(s, bond, v) == 0)
        for (int k = 0; k < 3; k++)
            pl_snap_set(snap, inst, C_SLAVES + (uint32_t)k, v[k]);
    if (mode == 1 || mode == 5 || mode == 6) {
        t = bread(s, bond, "bonding/active_slave");
        if (t)
            pl_snap_set(snap, inst, C_ACTIVE, strcspn(t, "\n") > 0);
    }
}

static int bond_read(bond_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    const char *p;
    char name[NAME_CAP];
    int e, r;
    uint32_t k = 0;
    (void)wanted;            /* a few small files: all are read */
    pl_snap_clear(snap);
    s->gen++;
    e = pl_file_read(&s->masters, s->env, "sys/class/net/bonding_masters");
    if (e == ENOENT || e == ENOTDIR) {
        sweep(s);
        return 0;            /* no bonding module: no bonds */
    }
    if (e) {
        snap->err_path = "sys/class/net/bonding_masters";
        return e;
    }
    p = s->masters.buf ? s->masters.buf : "";
    while ((r = pl_bond_next_name(&p, name, sizeof name)) != 0) {
        int inst;
        if (r < 0 || !bread(s, name, "bonding/mode"))
            continue;        /* not a name, or the bond went away */
        if ((inst = pl_snap_add(snap, name, k++)) < 0)
            return ENOMEM;
        if (values)
            bond_values(s, name, (uint32_t)inst, snap);
    }
    sweep(s);
    return 0;
}

static int bond_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    static const char *const files[] = { "bonding/slaves", "bonding/active_slave" };
    static const char *const keys[] = { "slaves", "active_slave" };
    bond_state *s = state;
    char val[256];
    const char *t;
    if (!instance || strchr(instance, '/') || !(t = bread(s, instance, "bonding/mode")))
        return ENOENT;
    if (pl_bond_mode(t) >= 0 && emit(ud, "mode", pl_bond_mode_name(pl_bond_mode(t))))
        return 0;
    for (int k = 0; k < 2; k++) {
        if (!(t = bread(s, instance, files[k])))
            continue;
        pl_fact_escape(t, val, sizeof val);
        if (val[0] && emit(ud, keys[k], val))
            return 0;
    }
    return 0;
}

static int bond_instances(void *state, pl_snapshot *snap)
{
    return bond_read(state, NULL, snap, 0);
}

static int bond_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    return bond_read(state, wanted, snap, 1);
}

static const pl_provider_ops bond_info_ops = { bond_open, bond_close, bond_instances, bond_collect,
                                               NULL, bond_info };

const pl_counterset_def pl_bonding_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0xdcf99e06, 0x63da, 0x5177, { 0xb5, 0x0f, 0x3b, 0x42, 0x43, 0x01, 0x5b, 0x63 } },
    "Bonding",
    "Bonded interfaces of this network namespace: slaves, their link states, the bond's MII "
    "status, mode and active slave, from /sys/class/net/bonding_masters and each bond's "
    "bonding/ directory (no instances without the bonding driver).",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &bond_info_ops, 43000, NULL,
};
