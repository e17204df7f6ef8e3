/* Softnet: the /proc/net/softnet_stat source's pure parser on bytes, and
 * the set over temporary trees rewritten between collects: CPUs named by
 * their index field (5.10) or through the online list (older kernels),
 * 32-bit counters unwrapped, offline CPUs kept in _Total, malformed and
 * unnamed lines that leave values unset, never a value from another line.
 * Expected values are worked out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "softnet.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- the parser ------------------------------------------------------------------ */

static const pl_snrow *row(const pl_softnet *t, uint32_t n)
{
    return (const pl_snrow *)t->row + n;
}

static void test_parse_layouts(void)
{
    /* 6.x: 15 fields (13 kept); 4.x: 11 fields; 2.6.32: 10 fields */
    static const char text[] =
        "0000000a 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000000 "
        "00000003 00000004 00000005 00000000 00000000 00000000\n"
        "\n"
        "0000001A 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
        "00000000 00000007\n"
        "ffffffff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
        "00000009\n";
    pl_softnet t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_softnet(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 3);                          /* the blank line is no row */
    CHECK_EQ_U64(row(&t, 0)->nf, PL_SN_FIELDS);    /* 15 on the line, 13 kept */
    CHECK_EQ_U64(row(&t, 0)->v[PL_SN_PROCESSED], 10);   /* 0x0a */
    CHECK_EQ_U64(row(&t, 0)->v[PL_SN_RPS], 3);
    CHECK_EQ_U64(row(&t, 0)->v[PL_SN_FLOW_LIMIT], 4);
    CHECK_EQ_U64(row(&t, 0)->v[PL_SN_BACKLOG], 5);
    CHECK_EQ_U64(row(&t, 0)->v[PL_SN_CPU], 0);
    CHECK_EQ_U64(row(&t, 1)->nf, 11);
    CHECK_EQ_U64(row(&t, 1)->v[PL_SN_PROCESSED], 26);   /* 0x1A, upper case taken */
    CHECK_EQ_U64(row(&t, 1)->v[PL_SN_FLOW_LIMIT], 7);
    CHECK_EQ_U64(row(&t, 2)->nf, 10);
    CHECK_EQ_U64(row(&t, 2)->v[PL_SN_PROCESSED], 4294967295u);
    pl_rows_release(&t);
}

static void test_parse_malformed(void)
{
    /* a 9-digit field, a non-hex field, 8 fields, a cut last line */
    static const char text[] =
        "100000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
        "0000000g 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
        "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
        "00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000";
    pl_softnet t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_softnet(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 4);                          /* each is a CPU's line ... */
    for (uint32_t n = 0; n < t.n; n++)
        CHECK_EQ_U64(row(&t, n)->nf, 0);           /* ... without values */
    /* a second parse into the same table forgets the first */
    CHECK(pl_parse_softnet("", 0, &t) == 0);
    CHECK_EQ_U64(t.n, 0);
    pl_rows_release(&t);
}

/* ---- the set ------------------------------------------------------------------------ */

#define Z " 00000000"
#define Z5 Z Z Z Z Z
/* A 5.10 line: processed dropped squeezed, five zeros, collision, rps,
 * flow limit, backlog, cpu */
static void line510(char *out, size_t size, unsigned p, unsigned d, unsigned sq, unsigned rps,
                    unsigned fl, unsigned bl, unsigned cpu)
{
    snprintf(out, size, "%08x %08x %08x" Z5 " 00000000 %08x %08x %08x %08x\n", p, d, sq, rps, fl,
             bl, cpu);
}

/* A fresh tree below the test's directory. */
static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void write_softnet(const char *root, const char *text)
{
    CHECK(put(root, "proc/net/softnet_stat", text) == 1);
}

