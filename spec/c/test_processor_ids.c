/* Processor Information's Windows ids from seed 000's table that Linux can
 * give (7, 15, 20-25, 28, 30, 31), its Linux extras (cpufreq limits, isolated
 * CPUs, vulnerabilities, thermal throttling), its text facts (the info op)
 * and the core's pl_counterset_info.  Expected values are worked out by hand
 * from spec/fixtures/cpu-full (layouts as Documentation/ABI/testing/
 * sysfs-devices-system-cpu and arch/x86/kernel/msr.c give them) and from
 * temporary trees; the arithmetic is in comments.  USER_HZ 100: a tick is
 * 100000 hns (T100). */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"
#include "cpufreq.h"
#include "cpufacts.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FX "spec/fixtures/"
#define T100 100000ull

/* ---- values at one collect of cpu-full ------------------------------------- */

static void test_full_ids(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX "cpu-full", "Processor Information", 100, 0, NULL, &s) == 0);
    /* % Priority Time: idle + iowait + (nice - guest_nice)
     *   cpu0 5000 + 40 + (20 - 5) = 5055; cpu1 4000 + 60 + (30 - 10) = 4080 ticks
     *   node 0 sums them, 9100 + 35 = 9135, and a total's raw value is the mean
     *   over its 2 CPUs: 9135 x T100 / 2; _Total from the cpu line: 9500 + 100 +
     *   (50 - 15) = 9635, over 2 */
    EXPECT(&s, "0,0", "% Priority Time", 5055 * T100);
    EXPECT(&s, "0,1", "% Priority Time", 4080 * T100);
    EXPECT(&s, "0,_Total", "% Priority Time", 9135 * T100 / 2);
    EXPECT(&s, "_Total", "% Priority Time", 9635 * T100 / 2);
    /* DPC Rate since boot: softirqs 3661 / LOC 5000 = 0 (0.73); 4775 / 6000 = 0 */
    EXPECT(&s, "0,0", "DPC Rate", 0);
    EXPECT(&s, "_Total", "DPC Rate", 0);
    /* Clock Interrupts/sec: the LOC row, 5000 and 6000; totals add up */
    EXPECT(&s, "0,0", "Clock Interrupts/sec", 5000);
    EXPECT(&s, "0,1", "Clock Interrupts/sec", 6000);
    EXPECT(&s, "0,_Total", "Clock Interrupts/sec", 11000);
    EXPECT(&s, "_Total", "Clock Interrupts/sec", 11000);
    /* Average Idle Time: state0..3 time (us) x 10
     *   cpu0 (999 + 1000000 + 2000000 + 3000000) x 10 = 60009990 over its base
     *   6390 ticks; cpu1 (999 + 1500000 + 2500001 + 3500003) x 10 = 75010030
     *   over 6530 ticks; totals sum both: 135020020 over 12920 ticks */
    EXPECT(&s, "0,0", "Average Idle Time", 60009990);
    EXPECT(&s, "0,0", "Average Idle Time Base", 6390 * T100);
    EXPECT(&s, "0,1", "Average Idle Time", 75010030);
    EXPECT(&s, "0,1", "Average Idle Time Base", 6530 * T100);
    EXPECT(&s, "_Total", "Average Idle Time", 135020020);
    EXPECT(&s, "_Total", "Average Idle Time Base", 12920 * T100);
    /* Idle Break Events: usage of state0..3, 9+100+200+300 = 609 and
     * 9+150+251+353 = 763; totals 1372 */
    EXPECT(&s, "0,0", "Idle Break Events/sec", 609);
    EXPECT(&s, "0,1", "Idle Break Events/sec", 763);
    EXPECT(&s, "_Total", "Idle Break Events/sec", 1372);
    /* APERF/MPERF and the utilities start from 0 at the first collect */
    EXPECT(&s, "0,0", "% Processor Performance", 0);
    EXPECT(&s, "0,0", "% Processor Performance Base", 0);
    EXPECT(&s, "0,0", "% Privileged Utility", 0);
    /* % Performance Limit since boot, a CPU's time from its ticks:
     *   cpu0 6390 ticks = 63900 ms, throttled max(core 639, package 1278) =
     *   1278 ms: 1278 x 100 / 63900 = 2 -> 98; flags core 1 | package 2 = 3
     *   cpu1 65300 ms, max(0, 1278): 127800 / 65300 = 1 (1.96) -> 99; flags 2
     *   totals: (98 + 99) / 2 = 98, flags 3 | 2 = 3 */
    EXPECT(&s, "0,0", "% Performance Limit", 98);
    EXPECT(&s, "0,0", "Performance Limit Flags", 3);
    EXPECT(&s, "0,1", "% Performance Limit", 99);
    EXPECT(&s, "0,1", "Performance Limit Flags", 2);
    EXPECT(&s, "_Total", "% Performance Limit", 98);
    EXPECT(&s, "_Total", "Performance Limit Flags", 3);
    /* limits in Hz: kHz x 1000; totals the mean (2800000 + 3000000) / 2 kHz */
    EXPECT(&s, "0,0", "Scaling Minimum Frequency", 800000000);
    EXPECT(&s, "0,0", "Scaling Maximum Frequency", 2800000000ull);
    EXPECT(&s, "0,1", "Scaling Maximum Frequency", 3000000000ull);
    EXPECT(&s, "_Total", "Scaling Maximum Frequency", 2900000000ull);
    EXPECT(&s, "0,0", "Hardware Minimum Frequency", 400000000);
    EXPECT(&s, "0,1", "Hardware Maximum Frequency", 3000000000ull);
    /* isolated "1", nohz_full "(null)" (no list): cpu1 alone */
    EXPECT(&s, "0,0", "Isolated", 0);
    EXPECT(&s, "0,1", "Isolated", 1);
    EXPECT(&s, "0,_Total", "Isolated", 1);
    EXPECT(&s, "_Total", "Isolated", 1);
    /* vulnerabilities: mds and spec_store_bypass start with "Vulnerable"
     * (meltdown "Not affected", spectre_v2 "Mitigation: ..."): 2, _Total only */
    EXPECT(&s, "_Total", "Vulnerable", 2);
    UNSET(&s, "0,0", "Vulnerable");
    UNSET(&s, "0,_Total", "Vulnerable");
    /* throttle counts (totals the most: siblings share them) and times,
     * ms x 10000 in 100 ns: cpu0 639 ms = 6390000, cpu1 0; mean 3195000 */
    EXPECT(&s, "0,0", "Core Throttle Count", 3);
    EXPECT(&s, "0,1", "Core Throttle Count", 0);
    EXPECT(&s, "_Total", "Core Throttle Count", 3);
    EXPECT(&s, "_Total", "Package Throttle Count", 5);
    EXPECT(&s, "0,0", "% Core Throttled", 6390000);
    EXPECT(&s, "_Total", "% Core Throttled", 3195000);
    EXPECT(&s, "0,1", "% Package Throttled", 12780000);
    EXPECT(&s, "_Total", "% Package Throttled", 12780000);
    pl_snap_free(&s);
}

