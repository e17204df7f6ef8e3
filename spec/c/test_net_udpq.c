/* UDP Queues: /proc/net/udp and udp6 walked into queue totals, against the
 * net-udpq fixture (lines in the kernel's formats: net/ipv4/udp.c
 * udp4_format_sock, padded to 127 columns, and net/ipv6/datagram.c
 * __ip6_dgram_sock_seq_show), temporary trees with old, broken and
 * missing tables, and live sockets of this test.  Run from the repository
 * root. */
#include "perflib.h"
#include "pl_provider.h"
#include "udpq.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FX "spec/fixtures/"
#define TOTAL_ID 0xFFFFFFFEu

static int collect_tree(const char *root, pl_snapshot *s)
{
    return pc_collect_tree(root, "UDP Queues", 0, 0, NULL, s);
}

static const char HDR4[] = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
                           "retrnsmt   uid  timeout inode ref pointer drops            \n";

static void test_fixture(void)
{
    pl_snapshot s;
    static const uint32_t ids[] = {0, 1, TOTAL_ID};
    CHECK_EQ_U64(collect_tree(FX "net-udpq", &s), 0);
    INSTS(&s, ids, "IPv4", "IPv6", "_Total");
    /* udp: rx 0xA00 = 2560, 0x40000 = 262144, 0; tx 0, 0x340 = 832, 0;
     * drops 0, 17, 3 */
    EXPECT(&s, "IPv4", "Sockets", 3);
    EXPECT(&s, "IPv4", "Receive Queue Bytes", 264704);      /* 2560 + 262144 */
    EXPECT(&s, "IPv4", "Send Queue Bytes", 832);
    EXPECT(&s, "IPv4", "Sockets With Receive Queue", 2);
    EXPECT(&s, "IPv4", "Largest Receive Queue Bytes", 262144);
    EXPECT(&s, "IPv4", "Drops", 20);                        /* 0 + 17 + 3 */
    /* udp6: rx 0x1000 = 4096, 0; tx 0x100 = 256, 0; drops 5, 0 */
    EXPECT(&s, "IPv6", "Sockets", 2);
    EXPECT(&s, "IPv6", "Receive Queue Bytes", 4096);
    EXPECT(&s, "IPv6", "Send Queue Bytes", 256);
    EXPECT(&s, "IPv6", "Sockets With Receive Queue", 1);
    EXPECT(&s, "IPv6", "Largest Receive Queue Bytes", 4096);
    EXPECT(&s, "IPv6", "Drops", 5);
    EXPECT(&s, "_Total", "Sockets", 5);
    EXPECT(&s, "_Total", "Receive Queue Bytes", 268800);    /* 264704 + 4096 */
    EXPECT(&s, "_Total", "Send Queue Bytes", 1088);         /* 832 + 256 */
    EXPECT(&s, "_Total", "Sockets With Receive Queue", 3);
    EXPECT(&s, "_Total", "Largest Receive Queue Bytes", 262144);   /* the larger, not a sum */
    EXPECT(&s, "_Total", "Drops", 25);
    pl_snap_free(&s);
}

