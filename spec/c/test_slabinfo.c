/* Slab Caches: the /proc/slabinfo source's pure parser on bytes (the two
 * header lines, version 2.1 only, malformed and cut lines), and the set on
 * temporary trees: bytes from slabs x pages x page size and from objects x
 * size (worked out beside each check), _Total, a line that leaves _Total
 * unset, no access; costly. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "slabinfo.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define HEAD "slabinfo - version: 2.1\n# name            <active_objs> <num_objs> <objsize> " \
    "<objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata " \
    "<active_slabs> <num_slabs> <sharedavail>\n"

static const pl_slabrow *slrow(const pl_slabinfo *t, uint32_t n)
{
    return (const pl_slabrow *)t->rows.row + n;
}

static void test_parse(void)
{
    static const char text[] = HEAD
        "dentry            898989 901362    192   21    1 : tunables    0    0    0 : slabdata  42922  42922      0\n"
        "kmalloc-8k           100    120   8192    4    8 : tunables    0    0    0 : slabdata     30     30      0\n"
        "broken 1 2 3 : tunables 0 0 0 : slabdata 1 1 0\n"
        "cut               1 2 3 4 5 : tunables 0 0 0 : slabdata 1 1 0";
    pl_slabinfo t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_slabinfo(text, sizeof text - 1, &t) == 0);
    CHECK(t.version_ok);
    CHECK_EQ_U64(t.rows.n, 4);                      /* the two header lines are no caches */
    CHECK_STR(slrow(&t, 0)->name, "dentry");
    CHECK(slrow(&t, 0)->ok);
    CHECK_EQ_U64(slrow(&t, 0)->v[PL_SL_NUM_OBJS], 901362);
    CHECK_EQ_U64(slrow(&t, 0)->v[PL_SL_NUM_SLABS], 42922);
    CHECK_EQ_U64(slrow(&t, 1)->v[PL_SL_PAGESPERSLAB], 8);
    CHECK(!slrow(&t, 2)->ok);                       /* three values before tunables */
    CHECK(!slrow(&t, 3)->ok);                       /* cut off */
    /* another version: its columns may mean other things, so no rows */
    CHECK(pl_parse_slabinfo("slabinfo - version: 1.1\ndentry 1 2 3 4 5\n", 40, &t) == 0);
    CHECK(!t.version_ok);
    CHECK_EQ_U64(t.rows.n, 0);
    pl_slabinfo_release(&t);
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void test_caches(void)
{
    const char *root = tree("caches");
    pl_snapshot s;
    double pct;
    CHECK(put(root, "proc/slabinfo", HEAD
              "dentry     90    100    192   21    1 : tunables    0    0    0 : slabdata      5      5      0\n"
              "kmalloc-8k  3      4   8192    4    8 : tunables    0    0    0 : slabdata      1      1      0\n") == 1);
    CHECK(pc_collect_tree(root, "Slab Caches", 0, 4096, NULL, &s) == 0);
    NAMES(&s, "dentry", "kmalloc-8k", "_Total");
    EXPECT(&s, "dentry", "Bytes", 20480);            /* 5 slabs x 1 page x 4096 */
    EXPECT(&s, "dentry", "Active Bytes", 17280);     /* 90 x 192 */
    EXPECT(&s, "kmalloc-8k", "Bytes", 32768);        /* 1 x 8 x 4096 */
    EXPECT(&s, "kmalloc-8k", "Active Bytes", 24576); /* 3 x 8192 */
    CHECK(fmt2(&s, &s, "dentry", "% Objects Active", &pct) == PL_VALID);
    CHECK_NEAR(pct, 90.0, 1e-12);                    /* 90 of 100 */
    EXPECT(&s, "_Total", "Bytes", 53248);            /* 20480 + 32768 */
    EXPECT(&s, "_Total", "Active Bytes", 41856);     /* 17280 + 24576 */
    EXPECT(&s, "_Total", "Objects", 104);            /* 100 + 4 */
    EXPECT(&s, "_Total", "Slabs", 6);
    UNSET(&s, "_Total", "Object Size");              /* no sum of sizes */
    pl_snap_free(&s);

    /* one malformed cache: its values and _Total's unset, the other kept */
    CHECK(put(root, "proc/slabinfo", HEAD
              "dentry     90    100    192   21    1 : tunables    0    0    0 : slabdata      5      5      0\n"
              "odd        x\n") == 1);
    CHECK(pc_collect_tree(root, "Slab Caches", 0, 4096, NULL, &s) == 0);
    NAMES(&s, "dentry", "odd", "_Total");
    EXPECT(&s, "dentry", "Bytes", 20480);
    UNSET(&s, "odd", "Bytes");
    UNSET(&s, "odd", "Objects");
    UNSET(&s, "_Total", "Bytes");
    pl_snap_free(&s);
}

static void test_metadata_and_missing(void)
{
    pl_env *env = pl_env_new("/");
    const pl_counterset_def *cs = env ? pl_env_find(env, "Slab Caches") : NULL;
    pl_snapshot s;
    CHECK(cs && cs->costly && cs->index == 34000);
    pl_env_unref(env);
    CHECK(pc_collect_tree(tree("none"), "Slab Caches", 0, 4096, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/slabinfo");
    pl_snap_free(&s);
}

/* Live: as root the caches' bytes add up to _Total's; else EACCES. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t total = 0, v, sum = 0;
    int e = pc_collect_tree("/", "Slab Caches", 0, 0, NULL, &s);
    if (geteuid() != 0) {
        CHECK(e == EACCES || e == ENOENT);
    } else if (e != ENOENT) {                        /* CONFIG_SLUB_DEBUG off: no file */
        CHECK(e == 0);
        CHECK(get(&s, "_Total", "Bytes", &total) == 1 && total > 0);
        for (uint32_t i = 0; i + 1 < s.ninst; i++)
            if (get(&s, pl_snap_name(&s, i), "Bytes", &v) == 1)
                sum += v;
        CHECK_EQ_U64(sum, total);
    }
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_slabinfo");
    RUN(test_parse);
    RUN(test_caches);
    RUN(test_metadata_and_missing);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
