/* Btrfs: the "name value" parsers of error_stats and commit_stats on bytes,
 * and the set over temporary trees laid out as fs/btrfs/sysfs.c writes
 * /sys/fs/btrfs/<fsid>/ (label: "%s\n", or nothing without a label;
 * allocation/<type>/ files and global_rsv_*: "%llu\n" (3.14); devices/<dev>
 * a link to the block device, whose size is in 512-byte sectors (3.14);
 * devinfo/<devid>/missing "%d\n" (5.6) and error_stats (5.14): five
 * "name %d" lines or "invalid"; commit_stats (6.0): four "name %llu"
 * lines).  A 6.x filesystem with all of them, a 5.4 one with no devinfo/
 * and no commit_stats, two sharing a label, a mixed-block-group one, and
 * malformed files; Btrfs Device over the same trees.  Expected values are
 * worked out beside each check. */
#include "perflib.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "btrfs.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ERRS(s) pl_btrfs_errs_parse((s), strlen(s), &e)
#define COMMITS(s) pl_btrfs_commits_parse((s), strlen(s), &c)

static void test_parsers(void)
{
    pl_btrfs_errs e;
    pl_btrfs_commits c;
    ERRS("write_errs 1\nread_errs 2\nflush_errs 3\ncorruption_errs 4\ngeneration_errs 5\n");
    CHECK(!e.invalid);
    for (int k = 0; k < PL_BTE_N; k++) {
        CHECK_EQ_U64(e.st[k], PL_NS_OK);
        CHECK_EQ_U64(e.v[k], (uint64_t)k + 1);
    }
    ERRS("invalid\n");
    CHECK(e.invalid);
    CHECK_EQ_U64(e.st[PL_BTE_WRITE], PL_NS_ABSENT);
    /* -1 (a %d gone wrong), a word, a repeat, a cut last line: bad; an
     * unknown name ignored; a missing one absent */
    ERRS("write_errs -1\nread_errs x\nflush_errs 1\nflush_errs 1\nnew_errs 7\n"
         "corruption_errs 12");
    CHECK_EQ_U64(e.st[PL_BTE_WRITE], PL_NS_BAD);
    CHECK_EQ_U64(e.st[PL_BTE_READ], PL_NS_BAD);
    CHECK_EQ_U64(e.st[PL_BTE_FLUSH], PL_NS_BAD);
    CHECK_EQ_U64(e.st[PL_BTE_CORRUPTION], PL_NS_BAD);
    CHECK_EQ_U64(e.st[PL_BTE_GENERATION], PL_NS_ABSENT);
    ERRS("write_errs  1\nread_errs 1 \nflush_errs\ncorruption_errs \n");   /* blanks: bad */
    for (int k = 0; k < PL_BTE_GENERATION; k++)
        CHECK_EQ_U64(e.st[k], PL_NS_BAD);
    ERRS("");
    CHECK(!e.invalid);
    CHECK_EQ_U64(e.st[PL_BTE_READ], PL_NS_ABSENT);
    COMMITS("commits 70649\nlast_commit_ms 2\nmax_commit_ms 131\ntotal_commit_ms 170840\n");
    CHECK_EQ_U64(c.v[PL_BTC_COMMITS], 70649);
    CHECK_EQ_U64(c.v[PL_BTC_LAST_MS], 2);
    CHECK_EQ_U64(c.v[PL_BTC_MAX_MS], 131);
    CHECK_EQ_U64(c.v[PL_BTC_TOTAL_MS], 170840);
    for (int k = 0; k < PL_BTC_N; k++)
        CHECK_EQ_U64(c.st[k], PL_NS_OK);
    /* 6.18's file: cur_commit_ms between, not one of ours */
    COMMITS("commits 12\ncur_commit_ms 7\nlast_commit_ms 3\nmax_commit_ms 9\ntotal_commit_ms 40\n");
    CHECK_EQ_U64(c.v[PL_BTC_COMMITS], 12);
    CHECK_EQ_U64(c.v[PL_BTC_LAST_MS], 3);
    CHECK_EQ_U64(c.v[PL_BTC_TOTAL_MS], 40);
    COMMITS("commits 18446744073709551615\nlast_commit_ms 18446744073709551616\n");
    CHECK_EQ_U64(c.v[PL_BTC_COMMITS], UINT64_MAX);                     /* 2^64 - 1 */
    CHECK_EQ_U64(c.st[PL_BTC_LAST_MS], PL_NS_BAD);                     /* 2^64 */
    CHECK_EQ_U64(c.st[PL_BTC_MAX_MS], PL_NS_ABSENT);
    {   /* bounded by len, not by a NUL: "commits 12" of "commits 123\n" is cut */
        static const char b[] = "commits 123\n";
        pl_btrfs_commits_parse(b, 10, &c);
        CHECK_EQ_U64(c.st[PL_BTC_COMMITS], PL_NS_BAD);
    }
}

