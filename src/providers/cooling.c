/* Cooling Device: one instance per /sys/class/thermal/cooling_deviceN, named
 * by its type ("Processor", "intel_powerclamp", "TCC Offset", "Fan"); a type
 * seen again gets "#1", "#2" ... in device order.  The id is N.
 *
 * cur_state and max_state are the device's throttle steps (0: not cooling
 * at all; a fan's speed step, a processor's P-state cap, powerclamp's idle
 * percentage).  With CONFIG_THERMAL_STATISTICS the device also has stats/:
 * total_trans counts state changes and time_in_state_ms gives the time spent
 * in each state ("state<k>\t<ms>" lines, drivers/thermal/thermal_sysfs.c,
 * time_in_state_ms_show); the time outside state 0 is % Time Cooling (a
 * last line without its newline counts, as in every set).
 * Without stats/ those counters are no_data.  A value that is not a
 * non-negative number, or a cur_state above max_state, is no value.  No
 * thermal class or no cooling device (a VM) is zero instances.  Files are
 * read with one pread each and kept open; the class is listed at each
 * collect. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_names.h"
#include "pl_rowset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { F_CUR, F_MAX, F_TRANS, F_COOLING, NF };
enum { S_ROW, NSRC };
typedef struct cdrow {
    uint64_t v[NF];
    uint8_t st[NF];
} cdrow;

enum { C_CUR, C_MAX, C_PCT, C_PCT_BASE, C_TRANS, C_COOLING, NC };

#define CD_ROWS(R) \
    R(C_CUR, "Current State", "Throttle step the device is in, 0 for none (cur_state).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(NONE, 1, GAUGE), \
      PL_FIELD(S_ROW, F_CUR)) \
    R(C_MAX, "Max State", "Highest throttle step of the device (max_state).", \
      PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(NONE, 1, DISCRETE), \
      PL_FIELD(S_ROW, F_MAX)) \
    R(C_PCT, "% Of Max State", "cur_state as a percentage of max_state: how hard the device " \
      "cools or throttles now.", \
      PERF_LARGE_RAW_FRACTION, C_PCT_BASE, PERF_DETAIL_NOVICE, 0, PL_U(NONE, 1, GAUGE), \
      PL_FIELD(S_ROW, F_CUR)) \
    R(C_PCT_BASE, "% Of Max State Base", "max_state, the base of % Of Max State.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(NONE, 1, DISCRETE), \
      PL_FIELD(S_ROW, F_MAX)) \
    R(C_TRANS, "State Changes/sec", "Changes of cur_state per second (stats/total_trans, " \
      "CONFIG_THERMAL_STATISTICS).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_ROW, F_TRANS)) \
    R(C_COOLING, "% Time Cooling", "Share of the interval the device spent in a state above 0, " \
      "from the time outside state 0 in 100 ns (stats/time_in_state_ms, " \
      "CONFIG_THERMAL_STATISTICS).", \
      PERF_100NSEC_TIMER, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(SECONDS, 1e-7, COUNTER), \
      PL_FIELD(S_ROW, F_COOLING))

static const pl_counter_def counters[] = { CD_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { CD_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, cdrow) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

#define CLASS "sys/class/thermal"
#define NAME_MAX_ 64

enum { FD_TYPE, FD_CUR, FD_MAX, FD_TRANS, FD_TIS, NFD };
static const char *const files[NFD] = {
    "type", "cur_state", "max_state", "stats/total_trans", "stats/time_in_state_ms",
};

typedef struct cdev {
    unsigned num;                /* first: a pl_numbered record */
    int fd[NFD];
    char name[NAME_MAX_ + PL_NAMES_EXTRA];
} cdev;

typedef struct cd_state {
    pl_env *env;
    pl_numbered devs;            /* of cdev */
    pl_names names;
} cd_state;

static int cd_open(pl_env *env, void **state)
{
    cd_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_numbered_init(&s->devs, sizeof(cdev));
    pl_names_init(&s->names);
    *state = s;
    return 0;
}

static void dev_init(void *rec)
{
    cdev *d = rec;
    for (int k = 0; k < NFD; k++)
        d->fd[k] = -1;
}

static void dev_close(void *rec)
{
    cdev *d = rec;
    for (int k = 0; k < NFD; k++) {
        if (d->fd[k] >= 0)
            close(d->fd[k]);
        d->fd[k] = -1;
    }
}

static void cd_close(void *state)
{
    cd_state *s = state;
    if (!s)
        return;
    pl_numbered_free(&s->devs, dev_close);
    pl_names_free(&s->names);
    pl_env_unref(s->env);
    free(s);
}

/* One pread of file k of device d into buf: 0, or the errno. */
static int read_dev(cd_state *s, cdev *d, int k, char *buf, size_t size)
{
    char rel[96] = "";
    if (d->fd[k] == -1)   /* not yet open; PL_FD_ABSENT: not there */
        snprintf(rel, sizeof rel, CLASS "/cooling_device%u/%s", d->num, files[k]);
    return pl_read_attr(&d->fd[k], s->env, rel, buf, size);
}

