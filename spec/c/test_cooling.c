/* Cooling Device (issue 17, item 5) on spec/fixtures/cooling, laid out as
 * drivers/thermal/thermal_sysfs.c makes /sys/class/thermal/cooling_deviceN
 * (type, cur_state, max_state; stats/total_trans, time_in_state_ms
 * "state<k>\t<ms>", trans_table with CONFIG_THERMAL_STATISTICS): two
 * "Processor" devices (one without stats/), intel_powerclamp with its
 * cur_state of -1 while idle injection is off, a TCC Offset with 64
 * states, and a Fan whose cur_state passes max_state.  A thermal zone in
 * the same class is not a device.  Then rates over 10 s on a temporary
 * tree, a wanted mask, and this machine. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"
#include "ct_absent.h"

#include <math.h>
#include <string.h>

#define FX "spec/fixtures/cooling"
#define CD "Cooling Device"

static void test_fixture(void)
{
    pl_snapshot s;
    double v;
    CHECK(pc_collect_tree(FX, CD, 0, 0, NULL, &s) == 0);
    NAMES(&s, "Processor", "Processor#1", "intel_powerclamp", "TCC Offset", "Fan");
    CHECK_EQ_U64(s.inst[3].id, 3);
    EXPECT(&s, "Processor", "Current State", 0);
    EXPECT(&s, "Processor", "Max State", 3);
    EXPECT(&s, "Processor", "State Changes/sec", 12);
    /* states 1-3: 2000 + 500 + 0 = 2500 ms = 25000000 in 100 ns */
    EXPECT(&s, "Processor", "% Time Cooling", 2500ull * 10000);
    EXPECT(&s, "Processor#1", "Current State", 2);
    CHECK(fmt2(&s, &s, "Processor#1", "% Of Max State", &v) == PL_VALID);
    CHECK(fabs(v - 100.0 * 2 / 3) < 1e-9);                      /* 66.67 % */
    UNSET(&s, "Processor#1", "State Changes/sec");              /* no stats/ */
    UNSET(&s, "Processor#1", "% Time Cooling");
    UNSET(&s, "intel_powerclamp", "Current State");             /* -1: not clamping */
    UNSET(&s, "intel_powerclamp", "% Of Max State");
    EXPECT(&s, "intel_powerclamp", "Max State", 50);
    EXPECT(&s, "TCC Offset", "% Time Cooling", 700ull * 10000);  /* state5 alone above 0 */
    EXPECT(&s, "TCC Offset", "Max State", 63);
    UNSET(&s, "Fan", "Current State");                          /* 7 > max_state 3 */
    UNSET(&s, "Fan", "Max State");
    pl_snap_free(&s);
}

#define DEV "sys/class/thermal/cooling_device0/"

static void test_rates(void)
{
    const char *root = tmp("rates");
    pctx p;
    pl_snapshot s0, s1;
    double v;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, DEV "type", "Fan\n") == 1);
    CHECK(put(root, DEV "cur_state", "1\n") == 1);
    CHECK(put(root, DEV "max_state", "4\n") == 1);
    CHECK(put(root, DEV "stats/total_trans", "40\n") == 1);
    CHECK(put(root, DEV "stats/time_in_state_ms", "state0\t9000\nstate1\t1000\n") == 1);
    CHECK(pc_open_set(&p, root, CD, 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    /* 10 s later: 6 more changes, 2500 ms more in state 1, 7500 in state 0 */
    CHECK(put(root, DEV "stats/total_trans", "46\n") == 1);
    CHECK(put(root, DEV "stats/time_in_state_ms", "state0\t16500\nstate1\t3500\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    CHECK(fmt2(&s0, &s1, "Fan", "State Changes/sec", &v) == PL_VALID && fabs(v - 0.6) < 1e-9);
    /* (3500 - 1000) ms = 2.5 s of 10 s */
    CHECK(fmt2(&s0, &s1, "Fan", "% Time Cooling", &v) == PL_VALID && fabs(v - 25.0) < 1e-9);
    CHECK(fmt2(&s0, &s1, "Fan", "% Of Max State", &v) == PL_VALID && fabs(v - 25.0) < 1e-9);
    /* a last line without '\n' counts; a malformed line is no value */
    CHECK(put(root, DEV "stats/time_in_state_ms", "state0\t16500\nstate1\t3600") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    EXPECT(&s1, "Fan", "% Time Cooling", 3600ull * 10000);
    CHECK(put(root, DEV "stats/time_in_state_ms", "state0\t16500\nstate1\t36x0\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    UNSET(&s1, "Fan", "% Time Cooling");
    CHECK(put(root, DEV "stats/time_in_state_ms", "state0\t1\nstateX\t2\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    UNSET(&s1, "Fan", "% Time Cooling");
    EXPECT(&s1, "Fan", "State Changes/sec", 46);                /* its neighbours still read */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

static void test_wanted(void)
{
    static const char *const trans[] = { "State Changes/sec", NULL };
    pctx p;
    pl_snapshot s;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, FX, CD, 0, 0) == 0);
    w = want_only(p.cs, trans);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "Processor", "State Changes/sec", 12);
    UNSET(&s, "Processor", "Current State");
    UNSET(&s, "Processor", "% Time Cooling");
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

static void test_absent(void)
{
    check_absent_and_live(CD, "cooling devices");
}

int main(void)
{
    ct_tmp_init("test_cooling");
    RUN(test_fixture);
    RUN(test_rates);
    RUN(test_wanted);
    RUN(test_absent);
    ct_tmp_remove();
    return CT_END();
}
