/* XFS (issue 17, node_exporter's xfs collector): the stats file parser on
 * bytes, then spec/fixtures/xfs laid out as the kernel makes /sys/fs/xfs
 * (fs/xfs/xfs_super.c init_xfs_fs: the "stats" kobject, "debug" on DEBUG
 * kernels; fs/xfs/xfs_mount.c: one <s_id> directory per mount with
 * stats/stats, Linux 4.4+), the files as xfs_stats_format
 * (fs/xfs/xfs_stats.c) writes them:
 *   sda1         6.18: every line to rtrefcntbt, qm, xpc, defer_relog, debug
 *                (the file this VM's 6.18 kernel writes for a loop mount);
 *   dm-0         4.4 to 4.7: no rmapbt (4.8), refcntbt (4.9), rmapbt_mem,
 *                rcbagbt, rtrmapbt* (6.x) or defer_relog (5.10) lines;
 *   stats        the global file (/proc/fs/xfs/stat), 6.18 layout, with the
 *                counts of filesystems unmounted since: not the sum;
 *   debug        an entry without stats/stats: no instance.
 * Then rates over 10 s (32-bit wrap included), the wanted mask, mounts
 * coming and going, no module, and this machine. */
#include "perflib.h"
#include "pl_provider.h"
#include "xfsstat.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <math.h>
#include <string.h>

#define FX "spec/fixtures/xfs"

static int parse(const char *text, pl_xfsstat *x)
{
    return pl_xfsstat_parse(text, strlen(text), x);
}

static void test_parse(void)
{
    pl_xfsstat x;
    /* fields by position within the line, whatever the line order */
    CHECK_EQ_U64(parse("rw 8 65\nextent_alloc 1 4080 1 2032\n", &x), 6);
    CHECK_EQ_U64(x.v[PL_XS_RW], 8);                  /* xs_write_calls first */
    CHECK_EQ_U64(x.v[PL_XS_RW + 1], 65);
    CHECK_EQ_U64(x.v[PL_XS_EXTENT_ALLOC + 1], 4080);
    CHECK(x.st[PL_XS_EXTENT_ALLOC + 3] == 1 && x.st[PL_XS_ABT] == 0);
    CHECK_EQ_U64(x.bad, 0);
    /* a line with fewer fields than known: the rest unset (vnodes had 7
     * fields before vn_free, prometheus/procfs xfs/parse.go) */
    CHECK_EQ_U64(parse("vnodes 5 0 0 0 1 2 3\n", &x), 7);
    CHECK(x.st[PL_XS_VNODES + 6] == 1 && x.st[PL_XS_VNODES + 7] == 0);
    CHECK_EQ_U64(parse("qm\n", &x), 0);
    /* more fields than known: the known ones */
    CHECK_EQ_U64(parse("xstrat 1 2 3\n", &x), 2);
    CHECK_EQ_U64(x.v[PL_XS_XSTRAT + 1], 2);
    /* 32-bit lines: 2^32 - 1 is the most; 2^32 makes the line unbelieved */
    CHECK_EQ_U64(parse("rw 4294967295 1\nattr 4294967296 1 1 1\n", &x), 2);
    CHECK_EQ_U64(x.v[PL_XS_RW], 4294967295u);
    CHECK(x.st[PL_XS_ATTR] == 0 && x.st[PL_XS_ATTR + 1] == 0);
    CHECK_EQ_U64(x.bad, 1);
    /* xpc and defer_relog are 64-bit: 2^64 - 1 the most */
    CHECK_EQ_U64(parse("xpc 4294967296 18446744073709551615 0\ndefer_relog "
                       "18446744073709551616\n", &x), 3);
    CHECK_EQ_U64(x.v[PL_XS_XPC], 4294967296ull);
    CHECK_EQ_U64(x.v[PL_XS_XPC + 1], UINT64_MAX);
    CHECK(x.st[PL_XS_DEFER_RELOG] == 0);
    /* malformed fields: none of the line, the others kept */
    CHECK_EQ_U64(parse("dir 1 x 3 4\ntrans 1 -2 3\nlog 1 2 3 4 5\nig 1 2 3a\n", &x), 5);
    CHECK(x.st[PL_XS_DIR] == 0 && x.st[PL_XS_TRANS] == 0 && x.st[PL_XS_IG] == 0);
    CHECK_EQ_U64(x.v[PL_XS_LOG + 4], 5);
    CHECK_EQ_U64(x.bad, 3);
    /* a line cut at the page's end (no '\n') is not believed: "12" may be
     * the start of "1234" */
    CHECK_EQ_U64(parse("rw 1 2\nbuf 10 12", &x), 2);
    CHECK(x.st[PL_XS_BUF] == 0);
    /* a line twice: neither (which one is the kernel's is unknown) */
    CHECK_EQ_U64(parse("rw 1 2\nattr 1 1 1 1\nrw 3 4\nrw 5 6\n", &x), 4);
    CHECK(x.st[PL_XS_RW] == 0 && x.st[PL_XS_RW + 1] == 0 && x.st[PL_XS_ATTR] == 1);
    CHECK_EQ_U64(x.bad, 2);
    /* unknown lines (btree v2 lines, "gc xpc", "debug") and names that only
     * start like a known one are skipped */
    CHECK_EQ_U64(parse("abtb2 1 2\ngc xpc 5\ndebug 1\nrwx 1 2\nr 1\n\n", &x), 0);
    CHECK_EQ_U64(x.bad, 0);
    /* the length is the end: nothing past it is read */
    CHECK_EQ_U64(pl_xfsstat_parse("rw 1 2\nrw 3 4\n", 7, &x), 2);
    CHECK_EQ_U64(x.v[PL_XS_RW + 1], 2);
    CHECK_EQ_U64(pl_xfsstat_parse("", 0, &x), 0);
    /* a NUL inside a line is not a blank */
    CHECK_EQ_U64(pl_xfsstat_parse("rw 1\0 2\n", 8, &x), 0);
}

