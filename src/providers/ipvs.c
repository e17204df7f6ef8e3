/* IPVS (single instance): the totals of the kernel's IP virtual server
 * from /proc/net/ip_vs_stats (ipvs.h), as rates: connections scheduled,
 * packets and bytes in and out, over every virtual service.  A set made
 * only of rows (pl_rowset_ops).
 *
 * Without the ip_vs module the file does not exist and the set fails with
 * ENOENT (a machine with no load balancer); a table of another layout
 * leaves every counter unset (no_data).  Kernels before 6.2 count the
 * totals per CPU and sum them when read; a wrap of an older kernel's 32-bit
 * connection or packet count is a negative delta, never a made-up rate. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "ipvs.h"

#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE

enum { S_STATS, NSRC };

#define RATE(R, id, name, what, f, kind) \
    R(id, name, what " per second, over every virtual service (/proc/net/ip_vs_stats " \
      "totals, hex).", BULK, PL_NO_ID, NOV, 0, PL_U(kind, 1, COUNTER), PL_FIELD(S_STATS, f))

#define IPVS_ROWS(R) \
    RATE(R, 0, "Connections/sec", "Connections the virtual server scheduled", PL_IPVS_CONNS, \
         COUNT) \
    RATE(R, 1, "Incoming Packets/sec", "Packets received from clients", PL_IPVS_INPKTS, COUNT) \
    RATE(R, 2, "Outgoing Packets/sec", "Packets sent back to clients (NAT and tunnels; 0 " \
         "with direct routing)", PL_IPVS_OUTPKTS, COUNT) \
    RATE(R, 3, "Incoming Bytes/sec", "Bytes received from clients", PL_IPVS_INBYTES, BYTES) \
    RATE(R, 4, "Outgoing Bytes/sec", "Bytes sent back to clients", PL_IPVS_OUTBYTES, BYTES)

static const pl_counter_def counters[] = { IPVS_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { IPVS_ROWS(PL_ROW_FEED) };

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_ipvs_stats, pl_ipvs_stats),
};

static pl_rowset rowset = { srcs, NSRC, feeds };

const pl_counterset_def pl_ipvs_def = {
    /* UUIDv5(perflib namespace, "IPVS") */
    { 0xdb70cafd, 0xf232, 0x5aa2, { 0x82, 0xa4, 0xef, 0x99, 0x0b, 0x6f, 0x32, 0xb3 } },
    "IPVS",
    "Totals of the kernel's IP virtual server (LVS) as rates, from /proc/net/ip_vs_stats: "
    "connections, packets and bytes in and out; absent without the ip_vs module.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, sizeof counters / sizeof counters[0], counters,
    &pl_rowset_ops, 55000, &rowset,
};
