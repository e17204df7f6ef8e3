/* EDAC Memory Controller: memory errors the EDAC drivers count, from
 * /sys/devices/system/edac/mc (Documentation/admin-guide/ras.rst,
 * drivers/edac/edac_mc_sysfs.c).  One instance per memory controller
 * ("mc0"), per DIMM ("mc0/dimm3": dimmN/dimm_ce_count, dimm_ue_count, size,
 * kernels 3.6 and later) and per chip-select row ("mc0/csrow1": csrowN/
 * ce_count, ue_count, size_mb, the legacy layout CONFIG_EDAC_LEGACY_SYSFS
 * keeps).  The id is mc << 16 | kind << 12 | N (kind 0 controller, 1 dimm,
 * 2 csrow).  Errors are totals since the driver loaded (or the last write to
 * reset_counters): alert on their increase.  The controller's noinfo counts
 * are errors the driver could not place on a DIMM.
 *
 * A controller's DIMMs and rows are scanned when it is first seen; a file
 * that fails with ENOENT or ENODEV (the driver unloaded) has it scanned
 * again.  A value that is not a non-negative number is no value.  No EDAC
 * driver (a VM, most desktops) is zero instances. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_CE, F_UE, F_CE_NOINFO, F_UE_NOINFO, F_SIZE, NF };
enum { S_ROW, NSRC };
typedef struct edrow {
    uint64_t v[NF];
    uint8_t st[NF];
} edrow;

#define ED_ROWS(R) \
    R(0, "Corrected Errors", "Correctable memory errors since the driver loaded " \
      "(mcN/ce_count, dimmN/dimm_ce_count, csrowN/ce_count).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_ROW, F_CE)) \
    R(1, "Uncorrected Errors", "Uncorrectable memory errors since the driver loaded " \
      "(mcN/ue_count, dimmN/dimm_ue_count, csrowN/ue_count).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_ROW, F_UE)) \
    R(2, "Corrected Errors No Info", "Correctable errors of a controller that could not be " \
      "placed on a DIMM (mcN/ce_noinfo_count).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_ROW, F_CE_NOINFO)) \
    R(3, "Uncorrected Errors No Info", "Uncorrectable errors of a controller that could not be " \
      "placed on a DIMM (mcN/ue_noinfo_count).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_ROW, F_UE_NOINFO)) \
    R(4, "Size Bytes", "Memory behind the controller, DIMM or row, in bytes (mcN/size_mb, " \
      "dimmN/size, csrowN/size_mb, in MiB, x 1048576).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(BYTES, 1, DISCRETE), \
      PL_FIELD(S_ROW, F_SIZE))

static const pl_counter_def counters[] = { ED_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { ED_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, edrow) };
#define NC (sizeof counters / sizeof counters[0])

#define MC_DIR "sys/devices/system/edac/mc"
#define MAX_ITEMS 1024

enum { K_MC, K_DIMM, K_CSROW, NKIND };
static const char *const kind_dir[NKIND] = { "", "dimm", "csrow" };
/* the files of each field per kind; NULL: none */
static const char *const kind_file[NKIND][NF] = {
    { "ce_count", "ue_count", "ce_noinfo_count", "ue_noinfo_count", "size_mb" },
    { "dimm_ce_count", "dimm_ue_count", NULL, NULL, "size" },
    { "ce_count", "ue_count", NULL, NULL, "size_mb" },
};

typedef struct item {
    uint8_t kind;
    unsigned n;
    int fd[NF];
    char name[40];
} item;

typedef struct mc {
    unsigned num;            /* first: a pl_numbered record */
    int scanned;
    item *it;                /* it[0] is the controller */
    uint32_t nit;
} mc;

typedef struct ed_state {
    pl_env *env;
    pl_numbered mcs;         /* of mc */
} ed_state;

static int ed_open(pl_env *env, void **state)
{
    ed_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_numbered_init(&s->mcs, sizeof(mc));
    *state = s;
    return 0;
}

static void mc_clear(mc *m)
{
    for (uint32_t i = 0; i < m->nit; i++)
        for (int f = 0; f < NF; f++)
            if (m->it[i].fd[f] >= 0)
                close(m->it[i].fd[f]);
    free(m->it);
    m->it = NULL;
    m->nit = 0;
    m->scanned = 0;
}

static void mc_drop(void *rec)
{
    mc_clear(rec);
}

static void ed_close(void *state)
{
    ed_state *s = state;
    if (!s)
        return;
    pl_numbered_free(&s->mcs, mc_drop);
    pl_env_unref(s->env);
    free(s);
}

/* "dimm12" or "csrow3" -> kind, n. */
static int sub_dir(const char *d, uint8_t *kind, unsigned *n)
{
    for (uint8_t k = K_DIMM; k < NKIND; k++) {
        size_t l = strlen(kind_dir[k]);
        const char *p = d + l;
        uint64_t v;
        if (strncmp(d, kind_dir[k], l) == 0 && *p >= '0' && *p <= '9' &&
            !pl_parse_u64(&p, &v) && !*p && v < 4096) {
            *kind = k;
            *n = (unsigned)v;
            return 1;
        }
    }
    return 0;
}

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->n > y->n) - (x->n < y->n);
}

