/* ZFS: the SPL kstat parsers on bytes, and the sets over fixture trees laid
 * out as OpenZFS writes /proc/spl/kstat/zfs (module/os/linux/spl/
 * spl-kstat.c: the header "%d %d 0x%02x %d %d %lld %lld", "%-31s %-4s %s"
 * "name type data", entries "%-31s %-4d " and the value; KSTAT_TYPE_IO's
 * twelve columns):
 *   spec/fixtures/zfs      OpenZFS 2.2: every entry of zfs-2.2.6's arc_stats
 *                          (Linux: no other_size, 147), zil_stats (17),
 *                          dmu_tx_stats (13), zfetchstats (8), abdstats (21);
 *                          pools tank (ONLINE; objsets of dataset_kstats.c
 *                          with the 2.2 zil entries, their data_size with
 *                          ZFS_MAX_DATASET_NAME_LEN added as dataset_kstats.c
 *                          does; a name with a space; txgs, a procfs_list of
 *                          spa_stats.c, header only) and backup (SUSPENDED);
 *   spec/fixtures/zfs-21   a real OpenZFS 2.1 arcstats (the 123 entries of
 *                          zfs-2.1.16's arc_stats, from the test data of
 *                          xruins/mackerel-plugin-zfs-arcstats), nothing else
 *                          machine-wide; pool rpool DEGRADED;
 *   spec/fixtures/zfs-old  node_exporter's real fixtures: arcstats of ZFS on
 *                          Linux 0.6.5 (l2_compress_*, no compressed_size),
 *                          zil, dmu_tx, zfetchstats (no abdstats), and pools'
 *                          I/O kstats (0.6.5 to 2.0; gone in 2.1).
 * Expected values are worked out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "kstat.h"
#include "zfs.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX "spec/fixtures/zfs"
#define HDR "24 1 0x01 5 1360 5856356141 1344751450507729\n" \
            "name                            type data\n"

static int parse(const char *text, const char *const *names, unsigned n, pl_kstat *k)
{
    return pl_kstat_named(text, strlen(text), names, n, k);
}

static void test_named(void)
{
    static const char *const names[] = { "hits", "memory_available_bytes", "dataset_name",
                                         "misses", "a_name_longer_than_thirty_one_chars",
                                         "absent", "bad", "over", "kind", "neg32", "type9",
                                         "zero" };
    static const char text[] = HDR
        "hits                            4    174896434\n"
        "memory_available_bytes          3    -922337203685477580\n"
        "dataset_name                    7    tank/my data\n"
        "misses                          4    18446744073709551615\n"
        "a_name_longer_than_thirty_one_chars 2    17\n"
        "bad                             4    12x\n"
        "over                            4    18446744073709551616\n"
        "kind                            0    abc             \n"
        "neg32                           1    -5\n"
        "type9                           9    1\n"
        "zero                            3    -0\n";
    pl_kstat k;
    memset(&k, 0, sizeof k);
    CHECK(parse(text, names, 12, &k) == 0);
    CHECK(k.st[0] == PL_NS_OK && k.v[0] == 174896434);
    CHECK(k.st[1] == PL_NS_BAD);                 /* an int64 below 0: no counter value */
    CHECK_STR(pl_kstat_text(&k, 2), "tank/my data");   /* the rest of the line, blanks kept */
    CHECK(k.st[3] == PL_NS_OK && k.v[3] == UINT64_MAX);
    CHECK(k.st[4] == PL_NS_OK && k.v[4] == 17);  /* past %-31s: one blank */
    CHECK(k.st[5] == PL_NS_ABSENT);
    CHECK(k.st[6] == PL_NS_BAD);                 /* trailing bytes */
    CHECK(k.st[7] == PL_NS_BAD);                 /* 2^64 */
    CHECK_STR(pl_kstat_text(&k, 8), "abc");      /* "%-16s" padding dropped */
    CHECK(k.st[9] == PL_NS_BAD);
    CHECK(k.st[10] == PL_NS_BAD);                /* no such KSTAT_DATA type */
    CHECK(k.st[11] == PL_NS_OK && k.v[11] == 0);
    CHECK(pl_kstat_text(&k, 0) == NULL);         /* a number has no text */
    CHECK_EQ_U64(k.searched, 12);                /* first parse: every name searched for */

    /* the same layout again: every present name at its line, and the absent
     * one not looked for again */
    k.searched = 0;
    CHECK(parse(text, names, 12, &k) == 0);
    CHECK_EQ_U64(k.searched, 0);
    CHECK(k.st[0] == PL_NS_OK && k.v[0] == 174896434 && k.st[5] == PL_NS_ABSENT);
    CHECK_STR(pl_kstat_text(&k, 2), "tank/my data");
    /* another order (a newer module): found by search, never another's value */
    k.searched = 0;
    CHECK(parse(HDR "misses                          4    7\n"
                    "hits                            4    9\n", names, 4, &k) == 0);
    CHECK(k.v[0] == 9 && k.v[3] == 7 && k.st[1] == PL_NS_ABSENT && k.st[2] == PL_NS_ABSENT);
    CHECK_EQ_U64(k.searched, 4);
    /* a value grown by a digit leaves the lines where they were: no search */
    k.searched = 0;
    CHECK(parse(HDR "misses                          4    17\n"
                    "hits                            4    9\n", names, 4, &k) == 0);
    CHECK(k.v[3] == 17 && k.v[0] == 9);
    CHECK_EQ_U64(k.searched, 0);
    /* a line more (a newer module): the layout changed, the absent searched */
    CHECK(parse(HDR "misses                          4    17\n"
                    "hits                            4    9\n"
                    "memory_available_bytes          3    12\n", names, 4, &k) == 0);
    CHECK(k.st[1] == PL_NS_OK && k.v[1] == 12);
    CHECK_EQ_U64(k.searched, 2);                 /* memory_available_bytes, dataset_name */

    /* not a named kstat: every name absent */
    CHECK(parse("12 3 0x00 1 80 79205351707403 395818011156865\nnread nwritten\n1 2\n", names,
                1, &k) == EINVAL);
    CHECK(k.st[0] == PL_NS_ABSENT);
    CHECK(parse("24 1 0x01 5 1360 5856356141 1344751450507729\nhits 4 1\n", names, 1, &k) ==
          EINVAL);                               /* no "name type data" line */
    CHECK(parse("", names, 1, &k) == EINVAL);
    CHECK(parse("ONLINE\n", names, 1, &k) == EINVAL);
    /* a NUL inside a line: that entry bad, the others read */
    {
        static const char nul[] = HDR "hits                            4    1\0\n"
                                      "misses                          4    2\n";
        CHECK(pl_kstat_named(nul, sizeof nul - 1, names, 4, &k) == 0);
        CHECK(k.st[0] == PL_NS_BAD && k.st[3] == PL_NS_OK && k.v[3] == 2);
    }
    pl_kstat_release(&k);
}

