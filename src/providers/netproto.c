/* IPv4, IPv6, TCPv4, TCPv6, UDPv4, UDPv6, ICMP and ICMPv6 (single instance
 * each), from the SNMP MIB files of the query's network namespace:
 * /proc/net/snmp (Ip, Tcp, Udp, Icmp line pairs), /proc/net/netstat (IpExt,
 * TcpExt) and /proc/net/snmp6 (Ip6*, Udp6*, Icmp6* lines).
 *
 * Every counter is a row (pl_rowset.h).  Every set but TCPv6 is made of
 * feeds walked by the generic code: each counter is one MIB field, or the
 * sum of two; one row list serves a v4 set and its v6 twin, with the
 * field macros (F: a field of the main file, X: of the extension file, S:
 * a sum) saying where each set's fields are.  Linux keeps one TCP MIB for IPv4 and IPv6, so
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
#include "pl_rowset.h"
#include "netmib.h"
#include "srcparse.h"
#include "tcptab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define NSTATIC(a) (sizeof a / sizeof a[0])

/* A set's sources: its main MIB file, and the extension file (netstat) of
 * IPv4 and TCPv4. */
enum { S_MAIN, S_EXT };

/* A table-driven set: its sources and its rows' feeds (non-const: a
 * counterset's provider_data). */
typedef struct np_set {
    const pl_feed_src *srcs;
    unsigned nsrc;
    const pl_feed *rows;
} np_set;

static const pl_feed_src snmp_only[] = { PL_FEED_SRC_ST(&pl_ksrc_snmp, pl_mib) };
static const pl_feed_src snmp_netstat[] = {
    PL_FEED_SRC_ST(&pl_ksrc_snmp, pl_mib), PL_FEED_SRC_ST(&pl_ksrc_netstat, pl_mib),
};
static const pl_feed_src snmp6_only[] = { PL_FEED_SRC_ST(&pl_ksrc_snmp6, pl_mib) };

/* ---- IPv4 / IPv6 ------------------------------------------------------------- */