static void test_fixture(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "XFS", 0, 0, NULL, &s) == 0);
    /* name order; ids given in that order; no "debug" instance */
    INSTS(&s, ((const uint32_t[]){ 0, 1, 0xFFFFFFFEu }), "dm-0", "sda1", "_Total");
    /* sda1, 6.18 layout: one field of each line by hand */
    EXPECT(&s, "sda1", "Extents Allocated/sec", 120);          /* extent_alloc 1 */
    EXPECT(&s, "sda1", "Blocks Freed/sec", 960);               /* extent_alloc 4 */
    EXPECT(&s, "sda1", "Allocation Btree Records Deleted/sec", 14);   /* abt 4 */
    EXPECT(&s, "sda1", "Block Map Reads/sec", 5000);           /* blk_map 1 */
    EXPECT(&s, "sda1", "Extent List Compares/sec", 15);        /* blk_map 7 */
    EXPECT(&s, "sda1", "Block Map Btree Lookups/sec", 21);     /* bmbt 1 */
    EXPECT(&s, "sda1", "Directory Getdents/sec", 75);          /* dir 4 */
    EXPECT(&s, "sda1", "Asynchronous Transactions/sec", 2000); /* trans 2 */
    EXPECT(&s, "sda1", "Inode Cache Misses/sec", 200);         /* ig 4 */
    EXPECT(&s, "sda1", "Inode Attribute Changes/sec", 80);     /* ig 7 */
    EXPECT(&s, "sda1", "Log Blocks/sec", 3200);                /* log 2 */
    EXPECT(&s, "sda1", "Log No Iclogs/sec", 16);               /* log 3 */
    EXPECT(&s, "sda1", "AIL Push Successes/sec", 500);         /* push_ail 4 */
    EXPECT(&s, "sda1", "AIL Flushes/sec", 11);                 /* push_ail 10 */
    EXPECT(&s, "sda1", "Xstrat Quick/sec", 250);               /* xstrat 1 */
    EXPECT(&s, "sda1", "Write Calls/sec", 1000);               /* rw 1 */
    EXPECT(&s, "sda1", "Read Calls/sec", 4000);                /* rw 2 */
    EXPECT(&s, "sda1", "Attribute Lists/sec", 3);              /* attr 4 */
    EXPECT(&s, "sda1", "Inodes Flushed In Clusters/sec", 90);  /* icluster 3 */
    EXPECT(&s, "sda1", "Active Inodes", 850);                  /* vnodes 1 */
    EXPECT(&s, "sda1", "Vnode Reclaims/sec", 151);             /* vnodes 6 */
    EXPECT(&s, "sda1", "Vnode Frees/sec", 0);                  /* vnodes 8 */
    EXPECT(&s, "sda1", "Buffer Missed Locked/sec", 701);       /* buf 6 */
    EXPECT(&s, "sda1", "Buffer Pages Found/sec", 17);          /* buf 8 */
    EXPECT(&s, "sda1", "Buffer Get Reads/sec", 650);           /* buf 9 */
    EXPECT(&s, "sda1", "Dquot Reclaims/sec", 31);              /* qm 1, after 12 btree lines */
    EXPECT(&s, "sda1", "Dquots", 37);                          /* qm 7 */
    EXPECT(&s, "sda1", "Unused Dquots", 38);                   /* qm 8 */
    EXPECT(&s, "sda1", "Xstrat Bytes/sec", 1048576000);        /* xpc 1 */
    EXPECT(&s, "sda1", "Write Bytes/sec", 524288000);          /* xpc 2 */
    EXPECT(&s, "sda1", "Read Bytes/sec", 2097152000);          /* xpc 3 */
    EXPECT(&s, "sda1", "Deferred Relogs/sec", 17);
    /* dm-0, 4.4 layout: qm right after fibt2, no defer_relog line */
    EXPECT(&s, "dm-0", "Blocks Allocated/sec", 56);
    EXPECT(&s, "dm-0", "Write Calls/sec", 20);
    EXPECT(&s, "dm-0", "Read Calls/sec", 80);
    EXPECT(&s, "dm-0", "Active Inodes", 12);
    EXPECT(&s, "dm-0", "Dquot Wants/sec", 0);
    EXPECT(&s, "dm-0", "Read Bytes/sec", 41943040);            /* 40 MiB */
    UNSET(&s, "dm-0", "Deferred Relogs/sec");
    /* _Total is the global file, not the sum: extent_alloc 1 there is 200,
     * where sda1 + dm-0 = 120 + 7 = 127 (73 from since unmounted ones) */
    EXPECT(&s, "_Total", "Extents Allocated/sec", 200);
    EXPECT(&s, "_Total", "Active Inodes", 862);                /* 850 + 12: both mounted */
    EXPECT(&s, "_Total", "Read Bytes/sec", 4294967296ull);     /* 2^32: 64-bit */
    EXPECT(&s, "_Total", "Deferred Relogs/sec", 20);
    pl_snap_free(&s);
}