#define FS_A "0a1b2c3d-0000-4000-8000-00000000000a"   /* 6.x, label "data" */
#define FS_B "1b2c3d4e-0000-4000-8000-00000000000b"   /* 5.4, no label */
#define FS_C "2c3d4e5f-0000-4000-8000-00000000000c"   /* label "backup" */
#define FS_D "3d4e5f60-0000-4000-8000-00000000000d"   /* label "backup", mixed */
#define A "sys/fs/btrfs/" FS_A "/"
#define B "sys/fs/btrfs/" FS_B "/"
#define D "sys/fs/btrfs/" FS_D "/"

/* The eight number files of allocation/<type>/ and the flags file. */
static void put_type(const char *root, const char *fs, const char *type, const char *const v[8])
{
    static const char *const files[8] = { "total_bytes", "bytes_used", "disk_total",
                                          "disk_used", "bytes_may_use", "bytes_pinned",
                                          "bytes_readonly", "bytes_reserved" };
    char rel[200];
    for (int k = 0; k < 8; k++) {
        snprintf(rel, sizeof rel, "sys/fs/btrfs/%s/allocation/%s/%s", fs, type, files[k]);
        CHECK(put(root, rel, v[k]) == 1);
    }
    snprintf(rel, sizeof rel, "sys/fs/btrfs/%s/allocation/%s/flags", fs, type);
    CHECK(put(root, rel, "1\n") == 1);
}

/* devices/<dev> -> the block device's directory, as sysfs_create_link makes it. */
static void put_dev(const char *root, const char *fs, const char *dev, const char *sectors)
{
    char rel[200], path[400], target[200];
    snprintf(rel, sizeof rel, "sys/devices/virtual/block/%s/size", dev);
    CHECK(put(root, rel, sectors) == 1);
    snprintf(rel, sizeof rel, "sys/fs/btrfs/%s/devices/.keep", fs);
    CHECK(put(root, rel, "") == 1);
    snprintf(path, sizeof path, "%s/sys/fs/btrfs/%s/devices/.keep", root, fs);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/sys/fs/btrfs/%s/devices/%s", root, fs, dev);
    snprintf(target, sizeof target, "../../../../devices/virtual/block/%s", dev);
    CHECK(symlink(target, path) == 0);
}

