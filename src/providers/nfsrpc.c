/* NFS RPC Client (single instance): the NFS client's RPC totals of this
 * network namespace, from /proc/net/rpc/nfs (nfsrpc.h), a kernel source
 * read once per collect; every mount counts here, where NFS Client splits
 * by mount (mountstats).  A set made only of rows (pl_rowset_ops).  Without
 * the nfs module the file is missing and the set fails with ENOENT.
 *
 * The net line is left out: the client never counts in it (net/sunrpc's
 * svc side does, for the server, see NFS Server).  The counts are 32 bits in
 * the kernel: when one wraps, its rate over that interval is a status, never
 * a wrong number (the delta is negative). */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "nfsrpc.h"

#define BULK PERF_COUNTER_BULK_COUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { S_RPC, NSRC };
/* ids past the source's fields */
enum { C_RETRANS_PCT = PL_NFSRPC_N, C_RETRANS_BASE };

#define OPS(R, id, name, f, what) \
    R(PL_NFSRPC_##id, name, what " per second (/proc/net/rpc/nfs " f ", summed).", BULK, \
      PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RPC, PL_NFSRPC_##id))

#define NFSRPC_ROWS(R) \
    R(PL_NFSRPC_CALLS, "RPC Calls/sec", "RPC calls sent by the NFS client per second " \
      "(/proc/net/rpc/nfs rpc, first).", BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_RPC, PL_NFSRPC_CALLS)) \
    R(PL_NFSRPC_RETRANS, "RPC Retransmissions/sec", "RPC calls sent again after a timeout, " \
      "per second (/proc/net/rpc/nfs rpc, second): a server or network that does not answer.", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RPC, PL_NFSRPC_RETRANS)) \
    R(C_RETRANS_PCT, "% RPC Retransmissions", "Retransmissions as a share of the calls sent " \
      "over the interval (/proc/net/rpc/nfs rpc, second over first).", PERF_SAMPLE_FRACTION, \
      C_RETRANS_BASE, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RPC, PL_NFSRPC_RETRANS)) \
    R(C_RETRANS_BASE, "% RPC Retransmissions Base", "RPC calls sent (/proc/net/rpc/nfs rpc, " \
      "first), the base of % RPC Retransmissions.", PERF_SAMPLE_BASE, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RPC, PL_NFSRPC_CALLS)) \
    R(PL_NFSRPC_AUTHREFRESH, "RPC Auth Refreshes/sec", "Credential refreshes per second " \
      "(/proc/net/rpc/nfs rpc, third; Kerberos tickets renewed).", BULK, PL_NO_ID, ADV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_RPC, PL_NFSRPC_AUTHREFRESH)) \
    OPS(R, V3_OPS, "NFSv3 Operations/sec", "proc3", "NFSv3 procedures called") \
    OPS(R, V4_OPS, "NFSv4 Operations/sec", "proc4", "NFSv4 operations called") \
    OPS(R, V2_OPS, "NFSv2 Operations/sec", "proc2", "NFSv2 procedures called")

static const pl_counter_def counters[] = { NFSRPC_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { NFSRPC_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(&pl_ksrc_nfsrpc, pl_nfsrpc) };
static pl_rowset rowset = { srcs, NSRC, feeds };

const pl_counterset_def pl_nfsrpc_def = {
    /* UUIDv5(perflib namespace, its name) */
    { 0x3dbc3481, 0x0231, 0x53fc, { 0xa6, 0x4e, 0xcf, 0xd7, 0x12, 0xdb, 0xb2, 0x60 } },
    "NFS RPC Client",
    "The NFS client's RPC totals of this network namespace over every mount, from "
    "/proc/net/rpc/nfs: calls, retransmissions, credential refreshes, NFSv2/v3/v4 "
    "operations; absent without the nfs module.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, sizeof counters / sizeof counters[0], counters,
    &pl_rowset_ops, 38000, &rowset,
};