static void test_io(void)
{
    /* node_exporter's pool1/io (kstat_seq_show_io) */
    static const char io[] =
        "12 3 0x00 1 80 79205351707403 395818011156865\n"
        "nread    nwritten reads    writes   wtime    wlentime wupdate  rtime    rlentime rupdate  "
        "wcnt     rcnt    \n"
        "1884160  3206144  22       132      7155162  104112268 79210489694949 24168078 104112268 "
        "79210489849220 0        0       \n";
    pl_kstat_io k;
    CHECK(pl_kstat_io_parse(io, sizeof io - 1, &k) == 0);
    CHECK(k.st[PL_KIO_NREAD] == PL_NS_OK && k.v[PL_KIO_NREAD] == 1884160);
    CHECK(k.v[PL_KIO_NWRITTEN] == 3206144 && k.v[PL_KIO_READS] == 22 && k.v[PL_KIO_WRITES] == 132);
    CHECK(k.v[PL_KIO_RUPDATE] == 79210489849220ull && k.st[PL_KIO_RCNT] == PL_NS_OK);
    /* columns by the header's names; a bad value; a short line */
    {
        static const char cols[] = "1 3 0x00 1 80 1 1\nwrites reads nread\n5 x\n";
        CHECK(pl_kstat_io_parse(cols, sizeof cols - 1, &k) == 0);
    }
    CHECK(k.st[PL_KIO_WRITES] == PL_NS_OK && k.v[PL_KIO_WRITES] == 5);
    CHECK(k.st[PL_KIO_READS] == PL_NS_BAD);
    CHECK(k.st[PL_KIO_NREAD] == PL_NS_ABSENT && k.st[PL_KIO_NWRITTEN] == PL_NS_ABSENT);
    CHECK(pl_kstat_io_parse(HDR, strlen(HDR), &k) == EINVAL);   /* a named kstat */
}

