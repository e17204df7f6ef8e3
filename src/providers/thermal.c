/* Thermal Zone Information: one instance per /sys/class/thermal/thermal_zoneN,
 * named by its type ("acpitz", "x86_pkg_temp"); a type seen again gets "#1",
 * "#2" ... in zone order, as Windows names duplicate instances.  The id is N.
 *
 * temp is in millidegrees Celsius.  Windows gives kelvin (Temperature) and
 * tenths of a kelvin (High Precision Temperature), both rounded half up; the
 * exact value, m + 273150 millikelvin, is kept with scale -3.  A zone whose
 * temp read fails (EINVAL or ENODATA from a disabled zone, EAGAIN, EIO) or
 * holds no number keeps its instance with the values unset.  No thermal
 * class (a VM) is zero instances.  sysfs entries are symlinks into
 * /sys/devices: paths go through them.  A value file is read with one pread
 * and kept open; a removed zone's file fails with ENODEV and is reopened. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_names.h"
#include "pl_rowset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A zone's reading is its row: one field, the temperature in millikelvin. */
enum { S_ROW, NSRC };
typedef struct tzrow {
    int n;                       /* 1 with a reading, 0 without */
    uint64_t mk[1];
} tzrow;

static int kelvin(pl_feed_in *in, uint64_t *v);
static int dkelvin(pl_feed_in *in, uint64_t *v);

#define TH_ROWS(R) \
    R(0, "Temperature", "Zone temperature in kelvin, rounded (temp in millidegrees C / 1000 + " \
      "273.15).", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(KELVIN, 1, GAUGE), \
      PL_DERIVE(PL_BIT(S_ROW), kelvin)) \
    R(1, "High Precision Temperature", "Zone temperature in tenths of a kelvin, rounded, as " \
      "Windows gives it (temp in millidegrees C / 100 + 2731.5).", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(KELVIN, 0.1, GAUGE), \
      PL_DERIVE(PL_BIT(S_ROW), dkelvin)) \
    R(2, "Precise Temperature", "Zone temperature in millikelvin with scale -3, so it formats " \
      "to kelvin with every digit of temp (millidegrees C + 273150).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, -3, PL_U(KELVIN, 1e-3, GAUGE), \
      PL_FIELD(S_ROW, 0))

static const pl_counter_def counters[] = { TH_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { TH_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_N(NULL, tzrow, mk, n) };
#define NC (sizeof counters / sizeof counters[0])

/* Windows' kelvin and tenths of a kelvin, rounded half up. */
static int kelvin(pl_feed_in *in, uint64_t *v)
{
    uint64_t mk;
    if (!pl_feed_field(in, S_ROW, 0, &mk))
        return 0;
    *v = (mk + 500) / 1000;
    return 1;
}

static int dkelvin(pl_feed_in *in, uint64_t *v)
{
    uint64_t mk;
    if (!pl_feed_field(in, S_ROW, 0, &mk))
        return 0;
    *v = (mk + 50) / 100;
    return 1;
}

#define CLASS "sys/class/thermal"
#define NAME_MAX_ 64

typedef struct zone {
    unsigned num;                /* first: a pl_numbered record */
    int fd_type, fd_temp;
    char name[NAME_MAX_ + PL_NAMES_EXTRA];   /* type, then "#k" for a repeated type */
} zone;

typedef struct th_state {
    pl_env *env;
    pl_numbered zones;           /* of zone */
    pl_names names;
} th_state;

static int th_open(pl_env *env, void **state)
{
    th_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_numbered_init(&s->zones, sizeof(zone));
    pl_names_init(&s->names);
    *state = s;
    return 0;
}

static void zone_init(void *rec)
{
    zone *z = rec;
    z->fd_type = z->fd_temp = -1;
}

static void zone_close(void *rec)
{
    zone *z = rec;
    if (z->fd_type >= 0)
        close(z->fd_type);
    if (z->fd_temp >= 0)
        close(z->fd_temp);
    z->fd_type = z->fd_temp = -1;
}

static void th_close(void *state)
{
    th_state *s = state;
    if (!s)
        return;
    pl_numbered_free(&s->zones, zone_close);
    pl_names_free(&s->names);
    pl_env_unref(s->env);
    free(s);
}

/* Lists the zones, keeps their state in zone order, closes vanished ones.
 * 0, or ENOMEM; no class directory is zero zones. */
static int list_zones(th_state *s)
{
    /* cooling devices and anything else are not zones */
    return pl_numbered_list(&s->zones, s->env, CLASS, "thermal_zone", 1000001, zone_init,
                            zone_close);
}

/* Instance names: the type (read each time: a zone number can be reused by
 * a new zone), made unique in zone order. */
static int add_zones(th_state *s, pl_snapshot *snap)
{
    char rel[64], buf[NAME_MAX_ + 1];
    zone *zs = s->zones.v;
    rel[0] = '\0';
    if (pl_names_begin(&s->names, s->zones.n) != 0)
        return ENOMEM;
    for (uint32_t i = 0; i < s->zones.n; i++) {
        zone *z = &zs[i];
        size_t n = 0;
        if (z->fd_type < 0)
            snprintf(rel, sizeof rel, CLASS "/thermal_zone%u/type", z->num);
        if (pl_read_once(&z->fd_type, s->env, rel, buf, sizeof buf) == 0) {
            n = strcspn(buf, "\n");
            buf[n] = '\0';
        }
        if (n == 0)
            snprintf(buf, sizeof buf, "thermal_zone%u", z->num);
        pl_name_sanitize(buf);
        if (!pl_names_next(&s->names, buf, strlen(buf), z->name) ||
            pl_snap_add(snap, z->name, z->num) < 0)
            return ENOMEM;
    }
    return 0;
}

static int th_instances(void *state, pl_snapshot *snap)
{
    th_state *s = state;
    int e;
    pl_snap_clear(snap);
    if ((e = list_zones(s)) != 0)
        return e;
    return add_zones(s, snap);
}

static int th_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    th_state *s = state;
    char rel[64], buf[32];
    pl_feed_in in;
    int e;
    rel[0] = '\0';
    pl_snap_clear(snap);
    if ((e = list_zones(s)) != 0 || (e = add_zones(s, snap)) != 0)
        return e;
    if (wanted && !wanted[0] && !wanted[1] && !wanted[2])
        return 0;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->zones.n; i++) {
        zone *z = (zone *)s->zones.v + i;
        tzrow r = { 0, { 0 } };
        int64_t m;
        if (z->fd_temp < 0)
            snprintf(rel, sizeof rel, CLASS "/thermal_zone%u/temp", z->num);
        if (pl_read_once(&z->fd_temp, s->env, rel, buf, sizeof buf) ||
            pl_parse_i64_whole(buf, &m))
            continue;
        /* below absolute zero or beyond any sensor: a broken reading, not a value */
        if (m < -273150 || m > 1000000000)
            continue;
        r.n = 1;
        r.mk[0] = (uint64_t)(m + 273150);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

static const pl_provider_ops th_ops = { th_open, th_close, th_instances, th_collect, NULL, NULL };

const pl_counterset_def pl_thermal_def = {
    {0xcace5e07, 0x63dd, 0x55a6, {0xb8, 0x96, 0xbe, 0xd4, 0x21, 0x7b, 0xe4, 0x0b}},
    "Thermal Zone Information",
    "Temperature of each ACPI or platform thermal zone, from /sys/class/thermal/thermal_zone*/"
    "temp; no instances on machines without thermal zones.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &th_ops, 17000, NULL,
};
