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

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { C_TEMP, C_HPTEMP, C_MK, NC };

static const pl_counter_def counters[NC] = {
    { C_TEMP, "Temperature", "Zone temperature in kelvin, rounded (temp in millidegrees C / 1000 + 273.15).",
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8 },
    { C_HPTEMP, "High Precision Temperature", "Zone temperature in tenths of a kelvin, rounded, "
      "as Windows gives it (temp in millidegrees C / 100 + 2731.5).",
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8 },
    { C_MK, "Precise Temperature", "Zone temperature in millikelvin with scale -3, so it formats "
      "to kelvin with every digit of temp (millidegrees C + 273150).",
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, -3, 8 },
};

#define CLASS "sys/class/thermal"
#define NAME_MAX_ 64

typedef struct zone {
    unsigned num;
    int fd_type, fd_temp;
    int seen;
    char type[NAME_MAX_ + 1];    /* the type file, sanitised */
    char name[NAME_MAX_ + 16];   /* type, then "#k" for a repeated type */
} zone;

typedef struct th_state {
    pl_env *env;
    DIR *dir;                    /* the class directory, rewound each time */
    int no_class;
    zone *z;
    uint32_t nz, cap;
} th_state;

static int th_open(pl_env *env, void **state)
{
    th_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    *state = s;
    return 0;
}

static void zone_close(zone *z)
{
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
    for (uint32_t i = 0; i < s->nz; i++)
        zone_close(&s->z[i]);
    free(s->z);
    if (s->dir)
        closedir(s->dir);
    pl_env_unref(s->env);
    free(s);
}

/* One pread at offset 0 of a kept-open sysfs file (the attribute's show()
 * runs once).  0 with buf NUL-terminated, or errno; a file whose device is
 * gone is closed so that the next call opens the new one. */
static int read_once(int *fd, const pl_env *env, const char *rel, char *buf, size_t size)
{
    ssize_t r;
    if (*fd < 0 && (*fd = pl_open_rel(env, rel)) < 0)
        return errno;
    do
        r = pread(*fd, buf, size - 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        int e = errno;
        if (e == ENODEV || e == ENOENT || e == ESTALE || e == EISDIR) {
            close(*fd);
            *fd = -1;
        }
        return e;
    }
    buf[r] = '\0';
    return 0;
}

/* A whole file that is one signed decimal and an optional newline. */
static int parse_i64(const char *p, int64_t *v)
{
    uint64_t u;
    int neg = *p == '-';
    p += neg;
    if (*p < '0' || *p > '9' || pl_parse_u64(&p, &u) || u > (uint64_t)INT64_MAX)
        return 0;
    if (*p == '\n')
        p++;
    if (*p)
        return 0;
    *v = neg ? -(int64_t)u : (int64_t)u;
    return 1;
}

static int cmp_zone(const void *a, const void *b)
{
    unsigned x = ((const zone *)a)->num, y = ((const zone *)b)->num;
    return (x > y) - (x < y);
}

static zone *find_zone(th_state *s, unsigned num)
{
    for (uint32_t i = 0; i < s->nz; i++)
        if (s->z[i].num == num)
            return &s->z[i];
    return NULL;
}

/* "thermal_zone<N>" -> N; cooling devices and anything else -> 0. */
static int zone_number(const char *name, unsigned *num)
{
    const char *p = name + 12;
    uint64_t v;
    if (strncmp(name, "thermal_zone", 12) != 0 || pl_parse_u64(&p, &v) || *p || v > 1000000)
        return 0;
    *num = (unsigned)v;
    return 1;
}

/* Lists the zones, keeps their state in zone order, closes vanished ones.
 * 0, or ENOMEM; no class directory is zero zones. */