#define IP_ROWS(R, F, X, S) \
    R(0, "Datagrams/sec", "IP datagrams received and sent per second (Ip InReceives + " \
      "OutRequests of /proc/net/snmp; Ip6InReceives + Ip6OutRequests of /proc/net/snmp6).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), S(PL_IP_INREC, PL_IP_OUTREQ)) \
    R(1, "Datagrams Received/sec", "IP datagrams received from interfaces per second, those in " \
      "error included (InReceives; Ip6InReceives).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_INREC)) \
    R(2, "Datagrams Received Header Errors", "Received datagrams discarded for header errors " \
      "such as a bad checksum or TTL exceeded, since boot (InHdrErrors; Ip6InHdrErrors).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_HDR)) \
    R(3, "Datagrams Received Address Errors", "Received datagrams discarded because the " \
      "destination address was invalid for this host, since boot (InAddrErrors; " \
      "Ip6InAddrErrors).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_ADDR)) \
    R(4, "Datagrams Forwarded/sec", "Datagrams forwarded to another host per second " \
      "(ForwDatagrams; Ip6OutForwDatagrams).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_FWD)) \
    R(5, "Datagrams Received Unknown Protocol", "Datagrams addressed here with an unknown " \
      "protocol, since boot (InUnknownProtos; Ip6InUnknownProtos).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_UNK)) \
    R(6, "Datagrams Received Discarded", "Received datagrams without errors discarded, for lack " \
      "of buffer space for instance, since boot (InDiscards; Ip6InDiscards).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_INDISC)) \
    R(7, "Datagrams Received Delivered/sec", "Datagrams delivered to the transport protocols per " \
      "second (InDelivers; Ip6InDelivers).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_DELIV)) \
    R(8, "Datagrams Sent/sec", "Datagrams handed to IP for sending by local protocols per " \
      "second, forwarded ones excluded (OutRequests; Ip6OutRequests).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_OUTREQ)) \
    R(9, "Datagrams Outbound Discarded", "Outgoing datagrams without errors discarded, since " \
      "boot (OutDiscards; Ip6OutDiscards).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_OUTDISC)) \
    R(10, "Datagrams Outbound No Route", "Outgoing datagrams discarded because no route was " \
      "found, since boot (OutNoRoutes; Ip6OutNoRoutes).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_NOROUTE)) \
    R(11, "Fragments Received/sec", "Received fragments that needed reassembly per second " \
      "(ReasmReqds; Ip6ReasmReqds).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_REASMREQ)) \
    R(12, "Fragments Re-assembled/sec", "Datagrams reassembled from fragments per second " \
      "(ReasmOKs; Ip6ReasmOKs).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_REASMOK)) \
    R(13, "Fragment Re-assembly Failures", "Reassembly failures such as timeouts, since boot " \
      "(ReasmFails; Ip6ReasmFails).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_REASMFAIL)) \
    R(14, "Fragmented Datagrams/sec", "Outgoing datagrams fragmented per second (FragOKs; " \
      "Ip6FragOKs).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_FRAGOK)) \
    R(15, "Fragmentation Failures", "Outgoing datagrams discarded because they could not be " \
      "fragmented, since boot (FragFails; Ip6FragFails).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_FRAGFAIL)) \
    R(16, "Fragments Created/sec", "Fragments generated per second (FragCreates; Ip6FragCreates).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_IP_FRAGCR)) \
    R(17, "Bytes Received/sec", "IP bytes received per second (IpExt InOctets of " \
      "/proc/net/netstat; Ip6InOctets of /proc/net/snmp6).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), X(PL_IP_INOCT)) \
    R(18, "Bytes Sent/sec", "IP bytes sent per second (IpExt OutOctets of /proc/net/netstat; " \
      "Ip6OutOctets of /proc/net/snmp6).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, COUNTER), X(PL_IP_OUTOCT))

static const pl_counter_def ip_counters[] = { IP_ROWS(PL_ROW_COUNTER, _, _, _) };

#define IP4_F(x) PL_FIELD(S_MAIN, PL_SNMP_IP + (x))
#define IP4_X(x) PL_FIELD(S_EXT, PL_NETSTAT_IPEXT + (x) - PL_IP_INOCT)
#define IP4_S(a, b) PL_SUM(S_MAIN, PL_SNMP_IP + (a), PL_SNMP_IP + (b))
#define IP6_F(x) PL_FIELD(S_MAIN, PL_SNMP6_IP6 + (x))
#define IP6_S(a, b) PL_SUM(S_MAIN, PL_SNMP6_IP6 + (a), PL_SNMP6_IP6 + (b))
static const pl_feed ip4_rows[] = { IP_ROWS(PL_ROW_FEED, IP4_F, IP4_X, IP4_S) };
static const pl_feed ip6_rows[] = { IP_ROWS(PL_ROW_FEED, IP6_F, IP6_F, IP6_S) };
static np_set ip4_set = { snmp_netstat, 2, ip4_rows };
static np_set ip6_set = { snmp6_only, 1, ip6_rows };

/* ---- TCPv4 -------------------------------------------------------------------- */

#define TCP_ROWS(R, F, X, S) \
    R(0, "Segments/sec", "TCP segments received and sent per second, IPv4 and IPv6 together (Tcp " \
      "InSegs + OutSegs of /proc/net/snmp).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), S(PL_TCP_INSEGS, PL_TCP_OUTSEGS)) \
    R(1, "Connections Established", "TCP connections in the ESTABLISHED or CLOSE_WAIT state now, " \
      "IPv4 and IPv6 (Tcp CurrEstab).", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), F(PL_TCP_ESTAB)) \
    R(2, "Connections Active", "Connections opened by this host (SYN-SENT from CLOSED), since " \
      "boot (Tcp ActiveOpens).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_ACTIVE)) \
    R(3, "Connections Passive", "Connections accepted from remote hosts (SYN-RCVD from LISTEN), " \
      "since boot (Tcp PassiveOpens).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_PASSIVE)) \
    R(4, "Connection Failures", "Connection attempts that failed, since boot (Tcp AttemptFails).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_FAILS)) \
    R(5, "Connections Reset", "Established connections reset, since boot (Tcp EstabResets).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_RESETS)) \
    R(6, "Segments Received/sec", "TCP segments received per second, those in error included " \
      "(Tcp InSegs).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_INSEGS)) \
    R(7, "Segments Sent/sec", "TCP segments sent per second, retransmissions excluded (Tcp " \
      "OutSegs).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_OUTSEGS)) \
    R(8, "Segments Retransmitted/sec", "TCP segments retransmitted per second (Tcp RetransSegs).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_RETRANS)) \
    R(9, "Receive Errors", "TCP segments received in error, since boot (Tcp InErrs).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_INERRS)) \
    R(10, "Resets Sent/sec", "TCP segments sent with the RST flag per second (Tcp OutRsts).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_OUTRSTS)) \
    R(11, "Checksum Errors", "TCP segments received with a bad checksum, since boot (Tcp " \
      "InCsumErrors).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_TCP_CSUM)) \
    R(12, "Listen Overflows", "Connections dropped because a listen queue was full, since boot " \
      "(TcpExt ListenOverflows of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_LOVER)) \
    R(13, "Listen Drops", "SYNs to listening sockets dropped for any reason, since boot (TcpExt " \
      "ListenDrops of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_LDROP)) \
    R(14, "Timeouts/sec", "TCP retransmission timeouts per second (TcpExt TCPTimeouts of " \
      "/proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_TIMEOUTS)) \
    R(15, "SYN Retransmits/sec", "SYN and SYN-ACK retransmissions per second (TcpExt " \
      "TCPSynRetrans of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_SYNRETR)) \
    TCPEXT_ROWS(R, X)

/* Linux-only TcpExt counters of /proc/net/netstat, ids from 16: the drops,
 * overflows and retransmission kinds operators alert on.  Events an alert
 * compares with a threshold per interval are /sec; drops and failures are
 * counts since boot, as Windows keeps its error counts. */
#define TCPEXT_ROWS(R, X) \
    R(16, "SYN Cookies Sent/sec", "SYN cookies sent per second because a listen queue's SYN " \
      "backlog was full (TcpExt SyncookiesSent of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_SCSENT)) \
    R(17, "SYN Cookies Received/sec", "Valid SYN cookies received back per second (TcpExt " \
      "SyncookiesRecv of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_SCRECV)) \
    R(18, "SYN Cookies Failed", "ACKs whose SYN cookie did not check, since boot (TcpExt " \
      "SyncookiesFailed of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_SCFAIL)) \
    R(19, "Receive Queue Prunes/sec", "Times a socket's receive queue was pruned for memory " \
      "per second (TcpExt PruneCalled of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_PRUNE)) \
    R(20, "Receive Queue Pruned Drops", "Packets dropped from a receive queue because pruning " \
      "could not free enough memory, since boot (TcpExt RcvPruned of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_RCVPRUNED)) \
    R(21, "Out-of-Order Queue Pruned Drops", "Packets dropped from an out-of-order queue to " \
      "free memory, since boot (TcpExt OfoPruned of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_OFOPRUNED)) \
    R(22, "Time Wait Finished/sec", "Sockets that finished TIME_WAIT per second (TcpExt TW " \
      "of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_TW)) \
    R(23, "Time Wait Overflows", "Sockets closed without a TIME_WAIT bucket because " \
      "tcp_max_tw_buckets was reached, since boot (TcpExt TCPTimeWaitOverflow of " \
      "/proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_TWOVERFLOW)) \
    R(24, "Lost Retransmits/sec", "Retransmitted segments lost again, per second (TcpExt " \
      "TCPLostRetransmit of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_LOSTRETR)) \
    R(25, "Fast Retransmits/sec", "Segments retransmitted by fast retransmit per second " \
      "(TcpExt TCPFastRetrans of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_FASTRETR)) \
    R(26, "Slow Start Retransmits/sec", "Segments retransmitted in slow start after a " \
      "timeout, per second (TcpExt TCPSlowStartRetrans of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_SSRETR)) \
    R(27, "Retransmit Failures", "Retransmissions the stack failed to send (no memory, " \
      "queue full), since boot (TcpExt TCPRetransFail of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_RETRFAIL)) \
    R(28, "Aborts On Data", "Connections reset because data arrived after the application " \
      "closed, since boot (TcpExt TCPAbortOnData of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_ABDATA)) \
    R(29, "Aborts On Memory", "Connections aborted for lack of memory or too many orphans, " \
      "since boot (TcpExt TCPAbortOnMemory of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_ABMEM)) \
    R(30, "Aborts On Timeout", "Connections aborted after their retransmission or keepalive " \
      "retries ran out, since boot (TcpExt TCPAbortOnTimeout of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_ABTIMEOUT)) \
    R(31, "Memory Pressures", "Times TCP entered memory pressure (tcp_mem's second " \
      "threshold), since boot (TcpExt TCPMemoryPressures of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_MEMPRESS)) \
    R(32, "Backlog Drops", "Segments dropped because a busy socket's backlog was full, " \
      "since boot (TcpExt TCPBacklogDrop of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_BACKLOGDROP)) \
    R(33, "Request Queue Full Drops", "SYNs dropped because the request queue was full and " \
      "SYN cookies were off, since boot (TcpExt TCPReqQFullDrop of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_REQQDROP)) \
    R(34, "Out-of-Order Queued/sec", "Segments put on an out-of-order queue per second " \
      "(TcpExt TCPOFOQueue of /proc/net/netstat).", \
      BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_OFOQUEUE)) \
    R(35, "Out-of-Order Drops", "Out-of-order segments dropped for lack of receive memory, " \
      "since boot (TcpExt TCPOFODrop of /proc/net/netstat).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_OFODROP)) \
    R(36, "Zero Window Drops", "Segments dropped because the receive window was zero, " \
      "since boot (TcpExt TCPZeroWindowDrop of /proc/net/netstat; newer kernels only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_ZWDROP)) \
    R(37, "Receive Queue Drops", "Segments dropped because the receive queue had no memory " \
      "left, since boot (TcpExt TCPRcvQDrop of /proc/net/netstat; newer kernels only).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), X(PL_TCP_RCVQDROP))

static const pl_counter_def tcp_counters[] = { TCP_ROWS(PL_ROW_COUNTER, _, _, _) };

#define TCP_F(x) PL_FIELD(S_MAIN, PL_SNMP_TCP + (x))
#define TCP_X(x) PL_FIELD(S_EXT, PL_NETSTAT_TCPEXT + (x) - PL_TCP_LOVER)
#define TCP_S(a, b) PL_SUM(S_MAIN, PL_SNMP_TCP + (a), PL_SNMP_TCP + (b))
static const pl_feed tcp4_rows[] = { TCP_ROWS(PL_ROW_FEED, TCP_F, TCP_X, TCP_S) };
static np_set tcp4_set = { snmp_netstat, 2, tcp4_rows };

/* ---- UDPv4 / UDPv6 ------------------------------------------------------------ */

/* UDP and UDP-Lite share the MIB layout: P names the protocol, v4 the
 * snmp line pair's tag, v6 the snmp6 key prefix. */
#define UDP_ROWS(R, F, S, P, v4, v6) \
    R(0, "Datagrams/sec", P " datagrams received and sent per second (" v4 " InDatagrams + " \
      "OutDatagrams of /proc/net/snmp; " v6 "InDatagrams + " v6 "OutDatagrams of " \
      "/proc/net/snmp6).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), S(PL_UDP_IN, PL_UDP_OUT)) \
    R(1, "Datagrams Received/sec", P " datagrams delivered to sockets per second (" v4 \
      " InDatagrams; " v6 "InDatagrams).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_IN)) \
    R(2, "Datagrams No Port/sec", "Received datagrams for a port nobody listens on, per second " \
      "(" v4 " NoPorts; " v6 "NoPorts).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_NOPORT)) \
    R(3, "Datagrams Received Errors", "Received datagrams that could not be delivered for other " \
      "reasons than no port, since boot (" v4 " InErrors; " v6 "InErrors).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_INERR)) \
    R(4, "Datagrams Sent/sec", P " datagrams sent per second (" v4 " OutDatagrams; " v6 \
      "OutDatagrams).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_OUT)) \
    R(5, "Receive Buffer Errors", "Datagrams dropped because a socket receive buffer was full, " \
      "since boot (" v4 " RcvbufErrors; " v6 "RcvbufErrors).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_RCVBUF)) \
    R(6, "Send Buffer Errors", "Datagrams dropped because a socket send buffer was full, since " \
      "boot (" v4 " SndbufErrors; " v6 "SndbufErrors).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_SNDBUF)) \
    R(7, "Checksum Errors", "Datagrams received with a bad checksum, since boot (" v4 \
      " InCsumErrors; " v6 "InCsumErrors).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_CSUM)) \
    R(8, "Ignored Multicast", "Broadcast or multicast datagrams no socket wanted, since boot " \
      "(" v4 " IgnoredMulti; " v6 "IgnoredMulti).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_IGNMULTI)) \
    R(9, "Memory Errors", "Datagrams dropped because the UDP memory limit was reached, since " \
      "boot (" v4 " MemErrors; " v6 "MemErrors).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), F(PL_UDP_MEMERR))

