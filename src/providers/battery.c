/* Battery: one instance per /sys/class/power_supply entry whose type is
 * "Battery" (BAT0, CMB0, hidpp_battery_0 ...), named by its directory, in
 * name order; the id is that position.  Windows has no such set (its Power
 * Meter set is about metering devices).
 *
 * Units are power_supply's micro-units kept exact with scale -3, so they
 * format to mW, mWh, mAh and mV.  % Charge is energy_now / energy_full
 * (uWh), else charge_now / charge_full (uAh), else capacity / 100: the
 * numerator and base are in the unit of the source used.  Discharge Rate is
 * |power_now|, else |current_now| x voltage_now / 10^6 (uA x uV = pW): the
 * ACPI driver reports the rate unsigned in both directions while others sign
 * the current, so the sign is dropped and Status gives the direction
 * (Charging 1, Discharging 2, Full 3, Not charging 4, Unknown 0; another
 * word is unset).  Mains Online is the same on every battery: 1 when a supply
 * of type Mains has online 1, 0 when none has, unset without a Mains supply.
 *
 * Every value file is read with one pread on a kept-open fd, only when a
 * wanted counter needs it; a file the driver does not have (ENOENT) is not
 * tried again for that supply, and a failed read leaves the value unset.  No
 * power_supply class or no battery (a VM, a desktop) is zero instances. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    C_PCT, C_PCT_BASE, C_RATE, C_REMAIN, C_STATUS, C_MAINS, C_EFULL, C_EDESIGN, C_CNOW,
    C_CFULL, C_CDESIGN, C_VOLT, C_CYCLES, NC
};

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* value files of a battery */
enum { F_STATUS, F_CAP, F_ENOW, F_EFULL, F_EDESIGN, F_CNOW, F_CFULL, F_CDESIGN, F_PNOW,
       F_INOW, F_VNOW, F_CYCLES, NF };

/* A battery's value files are its row: st[f] PL_NS_OK for a file read this
 * collect that holds a number not below 0 (Status: its word's code).  The
 * rows of plain files walk it; % Charge, the rate and Mains Online are the
 * collect's own. */
enum { S_ROW, NSRC };
typedef struct batrow {
    uint64_t v[NF];
    uint8_t st[NF];
} batrow;

#define BAT_ROWS(R) \
    R(C_PCT, "% Charge", "Charge left as a percentage of a full charge: energy_now over " \
      "energy_full, else charge_now over charge_full, else capacity over 100.", \
      PERF_LARGE_RAW_FRACTION, C_PCT_BASE, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(C_PCT_BASE, "% Charge Base", "The full charge in the unit of % Charge's source " \
      "(energy_full in uWh, charge_full in uAh, or 100): the base of % Charge.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(C_RATE, "Discharge Rate (mW)", "Rate of charge or discharge in microwatts with scale " \
      "-3 (|power_now|, else |current_now| x voltage_now / 10^6); Status gives the direction.", \
      LRAW, PL_NO_ID, NOV, -3, PL_U(WATTS, 1e-6, GAUGE), PL_BY_HAND()) \
    R(C_REMAIN, "Remaining Capacity (mWh)", "Energy left in microwatt-hours with scale -3 " \
      "(energy_now); unset on batteries that report charge_now instead.", \
      LRAW, PL_NO_ID, NOV, -3, PL_U(JOULES, 3.6e-3, GAUGE), PL_FIELD(S_ROW, F_ENOW)) \
    R(C_STATUS, "Status", "Charging state from the status file: Unknown 0, Charging 1, " \
      "Discharging 2, Full 3, Not charging 4.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_FIELD(S_ROW, F_STATUS)) \
    R(C_MAINS, "Mains Online", "1 when a power supply of type Mains reports online 1, else 0 " \
      "(unset when the machine has no Mains supply).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(C_EFULL, "Full Charge Capacity (mWh)", "Energy of a full charge today, in " \
      "microwatt-hours with scale -3 (energy_full).", \
      LRAW, PL_NO_ID, ADV, -3, PL_U(JOULES, 3.6e-3, DISCRETE), PL_FIELD(S_ROW, F_EFULL)) \
    R(C_EDESIGN, "Design Capacity (mWh)", "Energy of a full charge when new, in " \
      "microwatt-hours with scale -3 (energy_full_design).", \
      LRAW, PL_NO_ID, ADV, -3, PL_U(JOULES, 3.6e-3, DISCRETE), PL_FIELD(S_ROW, F_EDESIGN)) \
    R(C_CNOW, "Remaining Charge (mAh)", "Charge left in microampere-hours with scale -3 " \
      "(charge_now).", \
      LRAW, PL_NO_ID, ADV, -3, PL_U(AMPERE_HOURS, 1e-6, GAUGE), PL_FIELD(S_ROW, F_CNOW)) \
    R(C_CFULL, "Full Charge (mAh)", "Charge of a full charge today, in microampere-hours " \
      "with scale -3 (charge_full).", \
      LRAW, PL_NO_ID, ADV, -3, PL_U(AMPERE_HOURS, 1e-6, DISCRETE), PL_FIELD(S_ROW, F_CFULL)) \
    R(C_CDESIGN, "Design Charge (mAh)", "Charge of a full charge when new, in " \
      "microampere-hours with scale -3 (charge_full_design).", \
      LRAW, PL_NO_ID, ADV, -3, PL_U(AMPERE_HOURS, 1e-6, DISCRETE), PL_FIELD(S_ROW, F_CDESIGN)) \
    R(C_VOLT, "Voltage (mV)", "Battery voltage in microvolts with scale -3 (voltage_now).", \
      LRAW, PL_NO_ID, ADV, -3, PL_U(VOLTS, 1e-6, GAUGE), PL_FIELD(S_ROW, F_VNOW)) \
    R(C_CYCLES, "Cycle Count", "Charge cycles the battery has gone through (cycle_count).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, F_CYCLES))

