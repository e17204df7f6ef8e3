/* /proc/net/rpc/nfs as a kernel source (pl_ksrc.h): the NFS client's RPC
 * totals of this network namespace (net/sunrpc/stats.c rpc_proc_show, the
 * same layout since 2.6), parsed once per collect.  It exists while the nfs
 * module is loaded, mounts or not.  Lines are found by their tag:
 *
 *   net <packets> <udp> <tcp> <tcp connections>   (a client leaves them 0)
 *   rpc <calls> <retransmissions> <auth refreshes>
 *   proc2 <n> <count> x n                         NFSv2 procedures (when built in)
 *   proc3 <n> <count> x n                         NFSv3 procedures
 *   proc4 <n> <count> x n                         NFSv4 operations (n grows with
 *                                                 the kernel: 59 in 4.x, 69 in 5.x)
 *
 * The proc lines are kept as their sums.  A missing line leaves its fields
 * absent; one whose values are not decimals, fewer than it says, or cut off
 * leaves them PL_NS_BAD.  The kernel's counts are 32 bits (unsigned int)
 * and wrap; the sums wrap with them. */
#ifndef PL_NFSRPC_H
#define PL_NFSRPC_H

#include "pl_ksrc.h"

enum {
    PL_NFSRPC_NET_COUNT, PL_NFSRPC_NET_UDP, PL_NFSRPC_NET_TCP, PL_NFSRPC_NET_TCPCONN,
    PL_NFSRPC_CALLS, PL_NFSRPC_RETRANS, PL_NFSRPC_AUTHREFRESH,
    PL_NFSRPC_V2_OPS, PL_NFSRPC_V3_OPS, PL_NFSRPC_V4_OPS, PL_NFSRPC_N
};

typedef struct pl_nfsrpc {
    uint64_t v[PL_NFSRPC_N];
    uint8_t st[PL_NFSRPC_N];
} pl_nfsrpc;

/* single_open (rpc_proc_show): the whole text per read */
extern const pl_ksrc_def pl_ksrc_nfsrpc;

/* The pure parser (buf[len] is '\0'; safe on any bytes): always 0. */
int pl_parse_nfsrpc(const char *buf, size_t len, void *out);

#endif
