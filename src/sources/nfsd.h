/* /proc/net/rpc/nfsd as a kernel source (pl_ksrc.h): the NFS server's
 * statistics (fs/nfsd/stats.c nfsd_show and net/sunrpc/stats.c
 * svc_seq_show), parsed once per collect.  It exists while the nfsd module
 * is loaded.  Lines are found by their tag, never by position:
 *
 *   rc <hits> <misses> <nocache>           the reply cache
 *   fh <stale> ...                         file handles
 *   io <read bytes> <written bytes>
 *   th <threads> ...
 *   net <packets> <udp> <tcp> <tcp connections>
 *   rpc <calls> <bad> <badfmt> <badauth> <badclnt>
 *   proc3 <n> <count> x n                  NFSv3 operations
 *   proc4 <n> <null> <compound>            NFSv4 compounds
 *   proc4ops <n> <count> x n               NFSv4 operations in them
 *
 * The op lines are kept as their sums.  A line that is missing leaves its
 * fields absent; one whose values are not decimals, fewer than it says, or
 * cut off leaves them PL_NS_BAD.  The net, rpc and op counts are 32 bits in
 * the kernel and wrap. */
#ifndef PL_NFSD_H
#define PL_NFSD_H

#include "pl_ksrc.h"

enum {
    PL_NFSD_RC_HITS, PL_NFSD_RC_MISSES, PL_NFSD_RC_NOCACHE, PL_NFSD_FH_STALE,
    PL_NFSD_IO_READ, PL_NFSD_IO_WRITE, PL_NFSD_THREADS,
    PL_NFSD_NET_COUNT, PL_NFSD_NET_UDP, PL_NFSD_NET_TCP, PL_NFSD_NET_TCPCONN,
    PL_NFSD_RPC_CALLS, PL_NFSD_RPC_BAD, PL_NFSD_RPC_BADFMT, PL_NFSD_RPC_BADAUTH,
    PL_NFSD_RPC_BADCLNT, PL_NFSD_V3_OPS, PL_NFSD_V4_COMPOUNDS, PL_NFSD_V4_OPS, PL_NFSD_N
};

typedef struct pl_nfsd {
    uint64_t v[PL_NFSD_N];
    uint8_t st[PL_NFSD_N];
} pl_nfsd;

/* single_open (nfsd_show): the whole text per read */
extern const pl_ksrc_def pl_ksrc_nfsd;

/* The pure parser (buf[len] is '\0'; safe on any bytes): always 0. */
int pl_parse_nfsd(const char *buf, size_t len, void *out);

#endif