/* ---- rates over two collects of a tree rewritten between them ---------------- */

/* dir/rel as 0xF0 bytes: MPERF at 0xE7 and APERF at 0xE8, 8 bytes each in
 * the CPU's order, as the msr device reads them.  A regular file cannot
 * hold the two apart: MPERF's 8 bytes are byte 0xE7 (0 here) and APERF's
 * first 7, so MPERF = 256 x APERF while APERF < 2^56. */
static int put_msr(const char *dir, const char *rel, uint64_t aperf)
{
    char path[600];
    unsigned char b[0xF0] = { 0 };
    FILE *f;
    memcpy(b + 0xE8, &aperf, 8);
    if (!mkdirs(dir, rel))
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    f = fopen(path, "r+");
    if (!f)
        f = fopen(path, "w");
    if (!f)
        return 0;
    int ok = fwrite(b, 1, sizeof b, f) == sizeof b;
    return fclose(f) == 0 && ok;
}

#define CPU0 "sys/devices/system/cpu/cpu0/"

static int write_tree(const char *d, const char *stat, const char *loc, const char *u0, const char *u1,
                      const char *thr[4], uint64_t aperf)
{
    static const char *const tf[4] = {
        CPU0 "thermal_throttle/core_throttle_count", CPU0 "thermal_throttle/package_throttle_count",
        CPU0 "thermal_throttle/core_throttle_total_time_ms", CPU0 "thermal_throttle/package_throttle_total_time_ms",
    };
    char buf[256];
    int ok = 1;
    snprintf(buf, sizeof buf, "cpu  %s\ncpu0 %s\nintr 1\nsoftirq 1\n", stat, stat);
    ok &= put(d, "proc/stat", buf);
    snprintf(buf, sizeof buf, "           CPU0       \nLOC: %10s   Local timer interrupts\n", loc);
    ok &= put(d, "proc/interrupts", buf);
    /* softirqs: twice the ticks at first, then 900 more over 500 more ticks */
    ok &= put(d, "proc/softirqs", strcmp(loc, "1000") ? "                    CPU0       \n"
                                                         "          HI:          0\n       TIMER:       2900\n"
                                                       : "                    CPU0       \n"
                                                         "          HI:          0\n       TIMER:       2000\n");
    ok &= put(d, CPU0 "cpuidle/state0/time", "10\n") && put(d, CPU0 "cpuidle/state0/usage", u0);
    ok &= put(d, CPU0 "cpuidle/state1/time", strcmp(u1, "10\n") ? "520\n" : "20\n");
    ok &= put(d, CPU0 "cpuidle/state1/usage", u1);
    ok &= put(d, CPU0 "cpufreq/scaling_cur_freq", "1500000\n");
    ok &= put(d, CPU0 "cpufreq/cpuinfo_max_freq", "3000000\n");
    for (int k = 0; k < 4; k++)
        ok &= put(d, tf[k], thr[k]);
    return ok && put_msr(d, "dev/cpu/0/msr", aperf);
}

