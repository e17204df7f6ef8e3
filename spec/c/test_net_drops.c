/* Network saturation and drops (issue 17, item 2): TCPv4's TcpExt counters,
 * UDPLitev4/v6, Network Interface's carrier, duplex and flags, against the
 * net-* fixture trees (net-basic2 is net-basic 10 s later) and temporary
 * trees.  Expected values are worked out by hand; the arithmetic is in the
 * comments.  Run from the repository root. */
#include "perflib.h"
#include "pl_provider.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX "spec/fixtures/"

static int collect_tree(const char *root, const char *set, pl_snapshot *s)
{
    return pc_collect_tree(root, set, 0, 4096, NULL, s);
}

/* ---- TCPv4: TcpExt ---------------------------------------------------------------- */

static void test_tcpext_rates(void)
{
    /* net-basic2 has every new TcpExt value 100 above net-basic's: 100 / 10 s */
    static const char *const rates[] = {
        "SYN Cookies Sent/sec", "SYN Cookies Received/sec", "Receive Queue Prunes/sec",
        "Lost Retransmits/sec", "Fast Retransmits/sec", "Slow Start Retransmits/sec",
        "Out-of-Order Queued/sec",
    };
    pl_snapshot s0, s1;
    CHECK_EQ_U64(collect_tree(FX "net-basic", "TCPv4", &s0), 0);
    CHECK_EQ_U64(collect_tree(FX "net-basic2", "TCPv4", &s1), 0);
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++)
        CHECK_NEAR(val2(&s0, &s1, "", rates[k]), 10.0, 1e-9);
    /* TW: 13 in both files: 0 / 10 s */
    CHECK_NEAR(val2(&s0, &s1, "", "Time Wait Finished/sec"), 0.0, 1e-9);
    /* counts since boot are the raw value: 48 + 100 = 148 is FastRetrans,
     * OFODrop 59 + 100 = 159 */
    EXPECT(&s1, "", "Out-of-Order Drops", 159);
    EXPECT(&s1, "", "Receive Queue Drops", 161);     /* 61 + 100 */
    EXPECT(&s1, "", "Listen Overflows", 31);         /* unchanged, the old row */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

/* An older kernel's TcpExt without TCPZeroWindowDrop, TCPRcvQDrop and
 * others, one key with a negative and one with a garbage value: only those
 * counters are unset. */
static void test_tcpext_old(void)
{
    char dir[] = "/tmp/pl-netdrops-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/net/snmp", "Tcp: ActiveOpens CurrEstab\nTcp: 5 2\n"));
    CHECK(put(dir, "proc/net/netstat",
              "TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed TW ListenOverflows "
              "ListenDrops TCPBacklogDrop TCPOFODrop TCPAbortOnMemory\n"
              "TcpExt: 7 -1 x9 4 100 120 3 2 1\n"
              "IpExt: InOctets OutOctets\nIpExt: 1 2\n"));
    CHECK_EQ_U64(collect_tree(dir, "TCPv4", &s), 0);
    EXPECT(&s, "", "SYN Cookies Sent/sec", 7);
    UNSET(&s, "", "SYN Cookies Received/sec");       /* -1 */
    UNSET(&s, "", "SYN Cookies Failed");             /* x9 */
    EXPECT(&s, "", "Time Wait Finished/sec", 4);
    EXPECT(&s, "", "Listen Drops", 120);
    EXPECT(&s, "", "Backlog Drops", 3);
    EXPECT(&s, "", "Out-of-Order Drops", 2);
    EXPECT(&s, "", "Aborts On Memory", 1);
    UNSET(&s, "", "Zero Window Drops");
    UNSET(&s, "", "Receive Queue Drops");
    UNSET(&s, "", "Memory Pressures");
    EXPECT(&s, "", "Connections Active", 5);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* ---- UDPLitev4 / UDPLitev6 ------------------------------------------------------- */

