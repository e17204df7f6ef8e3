/* Thermal Zone Information, Hardware Sensors, Battery, NUMA Node Memory and
 * Pressure Stall Information through their ops and through pl_query_*,
 * against spec/fixtures/sensors-* (run from the repository root), and on
 * mkdtemp trees that change between collects (sysfs symlinks, chips and
 * batteries coming and going).  Values are worked out by hand from the
 * fixture files; spec/36-sensors_spec.lua checks every counter, this file
 * the C paths: wanted masks, instances(), queries, mutations. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define FX "spec/fixtures/"

typedef struct run {
    pl_env *env;
    const pl_counterset_def *cs;
    void *st;
    pl_snapshot snap;
} run;

static int run_open(run *r, const char *root, const char *set)
{
    memset(r, 0, sizeof *r);
    r->env = pl_env_new(root);
    if (!r->env)
        return errno;
    r->cs = pl_env_find(r->env, set);
    if (!r->cs)
        return ENOENT;
    pl_snap_init(&r->snap, r->cs);
    return pl_provider_open(r->cs, r->env, &r->st);
}

static void run_close(run *r)
{
    if (r->cs && r->st)
        r->cs->ops->close(r->st);
    if (r->cs)
        pl_snap_free(&r->snap);
    pl_env_unref(r->env);
}

/* value of counter `name` of instance `inst`; 1 if set */
static int val(const pl_snapshot *s, const char *inst, const char *name, uint64_t *v)
{
    int i = inst_of(s, inst), c = pl_counter_index_by_name(s->cs, name);
    if (i < 0 || c < 0) {
        fprintf(stderr, "  no %s / %s\n", inst, name);
        return 0;
    }
    *v = s->values[(size_t)i * s->cs->ncounters + (size_t)c];
    return s->have[(size_t)i * s->cs->ncounters + (size_t)c];
}

static void expect_s(int line, const pl_snapshot *s, const char *inst, const char *name, uint64_t want)
{
    uint64_t v = 0;
    if (!val(s, inst, name, &v) || v != want) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s %s == %llu, expected %llu\n", line, inst, name,
                (unsigned long long)v, (unsigned long long)want);
    }
}

static void unset(int line, const pl_snapshot *s, const char *inst, const char *name)
{
    uint64_t v = 0;
    if (val(s, inst, name, &v) || inst_of(s, inst) < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s %s set or absent, expected unset\n", line, inst, name);
    }
}

#undef EXPECT
#undef UNSET
#define EXPECT(s, i, n, w) expect_s(__LINE__, s, i, n, w)
#define UNSET(s, i, n) unset(__LINE__, s, i, n)

static const char *const sets[] = {
    "Thermal Zone Information", "Hardware Sensors", "Battery", "NUMA Node Memory",
    "Pressure Stall Information",
};

/* ------------------------------------------------------------------ */

static void test_defs(void)
{
    pl_env *env = pl_env_new(FX "sensors-none");
    static const uint32_t index[] = { 17000, 21000, 22000, 18000, 19000 };
    CHECK(env != NULL);
    if (!env)
        return;
    for (size_t k = 0; k < 5; k++) {
        const pl_counterset_def *cs = pl_env_find(env, sets[k]);
        CHECK(cs != NULL);
        if (!cs)
            continue;
        CHECK_EQ_U64(cs->index, index[k]);
        CHECK(cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES);
        CHECK(!cs->costly);
        for (uint32_t i = 0; i < cs->ncounters; i++) {
            const pl_counter_def *c = &cs->counters[i];
            CHECK_EQ_U64(c->id, i);
            CHECK(pl_type_known(c->type));
            CHECK(c->size == 8);
            CHECK(c->help && c->help[strlen(c->help) - 1] == '.');
            if (c->base_id != PL_NO_ID) {
                CHECK_EQ_U64(c->base_id, i + 1);
                CHECK(pl_counter_hidden(&cs->counters[i + 1]));
            }
        }
    }
    pl_env_unref(env);
}