static const pl_counter_def udp_counters[] = { UDP_ROWS(PL_ROW_COUNTER, _, _, "UDP", "Udp", "Udp6") };
static const pl_counter_def udplite_counters[] = {
    UDP_ROWS(PL_ROW_COUNTER, _, _, "UDP-Lite", "UdpLite", "UdpLite6")
};

#define UDP_FEEDS(base) \
    UDP_ROWS(PL_ROW_FEED, UDPF_##base, UDPS_##base, "", "", "")
#define UDPF_4(x) PL_FIELD(S_MAIN, PL_SNMP_UDP + (x))
#define UDPS_4(a, b) PL_SUM(S_MAIN, PL_SNMP_UDP + (a), PL_SNMP_UDP + (b))
#define UDPF_6(x) PL_FIELD(S_MAIN, PL_SNMP6_UDP6 + (x))
#define UDPS_6(a, b) PL_SUM(S_MAIN, PL_SNMP6_UDP6 + (a), PL_SNMP6_UDP6 + (b))
#define UDPF_L4(x) PL_FIELD(S_MAIN, PL_SNMP_UDPLITE + (x))
#define UDPS_L4(a, b) PL_SUM(S_MAIN, PL_SNMP_UDPLITE + (a), PL_SNMP_UDPLITE + (b))
#define UDPF_L6(x) PL_FIELD(S_MAIN, PL_SNMP6_UDPLITE6 + (x))
#define UDPS_L6(a, b) PL_SUM(S_MAIN, PL_SNMP6_UDPLITE6 + (a), PL_SNMP6_UDPLITE6 + (b))
static const pl_feed udp4_rows[] = { UDP_FEEDS(4) };
static const pl_feed udp6_rows[] = { UDP_FEEDS(6) };
static const pl_feed udplite4_rows[] = { UDP_FEEDS(L4) };
static const pl_feed udplite6_rows[] = { UDP_FEEDS(L6) };
static np_set udp4_set = { snmp_only, 1, udp4_rows };
static np_set udp6_set = { snmp6_only, 1, udp6_rows };
static np_set udplite4_set = { snmp_only, 1, udplite4_rows };
static np_set udplite6_set = { snmp6_only, 1, udplite6_rows };

/* ---- ICMP / ICMPv6 ------------------------------------------------------------ */

/* The rows both sets have; v4 and v6 name the MIB keys in the help. */
#define ICMP_COMMON_ROWS(R, F, S, dest_unreach, v4, v6) \
    R(0, "Messages/sec", "ICMP messages received and sent per second (" v4 "InMsgs + " \
      v4 "OutMsgs" v6 ").", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), S(PL_ICMP_INMSG, PL_ICMP_OUTMSG)) \
    R(1, "Messages Received/sec", "ICMP messages received per second, those in error " \
      "included (" v4 "InMsgs).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INMSG)) \
    R(2, "Messages Received Errors", "ICMP messages received with errors such as a bad " \
      "checksum, since boot (" v4 "InErrors).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INERR)) \
    R(3, "Messages Sent/sec", "ICMP messages sent per second (" v4 "OutMsgs).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTMSG)) \
    R(4, "Messages Outbound Errors", "ICMP messages not sent because of errors within ICMP, " \
      "since boot (" v4 "OutErrors).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTERR)) \
    R(5, dest_unreach, "Destination Unreachable messages received, since boot (" v4 \
      "InDestUnreachs).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INDU)) \
    R(6, "Received Time Exceeded", "Time Exceeded messages received, since boot (" v4 \
      "InTimeExcds).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INTE)) \
    R(7, "Received Echo/sec", "Echo requests received per second (" v4 "InEchos).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INECHO))

#define ICMP_ROWS(R, F, S) \
    ICMP_COMMON_ROWS(R, F, S, "Received Dest. Unreachable", "Icmp ", " of /proc/net/snmp") \
    R(8, "Received Echo Reply/sec", "Echo replies received per second (Icmp InEchoReps).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INREP)) \
    R(9, "Sent Destination Unreachable", "Destination Unreachable messages sent, since " \
      "boot (Icmp OutDestUnreachs).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTDU)) \
    R(10, "Sent Echo/sec", "Echo requests sent per second (Icmp OutEchos).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTECHO)) \
    R(11, "Sent Echo Reply/sec", "Echo replies sent per second (Icmp OutEchoReps).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTREP))