/* OpenZFS 2.2: every counter from its fixture's value. */
static void test_fixture(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "ZFS", 0, 0, NULL, &s) == 0);
    NAMES(&s, "");
    EXPECT(&s, "", "ARC Size", 8455716864ull);
    EXPECT(&s, "", "ARC Target Size", 8589934592ull);
    EXPECT(&s, "", "ARC Min Size", 1073741824);
    EXPECT(&s, "", "ARC Max Size", 16777216000ull);
    EXPECT(&s, "", "ARC Hits/sec", 9000000);
    EXPECT(&s, "", "ARC I/O Hits/sec", 12000);
    EXPECT(&s, "", "ARC Misses/sec", 1000000);
    EXPECT(&s, "", "Demand Data Hits/sec", 5000000);
    EXPECT(&s, "", "Demand Data Misses/sec", 400000);
    EXPECT(&s, "", "Demand Metadata Hits/sec", 3500000);
    EXPECT(&s, "", "Demand Metadata Misses/sec", 100000);
    EXPECT(&s, "", "Prefetch Data Hits/sec", 300000);
    EXPECT(&s, "", "Prefetch Data Misses/sec", 450000);
    EXPECT(&s, "", "Prefetch Metadata Hits/sec", 200000);
    EXPECT(&s, "", "Prefetch Metadata Misses/sec", 50000);
    EXPECT(&s, "", "MRU Hits/sec", 2000000);
    EXPECT(&s, "", "MFU Hits/sec", 6900000);
    EXPECT(&s, "", "MRU Ghost Hits/sec", 4000);
    EXPECT(&s, "", "MFU Ghost Hits/sec", 6000);
    EXPECT(&s, "", "L2ARC Hits/sec", 120);
    EXPECT(&s, "", "L2ARC Misses/sec", 880);
    EXPECT(&s, "", "L2ARC Size", 53687091200ull);
    EXPECT(&s, "", "L2ARC Allocated Size", 26843545600ull);
    EXPECT(&s, "", "L2ARC Read Bytes/sec", 491520);
    EXPECT(&s, "", "L2ARC Write Bytes/sec", 1073741824);
    EXPECT(&s, "", "Memory Throttles/sec", 3);
    EXPECT(&s, "", "ARC Metadata Used", 1610612736);
    UNSET(&s, "", "ARC Metadata Limit");                 /* gone in 2.2 */
    EXPECT(&s, "", "ARC Data Size", 6442450944ull);
    EXPECT(&s, "", "ARC Metadata Size", 1073741824);
    EXPECT(&s, "", "ARC Header Size", 50331648);
    EXPECT(&s, "", "ARC Compressed Size", 5368709120ull);
    EXPECT(&s, "", "ARC Uncompressed Size", 9663676416ull);
    EXPECT(&s, "", "ARC Deleted/sec", 250000);
    EXPECT(&s, "", "ARC Evictions Skipped/sec", 42);
    EXPECT(&s, "", "ARC Mutex Misses/sec", 7);
    EXPECT(&s, "", "ARC Hit Ratio Base", 10000000);      /* 9000000 + 1000000 */
    EXPECT(&s, "", "ZIL Commits/sec", 5000);
    EXPECT(&s, "", "ZIL Commit Writers/sec", 4800);
    EXPECT(&s, "", "ZIL Transactions/sec", 20000);
    EXPECT(&s, "", "ZIL Pool Writes/sec", 1500);
    EXPECT(&s, "", "ZIL Pool Bytes/sec", 6291456);
    EXPECT(&s, "", "ZIL SLOG Writes/sec", 3500);
    EXPECT(&s, "", "ZIL SLOG Bytes/sec", 14680064);
    EXPECT(&s, "", "DMU Transactions Assigned/sec", 7000000);
    EXPECT(&s, "", "DMU Transaction Delays/sec", 11);
    EXPECT(&s, "", "DMU Transaction Errors/sec", 2);
    EXPECT(&s, "", "DMU Dirty Throttles/sec", 30);
    EXPECT(&s, "", "DMU Dirty Delays/sec", 400);
    EXPECT(&s, "", "DMU Dirty Over Max/sec", 5);
    EXPECT(&s, "", "DMU Quota Failures/sec", 1);
    EXPECT(&s, "", "Prefetch Stream Hits/sec", 70000);
    EXPECT(&s, "", "Prefetch Stream Misses/sec", 30000);
    EXPECT(&s, "", "ABD Struct Bytes", 2520000);
    EXPECT(&s, "", "ABD Linear Buffers", 620);
    EXPECT(&s, "", "ABD Linear Bytes", 2232320);
    EXPECT(&s, "", "ABD Scatter Buffers", 10000);
    EXPECT(&s, "", "ABD Scatter Bytes", 1342177280);
    EXPECT(&s, "", "ABD Scatter Waste Bytes", 65536);
    pl_snap_free(&s);
}

