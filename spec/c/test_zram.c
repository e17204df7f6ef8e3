/* ZRAM: the number-line parser of /sys/block/zramN's stat files on bytes,
 * and the set over a temporary tree in the layout of Documentation/admin-
 * guide/blockdev/zram.rst: a 6.x device (nine mm_stat fields, bd_stat), a
 * 4.x one (seven mm_stat fields, no bd_stat), malformed lines that leave
 * their file's counters unset, comp_algorithm's selected one as a text
 * fact.  Expected values are worked out beside each check. */
#include "perflib.h"
#include "pl_provider.h"
#include "zram.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void test_fields(void)
{
    uint64_t v[4];
    CHECK_EQ_U64(pl_zram_fields("  4096    12 0\n", v, 4), 3);
    CHECK_EQ_U64(v[0], 4096);
    CHECK_EQ_U64(v[1], 12);
    CHECK_EQ_U64(v[2], 0);
    CHECK_EQ_U64(pl_zram_fields("1 2 3 4 5 6\n", v, 4), 4);   /* later fields ignored */
    CHECK_EQ_U64(v[3], 4);
    CHECK_EQ_U64(pl_zram_fields("", v, 4), 0);
    CHECK(pl_zram_fields("1 x 3\n", v, 4) < 0);
    CHECK(pl_zram_fields("1 -2\n", v, 4) < 0);
    CHECK(pl_zram_fields("18446744073709551616\n", v, 4) < 0);   /* 2^64 */
    CHECK_EQ_U64(pl_zram_fields("18446744073709551615\n", v, 4), 1);
    CHECK(pl_zram_fields("1\n2\n", v, 4) < 0);                   /* one line only */
}

static int collect_info(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 256 - l, "%s=%s;", key, value);
    return 0;
}

