/* IPVS Backend: the /proc/net/ip_vs source's pure parser on bytes and the
 * set over temporary trees.  The layout is net/netfilter/ipvs/ip_vs_ctl.c
 * ip_vs_info_seq_show (2.6.28 to 6.x): the three header lines, service
 * lines "%s  %08X:%04X %s %s " (IPv6 "%s  [%pI6]:%04X %s ", firewall marks
 * "FWM  %08X %s %s") and real server lines
 * "  -> %08X:%04X      %-7s %-6d %-10d %-10d\n".  Expected values are
 * worked out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "ipvsdest.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define HDR "IP Virtual Server version 1.2.1 (size=4096)\n" \
            "Prot LocalAddress:Port Scheduler Flags\n" \
            "  -> RemoteAddress:Port Forward Weight ActiveConn InActConn\n"
/* 0A000001 = 10.0.0.1, 0050 = 80; 0A000002 = 10.0.0.2; 0A000003 = 10.0.0.3 */
#define SVC1 "TCP  0A000001:0050 rr  \n" \
             "  -> 0A000002:0050      Masq    1      0          0         \n" \
             "  -> 0A000003:0050      Route   3      12         4         \n"
/* 0035 = 53; %pI6 prints all eight groups with their zeros */
#define SVC6 "UDP  [2001:0db8:0000:0000:0000:0000:0000:0001]:0035 wlc persistent 300 FFFFFFFF\n" \
             "  -> [2001:0db8:0000:0000:0000:0000:0000:0002]:0035      Tunnel  2      0" \
             "          7         \n"
/* 0000002A = mark 42; C0A80A0B = 192.168.10.11, 1F90 = 8080 */
#define FWM "FWM  0000002A sh ops \n" \
            "  -> C0A80A0B:1F90      Local   0      1          65536     \n"

static const pl_ipvsrow *row(const pl_ipvs_dests *t, uint32_t n)
{
    return (const pl_ipvsrow *)t->row + n;
}

static void name_of(const pl_ipvs_dests *t, uint32_t n, char *buf)
{
    pl_ipvs_key_name(&row(t, n)->key, buf);
}

static void test_parse(void)
{
    static const char text[] = HDR SVC1 SVC6 FWM;
    char name[PL_IPVS_NAME];
    pl_ipvs_dests t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_ipvs_dests(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 4);                        /* the four "->" lines */
    for (uint32_t i = 0; i < t.n; i++)
        CHECK_EQ_U64(row(&t, i)->ok, 1);
    name_of(&t, 0, name);
    CHECK_STR(name, "TCP 10.0.0.1:80 -> 10.0.0.2:80");
    CHECK_EQ_U64(row(&t, 0)->vals.v[PL_IPVSD_WEIGHT], 1);
    CHECK_EQ_U64(row(&t, 0)->vals.v[PL_IPVSD_ACTIVE], 0);
    CHECK_EQ_U64(row(&t, 0)->vals.v[PL_IPVSD_INACTIVE], 0);
    CHECK(row(&t, 0)->vals.st[PL_IPVSD_INACTIVE] == PL_NS_OK);
    name_of(&t, 1, name);
    CHECK_STR(name, "TCP 10.0.0.1:80 -> 10.0.0.3:80");
    CHECK_EQ_U64(row(&t, 1)->vals.v[PL_IPVSD_WEIGHT], 3);
    CHECK_EQ_U64(row(&t, 1)->vals.v[PL_IPVSD_ACTIVE], 12);
    CHECK_EQ_U64(row(&t, 1)->vals.v[PL_IPVSD_INACTIVE], 4);
    name_of(&t, 2, name);
    CHECK_STR(name, "UDP [2001:db8::1]:53 -> [2001:db8::2]:53");
    CHECK_EQ_U64(row(&t, 2)->vals.v[PL_IPVSD_INACTIVE], 7);
    name_of(&t, 3, name);
    CHECK_STR(name, "FWM 42 -> 192.168.10.11:8080");
    CHECK_EQ_U64(row(&t, 3)->vals.v[PL_IPVSD_ACTIVE], 1);
    CHECK_EQ_U64(row(&t, 3)->vals.v[PL_IPVSD_INACTIVE], 65536);

    /* a server of another family than its service (3.18+ tunnels) */
    {
        static const char mix[] = HDR "TCP  0A000001:0050 rr  \n"
            "  -> [0000:0000:0000:0000:0000:ffff:0a00:0002]:0050      Tunnel  1      0          0\n";
        CHECK(pl_parse_ipvs_dests(mix, sizeof mix - 1, &t) == 0 && t.n == 1 && row(&t, 0)->ok);
        name_of(&t, 0, name);
        CHECK_STR(name, "TCP 10.0.0.1:80 -> [::ffff:10.0.0.2]:80");
    }
    pl_rows_release(&t);
}