static void test_rates(void)
{
    const char *thr0[4] = { "0\n", "0\n", "0\n", "0\n" }, *thr1[4] = { "2\n", "0\n", "480\n", "96\n" };
    const char *dir = tmp("rates");
    pctx p;
    mkdir(dir, 0700);
    pl_snapshot s[2] = {{0}};
    /* collect 1: us 100 sy 50 id 1000: 1150 ticks (11500 ms), busy 150, priv 50 */
    CHECK(write_tree(dir, "100 0 50 1000 0 0 0 0 0 0", "1000", "5\n", "10\n", thr0, 1000));
    CHECK(pc_open_set(&p, dir, "Processor Information", 100, 0) == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    CHECK(pc_collect(&p, NULL, &s[0]) == 0);
    /* collect 2: us 200 ni 10 sy 100 id 1800: 2110 ticks (21100 ms), busy 310,
     * priv 100; LOC +500; idle usage 8 + 30 */
    CHECK(write_tree(dir, "200 10 100 1800 0 0 0 0 0 0", "1500", "8\n", "30\n", thr1, 4000));
    CHECK(pc_collect(&p, NULL, &s[1]) == 0);
    /* DPC Rate: 2000 softirqs over 1000 ticks since boot at the first
     * collect: 2; then (2900 - 2000) / (1500 - 1000) = 1 (1.8) */
    EXPECT(&s[0], "0,0", "DPC Rate", 2);
    EXPECT(&s[1], "0,0", "DPC Rate", 1);
    EXPECT(&s[1], "_Total", "DPC Rate", 1);
    EXPECT(&s[1], "0,0", "Clock Interrupts/sec", 1500);
    EXPECT(&s[1], "_Total", "Clock Interrupts/sec", 1500);
    EXPECT(&s[1], "0,0", "Idle Break Events/sec", 38);
    /* Average Idle Time: state0 10 us -> 10, state1 20 -> 520: 5300 hns of
     * +960 ticks (96000000 hns) */
    EXPECT(&s[1], "0,0", "Average Idle Time", 5300);
    CHECK_NEAR(val2(&s[0], &s[1], "0,0", "Average Idle Time"), 100.0 * 5000 / 96000000, 1e-12);
    /* % Priority Time: idle 1800 + nice 10; _Total, one CPU online: 1000 at
     * the first collect, + (1810 - 1000) at the second */
    EXPECT(&s[1], "0,0", "% Priority Time", 1810 * T100);
    EXPECT(&s[1], "_Total", "% Priority Time", 1810 * T100);
    /* APERF 1000 -> 4000, MPERF 256000 -> 1024000: dA 3000, dM 768000,
     * ratio x 10000 = 30000000 / 768000 = 39 (39.06); busy +160:
     * 160 x 39 / 100 = 62 (62.4) over 160 -> 0.3875 % */
    EXPECT(&s[1], "0,0", "% Processor Performance", 62);
    EXPECT(&s[1], "0,0", "% Processor Performance Base", 160);
    CHECK_NEAR(val2(&s[0], &s[1], "0,0", "% Processor Performance"), 62.0 / 160, 1e-12);   /* in % */
    /* utilities at 1500 / 3000 MHz: busy +160 x 100 x 0.5 = 8000, priv +50 x
     * 100 x 0.5 = 2500, both over +960 ticks */
    EXPECT(&s[1], "0,0", "% Processor Utility", 8000);
    EXPECT(&s[1], "0,0", "% Privileged Utility", 2500);
    EXPECT(&s[1], "0,0", "% Utility Base", 960);
    CHECK_NEAR(val2(&s[0], &s[1], "0,0", "% Privileged Utility"), 2500.0 / 960, 1e-12);  /* 2.6 % */
    /* % Performance Limit over the interval: 21100 - 11500 = 9600 ms,
     * throttled max(480, 96) = 480: 48000 / 9600 = 5 -> 95; the core count
     * rose and the package time too: flags 1 | 2 */
    EXPECT(&s[1], "0,0", "% Performance Limit", 95);
    EXPECT(&s[1], "0,0", "Performance Limit Flags", 3);
    EXPECT(&s[1], "0,0", "% Core Throttled", 4800000);
    CHECK_NEAR(val2(&s[0], &s[1], "0,0", "Core Throttle Count"), 2.0, 0);
    pl_snap_free(&s[0]);
    pl_snap_free(&s[1]);
    pc_close(&p);
}

/* ---- the pure parts ---------------------------------------------------------- */

/* % Processor Performance's sums at a realistic ratio: 1.5 GHz of APERF per
 * 1 GHz of MPERF is 150 %. */
static void test_perf_sums(void)
{
    pl_cpufiles c;
    memset(&c, 0, sizeof c);
    CHECK(pl_cpufreq_perf(&c, 1000000000, 2000000000, 100) == 1);     /* the start: 0 */
    CHECK_EQ_U64(c.perf, 0);
    /* dA 1.5e9, dM 1e9: ratio x 10000 = 15000; busy +200: 200 x 15000 / 100 */
    CHECK(pl_cpufreq_perf(&c, 2500000000ull, 3000000000ull, 300) == 1);
    CHECK_EQ_U64(c.perf, 30000);
    CHECK_EQ_U64(c.perf_base, 200);
    /* MPERF went back (a re-plug): nothing added, the next interval counts */
    CHECK(pl_cpufreq_perf(&c, 10, 20, 310) == 1);
    CHECK_EQ_U64(c.perf, 30000);
    CHECK_EQ_U64(c.perf_base, 200);
    /* dA 900, dM 1000 (90 %, ratio 9000), busy +10: + 900 */
    CHECK(pl_cpufreq_perf(&c, 910, 1020, 320) == 1);
    CHECK_EQ_U64(c.perf, 30900);
    CHECK_EQ_U64(c.perf_base, 210);
    /* no MPERF growth (idle all along): nothing added */
    CHECK(pl_cpufreq_perf(&c, 910, 1020, 320) == 1);
    CHECK_EQ_U64(c.perf_base, 210);
}

static void test_limit(void)
{
    pl_cpufiles c;
    uint64_t v[PL_NTHR] = { 0, 0, 0, 0 }, lim = 0, fl = 0;
    int ok[PL_NTHR] = { 1, 1, 1, 1 }, counts_only[PL_NTHR] = { 1, 1, 0, 0 };
    memset(&c, 0, sizeof c);
    CHECK(pl_cpufreq_limit(&c, v, counts_only, 1000, &lim, &fl) == 0);   /* before Linux 5.5 */
    CHECK(pl_cpufreq_limit(&c, v, ok, 1000, &lim, &fl) == 1);
    CHECK_EQ_U64(lim, 100);
    CHECK_EQ_U64(fl, 0);
    v[PL_THR_PMS] = 250;     /* 250 ms of the next 1000: 75 */
    v[PL_THR_PCOUNT] = 1;
    CHECK(pl_cpufreq_limit(&c, v, ok, 2000, &lim, &fl) == 1);
    CHECK_EQ_U64(lim, 75);
    CHECK_EQ_U64(fl, 2);
    v[PL_THR_CMS] = 5000;    /* more than the interval (clock skew): 0, not below */
    CHECK(pl_cpufreq_limit(&c, v, ok, 3000, &lim, &fl) == 1);
    CHECK_EQ_U64(lim, 0);
    CHECK_EQ_U64(fl, 1);
    v[PL_THR_CMS] = 10;      /* went back (a re-plug): since boot, 10 of 3500 */
    CHECK(pl_cpufreq_limit(&c, v, ok, 3500, &lim, &fl) == 1);
    CHECK_EQ_U64(lim, 100 - (250 * 100 / 3500));     /* package 250 > core 10: 93 */
    CHECK(pl_cpufreq_limit(&c, v, ok, 3500, &lim, &fl) == 1);   /* no time passed */
    CHECK_EQ_U64(lim, 100);
}

static void test_escape(void)
{
    char out[16];
    pl_fact_escape("Vulnerable\n", out, sizeof out);
    CHECK_STR(out, "Vulnerable");
    pl_fact_escape("a\tb\\c\x7f\n\n", out, sizeof out);
    CHECK_STR(out, "a\\x09b\\x5cc\\x7f");
    pl_fact_escape("abcdefghij\x01xyz", out, sizeof out);   /* 15 characters fit */
    CHECK_STR(out, "abcdefghij\\x01x");
    pl_fact_escape("abcdefghijkl\x01", out, sizeof out);    /* no half escape at the end */
    CHECK_STR(out, "abcdefghijkl");
    pl_fact_escape("", out, sizeof out);
    CHECK_STR(out, "");
    /* whole UTF-8 characters stay; bytes that are not UTF-8 are escaped */
    pl_fact_escape("Radeon\xe2\x84\xa2 X", out, sizeof out);    /* "Radeon(TM) X" */
    CHECK_STR(out, "Radeon\xe2\x84\xa2 X");
    pl_fact_escape("a\xff\xc3(b", out, sizeof out);     /* 0xff never; 0xc3 without its tail */
    CHECK_STR(out, "a\\xff\\xc3(b");
    pl_fact_escape("abcdefghijklm\xe2\x84\xa2", out, sizeof out);   /* no half character */
    CHECK_STR(out, "abcdefghijklm");
    pl_fact_escape("ab\xe2\x84", out, sizeof out);      /* cut off at the end of the file */
    CHECK_STR(out, "ab\\xe2\\x84");
}

/* ---- facts gathered by emit ---------------------------------------------------- */

typedef struct got {
    int n, stop_at;
    char keys[32][48], vals[32][128], inst[32][16];
} got;

static int take(void *ud, const char *key, const char *value)
{
    got *g = ud;
    if (g->n < 32) {
        snprintf(g->keys[g->n], sizeof g->keys[0], "%s", key);
        snprintf(g->vals[g->n], sizeof g->vals[0], "%s", value);
        g->inst[g->n][0] = '\0';
    }
    g->n++;
    return g->stop_at && g->n >= g->stop_at;
}

static int take_inst(void *ud, const char *instance, const char *key, const char *value)
{
    got *g = ud;
    int r = take(ud, key, value);
    if (g->n <= 32)
        snprintf(g->inst[g->n - 1], sizeof g->inst[0], "%s", instance);
    return r;
}

static const char *fact(const got *g, const char *key)
{
    for (int i = 0; i < g->n && i < 32; i++)
        if (strcmp(g->keys[i], key) == 0)
            return g->vals[i];
    return NULL;
}

/* ---- sources that are not there ---------------------------------------------- */

/* basic: the reference VM: no cpufreq, no thermal_throttle, no msr, no
 * vulnerabilities directory, no isolated file. */
static void test_absent(void)
{
    static const char *const none[] = {
        "% Processor Performance", "% Processor Performance Base", "% Privileged Utility",
        "% Performance Limit", "Performance Limit Flags", "Scaling Minimum Frequency",
        "Scaling Maximum Frequency", "Hardware Minimum Frequency", "Hardware Maximum Frequency",
        "Isolated", "Vulnerable", "Core Throttle Count", "Package Throttle Count",
        "% Core Throttled", "% Package Throttled", "Average Idle Time", "Idle Break Events/sec",
    };
    pl_snapshot s;
    CHECK(pc_collect_tree(FX "basic", "Processor Information", 100, 0, NULL, &s) == 0);
    for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
        UNSET(&s, "0,0", none[k]);
        UNSET(&s, "_Total", none[k]);
    }
    pl_snap_free(&s);

    /* counts without times (before Linux 5.5); nohz_full adds to isolated */
    const char *dir = tmp("absent");
    mkdir(dir, 0700);
    CHECK(put(dir, "proc/stat", "cpu  1 0 1 10 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\n"));
    CHECK(put(dir, CPU0 "thermal_throttle/core_throttle_count", "7\n"));
    CHECK(put(dir, "sys/devices/system/cpu/isolated", "\n"));
    CHECK(put(dir, "sys/devices/system/cpu/nohz_full", "0\n"));
    CHECK(put(dir, "sys/devices/system/cpu/vulnerabilities/x", "Not affected\n"));
    CHECK(pc_collect_tree(dir, "Processor Information", 100, 0, NULL, &s) == 0);
    EXPECT(&s, "0,0", "Core Throttle Count", 7);
    UNSET(&s, "0,0", "Package Throttle Count");
    UNSET(&s, "0,0", "% Core Throttled");
    UNSET(&s, "0,0", "% Performance Limit");
    EXPECT(&s, "0,0", "Isolated", 1);
    EXPECT(&s, "_Total", "Vulnerable", 0);
    pl_snap_free(&s);

    /* a control character in a fact comes escaped */
    CHECK(put(dir, "sys/devices/system/cpu/vulnerabilities/x", "Mitigation:\tsome\x1b[0m\n"));
    pl_env *env = pl_env_new(dir);
    got g;
    memset(&g, 0, sizeof g);
    CHECK(env && pl_counterset_info(env, pl_env_find(env, "Processor Information"), "_Total", take, &g) == 0);
    CHECK_STR(fact(&g, "vulnerability_x"), "Mitigation:\\x09some\\x1b[0m");
    CHECK_STR(fact(&g, "isolated"), "");
    CHECK_STR(fact(&g, "nohz_full"), "0");
    pl_env_unref(env);

    /* a list that is not one (garbage) isolates nothing */
    CHECK(put(dir, "sys/devices/system/cpu/nohz_full", "0-x\n"));
    CHECK(pc_collect_tree(dir, "Processor Information", 100, 0, NULL, &s) == 0);
    EXPECT(&s, "0,0", "Isolated", 0);
    pl_snap_free(&s);
}

