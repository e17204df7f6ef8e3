/* KSM: a set made only of rows (pl_rowset_ops) over the one-value files of
 * /sys/kernel/mm/ksm, on temporary trees: pages in bytes (page sizes given,
 * products beside each check), only the files the wanted counters need,
 * a file a kernel lacks, garbage, no KSM at all; and the one-value parser
 * on bytes. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "ksm.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void test_one_number(void)
{
    pl_sysnum v;
    CHECK(pl_parse_sysnum1("42\n", 3, &v) == 0 && v.st[0] == PL_NS_OK && v.v[0] == 42);
    CHECK(pl_parse_sysnum1("18446744073709551615\n", 21, &v) == 0 && v.st[0] == PL_NS_OK);
    CHECK_EQ_U64(v.v[0], UINT64_MAX);
    CHECK(pl_parse_sysnum1("18446744073709551616\n", 21, &v) == 0 && v.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("-3\n", 3, &v) == 0 && v.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("[none] scan-time\n", 17, &v) == 0 && v.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("", 0, &v) == 0 && v.st[0] == PL_NS_ABSENT);
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void ksm_file(const char *root, const char *file, const char *text)
{
    char rel[128];
    snprintf(rel, sizeof rel, "sys/kernel/mm/ksm/%s", file);
    CHECK(put(root, rel, text) == 1);
}

static void test_values(void)
{
    const char *root = tree("values");
    pl_snapshot s;
    ksm_file(root, "pages_shared", "10\n");
    ksm_file(root, "pages_sharing", "250\n");
    ksm_file(root, "pages_unshared", "7\n");
    ksm_file(root, "pages_volatile", "-1\n");       /* garbage: its counter unset */
    ksm_file(root, "full_scans", "3\n");
    ksm_file(root, "run", "1\n");
    /* no ksm_zero_pages, no pages_scanned: an older kernel */
    CHECK(pc_collect_tree(root, "KSM", 0, 4096, NULL, &s) == 0);
    EXPECT(&s, "", "Sharing Bytes", 1024000);     /* 250 x 4096 */
    EXPECT(&s, "", "Shared Bytes", 40960);        /* 10 x 4096 */
    EXPECT(&s, "", "Unshared Bytes", 28672);      /* 7 x 4096 */
    UNSET(&s, "", "Volatile Bytes");
    UNSET(&s, "", "Zero Pages Bytes");
    UNSET(&s, "", "Pages Scanned/sec");
    EXPECT(&s, "", "Full Scans", 3);
    EXPECT(&s, "", "Run State", 1);
    pl_snap_free(&s);
    /* 64 KiB pages (arm64, ppc64): 250 x 65536 */
    CHECK(pc_collect_tree(root, "KSM", 0, 65536, NULL, &s) == 0);
    EXPECT(&s, "", "Sharing Bytes", 16384000);
    pl_snap_free(&s);
}

static void test_reads_and_missing(void)
{
    static const char *const run[] = { "Run State", NULL };
    const char *root = tree("reads");
    pctx p;
    pl_snapshot s;
    pl_ksrc *shared, *krun;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    ksm_file(root, "pages_shared", "1\n");
    ksm_file(root, "run", "0\n");
    CHECK(pc_open_set(&p, root, "KSM", 0, 4096) == 0);
    shared = pl_ksrc_attach(p.env, &pl_ksrc_ksm_shared);
    krun = pl_ksrc_attach(p.env, &pl_ksrc_ksm_run);
    w = want_only(p.cs, run);
    CHECK(pc_collect(&p, w, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(krun), 1);
    CHECK_EQ_U64(pl_ksrc_reads(shared), 0);       /* not wanted: not read */
    EXPECT(&s, "", "Run State", 0);
    free(w);
    pl_snap_free(&s);
    pc_close(&p);

    /* no CONFIG_KSM: the set fails with the first file it tried */
    CHECK(pc_collect_tree(tree("none"), "KSM", 0, 4096, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "sys/kernel/mm/ksm/pages_shared");
    pl_snap_free(&s);
}

/* Live: run is 0, 1 or 2 where the kernel has KSM. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "KSM", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == 0)
        CHECK(get(&s, "", "Run State", &v) == 1 && v <= 2);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_ksm");
    RUN(test_one_number);
    RUN(test_values);
    RUN(test_reads_and_missing);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
