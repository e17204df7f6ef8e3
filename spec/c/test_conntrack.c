/* Conntrack: the connection-tracking sources' pure parsers on bytes (fields
 * found by header name across kernel layouts), and the set over temporary
 * trees rewritten between collects: entries against the limit, event counts
 * summed over the CPUs with each CPU's 32-bit cell unwrapped, only the
 * sources the wanted counters need, a missing module or file.  Expected
 * values are worked out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "conntrack.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- the parsers ------------------------------------------------------------------ */

static const pl_ctrow *ctrow(const pl_ct_stat *t, uint32_t n)
{
    return (const pl_ctrow *)t->rows.row + n;
}

static void test_parse_layouts(void)
{
    /* 6.x: clashres second, chainlength; 4.x: searched, delete_list, no clashres */
    static const char new_layout[] =
        "entries  clashres found new invalid ignore delete chainlength insert insert_failed drop "
        "early_drop icmp_error  expect_new expect_create expect_delete search_restart\n"
        "00000005  00000001 00000002 00000003 00000004 00000005 00000006 00000007 00000008 "
        "00000009 0000000a 0000000b 0000000c  00000000 00000000 00000000 0000000d\n";
    static const char old_layout[] =
        "entries  searched found new invalid ignore delete delete_list insert insert_failed drop "
        "early_drop icmp_error  expect_new expect_create expect_delete search_restart\n"
        "00000005  00000063 00000002 00000003 00000004 00000005 00000006 00000007 00000008 "
        "00000009 0000000a 0000000b 0000000c  00000000 00000000 00000000 0000000d\n"
        "00000005  00000000 00000001 00000001 00000001 00000001 00000001 00000001 00000001 "
        "00000001 00000001 00000001 00000001  00000000 00000000 00000000 00000001\n";
    pl_ct_stat t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_ct_stat(new_layout, sizeof new_layout - 1, &t) == 0);
    CHECK_EQ_U64(t.rows.n, 1);
    CHECK(ctrow(&t, 0)->ok);
    CHECK_EQ_U64(ctrow(&t, 0)->v[PL_CT_CLASHRES], 1);
    CHECK_EQ_U64(ctrow(&t, 0)->v[PL_CT_FOUND], 2);
    CHECK_EQ_U64(ctrow(&t, 0)->v[PL_CT_INSERT], 8);      /* after chainlength's 7 */
    CHECK_EQ_U64(ctrow(&t, 0)->v[PL_CT_DROP], 10);       /* 0x0a */
    CHECK_EQ_U64(ctrow(&t, 0)->v[PL_CT_SEARCH_RESTART], 13);
    /* the same struct, another layout: columns found anew */
    CHECK(pl_parse_ct_stat(old_layout, sizeof old_layout - 1, &t) == 0);
    CHECK_EQ_U64(t.rows.n, 2);
    CHECK(t.col[PL_CT_CLASHRES] == -1);                  /* "searched" is not clashres */
    CHECK_EQ_U64(ctrow(&t, 0)->v[PL_CT_FOUND], 2);
    CHECK_EQ_U64(ctrow(&t, 0)->v[PL_CT_INSERT], 8);      /* after delete_list's 7 */
    CHECK_EQ_U64(ctrow(&t, 1)->v[PL_CT_EARLY_DROP], 1);
    pl_ct_stat_release(&t);
}

static void test_parse_malformed(void)
{
    static const char text[] =
        "entries found new drop\n"
        "00000001 00000002 00000003\n"           /* fewer fields than names */
        "00000001 0000000x 00000003 00000004\n"  /* not hex */
        "00000001 100000002 00000003 00000004\n" /* 9 digits: past 32 bits */
        "00000001 00000002 00000003 00000004";   /* cut off */
    pl_ct_stat t;
    pl_sysnum v;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_ct_stat(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.rows.n, 4);
    for (uint32_t n = 0; n < t.rows.n; n++)
        CHECK(!ctrow(&t, n)->ok);
    pl_ct_stat_release(&t);

    CHECK(pl_parse_sysnum1("262144\n", 7, &v) == 0 && v.st[0] == PL_NS_OK);
    CHECK_EQ_U64(v.v[0], 262144);
    CHECK(pl_parse_sysnum1("-1\n", 3, &v) == 0 && v.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("12 13\n", 6, &v) == 0 && v.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("", 0, &v) == 0 && v.st[0] == PL_NS_ABSENT);
}

/* ---- the set ------------------------------------------------------------------------ */

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

#define HEADER "entries  clashres found new invalid ignore delete chainlength insert insert_failed " \
    "drop early_drop icmp_error  expect_new expect_create expect_delete search_restart\n"

/* A stat line with found f, new n, drop d and the rest 0. */
static void ct_line_fmt(char *out, size_t size, unsigned f, unsigned n, unsigned d)
{
    snprintf(out, size, "00000000  00000000 %08x %08x 00000000 00000000 00000000 00000000 "
             "00000000 00000000 %08x 00000000 00000000  00000000 00000000 00000000 00000000\n",
             f, n, d);
}

static void write_stat(const char *root, unsigned f0, unsigned n0, unsigned d0, unsigned f1,
                       unsigned n1, unsigned d1)
{
    char a[200], b[200], text[700];
    ct_line_fmt(a, sizeof a, f0, n0, d0);
    ct_line_fmt(b, sizeof b, f1, n1, d1);
    snprintf(text, sizeof text, HEADER "%s%s", a, b);
    CHECK(put(root, "proc/net/stat/nf_conntrack", text) == 1);
}

