/* IPv4, IPv6, TCPv4, TCPv6, UDPv4, UDPv6, ICMP and ICMPv6 (single instance
 * each), from the SNMP MIB files of the query's network namespace:
 * /proc/net/snmp (Ip, Tcp, Udp, Icmp line pairs), /proc/net/netstat (IpExt,
 * TcpExt) and /proc/net/snmp6 (Ip6*, Udp6*, Icmp6* lines).
 *
 * Every set but TCPv6 is one table-driven provider: each counter is one MIB
 * field, or the sum of two.  Linux keeps one TCP MIB for IPv4 and IPv6, so
 * TCPv4 counts all TCP; TCPv6 can only count IPv6 connections, by walking
 * /proc/net/tcp6 (O(sockets): costly).
 *
 * Errors: each file is one source (pl_sources).  One that is unreadable or
 * empty leaves only its own counters unset (IPv4 and TCPv4 without netstat,
 * or without snmp); a set fails (errno, err_path) only when all its files
 * failed: with IPv6 off (ipv6.disable=1) the v6 sets report ENOENT for
 * proc/net/snmp6, and TCPv6 fails without proc/net/tcp6.  A field the
 * kernel does not have, a malformed or negative value leaves its counters
 * unset.  The MIB counters are unsigned long: 64-bit on 64-bit kernels, and
 * not unwrapped on 32-bit ones. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "netmib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define CTR(id, name, help, type, detail, u) { id, name, help, type, PL_NO_ID, detail, 0, 8, u }
#define NONE 0xFF
#define NSTATIC(a) (sizeof a / sizeof a[0])

/* ---- sources ------------------------------------------------------------------ */

/* One section of a kernel source: the set's flat fields [0, n) of this entry
 * are the source's fields first .. first + n - 1 (netmib.h). */
typedef struct np_src {
    const pl_ksrc_def *file;
    uint8_t first, n;
} np_src;

typedef struct np_set {
    const np_src *srcs;
    uint8_t nsrc;
    const uint8_t (*map)[2];  /* per counter: field a, and field b added to it or NONE */
    uint32_t ncounters;
} np_set;

#define MAXF 32              /* fields of one set */
#define MAXSRC 2             /* sources of one set */

/* ---- IPv4 / IPv6 ------------------------------------------------------------- */