/* ---- text facts ------------------------------------------------------------------ */

static void test_info_op(void)
{
    pctx p;
    got g;
    CHECK(pc_open_set(&p, FX "cpu-full", "Processor Information", 100, 0) == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    CHECK(p.cs->ops->info != NULL);
    memset(&g, 0, sizeof g);
    CHECK(p.cs->ops->info(p.st, "0,1", take, &g) == 0);
    CHECK_EQ_U64(g.n, 3);
    CHECK_STR(fact(&g, "governor"), "powersave");
    CHECK_STR(fact(&g, "driver"), "intel_pstate");
    CHECK_STR(fact(&g, "energy_performance_preference"), "balance_performance");
    memset(&g, 0, sizeof g);
    CHECK(p.cs->ops->info(p.st, "_Total", take, &g) == 0);
    CHECK_EQ_U64(g.n, 8);    /* 2 lists, cpuidle driver and governor, 4 vulnerabilities */
    CHECK_STR(fact(&g, "isolated"), "1");
    CHECK_STR(fact(&g, "nohz_full"), "");                 /* "(null)": none */
    CHECK_STR(fact(&g, "cpuidle_driver"), "intel_idle");
    CHECK_STR(fact(&g, "cpuidle_governor"), "menu");
    CHECK_STR(fact(&g, "vulnerability_meltdown"), "Not affected");
    CHECK_STR(fact(&g, "vulnerability_spec_store_bypass"), "Vulnerable");
    CHECK_STR(fact(&g, "vulnerability_mds"), "Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable");
    CHECK_STR(fact(&g, "vulnerability_spectre_v2"), "Mitigation: Retpolines; STIBP: disabled; RSB filling");
    memset(&g, 0, sizeof g);
    CHECK(p.cs->ops->info(p.st, "0,_Total", take, &g) == 0);     /* a node total has none */
    CHECK_EQ_U64(g.n, 0);
    CHECK(p.cs->ops->info(p.st, "0,7", take, &g) == ENOENT);
    CHECK(p.cs->ops->info(p.st, "", take, &g) == ENOENT);
    CHECK(p.cs->ops->info(p.st, NULL, take, &g) == EINVAL);
    memset(&g, 0, sizeof g);
    g.stop_at = 2;           /* emit stops the walk */
    CHECK(p.cs->ops->info(p.st, "_Total", take, &g) == 0);
    CHECK_EQ_U64(g.n, 2);
    pc_close(&p);

    /* Processor (V1 names) has the same facts under "1" */
    CHECK(pc_open_set(&p, FX "cpu-full", "Processor", 100, 0) == 0);
    memset(&g, 0, sizeof g);
    CHECK(p.st && p.cs->ops->info(p.st, "1", take, &g) == 0);
    CHECK_STR(fact(&g, "governor"), "powersave");
    CHECK(p.st && p.cs->ops->info(p.st, "0,1", take, &g) == ENOENT);
    pc_close(&p);
}

static void test_core_info(void)
{
    pl_env *env = pl_env_new(FX "cpu-full"), *gone = pl_env_new("/nonexistent");
    const pl_counterset_def *cs = pl_env_find(env, "Processor Information");
    const pl_counterset_def *mem = pl_env_find(env, "Memory");
    got g;
    CHECK(cs && mem);
    if (!cs || !mem) {
        pl_env_unref(env);
        pl_env_unref(gone);
        return;
    }
    memset(&g, 0, sizeof g);
    CHECK(pl_counterset_info(env, cs, "0,0", take, &g) == 0);
    CHECK_EQ_U64(g.n, 3);
    CHECK_STR(fact(&g, "governor"), "powersave");
    /* misuse */
    CHECK(pl_counterset_info(NULL, cs, "0,0", take, &g) == EINVAL);
    CHECK(pl_counterset_info(env, NULL, "0,0", take, &g) == EINVAL);
    CHECK(pl_counterset_info(env, cs, "0,0", NULL, &g) == EINVAL);
    CHECK(pl_counterset_info(env, cs, NULL, take, &g) == EINVAL);     /* multi-instance: a name */
    CHECK(pl_counterset_info(env, mem, "x", take, &g) == EINVAL);     /* single-instance: none */
    CHECK(pl_counterset_info(env, mem, NULL, take, &g) == ENOTSUP);
    CHECK(pl_counterset_info_all(env, mem, take_inst, &g) == ENOTSUP);
    CHECK(pl_counterset_info_all(env, cs, NULL, &g) == EINVAL);
    CHECK(pl_counterset_info(env, cs, "9,9", take, &g) == ENOENT);
    /* every instance: 0,0 and 0,1 have 3 facts, 0,_Total none, _Total 8 */
    memset(&g, 0, sizeof g);
    CHECK(pl_counterset_info_all(env, cs, take_inst, &g) == 0);
    CHECK_EQ_U64(g.n, 3 + 3 + 8);
    CHECK_STR(g.inst[0], "0,0");
    CHECK_STR(g.inst[3], "0,1");
    CHECK_STR(g.inst[6], "_Total");
    memset(&g, 0, sizeof g);
    g.stop_at = 4;           /* a stop ends the whole walk */
    CHECK(pl_counterset_info_all(env, cs, take_inst, &g) == 0);
    CHECK_EQ_U64(g.n, 4);
    /* an environment without /proc/stat: its errno */
    CHECK(pl_counterset_info_all(gone, pl_env_find(gone, "Processor Information"), take_inst, &g) == ENOENT);
    pl_env_unref(env);
    pl_env_unref(gone);
}

/* ---- this machine ---------------------------------------------------------------- */

/* The live facts and numbers against what the test reads itself: every
 * vulnerability file is a fact, and Vulnerable counts those that say so. */
static void test_live(void)
{
    pl_env *env = pl_env_new("/");
    const pl_counterset_def *cs = env ? pl_env_find(env, "Processor Information") : NULL;
    DIR *d = opendir("/sys/devices/system/cpu/vulnerabilities");
    uint64_t files = 0, vulnerable = 0, v;
    pl_snapshot s;
    got g;
    CHECK(cs != NULL);
    if (!cs) {
        pl_env_unref(env);
        if (d)
            closedir(d);
        return;
    }
    for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
        char path[320], text[16] = "";
        FILE *f;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/vulnerabilities/%s", de->d_name);
        files++;
        if ((f = fopen(path, "r")) != NULL) {
            if (fgets(text, sizeof text, f) && strncmp(text, "Vulnerable", 10) == 0)
                vulnerable++;
            fclose(f);
        }
    }
    if (d)
        closedir(d);
    memset(&g, 0, sizeof g);
    CHECK(pl_counterset_info(env, cs, "_Total", take, &g) == 0);
    uint64_t vkeys = 0;
    for (int i = 0; i < g.n && i < 32; i++)
        vkeys += strncmp(g.keys[i], "vulnerability_", 14) == 0;
    CHECK_EQ_U64(vkeys, files);
    CHECK(pc_collect_tree("/", "Processor Information", 0, 0, NULL, &s) == 0);
    if (files) {
        CHECK(get(&s, "_Total", "Vulnerable", &v) == 1);
        CHECK_EQ_U64(v, vulnerable);
    } else {
        UNSET(&s, "_Total", "Vulnerable");       /* no directory (before 4.15, other arches) */
    }
    if (access("/sys/devices/system/cpu/isolated", R_OK) == 0)
        CHECK(get(&s, "_Total", "Isolated", &v) == 1 && v < 4096);
    pl_snap_free(&s);
    pl_env_unref(env);
}

int main(void)
{
    ct_tmp_init("test_processor_ids");
    RUN(test_full_ids);
    RUN(test_rates);
    RUN(test_perf_sums);
    RUN(test_limit);
    RUN(test_escape);
    RUN(test_absent);
    RUN(test_info_op);
    RUN(test_core_info);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