static void test_udplite(void)
{
    /* UdpLite: InDatagrams 31 NoPorts 5 InErrors 1 OutDatagrams 33
     * RcvbufErrors 2 SndbufErrors 3 InCsumErrors 4 IgnoredMulti 6 MemErrors 7;
     * the Udp pair before it is not read (Udp InDatagrams is 67) */
    static const uint64_t lite4[] = {31 + 33, 31, 5, 1, 33, 2, 3, 4, 6, 7};
    /* UdpLite6InDatagrams 77 NoPorts 1 InErrors 2 OutDatagrams 78 Rcvbuf 3
     * Sndbuf 4 InCsum 5 MemErrors 6; no UdpLite6IgnoredMulti line, as on
     * this VM's 6.18 kernel */
    static const uint64_t lite6[] = {77 + 78, 77, 1, 2, 78, 3, 4, 5, UINT64_MAX, 6};
    static const char *const trees[] = {FX "net-basic", FX "net-newkernel"};
    for (int t = 0; t < 2; t++) {
        pl_snapshot s4, s6;
        CHECK_EQ_U64(collect_tree(trees[t], "UDPLitev4", &s4), 0);
        CHECK_EQ_U64(collect_tree(trees[t], "UDPLitev6", &s6), 0);
        CHECK_EQ_U64(s4.ninst, 1);
        CHECK_EQ_U64(s6.ninst, 1);
        for (uint32_t c = 0; c < 10 && s4.ninst == 1 && s6.ninst == 1; c++) {
            CHECK(s4.have[c] && s4.values[c] == lite4[c]);
            if (lite6[c] == UINT64_MAX)
                CHECK(!s6.have[c]);
            else
                CHECK(s6.have[c] && s6.values[c] == lite6[c]);
        }
        pl_snap_free(&s4);
        pl_snap_free(&s6);
    }
}

static void test_udplite_rates_and_absent(void)
{
    pl_snapshot s0, s1, s;
    /* net-basic2: UdpLite InDatagrams 131, OutDatagrams 233:
     * (131 - 31 + 233 - 33) / 10 s = 30; UdpLite6InDatagrams 127:
     * (127 - 77) / 10 = 5 */
    CHECK_EQ_U64(collect_tree(FX "net-basic", "UDPLitev4", &s0), 0);
    CHECK_EQ_U64(collect_tree(FX "net-basic2", "UDPLitev4", &s1), 0);
    CHECK_NEAR(val2(&s0, &s1, "", "Datagrams/sec"), 30.0, 1e-9);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    CHECK_EQ_U64(collect_tree(FX "net-basic", "UDPLitev6", &s0), 0);
    CHECK_EQ_U64(collect_tree(FX "net-basic2", "UDPLitev6", &s1), 0);
    CHECK_NEAR(val2(&s0, &s1, "", "Datagrams Received/sec"), 5.0, 1e-9);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    /* an old kernel's snmp without the UdpLite pair: the set answers, every
     * counter no data */
    CHECK_EQ_U64(collect_tree(FX "net-old-kernel", "UDPLitev4", &s), 0);
    CHECK_EQ_U64(s.ninst, 1);
    for (uint32_t c = 0; c < s.cs->ncounters; c++)
        CHECK(!s.have[c]);
    pl_snap_free(&s);
    /* IPv6 disabled: no snmp6, the v6 set fails with its path */
    CHECK_EQ_U64(collect_tree(FX "net-nov6", "UDPLitev6", &s), ENOENT);
    CHECK_STR(s.err_path, "proc/net/snmp6");
    pl_snap_free(&s);
    /* an empty snmp fails UDPLitev4 as it fails UDPv4 */
    CHECK_EQ_U64(collect_tree(FX "net-broken-empty", "UDPLitev4", &s), EINVAL);
    CHECK_STR(s.err_path, "proc/net/snmp");
    pl_snap_free(&s);
}

/* ---- Network Interface: carrier, duplex, flags -------------------------------------- */

