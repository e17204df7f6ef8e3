/* ARP Cache: the /proc/net/arp source's pure parser on bytes (columns by
 * the header's names), and the set over temporary trees: entries per device
 * and in _Total, split by the Flags column (complete 0x2, permanent 0x4,
 * incomplete 0x0), malformed lines that leave _Total unset and count in no
 * device, no file.  The layout is net/ipv4/arp.c's arp_seq_show /
 * arp_format_neigh_v4 ("%-16s 0x%-10x0x%-10x%-17s     *        %s\n").
 * Expected values are worked out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "arp.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define T1 "Device  Flags  IP address\nwlan0 0x4 10.0.0.1\n"
#define T2 "IP address  HW type  Device\n10.0.0.1 0x1 eth0\n"
#define HDR "IP address       HW type     Flags       HW address            Mask     Device\n"

static const pl_arprow *row(const pl_arp *t, uint32_t n)
{
    return (const pl_arprow *)t->row + n;
}

static void test_parse(void)
{
    static const char text[] = HDR
        "192.0.2.1        0x1         0x2         02:fc:00:00:00:05     *        eth0\n"
        "192.0.2.9        0x1         0x0         00:00:00:00:00:00     *        eth0\n"
        "\n"
        "198.51.100.7     0x1         0x6         02:fc:00:00:00:07     *        br-lan\n"
        "198.51.100.8     0x1         0xzz        02:fc:00:00:00:08     *        eth1\n"
        "198.51.100.9     0x1         0x2         02:fc:00:00:00:09     *        "
        "averyverylongname\n"
        "198.51.100.10    0x1         0x2         02:fc:00:00:00:0a     *        eth";
    pl_arp t;
    memset(&t, 0, sizeof t);
    CHECK(pl_parse_arp(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 6);                        /* the header and the blank line are no rows */
    CHECK_EQ_U64(row(&t, 0)->ok, 1);
    CHECK_EQ_U64(row(&t, 0)->flags, 2);
    CHECK_STR(row(&t, 0)->dev, "eth0");
    CHECK_EQ_U64(row(&t, 1)->flags, 0);
    CHECK_EQ_U64(row(&t, 1)->ok, 1);
    CHECK_EQ_U64(row(&t, 2)->flags, 6);          /* ATF_COM | ATF_PERM */
    CHECK_STR(row(&t, 2)->dev, "br-lan");
    CHECK_EQ_U64(row(&t, 3)->ok, 0);             /* flags not hex */
    CHECK_EQ_U64(row(&t, 4)->ok, 0);             /* 17 bytes: longer than IFNAMSIZ - 1 */
    CHECK_EQ_U64(row(&t, 5)->ok, 0);             /* cut off: "eth" may be part of a name */

    /* columns by name: a layout with Device before Flags reads the right ones */
    CHECK(pl_parse_arp(T1, strlen(T1), &t) == 0);
    CHECK_EQ_U64(t.n, 1);
    CHECK_EQ_U64(row(&t, 0)->flags, 4);
    CHECK_STR(row(&t, 0)->dev, "wlan0");
    /* a header without Flags: no rows, never a value from another column */
    CHECK(pl_parse_arp(T2, strlen(T2), &t) == 0);
    CHECK_EQ_U64(t.n, 0);
    CHECK(pl_parse_arp("", 0, &t) == 0);
    CHECK_EQ_U64(t.n, 0);
    pl_rows_release(&t);
}

static const char *tree(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    return root;
}

