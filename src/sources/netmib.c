/* /proc/net/snmp, netstat and snmp6 as kernel sources: see netmib.h. */
#include "netmib.h"

#include <string.h>

#define K PL_NS_KEY
#define NSTATIC(a) (sizeof a / sizeof a[0])

enum { PAIRS, LINES };

typedef struct section {
    const char *tag;
    uint8_t kind;
    uint8_t first;           /* its first field in the file's table */
    const pl_ns_key *keys;
    uint8_t nkeys;
} section;

static const pl_ns_key ip4_keys[] = {          /* PL_IP_INREC .. PL_IP_FRAGCR */
    K("InReceives"), K("InHdrErrors"), K("InAddrErrors"), K("ForwDatagrams"),
    K("InUnknownProtos"), K("InDiscards"), K("InDelivers"), K("OutRequests"), K("OutDiscards"),
    K("OutNoRoutes"), K("ReasmReqds"), K("ReasmOKs"), K("ReasmFails"), K("FragOKs"),
    K("FragFails"), K("FragCreates"),
};
static const pl_ns_key ipext_keys[] = { K("InOctets"), K("OutOctets") };
static const pl_ns_key ip6_keys[] = {
    K("Ip6InReceives"), K("Ip6InHdrErrors"), K("Ip6InAddrErrors"), K("Ip6OutForwDatagrams"),
    K("Ip6InUnknownProtos"), K("Ip6InDiscards"), K("Ip6InDelivers"), K("Ip6OutRequests"),
    K("Ip6OutDiscards"), K("Ip6OutNoRoutes"), K("Ip6ReasmReqds"), K("Ip6ReasmOKs"),
    K("Ip6ReasmFails"), K("Ip6FragOKs"), K("Ip6FragFails"), K("Ip6FragCreates"),
    K("Ip6InOctets"), K("Ip6OutOctets"),
};
_Static_assert(NSTATIC(ip4_keys) == PL_IP_INOCT && NSTATIC(ipext_keys) == PL_IP_N - PL_IP_INOCT &&
               NSTATIC(ip6_keys) == PL_IP_N, "IP fields");

static const pl_ns_key tcp_keys[] = {          /* PL_TCP_ACTIVE .. PL_TCP_CSUM */
    K("ActiveOpens"), K("PassiveOpens"), K("AttemptFails"), K("EstabResets"), K("CurrEstab"),
    K("InSegs"), K("OutSegs"), K("RetransSegs"), K("InErrs"), K("OutRsts"), K("InCsumErrors"),
};
/* TcpExt keys come and go with kernel versions (TCPRcvQDrop and
 * TCPZeroWindowDrop are later additions than the others here; a 6.18
 * kernel has all of them): found by name, a missing one stays absent. */
static const pl_ns_key tcpext_keys[] = {
    K("ListenOverflows"), K("ListenDrops"), K("TCPTimeouts"), K("TCPSynRetrans"),
    K("SyncookiesSent"), K("SyncookiesRecv"), K("SyncookiesFailed"), K("PruneCalled"),
    K("RcvPruned"), K("OfoPruned"), K("TW"), K("TCPLostRetransmit"), K("TCPFastRetrans"),
    K("TCPSlowStartRetrans"), K("TCPAbortOnData"), K("TCPAbortOnMemory"), K("TCPAbortOnTimeout"),
    K("TCPMemoryPressures"), K("TCPBacklogDrop"), K("TCPTimeWaitOverflow"), K("TCPReqQFullDrop"),
    K("TCPRetransFail"), K("TCPOFOQueue"), K("TCPOFODrop"), K("TCPZeroWindowDrop"),
    K("TCPRcvQDrop"),
};
_Static_assert(NSTATIC(tcp_keys) == PL_TCP_LOVER && NSTATIC(tcpext_keys) == PL_TCP_N - PL_TCP_LOVER,
               "TCP fields");

static const pl_ns_key udp4_keys[] = {
    K("InDatagrams"), K("NoPorts"), K("InErrors"), K("OutDatagrams"), K("RcvbufErrors"),
    K("SndbufErrors"), K("InCsumErrors"), K("IgnoredMulti"), K("MemErrors"),
};
static const pl_ns_key udp6_keys[] = {
    K("Udp6InDatagrams"), K("Udp6NoPorts"), K("Udp6InErrors"), K("Udp6OutDatagrams"),
    K("Udp6RcvbufErrors"), K("Udp6SndbufErrors"), K("Udp6InCsumErrors"), K("Udp6IgnoredMulti"),
    K("Udp6MemErrors"),
};
static const pl_ns_key udplite6_keys[] = {
    K("UdpLite6InDatagrams"), K("UdpLite6NoPorts"), K("UdpLite6InErrors"),
    K("UdpLite6OutDatagrams"), K("UdpLite6RcvbufErrors"), K("UdpLite6SndbufErrors"),
    K("UdpLite6InCsumErrors"), K("UdpLite6IgnoredMulti"), K("UdpLite6MemErrors"),
};
_Static_assert(NSTATIC(udp4_keys) == PL_UDP_N && NSTATIC(udp6_keys) == PL_UDP_N &&
               NSTATIC(udplite6_keys) == PL_UDP_N, "UDP fields");

