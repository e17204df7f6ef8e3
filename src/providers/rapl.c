/* Energy Meter: the RAPL energy counters of the powercap class, one instance
 * per zone /sys/class/powercap/intel-rapl:N (a package, or psys) and
 * subzone intel-rapl:N:M (core, uncore, dram), named by the zone's name file:
 * "package-0", "package-0/dram", "psys" ("#1" ... for a repeated name).  The
 * id is N << 16 | (M + 1), 0 for a zone.  AMD's RAPL driver uses the same
 * names.  intel-rapl-mmio zones are left out: they hold the power limits of
 * a package whose energy intel-rapl:N already counts.
 *
 * energy_uj counts microjoules and wraps to 0 after max_energy_range_uj (the
 * 32-bit MSR's range in the unit of the part: drivers/powercap/
 * intel_rapl_common.c, get_max_energy_counter), not at 2^32 or 2^64: a
 * reading below the previous one adds max_energy_range_uj to the zone's
 * offset, so Energy is cumulative across wraps while the set is open (one
 * wrap per interval at most: ~60 s for a 260 W package at its 262 kJ range).
 * Without a readable range a decrease is no value that collect, and the
 * next readings go on from it.  energy_uj is root-only since 5.10
 * (CVE-2020-8694, Platypus): such a zone's energy counters are no_access.
 * No powercap class (a VM) is zero instances.  Files are read with one
 * pread each and kept open; the class is listed again at each collect. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_names.h"
#include "pl_rowset.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_ENERGY, F_RANGE, NF };
enum { S_ROW, NSRC };
typedef struct raplrow {
    uint64_t v[NF];
    uint8_t st[NF];
} raplrow;

enum { C_POWER, C_ENERGY, C_RANGE, NC };

#define RAPL_ROWS(R) \
    R(C_POWER, "Power (W)", "Average power of the zone over the interval: microjoules per " \
      "second with scale -6, so it formats to watts (energy_uj, unwrapped at " \
      "max_energy_range_uj).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, -6, PL_U(JOULES, 1e-6, COUNTER), \
      PL_FIELD(S_ROW, F_ENERGY)) \
    R(C_ENERGY, "Energy (J)", "Energy the zone used since the set was opened plus the " \
      "counter's value then, in microjoules with scale -6, so it formats to joules " \
      "(energy_uj, unwrapped at max_energy_range_uj).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, -6, \
      PL_U(JOULES, 1e-6, COUNTER), PL_FIELD(S_ROW, F_ENERGY)) \
    R(C_RANGE, "Energy Range (J)", "Value at which energy_uj wraps to 0, in microjoules with " \
      "scale -6 (max_energy_range_uj).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, -6, \
      PL_U(JOULES, 1e-6, DISCRETE), PL_FIELD(S_ROW, F_RANGE))

static const pl_counter_def counters[] = { RAPL_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { RAPL_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, raplrow) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

#define CLASS "sys/class/powercap"
#define PFX "intel-rapl:"
#define MAX_ZONES 256
#define NAME_MAX_ 48

typedef struct zone {
    unsigned n, m;           /* intel-rapl:n, or intel-rapl:n:(m - 1) when m > 0 */
    int seen;                /* in this listing */
    int efd, rfd;            /* energy_uj, max_energy_range_uj */
    uint64_t last, offset;   /* the last reading and what the wraps added */
    int have_last;
    char name[NAME_MAX_ * 2 + PL_NAMES_EXTRA + 2];
} zone;

typedef struct rapl_state {
    pl_env *env;
    zone *z;
    uint32_t nz, cap;
    pl_names names;
    int no_class;
} rapl_state;

static int rapl_open(pl_env *env, void **state)
{
    rapl_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_names_init(&s->names);
    *state = s;
    return 0;
}

static void zone_close(zone *z)
{
    if (z->efd >= 0)
        close(z->efd);
    if (z->rfd >= 0)
        close(z->rfd);
}

static void rapl_close(void *state)
{
    rapl_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->nz; i++)
        zone_close(&s->z[i]);
    free(s->z);
    pl_names_free(&s->names);
    pl_env_unref(s->env);
    free(s);
}