static void test_broken(void)
{
    char dir[] = "/tmp/pl-udpq-XXXXXX", empty[] = "/tmp/pl-udpq-XXXXXX";
    pl_snapshot s;
    char text[1024];
    CHECK(mkdtemp(dir) != NULL);
    /* a 2.6.26 table: no drops column (the header ends at "ref pointer");
     * no udp6 (IPv6 disabled): IPv4 and _Total only */
    CHECK(put(dir, "proc/net/udp",
              "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
              "timeout inode ref pointer\n"
              "   7: 0100007F:0035 00000000:0000 07 00000010:00000020 00:00000000 00000000     0  "
              "      0 1234 2 ffff880012345678\n"));
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    NAMES(&s, "IPv4", "_Total");
    EXPECT(&s, "IPv4", "Receive Queue Bytes", 32);          /* 0x20 */
    EXPECT(&s, "IPv4", "Send Queue Bytes", 16);             /* 0x10 */
    UNSET(&s, "IPv4", "Drops");
    UNSET(&s, "_Total", "Drops");
    EXPECT(&s, "_Total", "Sockets", 1);
    pl_snap_free(&s);
    /* a line whose queues are not hex, one cut short: the table's values
     * are unset, the other table's stay */
    snprintf(text, sizeof text, "%s   1: 0100007F:0035 00000000:0000 07 0000001G:00000020 00:00000000 "
             "00000000     0        0 1 2 0000000000000000 0\n", HDR4);
    CHECK(put(dir, "proc/net/udp", text));
    CHECK(put(dir, "proc/net/udp6",
              "  sl  local_address                         remote_address                        st "
              "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
              "    1: 00000000000000000000000001000000:0222 00000000000000000000000000000000:0000 07 "
              "00000000:00000300 00:00000000 00000000     0        0 9 2 0000000000000000 4\n"));
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    UNSET(&s, "IPv4", "Sockets");
    UNSET(&s, "IPv4", "Receive Queue Bytes");
    EXPECT(&s, "IPv6", "Receive Queue Bytes", 768);         /* 0x300 */
    EXPECT(&s, "IPv6", "Drops", 4);
    UNSET(&s, "_Total", "Receive Queue Bytes");             /* part of it unknown */
    pl_snap_free(&s);
    snprintf(text, sizeof text, "%s   1: 0100007F:0035 00000000:0000 07 00000010:00000020\n", HDR4);
    CHECK(put(dir, "proc/net/udp", text));
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    UNSET(&s, "IPv4", "Sockets");
    /* a drops value past 32 bits: malformed */
    snprintf(text, sizeof text, "%s   1: 0100007F:0035 00000000:0000 07 00000010:00000020 00:00000000 "
             "00000000     0        0 1 2 0000000000000000 12345678901\n", HDR4);
    CHECK(put(dir, "proc/net/udp", text));
    pl_snap_free(&s);
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    UNSET(&s, "IPv4", "Drops");
    pl_snap_free(&s);
    /* a header only: no sockets, every sum 0 */
    CHECK(put(dir, "proc/net/udp", HDR4));
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    EXPECT(&s, "IPv4", "Sockets", 0);
    EXPECT(&s, "IPv4", "Receive Queue Bytes", 0);
    EXPECT(&s, "IPv4", "Largest Receive Queue Bytes", 0);
    pl_snap_free(&s);
    /* not the table at all: the instance goes; both gone: the set fails */
    CHECK(put(dir, "proc/net/udp", "Ip: 1 2 3\n"));
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    NAMES(&s, "IPv6", "_Total");
    pl_snap_free(&s);
    rm_tree(dir);
    CHECK(mkdtemp(empty) != NULL);
    CHECK_EQ_U64(collect_tree(empty, &s), ENOENT);
    CHECK(s.err_path && strstr(s.err_path, "proc/net/udp") != NULL);
    pl_snap_free(&s);
    rm_tree(empty);
}

/* The pure parser on raw bytes, the fuzz target's entry. */
static void test_parser(void)
{
    pl_udpq u;
    CHECK_EQ_U64(pl_parse_udpq("", 0, &u), EINVAL);
    CHECK_EQ_U64(pl_parse_udpq("tx_queue rx_queue", 17, &u), EINVAL);      /* no '\n' */
    CHECK_EQ_U64(pl_parse_udpq(HDR4, sizeof HDR4 - 1, &u), 0);
    CHECK(u.st[PL_UQ_DROPS] == PL_NS_OK && u.v[PL_UQ_SOCKETS] == 0);
}

/* Live: sockets of this test with datagrams left unread. */
static void test_live(void)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
    pl_snapshot s;
    uint64_t v;
    CHECK(rx >= 0 && tx >= 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(rx, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(getsockname(rx, (struct sockaddr *)&a, &al) == 0);
    for (int i = 0; i < 3; i++)
        CHECK(sendto(tx, "hello", 5, 0, (struct sockaddr *)&a, sizeof a) == 5);
    CHECK_EQ_U64(collect_tree("/", &s), 0);
    CHECK(get(&s, "IPv4", "Sockets", &v) && v >= 2);
    /* 3 datagrams queued: each charges its skb's truesize, far above 5 bytes */
    CHECK(get(&s, "IPv4", "Receive Queue Bytes", &v) && v >= 15);
    CHECK(get(&s, "IPv4", "Sockets With Receive Queue", &v) && v >= 1);
    CHECK(get(&s, "_Total", "Sockets", &v) && v >= 2);
    pl_snap_free(&s);
    close(rx);
    close(tx);
}

int main(void)
{
    RUN(test_fixture);
    RUN(test_broken);
    RUN(test_parser);
    RUN(test_live);
    return CT_END();
}
