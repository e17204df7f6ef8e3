/* SCSI Tape (issue 17, node_exporter's tapestats) on spec/fixtures/tape,
 * laid out as drivers/scsi/st.c makes /sys/class/scsi_tape (Documentation/
 * scsi/st.rst, "Sysfs Statistics for SCSI Tape Devices": stats/read_byte_cnt,
 * read_cnt, read_ns, write_byte_cnt, write_cnt, write_ns, other_cnt, io_ns,
 * in_flight, resid_cnt, one decimal each): st0 with its seven other nodes
 * (nst0, st0a, st0l, st0m, nst0a with ten times the values: never read),
 * st1 without stats/ (before Linux 4.2) and st2 with broken files.  Then
 * rates over 10 s on a temporary tree, a wanted mask, and this machine. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"
#include "ct_absent.h"
#include "ct_facts.h"

#include <math.h>
#include <string.h>

#define FX "spec/fixtures/tape"
#define TS "SCSI Tape"

static void test_fixture(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, TS, 0, 0, NULL, &s) == 0);
    INSTS(&s, ((const uint32_t[]){ 0, 1, 2 }), "st0", "st1", "st2");
    EXPECT(&s, "st0", "Read Bytes/sec", 1048576);
    EXPECT(&s, "st0", "Write Bytes/sec", 4194304);
    EXPECT(&s, "st0", "Reads/sec", 16);
    EXPECT(&s, "st0", "Writes/sec", 64);
    EXPECT(&s, "st0", "Other Operations/sec", 3);
    EXPECT(&s, "st0", "% Read Time", 3200000000ull / 100);       /* 3.2 s in 100 ns */
    EXPECT(&s, "st0", "% Write Time", 128000000);                  /* 12800000050 ns / 100 */
    EXPECT(&s, "st0", "% I/O Time", 16000000000ull / 100);
    EXPECT(&s, "st0", "Avg. sec/Read", 32000000);
    EXPECT(&s, "st0", "Avg. sec/Read Base", 16);
    EXPECT(&s, "st0", "Avg. sec/Write", 128000000);
    EXPECT(&s, "st0", "Avg. sec/Write Base", 64);
    EXPECT(&s, "st0", "Requests In Flight", 1);
    EXPECT(&s, "st0", "Residual Transfers", 2);
    UNSET(&s, "st1", "Reads/sec");                                 /* no stats/ */
    UNSET(&s, "st1", "% I/O Time");
    EXPECT(&s, "st2", "Read Bytes/sec", 512);
    UNSET(&s, "st2", "Reads/sec");                                 /* "abc" */
    UNSET(&s, "st2", "Avg. sec/Read Base");
    UNSET(&s, "st2", "% Read Time");                               /* "-5" */
    UNSET(&s, "st2", "Avg. sec/Read");
    UNSET(&s, "st2", "Write Bytes/sec");                           /* 2^64 */
    UNSET(&s, "st2", "Writes/sec");                                /* "7 8" */
    EXPECT(&s, "st2", "% Write Time", 7);                          /* 700 ns */
    UNSET(&s, "st2", "Other Operations/sec");                      /* empty */
    EXPECT(&s, "st2", "% I/O Time", 9);
    EXPECT(&s, "st2", "Requests In Flight", 0);
    pl_snap_free(&s);
}

#define ST "sys/class/scsi_tape/st3/stats/"

static void put_stats(const char *root, const char *rb, const char *rc, const char *rns,
                      const char *io)
{
    CHECK(put(root, ST "read_byte_cnt", rb) == 1);
    CHECK(put(root, ST "read_cnt", rc) == 1);
    CHECK(put(root, ST "read_ns", rns) == 1);
    CHECK(put(root, ST "io_ns", io) == 1);
}

static void test_rates(void)
{
    const char *root = tmp("rates");
    pctx p;
    pl_snapshot s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(mkdir(root, 0700) == 0);
    put_stats(root, "0\n", "10\n", "1000000000\n", "2000000000\n");
    CHECK(pc_open_set(&p, root, TS, 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    /* 10 s later: 20 reads of 5 MiB in all, 50 ms each; 2.5 s busy */
    put_stats(root, "5242880\n", "30\n", "2000000000\n", "4500000000\n");
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    CHECK(fabs(val2(&s0, &s1, "st3", "Read Bytes/sec") - 5242880 / 10.0) < 1e-6);
    CHECK(fabs(val2(&s0, &s1, "st3", "Reads/sec") - 2.0) < 1e-9);
    /* (2 - 1) s of 20 reads = 0.05 s */
    CHECK(fabs(val2(&s0, &s1, "st3", "Avg. sec/Read") - 0.05) < 1e-9);
    CHECK(fabs(val2(&s0, &s1, "st3", "% Read Time") - 10.0) < 1e-9);   /* 1 s of 10 */
    CHECK(fabs(val2(&s0, &s1, "st3", "% I/O Time") - 25.0) < 1e-9);   /* 2.5 s of 10 */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

static void test_wanted(void)
{
    /* Avg. sec/Write Base reads the same file, and is not asked for */
    static const char *const unset[] = { "Avg. sec/Write Base", "Reads/sec", NULL };
    check_only(FX, TS, "st0", "Writes/sec", 64, unset);
}

static void test_absent(void)
{
    check_absent_and_live(TS, "tape drives");
}

int main(void)
{
    ct_tmp_init("test_tape");
    RUN(test_fixture);
    RUN(test_rates);
    RUN(test_wanted);
    RUN(test_absent);
    ct_tmp_remove();
    return CT_END();
}
