/* IPVS: the ip_vs_stats parser on bytes (the kernel's table from
 * net/netfilter/ipvs/ip_vs_ctl.c ip_vs_stats_show; another layout, bad
 * hex, a cut file), the set on temporary trees (hex totals, rates over
 * fmt2's 10 s, no module), and live (ENOENT without ip_vs). */
#include "perflib.h"
#include "pl_ksrc.h"
#include "ipvs.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define HEAD "   Total Incoming Outgoing         Incoming         Outgoing\n" \
             "   Conns  Packets  Packets            Bytes            Bytes\n"
#define RATES "\n Conns/s   Pkts/s   Pkts/s          Bytes/s          Bytes/s\n" \
              "       1       2A        0              3E8                0\n"
/* 4F = 4x16+15 = 79; 1A5F = 1x4096+10x256+5x16+15 = 6751; 7E9 = 7x256+14x16+9 = 2025;
 * 38B1C21 = 3x16^6+8x16^5+11x16^4+1x16^3+12x256+2x16+1 = 59448353;
 * 9C5B12 = 9x16^5+12x16^4+5x16^3+11x256+1x16+2 = 10246930 */
#define T1 "      4F     1A5F      7E9          38B1C21           9C5B12\n"

static int parse(const char *text, pl_ipvs_stats *t)
{
    return pl_parse_ipvs_stats(text, strlen(text), t);
}

static void test_parse(void)
{
    pl_ipvs_stats t;
    CHECK(parse(HEAD T1 RATES, &t) == 0);
    for (int k = 0; k < PL_IPVS_N; k++)
        CHECK(t.st[k] == PL_NS_OK);
    CHECK_EQ_U64(t.v[PL_IPVS_CONNS], 79);
    CHECK_EQ_U64(t.v[PL_IPVS_INPKTS], 6751);
    CHECK_EQ_U64(t.v[PL_IPVS_OUTPKTS], 2025);
    CHECK_EQ_U64(t.v[PL_IPVS_INBYTES], 59448353);
    CHECK_EQ_U64(t.v[PL_IPVS_OUTBYTES], 10246930);
    /* 16 hex digits is the most (%16LX of a u64): all F = 2^64 - 1 */
    CHECK(parse(HEAD "0 0 0 FFFFFFFFFFFFFFFF ffffffffffffffff\n", &t) == 0 && t.st[3] == PL_NS_OK);
    CHECK_EQ_U64(t.v[PL_IPVS_INBYTES], UINT64_MAX);
    CHECK_EQ_U64(t.v[PL_IPVS_OUTBYTES], UINT64_MAX);
    /* 17 digits, a fourth field alone, a sixth, a non-hex token, 0x: bad, never half read */
    static const char *const bad[] = {
        HEAD "0 0 0 10000000000000000 0\n", HEAD "1 2 3 4\n", HEAD "1 2 3 4 5 6\n",
        HEAD "1 2 3 4 G\n", HEAD "1 2 3 4 0x5\n", HEAD "-1 2 3 4 5\n",
        "IP Virtual Server version 1.2.1 (size=4096)\n" T1,            /* /proc/net/ip_vs */
        "   Total Incoming\n" "   Bytes Conns\n" T1,                      /* not the "Conns" line */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(parse(bad[i], &t) == 0);
        CHECK(t.st[0] == PL_NS_BAD && t.st[4] == PL_NS_BAD && t.v[0] == 0);
    }
    /* cut off inside the totals: absent; an empty file: absent */
    CHECK(parse(HEAD "      4F     1A5F", &t) == 0 && t.st[0] == PL_NS_ABSENT && t.v[0] == 0);
    CHECK(parse("", &t) == 0 && t.st[0] == PL_NS_ABSENT);
    CHECK(parse(HEAD, &t) == 0 && t.st[0] == PL_NS_ABSENT);
}

static const char *tree(const char *name, const char *stats)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/net/ip_vs_stats", stats) == 1);
    return root;
}

static void test_set(void)
{
    pl_snapshot s0, s1;
    const char *root = tree("set", HEAD T1 RATES);
    CHECK(pc_collect_tree(root, "IPVS", 0, 0, NULL, &s0) == 0);
    NAMES(&s0, "");
    EXPECT(&s0, "", "Connections/sec", 79);
    EXPECT(&s0, "", "Incoming Packets/sec", 6751);
    EXPECT(&s0, "", "Outgoing Packets/sec", 2025);
    EXPECT(&s0, "", "Incoming Bytes/sec", 59448353);
    EXPECT(&s0, "", "Outgoing Bytes/sec", 10246930);
    /* 10 s later (fmt2): 79+100 = 179 = B3; 6751+5000 = 11751 = 2DE7;
     * 59448353+1000000 = 60448353 = 39A5E61; 2025 and 10246930 unchanged */
    CHECK(put(root, "proc/net/ip_vs_stats",
              HEAD "      B3     2DE7      7E9          39A5E61           9C5B12\n" RATES) == 1);
    CHECK(pc_collect_tree(root, "IPVS", 0, 0, NULL, &s1) == 0);
    CHECK(val2(&s0, &s1, "", "Connections/sec") == 10.0);          /* 100 / 10 s */
    CHECK(val2(&s0, &s1, "", "Incoming Packets/sec") == 500.0);    /* 5000 / 10 s */
    CHECK(val2(&s0, &s1, "", "Outgoing Packets/sec") == 0.0);
    CHECK(val2(&s0, &s1, "", "Incoming Bytes/sec") == 100000.0);   /* 1000000 / 10 s */
    pl_snap_free(&s0);
    pl_snap_free(&s1);

    /* another layout: the instance, every counter unset */
    CHECK(pc_collect_tree(tree("other", "IP Virtual Server version 1.2.1\n"), "IPVS", 0, 0, NULL,
                          &s0) == 0);
    UNSET(&s0, "", "Connections/sec");
    UNSET(&s0, "", "Outgoing Bytes/sec");
    pl_snap_free(&s0);

    /* no ip_vs module: ENOENT with the file */
    root = tmp("none");
    CHECK(mkdir(root, 0700) == 0);
    CHECK(pc_collect_tree(root, "IPVS", 0, 0, NULL, &s0) == ENOENT);
    CHECK_STR(s0.err_path, "proc/net/ip_vs_stats");
    pl_snap_free(&s0);
}

/* Live: ENOENT without the ip_vs module (this VM); else five totals. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "IPVS", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == 0)
        CHECK(get(&s, "", "Connections/sec", &v) == 1);
    else
        printf("  (no /proc/net/ip_vs_stats: live values skipped)\n");
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_ipvs");
    RUN(test_parse);
    RUN(test_set);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