static int add_item(mc *m, uint32_t *cap, uint8_t kind, unsigned n)
{
    item *x;
    if (m->nit >= MAX_ITEMS)
        return 0;
    if (m->nit == *cap) {
        uint32_t c = *cap ? *cap * 2 : 8;
        item *ni = realloc(m->it, c * sizeof *ni);
        if (!ni)
            return ENOMEM;
        m->it = ni;
        *cap = c;
    }
    x = &m->it[m->nit++];
    x->kind = kind;
    x->n = n;
    for (int f = 0; f < NF; f++)
        x->fd[f] = -1;
    if (kind == K_MC)
        snprintf(x->name, sizeof x->name, "mc%u", m->num);
    else
        snprintf(x->name, sizeof x->name, "mc%u/%s%u", m->num, kind_dir[kind], n);
    return 0;
}

/* The controller and its DIMMs and rows, in (kind, number) order. */
static int scan_mc(ed_state *s, mc *m)
{
    char rel[64];
    uint32_t cap = 0;
    struct dirent *de;
    DIR *d;
    int fd, e;
    mc_clear(m);
    m->scanned = 1;
    if ((e = add_item(m, &cap, K_MC, 0)) != 0)
        return e;
    snprintf(rel, sizeof rel, MC_DIR "/mc%u", m->num);
    if ((fd = pl_open_rel(s->env, rel)) < 0)
        return 0;
    if (!(d = fdopendir(fd))) {
        close(fd);
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        uint8_t kind;
        unsigned n;
        if (sub_dir(de->d_name, &kind, &n) && (e = add_item(m, &cap, kind, n)) != 0) {
            closedir(d);
            return e;
        }
    }
    closedir(d);
    if (m->nit > 2)
        qsort(m->it + 1, m->nit - 1, sizeof *m->it, cmp_item);
    return 0;
}

static int list_all(ed_state *s, pl_snapshot *snap)
{
    mc *ms;
    int e;
    pl_snap_clear(snap);
    if ((e = pl_numbered_list(&s->mcs, s->env, MC_DIR, "mc", 65536, NULL, mc_drop)) != 0)
        return e;
    ms = s->mcs.v;
    for (uint32_t i = 0; i < s->mcs.n; i++) {
        if (!ms[i].scanned && (e = scan_mc(s, &ms[i])) != 0)
            return e;
        for (uint32_t k = 0; k < ms[i].nit; k++) {
            const item *x = &ms[i].it[k];
            if (pl_snap_add(snap, x->name, ms[i].num << 16 | (uint32_t)x->kind << 12 | x->n) < 0)
                return ENOMEM;
        }
    }
    return 0;
}

static int ed_instances(void *state, pl_snapshot *snap)
{
    return list_all(state, snap);
}

/* Field f of item x: 1 with *v.  A vanished file has the controller scanned again. */
static int read_field(ed_state *s, mc *m, item *x, int f, uint64_t *v)
{
    char rel[96] = "", buf[32];
    int64_t n;
    int e;
    if (x->fd[f] < 0) {
        if (x->kind == K_MC)
            snprintf(rel, sizeof rel, MC_DIR "/mc%u/%s", m->num, kind_file[x->kind][f]);
        else
            snprintf(rel, sizeof rel, MC_DIR "/mc%u/%s%u/%s", m->num, kind_dir[x->kind], x->n,
                     kind_file[x->kind][f]);
    }
    e = pl_read_once(&x->fd[f], s->env, rel, buf, sizeof buf);
    if (e == ENOENT || e == ENODEV)
        m->scanned = 0;
    if (e || pl_parse_i64_whole(buf, &n) || n < 0)
        return 0;
    *v = (uint64_t)n;
    return 1;
}

static int ed_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    ed_state *s = state;
    uint32_t inst = 0;
    pl_feed_in in;
    edrow r;
    int e;
    if ((e = list_all(s, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->mcs.n; i++) {
        mc *m = (mc *)s->mcs.v + i;
        uint32_t nit = m->nit;   /* a failed read may clear `scanned`, never the items */
        for (uint32_t k = 0; k < nit; k++, inst++) {
            item *x = &m->it[k];
            memset(r.st, PL_NS_ABSENT, sizeof r.st);
            for (int f = 0; f < NF; f++) {
                if (!kind_file[x->kind][f] || (wanted && !wanted[f]) ||
                    !read_field(s, m, x, f, &r.v[f]))
                    continue;
                r.st[f] = PL_NS_OK;
                if (f == F_SIZE && !pl_mul_ok(r.v[f], 1048576, &r.v[f]))
                    r.st[f] = PL_NS_BAD;
            }
            pl_feed_put(&in, S_ROW, &r);
            pl_feed_walk(&in, inst, feeds, NC, wanted);
        }
    }
    return 0;
}

static const pl_provider_ops ed_ops = { ed_open, ed_close, ed_instances, ed_collect, NULL, NULL };

const pl_counterset_def pl_edac_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x2ff18bd6, 0x32b8, 0x5ba4, { 0xad, 0xe3, 0x40, 0x02, 0x52, 0xa5, 0xb1, 0x48 } },
    "EDAC Memory Controller",
    "Corrected and uncorrected memory errors counted by the EDAC drivers per memory "
    "controller, DIMM and chip-select row, from /sys/devices/system/edac/mc; no instances "
    "without an EDAC driver.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ed_ops, 46000, NULL,
};