static const pl_counter_def ip_counters[] = {
    CTR(0, "Datagrams/sec", "IP datagrams received and sent per second (Ip InReceives + "
        "OutRequests of /proc/net/snmp; Ip6InReceives + Ip6OutRequests of /proc/net/snmp6).",
        BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(1, "Datagrams Received/sec", "IP datagrams received from interfaces per second, those "
        "in error included (InReceives; Ip6InReceives).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(2, "Datagrams Received Header Errors", "Received datagrams discarded for header errors "
        "such as a bad checksum or TTL exceeded, since boot (InHdrErrors; Ip6InHdrErrors).",
        LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(3, "Datagrams Received Address Errors", "Received datagrams discarded because the "
        "destination address was invalid for this host, since boot (InAddrErrors; "
        "Ip6InAddrErrors).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(4, "Datagrams Forwarded/sec", "Datagrams forwarded to another host per second "
        "(ForwDatagrams; Ip6OutForwDatagrams).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(5, "Datagrams Received Unknown Protocol", "Datagrams addressed here with an unknown "
        "protocol, since boot (InUnknownProtos; Ip6InUnknownProtos).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(6, "Datagrams Received Discarded", "Received datagrams without errors discarded, for "
        "lack of buffer space for instance, since boot (InDiscards; Ip6InDiscards).", LRAW, NOV,
          PL_U(COUNT, 1, COUNTER)),
    CTR(7, "Datagrams Received Delivered/sec", "Datagrams delivered to the transport protocols "
        "per second (InDelivers; Ip6InDelivers).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(8, "Datagrams Sent/sec", "Datagrams handed to IP for sending by local protocols per "
        "second, forwarded ones excluded (OutRequests; Ip6OutRequests).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(9, "Datagrams Outbound Discarded", "Outgoing datagrams without errors discarded, since "
        "boot (OutDiscards; Ip6OutDiscards).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(10, "Datagrams Outbound No Route", "Outgoing datagrams discarded because no route was "
        "found, since boot (OutNoRoutes; Ip6OutNoRoutes).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(11, "Fragments Received/sec", "Received fragments that needed reassembly per second "
        "(ReasmReqds; Ip6ReasmReqds).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(12, "Fragments Re-assembled/sec", "Datagrams reassembled from fragments per second "
        "(ReasmOKs; Ip6ReasmOKs).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(13, "Fragment Re-assembly Failures", "Reassembly failures such as timeouts, since boot "
        "(ReasmFails; Ip6ReasmFails).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(14, "Fragmented Datagrams/sec", "Outgoing datagrams fragmented per second (FragOKs; "
        "Ip6FragOKs).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(15, "Fragmentation Failures", "Outgoing datagrams discarded because they could not be "
        "fragmented, since boot (FragFails; Ip6FragFails).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(16, "Fragments Created/sec", "Fragments generated per second (FragCreates; "
        "Ip6FragCreates).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(17, "Bytes Received/sec", "IP bytes received per second (IpExt InOctets of "
        "/proc/net/netstat; Ip6InOctets of /proc/net/snmp6).", BULK, ADV, PL_U(BYTES, 1, COUNTER)),
    CTR(18, "Bytes Sent/sec", "IP bytes sent per second (IpExt OutOctets of /proc/net/netstat; "
        "Ip6OutOctets of /proc/net/snmp6).", BULK, ADV, PL_U(BYTES, 1, COUNTER)),
};

static const uint8_t ip_map[][2] = {
    {PL_IP_INREC, PL_IP_OUTREQ}, {PL_IP_INREC, NONE}, {PL_IP_HDR, NONE}, {PL_IP_ADDR, NONE}, {PL_IP_FWD, NONE},
    {PL_IP_UNK, NONE}, {PL_IP_INDISC, NONE}, {PL_IP_DELIV, NONE}, {PL_IP_OUTREQ, NONE}, {PL_IP_OUTDISC, NONE},
    {PL_IP_NOROUTE, NONE}, {PL_IP_REASMREQ, NONE}, {PL_IP_REASMOK, NONE}, {PL_IP_REASMFAIL, NONE},
    {PL_IP_FRAGOK, NONE}, {PL_IP_FRAGFAIL, NONE}, {PL_IP_FRAGCR, NONE}, {PL_IP_INOCT, NONE}, {PL_IP_OUTOCT, NONE},
};
_Static_assert(NSTATIC(ip_map) == NSTATIC(ip_counters), "one source per counter");

static const np_src ip4_srcs[] = {
    { &pl_ksrc_snmp, PL_SNMP_IP, PL_IP_INOCT },
    { &pl_ksrc_netstat, PL_NETSTAT_IPEXT, PL_IP_N - PL_IP_INOCT },
};
static const np_src ip6_srcs[] = { { &pl_ksrc_snmp6, PL_SNMP6_IP6, PL_IP_N } };

/* ---- TCPv4 -------------------------------------------------------------------- */

static const pl_counter_def tcp_counters[] = {
    CTR(0, "Segments/sec", "TCP segments received and sent per second, IPv4 and IPv6 together "
        "(Tcp InSegs + OutSegs of /proc/net/snmp).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(1, "Connections Established", "TCP connections in the ESTABLISHED or CLOSE_WAIT state "
        "now, IPv4 and IPv6 (Tcp CurrEstab).", RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(2, "Connections Active", "Connections opened by this host (SYN-SENT from CLOSED), "
        "since boot (Tcp ActiveOpens).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(3, "Connections Passive", "Connections accepted from remote hosts (SYN-RCVD from "
        "LISTEN), since boot (Tcp PassiveOpens).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(4, "Connection Failures", "Connection attempts that failed, since boot (Tcp "
        "AttemptFails).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(5, "Connections Reset", "Established connections reset, since boot (Tcp "
        "EstabResets).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(6, "Segments Received/sec", "TCP segments received per second, those in error "
        "included (Tcp InSegs).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(7, "Segments Sent/sec", "TCP segments sent per second, retransmissions excluded "
        "(Tcp OutSegs).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(8, "Segments Retransmitted/sec", "TCP segments retransmitted per second (Tcp "
        "RetransSegs).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(9, "Receive Errors", "TCP segments received in error, since boot (Tcp InErrs).",
        LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(10, "Resets Sent/sec", "TCP segments sent with the RST flag per second (Tcp "
        "OutRsts).", BULK, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(11, "Checksum Errors", "TCP segments received with a bad checksum, since boot (Tcp "
        "InCsumErrors).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(12, "Listen Overflows", "Connections dropped because a listen queue was full, since "
        "boot (TcpExt ListenOverflows of /proc/net/netstat).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(13, "Listen Drops", "SYNs to listening sockets dropped for any reason, since boot "
        "(TcpExt ListenDrops of /proc/net/netstat).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(14, "Timeouts/sec", "TCP retransmission timeouts per second (TcpExt TCPTimeouts of "
        "/proc/net/netstat).", BULK, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(15, "SYN Retransmits/sec", "SYN and SYN-ACK retransmissions per second (TcpExt "
        "TCPSynRetrans of /proc/net/netstat).", BULK, ADV, PL_U(COUNT, 1, COUNTER)),
};

static const uint8_t tcp_map[][2] = {
    {PL_TCP_INSEGS, PL_TCP_OUTSEGS}, {PL_TCP_ESTAB, NONE}, {PL_TCP_ACTIVE, NONE}, {PL_TCP_PASSIVE, NONE}, {PL_TCP_FAILS, NONE},
    {PL_TCP_RESETS, NONE}, {PL_TCP_INSEGS, NONE}, {PL_TCP_OUTSEGS, NONE}, {PL_TCP_RETRANS, NONE}, {PL_TCP_INERRS, NONE},
    {PL_TCP_OUTRSTS, NONE}, {PL_TCP_CSUM, NONE}, {PL_TCP_LOVER, NONE}, {PL_TCP_LDROP, NONE}, {PL_TCP_TIMEOUTS, NONE},
    {PL_TCP_SYNRETR, NONE},
};
_Static_assert(NSTATIC(tcp_map) == NSTATIC(tcp_counters), "one source per counter");

static const np_src tcp_srcs[] = {
    { &pl_ksrc_snmp, PL_SNMP_TCP, PL_TCP_LOVER },
    { &pl_ksrc_netstat, PL_NETSTAT_TCPEXT, PL_TCP_N - PL_TCP_LOVER },
};

/* ---- UDPv4 / UDPv6 ------------------------------------------------------------ */

static const pl_counter_def udp_counters[] = {
    CTR(0, "Datagrams/sec", "UDP datagrams received and sent per second (Udp InDatagrams + "
        "OutDatagrams of /proc/net/snmp; Udp6InDatagrams + Udp6OutDatagrams of "
        "/proc/net/snmp6).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(1, "Datagrams Received/sec", "UDP datagrams delivered to sockets per second "
        "(InDatagrams; Udp6InDatagrams).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(2, "Datagrams No Port/sec", "Received datagrams for a port nobody listens on, per "
        "second (NoPorts; Udp6NoPorts).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(3, "Datagrams Received Errors", "Received datagrams that could not be delivered for "
        "other reasons than no port, since boot (InErrors; Udp6InErrors).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(4, "Datagrams Sent/sec", "UDP datagrams sent per second (OutDatagrams; "
        "Udp6OutDatagrams).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(5, "Receive Buffer Errors", "Datagrams dropped because a socket receive buffer was "
        "full, since boot (RcvbufErrors; Udp6RcvbufErrors).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(6, "Send Buffer Errors", "Datagrams dropped because a socket send buffer was full, "
        "since boot (SndbufErrors; Udp6SndbufErrors).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(7, "Checksum Errors", "Datagrams received with a bad checksum, since boot "
        "(InCsumErrors; Udp6InCsumErrors).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(8, "Ignored Multicast", "Broadcast or multicast datagrams no socket wanted, since "
        "boot (IgnoredMulti; Udp6IgnoredMulti).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
    CTR(9, "Memory Errors", "Datagrams dropped because the UDP memory limit was reached, "
        "since boot (MemErrors; Udp6MemErrors).", LRAW, ADV, PL_U(COUNT, 1, COUNTER)),
};

static const uint8_t udp_map[][2] = {
    {PL_UDP_IN, PL_UDP_OUT}, {PL_UDP_IN, NONE}, {PL_UDP_NOPORT, NONE}, {PL_UDP_INERR, NONE}, {PL_UDP_OUT, NONE},
    {PL_UDP_RCVBUF, NONE}, {PL_UDP_SNDBUF, NONE}, {PL_UDP_CSUM, NONE}, {PL_UDP_IGNMULTI, NONE}, {PL_UDP_MEMERR, NONE},
};
_Static_assert(NSTATIC(udp_map) == NSTATIC(udp_counters), "one source per counter");

static const np_src udp4_srcs[] = { { &pl_ksrc_snmp, PL_SNMP_UDP, PL_UDP_N } };
static const np_src udp6_srcs[] = { { &pl_ksrc_snmp6, PL_SNMP6_UDP6, PL_UDP_N } };

/* ---- ICMP / ICMPv6 ------------------------------------------------------------ */

#define ICMP_COMMON(dest_unreach, v4, v6) \
    CTR(0, "Messages/sec", "ICMP messages received and sent per second (" v4 "InMsgs + " \
        v4 "OutMsgs" v6 ").", BULK, NOV, PL_U(COUNT, 1, COUNTER)), \
    CTR(1, "Messages Received/sec", "ICMP messages received per second, those in error " \
        "included (" v4 "InMsgs).", BULK, NOV, PL_U(COUNT, 1, COUNTER)), \
    CTR(2, "Messages Received Errors", "ICMP messages received with errors such as a bad " \
        "checksum, since boot (" v4 "InErrors).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)), \
    CTR(3, "Messages Sent/sec", "ICMP messages sent per second (" v4 "OutMsgs).", BULK, NOV, PL_U(COUNT, 1, COUNTER)), \
    CTR(4, "Messages Outbound Errors", "ICMP messages not sent because of errors within ICMP, " \
        "since boot (" v4 "OutErrors).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)), \
    CTR(5, dest_unreach, "Destination Unreachable messages received, since boot (" v4 \
        "InDestUnreachs).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)), \
    CTR(6, "Received Time Exceeded", "Time Exceeded messages received, since boot (" v4 \
        "InTimeExcds).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)), \
    CTR(7, "Received Echo/sec", "Echo requests received per second (" v4 "InEchos).", \
        BULK, NOV, PL_U(COUNT, 1, COUNTER))

static const pl_counter_def icmp_counters[] = {
    ICMP_COMMON("Received Dest. Unreachable", "Icmp ", " of /proc/net/snmp"),
    CTR(8, "Received Echo Reply/sec", "Echo replies received per second (Icmp InEchoReps).",
        BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(9, "Sent Destination Unreachable", "Destination Unreachable messages sent, since "
        "boot (Icmp OutDestUnreachs).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(10, "Sent Echo/sec", "Echo requests sent per second (Icmp OutEchos).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(11, "Sent Echo Reply/sec", "Echo replies sent per second (Icmp OutEchoReps).",
        BULK, NOV, PL_U(COUNT, 1, COUNTER)),
};

/* Windows spells the IPv6 set's counter "Received Destination Unreachable". */
static const pl_counter_def icmp6_counters[] = {
    ICMP_COMMON("Received Destination Unreachable", "Icmp6", " of /proc/net/snmp6"),
    CTR(8, "Received Echo Reply/sec", "Echo replies received per second "
        "(Icmp6InEchoReplies).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(9, "Sent Destination Unreachable", "Destination Unreachable messages sent, since "
        "boot (Icmp6OutDestUnreachs).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(10, "Sent Echo/sec", "Echo requests sent per second (Icmp6OutEchos).", BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(11, "Sent Echo Reply/sec", "Echo replies sent per second (Icmp6OutEchoReplies).",
        BULK, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(12, "Received Packet Too Big", "Packet Too Big messages received, the path MTU "
        "signal of IPv6, since boot (Icmp6InPktTooBigs).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
    CTR(13, "Sent Packet Too Big", "Packet Too Big messages sent, since boot "
        "(Icmp6OutPktTooBigs).", LRAW, NOV, PL_U(COUNT, 1, COUNTER)),
};

static const uint8_t icmp_map[][2] = {
    {PL_ICMP_INMSG, PL_ICMP_OUTMSG}, {PL_ICMP_INMSG, NONE}, {PL_ICMP_INERR, NONE}, {PL_ICMP_OUTMSG, NONE}, {PL_ICMP_OUTERR, NONE},
    {PL_ICMP_INDU, NONE}, {PL_ICMP_INTE, NONE}, {PL_ICMP_INECHO, NONE}, {PL_ICMP_INREP, NONE}, {PL_ICMP_OUTDU, NONE},
    {PL_ICMP_OUTECHO, NONE}, {PL_ICMP_OUTREP, NONE}, {PL_ICMP_INPTB, NONE}, {PL_ICMP_OUTPTB, NONE},
};
_Static_assert(NSTATIC(icmp_map) == NSTATIC(icmp6_counters), "one source per counter");

static const np_src icmp4_srcs[] = { { &pl_ksrc_snmp, PL_SNMP_ICMP, PL_ICMP_INPTB } };
static const np_src icmp6_srcs[] = { { &pl_ksrc_snmp6, PL_SNMP6_ICMP6, PL_ICMP_N } };

/* ---- the sets ------------------------------------------------------------------ */

static const np_set ip4_set = { ip4_srcs, 2, ip_map, NSTATIC(ip_counters) };
static const np_set ip6_set = { ip6_srcs, 1, ip_map, NSTATIC(ip_counters) };
static const np_set tcp4_set = { tcp_srcs, 2, tcp_map, NSTATIC(tcp_counters) };
static const np_set udp4_set = { udp4_srcs, 1, udp_map, NSTATIC(udp_counters) };
static const np_set udp6_set = { udp6_srcs, 1, udp_map, NSTATIC(udp_counters) };
static const np_set icmp4_set = { icmp4_srcs, 1, icmp_map, NSTATIC(icmp_counters) };
static const np_set icmp6_set = { icmp6_srcs, 1, icmp_map, NSTATIC(icmp6_counters) };

/* ---- the table-driven provider --------------------------------------------------- */

typedef struct np_state {
    const np_set *set;
    pl_ksrc *src[MAXSRC];    /* the machine's readers of the set's sources */
} np_state;

static int np_open(pl_env *env, const np_set *set, void **state)
{
    np_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->set = set;
    for (int k = 0; k < set->nsrc; k++)
        if (!(s->src[k] = pl_ksrc_attach(env, set->srcs[k].file))) {
            free(s);
            return ENOMEM;
        }
    *state = s;
    return 0;
}

static void np_close(void *state)
{
    free(state);             /* the readers are the environment's */
}

/* Source of flat field f. */
static int src_of(const np_set *set, unsigned f)
{
    unsigned off = 0;
    for (int k = 0; k < set->nsrc; k++) {
        off += set->srcs[k].n;
        if (f < off)
            return k;
    }
    return -1;
}

static int np_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    np_state *s = state;
    const np_set *set = s->set;
    uint64_t v[MAXF];
    uint8_t st[MAXF], need[MAXSRC] = { 0 };
    unsigned off = 0;
    pl_sources files;
    int e;

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    for (uint32_t i = 0; i < set->ncounters; i++) {
        if (wanted && !wanted[i])
            continue;
        for (int j = 0; j < 2; j++) {
            int k = set->map[i][j] == NONE ? -1 : src_of(set, set->map[i][j]);
            if (k >= 0)
                need[k] = 1;
        }
    }
    /* the main source is read whenever anything is wanted, so a set whose
     * files are all missing fails the same way whatever the query asks */
    if (wanted == NULL || memchr(need, 1, sizeof need))
        need[0] = 1;
    memset(st, PL_NS_ABSENT, sizeof st);
    pl_sources_init(&files);
    for (int k = 0; k < set->nsrc; k++) {
        const np_src *src = &set->srcs[k];
        if (need[k] && pl_source_done(&files, pl_ksrc_get(s->src[k]), pl_ksrc_path(s->src[k]))) {
            const pl_mib *m = pl_ksrc_data(s->src[k]);
            memcpy(v + off, m->v + src->first, src->n * sizeof *v);
            memcpy(st + off, m->st + src->first, src->n);
            if (k == 0)
                snap->time = pl_ksrc_time(s->src[0]);    /* the instant of the read it shares */
        }
        off += src->n;
    }
    for (uint32_t i = 0; i < set->ncounters; i++) {
        uint8_t a = set->map[i][0], b = set->map[i][1];
        if (st[a] != PL_NS_OK)
            continue;
        if (b == NONE)
            pl_snap_set(snap, 0, i, v[a]);
        else if (st[b] == PL_NS_OK && v[a] <= UINT64_MAX - v[b])
            pl_snap_set(snap, 0, i, v[a] + v[b]);
    }
    return pl_sources_end(&files, snap);
}

#define NP_OPEN(fn, set) \
    static int fn(pl_env *env, void **state) { return np_open(env, &set, state); }
NP_OPEN(ip4_open, ip4_set)
NP_OPEN(ip6_open, ip6_set)
NP_OPEN(tcp4_open, tcp4_set)
NP_OPEN(udp4_open, udp4_set)
NP_OPEN(udp6_open, udp6_set)
NP_OPEN(icmp4_open, icmp4_set)
NP_OPEN(icmp6_open, icmp6_set)

static const pl_provider_ops ip4_ops = { ip4_open, np_close, pl_single_instance, np_collect, NULL };
static const pl_provider_ops ip6_ops = { ip6_open, np_close, pl_single_instance, np_collect, NULL };
static const pl_provider_ops tcp4_ops = { tcp4_open, np_close, pl_single_instance, np_collect, NULL };
static const pl_provider_ops udp4_ops = { udp4_open, np_close, pl_single_instance, np_collect, NULL };
static const pl_provider_ops udp6_ops = { udp6_open, np_close, pl_single_instance, np_collect, NULL };
static const pl_provider_ops icmp4_ops = { icmp4_open, np_close, pl_single_instance, np_collect, NULL };
static const pl_provider_ops icmp6_ops = { icmp6_open, np_close, pl_single_instance, np_collect, NULL };

/* ---- TCPv6: connections from the /proc/net/tcp6 table ------------------------------ */

enum { C6_ESTAB, C6_LISTEN, C6_TIMEWAIT, C6_TOTAL, C6_N };

static const pl_counter_def tcp6_counters[] = {
    CTR(0, "Connections Established", "IPv6 TCP connections in the ESTABLISHED or CLOSE_WAIT "
        "state now, as TCPv4 counts them: the st 01 and 08 lines of /proc/net/tcp6.", RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(1, "Connections Listening", "IPv6 TCP sockets listening now: the st 0A lines of "
        "/proc/net/tcp6.", RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(2, "Connections Time Wait", "IPv6 TCP connections in TIME_WAIT now: the st 06 lines "
        "of /proc/net/tcp6.", RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(3, "Connections Total", "IPv6 TCP sockets in any state now: every line of "
        "/proc/net/tcp6.", RAW, ADV, PL_U(COUNT, 1, GAUGE)),
};

typedef struct tcp6_state {
    pl_env *env;
    pl_file tab;
} tcp6_state;

static int tcp6_open(pl_env *env, void **state)
{
    tcp6_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_file_init(&s->tab);
    *state = s;
    return 0;
}

static void tcp6_close(void *state)
{
    tcp6_state *s = state;
    if (!s)
        return;
    pl_file_close(&s->tab);
    pl_env_unref(s->env);
    free(s);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The st field of one table line "sl: local remote st ...": 0..255, -1 if malformed. */
static int line_state(const char *p)
{
    for (int field = 0; field < 3; field++) {
        while (*p == ' ')
            p++;
        if (*p == '\n' || *p == '\0')
            return -1;
        while (*p != ' ' && *p != '\n' && *p != '\0')
            p++;
    }
    while (*p == ' ')
        p++;
    int hi = hexval(p[0]), lo = hi < 0 ? -1 : hexval(p[1]);
    if (lo < 0 || p[2] != ' ')
        return -1;
    return hi * 16 + lo;
}

static int tcp6_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    tcp6_state *s = state;
    uint64_t n[C6_N] = { 0 };
    const char *p, *nl;
    int e;
    (void)wanted;            /* one walk gives every count */

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    /* empty: not even the header line */
    if ((e = pl_file_read_required(&s->tab, s->env, "proc/net/tcp6", snap)) != 0)
        return e;
    p = pl_next_line(s->tab.buf);            /* past the header */
    for (; p && (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
        int st = line_state(p);
        if (st < 0)
            return 0;        /* a malformed line: no count is trustworthy */
        n[C6_TOTAL]++;
        if (st == 0x01 || st == 0x08)
            n[C6_ESTAB]++;
        else if (st == 0x0A)
            n[C6_LISTEN]++;
        else if (st == 0x06)
            n[C6_TIMEWAIT]++;
    }
    for (uint32_t i = 0; i < C6_N; i++)
        pl_snap_set(snap, 0, i, n[i]);
    return 0;
}

static const pl_provider_ops tcp6_ops = { tcp6_open, tcp6_close, pl_single_instance, tcp6_collect, NULL };

/* ---- definitions ------------------------------------------------------------------ */

#define SINGLE PERF_COUNTERSET_SINGLE_INSTANCE

const pl_counterset_def pl_ipv4_def = {
    {0x870fb42a, 0x6264, 0x5175, {0x88, 0xde, 0x1a, 0xf8, 0x02, 0x41, 0x10, 0xb4}},
    "IPv4",
    "IPv4 datagram traffic and errors of this network namespace, from the Ip line pair of "
    "/proc/net/snmp and IpExt of /proc/net/netstat.",
    SINGLE, 0, NSTATIC(ip_counters), ip_counters, &ip4_ops, 7000, NULL,
};

const pl_counterset_def pl_ipv6_def = {
    {0xff90b8cf, 0x7060, 0x57e6, {0xb5, 0x22, 0x4d, 0xe1, 0x9c, 0xbc, 0xd5, 0xdd}},
    "IPv6",
    "IPv6 datagram traffic and errors of this network namespace, from the Ip6 lines of "
    "/proc/net/snmp6 (absent when IPv6 is disabled at boot).",
    SINGLE, 0, NSTATIC(ip_counters), ip_counters, &ip6_ops, 8000, NULL,
};

const pl_counterset_def pl_tcpv4_def = {
    {0x1a64366b, 0x36ff, 0x5767, {0xa8, 0xc1, 0x11, 0x19, 0x5c, 0x48, 0xc1, 0xaf}},
    "TCPv4",
    "TCP segments and connections of this network namespace, from the Tcp line pair of "
    "/proc/net/snmp and TcpExt of /proc/net/netstat; Linux keeps one TCP MIB, so these "
    "figures cover IPv4 and IPv6 together.",
    SINGLE, 0, NSTATIC(tcp_counters), tcp_counters, &tcp4_ops, 9000, NULL,
};

const pl_counterset_def pl_tcpv6_def = {
    {0xf7c27857, 0xfc23, 0x5c0b, {0xa9, 0x01, 0x89, 0x06, 0x36, 0xc0, 0x5b, 0xdf}},
    "TCPv6",
    "IPv6 TCP connection counts, from a walk of /proc/net/tcp6 that costs time in proportion "
    "to the sockets (costly); segment counts are in TCPv4, which Linux keeps for both "
    "families.",
    SINGLE, 1, NSTATIC(tcp6_counters), tcp6_counters, &tcp6_ops, 10000, NULL,
};

const pl_counterset_def pl_udpv4_def = {
    {0x3f93c40c, 0xecbf, 0x5129, {0xa6, 0x1b, 0x37, 0x7b, 0xfa, 0x73, 0xa0, 0x0e}},
    "UDPv4",
    "IPv4 UDP datagrams and errors of this network namespace, from the Udp line pair of "
    "/proc/net/snmp.",
    SINGLE, 0, NSTATIC(udp_counters), udp_counters, &udp4_ops, 11000, NULL,
};

const pl_counterset_def pl_udpv6_def = {
    {0x6e13e8eb, 0xb7c2, 0x53a4, {0xab, 0x1b, 0x21, 0x05, 0x3f, 0x67, 0x26, 0xbc}},
    "UDPv6",
    "IPv6 UDP datagrams and errors of this network namespace, from the Udp6 lines of "
    "/proc/net/snmp6.",
    SINGLE, 0, NSTATIC(udp_counters), udp_counters, &udp6_ops, 12000, NULL,
};

const pl_counterset_def pl_icmp_def = {
    {0xadbaffb2, 0xa77f, 0x5d33, {0x8a, 0xf8, 0x98, 0x17, 0x10, 0x3b, 0x0f, 0x0d}},
    "ICMP",
    "ICMP messages of this network namespace, from the Icmp line pair of /proc/net/snmp.",
    SINGLE, 0, NSTATIC(icmp_counters), icmp_counters, &icmp4_ops, 13000, NULL,
};

const pl_counterset_def pl_icmpv6_def = {
    {0xdbdcb1ea, 0x62d0, 0x5029, {0x82, 0x56, 0x72, 0x13, 0x71, 0xa1, 0x71, 0xd4}},
    "ICMPv6",
    "ICMPv6 messages of this network namespace, from the Icmp6 lines of /proc/net/snmp6.",
    SINGLE, 0, NSTATIC(icmp6_counters), icmp6_counters, &icmp6_ops, 28000, NULL,
};