/* Windows spells the IPv6 set's counter "Received Destination Unreachable". */
#define ICMP6_ROWS(R, F, S) \
    ICMP_COMMON_ROWS(R, F, S, "Received Destination Unreachable", "Icmp6", " of /proc/net/snmp6") \
    R(8, "Received Echo Reply/sec", "Echo replies received per second " \
      "(Icmp6InEchoReplies).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INREP)) \
    R(9, "Sent Destination Unreachable", "Destination Unreachable messages sent, since " \
      "boot (Icmp6OutDestUnreachs).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTDU)) \
    R(10, "Sent Echo/sec", "Echo requests sent per second (Icmp6OutEchos).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTECHO)) \
    R(11, "Sent Echo Reply/sec", "Echo replies sent per second (Icmp6OutEchoReplies).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTREP)) \
    R(12, "Received Packet Too Big", "Packet Too Big messages received, the path MTU " \
      "signal of IPv6, since boot (Icmp6InPktTooBigs).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_INPTB)) \
    R(13, "Sent Packet Too Big", "Packet Too Big messages sent, since boot " \
      "(Icmp6OutPktTooBigs).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), F(PL_ICMP_OUTPTB))

static const pl_counter_def icmp_counters[] = { ICMP_ROWS(PL_ROW_COUNTER, _, _) };
static const pl_counter_def icmp6_counters[] = { ICMP6_ROWS(PL_ROW_COUNTER, _, _) };