static void put_a(const char *root)
{
    static const char *const data[8] = { "10737418240\n", "4294967296\n", "21474836480\n",
                                         "8589934592\n", "1048576\n", "65536\n", "0\n",
                                         "131072\n" };
    static const char *const meta[8] = { "1073741824\n", "268435456\n", "2147483648\n",
                                         "536870912\n", "16777216\n", "0\n", "0\n", "16384\n" };
    static const char *const sys[8] = { "8388608\n", "16384\n", "16777216\n", "32768\n",
                                        "0\n", "0\n", "0\n", "0\n" };
    CHECK(put(root, A "label", "data\n") == 1);
    put_type(root, FS_A, "data", data);
    put_type(root, FS_A, "metadata", meta);
    put_type(root, FS_A, "system", sys);
    CHECK(put(root, A "allocation/global_rsv_size", "3670016\n") == 1);
    CHECK(put(root, A "allocation/global_rsv_reserved", "3604480\n") == 1);
    put_dev(root, FS_A, "loop0", "20971520\n");     /* 10 GiB */
    put_dev(root, FS_A, "loop1", "41943040\n");     /* 20 GiB */
    CHECK(put(root, A "devinfo/1/missing", "0\n") == 1);
    CHECK(put(root, A "devinfo/1/error_stats", "write_errs 1\nread_errs 2\nflush_errs 0\n"
              "corruption_errs 3\ngeneration_errs 0\n") == 1);
    CHECK(put(root, A "devinfo/2/missing", "0\n") == 1);
    CHECK(put(root, A "devinfo/2/error_stats", "write_errs 10\nread_errs 0\nflush_errs 4\n"
              "corruption_errs 0\ngeneration_errs 5\n") == 1);
    /* devid 3 is missing: no devices/ link, statistics not loaded */
    CHECK(put(root, A "devinfo/3/missing", "1\n") == 1);
    CHECK(put(root, A "devinfo/3/error_stats", "invalid\n") == 1);
    for (int d = 1; d <= 3; d++) {                   /* the other devid_attrs */
        char rel[160];
        snprintf(rel, sizeof rel, A "devinfo/%d/writeable", d);
        CHECK(put(root, rel, d == 3 ? "0\n" : "1\n") == 1);
        snprintf(rel, sizeof rel, A "devinfo/%d/replace_target", d);
        CHECK(put(root, rel, "0\n") == 1);
        snprintf(rel, sizeof rel, A "devinfo/%d/scrub_speed_max", d);
        CHECK(put(root, rel, d == 2 ? "104857600\n" : "0\n") == 1);
        snprintf(rel, sizeof rel, A "devinfo/%d/in_fs_metadata", d);
        CHECK(put(root, rel, "1\n") == 1);
        snprintf(rel, sizeof rel, A "devinfo/%d/fsid", d);
        CHECK(put(root, rel, FS_A "\n") == 1);
    }
    CHECK(put(root, A "commit_stats", "commits 70649\nlast_commit_ms 2\nmax_commit_ms 131\n"
              "total_commit_ms 170840\n") == 1);
    CHECK(put(root, A "features/no_holes", "1\n") == 1);
}

static void put_others(const char *root)
{
    static const char *const b8[8] = { "2147483648\n", "1073741824\n", "2147483648\n",
                                       "1073741824\n", "0\n", "0\n", "0\n", "0\n" };
    static const char *const bad[8] = { "12x\n", "-5\n", "\n", "18446744073709551616\n",
                                        "7", "1 2\n", "0\n", "0\n" };
    static const char *const mixed[8] = { "536870912\n", "134217728\n", "536870912\n",
                                          "134217728\n", "0\n", "0\n", "0\n", "0\n" };
    /* 5.4: label file empty (no label), no devinfo/, no commit_stats */
    CHECK(put(root, B "label", "") == 1);
    put_type(root, FS_B, "data", b8);
    put_type(root, FS_B, "metadata", b8);
    put_type(root, FS_B, "system", bad);
    CHECK(put(root, B "allocation/global_rsv_size", "16777216\n") == 1);
    CHECK(put(root, B "allocation/global_rsv_reserved", "16777216\n") == 1);
    put_dev(root, FS_B, "sdb", "4194304\n");        /* 2 GiB */
    /* two with one label; D made with mixed block groups */
    CHECK(put(root, "sys/fs/btrfs/" FS_C "/label", "backup\n") == 1);
    CHECK(put(root, D "label", "backup\n") == 1);
    put_type(root, FS_D, "mixed", mixed);
    CHECK(put(root, D "commit_stats", "commits 5\nlast_commit_ms 1\n") == 1);   /* cut short */
    CHECK(put(root, D "devinfo/1/error_stats", "write_errs 1\nread_errs x\nflush_errs 0\n"
              "corruption_errs 0\ngeneration_errs 0\n") == 1);
    /* not filesystems */
    CHECK(put(root, "sys/fs/btrfs/features/mixed_groups", "0\n") == 1);
    CHECK(put(root, "sys/fs/btrfs/0A1B2C3D-0000-4000-8000-00000000000A/label", "x\n") == 1);
}

