/* IPVS totals as a kernel source (pl_ksrc.h), read once per collect:
 *
 *   proc/net/ip_vs_stats   the whole virtual server's totals since the
 *                          module loaded, then its current rates
 *
 * The table (net/netfilter/ipvs/ip_vs_ctl.c ip_vs_stats_show, the same
 * since 2.6.x; node_exporter's ipvs collector reads it through procfs):
 *
 *      Total Incoming Outgoing         Incoming         Outgoing
 *      Conns  Packets  Packets            Bytes            Bytes
 *          4F     1A5F      7E9          38B1C21           9C5B12
 *
 *    Conns/s   Pkts/s   Pkts/s          Bytes/s          Bytes/s
 *           0        0        0                0                0
 *
 * Fields are upper-case hex without 0x (%8LX, %16LX).  Only the totals are
 * kept: the rates are the kernel's 2-second estimates, and perflib makes
 * its own from the totals.  The totals are the first line of five hex
 * fields after the "Conns" header line; the line must be whole.  A file
 * without the two header lines (another layout), or a totals line that is
 * not five hex fields of at most 16 digits, leaves every field PL_NS_BAD;
 * a file cut off before the totals leaves them PL_NS_ABSENT.  Without the
 * ip_vs module the file does not exist (ENOENT). */
#ifndef PL_IPVS_H
#define PL_IPVS_H

#include "pl_ksrc.h"

enum { PL_IPVS_CONNS, PL_IPVS_INPKTS, PL_IPVS_OUTPKTS, PL_IPVS_INBYTES, PL_IPVS_OUTBYTES,
       PL_IPVS_N };

typedef struct pl_ipvs_stats {
    uint64_t v[PL_IPVS_N];
    uint8_t st[PL_IPVS_N];   /* PL_NS_* */
} pl_ipvs_stats;

extern const pl_ksrc_def pl_ksrc_ipvs_stats;

/* The pure parser (buf[len] is '\0'; safe on any bytes).  Always 0. */
int pl_parse_ipvs_stats(const char *buf, size_t len, void *out);

#endif