#define ICMP4_F(x) PL_FIELD(S_MAIN, PL_SNMP_ICMP + (x))
#define ICMP4_S(a, b) PL_SUM(S_MAIN, PL_SNMP_ICMP + (a), PL_SNMP_ICMP + (b))
#define ICMP6_F(x) PL_FIELD(S_MAIN, PL_SNMP6_ICMP6 + (x))
#define ICMP6_S(a, b) PL_SUM(S_MAIN, PL_SNMP6_ICMP6 + (a), PL_SNMP6_ICMP6 + (b))
static const pl_feed icmp4_rows[] = { ICMP_ROWS(PL_ROW_FEED, ICMP4_F, ICMP4_S) };
static const pl_feed icmp6_rows[] = { ICMP6_ROWS(PL_ROW_FEED, ICMP6_F, ICMP6_S) };
static np_set icmp4_set = { snmp_only, 1, icmp4_rows };
static np_set icmp6_set = { snmp6_only, 1, icmp6_rows };

/* ---- the table-driven provider --------------------------------------------------- */

typedef struct np_state {
    const np_set *set;
    uint32_t n;
    pl_ksrc *k[2];           /* the machine's readers of the set's sources */
} np_state;

static void np_close(void *state)
{
    free(state);             /* the readers are the environment's */
}