static int collect_info(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 256 - l, "%s=%s;", key, value);
    return 0;
}

static void check_a(const pl_snapshot *s)
{
    EXPECT(s, "data", "Data Total Bytes", 10737418240ull);
    EXPECT(s, "data", "Data Used Bytes", 4294967296ull);
    CHECK_NEAR(val2(s, s, "data", "% Data Used"), 40.0, 1e-9);   /* 4 GiB / 10 GiB */
    EXPECT(s, "data", "Data Disk Total Bytes", 21474836480ull);
    EXPECT(s, "data", "Data Disk Used Bytes", 8589934592ull);
    CHECK_NEAR(val2(s, s, "data", "% Data Allocation Ratio"), 200.0, 1e-9);  /* 20 / 10 GiB */
    EXPECT(s, "data", "Data May Use Bytes", 1048576);
    EXPECT(s, "data", "Data Pinned Bytes", 65536);
    EXPECT(s, "data", "Data Read-Only Bytes", 0);
    EXPECT(s, "data", "Data Reserved Bytes", 131072);
    EXPECT(s, "data", "Metadata Total Bytes", 1073741824);
    CHECK_NEAR(val2(s, s, "data", "% Metadata Used"), 25.0, 1e-9);   /* 256 MiB / 1 GiB */
    EXPECT(s, "data", "Metadata May Use Bytes", 16777216);
    EXPECT(s, "data", "Metadata Reserved Bytes", 16384);
    EXPECT(s, "data", "System Used Bytes", 16384);
    CHECK_NEAR(val2(s, s, "data", "% System Used"), 0.1953125, 1e-12);  /* 16 KiB / 8 MiB */
    CHECK_NEAR(val2(s, s, "data", "% System Allocation Ratio"), 200.0, 1e-9);
    EXPECT(s, "data", "Global Reserve Bytes", 3670016);
    EXPECT(s, "data", "Global Reserve Reserved Bytes", 3604480);
    EXPECT(s, "data", "Devices", 2);                             /* loop0, loop1 */
    EXPECT(s, "data", "Devices Size Bytes", 32212254720ull);     /* (20971520 + 41943040) x 512 */
    EXPECT(s, "data", "Missing Devices", 1);                     /* 0 + 0 + 1 */
    EXPECT(s, "data", "Write Errors", 11);                       /* 1 + 10, devid 3 invalid */
    EXPECT(s, "data", "Read Errors", 2);                         /* 2 + 0 */
    EXPECT(s, "data", "Flush Errors", 4);                        /* 0 + 4 */
    EXPECT(s, "data", "Corruption Errors", 3);                   /* 3 + 0 */
    EXPECT(s, "data", "Generation Errors", 5);                   /* 0 + 5 */
    EXPECT(s, "data", "Last Commit Milliseconds", 2);
    EXPECT(s, "data", "Max Commit Milliseconds", 131);
    EXPECT(s, "data", "Commit Milliseconds Total", 170840);
}