/* wanted masks: only the asked-for counters (and their bases) are set */
static void test_wanted(void)
{
    run r;
    uint8_t w[128] = { 0 };    /* more than any of these sets has counters */
    uint64_t v;
    CHECK(run_open(&r, FX "sensors-laptop", "Hardware Sensors") == 0);
    w[pl_counter_index_by_name(r.cs, "Fan Speed (RPM)")] = 1;
    CHECK(r.cs->ops->collect(r.st, w, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 13);    /* every sensor is listed, thinkpad/pwm1 too */
    EXPECT(&r.snap, "thinkpad/fan1", "Fan Speed (RPM)", 2950);
    UNSET(&r.snap, "coretemp/Core 0", "Temperature (K)");  /* not read */
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    EXPECT(&r.snap, "coretemp/Core 0", "Temperature (K)", 43000 + 273150);
    run_close(&r);

    CHECK(run_open(&r, FX "sensors-laptop", "Battery") == 0);
    memset(w, 0, sizeof w);
    w[pl_counter_index_by_name(r.cs, "Status")] = 1;
    CHECK(r.cs->ops->collect(r.st, w, &r.snap) == 0);
    EXPECT(&r.snap, "BAT1", "Status", 1);
    UNSET(&r.snap, "BAT1", "% Charge");
    UNSET(&r.snap, "BAT0", "Mains Online");
    memset(w, 0, sizeof w);
    w[pl_counter_index_by_name(r.cs, "% Charge")] = 1;
    CHECK(r.cs->ops->collect(r.st, w, &r.snap) == 0);
    EXPECT(&r.snap, "BAT0", "% Charge", 44140000);
    EXPECT(&r.snap, "BAT0", "% Charge Base", 56590000);   /* the base comes along */
    UNSET(&r.snap, "BAT0", "Status");
    run_close(&r);

    CHECK(run_open(&r, FX "sensors-laptop", "NUMA Node Memory") == 0);
    memset(w, 0, sizeof w);
    w[pl_counter_index_by_name(r.cs, "NUMA Hits/sec")] = 1;
    CHECK(r.cs->ops->collect(r.st, w, &r.snap) == 0);
    EXPECT(&r.snap, "_Total", "NUMA Hits/sec", 98213456ull + 40120987ull);
    CHECK(!val(&r.snap, "0", "Total MBytes", &v));        /* meminfo not read */
    run_close(&r);
}

/* instances(): names and ids, no values */
static void test_instances(void)
{
    pl_env *env = pl_env_new(FX "sensors-laptop");
    pl_snapshot s;
    const pl_counterset_def *cs;
    CHECK(env != NULL);
    if (!env)
        return;
    cs = pl_env_find(env, "Thermal Zone Information");
    pl_snap_init(&s, cs);
    CHECK(pl_enum_instances(env, cs, &s) == 0);
    CHECK_EQ_U64(s.ninst, 5);
    CHECK_STR(pl_snap_name(&s, 1), "acpitz#1");
    CHECK_EQ_U64(s.inst[4].id, 10);                        /* thermal_zone10 after zone3 */
    for (uint32_t i = 0; i < s.ninst * cs->ncounters; i++)
        CHECK(!s.have[i]);
    pl_snap_free(&s);
    cs = pl_env_find(env, "NUMA Node Memory");
    pl_snap_init(&s, cs);
    CHECK(pl_enum_instances(env, cs, &s) == 0);
    CHECK_EQ_U64(s.ninst, 3);
    CHECK_EQ_U64(s.inst[2].id, 0xFFFFFFFEu);
    pl_snap_free(&s);
    pl_env_unref(env);
}

/* Through a query: paths with instances, and a failing set beside good ones */
static void test_query(void)
{
    pl_env *env = pl_env_new(FX "sensors-badonline");
    pl_query *q;
    pl_sample *smp = NULL;
    pl_add_status st;
    uint32_t i_numa, i_psi;
    CHECK(env != NULL);
    if (!env)
        return;
    q = pl_query_new(env);
    CHECK(pl_query_add_path(q, "\\NUMA Node Memory(*)\\Total MBytes", &st, &i_numa) == 0 && st == 0);
    CHECK(pl_query_add_path(q, "\\Pressure Stall Information(cpu)\\Some Avg60", &st, &i_psi) == 0 &&
          st == 0);
    CHECK(pl_query_collect(q, &smp) == 0);
    if (smp) {
        const pl_block *b = pl_sample_find_block(smp, pl_query_spec(q, i_numa)->uid);
        CHECK(b && b->shape == PERF_ERROR_RETURN && b->err == EINVAL);
        b = pl_sample_find_block(smp, pl_query_spec(q, i_psi)->uid);
        CHECK(b && b->ninst == 1);
        if (b && b->ninst == 1) {
            double out = 0;
            CHECK_EQ_U64(smp->vals[b->vals_off].v, 233);         /* avg60=2.33 */
            CHECK(pl_sample_format(smp, b, 0, 0, NULL, NULL, &out) == PL_VALID);
            CHECK_NEAR(out, 2.33, 1e-12);                          /* scale -2 */
        }
        free(smp);
    }
    pl_query_free(q);
    pl_env_unref(env);

    env = pl_env_new(FX "sensors-laptop");
    q = pl_query_new(env);
    CHECK(pl_query_add_path(q, "\\Hardware Sensors(nvme#1/Composite)\\Temperature (K)", &st, &i_numa) == 0 &&
          st == 0);
    smp = NULL;
    CHECK(pl_query_collect(q, &smp) == 0);
    if (smp) {
        const pl_block *b = pl_sample_find_block(smp, pl_query_spec(q, i_numa)->uid);
        CHECK(b && b->ninst == 1);
        if (b && b->ninst == 1) {
            double out = 0;
            CHECK(pl_sample_format(smp, b, 0, 0, NULL, NULL, &out) == PL_VALID);
            CHECK_NEAR(out, 309.0, 1e-9);                          /* 35850 + 273150 mK */
        }
        free(smp);
    }
    pl_query_free(q);
    pl_env_unref(env);
}

/* ---- mkdtemp trees ------------------------------------------------ */

static char tmp[64];

static void put_tmp(const char *rel, const char *text)
{
    char p[512], d[512];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", tmp, rel);
    for (char *s = p + strlen(tmp) + 1; (s = strchr(s, '/')) != NULL; s++) {
        memcpy(d, p, (size_t)(s - p));
        d[s - p] = '\0';
        mkdir(d, 0755);
    }
    f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void link_rel(const char *target, const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmp, rel);
    CHECK(symlink(target, p) == 0);
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    CHECK(system(cmd) == 0);
}

/* sysfs layout: class entries are symlinks into /sys/devices */
static void test_symlinks_and_changes(void)
{
    run r;
    strcpy(tmp, "/tmp/pl-sensors-XXXXXX");
    CHECK(mkdtemp(tmp) != NULL);
    put_tmp("sys/devices/platform/coretemp.0/hwmon/hwmon2/name", "coretemp\n");
    put_tmp("sys/devices/platform/coretemp.0/hwmon/hwmon2/temp1_input", "45000\n");
    put_tmp("sys/devices/platform/coretemp.0/hwmon/hwmon2/temp1_label", "Package id 0\n");
    put_tmp("sys/devices/virtual/thermal/thermal_zone0/type", "acpitz\n");
    put_tmp("sys/devices/virtual/thermal/thermal_zone0/temp", "27800\n");
    put_tmp("sys/class/power_supply/.keep", "");
    mkdir(strcat(strcpy((char[96]){0}, tmp), "/sys/class/hwmon"), 0755);
    mkdir(strcat(strcpy((char[96]){0}, tmp), "/sys/class/thermal"), 0755);
    link_rel("../../devices/platform/coretemp.0/hwmon/hwmon2", "sys/class/hwmon/hwmon2");
    link_rel("../../devices/virtual/thermal/thermal_zone0", "sys/class/thermal/thermal_zone0");

    CHECK(run_open(&r, tmp, "Hardware Sensors") == 0);
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    EXPECT(&r.snap, "coretemp/Package id 0", "Temperature (K)", 318150);
    /* a second chip appears; the first one's file changes */
    put_tmp("sys/class/hwmon/hwmon3/name", "nvme\n");
    put_tmp("sys/class/hwmon/hwmon3/temp1_input", "38850\n");
    put_tmp("sys/devices/platform/coretemp.0/hwmon/hwmon2/temp1_input", "50000\n");
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 2);
    EXPECT(&r.snap, "coretemp/Package id 0", "Temperature (K)", 323150);
    EXPECT(&r.snap, "nvme/temp1", "Temperature (K)", 312000);
    /* a sensor added to a chip already scanned is not seen until the chip is rescanned */
    put_tmp("sys/class/hwmon/hwmon3/temp2_input", "1000\n");
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 2);         /* hwmon3 was scanned before temp2 appeared */
    /* the chip goes away */
    CHECK(system(strcat(strcat(strcpy((char[160]){0}, "rm -rf '"), tmp), "/sys/class/hwmon/hwmon3'")) == 0);
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 1);
    run_close(&r);

    CHECK(run_open(&r, tmp, "Thermal Zone Information") == 0);
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    EXPECT(&r.snap, "acpitz", "Temperature", 301);
    put_tmp("sys/class/thermal/thermal_zone1/type", "acpitz\n");
    put_tmp("sys/class/thermal/thermal_zone1/temp", "-40000\n");      /* 233150 mK */
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    EXPECT(&r.snap, "acpitz#1", "Temperature", 233);
    EXPECT(&r.snap, "acpitz#1", "High Precision Temperature", 2332);   /* 2331.5 rounds up */
    run_close(&r);

    /* a battery plugged in between two collects */
    CHECK(run_open(&r, tmp, "Battery") == 0);
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 0);
    put_tmp("sys/class/power_supply/BAT1/type", "Battery\n");
    put_tmp("sys/class/power_supply/BAT1/capacity", "64\n");
    put_tmp("sys/class/power_supply/BAT1/status", "Full\n");
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 1);
    EXPECT(&r.snap, "BAT1", "% Charge", 64);
    EXPECT(&r.snap, "BAT1", "Status", 3);
    UNSET(&r.snap, "BAT1", "Mains Online");                         /* no Mains supply */
    run_close(&r);

    /* a node coming online */
    put_tmp("sys/devices/system/node/online", "0\n");
    put_tmp("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 2048 kB\n");
    put_tmp("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 1024 kB\n");
    CHECK(run_open(&r, tmp, "NUMA Node Memory") == 0);
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 2);
    EXPECT(&r.snap, "_Total", "Total MBytes", 2);
    UNSET(&r.snap, "0", "Available MBytes");                         /* no MemFree */
    put_tmp("sys/devices/system/node/online", "0-1\n");
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 3);
    EXPECT(&r.snap, "1", "Total MBytes", 1);
    EXPECT(&r.snap, "_Total", "Total MBytes", 3);                    /* 3072 kB */
    run_close(&r);

    /* no /proc/pressure: zero instances, not an error */
    CHECK(run_open(&r, tmp, "Pressure Stall Information") == 0);
    CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 0);
    CHECK(r.cs->ops->instances(r.st, &r.snap) == 0);
    CHECK_EQ_U64(r.snap.ninst, 0);
    run_close(&r);
    rm_tmp();
}

/* every set on the machine without sources, and on the live machine */
static void test_none_and_live(void)
{
    static const char *const roots[] = { FX "sensors-none", FX "no-such-tree", "/" };
    for (size_t k = 0; k < 3; k++) {
        for (size_t i = 0; i < 5; i++) {
            run r;
            CHECK(run_open(&r, roots[k], sets[i]) == 0);
            CHECK(r.cs->ops->instances(r.st, &r.snap) == 0);
            CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
            CHECK(r.cs->ops->collect(r.st, NULL, &r.snap) == 0);
            if (k < 2)
                CHECK_EQ_U64(r.snap.ninst, 0);
            run_close(&r);
        }
    }
}

int main(void)
{
    RUN(test_defs);
    RUN(test_wanted);
    RUN(test_instances);
    RUN(test_query);
    RUN(test_symlinks_and_changes);
    RUN(test_none_and_live);
    return CT_END();
}
