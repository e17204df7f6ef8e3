/* Scheduler: the /proc/schedstat source's pure parser on bytes (versions,
 * cpu lines only, malformed lines), and the set on temporary trees: % Run
 * Time as a multi-timer over the CPUs, Average Waiting Tasks as a 100 ns
 * queue length, the rates, _Total (values worked out beside each check);
 * no CONFIG_SCHEDSTATS. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "schedstat.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const pl_schedrow *scrow(const pl_schedstat *t, uint32_t n)
{
    return (const pl_schedrow *)t->rows.row + n;
}

static void test_parse(void)
{
    static const char text[] =
        "version 15\ntimestamp 4295678922\n"
        "cpu0 0 0 2541476 1178082 1363212 1110478 71364116372 4128637609 1352108\n"
        "domain0 00000003 1 2 3\n"
        "cpu1 0 0 1 2 3 4 5 6\n"               /* 8 fields: short */
        "cpu2 0 0 1 2 3 4 5 6 7 8\n"           /* 10 fields: not our layout */
        "cpu3 0 0 1 2 3 4 5 6 x\n"
        "cpu4 0 0 1 2 3 4 5 6 7";              /* cut off */
    pl_schedstat t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_schedstat(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.version, 15);
    CHECK_EQ_U64(t.rows.n, 5);                      /* cpu lines only */
    CHECK(scrow(&t, 0)->ok);
    CHECK_EQ_U64(scrow(&t, 0)->v[PL_SS_RUN_NS], 71364116372u);
    CHECK_EQ_U64(scrow(&t, 0)->v[PL_SS_WAIT_NS], 4128637609u);
    CHECK_EQ_U64(scrow(&t, 0)->v[PL_SS_SLICES], 1352108);
    for (uint32_t n = 1; n < 5; n++)
        CHECK(!scrow(&t, n)->ok);
    CHECK_EQ_U64(scrow(&t, 4)->cpu, 4);
    /* version 14 (2.6.x) had 12 fields in another order: no rows */
    CHECK(pl_parse_schedstat("version 14\ncpu0 1 2 3 4 5 6 7 8 9 10 11 12\n", 43, &t) == 0);
    CHECK_EQ_U64(t.rows.n, 0);
    pl_schedstat_release(&t);
}

/* % Run Time between two snapshots 10 s apart, as the sample layer pairs a
 * multi-timer with its base (the CPU count in pl_raw.multi). */
static double run_pct(const pl_snapshot *s0, const pl_snapshot *s1, const char *inst)
{
    uint64_t v0, v1, m;
    double out = -1;
    pl_raw r0 = { 0, 10000000ull, 0, 8 }, r1 = { 0, 110000000ull, 0, 8 };
    if (get(s0, inst, "% Run Time", &v0) != 1 || get(s1, inst, "% Run Time", &v1) != 1 ||
        get(s1, inst, "% Run Time Base", &m) != 1)
        return -1;
    r0.first = v0;
    r1.first = v1;
    r0.multi = r1.multi = (uint32_t)m;
    CHECK(pl_format_raw(PERF_100NSEC_MULTI_TIMER, &r1, &r0, 10000000, PL_FMT_NOCAP100, 0, &out) ==
          PL_VALID);
    return out;
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void put_sched(const char *root, unsigned long long run0, unsigned long long wait0,
                      unsigned long long run1, unsigned long long wait1, unsigned sl0)
{
    char text[400];
    snprintf(text, sizeof text, "version 15\ntimestamp 1\n"
             "cpu0 0 0 100 10 50 40 %llu %llu %u\ndomain0 3 0\n"
             "cpu1 0 0 200 20 60 30 %llu %llu 7\n", run0, wait0, sl0, run1, wait1);
    CHECK(put(root, "proc/schedstat", text) == 1);
}

static void test_cpus(void)
{
    const char *root = tree("cpus");
    pctx p;
    pl_snapshot s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    put_sched(root, 1000000000ull, 0, 0, 0, 5);
    CHECK(pc_open_set(&p, root, "Scheduler", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    {
        static const uint32_t ids[] = { 0, 1, 0xFFFFFFFEu };
        INSTS(&s0, ids, "0", "1", "_Total");
    }
    EXPECT(&s0, "0", "% Run Time", 10000000);       /* 1e9 ns = 1e7 x 100 ns */
    EXPECT(&s0, "0", "% Run Time Base", 1);
    EXPECT(&s0, "_Total", "% Run Time Base", 2);
    EXPECT(&s0, "_Total", "Schedule Calls/sec", 300);   /* 100 + 200 */
    /* fmt2's 10 s later (1e8 x 100 ns): CPU 0 ran 5 s more, CPU 1 10 s;
     * CPU 0's tasks waited 20 s in all (2 on average), CPU 1's 5 s */
    put_sched(root, 6000000000ull, 20000000000ull, 10000000000ull, 5000000000ull, 25);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    CHECK_NEAR(run_pct(&s0, &s1, "0"), 50.0, 1e-9);       /* 5 of 10 s */
    CHECK_NEAR(run_pct(&s0, &s1, "1"), 100.0, 1e-9);
    CHECK_NEAR(run_pct(&s0, &s1, "_Total"), 75.0, 1e-9);  /* 15 s of 2 x 10 s */
    CHECK_NEAR(val2(&s0, &s1, "0", "Average Waiting Tasks"), 2.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "_Total", "Average Waiting Tasks"), 2.5, 1e-9);  /* 25 s / 10 s */
    CHECK_NEAR(val2(&s0, &s1, "0", "Timeslices/sec"), 2.0, 1e-9);    /* 20 in 10 s */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

static void test_malformed_and_missing(void)
{
    const char *root = tree("bad");
    pl_snapshot s;
    CHECK(put(root, "proc/schedstat", "version 15\ncpu0 0 0 1 2 3 4 5 6 7\ncpu1 0 0 x\n") == 1);
    CHECK(pc_collect_tree(root, "Scheduler", 0, 0, NULL, &s) == 0);
    NAMES(&s, "0", "1", "_Total");
    EXPECT(&s, "0", "Timeslices/sec", 7);
    UNSET(&s, "1", "Timeslices/sec");
    UNSET(&s, "_Total", "Timeslices/sec");
    UNSET(&s, "_Total", "% Run Time Base");
    pl_snap_free(&s);
    CHECK(pc_collect_tree(tree("none"), "Scheduler", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/schedstat");
    pl_snap_free(&s);
}

/* Live: without CONFIG_SCHEDSTATS (as on this build machine) ENOENT; with
 * it a CPU 0 line. */
static void test_live(void)
{
    pl_snapshot s;
    int e = pc_collect_tree("/", "Scheduler", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == 0)
        CHECK(inst_of(&s, "0") >= 0 && inst_of(&s, "_Total") >= 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_schedstat");
    RUN(test_parse);
    RUN(test_cpus);
    RUN(test_malformed_and_missing);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