static const pl_ns_key icmp4_keys[] = {
    K("InMsgs"), K("InErrors"), K("OutMsgs"), K("OutErrors"), K("InDestUnreachs"),
    K("InTimeExcds"), K("InEchos"), K("InEchoReps"), K("OutDestUnreachs"), K("OutEchos"),
    K("OutEchoReps"),
};
static const pl_ns_key icmp6_keys[] = {
    K("Icmp6InMsgs"), K("Icmp6InErrors"), K("Icmp6OutMsgs"), K("Icmp6OutErrors"),
    K("Icmp6InDestUnreachs"), K("Icmp6InTimeExcds"), K("Icmp6InEchos"), K("Icmp6InEchoReplies"),
    K("Icmp6OutDestUnreachs"), K("Icmp6OutEchos"), K("Icmp6OutEchoReplies"),
    K("Icmp6InPktTooBigs"), K("Icmp6OutPktTooBigs"),
};
_Static_assert(NSTATIC(icmp4_keys) == PL_ICMP_INPTB && NSTATIC(icmp6_keys) == PL_ICMP_N, "ICMP fields");

static const section snmp_sections[] = {
    { "Ip", PAIRS, PL_SNMP_IP, ip4_keys, NSTATIC(ip4_keys) },
    { "Icmp", PAIRS, PL_SNMP_ICMP, icmp4_keys, NSTATIC(icmp4_keys) },
    { "Tcp", PAIRS, PL_SNMP_TCP, tcp_keys, NSTATIC(tcp_keys) },
    { "Udp", PAIRS, PL_SNMP_UDP, udp4_keys, NSTATIC(udp4_keys) },
    { "UdpLite", PAIRS, PL_SNMP_UDPLITE, udp4_keys, NSTATIC(udp4_keys) },
};
static const section netstat_sections[] = {
    { "IpExt", PAIRS, PL_NETSTAT_IPEXT, ipext_keys, NSTATIC(ipext_keys) },
    { "TcpExt", PAIRS, PL_NETSTAT_TCPEXT, tcpext_keys, NSTATIC(tcpext_keys) },
};
/* Lines are matched by tag prefix: "Udp6" lines are not "UdpLite6" ones */
static const section snmp6_sections[] = {
    { "Ip6", LINES, PL_SNMP6_IP6, ip6_keys, NSTATIC(ip6_keys) },
    { "Icmp6", LINES, PL_SNMP6_ICMP6, icmp6_keys, NSTATIC(icmp6_keys) },
    { "Udp6", LINES, PL_SNMP6_UDP6, udp6_keys, NSTATIC(udp6_keys) },
    { "UdpLite6", LINES, PL_SNMP6_UDPLITE6, udplite6_keys, NSTATIC(udplite6_keys) },
};

static int parse(const char *buf, const section *secs, size_t n, pl_mib *m)
{
    memset(m->st, PL_NS_ABSENT, sizeof m->st);
    for (size_t k = 0; k < n; k++) {
        const section *s = &secs[k];
        if (s->kind == PAIRS)
            pl_ns_pairs(buf, s->tag, s->keys, s->nkeys, m->v + s->first, m->st + s->first);
        else
            pl_ns_lines(buf, s->tag, s->keys, s->nkeys, m->v + s->first, m->st + s->first);
    }
    return 0;
}

int pl_parse_snmp(const char *buf, size_t len, void *out)
{
    (void)len;
    return parse(buf, snmp_sections, NSTATIC(snmp_sections), out);
}

int pl_parse_netstat(const char *buf, size_t len, void *out)
{
    (void)len;
    return parse(buf, netstat_sections, NSTATIC(netstat_sections), out);
}

int pl_parse_snmp6(const char *buf, size_t len, void *out)
{
    (void)len;
    return parse(buf, snmp6_sections, NSTATIC(snmp6_sections), out);
}

/* All three are single_open files: the whole text per read. */
const pl_ksrc_def pl_ksrc_snmp = { "proc/net/snmp", sizeof(pl_mib), PL_KSRC_WHOLE, pl_parse_snmp, NULL };
const pl_ksrc_def pl_ksrc_netstat = { "proc/net/netstat", sizeof(pl_mib), PL_KSRC_WHOLE, pl_parse_netstat,
                                      NULL };
const pl_ksrc_def pl_ksrc_snmp6 = { "proc/net/snmp6", sizeof(pl_mib), PL_KSRC_WHOLE, pl_parse_snmp6, NULL };
