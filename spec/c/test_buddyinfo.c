/* Buddy Allocator: the /proc/buddyinfo source's pure parser on bytes,
 * and the set over temporary trees: zones as instances, free blocks per
 * order, free bytes and the largest free block (4 KiB pages, worked out
 * beside each check), _Total, malformed and missing files. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "buddyinfo.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const pl_birow *birow(const pl_buddyinfo *t, uint32_t n)
{
    return (const pl_birow *)t->row + n;
}

static void test_parse(void)
{
    static const char text[] =
        "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
        "Node 1, zone   Normal    676  11397\n"
        "something else\n"
        "Node 1, zone   Movable   1 x 2\n"
        "Node 2, zone   Normal    1 2 3";
    pl_buddyinfo t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_buddyinfo(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 4);                           /* "something else" is no zone */
    CHECK_EQ_U64(birow(&t, 0)->node, 0);
    CHECK_STR(birow(&t, 0)->zone, "DMA");
    CHECK_EQ_U64(birow(&t, 0)->norders, 11);        /* the trailing blank is no order */
    CHECK_EQ_U64(birow(&t, 0)->blocks[10], 3);
    CHECK_EQ_U64(birow(&t, 1)->node, 1);
    CHECK_EQ_U64(birow(&t, 1)->norders, 2);
    CHECK_EQ_U64(birow(&t, 1)->blocks[1], 11397);
    CHECK_STR(birow(&t, 2)->zone, "Movable");
    CHECK_EQ_U64(birow(&t, 2)->norders, 0);         /* "x": malformed */
    CHECK_EQ_U64(birow(&t, 3)->norders, 0);         /* cut off */
    CHECK(pl_parse_buddyinfo("Node 99999999999, zone Normal 1\n", 32, &t) == 0);
    CHECK_EQ_U64(t.n, 0);                           /* no such node */
    pl_rows_release(&t);
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void test_zones(void)
{
    const char *root = tree("zones");
    pl_snapshot s;
    CHECK(put(root, "proc/buddyinfo",
              "Node 0, zone      DMA      1      0      2\n"
              "Node 0, zone   Normal      3      4      0\n"
              "Node 1, zone   Normal      0      0      0\n") == 1);
    CHECK(pc_collect_tree(root, "Buddy Allocator", 0, 4096, NULL, &s) == 0);
    {
        /* ids: node x 256 + the zone's place in its node */
        static const uint32_t ids[] = { 0, 1, 256, 0xFFFFFFFEu };
        INSTS(&s, ids, "0,DMA", "0,Normal", "1,Normal", "_Total");
    }
    EXPECT(&s, "0,DMA", "Free Blocks Order 2", 2);
    UNSET(&s, "0,DMA", "Free Blocks Order 3");       /* this kernel has 3 orders */
    /* DMA: 1 x 1 + 2 x 4 = 9 pages = 36864 bytes; largest: order 2, 16384 */
    EXPECT(&s, "0,DMA", "Free Bytes", 36864);
    EXPECT(&s, "0,DMA", "Largest Free Block Bytes", 16384);
    /* Normal: 3 x 1 + 4 x 2 = 11 pages = 45056 bytes; largest: order 1, 8192 */
    EXPECT(&s, "0,Normal", "Free Bytes", 45056);
    EXPECT(&s, "0,Normal", "Largest Free Block Bytes", 8192);
    /* node 1: nothing free */
    EXPECT(&s, "1,Normal", "Free Bytes", 0);
    EXPECT(&s, "1,Normal", "Largest Free Block Bytes", 0);
    /* _Total: orders 4, 4, 2 -> 4 x 1 + 4 x 2 + 2 x 4 = 20 pages = 81920 */
    EXPECT(&s, "_Total", "Free Blocks Order 0", 4);
    EXPECT(&s, "_Total", "Free Bytes", 81920);
    EXPECT(&s, "_Total", "Largest Free Block Bytes", 16384);
    pl_snap_free(&s);
}

static void test_malformed_and_missing(void)
{
    const char *root = tree("bad");
    pl_snapshot s;
    CHECK(put(root, "proc/buddyinfo",
              "Node 0, zone   Normal      3      4\n"
              "Node 0, zone  Movable      x\n") == 1);
    CHECK(pc_collect_tree(root, "Buddy Allocator", 0, 4096, NULL, &s) == 0);
    NAMES(&s, "0,Normal", "0,Movable", "_Total");
    EXPECT(&s, "0,Normal", "Free Bytes", 45056);     /* (3 + 8) pages x 4096 */
    UNSET(&s, "0,Movable", "Free Bytes");
    UNSET(&s, "0,Movable", "Free Blocks Order 0");
    UNSET(&s, "_Total", "Free Bytes");               /* a zone unknown: no sum */
    UNSET(&s, "_Total", "Free Blocks Order 0");
    pl_snap_free(&s);

    /* a control character in a zone name does not reach the instance name */
    CHECK(put(root, "proc/buddyinfo", "Node 0, zone   No\x1brmal  1\n") == 1);
    CHECK(pc_collect_tree(root, "Buddy Allocator", 0, 4096, NULL, &s) == 0);
    NAMES(&s, "0,No_rmal", "_Total");
    pl_snap_free(&s);

    CHECK(pc_collect_tree(tree("none"), "Buddy Allocator", 0, 4096, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/buddyinfo");
    pl_snap_free(&s);
}

/* Live: every zone's free bytes add up to _Total's. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t total = 0, v, sum = 0;
    CHECK(pc_collect_tree("/", "Buddy Allocator", 0, 0, NULL, &s) == 0);
    CHECK(s.ninst >= 2);
    CHECK(get(&s, "_Total", "Free Bytes", &total) == 1 && total > 0);
    for (uint32_t i = 0; i + 1 < s.ninst; i++)
        if (get(&s, pl_snap_name(&s, i), "Free Bytes", &v) == 1)
            sum += v;
    CHECK_EQ_U64(sum, total);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_buddyinfo");
    RUN(test_parse);
    RUN(test_zones);
    RUN(test_malformed_and_missing);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