/* Lists the devices and names them by type (read each time: a number can
 * be reused by a new device), unique in device order. */
static int list_devs(cd_state *s, pl_snapshot *snap)
{
    char buf[NAME_MAX_ + 1];
    int e;
    pl_snap_clear(snap);
    if ((e = pl_numbered_list(&s->devs, s->env, CLASS, "cooling_device", 1000001, dev_init,
                              dev_close)) != 0)
        return e;
    if (pl_names_begin(&s->names, s->devs.n) != 0)
        return ENOMEM;
    for (uint32_t i = 0; i < s->devs.n; i++) {
        cdev *d = (cdev *)s->devs.v + i;
        size_t n = 0;
        if (read_dev(s, d, FD_TYPE, buf, sizeof buf) == 0) {
            n = strcspn(buf, "\n");
            buf[n] = '\0';
        }
        if (n == 0)
            snprintf(buf, sizeof buf, "cooling_device%u", d->num);
        pl_name_sanitize(buf);
        if (!pl_names_next(&s->names, buf, strlen(buf), d->name) ||
            pl_snap_add(snap, d->name, d->num) < 0)
            return ENOMEM;
    }
    return 0;
}

static int cd_instances(void *state, pl_snapshot *snap)
{
    return list_devs(state, snap);
}

/* A one-number file: 1 with *v when it is a non-negative decimal. */
static int read_u(cd_state *s, cdev *d, int k, uint64_t *v)
{
    char buf[32];
    int64_t n;
    if (read_dev(s, d, k, buf, sizeof buf) || pl_parse_i64_whole(buf, &n) || n < 0)
        return 0;
    *v = (uint64_t)n;
    return 1;
}

/* time_in_state_ms: the milliseconds of every state above 0, in 100 ns.
 * 1 with *v; 0 when a line is malformed, the file fills the buffer (it may
 * be cut) or the sum overflows. */
static int cooling_time(cd_state *s, cdev *d, uint64_t *v)
{
    char buf[8192];
    const char *p = buf;
    uint64_t ms = 0;
    if (read_dev(s, d, FD_TIS, buf, sizeof buf) || strlen(buf) >= sizeof buf - 1)
        return 0;        /* unread, or maybe cut by the buffer */
    while (*p) {
        uint64_t k, t;
        if (strncmp(p, "state", 5) != 0)
            return 0;
        p += 5;
        if (*p < '0' || *p > '9' || pl_parse_u64(&p, &k) || (*p != '\t' && *p != ' '))
            return 0;
        while (*p == '\t' || *p == ' ')
            p++;
        if (*p < '0' || *p > '9' || pl_parse_u64(&p, &t) || (*p != '\n' && *p != '\0'))
            return 0;
        if (*p)
            p++;     /* a last line without '\n' counts like any other */
        if (k > 0 && !pl_add_ok(ms, t, &ms))
            return 0;
    }
    return pl_mul_ok(ms, 10000, v);
}

static int cd_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    cd_state *s = state;
    int want_cur = !wanted || wanted[C_CUR] || wanted[C_PCT] || wanted[C_PCT_BASE];
    int want_max = !wanted || wanted[C_MAX] || wanted[C_PCT] || wanted[C_PCT_BASE];
    pl_feed_in in;
    cdrow r;
    int e;
    if ((e = list_devs(s, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->devs.n; i++) {
        cdev *d = (cdev *)s->devs.v + i;
        memset(r.st, PL_NS_ABSENT, sizeof r.st);
        if (want_cur && read_u(s, d, FD_CUR, &r.v[F_CUR]))
            r.st[F_CUR] = PL_NS_OK;
        if (want_max && read_u(s, d, FD_MAX, &r.v[F_MAX]))
            r.st[F_MAX] = PL_NS_OK;
        /* a state beyond the maximum is a broken pair: neither is believed */
        if (r.st[F_CUR] == PL_NS_OK && r.st[F_MAX] == PL_NS_OK && r.v[F_CUR] > r.v[F_MAX])
            r.st[F_CUR] = r.st[F_MAX] = PL_NS_BAD;
        if ((!wanted || wanted[C_TRANS]) && read_u(s, d, FD_TRANS, &r.v[F_TRANS]))
            r.st[F_TRANS] = PL_NS_OK;
        if ((!wanted || wanted[C_COOLING]) && cooling_time(s, d, &r.v[F_COOLING]))
            r.st[F_COOLING] = PL_NS_OK;
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
    }
    return 0;
}

static const pl_provider_ops cd_ops = { cd_open, cd_close, cd_instances, cd_collect, NULL, NULL };

const pl_counterset_def pl_cooling_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0xb1c22749, 0x94ce, 0x5ff6, { 0xb2, 0x5a, 0xbc, 0x70, 0x3d, 0x08, 0xf7, 0x33 } },
    "Cooling Device",
    "Throttle state of each thermal cooling device (fans, processor P-state caps, "
    "powerclamp) and, with CONFIG_THERMAL_STATISTICS, its state changes and time spent "
    "cooling, from /sys/class/thermal/cooling_device*; no instances without cooling devices.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &cd_ops, 45000, NULL,
};