static const pl_counter_def counters[] = { BAT_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { BAT_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, batrow) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

static const char *const fname[NF] = {
    "status", "capacity", "energy_now", "energy_full", "energy_full_design", "charge_now",
    "charge_full", "charge_full_design", "power_now", "current_now", "voltage_now", "cycle_count",
};

#define CLASS "sys/class/power_supply"
#define NAME_LEN 64

enum { T_UNKNOWN, T_BATTERY, T_MAINS, T_OTHER };

typedef struct supply {
    char dir[NAME_LEN + 1];
    char name[NAME_LEN + 1];     /* sanitised for counter paths */
    int seen, type;
    int fd_type, fd_online;
    int fd[NF];
    uint16_t absent;             /* files the driver does not have */
} supply;

typedef struct bat_state {
    pl_env *env;
    pl_classdir cls;
    supply *s;
    uint32_t n, cap;
} bat_state;

static int bat_open(pl_env *env, void **state)
{
    bat_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    *state = s;
    return 0;
}

static void supply_close(supply *p)
{
    if (p->fd_type >= 0)
        close(p->fd_type);
    if (p->fd_online >= 0)
        close(p->fd_online);
    for (int f = 0; f < NF; f++)
        if (p->fd[f] >= 0)
            close(p->fd[f]);
}

static void bat_close(void *state)
{
    bat_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        supply_close(&s->s[i]);
    free(s->s);
    pl_classdir_close(&s->cls);
    pl_env_unref(s->env);
    free(s);
}

/* pl_read_once of a value file of supply p. */
static int read_once(const bat_state *s, const supply *p, int *fd, const char *file,
                     char *buf, size_t size)
{
    char rel[sizeof CLASS + 2 * NAME_LEN + 8];
    if (*fd < 0)
        snprintf(rel, sizeof rel, CLASS "/%s/%s", p->dir, file);
    return pl_read_once(fd, s->env, rel, buf, size);
}

static int supply_type(bat_state *s, supply *p)
{
    char buf[32];
    if (read_once(s, p, &p->fd_type, "type", buf, sizeof buf))
        return T_UNKNOWN;
    if (strcmp(buf, "Battery\n") == 0 || strcmp(buf, "Battery") == 0)
        return T_BATTERY;
    if (strcmp(buf, "Mains\n") == 0 || strcmp(buf, "Mains") == 0)
        return T_MAINS;
    return T_OTHER;
}

static int cmp_supply(const void *a, const void *b)
{
    return strcmp(((const supply *)a)->dir, ((const supply *)b)->dir);
}

/* Lists the supplies and reads their types; drops vanished ones. */
static int list_supplies(bat_state *s)
{
    struct dirent *de;
    uint32_t k = 0;
    DIR *dir = pl_classdir_rewind(&s->cls, s->env, CLASS);
    if (!dir)
        return 0;
    for (uint32_t i = 0; i < s->n; i++)
        s->s[i].seen = 0;
    while ((de = readdir(dir)) != NULL) {
        supply *p = NULL;
        if (de->d_name[0] == '.' || strlen(de->d_name) > NAME_LEN)
            continue;
        for (uint32_t i = 0; i < s->n && !p; i++)
            if (strcmp(s->s[i].dir, de->d_name) == 0)
                p = &s->s[i];
        if (!p) {
            if (s->n == s->cap) {
                uint32_t nc = s->cap ? s->cap * 2 : 8;
                supply *ns = realloc(s->s, nc * sizeof *ns);
                if (!ns)
                    return ENOMEM;
                s->s = ns;
                s->cap = nc;
            }
            p = &s->s[s->n++];
            memset(p, 0, sizeof *p);
            strcpy(p->dir, de->d_name);
            strcpy(p->name, de->d_name);
            pl_name_sanitize(p->name);
            p->fd_type = p->fd_online = -1;
            for (int f = 0; f < NF; f++)
                p->fd[f] = -1;
        }
        p->seen = 1;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->s[i].seen)
            s->s[k++] = s->s[i];
        else
            supply_close(&s->s[i]);
    }
    s->n = k;
    if (s->n > 1)
        qsort(s->s, s->n, sizeof *s->s, cmp_supply);
    for (uint32_t i = 0; i < s->n; i++)
        s->s[i].type = supply_type(s, &s->s[i]);
    return 0;
}