/* A real 2.1 arcstats alone, and node_exporter's older tree: a name the
 * version lacks is unset, a missing kstat file leaves its counters unset. */
static void test_versions(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree("spec/fixtures/zfs-21", "ZFS", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "ARC Size", 33743421984ull);
    EXPECT(&s, "", "ARC Target Size", 33676691456ull);
    EXPECT(&s, "", "ARC Hits/sec", 174896434);
    UNSET(&s, "", "ARC I/O Hits/sec");                   /* 2.2 and later */
    EXPECT(&s, "", "ARC Metadata Limit", 25257518592ull); /* before 2.2 */
    EXPECT(&s, "", "ARC Hit Ratio Base", 193748043);     /* 174896434 + 18851609 */
    EXPECT(&s, "", "ARC Compressed Size", 28242027008ull);
    UNSET(&s, "", "ZIL Commits/sec");                    /* no zil file in this tree */
    UNSET(&s, "", "ABD Linear Buffers");
    pl_snap_free(&s);

    CHECK(pc_collect_tree("spec/fixtures/zfs-old", "ZFS", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "ARC Size", 1603939792);
    EXPECT(&s, "", "ARC Hits/sec", 8772612);
    EXPECT(&s, "", "ARC Misses/sec", 604635);
    EXPECT(&s, "", "ARC Metadata Used", 308103632);
    UNSET(&s, "", "ARC Compressed Size");                /* 0.6.5 has none */
    UNSET(&s, "", "ARC Uncompressed Size");
    UNSET(&s, "", "ARC I/O Hits/sec");
    EXPECT(&s, "", "L2ARC Allocated Size", 0);           /* l2_asize 0: present, not unset */
    EXPECT(&s, "", "ZIL Commits/sec", 10);
    EXPECT(&s, "", "ZIL SLOG Writes/sec", 0);
    EXPECT(&s, "", "DMU Transactions Assigned/sec", 3532844);
    EXPECT(&s, "", "Prefetch Stream Hits/sec", 7067992);
    EXPECT(&s, "", "Prefetch Stream Misses/sec", 11);
    UNSET(&s, "", "ABD Struct Bytes");                   /* no abdstats */
    pl_snap_free(&s);
}

/* % ARC Hit Ratio over an interval, on a temporary tree written twice. */
static void arc_file(const char *root, unsigned long long hits, unsigned long long misses)
{
    char text[512];
    snprintf(text, sizeof text, "6 1 0x01 3 816 5266997922 97951858082072\n"
             "%-31s %-4s %s\n%-31s %-4d %llu\n%-31s %-4d %llu\n%-31s %-4d %llu\n",
             "name", "type", "data", "hits", 4, hits, "misses", 4, misses, "size", 4, 4096ull);
    CHECK(put(root, "proc/spl/kstat/zfs/arcstats", text) == 1);
}

static void test_ratio(void)
{
    const char *root = tmp("ratio");
    pl_snapshot s0, s1;
    pctx p;
    CHECK(mkdir(root, 0700) == 0);
    arc_file(root, 9000000, 1000000);
    CHECK(pc_open_set(&p, root, "ZFS", 0, 0) == 0);
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    arc_file(root, 9000900, 1000100);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    /* (9000900 - 9000000) / ((9000900 + 1000100) - (9000000 + 1000000)) = 900 / 1000 */
    CHECK_NEAR(val2(&s0, &s1, "", "% ARC Hit Ratio"), 90.0, 1e-9);
    /* hits and misses per second over the 10 s of fmt2: 900 / 10, 100 / 10 */
    CHECK_NEAR(val2(&s0, &s1, "", "ARC Hits/sec"), 90.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "", "ARC Misses/sec"), 10.0, 1e-9);
    EXPECT(&s1, "", "ARC Size", 4096);
    UNSET(&s1, "", "ARC Target Size");
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

/* Only the kstats a wanted counter needs are read: zil alone answers for
 * the ZIL counters; the ARC's are unset without arcstats. */
static void test_wanted(void)
{
    static const char *const zil_only[] = { "ZIL Commits/sec", NULL };
    static const char *const state_only[] = { "State", NULL };
    const char *root = tmp("wanted");
    pl_snapshot s;
    pctx p;
    uint8_t *w;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/spl/kstat/zfs/zil", "7 1 0x01 1 272 8012538347 351689526932992\n"
              "name                            type data\n"
              "zil_commit_count                4    10\n") == 1);
    CHECK(pc_open_set(&p, root, "ZFS", 0, 0) == 0);
    w = want_only(p.cs, zil_only);
    memset(&s, 0, sizeof s);
    CHECK(pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "", "ZIL Commits/sec", 10);
    UNSET(&s, "", "ARC Size");
    free(w);
    CHECK(pc_collect(&p, NULL, &s) == 0);       /* arcstats fails, zil works: no failure */
    EXPECT(&s, "", "ZIL Commits/sec", 10);
    UNSET(&s, "", "ARC Hits/sec");
    pl_snap_free(&s);
    pc_close(&p);

    /* ZFS Pool with State alone wanted: the objsets are not read */
    CHECK(pc_open_set(&p, FX, "ZFS Pool", 0, 0) == 0);
    w = want_only(p.cs, state_only);
    memset(&s, 0, sizeof s);
    CHECK(pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "tank", "State", 0);
    UNSET(&s, "tank", "Datasets");
    UNSET(&s, "tank", "Dataset Reads/sec");
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