/* "intel-rapl:N" or "intel-rapl:N:M" -> n, m (M + 1, 0 for a zone). */
static int zone_dir(const char *d, unsigned *n, unsigned *m)
{
    const char *p = d + sizeof PFX - 1;
    uint64_t a, b = 0;
    if (strncmp(d, PFX, sizeof PFX - 1) != 0 || *p < '0' || *p > '9' || pl_parse_u64(&p, &a) ||
        a >= 4096)
        return 0;
    if (*p == ':') {
        p++;
        if (*p < '0' || *p > '9' || pl_parse_u64(&p, &b) || b >= 4095)
            return 0;
        b++;
    }
    *n = (unsigned)a;
    *m = (unsigned)b;
    return *p == '\0';
}

static int cmp_zone(const void *a, const void *b)
{
    const zone *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return (x->m > y->m) - (x->m < y->m);
}

/* The zone n:m, added (unnamed) when new. */
static zone *find_zone(rapl_state *s, unsigned n, unsigned m)
{
    for (uint32_t i = 0; i < s->nz; i++)
        if (s->z[i].n == n && s->z[i].m == m)
            return &s->z[i];
    if (s->nz >= MAX_ZONES)
        return NULL;
    if (s->nz == s->cap) {
        uint32_t c = s->cap ? s->cap * 2 : 8;
        zone *nz = realloc(s->z, c * sizeof *nz);
        if (!nz)
            return NULL;
        s->z = nz;
        s->cap = c;
    }
    memset(&s->z[s->nz], 0, sizeof s->z[0]);
    s->z[s->nz].n = n;
    s->z[s->nz].m = m;
    s->z[s->nz].efd = s->z[s->nz].rfd = -1;
    return &s->z[s->nz++];
}

/* The path of a file of zone z, or with file "" the zone's directory name. */
static void zone_rel(const zone *z, const char *file, char *rel, size_t size)
{
    const char *pre = *file ? CLASS "/" : "", *sep = *file ? "/" : "";
    if (z->m)
        snprintf(rel, size, "%s" PFX "%u:%u%s%s", pre, z->n, z->m - 1, sep, file);
    else
        snprintf(rel, size, "%s" PFX "%u%s%s", pre, z->n, sep, file);
}

/* The zone's name file, sanitised; "intel-rapl:N[:M]" without one. */
static void zone_label(rapl_state *s, const zone *z, char *out, size_t size)
{
    char rel[96], buf[NAME_MAX_ + 1];
    int fd = -1;
    zone_rel(z, "name", rel, sizeof rel);
    if (pl_read_once(&fd, s->env, rel, buf, sizeof buf) == 0) {
        buf[strcspn(buf, "\n")] = '\0';
        pl_name_sanitize(buf);
    } else {
        buf[0] = '\0';
    }
    if (fd >= 0)
        close(fd);
    if (buf[0])
        snprintf(out, size, "%s", buf);
    else
        zone_rel(z, "", out, size);
}

/* Lists the zones: drops vanished ones, adds new ones, names them
 * ("package/sub" for subzones) in (n, m) order. */
static int list_zones(rapl_state *s)
{
    DIR *d;
    struct dirent *de;
    int fd;
    uint32_t k = 0;
    char label[NAME_MAX_ + 16], pkg[NAME_MAX_ + 16] = "", full[sizeof label * 2];
    for (uint32_t i = 0; i < s->nz; i++)
        s->z[i].seen = 0;
    if (s->no_class || (fd = pl_open_rel(s->env, CLASS)) < 0 || !(d = fdopendir(fd))) {
        s->no_class = 1;     /* no powercap driver: the class does not appear later */
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        unsigned n, m;
        zone *z;
        if (!zone_dir(de->d_name, &n, &m))
            continue;
        if (!(z = find_zone(s, n, m))) {
            closedir(d);
            return ENOMEM;
        }
        z->seen = 1;
    }
    closedir(d);
    for (uint32_t i = 0; i < s->nz; i++) {
        if (s->z[i].seen)
            s->z[k++] = s->z[i];
        else
            zone_close(&s->z[i]);
    }
    s->nz = k;
    qsort(s->z, s->nz, sizeof *s->z, cmp_zone);
    if (pl_names_begin(&s->names, s->nz))
        return ENOMEM;
    for (uint32_t i = 0; i < s->nz; i++) {
        zone *z = &s->z[i];
        int sub = z->m && i > 0 && s->z[i - 1].n == z->n && pkg[0];   /* below its zone */
        zone_label(s, z, label, sizeof label);
        if (!z->m)
            snprintf(pkg, sizeof pkg, "%s", label);
        else if (!sub)
            pkg[0] = '\0';
        snprintf(full, sizeof full, "%s%s%s", sub ? pkg : "", sub ? "/" : "", label);
        if (!pl_names_next(&s->names, full, strlen(full), z->name))
            return ENOMEM;
    }
    return 0;
}

