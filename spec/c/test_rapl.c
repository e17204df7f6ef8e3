/* Energy Meter (RAPL, issue 17 item 5) on spec/fixtures/rapl, laid out as
 * the powercap class of a one-socket Intel machine (drivers/powercap/
 * intel_rapl_common.c and Documentation/power/powercap/powercap.rst:
 * intel-rapl:0 package-0 with core, uncore and dram subzones, intel-rapl:1
 * psys, an intel-rapl-mmio:0 left out), then on temporary trees: the unwrap
 * at max_energy_range_uj, a zone without a range, a root-only energy_uj
 * (no_access, as on kernels >= 5.10) and no powercap at all. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"
#include "ct_absent.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FX "spec/fixtures/rapl"
#define EM "Energy Meter"

static void test_fixture(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, EM, 0, 0, NULL, &s) == 0);
    NAMES(&s, "package-0", "package-0/core", "package-0/uncore", "package-0/dram", "psys");
    CHECK_EQ_U64(s.inst[0].id, 0);                      /* 0 << 16 | 0 */
    CHECK_EQ_U64(s.inst[3].id, 3);                      /* intel-rapl:0:2: 0 << 16 | (2 + 1) */
    CHECK_EQ_U64(s.inst[4].id, 1u << 16);               /* intel-rapl:1 */
    EXPECT(&s, "package-0", "Energy (J)", 123456789012ull);     /* uJ: 123456.789012 J */
    EXPECT(&s, "package-0", "Power (W)", 123456789012ull);
    EXPECT(&s, "package-0", "Energy Range (J)", 262143328850ull);
    EXPECT(&s, "package-0/core", "Energy (J)", 98765432109ull);
    EXPECT(&s, "package-0/uncore", "Energy (J)", 1234567);
    EXPECT(&s, "package-0/dram", "Energy Range (J)", 65712999613ull);  /* 2^32 x 15.3 uJ */
    EXPECT(&s, "psys", "Energy (J)", 202020202020ull);
    pl_snap_free(&s);
}

static const char *zone_tree(const char *name, const char *range)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "sys/class/powercap/intel-rapl:0/name", "package-0\n") == 1);
    CHECK(put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "999000\n") == 1);
    if (range)
        CHECK(put(root, "sys/class/powercap/intel-rapl:0/max_energy_range_uj", range) == 1);
    return root;
}

#define EUJ "sys/class/powercap/intel-rapl:0/energy_uj"

/* 999000 -> 2000 across a range of 1000000: 1000000 - 999000 + 2000 = 3000 uJ */
static void test_wrap(void)
{
    const char *root = zone_tree("wrap", "1000000\n");
    pctx p;
    pl_snapshot s0, s1;
    double w;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(pc_open_set(&p, root, EM, 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    EXPECT(&s0, "package-0", "Energy (J)", 999000);
    CHECK(put(root, EUJ, "2000\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    EXPECT(&s1, "package-0", "Energy (J)", 1000000 + 2000);   /* the offset grew by the range */
    /* the rate over fmt2's 10 s: 3000 uJ / 10 s = 300 uJ/s, 0.0003 W with the scale */
    CHECK(fmt2(&s0, &s1, "package-0", "Power (W)", &w) == PL_VALID && fabs(w - 300) < 1e-9);
    CHECK(put(root, EUJ, "502000\n") == 1);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    EXPECT(&s0, "package-0", "Energy (J)", 1000000 + 502000);  /* no wrap: offset kept */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

/* Without max_energy_range_uj a decrease is no value; the readings after
 * it go on from the last cumulative value. */
static void test_no_range(void)
{
    const char *root = zone_tree("norange", NULL);
    pctx p;
    pl_snapshot s;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, root, EM, 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "package-0", "Energy (J)", 999000);
    UNSET(&s, "package-0", "Energy Range (J)");
    CHECK(put(root, EUJ, "2000\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    UNSET(&s, "package-0", "Energy (J)");
    UNSET(&s, "package-0", "Power (W)");
    CHECK(put(root, EUJ, "5000\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "package-0", "Energy (J)", 999000 + (5000 - 2000));   /* 1002000 */
    CHECK(put(root, EUJ, "garbage\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    UNSET(&s, "package-0", "Energy (J)");
    pl_snap_free(&s);
    pc_close(&p);
}

/* energy_uj mode 0400 root (Linux >= 5.10): its counters are no_access for
 * another user, the range still a value.  Run as nobody in a child when
 * this test runs as root (root reads any file). */
static void test_root_only(void)
{
    const char *root = zone_tree("rootonly", "1000000\n");
    char path[256];
    pid_t pid;
    int st = -1;
    char cmd[300];
    /* the tree's directories are 0700: open them to others, all but the file */
    snprintf(cmd, sizeof cmd, "chmod -R a+rX '%s'", ct_dir);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/" EUJ, root);
    CHECK(chmod(path, 0400) == 0);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        pl_snapshot s;
        int bad = 0;
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        bad |= (pc_collect_tree(root, EM, 0, 0, NULL, &s) != 0) << 0;
        bad |= (have_of(&s, "package-0", "Energy (J)") != PL_HAVE_NO_ACCESS) << 1;
        bad |= (have_of(&s, "package-0", "Power (W)") != PL_HAVE_NO_ACCESS) << 2;
        bad |= (have_of(&s, "package-0", "Energy Range (J)") != 1) << 3;
        pl_snap_free(&s);
        _exit(bad);
    }
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (WIFEXITED(st) && WEXITSTATUS(st))
        fprintf(stderr, "  child checks failed: mask %d\n", WEXITSTATUS(st));
}

/* A subzone whose zone is not listed keeps its own name; a zone without a
 * name file is called by its directory. */
static void test_orphan(void)
{
    pl_snapshot s;
    const char *root = tmp("orphan");
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "sys/class/powercap/intel-rapl:3:1/name", "dram\n") == 1);
    CHECK(put(root, "sys/class/powercap/intel-rapl:3:1/energy_uj", "7\n") == 1);
    CHECK(put(root, "sys/class/powercap/intel-rapl:5/energy_uj", "9\n") == 1);
    CHECK(put(root, "sys/class/powercap/intel-rapl:x/energy_uj", "9\n") == 1);   /* not a zone */
    CHECK(pc_collect_tree(root, EM, 0, 0, NULL, &s) == 0);
    NAMES(&s, "dram", "intel-rapl:5");
    CHECK_EQ_U64(s.inst[0].id, 3u << 16 | 2);
    EXPECT(&s, "dram", "Energy (J)", 7);
    EXPECT(&s, "intel-rapl:5", "Energy (J)", 9);
    pl_snap_free(&s);
}

static void test_absent(void)
{
    check_absent_and_live(EM, "RAPL zones");
}

int main(void)
{
    ct_tmp_init("test_rapl");
    RUN(test_fixture);
    RUN(test_wrap);
    RUN(test_no_range);
    RUN(test_root_only);
    RUN(test_orphan);
    RUN(test_absent);
    ct_tmp_remove();
    return CT_END();
}