/* No zfs module: no /proc/spl/kstat/zfs, the set fails with ENOENT. */
static void test_absent(void)
{
    pl_snapshot s;
    const char *root = tmp("none");
    CHECK(mkdir(root, 0700) == 0);
    CHECK(pc_collect_tree(root, "ZFS", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/spl/kstat/zfs/arcstats");
    pl_snap_free(&s);
}

/* Live: this VM has no ZFS; then the set must say ENOENT. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "ZFS", 0, 0, NULL, &s);
    if (access("/proc/spl/kstat/zfs/arcstats", R_OK) != 0) {
        printf("# no /proc/spl/kstat/zfs here: the set must fail with ENOENT\n");
        CHECK(e == ENOENT);
    } else {
        CHECK(e == 0);
        CHECK(get(&s, "", "ARC Size", &v) == 1);
        CHECK(get(&s, "", "ARC Hits/sec", &v) == 1);
    }
    pl_snap_free(&s);
    CHECK(pc_collect_tree("/", "ZFS Pool", 0, 0, NULL, &s) == 0);
    if (access("/proc/spl/kstat/zfs", F_OK) != 0)
        CHECK_EQ_U64(s.ninst, 0);                /* no pools without the module */
    pl_snap_free(&s);
    CHECK(pc_collect_tree("/", "ZFS Dataset", 0, 0, NULL, &s) == 0);
    if (access("/proc/spl/kstat/zfs", F_OK) != 0)
        CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

/* ZFS Pool on the fixtures: state codes, the datasets' sums, the I/O
 * kstat where the version has it. */
static void test_pools(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "ZFS Pool", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 2);                   /* tank, backup (txgs is no pool) */
    EXPECT(&s, "tank", "State", 0);             /* ONLINE */
    EXPECT(&s, "tank", "Datasets", 3);          /* objset-0x36, 0x85, 0x10b */
    EXPECT(&s, "tank", "Dataset Reads/sec", 42011);              /* 2000 + 40000 + 11 */
    EXPECT(&s, "tank", "Dataset Writes/sec", 3107);              /* 100 + 3000 + 7 */
    EXPECT(&s, "tank", "Dataset Read Bytes/sec", 172077056);     /* 8192000 + 163840000 + 45056 */
    EXPECT(&s, "tank", "Dataset Write Bytes/sec", 12726272);     /* 409600 + 12288000 + 28672 */
    UNSET(&s, "tank", "Pool Read Bytes/sec");   /* no <pool>/io in 2.1 and later */
    UNSET(&s, "tank", "Pool Run Queue Length");
    EXPECT(&s, "backup", "State", 6);           /* SUSPENDED */
    EXPECT(&s, "backup", "Datasets", 1);
    EXPECT(&s, "backup", "Dataset Reads/sec", 0);
    pl_snap_free(&s);

    CHECK(pc_collect_tree("spec/fixtures/zfs-21", "ZFS Pool", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "rpool", "State", 1);            /* DEGRADED */
    EXPECT(&s, "rpool", "Dataset Reads/sec", 22108699);
    EXPECT(&s, "rpool", "Dataset Write Bytes/sec", 2063419969);
    EXPECT(&s, "rpool", "Dataset Read Bytes/sec", 63067280992ull);
    pl_snap_free(&s);

    CHECK(pc_collect_tree("spec/fixtures/zfs-old", "ZFS Pool", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 2);
    EXPECT(&s, "pool1", "State", 0);
    EXPECT(&s, "pool1", "Pool Read Bytes/sec", 1884160);
    EXPECT(&s, "pool1", "Pool Write Bytes/sec", 3206144);
    EXPECT(&s, "pool1", "Pool Reads/sec", 22);
    EXPECT(&s, "pool1", "Pool Writes/sec", 132);
    EXPECT(&s, "pool1", "Pool Wait Queue Length", 0);
    EXPECT(&s, "pool1", "Pool Run Queue Length", 0);
    EXPECT(&s, "pool1", "Datasets", 2);
    EXPECT(&s, "pool1", "Dataset Reads/sec", 2);             /* 0 + 2 */
    EXPECT(&s, "pool1", "Dataset Write Bytes/sec", 12302);   /* 0 + 12302 */
    EXPECT(&s, "poolz1", "State", 1);
    EXPECT(&s, "poolz1", "Pool Write Bytes/sec", 2680501248ull);
    EXPECT(&s, "poolz1", "Pool Writes/sec", 25294);
    EXPECT(&s, "poolz1", "Dataset Writes/sec", 10);
    pl_snap_free(&s);
}

static void objset_file(const char *root, const char *rel, const char *name, const char *reads)
{
    char text[1024];
    snprintf(text, sizeof text, "36 1 0x01 7 1904 5214787391 73405258558961\n"
             "%-31s %-4s %s\n%-31s %-4d %s\n%-31s %-4d %s\n%-31s %-4d %s\n%-31s %-4d %s\n"
             "%-31s %-4d %s\n",
             "name", "type", "data", "dataset_name", 7, name, "writes", 4, "3", "nwritten", 4,
             "300", "reads", 4, reads, "nread", 4, "500");
    CHECK(put(root, rel, text) == 1);
}

/* Pools and datasets coming and going over one state, texts the set does
 * not know, a malformed objset. */
static void test_pool_changes(void)
{
    const char *root = tmp("pools");
    pl_snapshot s;
    pctx p;
    memset(&s, 0, sizeof s);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/spl/kstat/zfs/arcstats", "") == 1);
    CHECK(put(root, "proc/spl/kstat/zfs/a/state", "ONLINE\n") == 1);
    objset_file(root, "proc/spl/kstat/zfs/a/objset-0x1", "a", "10");
    objset_file(root, "proc/spl/kstat/zfs/a/objset-0x2", "a/b", "20");
    CHECK(pc_open_set(&p, root, "ZFS Pool", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "a");
    EXPECT(&s, "a", "Dataset Reads/sec", 30);       /* 10 + 20 */
    EXPECT(&s, "a", "Dataset Writes/sec", 6);       /* 3 + 3 */

    /* a dataset unmounted, a malformed one mounted, pool b imported with a
     * state this set has no code for */
    CHECK(unlink(tmp("pools/proc/spl/kstat/zfs/a/objset-0x2")) == 0);
    objset_file(root, "proc/spl/kstat/zfs/a/objset-0x3", "a/c", "2x");
    CHECK(put(root, "proc/spl/kstat/zfs/b/state", "TRANSITIONING\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 2);
    EXPECT(&s, "a", "Datasets", 2);                 /* 0x1 and 0x3 */
    UNSET(&s, "a", "Dataset Reads/sec");            /* "2x": the sum is unknown */
    EXPECT(&s, "a", "Dataset Writes/sec", 6);       /* both files have writes: 3 + 3 */
    UNSET(&s, "b", "State");
    EXPECT(&s, "b", "Datasets", 0);
    EXPECT(&s, "b", "Dataset Reads/sec", 0);

    /* a exported: its instance goes, b keeps its id */
    CHECK(unlink(tmp("pools/proc/spl/kstat/zfs/a/objset-0x1")) == 0);
    CHECK(unlink(tmp("pools/proc/spl/kstat/zfs/a/objset-0x3")) == 0);
    CHECK(unlink(tmp("pools/proc/spl/kstat/zfs/a/state")) == 0);
    CHECK(rmdir(tmp("pools/proc/spl/kstat/zfs/a")) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    {
        static const uint32_t ids[] = { 1 };
        INSTS(&s, ids, "b");
    }
    pl_snap_free(&s);
    pc_close(&p);

    /* no zfs module: zero instances */
    CHECK(pc_collect_tree(tmp("none"), "ZFS Pool", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

static uint32_t id_of(const pl_snapshot *s, const char *inst)
{
    int i = inst_of(s, inst);
    return i < 0 ? UINT32_MAX : s->inst[i].id;
}

/* ZFS Dataset: one instance per objset kstat, named by its dataset_name. */
static void test_datasets(void)
{
    const char *root = tmp("ds");
    pl_snapshot s;
    pctx p;
    uint32_t id_a, id_b;
    CHECK(pc_collect_tree(FX, "ZFS Dataset", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 4);                   /* tank, tank/home, tank/my data, backup */
    EXPECT(&s, "tank/home", "Reads/sec", 40000);
    EXPECT(&s, "tank/home", "Writes/sec", 3000);
    EXPECT(&s, "tank/home", "Read Bytes/sec", 163840000);
    EXPECT(&s, "tank/home", "Write Bytes/sec", 12288000);
    EXPECT(&s, "tank/home", "Unlinks/sec", 70);
    EXPECT(&s, "tank/home", "Unlinked/sec", 68);
    EXPECT(&s, "tank/my data", "Reads/sec", 11);  /* a name with a blank, kept whole */
    EXPECT(&s, "tank/my data", "Write Bytes/sec", 28672);
    EXPECT(&s, "backup", "Reads/sec", 0);
    pl_snap_free(&s);

    CHECK(pc_collect_tree("spec/fixtures/zfs-21", "ZFS Dataset", 0, 0, NULL, &s) == 0);
    NAMES(&s, "rpool/ROOT/pve-1");
    EXPECT(&s, "rpool/ROOT/pve-1", "Read Bytes/sec", 63067280992ull);
    EXPECT(&s, "rpool/ROOT/pve-1", "Unlinked/sec", 13848);
    pl_snap_free(&s);

    /* a bad value, an objset without a name, ids kept across collects */
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/spl/kstat/zfs/a/state", "ONLINE\n") == 1);
    objset_file(root, "proc/spl/kstat/zfs/a/objset-0x1", "a", "10");
    objset_file(root, "proc/spl/kstat/zfs/a/objset-0x2", "a/b", "2x");
    CHECK(put(root, "proc/spl/kstat/zfs/a/objset-0x3", "3 1 0x01 1 272 1 1\n"
              "name                            type data\n"
              "reads                           4    5\n") == 1);
    CHECK(pc_open_set(&p, root, "ZFS Dataset", 0, 0) == 0);
    memset(&s, 0, sizeof s);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 2);                   /* objset-0x3 has no dataset_name */
    EXPECT(&s, "a", "Reads/sec", 10);
    UNSET(&s, "a/b", "Reads/sec");              /* "2x" */
    EXPECT(&s, "a/b", "Writes/sec", 3);
    id_a = id_of(&s, "a");
    id_b = id_of(&s, "a/b");
    CHECK(id_a != id_b && id_a < 3 && id_b < 3);  /* three objsets seen: ids 0, 1, 2 */
    objset_file(root, "proc/spl/kstat/zfs/a/objset-0x4", "a/d", "1");
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK_EQ_U64(id_of(&s, "a"), id_a);
    CHECK_EQ_U64(id_of(&s, "a/b"), id_b);
    CHECK_EQ_U64(id_of(&s, "a/d"), 3);          /* the fourth seen */
    pl_snap_free(&s);
    pc_close(&p);

    CHECK(pc_collect_tree(tmp("none"), "ZFS Dataset", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_zfs");
    RUN(test_named);
    RUN(test_io);
    RUN(test_fixture);
    RUN(test_versions);
    RUN(test_ratio);
    RUN(test_wanted);
    RUN(test_absent);
    RUN(test_pools);
    RUN(test_pool_changes);
    RUN(test_datasets);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
