/* NFS Server: the /proc/net/rpc/nfsd source's pure parser on bytes (lines
 * by tag, the op lines summed, malformed and cut lines), and the set made
 * only of rows on temporary trees (values worked out beside each check);
 * no nfsd module. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "nfsd.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A 6.x file: rc, fh, io, th, ra, net, rpc, proc3 (22 ops), proc4, proc4ops (4 here). */
static const char nfsd_text[] =
    "rc 5 100 900\n"
    "fh 2 0 0 0 0\n"
    "io 4096 8192\n"
    "th 8 0 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000\n"
    "ra 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "net 1000 10 990 3\n"
    "rpc 1000 7 1 2 4\n"
    "proc3 22 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n"
    "proc4 2 0 500\n"
    "proc4ops 4 0 100 200 300\n"
    "wdeleg_getattr 0\n";

#define OK(d, f, want) do { CHECK((d)->st[f] == PL_NS_OK); CHECK_EQ_U64((d)->v[f], want); } while (0)

static void test_parse(void)
{
    pl_nfsd d;
    CHECK(pl_parse_nfsd(nfsd_text, sizeof nfsd_text - 1, &d) == 0);
    OK(&d, PL_NFSD_RC_HITS, 5);
    OK(&d, PL_NFSD_RC_NOCACHE, 900);
    OK(&d, PL_NFSD_FH_STALE, 2);
    OK(&d, PL_NFSD_IO_WRITE, 8192);
    OK(&d, PL_NFSD_THREADS, 8);
    OK(&d, PL_NFSD_NET_TCPCONN, 3);
    OK(&d, PL_NFSD_RPC_BADCLNT, 4);
    OK(&d, PL_NFSD_V3_OPS, 231);             /* 0 + 1 + ... + 21 = 21 x 22 / 2 */
    OK(&d, PL_NFSD_V4_COMPOUNDS, 500);
    OK(&d, PL_NFSD_V4_OPS, 600);             /* 0 + 100 + 200 + 300 */

    /* fewer ops than said, garbage, a cut last line, a missing line */
    CHECK(pl_parse_nfsd("proc3 22 0 1 2\nrc 1 x 3\nio 10 20", 32, &d) == 0);
    CHECK(d.st[PL_NFSD_V3_OPS] == PL_NS_BAD);
    OK(&d, PL_NFSD_RC_HITS, 1);
    CHECK(d.st[PL_NFSD_RC_MISSES] == PL_NS_BAD);
    CHECK(d.st[PL_NFSD_IO_READ] == PL_NS_BAD);       /* cut off: not trusted */
    CHECK(d.st[PL_NFSD_THREADS] == PL_NS_ABSENT);    /* no th line */
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void test_set(void)
{
    const char *root = tree("nfsd");
    pl_snapshot s;
    CHECK(put(root, "proc/net/rpc/nfsd", nfsd_text) == 1);
    CHECK(pc_collect_tree(root, "NFS Server", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "NFSv3 Operations/sec", 231);
    EXPECT(&s, "", "NFSv4 Operations/sec", 600);
    EXPECT(&s, "", "Bytes Read/sec", 4096);
    EXPECT(&s, "", "Threads", 8);
    EXPECT(&s, "", "RPC Bad Calls/sec", 7);
    EXPECT(&s, "", "Stale File Handles", 2);
    EXPECT(&s, "", "Reply Cache Hits/sec", 5);
    pl_snap_free(&s);

    CHECK(put(root, "proc/net/rpc/nfsd", "th 4 0\n") == 1);
    CHECK(pc_collect_tree(root, "NFS Server", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "", "Threads", 4);
    UNSET(&s, "", "RPC Calls/sec");
    pl_snap_free(&s);

    CHECK(pc_collect_tree(tree("none"), "NFS Server", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/net/rpc/nfsd");
    pl_snap_free(&s);
}

/* Live: no nfsd here (ENOENT); where it runs, a thread count. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "NFS Server", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == 0)
        CHECK(get(&s, "", "Threads", &v) == 1);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_nfsd");
    RUN(test_parse);
    RUN(test_set);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