static void check_others(const pl_snapshot *s)
{
    EXPECT(s, FS_B, "Data Total Bytes", 2147483648ull);
    CHECK_NEAR(val2(s, s, FS_B, "% Metadata Used"), 50.0, 1e-9);     /* 1 GiB / 2 GiB */
    CHECK_NEAR(val2(s, s, FS_B, "% Data Allocation Ratio"), 100.0, 1e-9);   /* single */
    EXPECT(s, FS_B, "Devices", 1);
    EXPECT(s, FS_B, "Devices Size Bytes", 2147483648ull);        /* 4194304 x 512 */
    EXPECT(s, FS_B, "Global Reserve Bytes", 16777216);
    UNSET(s, FS_B, "Missing Devices");                           /* no devinfo/ before 5.6 */
    UNSET(s, FS_B, "Write Errors");
    UNSET(s, FS_B, "Commits/sec");                               /* no commit_stats before 6.0 */
    UNSET(s, FS_B, "Max Commit Milliseconds");
    UNSET(s, FS_B, "System Total Bytes");                        /* "12x" */
    UNSET(s, FS_B, "System Used Bytes");                         /* "-5" */
    UNSET(s, FS_B, "System Disk Total Bytes");                   /* empty line */
    UNSET(s, FS_B, "System Disk Used Bytes");                    /* 2^64 */
    EXPECT(s, FS_B, "System May Use Bytes", 7);                  /* no newline, but whole */
    UNSET(s, FS_B, "System Pinned Bytes");                       /* "1 2" */
    EXPECT(s, FS_B, "System Read-Only Bytes", 0);
    /* mixed block groups: Data from allocation/mixed, no Metadata */
    EXPECT(s, "backup " FS_D, "Data Total Bytes", 536870912);
    CHECK_NEAR(val2(s, s, "backup " FS_D, "% Data Used"), 25.0, 1e-9);   /* 128 / 512 MiB */
    UNSET(s, "backup " FS_D, "Metadata Total Bytes");
    EXPECT(s, "backup " FS_D, "Commits/sec", 5);
    EXPECT(s, "backup " FS_D, "Last Commit Milliseconds", 1);
    UNSET(s, "backup " FS_D, "Max Commit Milliseconds");         /* not in the file */
    EXPECT(s, "backup " FS_D, "Write Errors", 1);
    UNSET(s, "backup " FS_D, "Read Errors");                     /* "x" */
    UNSET(s, "backup " FS_D, "Devices");                         /* no devices/ */
    UNSET(s, "backup " FS_C, "Data Total Bytes");                /* only a label */
}