static int np_open(pl_env *env, const pl_counterset_def *cs, void **state)
{
    const np_set *set = cs->provider_data;
    np_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->set = set;
    s->n = cs->ncounters;
    for (unsigned k = 0; k < set->nsrc; k++)
        if (!(s->k[k] = pl_ksrc_attach(env, set->srcs[k].def))) {
            free(s);
            return ENOMEM;
        }
    *state = s;
    return 0;
}

static int np_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    np_state *s = state;
    pl_feed_in in;
    uint32_t need;
    int e;

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    need = pl_feed_need(s->set->rows, s->n, wanted);
    /* the main source is read whenever anything is wanted, so a set whose
     * files are all missing fails the same way whatever the query asks */
    if (need)
        need |= PL_BIT(S_MAIN);
    pl_feed_begin(&in, s->set->srcs, s->set->nsrc, s->k, snap, NULL);
    pl_feed_read(&in, need);
    if ((e = pl_feed_end(&in)) != 0)
        return e;
    pl_feed_walk(&in, 0, s->set->rows, s->n, wanted);
    return 0;
}

static const pl_provider_ops np_ops = { NULL, np_close, pl_single_instance, np_collect, np_open, NULL };

/* ---- TCPv6: connections from the /proc/net/tcp6 table ------------------------------ */

