/* UDP Queues (issue 17, item 2): what is waiting in the UDP sockets of this
 * network namespace, from a walk of /proc/net/udp (instance IPv4) and
 * /proc/net/udp6 (IPv6), one line per socket: O(sockets), so the set is
 * costly.  The UDP MIB counts drops as they happen (UDPv4's Receive Buffer
 * Errors); this set shows the queues that lead to them: bytes queued for
 * receive and send, how many sockets have a receive backlog, the largest
 * one, and the drops of the sockets open now.
 *
 * Errors: each file is one source.  One that is missing (IPv6 disabled:
 * no udp6) or unreadable drops its instance; _Total sums the instances
 * present; the set fails (errno, err_path) only when both failed.  A table
 * with a malformed line leaves its instance's values and _Total's unset. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "udpq.h"
#include "sockfam.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED


#define UQ_ROWS(R) \
    R(0, "Sockets", "UDP sockets open now: the lines of /proc/net/udp (IPv4) or " \
      "/proc/net/udp6 (IPv6).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(PL_SF_ROW, PL_UQ_SOCKETS)) \
    R(1, "Receive Queue Bytes", "Bytes waiting to be read, summed over the sockets: the " \
      "rx_queue column of /proc/net/udp or udp6 (sk_rmem_alloc, buffer overhead included).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(PL_SF_ROW, PL_UQ_RXQ)) \
    R(2, "Send Queue Bytes", "Bytes waiting to be sent, summed over the sockets: the " \
      "tx_queue column of /proc/net/udp or udp6 (sk_wmem_alloc).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(PL_SF_ROW, PL_UQ_TXQ)) \
    R(3, "Sockets With Receive Queue", "Sockets whose rx_queue in /proc/net/udp or udp6 is " \
      "above 0: readers that fall behind.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(PL_SF_ROW, PL_UQ_RXBUSY)) \
    R(4, "Largest Receive Queue Bytes", "The largest rx_queue of one socket in " \
      "/proc/net/udp or udp6: compare with net.core.rmem_default / SO_RCVBUF.", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(PL_SF_ROW, PL_UQ_RXMAX)) \
    R(5, "Drops", "Datagrams dropped by the sockets open now, since each was opened (the " \
      "drops column of /proc/net/udp or udp6, sk_drops); it falls when sockets close.", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(PL_SF_ROW, PL_UQ_DROPS))

static const pl_counter_def counters[] = { UQ_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { UQ_ROWS(PL_ROW_FEED) };
#define NC (sizeof counters / sizeof counters[0])

static const pl_feed_src srcs[PL_SF_NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_udp, pl_udpq), PL_FEED_SRC_ST(&pl_ksrc_udp6, pl_udpq),
    PL_FEED_SRC_ST(NULL, pl_udpq),
};

static const pl_sockfam fam = {
    srcs, feeds, NC, PL_UQ_N, offsetof(pl_udpq, v), offsetof(pl_udpq, st), PL_UQ_RXMAX,
};

PL_SOCKFAM_OPS(uq, fam, pl_udpq);

const pl_counterset_def pl_udpqueue_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x2a317c97, 0xe53f, 0x5d98, { 0x99, 0x2c, 0x9d, 0xa3, 0xec, 0x59, 0x92, 0xc1 } },
    "UDP Queues",
    "Bytes queued in the UDP sockets of this network namespace and their drops, per family and "
    "_Total, from a walk of /proc/net/udp and /proc/net/udp6 that costs time in proportion to "
    "the sockets (costly).",
    PERF_COUNTERSET_MULTI_INSTANCES, 1, NC, counters, &uq_ops, 42000, NULL,
};