static void test_set(void)
{
    const char *root = tmp("tree");
    char out[256];
    pl_snapshot s0, s1;
    pctx p;
    CHECK(mkdir(root, 0700) == 0);
    put_a(root);
    put_others(root);
    CHECK(pc_open_set(&p, root, "Btrfs", 0, 0) == 0);
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    {   /* fsid order; ids the fsids' first 32 bits; upper-case hex is not a fsid */
        static const uint32_t ids[] = { 0x0a1b2c3d, 0x1b2c3d4e, 0x2c3d4e5f, 0x3d4e5f60 };
        INSTS(&s0, ids, "data", FS_B, "backup " FS_C, "backup " FS_D);
    }
    check_a(&s0);
    check_others(&s0);

    /* 10 s later: 10 commits that took 200 ms */
    CHECK(put(root, A "commit_stats", "commits 70659\nlast_commit_ms 30\nmax_commit_ms 131\n"
              "total_commit_ms 171040\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    CHECK_NEAR(val2(&s0, &s1, "data", "Commits/sec"), 1.0, 1e-9);           /* 10 / 10 s */
    CHECK_NEAR(val2(&s0, &s1, "data", "Avg. Commit Milliseconds"), 20.0, 1e-9);  /* 200 / 10 */

    /* C relabelled: "backup" is D's alone again */
    CHECK(put(root, "sys/fs/btrfs/" FS_C "/label", "old\\backup\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    NAMES(&s1, "data", FS_B, "old_backup", "backup");

    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "data", collect_info, out), 0);
    CHECK_STR(out, "fsid=" FS_A ";label=data;");
    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, FS_B, collect_info, out), 0);
    CHECK_STR(out, "fsid=" FS_B ";");
    CHECK_EQ_U64(p.cs->ops->info(p.st, "nosuch", collect_info, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, collect_info, out), ENOENT);

    /* only Devices wanted: the other counters are not read */
    {
        static const char *const names[] = { "Devices", NULL };
        uint8_t *w = want_only(p.cs, names);
        CHECK(pc_collect(&p, w, &s1) == 0);
        EXPECT(&s1, "data", "Devices", 2);
        UNSET(&s1, "data", "Data Total Bytes");
        UNSET(&s1, "data", "Write Errors");
        free(w);
    }
    /* A unmounted */
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s/" A, root);
        CHECK(system(cmd) == 0);
    }
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    NAMES(&s1, FS_B, "old_backup", "backup");
    /* B unmounted and mounted again between two collects: a new directory
     * (another inode), whose files are opened afresh, not the kept ones */
    {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s/" B, root);
        CHECK(system(cmd) == 0);
    }
    CHECK(put(root, B "label", "") == 1);
    CHECK(put(root, B "allocation/data/total_bytes", "4294967296\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    EXPECT(&s1, FS_B, "Data Total Bytes", 4294967296ull);      /* not the old 2 GiB */
    UNSET(&s1, FS_B, "Data Used Bytes");                       /* not in the new tree */
    UNSET(&s1, FS_B, "Devices");
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);

    /* no /sys/fs/btrfs (module not loaded): zero instances */
    CHECK(pc_collect_tree(tmp("none"), "Btrfs", 0, 0, NULL, &s0) == 0);
    CHECK_EQ_U64(s0.ninst, 0);
    pl_snap_free(&s0);
}

/* Btrfs Device: the devinfo/<devid> entries of the same trees, in devid
 * order (10 after 3), a 5.6 filesystem without error_stats. */