static void test_set(void)
{
    const char *root = tmp("tree");
    char out[256];
    pl_snapshot s;
    pctx p;
    CHECK(mkdir(root, 0700) == 0);
    /* 6.x: nine mm_stat fields, writeback */
    CHECK(put(root, "sys/block/zram0/disksize", "1073741824\n") == 1);
    CHECK(put(root, "sys/block/zram0/mm_stat",
              "   409600   102400   135168        0   139264        5        2        3"
              "        4\n") == 1);
    CHECK(put(root, "sys/block/zram0/io_stat", "       1        2        3        4\n") == 1);
    CHECK(put(root, "sys/block/zram0/bd_stat", "      10       20       30\n") == 1);
    CHECK(put(root, "sys/block/zram0/comp_algorithm", "lzo lzo-rle [zstd] lz4\n") == 1);
    /* 4.x: seven mm_stat fields, no bd_stat; io_stat malformed */
    CHECK(put(root, "sys/block/zram3/disksize", "8192\n") == 1);
    CHECK(put(root, "sys/block/zram3/mm_stat", "100 50 4096 8192 4096 0 0\n") == 1);
    CHECK(put(root, "sys/block/zram3/io_stat", "1 x 3 4\n") == 1);
    CHECK(put(root, "sys/block/zram3/comp_algorithm", "lzo\n") == 1);
    CHECK(put(root, "sys/block/vda/size", "10\n") == 1);   /* not zram: no instance */

    CHECK(pc_open_set(&p, root, "ZRAM", 0, 0) == 0);
    memset(&s, 0, sizeof s);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    {
        static const uint32_t ids[] = { 0, 3 };
        INSTS(&s, ids, "zram0", "zram3");
    }
    EXPECT(&s, "zram0", "Disk Size", 1073741824);
    EXPECT(&s, "zram0", "Original Data Bytes", 409600);
    EXPECT(&s, "zram0", "Compressed Data Bytes", 102400);
    EXPECT(&s, "zram0", "Memory Used Bytes", 135168);
    EXPECT(&s, "zram0", "Memory Limit Bytes", 0);
    EXPECT(&s, "zram0", "Max Memory Used Bytes", 139264);
    EXPECT(&s, "zram0", "Same Pages", 5);
    EXPECT(&s, "zram0", "Pages Compacted/sec", 2);
    EXPECT(&s, "zram0", "Huge Pages", 3);
    EXPECT(&s, "zram0", "Huge Pages Since", 4);
    CHECK_NEAR(val2(&s, &s, "zram0", "% Compression Ratio"), 400.0, 1e-9);  /* 409600 / 102400 = 4 */
    {
        double v;
        CHECK(fmt2(&s, &s, "zram0", "% Of Memory Limit", &v) != PL_VALID);   /* no limit: base 0 */
    }
    EXPECT(&s, "zram0", "Failed Reads/sec", 1);
    EXPECT(&s, "zram0", "Failed Writes/sec", 2);
    EXPECT(&s, "zram0", "Invalid I/O/sec", 3);
    EXPECT(&s, "zram0", "Notify Free/sec", 4);
    EXPECT(&s, "zram0", "Backing Device Bytes", 40960);        /* 10 x 4096 */
    EXPECT(&s, "zram0", "Backing Reads Bytes/sec", 81920);     /* 20 x 4096 */
    EXPECT(&s, "zram0", "Backing Writes Bytes/sec", 122880);   /* 30 x 4096 */

    EXPECT(&s, "zram3", "Same Pages", 0);
    UNSET(&s, "zram3", "Huge Pages");                          /* a 4.x line has seven */
    UNSET(&s, "zram3", "Huge Pages Since");
    CHECK_NEAR(val2(&s, &s, "zram3", "% Of Memory Limit"), 50.0, 1e-9);   /* 4096 / 8192 */
    CHECK_NEAR(val2(&s, &s, "zram3", "% Compression Ratio"), 200.0, 1e-9); /* 100 / 50 */
    UNSET(&s, "zram3", "Failed Reads/sec");                    /* "x": no field believed */
    UNSET(&s, "zram3", "Notify Free/sec");
    UNSET(&s, "zram3", "Backing Device Bytes");                /* no bd_stat */

    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "zram0", collect_info, out), 0);
    CHECK_STR(out, "comp_algorithm=zstd;");
    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "zram3", collect_info, out), 0);
    CHECK_STR(out, "");                                         /* no [selected] one */
    CHECK_EQ_U64(p.cs->ops->info(p.st, "zram9", collect_info, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, "vda", collect_info, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, collect_info, out), ENOENT);

    /* an overflowing mm_stat: none of its counters */
    CHECK(put(root, "sys/block/zram3/mm_stat", "1 2 18446744073709551616 0 0 0 0\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    UNSET(&s, "zram3", "Original Data Bytes");
    UNSET(&s, "zram3", "Memory Used Bytes");
    EXPECT(&s, "zram3", "Disk Size", 8192);

    /* A device's attributes are fixed while it exists: a bd_stat that was
     * not there is not looked for again until the device leaves the
     * listing; then the new zram3 has it: 7 x 4096 = 28672 bytes. */
    {
        char a[512], b[512];
        CHECK(put(root, "sys/block/zram3/bd_stat", "7 0 0\n") == 1);
        CHECK(pc_collect(&p, NULL, &s) == 0);
        UNSET(&s, "zram3", "Backing Device Bytes");
        snprintf(a, sizeof a, "%s/sys/block/zram3", root);
        snprintf(b, sizeof b, "%s/sys/block/gone3", root);
        CHECK(rename(a, b) == 0);
        CHECK(pc_collect(&p, NULL, &s) == 0);
        {
            static const uint32_t ids[] = { 0 };
            INSTS(&s, ids, "zram0");
        }
        CHECK(rename(b, a) == 0);
        CHECK(pc_collect(&p, NULL, &s) == 0);
        EXPECT(&s, "zram3", "Backing Device Bytes", 28672);
    }
    pl_snap_free(&s);
    pc_close(&p);

    /* no zram devices: zero instances */
    CHECK(pc_collect_tree(tmp("none"), "ZRAM", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

/* Live: this VM has zram devices; skip where there are none. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    CHECK(pc_collect_tree("/", "ZRAM", 0, 0, NULL, &s) == 0);
    if (s.ninst == 0) {
        printf("# skip: no zram devices\n");
        pl_snap_free(&s);
        return;
    }
    CHECK(get(&s, s.names + s.inst[0].name_off, "Disk Size", &v) == 1);
    CHECK(get(&s, s.names + s.inst[0].name_off, "Memory Used Bytes", &v) == 1);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_zram");
    RUN(test_fields);
    RUN(test_set);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