static int add_batteries(bat_state *s, pl_snapshot *snap)
{
    uint32_t id = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->s[i].type == T_BATTERY && pl_snap_add(snap, s->s[i].name, id++) < 0)
            return ENOMEM;
    return 0;
}

static int bat_instances(void *state, pl_snapshot *snap)
{
    bat_state *s = state;
    int e;
    pl_snap_clear(snap);
    if ((e = list_supplies(s)) != 0)
        return e;
    return add_batteries(s, snap);
}

/* Values of one battery, read on demand, each file at most once. */
typedef struct vals {
    uint16_t tried, ok;
    int64_t v[NF];
    int status;
} vals;

static int get(bat_state *s, supply *p, vals *x, int f, int64_t *v)
{
    if (!(x->tried & 1u << f)) {
        char buf[48];
        int e = 0;
        x->tried |= (uint16_t)(1u << f);
        if (p->absent & 1u << f)
            return 0;
        e = read_once(s, p, &p->fd[f], fname[f], buf, sizeof buf);
        if (e == ENOENT && p->fd[f] < 0)
            p->absent |= (uint16_t)(1u << f);
        if (e)
            return 0;
        if (f == F_STATUS) {
            static const char *const words[] = { "Unknown", "Charging", "Discharging", "Full",
                                                 "Not charging" };
            size_t n = strcspn(buf, "\n");
            if (buf[n] == '\n' && buf[n + 1] != '\0')
                return 0;
            buf[n] = '\0';
            for (int w = 0; w < 5; w++)
                if (strcmp(buf, words[w]) == 0) {
                    x->v[f] = w;
                    x->ok |= (uint16_t)(1u << f);
                }
        } else if (pl_parse_i64_whole(buf, &x->v[f]) == 0) {
            x->ok |= (uint16_t)(1u << f);
        }
    }
    *v = x->v[f];
    return (x->ok & 1u << f) != 0;
}

/* A value file that must not be negative: 1 with *v. */
static int getu(bat_state *s, supply *p, vals *x, int f, uint64_t *v)
{
    int64_t t;
    if (!get(s, p, x, f, &t) || t < 0)
        return 0;
    *v = (uint64_t)t;
    return 1;
}

