/* TCP States (costly): the TCP sockets of this network namespace by state,
 * per family (instances IPv4 from /proc/net/tcp, IPv6 from tcp6) and
 * _Total, with the bytes waiting in their queues and the connections
 * waiting in listeners' accept queues: PCP's network.tcpconn and
 * node_exporter's tcpstat.  A walk of one line per socket (tcptab.h), so
 * costly; TCPv6 reads the same tcp6 source, once per collect for both.
 * A table with a malformed line leaves its instance's values and _Total's
 * unset; a missing table (IPv6 disabled) drops its instance (sockfam.h). */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "sockfam.h"
#include "tcptab.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

#define STATE_ROW(R, id, name, st, what, detail) \
    R(id, name, "TCP sockets " what " now: the st " st " lines of /proc/net/tcp or tcp6.", LRAW, \
      PL_NO_ID, detail, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(PL_SF_ROW, id))

#define TS_ROWS(R) \
    R(0, "Sockets", "TCP sockets in any state now: every line of /proc/net/tcp or tcp6 " \
      "(request sockets and TIME_WAIT included).", LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(PL_SF_ROW, PL_TT_TOTAL)) \
    STATE_ROW(R, 1, "Established", "01", "with an open connection (ESTABLISHED)", NOV) \
    STATE_ROW(R, 2, "SYN Sent", "02", "connecting (SYN_SENT)", ADV) \
    STATE_ROW(R, 3, "SYN Received", "03", "half open, or requests waiting for the handshake's end " \
              "(SYN_RECV)", NOV) \
    STATE_ROW(R, 4, "FIN Wait 1", "04", "closing, their FIN not yet acknowledged (FIN_WAIT1)", ADV) \
    STATE_ROW(R, 5, "FIN Wait 2", "05", "closed here, waiting for the peer's FIN (FIN_WAIT2)", ADV) \
    STATE_ROW(R, 6, "Time Wait", "06", "closed, waiting out stray segments (TIME_WAIT)", NOV) \
    STATE_ROW(R, 7, "Close", "07", "closed (CLOSE)", ADV) \
    STATE_ROW(R, 8, "Close Wait", "08", "closed by the peer, not yet by the application " \
              "(CLOSE_WAIT; many of them are a leak)", NOV) \
    STATE_ROW(R, 9, "Last Ack", "09", "closing, waiting for the last acknowledgement (LAST_ACK)", ADV) \
    STATE_ROW(R, 10, "Listen", "0A", "listening (LISTEN)", NOV) \
    STATE_ROW(R, 11, "Closing", "0B", "closing on both sides at once (CLOSING)", ADV) \
    R(12, "Other States", "TCP sockets in a state number beyond CLOSING in /proc/net/tcp or " \
      "tcp6 (none on current kernels).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(PL_SF_ROW, PL_TT_OTHER)) \
    R(13, "Receive Queue Bytes", "Bytes received and not yet read, summed over the sockets that " \
      "are not listening (rx_queue of /proc/net/tcp or tcp6).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(PL_SF_ROW, PL_TT_RXQ)) \
    R(14, "Send Queue Bytes", "Bytes sent and not yet acknowledged, summed over the sockets " \
      "(tx_queue of /proc/net/tcp or tcp6).", LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), \
      PL_FIELD(PL_SF_ROW, PL_TT_TXQ)) \
    R(15, "Accept Queue Length", "Connections waiting to be accepted, summed over the listening " \
      "sockets (their rx_queue in /proc/net/tcp or tcp6, sk_ack_backlog): a backlog that grows " \
      "is a server that falls behind.", LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(PL_SF_ROW, PL_TT_BACKLOG))

static const pl_counter_def counters[] = { TS_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { TS_ROWS(PL_ROW_FEED) };
#define NC (sizeof counters / sizeof counters[0])

static const pl_feed_src srcs[PL_SF_NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_tcp, pl_tcptab), PL_FEED_SRC_ST(&pl_ksrc_tcp6, pl_tcptab),
    PL_FEED_SRC_ST(NULL, pl_tcptab),
};

static const pl_sockfam fam = {
    srcs, feeds, NC, PL_TT_N, offsetof(pl_tcptab, v), offsetof(pl_tcptab, st), -1,
};

PL_SOCKFAM_OPS(ts, fam, pl_tcptab);

const pl_counterset_def pl_tcpstates_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x471282dc, 0x2641, 0x55b6, { 0x82, 0xe3, 0xa2, 0x5f, 0x58, 0x45, 0xb4, 0x89 } },
    "TCP States",
    "TCP sockets of this network namespace by state (established, listening, time wait, close "
    "wait ...), their queued bytes and the connections waiting to be accepted, per family and "
    "_Total, from a walk of /proc/net/tcp and tcp6 that costs time in proportion to the sockets "
    "(costly).",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NC, counters, &ts_ops, 62000, NULL,
};