static int add_all(rapl_state *s, pl_snapshot *snap)
{
    for (uint32_t i = 0; i < s->nz; i++)
        if (pl_snap_add(snap, s->z[i].name, s->z[i].n << 16 | s->z[i].m) < 0)
            return ENOMEM;
    return 0;
}

static int rapl_instances(void *state, pl_snapshot *snap)
{
    rapl_state *s = state;
    int e;
    pl_snap_clear(snap);
    if ((e = list_zones(s)) != 0)
        return e;
    return add_all(s, snap);
}

/* One number of the zone's file; 0 with *v, or the errno (EINVAL: not a number). */
static int read_num(rapl_state *s, const zone *z, int *fd, const char *file, uint64_t *v)
{
    char buf[32], rel[96] = "";
    int64_t n;
    int e;
    if (*fd < 0)
        zone_rel(z, file, rel, sizeof rel);
    if ((e = pl_read_once(fd, s->env, rel, buf, sizeof buf)) != 0)
        return e;
    if (pl_parse_i64_whole(buf, &n) || n < 0)
        return EINVAL;
    *v = (uint64_t)n;
    return 0;
}

/* Unwraps reading r of zone z (range, when have_range): 1 with *v. */
static int unwrap(zone *z, uint64_t r, int have_range, uint64_t range, uint64_t *v)
{
    int ok = 1;
    if (z->have_last && r < z->last) {
        if (have_range && range >= z->last)
            ok = pl_add_ok(z->offset, range, &z->offset);
        else
            ok = 0;          /* no range to unwrap with: go on from here */
        if (!ok)
            z->offset = z->offset + z->last - r;   /* keeps the sum steady next time */
    }
    z->last = r;
    z->have_last = 1;
    return ok && pl_add_ok(z->offset, r, v);
}

static int rapl_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    rapl_state *s = state;
    raplrow row;
    pl_feed_in in;
    int e;
    pl_snap_clear(snap);
    if ((e = list_zones(s)) != 0 || (e = add_all(s, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->nz; i++) {
        zone *z = &s->z[i];
        uint64_t r, range = 0;
        int have_range = read_num(s, z, &z->rfd, "max_energy_range_uj", &range) == 0 && range > 0;
        memset(row.st, PL_NS_ABSENT, sizeof row.st);
        if (have_range) {
            row.v[F_RANGE] = range;
            row.st[F_RANGE] = PL_NS_OK;
        }
        /* energy_uj is read every time, wanted or not: the unwrap needs each reading */
        e = read_num(s, z, &z->efd, "energy_uj", &r);
        if (e == 0 && unwrap(z, r, have_range, range, &row.v[F_ENERGY]))
            row.st[F_ENERGY] = PL_NS_OK;
        pl_feed_put(&in, S_ROW, &row);
        pl_feed_walk(&in, i, feeds, NC, wanted);
        if (e == EACCES || e == EPERM) {
            pl_snap_deny(snap, i, C_POWER);
            pl_snap_deny(snap, i, C_ENERGY);
        }
    }
    return 0;
}

static const pl_provider_ops rapl_ops = { rapl_open, rapl_close, rapl_instances, rapl_collect,
                                          NULL, NULL };

const pl_counterset_def pl_rapl_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0xb0f700c7, 0xe9e6, 0x5551, { 0xb8, 0xdb, 0x54, 0xab, 0xe5, 0x9a, 0x42, 0x87 } },
    "Energy Meter",
    "Energy and average power of each RAPL zone (package, core, uncore, dram, psys) from "
    "/sys/class/powercap/intel-rapl:N[:M]; energy_uj is root-only since Linux 5.10; no "
    "instances without a powercap driver.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &rapl_ops, 44000, NULL,
};