static uint64_t uabs(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* Mains Online over every Mains supply: 1, 0, or -1 unknown. */
static int mains_online(bat_state *s)
{
    int any = -1;
    for (uint32_t i = 0; i < s->n; i++) {
        supply *p = &s->s[i];
        char buf[32];
        int64_t v;
        if (p->type != T_MAINS || read_once(s, p, &p->fd_online, "online", buf, sizeof buf) ||
            pl_parse_i64_whole(buf, &v))
            continue;
        if (v == 1)
            return 1;
        if (v == 0)
            any = 0;
    }
    return any;
}

static void battery_values(bat_state *s, supply *p, const uint8_t *w, pl_feed_in *in,
                           uint32_t inst, int mains)
{
    pl_snapshot *snap = in->snap;
    vals x = { .tried = 0 };
    batrow row;
    uint64_t a, b, c;
    int64_t t1, t2;
    if (w[C_PCT] || w[C_PCT_BASE]) {
        if ((getu(s, p, &x, F_ENOW, &a) && getu(s, p, &x, F_EFULL, &b) && b > 0) ||
            (getu(s, p, &x, F_CNOW, &a) && getu(s, p, &x, F_CFULL, &b) && b > 0) ||
            (getu(s, p, &x, F_CAP, &a) && (b = 100, 1))) {
            pl_snap_set(snap, inst, C_PCT, a);
            pl_snap_set(snap, inst, C_PCT_BASE, b);
        }
    }
    if (w[C_RATE]) {
        if (get(s, p, &x, F_PNOW, &t1)) {
            pl_snap_set(snap, inst, C_RATE, uabs(t1));
        } else if (get(s, p, &x, F_INOW, &t1) && get(s, p, &x, F_VNOW, &t2) && t2 >= 0) {
            a = uabs(t1);
            c = (uint64_t)t2;
            /* uA x uV / 10^6 = uW; amperes and volts stay far below 2^64 / 10^12 */
            if (c == 0 || a <= UINT64_MAX / c)
                pl_snap_set(snap, inst, C_RATE, a * c / 1000000);
        }
    }
    if (w[C_MAINS] && mains >= 0)
        pl_snap_set(snap, inst, C_MAINS, (uint64_t)mains);
    /* every wanted file row read, then the walk over what was read */
    for (uint32_t k = 0; k < NC; k++)
        if (w[k] && feeds[k].op == PL_FEED_FIELD)
            (void)get(s, p, &x, feeds[k].a, &t1);
    for (int f = 0; f < NF; f++) {
        row.st[f] = (x.ok & 1u << f) && x.v[f] >= 0 ? PL_NS_OK : PL_NS_ABSENT;
        row.v[f] = (uint64_t)x.v[f];
    }
    pl_feed_put(in, S_ROW, &row);
    pl_feed_walk(in, inst, feeds, NC, w);
}

static int bat_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    bat_state *s = state;
    uint8_t w[NC];
    pl_feed_in in;
    uint32_t inst = 0;
    int e, mains = -1;
    pl_snap_clear(snap);
    if ((e = list_supplies(s)) != 0 || (e = add_batteries(s, snap)) != 0)
        return e;
    for (int c = 0; c < NC; c++)
        w[c] = !wanted || wanted[c];
    if (snap->ninst == 0)
        return 0;
    if (w[C_MAINS])
        mains = mains_online(s);
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->n; i++)
        if (s->s[i].type == T_BATTERY)
            battery_values(s, &s->s[i], w, &in, inst++, mains);
    return 0;
}

static const pl_provider_ops bat_ops = { bat_open, bat_close, bat_instances, bat_collect, NULL, NULL };

const pl_counterset_def pl_battery_def = {
    {0x4a338c0c, 0x2a93, 0x5c18, {0xab, 0xcd, 0xb1, 0xb7, 0x45, 0x70, 0x4a, 0x48}},
    "Battery",
    "Charge, rate, capacity and state of each battery in /sys/class/power_supply, with the "
    "mains state; no instances on machines without a battery.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &bat_ops, 22000, NULL,
};
