/* Sockets (single instance): socket counts and socket memory of the query's
 * network namespace, from /proc/net/sockstat and /proc/net/sockstat6, the
 * machine's sources (sockstat.h), each read once per collect.
 *
 * Each file is one source (pl_sources): an unreadable or empty one leaves
 * only its own counters unset, and the set fails only when every file it
 * read failed.  sockstat6 is missing when IPv6 is disabled at boot; then only
 * the IPv6 counters are unset, since the IPv4 figures are still true.  "mem"
 * counts pages (converted with the page size); FRAG "memory" is bytes. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "sockstat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_RAWCOUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define SK_ROWS(R) \
    R(0, "Sockets Used", "Sockets of all families allocated now (sockstat \"sockets: used\").", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_USED)) \
    R(1, "TCP In Use", "TCP sockets in use now, listening ones included, IPv4 only (sockstat " \
        "\"TCP: inuse\").", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_TCP_INUSE)) \
    R(2, "TCP Orphans", "TCP sockets no longer attached to a file descriptor, still closing " \
        "(sockstat \"TCP: orphan\").", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_TCP_ORPHAN)) \
    R(3, "TCP TIME_WAIT", "TCP connections in TIME_WAIT, both families (sockstat \"TCP: tw\").", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_TCP_TW)) \
    R(4, "TCP Allocated", "TCP sockets allocated, both families and all states (sockstat \"TCP: " \
        "alloc\").", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_TCP_ALLOC)) \
    R(5, "TCP Memory Bytes", "Memory charged to TCP socket buffers, in bytes (sockstat \"TCP: " \
        "mem\" pages x page size).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_V4), tcp_mem)) \
    R(6, "UDP In Use", "IPv4 UDP sockets in use now (sockstat \"UDP: inuse\").", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_UDP_INUSE)) \
    R(7, "UDP Memory Bytes", "Memory charged to UDP socket buffers, in bytes (sockstat \"UDP: " \
        "mem\" pages x page size).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_DERIVE(PL_BIT(S_V4), udp_mem)) \
    R(8, "RAW In Use", "IPv4 raw sockets in use now (sockstat \"RAW: inuse\").", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_RAW_INUSE)) \
    R(9, "FRAG In Use", "IPv4 fragment reassembly queues now (sockstat \"FRAG: inuse\").", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V4, PL_SS_FRAG_INUSE)) \
    R(10, "FRAG Memory Bytes", "Memory held by IPv4 fragment reassembly, in bytes (sockstat " \
        "\"FRAG: memory\").", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(S_V4, PL_SS_FRAG_MEM)) \
    R(11, "TCP6 In Use", "IPv6 TCP sockets in use now (sockstat6 \"TCP6: inuse\").", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V6, PL_SS_TCP6_INUSE)) \
    R(12, "UDP6 In Use", "IPv6 UDP sockets in use now (sockstat6 \"UDP6: inuse\").", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V6, PL_SS_UDP6_INUSE)) \
    R(13, "RAW6 In Use", "IPv6 raw sockets in use now (sockstat6 \"RAW6: inuse\").", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V6, PL_SS_RAW6_INUSE)) \
    R(14, "FRAG6 In Use", "IPv6 fragment reassembly queues now (sockstat6 \"FRAG6: inuse\").", \
      RAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_V6, PL_SS_FRAG6_INUSE)) \
    R(15, "FRAG6 Memory Bytes", "Memory held by IPv6 fragment reassembly, in bytes (sockstat6 " \
        "\"FRAG6: memory\").", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(S_V6, PL_SS_FRAG6_MEM))

enum { S_V4, S_V6, NSRC };

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_sockstat, pl_sockstat),
    PL_FEED_SRC_ST(&pl_ksrc_sockstat6, pl_sockstat),
};

/* "mem" counts pages: in bytes with the machine's page size (ctx, the env). */
static int mem_bytes(pl_feed_in *in, unsigned f, uint64_t *v)
{
    uint64_t pages;
    return pl_feed_field(in, S_V4, f, &pages) &&
           pl_mul_ok(pages, (uint64_t)pl_env_page_size(in->ctx), v);
}

static int tcp_mem(pl_feed_in *in, uint64_t *v)
{
    return mem_bytes(in, PL_SS_TCP_MEM, v);
}

static int udp_mem(pl_feed_in *in, uint64_t *v)
{
    return mem_bytes(in, PL_SS_UDP_MEM, v);
}

static const pl_counter_def counters[] = { SK_ROWS(PL_ROW_COUNTER) };
static const pl_feed rows_feed[] = { SK_ROWS(PL_ROW_FEED) };

#define NC (sizeof counters / sizeof counters[0])
_Static_assert(NC == PL_SS_N, "one row per sockstat field");

static pl_rowset rowset = { srcs, NSRC, rows_feed };

const pl_counterset_def pl_sockets_def = {
    {0x23006823, 0x5d1c, 0x556c, {0xb9, 0x5d, 0x09, 0x69, 0x94, 0x1a, 0x91, 0xba}},
    "Sockets",
    "Sockets in use and socket buffer memory of this network namespace by protocol, from "
    "/proc/net/sockstat and /proc/net/sockstat6.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, NC, counters, &pl_rowset_ops, 26000, &rowset,
};
