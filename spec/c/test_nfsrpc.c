/* NFS RPC Client: the /proc/net/rpc/nfs source's pure parser on bytes (lines
 * by tag, the proc lines summed, malformed and cut lines), and the set made
 * only of rows on temporary trees (values worked out beside each check);
 * live: no nfs module here (ENOENT), skipped cleanly.  Layout: net/sunrpc/
 * stats.c rpc_proc_show ("net", "rpc" with 3 values, "procN <n> ..."). */
#include "perflib.h"
#include "pl_ksrc.h"
#include "nfsrpc.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A 6.x client: proc2 is there when CONFIG_NFS_V2 is, proc4 has 69 ops on
 * 6.x (8 here: the parser takes the count the line gives). */
static const char rpc_text[] =
    "net 0 0 0 0\n"
    "rpc 1000 10 1000\n"
    "proc2 18 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "proc3 22 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n"
    "proc4 8 0 40 30 20 10 5 4 1\n";

#define OK(d, f, want) do { CHECK((d)->st[f] == PL_NS_OK); CHECK_EQ_U64((d)->v[f], want); } while (0)

static void test_parse(void)
{
    pl_nfsrpc d;
    CHECK(pl_parse_nfsrpc(rpc_text, sizeof rpc_text - 1, &d) == 0);
    OK(&d, PL_NFSRPC_NET_COUNT, 0);
    OK(&d, PL_NFSRPC_CALLS, 1000);
    OK(&d, PL_NFSRPC_RETRANS, 10);
    OK(&d, PL_NFSRPC_AUTHREFRESH, 1000);
    OK(&d, PL_NFSRPC_V2_OPS, 0);
    OK(&d, PL_NFSRPC_V3_OPS, 231);            /* 0 + 1 + ... + 21 = 21 x 22 / 2 */
    OK(&d, PL_NFSRPC_V4_OPS, 110);            /* 40 + 30 + 20 + 10 + 5 + 4 + 1 */

    /* fewer ops than said, garbage in rpc, a cut last line, a missing line */
    static const char bad[] = "proc3 22 0 1 2\nrpc 5 x 1\nproc4 2 1 2";
    CHECK(pl_parse_nfsrpc(bad, sizeof bad - 1, &d) == 0);
    CHECK(d.st[PL_NFSRPC_V3_OPS] == PL_NS_BAD);
    OK(&d, PL_NFSRPC_CALLS, 5);
    CHECK(d.st[PL_NFSRPC_RETRANS] == PL_NS_BAD);
    CHECK(d.st[PL_NFSRPC_AUTHREFRESH] == PL_NS_BAD);  /* after the garbage: not trusted */
    CHECK(d.st[PL_NFSRPC_V4_OPS] == PL_NS_BAD);       /* cut off */
    CHECK(d.st[PL_NFSRPC_V2_OPS] == PL_NS_ABSENT);    /* no proc2 line */
    CHECK(d.st[PL_NFSRPC_NET_TCP] == PL_NS_ABSENT);

    /* a count line that says more than 1024, a 65-bit sum, an empty file */
    static const char big[] = "proc3 5000 1\nproc4 2 18446744073709551615 1\n";
    CHECK(pl_parse_nfsrpc(big, sizeof big - 1, &d) == 0);
    CHECK(d.st[PL_NFSRPC_V3_OPS] == PL_NS_BAD);
    CHECK(d.st[PL_NFSRPC_V4_OPS] == PL_NS_BAD);
    CHECK(pl_parse_nfsrpc("", 0, &d) == 0);
    CHECK(d.st[PL_NFSRPC_CALLS] == PL_NS_ABSENT);
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void test_set(void)
{
    const char *root = tree("nfs");
    pl_snapshot s0, s1;
    double v;
    CHECK(put(root, "proc/net/rpc/nfs", rpc_text) == 1);
    CHECK(pc_collect_tree(root, "NFS RPC Client", 0, 0, NULL, &s0) == 0);
    CHECK(s0.cs && s0.cs->index == 38000 && s0.cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE);
    EXPECT(&s0, "", "RPC Calls/sec", 1000);
    EXPECT(&s0, "", "RPC Retransmissions/sec", 10);
    EXPECT(&s0, "", "% RPC Retransmissions", 10);
    EXPECT(&s0, "", "% RPC Retransmissions Base", 1000);
    EXPECT(&s0, "", "RPC Auth Refreshes/sec", 1000);
    EXPECT(&s0, "", "NFSv3 Operations/sec", 231);
    EXPECT(&s0, "", "NFSv4 Operations/sec", 110);
    EXPECT(&s0, "", "NFSv2 Operations/sec", 0);

    /* 10 s later: +400 calls, +20 retransmissions -> 20 / 400 = 5 %; +10 v4 ops */
    CHECK(put(root, "proc/net/rpc/nfs", "net 0 0 0 0\nrpc 1400 30 1000\n"
                                        "proc4 8 0 50 30 20 10 5 4 1\n") == 1);
    CHECK(pc_collect_tree(root, "NFS RPC Client", 0, 0, NULL, &s1) == 0);
    CHECK(fmt2(&s0, &s1, "", "% RPC Retransmissions", &v) == PL_VALID);
    CHECK_NEAR(v, 5, 1e-9);
    CHECK(fmt2(&s0, &s1, "", "RPC Calls/sec", &v) == PL_VALID);
    CHECK_NEAR(v, 40, 1e-9);                   /* 400 in 10 s */
    CHECK(fmt2(&s0, &s1, "", "NFSv4 Operations/sec", &v) == PL_VALID);
    CHECK_NEAR(v, 1, 1e-9);                    /* (120 - 110) / 10 */
    UNSET(&s1, "", "NFSv3 Operations/sec");    /* no proc3 line (NFSv3 not built) */
    pl_snap_free(&s0);
    pl_snap_free(&s1);

    CHECK(pc_collect_tree(tree("none"), "NFS RPC Client", 0, 0, NULL, &s0) == ENOENT);
    CHECK_STR(s0.err_path, "proc/net/rpc/nfs");
    pl_snap_free(&s0);
}

/* Live: no nfs module here (ENOENT); where it is loaded, a call count. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "NFS RPC Client", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == 0)
        CHECK(get(&s, "", "RPC Calls/sec", &v) == 1);
    else
        printf("  skip: no /proc/net/rpc/nfs\n");
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_nfsrpc");
    RUN(test_parse);
    RUN(test_set);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