static const char NETDEV[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo: 100 1 0 0 0 0 0 0 100 1 0 0 0 0 0 0\n"
    "  eth0: 200 2 0 0 0 0 0 0 300 3 0 0 0 0 0 0\n"
    "  eth1: 200 2 0 0 0 0 0 0 300 3 0 0 0 0 0 0\n"
    "  bad0: 200 2 0 0 0 0 0 0 300 3 0 0 0 0 0 0\n";

static void test_link_flags(void)
{
    char dir[] = "/tmp/pl-netdrops-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/net/dev", NETDEV));
    /* lo as the kernel shows it: carrier 1, duplex unreadable (no file
     * here), flags 0x9 = IFF_UP | IFF_LOOPBACK */
    CHECK(put(dir, "sys/class/net/lo/type", "772\n"));
    CHECK(put(dir, "sys/class/net/lo/carrier", "1\n"));
    CHECK(put(dir, "sys/class/net/lo/flags", "0x9\n"));
    /* eth0 up, full duplex, flags 0x1003 = UP | BROADCAST | MULTICAST */
    CHECK(put(dir, "sys/class/net/eth0/carrier", "1\n"));
    CHECK(put(dir, "sys/class/net/eth0/duplex", "full\n"));
    CHECK(put(dir, "sys/class/net/eth0/flags", "0x1003\n"));
    /* eth1 without carrier, half duplex, promiscuous: 0x1103 */
    CHECK(put(dir, "sys/class/net/eth1/carrier", "0\n"));
    CHECK(put(dir, "sys/class/net/eth1/duplex", "half\n"));
    CHECK(put(dir, "sys/class/net/eth1/flags", "0x1103\n"));
    /* bad0: duplex unknown, a carrier of 2 and flags not in hex: no data */
    CHECK(put(dir, "sys/class/net/bad0/carrier", "2\n"));
    CHECK(put(dir, "sys/class/net/bad0/duplex", "unknown\n"));
    CHECK(put(dir, "sys/class/net/bad0/flags", "4099\n"));
    CHECK_EQ_U64(collect_tree(dir, "Network Interface", &s), 0);
    EXPECT(&s, "lo", "Carrier", 1);
    UNSET(&s, "lo", "Duplex");
    EXPECT(&s, "lo", "Interface Flags", 9);
    EXPECT(&s, "eth0", "Carrier", 1);
    EXPECT(&s, "eth0", "Duplex", 2);
    EXPECT(&s, "eth0", "Interface Flags", 4099);     /* 0x1003 = 4096 + 3 */
    EXPECT(&s, "eth1", "Carrier", 0);
    EXPECT(&s, "eth1", "Duplex", 1);
    EXPECT(&s, "eth1", "Interface Flags", 4355);     /* 0x1103 = 4096 + 256 + 3 */
    UNSET(&s, "bad0", "Carrier");
    UNSET(&s, "bad0", "Duplex");
    UNSET(&s, "bad0", "Interface Flags");
    /* states have no total */
    UNSET(&s, "_Total", "Carrier");
    UNSET(&s, "_Total", "Duplex");
    UNSET(&s, "_Total", "Interface Flags");
    EXPECT(&s, "_Total", "Bytes Received/sec", 600);  /* 200 x 3, lo left out */
    pl_snap_free(&s);
    /* flags cut or too long, duplex with trailing junk */
    CHECK(put(dir, "sys/class/net/eth0/flags", "0x\n"));
    CHECK(put(dir, "sys/class/net/eth1/flags", "0x11111111111111111\n"));
    CHECK(put(dir, "sys/class/net/eth0/duplex", "fullx\n"));
    CHECK_EQ_U64(collect_tree(dir, "Network Interface", &s), 0);
    UNSET(&s, "eth0", "Interface Flags");
    UNSET(&s, "eth1", "Interface Flags");
    UNSET(&s, "eth0", "Duplex");
    EXPECT(&s, "eth1", "Duplex", 1);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* ---- the live machine ------------------------------------------------------------- */

static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    /* every kernel since 2.6.20 has the UdpLite pair */
    CHECK_EQ_U64(collect_tree("/", "UDPLitev4", &s), 0);
    CHECK(s.ninst == 1 && s.have[0]);
    pl_snap_free(&s);
    if (access("/proc/net/snmp6", R_OK) == 0) {
        CHECK_EQ_U64(collect_tree("/", "UDPLitev6", &s), 0);
        CHECK(s.ninst == 1 && s.have[1]);
        pl_snap_free(&s);
    }
    CHECK_EQ_U64(collect_tree("/", "TCPv4", &s), 0);
    CHECK(get(&s, "", "SYN Cookies Sent/sec", &v));
    CHECK(get(&s, "", "Fast Retransmits/sec", &v));
    pl_snap_free(&s);
    /* lo is always there: up and looped back */
    CHECK_EQ_U64(collect_tree("/", "Network Interface", &s), 0);
    CHECK(get(&s, "lo", "Interface Flags", &v) && (v & 0x9) == 0x9);
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_tcpext_rates);
    RUN(test_tcpext_old);
    RUN(test_udplite);
    RUN(test_udplite_rates_and_absent);
    RUN(test_link_flags);
    RUN(test_live);
    return CT_END();
}