static void test_bad(void)
{
    pl_ipvs_dests t;
    memset(&t, 0, sizeof t);
    /* a malformed service line: its servers have no key, the next service's do */
    static const char badsvc[] = HDR "TCP  0A00001:0050 rr  \n"                 /* 7 digits */
        "  -> 0A000002:0050      Masq    1      0          0\n"
        "TCP  0A000001:0050 rr  \n"
        "  -> 0A000002:0050      Masq    1      0          0\n";
    CHECK(pl_parse_ipvs_dests(badsvc, sizeof badsvc - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 2);
    CHECK_EQ_U64(row(&t, 0)->ok, 0);
    CHECK_EQ_U64(row(&t, 1)->ok, 1);
    /* a field short, a field more, a port of 3 digits, no brackets, a cut line */
    static const char badrow[] = HDR SVC1
        "  -> 0A000002:0050      Masq    1      0\n"
        "  -> 0A000002:0050      Masq    1      0          0          9\n"
        "  -> 0A000002:050      Masq    1      0          0\n"
        "  -> 2001:0db8:0000:0000:0000:0000:0000:0002:0050      Masq    1      0          0\n"
        "  -> 0A000004:0050      Masq    1      0          1";
    CHECK(pl_parse_ipvs_dests(badrow, sizeof badrow - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 7);                        /* SVC1's two and five bad ones */
    CHECK_EQ_U64(row(&t, 1)->ok, 1);
    for (uint32_t i = 2; i < 7; i++)
        CHECK_EQ_U64(row(&t, i)->ok, 0);
    /* a control byte or a '\0' inside a line: that line has no key; a '\0' in
     * a service line takes its servers' keys too */
    static const char ctl[] = HDR SVC1 "  -> 0A000004:0050\001     Masq    1      0          0\n"
        "  -> 0A000005:0050      Masq    1      0     \0    0\n"
        "TCP  0A000001:0051 rr \0\n  -> 0A000002:0050      Masq    1      0          0\n";
    CHECK(pl_parse_ipvs_dests(ctl, sizeof ctl - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 5);                        /* SVC1's two, then three of no key */
    CHECK_EQ_U64(row(&t, 1)->ok, 1);
    CHECK_EQ_U64(row(&t, 2)->ok + row(&t, 3)->ok + row(&t, 4)->ok, 0);
    /* a negative or non-decimal count is bad alone, the others kept */
    static const char badval[] = HDR SVC1 "  -> 0A000004:0050      Masq    -1     x1         5\n";
    CHECK(pl_parse_ipvs_dests(badval, sizeof badval - 1, &t) == 0 && t.n == 3 && row(&t, 2)->ok);
    CHECK(row(&t, 2)->vals.st[PL_IPVSD_WEIGHT] == PL_NS_BAD);
    CHECK(row(&t, 2)->vals.st[PL_IPVSD_ACTIVE] == PL_NS_BAD);
    CHECK(row(&t, 2)->vals.st[PL_IPVSD_INACTIVE] == PL_NS_OK);
    CHECK_EQ_U64(row(&t, 2)->vals.v[PL_IPVSD_INACTIVE], 5);
    /* columns by the header's names: InActConn before Weight reads the right ones */
    static const char moved[] = "IP Virtual Server version 1.2.1 (size=4096)\n"
        "Prot LocalAddress:Port Scheduler Flags\n"
        "  -> RemoteAddress:Port Forward InActConn ActiveConn Weight\n"
        "TCP  0A000001:0050 rr  \n  -> 0A000002:0050      Masq    9      8          7\n";
    CHECK(pl_parse_ipvs_dests(moved, sizeof moved - 1, &t) == 0 && t.n == 1);
    CHECK_EQ_U64(row(&t, 0)->vals.v[PL_IPVSD_INACTIVE], 9);
    CHECK_EQ_U64(row(&t, 0)->vals.v[PL_IPVSD_WEIGHT], 7);
    /* another file, a header without Weight, the headers alone, nothing: no rows */
    static const char *const none[] = {
        "   Total Incoming Outgoing         Incoming         Outgoing\n" SVC1,  /* ip_vs_stats */
        "IP Virtual Server version 1.2.1 (size=4096)\nProt LocalAddress:Port Scheduler Flags\n"
        "  -> RemoteAddress:Port Forward ActiveConn InActConn\n" SVC1,
        HDR, "",
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        CHECK(pl_parse_ipvs_dests(none[i], strlen(none[i]), &t) == 0);
        CHECK_EQ_U64(t.n, 0);
    }
    pl_rows_release(&t);
}

static const char *tree(const char *name, const char *text)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/net/ip_vs", text) == 1);
    return root;
}

static void test_set(void)
{
    const char *root = tree("set", HDR SVC1 SVC6 FWM);
    pl_snapshot s;
    CHECK(pc_collect_tree(root, "IPVS Backend", 0, 0, NULL, &s) == 0);
    {
        static const uint32_t ids[] = { 0, 1, 2, 3 };
        INSTS(&s, ids, "TCP 10.0.0.1:80 -> 10.0.0.2:80", "TCP 10.0.0.1:80 -> 10.0.0.3:80",
              "UDP [2001:db8::1]:53 -> [2001:db8::2]:53", "FWM 42 -> 192.168.10.11:8080");
    }
    EXPECT(&s, "TCP 10.0.0.1:80 -> 10.0.0.3:80", "Weight", 3);
    EXPECT(&s, "TCP 10.0.0.1:80 -> 10.0.0.3:80", "Active Connections", 12);
    EXPECT(&s, "TCP 10.0.0.1:80 -> 10.0.0.3:80", "Inactive Connections", 4);
    EXPECT(&s, "UDP [2001:db8::1]:53 -> [2001:db8::2]:53", "Weight", 2);
    EXPECT(&s, "UDP [2001:db8::1]:53 -> [2001:db8::2]:53", "Inactive Connections", 7);
    EXPECT(&s, "FWM 42 -> 192.168.10.11:8080", "Weight", 0);     /* quiesced */
    EXPECT(&s, "FWM 42 -> 192.168.10.11:8080", "Inactive Connections", 65536);
    pl_snap_free(&s);

    /* a bad count: that counter unset, the instance and its others kept */
    CHECK(put(root, "proc/net/ip_vs", HDR "TCP  0A000001:0050 rr  \n"
              "  -> 0A000002:0050      Masq    1      -3         2\n") == 1);
    CHECK(pc_collect_tree(root, "IPVS Backend", 0, 0, NULL, &s) == 0);
    NAMES(&s, "TCP 10.0.0.1:80 -> 10.0.0.2:80");
    UNSET(&s, "TCP 10.0.0.1:80 -> 10.0.0.2:80", "Active Connections");
    EXPECT(&s, "TCP 10.0.0.1:80 -> 10.0.0.2:80", "Inactive Connections", 2);
    pl_snap_free(&s);

    /* services without servers: no instances */
    CHECK(put(root, "proc/net/ip_vs", HDR "TCP  0A000001:0050 rr  \n") == 1);
    CHECK(pc_collect_tree(root, "IPVS Backend", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);

    /* no ip_vs module: ENOENT with the file, as the IPVS set */
    CHECK(pc_collect_tree(tmp("none"), "IPVS Backend", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/net/ip_vs");
    pl_snap_free(&s);
}

/* Ids stay with their backend while it is listed; a slot unlisted for a
 * whole read goes to a new backend; one back after a read keeps its id. */
static void test_ids(void)
{
    const char *root = tree("ids", HDR SVC1);
    pctx p;
    pl_snapshot s;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, root, "IPVS Backend", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);                      /* .2 -> 0, .3 -> 1 */
    CHECK(put(root, "proc/net/ip_vs", HDR "TCP  0A000001:0050 rr  \n"
              "  -> 0A000003:0050      Route   3      12         4\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);                      /* .2 gone this read */
    {
        static const uint32_t ids[] = { 1 };
        INSTS(&s, ids, "TCP 10.0.0.1:80 -> 10.0.0.3:80");
    }
    CHECK(put(root, "proc/net/ip_vs", HDR "TCP  0A000001:0050 rr  \n"
              "  -> 0A000005:0050      Route   3      12         4\n"
              "  -> 0A000003:0050      Route   3      12         4\n"
              "  -> 0A000002:0050      Route   3      12         4\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    {
        /* .2 was unlisted in the last read: its slot 0 went to .5, the first
         * new key; .2 then gets a new slot, 2 */
        static const uint32_t ids[] = { 0, 1, 2 };
        INSTS(&s, ids, "TCP 10.0.0.1:80 -> 10.0.0.5:80", "TCP 10.0.0.1:80 -> 10.0.0.3:80",
              "TCP 10.0.0.1:80 -> 10.0.0.2:80");
    }
    pl_snap_free(&s);
    pc_close(&p);
}

/* Many backends: every one an instance with its own values (the hash's
 * growth and probing), ids in order of first sight. */
static void test_many(void)
{
    static char text[600 * 64 + 256];
    size_t n = (size_t)snprintf(text, sizeof text, "%s", HDR "TCP  0A000001:0050 rr  \n");
    const char *root;
    pl_snapshot s;
    for (unsigned i = 0; i < 600; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "  -> 0A01%04X:0050      Masq    1      %-10u 0         \n", i, i);
    root = tree("many", text);
    CHECK(pc_collect_tree(root, "IPVS Backend", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 600);
    /* 0A01%04X with i = 599 = 0x0257: 10.1.2.87 */
    EXPECT(&s, "TCP 10.0.0.1:80 -> 10.1.2.87:80", "Active Connections", 599);
    CHECK_EQ_U64(s.inst[599].id, 599);
    pl_snap_free(&s);
}

/* Live: ENOENT without the ip_vs module (this VM); else the table's servers. */
static void test_live(void)
{
    pl_snapshot s;
    int e = pc_collect_tree("/", "IPVS Backend", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == ENOENT) {
        CHECK(access("/proc/net/ip_vs", F_OK) != 0);
        printf("# skip: no /proc/net/ip_vs (no ip_vs module)\n");
    }
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_ipvsdest");
    RUN(test_parse);
    RUN(test_bad);
    RUN(test_set);
    RUN(test_ids);
    RUN(test_many);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
