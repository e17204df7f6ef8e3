/* NFS Server (single instance): the kernel NFS server of this network
 * namespace, from /proc/net/rpc/nfsd (nfsd.h), a kernel source read once
 * per collect.  A set made only of rows (pl_rowset_ops).  Without the nfsd
 * module the file is missing and the set fails with ENOENT.
 *
 * The packet, RPC and operation counts are 32 bits in the kernel: when one
 * wraps, its rate over that interval is a status, never a wrong number
 * (the delta is negative). */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "nfsd.h"

#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { S_NFSD, NSRC };

#define RATE(R, id, name, det, f, u, what) \
    R(PL_NFSD_##id, name, what " per second (/proc/net/rpc/nfsd " f ").", BULK, PL_NO_ID, det, 0, \
      PL_U(u, 1, COUNTER), PL_FIELD(S_NFSD, PL_NFSD_##id))

#define NFSD_ROWS(R) \
    RATE(R, V3_OPS, "NFSv3 Operations/sec", NOV, "proc3, summed", COUNT, "NFSv3 operations") \
    RATE(R, V4_COMPOUNDS, "NFSv4 Compounds/sec", NOV, "proc4 compound", COUNT, \
         "NFSv4 COMPOUND requests") \
    RATE(R, V4_OPS, "NFSv4 Operations/sec", NOV, "proc4ops, summed", COUNT, \
         "NFSv4 operations inside the compounds") \
    RATE(R, IO_READ, "Bytes Read/sec", NOV, "io, first", BYTES, "Bytes read from files for clients") \
    RATE(R, IO_WRITE, "Bytes Written/sec", NOV, "io, second", BYTES, \
         "Bytes written to files for clients") \
    R(PL_NFSD_THREADS, "Threads", "nfsd threads running (/proc/net/rpc/nfsd th).", RAW, PL_NO_ID, \
      NOV, 0, PL_U(COUNT, 1, GAUGE), PL_FIELD(S_NFSD, PL_NFSD_THREADS)) \
    RATE(R, RPC_CALLS, "RPC Calls/sec", NOV, "rpc calls", COUNT, "RPC calls received") \
    RATE(R, RPC_BAD, "RPC Bad Calls/sec", NOV, "rpc badcalls", COUNT, \
         "RPC calls rejected: bad format, authentication or client") \
    RATE(R, RPC_BADFMT, "RPC Bad Format/sec", ADV, "rpc badfmt", COUNT, "Malformed RPC calls") \
    RATE(R, RPC_BADAUTH, "RPC Bad Auth/sec", ADV, "rpc badauth", COUNT, \
         "RPC calls that failed authentication") \
    RATE(R, RPC_BADCLNT, "RPC Bad Client/sec", ADV, "rpc badclnt", COUNT, \
         "RPC calls from clients not allowed") \
    RATE(R, NET_COUNT, "Packets/sec", ADV, "net count", COUNT, "Network packets received") \
    RATE(R, NET_UDP, "UDP Packets/sec", ADV, "net udp", COUNT, "UDP packets received") \
    RATE(R, NET_TCP, "TCP Packets/sec", ADV, "net tcp", COUNT, "TCP packets received") \
    RATE(R, NET_TCPCONN, "TCP Connections/sec", ADV, "net tcpconn", COUNT, "TCP connections accepted") \
    RATE(R, RC_HITS, "Reply Cache Hits/sec", ADV, "rc hits", COUNT, \
         "Retransmitted requests answered from the reply cache") \
    RATE(R, RC_MISSES, "Reply Cache Misses/sec", ADV, "rc misses", COUNT, \
         "Requests looked up in the reply cache and not found") \
    RATE(R, RC_NOCACHE, "Reply Cache Bypassed/sec", ADV, "rc nocache", COUNT, \
         "Requests that are never cached (reads, lookups)") \
    R(PL_NFSD_FH_STALE, "Stale File Handles", "Requests with a file handle that no longer " \
      "exists, since the module loaded (/proc/net/rpc/nfsd fh stale).", LRAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_NFSD, PL_NFSD_FH_STALE))

/* Counter ids are the source's field numbers, so a row's id names its field. */
static const pl_counter_def counters[] = { NFSD_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { NFSD_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(&pl_ksrc_nfsd, pl_nfsd) };
static pl_rowset rowset = { srcs, NSRC, feeds };

const pl_counterset_def pl_nfsd_def = {
    /* UUIDv5(perflib namespace, "NFS Server") */
    { 0x63b8e615, 0x89ce, 0x50ee, { 0xb1, 0x99, 0x46, 0x1e, 0x10, 0x1c, 0x5b, 0x6f } },
    "NFS Server",
    "The kernel NFS server of this network namespace, from /proc/net/rpc/nfsd: operations, "
    "bytes, RPC calls and errors, packets, the reply cache; absent without the nfsd module.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, sizeof counters / sizeof counters[0], counters,
    &pl_rowset_ops, 36000, &rowset,
};