static int list_zones(th_state *s)
{
    struct dirent *de;
    uint32_t k = 0;
    if (!s->dir) {
        int fd;
        if (s->no_class)
            return 0;
        fd = pl_open_rel(s->env, CLASS);
        if (fd < 0 || !(s->dir = fdopendir(fd))) {
            if (fd >= 0)
                close(fd);
            s->no_class = 1;     /* a machine does not grow a thermal class */
            s->nz = 0;
            return 0;
        }
    } else {
        rewinddir(s->dir);
    }
    for (uint32_t i = 0; i < s->nz; i++)
        s->z[i].seen = 0;
    while ((de = readdir(s->dir)) != NULL) {
        unsigned num;
        zone *z;
        if (!zone_number(de->d_name, &num))
            continue;
        if ((z = find_zone(s, num)) != NULL) {
            z->seen = 1;
            continue;
        }
        if (s->nz == s->cap) {
            uint32_t nc = s->cap ? s->cap * 2 : 8;
            zone *nz = realloc(s->z, nc * sizeof *nz);
            if (!nz)
                return ENOMEM;
            s->z = nz;
            s->cap = nc;
        }
        z = &s->z[s->nz++];
        z->num = num;
        z->fd_type = z->fd_temp = -1;
        z->seen = 1;
    }
    for (uint32_t i = 0; i < s->nz; i++) {
        if (s->z[i].seen)
            s->z[k++] = s->z[i];
        else
            zone_close(&s->z[i]);
    }
    s->nz = k;
    if (s->nz > 1)
        qsort(s->z, s->nz, sizeof *s->z, cmp_zone);
    return 0;
}

/* Instance names: the type (read each time: a zone number can be reused by
 * a new zone), made unique in zone order. */
static int add_zones(th_state *s, pl_snapshot *snap)
{
    char rel[64], buf[NAME_MAX_ + 1];
    rel[0] = '\0';
    for (uint32_t i = 0; i < s->nz; i++) {
        zone *z = &s->z[i];
        size_t n = 0;
        unsigned dup = 0;
        if (z->fd_type < 0)
            snprintf(rel, sizeof rel, CLASS "/thermal_zone%u/type", z->num);
        if (read_once(&z->fd_type, s->env, rel, buf, sizeof buf) == 0) {
            n = strcspn(buf, "\n");
            buf[n] = '\0';
        }
        if (n == 0)
            snprintf(buf, sizeof buf, "thermal_zone%u", z->num);
        /* '\' would end the instance part of a counter path */
        for (char *c = buf; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == '\\')
                *c = '_';
        memcpy(z->type, buf, sizeof z->type);
        for (uint32_t j = 0; j < i; j++)
            dup += strcmp(s->z[j].type, buf) == 0;
        if (dup)
            snprintf(z->name, sizeof z->name, "%s#%u", buf, dup);
        else
            snprintf(z->name, sizeof z->name, "%s", buf);
        if (pl_snap_add(snap, z->name, z->num) < 0)
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
    int e;
    rel[0] = '\0';
    pl_snap_clear(snap);
    if ((e = list_zones(s)) != 0 || (e = add_zones(s, snap)) != 0)
        return e;
    if (wanted && !wanted[C_TEMP] && !wanted[C_HPTEMP] && !wanted[C_MK])
        return 0;
    for (uint32_t i = 0; i < s->nz; i++) {
        zone *z = &s->z[i];
        int64_t m;
        uint64_t mk;
        if (z->fd_temp < 0)
            snprintf(rel, sizeof rel, CLASS "/thermal_zone%u/temp", z->num);
        if (read_once(&z->fd_temp, s->env, rel, buf, sizeof buf) || !parse_i64(buf, &m))
            continue;
        /* below absolute zero or beyond any sensor: a broken reading, not a value */
        if (m < -273150 || m > 1000000000)
            continue;
        mk = (uint64_t)(m + 273150);
        pl_snap_set(snap, i, C_TEMP, (mk + 500) / 1000);
        pl_snap_set(snap, i, C_HPTEMP, (mk + 50) / 100);
        pl_snap_set(snap, i, C_MK, mk);
    }
    return 0;
}

static const pl_provider_ops th_ops = { th_open, th_close, th_instances, th_collect };

const pl_counterset_def pl_thermal_def = {
    {0xcace5e07, 0x63dd, 0x55a6, {0xb8, 0x96, 0xbe, 0xd4, 0x21, 0x7b, 0xe4, 0x0b}},
    "Thermal Zone Information",
    "Temperature of each ACPI or platform thermal zone, from /sys/class/thermal/thermal_zone*/"
    "temp; no instances on machines without thermal zones.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &th_ops, 17000,
};