/* The formatted rate of ctr between s0 and s1, 10 s apart, at the counter's
 * own width (fmt2 takes every value as 8 bytes; these are 4). */
static double rate(const pl_snapshot *s0, const pl_snapshot *s1, const char *inst, const char *ctr)
{
    int c = pl_counter_index_by_name(s1->cs, ctr);
    uint64_t a = 0, b = 0;
    pl_raw r0 = { 0, 1000000000ull, 0, 0 }, r1 = { 0, 11000000000ull, 0, 0 };
    double v = -1;
    CHECK(c >= 0 && get(s0, inst, ctr, &a) && get(s1, inst, ctr, &b));
    if (c < 0)
        return v;
    r0.first = a;
    r1.first = b;
    r0.size = r1.size = s1->cs->counters[c].size;
    CHECK(pl_format_raw(s1->cs->counters[c].type, &r1, &r0, 1000000000, 0, 0, &v) == PL_VALID);
    return v;
}

#define ST "sys/fs/xfs/sdb/stats/stats"

static void test_rates(void)
{
    const char *root = tmp("rates");
    pl_snapshot s0, s1;
    pctx p;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, ST, "rw 4294967000 10\nvnodes 40 0 0 0 0 0 0 0\nxpc 1000000 0 0\n") == 1);
    CHECK(pc_open_set(&p, root, "XFS", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    NAMES(&s0, "sdb");                                          /* no "stats": no _Total */
    /* 10 s later: write calls wrapped past 2^32 */
    CHECK(put(root, ST, "rw 200 40\nvnodes 35 0 0 0 0 0 0 0\nxpc 21000000 0 0\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    /* (200 - 4294967000) mod 2^32 = 200 + 296 = 496 calls / 10 s */
    CHECK(fabs(rate(&s0, &s1, "sdb", "Write Calls/sec") - 49.6) < 1e-9);
    CHECK(fabs(rate(&s0, &s1, "sdb", "Read Calls/sec") - 3.0) < 1e-9);        /* (40 - 10) / 10 */
    /* 64-bit: (21000000 - 1000000) / 10 = 2000000 bytes/s */
    CHECK(fabs(val2(&s0, &s1, "sdb", "Xstrat Bytes/sec") - 2000000.0) < 1e-9);
    CHECK(fabs(val2(&s1, &s1, "sdb", "Active Inodes") - 35.0) < 1e-9);        /* raw: the newer */
    CHECK_EQ_U64(s1.cs->counters[pl_counter_index_by_name(s1.cs, "Write Calls/sec")].size, 4);
    CHECK_EQ_U64(s1.cs->counters[pl_counter_index_by_name(s1.cs, "Write Calls/sec")].type,
                 PERF_COUNTER_COUNTER);
    CHECK_EQ_U64(s1.cs->counters[pl_counter_index_by_name(s1.cs, "Read Bytes/sec")].size, 8);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

/* Mounts come and go: a vanished directory is no instance; a new one gets
 * a new id; an empty tree (no module) is zero instances. */
static void test_mounts(void)
{
    const char *root = tmp("mounts");
    char path[256];
    pl_snapshot s;
    pctx p;
    memset(&s, 0, sizeof s);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(pc_open_set(&p, root, "XFS", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);                                   /* no /sys/fs/xfs */
    /* the module loads (a first mount): tried again at each collect */
    CHECK(put(root, "sys/fs/xfs/stats/stats", "rw 1 2\n") == 1);
    CHECK(put(root, "sys/fs/xfs/vdb1/stats/stats", "rw 3 4\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, ((const uint32_t[]){ 0, 0xFFFFFFFEu }), "vdb1", "_Total");
    EXPECT(&s, "vdb1", "Read Calls/sec", 4);
    CHECK(put(root, "sys/fs/xfs/vda1/stats/stats", "rw 5 6\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, ((const uint32_t[]){ 1, 0, 0xFFFFFFFEu }), "vda1", "vdb1", "_Total");
    EXPECT(&s, "vda1", "Write Calls/sec", 5);
    /* vdb1 unmounted, then mounted again: a new id */
    snprintf(path, sizeof path, "%s/sys/fs/xfs/vdb1", root);
    rm_tree(path);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, ((const uint32_t[]){ 1, 0xFFFFFFFEu }), "vda1", "_Total");
    CHECK(put(root, "sys/fs/xfs/vdb1/stats/stats", "rw 7 8\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, ((const uint32_t[]){ 1, 2, 0xFFFFFFFEu }), "vda1", "vdb1", "_Total");
    EXPECT(&s, "vdb1", "Write Calls/sec", 7);
    /* a stats file that cannot be read (a directory here: EISDIR): the
     * instance, without values */
    CHECK(mkdirs(root, "sys/fs/xfs/vdc1/stats/stats/x"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "vda1", "vdb1", "vdc1", "_Total");
    UNSET(&s, "vdc1", "Write Calls/sec");
    EXPECT(&s, "vda1", "Write Calls/sec", 5);
    EXPECT(&s, "_Total", "Read Calls/sec", 2);
    /* a mount's directory before its stats kobject (xfs_mountfs adds it
     * after): no instance until stats/stats is there */
    CHECK(mkdirs(root, "sys/fs/xfs/vde1/log/x"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "vda1", "vdb1", "vdc1", "_Total");
    CHECK(put(root, "sys/fs/xfs/vde1/stats/stats", "rw 9 10\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    INSTS(&s, ((const uint32_t[]){ 1, 2, 3, 4, 0xFFFFFFFEu }), "vda1", "vdb1", "vdc1", "vde1",
          "_Total");
    EXPECT(&s, "vde1", "Read Calls/sec", 10);
    pl_snap_free(&s);
    pc_close(&p);
}

/* Nothing wanted: the instances, and no file read; one wanted: its value. */
static void test_wanted(void)
{
    static const char *const one[] = { "Read Bytes/sec", NULL };
    pl_snapshot s;
    uint8_t *w;
    pctx p;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, FX, "XFS", 0, 0) == 0);
    w = calloc(p.cs->ncounters, 1);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    NAMES(&s, "dm-0", "sda1", "_Total");
    UNSET(&s, "sda1", "Read Bytes/sec");
    UNSET(&s, "_Total", "Write Calls/sec");
    free(w);
    w = want_only(p.cs, one);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "dm-0", "Read Bytes/sec", 41943040);
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

/* This machine: with the xfs module, _Total and one instance per entry of
 * /sys/fs/xfs that has stats/stats, each with the lines every kernel since
 * 4.4 writes; without it, zero instances. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    struct stat st;
    CHECK(pc_collect_tree("/", "XFS", 0, 0, NULL, &s) == 0);
    if (stat("/sys/fs/xfs/stats/stats", &st) != 0) {
        CHECK_EQ_U64(s.ninst, 0);
        printf("  no xfs module here: 0 instances\n");
        pl_snap_free(&s);
        return;
    }
    CHECK(inst_of(&s, "_Total") == (int)s.ninst - 1);
    for (uint32_t i = 0; i < s.ninst; i++) {
        const char *n = pl_snap_name(&s, i);
        CHECK(get(&s, n, "Write Calls/sec", &v) == 1 && v <= UINT32_MAX);
        CHECK(get(&s, n, "Active Inodes", &v) == 1);
        CHECK(get(&s, n, "Read Bytes/sec", &v) == 1);
        CHECK(get(&s, n, "Dquots", &v) == 1);
    }
    printf("  %u XFS filesystem(s) mounted here\n", (unsigned)s.ninst - 1);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_xfs");
    RUN(test_parse);
    RUN(test_fixture);
    RUN(test_rates);
    RUN(test_mounts);
    RUN(test_wanted);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