static void test_set(void)
{
    const char *root = tree("set");
    pl_snapshot s;
    CHECK(put(root, "proc/net/arp", HDR
              "192.0.2.1        0x1         0x2         02:fc:00:00:00:05     *        eth0\n"
              "192.0.2.2        0x1         0x2         02:fc:00:00:00:06     *        eth0\n"
              "192.0.2.3        0x1         0x0         00:00:00:00:00:00     *        eth0\n"
              "198.51.100.7     0x1         0x6         02:fc:00:00:00:07     *        br0\n") == 1);
    CHECK(pc_collect_tree(root, "ARP Cache", 0, 0, NULL, &s) == 0);
    {
        static const uint32_t ids[] = { 0, 1, 0xFFFFFFFEu };
        INSTS(&s, ids, "eth0", "br0", "_Total");
    }
    EXPECT(&s, "eth0", "Entries", 3);            /* three eth0 lines */
    EXPECT(&s, "eth0", "Complete Entries", 2);   /* 0x2, 0x2 */
    EXPECT(&s, "eth0", "Permanent Entries", 0);
    EXPECT(&s, "eth0", "Incomplete Entries", 1); /* 0x0 */
    EXPECT(&s, "br0", "Entries", 1);
    EXPECT(&s, "br0", "Complete Entries", 1);    /* 0x6 has ATF_COM */
    EXPECT(&s, "br0", "Permanent Entries", 1);   /* and ATF_PERM */
    EXPECT(&s, "br0", "Incomplete Entries", 0);
    EXPECT(&s, "_Total", "Entries", 4);          /* 3 + 1 */
    EXPECT(&s, "_Total", "Complete Entries", 3); /* 2 + 1 */
    EXPECT(&s, "_Total", "Permanent Entries", 1);
    EXPECT(&s, "_Total", "Incomplete Entries", 1);
    pl_snap_free(&s);

    /* a malformed line: counted in no device, _Total unset */
    CHECK(put(root, "proc/net/arp", HDR
              "192.0.2.1        0x1         0x2         02:fc:00:00:00:05     *        eth0\n"
              "192.0.2.2        0x1         2           02:fc:00:00:00:06     *        eth1\n") == 1);
    CHECK(pc_collect_tree(root, "ARP Cache", 0, 0, NULL, &s) == 0);
    NAMES(&s, "eth0", "_Total");
    EXPECT(&s, "eth0", "Entries", 1);
    UNSET(&s, "_Total", "Entries");
    pl_snap_free(&s);

    /* the header alone (an empty cache): _Total with zeros */
    CHECK(put(root, "proc/net/arp", HDR) == 1);
    CHECK(pc_collect_tree(root, "ARP Cache", 0, 0, NULL, &s) == 0);
    NAMES(&s, "_Total");
    EXPECT(&s, "_Total", "Entries", 0);
    pl_snap_free(&s);

    /* no file (no IPv4): the set fails with the errno and the path */
    CHECK(pc_collect_tree(tmp("none"), "ARP Cache", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/net/arp");
    pl_snap_free(&s);
}

/* Ids stay with their device across collects while the state lives. */
static void test_ids_kept(void)
{
    const char *root = tree("ids");
    pctx p;
    pl_snapshot s;
    memset(&s, 0, sizeof s);
    CHECK(put(root, "proc/net/arp", HDR
              "192.0.2.1        0x1         0x2         02:fc:00:00:00:05     *        eth0\n"
              "192.0.2.2        0x1         0x2         02:fc:00:00:00:06     *        eth1\n") == 1);
    CHECK(pc_open_set(&p, root, "ARP Cache", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK(put(root, "proc/net/arp", HDR
              "192.0.2.2        0x1         0x4         02:fc:00:00:00:06     *        eth1\n") == 1);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    {
        static const uint32_t ids[] = { 1, 0xFFFFFFFEu };
        INSTS(&s, ids, "eth1", "_Total");
    }
    EXPECT(&s, "eth1", "Permanent Entries", 1);
    EXPECT(&s, "eth1", "Incomplete Entries", 1); /* 0x4 without ATF_COM */
    pl_snap_free(&s);
    pc_close(&p);
}

/* Live: /proc/net/arp exists wherever IPv4 does; skip where it does not. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "ARP Cache", 0, 0, NULL, &s);
    if (e == ENOENT) {
        printf("# skip: no /proc/net/arp\n");
        pl_snap_free(&s);
        return;
    }
    CHECK(e == 0);
    CHECK(inst_of(&s, "_Total") >= 0);
    CHECK(get(&s, "_Total", "Entries", &v) == 1);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_arp");
    RUN(test_parse);
    RUN(test_set);
    RUN(test_ids_kept);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