static void test_devices(void)
{
    const char *root = tmp("devtree");
    pl_snapshot s;
    CHECK(mkdir(root, 0700) == 0);
    put_a(root);
    put_others(root);
    CHECK(put(root, A "devinfo/10/error_stats", "write_errs 0\nread_errs 0\nflush_errs 0\n"
              "corruption_errs 0\ngeneration_errs 7\n") == 1);
    CHECK(put(root, B "devinfo/1/missing", "0\n") == 1);        /* 5.6-5.13: no error_stats */
    CHECK(pc_collect_tree(root, "Btrfs Device", 0, 0, NULL, &s) == 0);
    {   /* fsid order, then devid order; id: fsid's first 16 bits << 16 | devid */
        static const uint32_t ids[] = { 0x0a1b0001, 0x0a1b0002, 0x0a1b0003, 0x0a1b000a,
                                        0x1b2c0001, 0x3d4e0001 };
        INSTS(&s, ids, "data 1", "data 2", "data 3", "data 10", FS_B " 1",
              "backup " FS_D " 1");
    }
    EXPECT(&s, "data 1", "Write Errors", 1);
    EXPECT(&s, "data 1", "Read Errors", 2);
    EXPECT(&s, "data 1", "Flush Errors", 0);
    EXPECT(&s, "data 1", "Corruption Errors", 3);
    EXPECT(&s, "data 1", "Generation Errors", 0);
    EXPECT(&s, "data 1", "Missing", 0);
    EXPECT(&s, "data 1", "Writeable", 1);
    EXPECT(&s, "data 1", "Replace Target", 0);
    EXPECT(&s, "data 1", "Scrub Speed Limit", 0);
    EXPECT(&s, "data 2", "Write Errors", 10);
    EXPECT(&s, "data 2", "Flush Errors", 4);
    EXPECT(&s, "data 2", "Generation Errors", 5);
    EXPECT(&s, "data 2", "Scrub Speed Limit", 104857600);      /* 100 MiB/s */
    UNSET(&s, "data 3", "Write Errors");                       /* "invalid" */
    UNSET(&s, "data 3", "Generation Errors");
    EXPECT(&s, "data 3", "Missing", 1);
    EXPECT(&s, "data 3", "Writeable", 0);
    EXPECT(&s, "data 10", "Generation Errors", 7);
    UNSET(&s, "data 10", "Missing");                           /* not in the tree */
    EXPECT(&s, FS_B " 1", "Missing", 0);
    UNSET(&s, FS_B " 1", "Read Errors");
    EXPECT(&s, "backup " FS_D " 1", "Write Errors", 1);
    UNSET(&s, "backup " FS_D " 1", "Read Errors");             /* "x" */
    pl_snap_free(&s);

    /* only Missing wanted: error_stats is not read */
    {
        static const char *const names[] = { "Missing", NULL };
        pctx p;
        uint8_t *w;
        CHECK(pc_open_set(&p, root, "Btrfs Device", 0, 0) == 0);
        w = want_only(p.cs, names);
        memset(&s, 0, sizeof s);
        CHECK(pc_collect(&p, w, &s) == 0);
        EXPECT(&s, "data 3", "Missing", 1);
        UNSET(&s, "data 1", "Write Errors");
        free(w);
        pl_snap_free(&s);
        pc_close(&p);
    }
    CHECK(pc_collect_tree(tmp("none"), "Btrfs Device", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

/* A file the user may not read is no_access (as root, chmod does not stop
 * reads: skipped). */
static void test_denied(void)
{
    const char *root = tmp("denied");
    pl_snapshot s;
    if (geteuid() == 0) {
        printf("# skip: root reads mode 000 files\n");
        return;
    }
    CHECK(mkdir(root, 0700) == 0);
    put_a(root);
    CHECK(chmod(tmp("denied/" A "commit_stats"), 0) == 0);
    CHECK(pc_collect_tree(root, "Btrfs", 0, 0, NULL, &s) == 0);
    DENIED(&s, "data", "Commits/sec");
    EXPECT(&s, "data", "Devices", 2);
    pl_snap_free(&s);
}

/* Live: this VM may have no btrfs mounted; then zero instances. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    CHECK(pc_collect_tree("/", "Btrfs", 0, 0, NULL, &s) == 0);
    if (access("/sys/fs/btrfs", F_OK) != 0 || s.ninst == 0) {
        DIR *d = opendir("/sys/fs/btrfs");
        struct dirent *de;
        int fs = 0;
        while (d && (de = readdir(d)) != NULL)
            fs += strlen(de->d_name) == 36;
        if (d)
            closedir(d);
        CHECK_EQ_U64(fs, 0);                     /* none mounted: none listed */
        CHECK_EQ_U64(s.ninst, 0);
        printf("# skip: no btrfs mounted\n");
        pl_snap_free(&s);
        return;
    }
    for (uint32_t i = 0; i < s.ninst; i++) {
        const char *n = pl_snap_name(&s, i);
        CHECK(get(&s, n, "Data Total Bytes", &v) == 1 || get(&s, n, "System Total Bytes", &v) == 1);
        CHECK(get(&s, n, "Devices", &v) == 1);
        CHECK(v >= 1);
        CHECK(get(&s, n, "Global Reserve Bytes", &v) == 1);
    }
    pl_snap_free(&s);
    /* a 5.6+ kernel lists each filesystem's devices */
    CHECK(pc_collect_tree("/", "Btrfs Device", 0, 0, NULL, &s) == 0);
    if (access("/sys/fs/btrfs/features", F_OK) == 0 && s.ninst > 0)
        CHECK(get(&s, pl_snap_name(&s, 0), "Missing", &v) == 1);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_btrfs");
    RUN(test_parsers);
    RUN(test_set);
    RUN(test_devices);
    RUN(test_denied);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