#define TCP6_ROWS(R) \
    R(0, "Connections Established", "IPv6 TCP connections in the ESTABLISHED or CLOSE_WAIT state " \
      "now, as TCPv4 counts them: the st 01 and 08 lines of /proc/net/tcp6.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(1, "Connections Listening", "IPv6 TCP sockets listening now: the st 0A lines of " \
      "/proc/net/tcp6.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(2, "Connections Time Wait", "IPv6 TCP connections in TIME_WAIT now: the st 06 lines of " \
      "/proc/net/tcp6.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(3, "Connections Total", "IPv6 TCP sockets in any state now: every line of /proc/net/tcp6.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND())


enum { C6_ESTAB, C6_LISTEN, C6_TIMEWAIT, C6_TOTAL, C6_N };

static const pl_counter_def tcp6_counters[] = { TCP6_ROWS(PL_ROW_COUNTER) };

typedef struct tcp6_state {
    pl_ksrc *k;              /* the machine's tcp6 source, shared with TCP States */
} tcp6_state;

static int tcp6_open(pl_env *env, void **state)
{
    tcp6_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    if (!(s->k = pl_ksrc_attach(env, &pl_ksrc_tcp6))) {
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static void tcp6_close(void *state)
{
    free(state);
}

static int tcp6_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    tcp6_state *s = state;
    const pl_tcptab *t;
    int e;
    (void)wanted;            /* one walk gives every count */

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    if ((e = pl_ksrc_get(s->k)) != 0) {
        snap->err_path = pl_ksrc_path(s->k);
        return e;
    }
    snap->time = pl_ksrc_time(s->k);
    t = pl_ksrc_data(s->k);
    if (t->st[PL_TT_TOTAL] != PL_NS_OK)
        return 0;            /* a malformed line: no count is trustworthy */
    pl_snap_set(snap, 0, C6_ESTAB, t->v[PL_TT_ESTABLISHED] + t->v[PL_TT_CLOSE_WAIT]);
    pl_snap_set(snap, 0, C6_LISTEN, t->v[PL_TT_LISTEN]);
    pl_snap_set(snap, 0, C6_TIMEWAIT, t->v[PL_TT_TIME_WAIT]);
    pl_snap_set(snap, 0, C6_TOTAL, t->v[PL_TT_TOTAL]);
    return 0;
}

static const pl_provider_ops tcp6_ops = { tcp6_open, tcp6_close, pl_single_instance, tcp6_collect, NULL, NULL };

/* ---- definitions ------------------------------------------------------------------ */

#define SINGLE PERF_COUNTERSET_SINGLE_INSTANCE

const pl_counterset_def pl_ipv4_def = {
    {0x870fb42a, 0x6264, 0x5175, {0x88, 0xde, 0x1a, 0xf8, 0x02, 0x41, 0x10, 0xb4}},
    "IPv4",
    "IPv4 datagram traffic and errors of this network namespace, from the Ip line pair of "
    "/proc/net/snmp and IpExt of /proc/net/netstat.",
    SINGLE, 0, NSTATIC(ip_counters), ip_counters, &np_ops, 7000, &ip4_set,
};

const pl_counterset_def pl_ipv6_def = {
    {0xff90b8cf, 0x7060, 0x57e6, {0xb5, 0x22, 0x4d, 0xe1, 0x9c, 0xbc, 0xd5, 0xdd}},
    "IPv6",
    "IPv6 datagram traffic and errors of this network namespace, from the Ip6 lines of "
    "/proc/net/snmp6 (absent when IPv6 is disabled at boot).",
    SINGLE, 0, NSTATIC(ip_counters), ip_counters, &np_ops, 8000, &ip6_set,
};

const pl_counterset_def pl_tcpv4_def = {
    {0x1a64366b, 0x36ff, 0x5767, {0xa8, 0xc1, 0x11, 0x19, 0x5c, 0x48, 0xc1, 0xaf}},
    "TCPv4",
    "TCP segments and connections of this network namespace, from the Tcp line pair of "
    "/proc/net/snmp and TcpExt of /proc/net/netstat; Linux keeps one TCP MIB, so these "
    "figures cover IPv4 and IPv6 together.",
    SINGLE, 0, NSTATIC(tcp_counters), tcp_counters, &np_ops, 9000, &tcp4_set,
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
    SINGLE, 0, NSTATIC(udp_counters), udp_counters, &np_ops, 11000, &udp4_set,
};

const pl_counterset_def pl_udpv6_def = {
    {0x6e13e8eb, 0xb7c2, 0x53a4, {0xab, 0x1b, 0x21, 0x05, 0x3f, 0x67, 0x26, 0xbc}},
    "UDPv6",
    "IPv6 UDP datagrams and errors of this network namespace, from the Udp6 lines of "
    "/proc/net/snmp6.",
    SINGLE, 0, NSTATIC(udp_counters), udp_counters, &np_ops, 12000, &udp6_set,
};

const pl_counterset_def pl_icmp_def = {
    {0xadbaffb2, 0xa77f, 0x5d33, {0x8a, 0xf8, 0x98, 0x17, 0x10, 0x3b, 0x0f, 0x0d}},
    "ICMP",
    "ICMP messages of this network namespace, from the Icmp line pair of /proc/net/snmp.",
    SINGLE, 0, NSTATIC(icmp_counters), icmp_counters, &np_ops, 13000, &icmp4_set,
};

const pl_counterset_def pl_icmpv6_def = {
    {0xdbdcb1ea, 0x62d0, 0x5029, {0x82, 0x56, 0x72, 0x13, 0x71, 0xa1, 0x71, 0xd4}},
    "ICMPv6",
    "ICMPv6 messages of this network namespace, from the Icmp6 lines of /proc/net/snmp6.",
    SINGLE, 0, NSTATIC(icmp6_counters), icmp6_counters, &np_ops, 28000, &icmp6_set,
};

/* "UDPLitev4": "UDP" completed to two sets (UDPv4, UDPv6) before, so no
 * prefix that named one set now names two. */
const pl_counterset_def pl_udplitev4_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x3fa72545, 0x82e9, 0x5266, { 0xa6, 0x27, 0x1f, 0x06, 0x23, 0x7e, 0x49, 0x8c } },
    "UDPLitev4",
    "IPv4 UDP-Lite (RFC 3828) datagrams and errors of this network namespace, from the UdpLite "
    "line pair of /proc/net/snmp; all zero unless an application opens IPPROTO_UDPLITE sockets.",
    SINGLE, 0, NSTATIC(udplite_counters), udplite_counters, &np_ops, 40000, &udplite4_set,
};

const pl_counterset_def pl_udplitev6_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x1777530c, 0x1863, 0x5ccd, { 0x93, 0x49, 0xd6, 0xbc, 0x85, 0x4d, 0x73, 0xa4 } },
    "UDPLitev6",
    "IPv6 UDP-Lite (RFC 3828) datagrams and errors of this network namespace, from the "
    "UdpLite6 lines of /proc/net/snmp6 (absent when IPv6 is disabled at boot).",
    SINGLE, 0, NSTATIC(udplite_counters), udplite_counters, &np_ops, 41000, &udplite6_set,
};
