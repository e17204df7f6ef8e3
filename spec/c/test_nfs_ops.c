/* NFS Client's per-operation counters (issue 17, item 4): READ and WRITE
 * queue time, errors and timeouts, GETATTR, LOOKUP and ACCESS calls and
 * round trips, on each mount, against spec/fixtures/kern-basic (run from
 * the repository root) and temporary trees.  mountstats per-op fields:
 * ops trans timeouts bytes_sent bytes_recv queue_ms rtt_ms execute_ms
 * [errors]; ms x 10^4 = 100 ns. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MS 10000ull

static void test_kern_basic(void)
{
    pl_snapshot s;
    const char *m = "/home/shared data";
    CHECK(pc_collect_tree("spec/fixtures/kern-basic", "NFS Client", 0, 0, NULL, &s) == 0);
    /* READ: 2800 2803 1 481600 11892736 140 8400 8820 0 */
    EXPECT(&s, m, "Avg. sec/Read (Queue)", 140 * MS);
    EXPECT(&s, m, "Avg. sec/Read (Queue) Base", 2800);
    EXPECT(&s, m, "Read Timeouts", 1);
    EXPECT(&s, m, "Read Errors", 0);
    /* WRITE: 512 512 0 2183168 81920 60 3072 3200 2 */
    EXPECT(&s, m, "Avg. sec/Write (Queue)", 60 * MS);
    EXPECT(&s, m, "Avg. sec/Write (Queue) Base", 512);
    EXPECT(&s, m, "Write Timeouts", 0);
    EXPECT(&s, m, "Write Errors", 2);
    /* GETATTR: 900 901 0 151200 216000 9 540 560 0 */
    EXPECT(&s, m, "GETATTR Operations/sec", 900);
    EXPECT(&s, m, "Avg. sec/GETATTR (RTT)", 540 * MS);
    EXPECT(&s, m, "Avg. sec/GETATTR (RTT) Base", 900);
    /* no LOOKUP or ACCESS line in this mount's list: unset, never 0 */
    UNSET(&s, m, "LOOKUP Operations/sec");
    UNSET(&s, m, "Avg. sec/LOOKUP (RTT)");
    UNSET(&s, m, "ACCESS Operations/sec");
    /* /mnt/backup: GETATTR 10 10 0 1280 1120 0 20 21 0; WRITE all 0 */
    EXPECT(&s, "/mnt/backup", "GETATTR Operations/sec", 10);
    EXPECT(&s, "/mnt/backup", "Avg. sec/GETATTR (RTT)", 20 * MS);
    EXPECT(&s, "/mnt/backup", "Avg. sec/Write (Queue) Base", 0);
    EXPECT(&s, "/mnt/backup", "Write Errors", 0);
    pl_snap_free(&s);
}

static const char stats_v10[] =
    "device srv:/x mounted on /mnt/x with fstype nfs statvers=1.0\n"
    "\tbytes:\t0 0 0 0 0 0 0 0\n"
    "\tper-op statistics\n"
    "\t        READ: 10 10 0 1 2 3 40 44\n"
    "\t      LOOKUP: 200 202 1 0 0 6 300 310\n"
    "\t      ACCESS: 50 50 0 0 0 0 25 26\n"
    "\t       WRITE: 4 4 0 1 2 0 8 9\n"
    "\t     GETATTR: 7 7 0 x\n";

/* statvers 1.0 (8 fields, no errors), LOOKUP and ACCESS there, a GETATTR
 * line that does not parse; rates of LOOKUP over 10 s. */
static void test_versions_and_rates(void)
{
    const char *root = tmp("v10");
    pl_snapshot s0, s1;
    double v;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/self/mountstats", stats_v10) == 1);
    CHECK(pc_collect_tree(root, "NFS Client", 0, 0, NULL, &s0) == 0);
    EXPECT(&s0, "/mnt/x", "LOOKUP Operations/sec", 200);
    EXPECT(&s0, "/mnt/x", "Avg. sec/LOOKUP (RTT)", 300 * MS);
    EXPECT(&s0, "/mnt/x", "ACCESS Operations/sec", 50);
    EXPECT(&s0, "/mnt/x", "Avg. sec/ACCESS (RTT) Base", 50);
    EXPECT(&s0, "/mnt/x", "Avg. sec/Read (Queue)", 3 * MS);
    EXPECT(&s0, "/mnt/x", "Read Timeouts", 0);
    UNSET(&s0, "/mnt/x", "Read Errors");           /* 8 fields: no errors */
    UNSET(&s0, "/mnt/x", "Write Errors");
    UNSET(&s0, "/mnt/x", "GETATTR Operations/sec"); /* "x": not a number */
    UNSET(&s0, "/mnt/x", "Avg. sec/GETATTR (RTT)");
    /* 10 s later: LOOKUP +100 ops, rtt +250 ms -> 2.5 ms each, 10/s */
    CHECK(put(root, "proc/self/mountstats",
              "device srv:/x mounted on /mnt/x with fstype nfs statvers=1.0\n"
              "\tper-op statistics\n"
              "\t      LOOKUP: 300 302 1 0 0 6 550 560\n") == 1);
    CHECK(pc_collect_tree(root, "NFS Client", 0, 0, NULL, &s1) == 0);
    CHECK(fmt2(&s0, &s1, "/mnt/x", "Avg. sec/LOOKUP (RTT)", &v) == PL_VALID);
    CHECK_NEAR(v, 0.0025, 1e-12);
    CHECK(fmt2(&s0, &s1, "/mnt/x", "LOOKUP Operations/sec", &v) == PL_VALID);
    CHECK_NEAR(v, 10, 1e-9);
    UNSET(&s1, "/mnt/x", "ACCESS Operations/sec");  /* its line is gone */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

int main(void)
{
    ct_tmp_init("test_nfs_ops");
    RUN(test_kern_basic);
    RUN(test_versions_and_rates);
    ct_tmp_remove();
    return CT_END();
}