static void test_cpus_by_index(void)
{
    const char *root = tree("index");
    char a[160], b[160], text[400];
    pctx p;
    pl_snapshot s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    /* CPU 1 offline: lines for CPUs 0 and 2 */
    line510(a, sizeof a, 100, 1, 2, 3, 4, 5, 0);
    line510(b, sizeof b, 200, 10, 20, 30, 40, 50, 2);
    snprintf(text, sizeof text, "%s%s", a, b);
    write_softnet(root, text);
    CHECK(pc_open_set(&p, root, "Softnet", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    {
        static const uint32_t ids[] = { 0, 2, 0xFFFFFFFEu };
        INSTS(&s0, ids, "0", "2", "_Total");
    }
    EXPECT(&s0, "0", "Packets Processed/sec", 100);
    EXPECT(&s0, "2", "Packets Dropped/sec", 10);
    EXPECT(&s0, "2", "Time Squeezes/sec", 20);
    EXPECT(&s0, "2", "RPS Wake-ups/sec", 30);
    EXPECT(&s0, "2", "Flow Limit Drops/sec", 40);
    EXPECT(&s0, "2", "Backlog Length", 50);
    EXPECT(&s0, "_Total", "Packets Processed/sec", 300);   /* 100 + 200 */
    EXPECT(&s0, "_Total", "Packets Dropped/sec", 11);      /* 1 + 10 */
    EXPECT(&s0, "_Total", "Backlog Length", 55);           /* 5 + 50 */

    /* CPU 0 wraps: 0xfffffff0 -> 0x10 is 0x20 = 32 more */
    line510(a, sizeof a, 0xfffffff0u, 1, 2, 3, 4, 0, 0);
    line510(b, sizeof b, 260, 10, 20, 30, 40, 7, 2);
    snprintf(text, sizeof text, "%s%s", a, b);
    write_softnet(root, text);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    EXPECT(&s0, "0", "Packets Processed/sec", 4294967280u);  /* 100 + (0xfffffff0 - 100) */
    line510(a, sizeof a, 0x10u, 1, 2, 3, 4, 0, 0);
    snprintf(text, sizeof text, "%s%s", a, b);
    write_softnet(root, text);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    EXPECT(&s1, "0", "Packets Processed/sec", 4294967312u);  /* 4294967280 + 32 */
    /* 32 packets in fmt2's 10 s: 3.2/s; _Total 32 + 0 = 3.2/s too */
    CHECK_NEAR(val2(&s0, &s1, "0", "Packets Processed/sec"), 3.2, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "_Total", "Packets Processed/sec"), 3.2, 1e-9);

    /* CPU 2 goes offline: it leaves the list, its counts stay in _Total */
    write_softnet(root, a);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    NAMES(&s1, "0", "_Total");
    EXPECT(&s1, "_Total", "Packets Processed/sec", 4294967572u);  /* 4294967312 + 260 */
    EXPECT(&s1, "_Total", "Backlog Length", 0);                    /* CPU 0's 0 only */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

/* 4.x: no index field; the lines are the online CPUs in order. */
static void test_cpus_by_online_list(void)
{
    const char *root = tree("online");
    static const char old[] =
        "00000001 00000000 00000000" Z5 " 00000000 00000000 00000002\n"
        "00000003 00000000 00000000" Z5 " 00000000 00000000 00000004\n"
        "00000005 00000000 00000000" Z5 " 00000000 00000000 00000006\n";
    pl_snapshot s;
    write_softnet(root, old);
    CHECK(put(root, "sys/devices/system/cpu/online", "0,2-3\n") == 1);
    CHECK(pc_collect_tree(root, "Softnet", 0, 0, NULL, &s) == 0);
    NAMES(&s, "0", "2", "3", "_Total");
    EXPECT(&s, "2", "Packets Processed/sec", 3);
    EXPECT(&s, "3", "Flow Limit Drops/sec", 6);
    EXPECT(&s, "_Total", "Packets Processed/sec", 9);   /* 1 + 3 + 5 */
    UNSET(&s, "3", "Backlog Length");                    /* before 5.10 */
    UNSET(&s, "_Total", "Backlog Length");
    pl_snap_free(&s);

    /* a list shorter than the file: the third line names no CPU, and the
     * sum over the named two would be wrong, so _Total has no values */
    CHECK(put(root, "sys/devices/system/cpu/online", "0-1\n") == 1);
    CHECK(pc_collect_tree(root, "Softnet", 0, 0, NULL, &s) == 0);
    NAMES(&s, "0", "1", "_Total");
    EXPECT(&s, "1", "Packets Processed/sec", 3);
    UNSET(&s, "_Total", "Packets Processed/sec");
    pl_snap_free(&s);

    /* no online list at all */
    CHECK(put(root, "sys/devices/system/cpu/online", "") == 1);
    CHECK(pc_collect_tree(root, "Softnet", 0, 0, NULL, &s) == 0);
    NAMES(&s, "_Total");
    UNSET(&s, "_Total", "Packets Processed/sec");
    pl_snap_free(&s);
}

static void test_malformed_and_missing(void)
{
    const char *root = tree("bad");
    char a[160], text[400];
    pl_snapshot s;
    /* CPU 1's line is cut short (8 fields): no index, so the online list
     * names it; its values and _Total's are unset, CPU 0's stay */
    line510(a, sizeof a, 7, 0, 0, 0, 0, 1, 0);
    snprintf(text, sizeof text, "%s00000009" Z Z Z Z Z Z Z "\n", a);
    write_softnet(root, text);
    CHECK(put(root, "sys/devices/system/cpu/online", "0-1\n") == 1);
    CHECK(pc_collect_tree(root, "Softnet", 0, 0, NULL, &s) == 0);
    NAMES(&s, "0", "1", "_Total");
    EXPECT(&s, "0", "Packets Processed/sec", 7);
    UNSET(&s, "1", "Packets Processed/sec");
    UNSET(&s, "1", "Backlog Length");
    UNSET(&s, "_Total", "Packets Processed/sec");
    UNSET(&s, "_Total", "Backlog Length");
    pl_snap_free(&s);

    /* an empty file: _Total alone, without values */
    write_softnet(root, "");
    CHECK(pc_collect_tree(root, "Softnet", 0, 0, NULL, &s) == 0);
    NAMES(&s, "_Total");
    UNSET(&s, "_Total", "Packets Processed/sec");
    pl_snap_free(&s);

    /* no file (no networking): the set fails with the file's errno and path */
    CHECK(pc_collect_tree(tmp("none"), "Softnet", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/net/softnet_stat");
    pl_snap_free(&s);
}

/* Live: one CPU line per online CPU here, each named by its index. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    CHECK(pc_collect_tree("/", "Softnet", 0, 0, NULL, &s) == 0);
    CHECK(s.ninst >= 2);                         /* a CPU and _Total */
    CHECK(inst_of(&s, "0") >= 0);
    CHECK(get(&s, "_Total", "Packets Processed/sec", &v) == 1);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_softnet");
    RUN(test_parse_layouts);
    RUN(test_parse_malformed);
    RUN(test_cpus_by_index);
    RUN(test_cpus_by_online_list);
    RUN(test_malformed_and_missing);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