static void test_entries_and_sums(void)
{
    const char *root = tree("sums");
    pctx p;
    pl_snapshot s0, s1;
    double pct;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(put(root, "proc/sys/net/netfilter/nf_conntrack_count", "1536\n") == 1);
    CHECK(put(root, "proc/sys/net/netfilter/nf_conntrack_max", "65536\n") == 1);
    write_stat(root, 10, 20, 1, 30, 40, 2);
    CHECK(pc_open_set(&p, root, "Conntrack", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    EXPECT(&s0, "", "Entries", 1536);
    EXPECT(&s0, "", "Entries Limit", 65536);
    EXPECT(&s0, "", "Found/sec", 40);         /* 10 + 30 */
    EXPECT(&s0, "", "New/sec", 60);           /* 20 + 40 */
    EXPECT(&s0, "", "Drops/sec", 3);          /* 1 + 2 */
    /* 1536 / 65536 = 2.34375 % */
    CHECK(fmt2(&s0, &s0, "", "% Table Used", &pct) == PL_VALID);
    CHECK_NEAR(pct, 2.34375, 1e-12);

    /* CPU 1's "new" wraps: 0xfffffffe then 0x00000003 is 5 more; CPU 0 +100 */
    write_stat(root, 10, 20, 1, 30, 0xfffffffeu, 2);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    EXPECT(&s0, "", "New/sec", 4294967314u);  /* 20 + 40 + (0xfffffffe - 40) = 20 + 4294967294 */
    write_stat(root, 10, 120, 1, 30, 3, 2);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    EXPECT(&s1, "", "New/sec", 4294967419u);  /* 120 + 4294967294 + 5 */
    /* 105 new in fmt2's 10 s: 10.5/s, not a wrap's 4e8/s */
    CHECK_NEAR(val2(&s0, &s1, "", "New/sec"), 10.5, 1e-9);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

/* A query of Entries reads the two sysctls, not the stat table. */
static void test_reads_what_it_needs(void)
{
    static const char *const entries[] = { "Entries", NULL };
    const char *root = tree("need");
    pl_env *env;
    pl_ksrc *stat, *count;
    pctx p;
    pl_snapshot s;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    CHECK(put(root, "proc/sys/net/netfilter/nf_conntrack_count", "7\n") == 1);
    CHECK(put(root, "proc/sys/net/netfilter/nf_conntrack_max", "8\n") == 1);
    write_stat(root, 1, 2, 3, 4, 5, 6);
    CHECK(pc_open_set(&p, root, "Conntrack", 0, 0) == 0);
    env = p.env;
    stat = pl_ksrc_attach(env, &pl_ksrc_ct_stat);
    count = pl_ksrc_attach(env, &pl_ksrc_ct_count);
    w = want_only(p.cs, entries);
    CHECK(pc_collect(&p, w, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(count), 1);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 0);
    EXPECT(&s, "", "Entries", 7);
    UNSET(&s, "", "New/sec");
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

static void test_missing_and_malformed(void)
{
    const char *root = tree("partial");
    pl_snapshot s;
    char a[200], text[500];
    /* no module: nothing there; the set fails with the first file it tried */
    CHECK(pc_collect_tree(tree("none"), "Conntrack", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/sys/net/netfilter/nf_conntrack_count");
    pl_snap_free(&s);

    /* the sysctls without the stat table: entries valid, the sums unset */
    CHECK(put(root, "proc/sys/net/netfilter/nf_conntrack_count", "3\n") == 1);
    CHECK(put(root, "proc/sys/net/netfilter/nf_conntrack_max", "4\n") == 1);
    CHECK(pc_collect_tree(root, "Conntrack", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "Entries", 3);
    UNSET(&s, "", "Found/sec");
    pl_snap_free(&s);

    /* one malformed CPU line: no sum is right, so none is given */
    ct_line_fmt(a, sizeof a, 1, 2, 3);
    snprintf(text, sizeof text, HEADER "%s00000000 0000zz00\n", a);
    CHECK(put(root, "proc/net/stat/nf_conntrack", text) == 1);
    CHECK(pc_collect_tree(root, "Conntrack", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "Entries Limit", 4);
    UNSET(&s, "", "Found/sec");
    UNSET(&s, "", "Drops/sec");
    pl_snap_free(&s);

    /* an old kernel without clashres: only that counter is unset */
    CHECK(put(root, "proc/net/stat/nf_conntrack",
              "entries searched found new drop\n"
              "00000000 00000001 00000002 00000003 00000004\n") == 1);
    CHECK(pc_collect_tree(root, "Conntrack", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "Found/sec", 2);
    EXPECT(&s, "", "Drops/sec", 4);
    UNSET(&s, "", "Clash Resolutions/sec");
    pl_snap_free(&s);
}

/* Live: the module may be absent here (then ENOENT); when present the
 * limit is positive. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "Conntrack", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == 0)
        CHECK(get(&s, "", "Entries Limit", &v) == 1 && v > 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_conntrack");
    RUN(test_parse_layouts);
    RUN(test_parse_malformed);
    RUN(test_entries_and_sums);
    RUN(test_reads_what_it_needs);
    RUN(test_missing_and_malformed);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
