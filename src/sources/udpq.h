/* /proc/net/udp and /proc/net/udp6 as kernel sources (pl_ksrc.h): the
 * socket tables of net/ipv4/udp.c (udp4_format_sock) and net/ipv6/
 * datagram.c (__ip6_dgram_sock_seq_show), summed into queue totals in one
 * walk per collect: O(sockets), so the set reading them is costly.
 *
 * A line is "sl: local rem st tx_queue:rx_queue tr:tm->when retrnsmt uid
 * timeout inode ref pointer drops"; the queues are sk_wmem_alloc and
 * sk_rmem_alloc in hex (bytes charged, skb overhead included), drops is
 * sk_drops in decimal (2.6.27 and later: the header then ends with
 * "drops"; without it Drops stays absent).  A line that does not have
 * that shape makes every value PL_NS_BAD: a sum over a table that was
 * misread is not given. */
#ifndef PL_UDPQ_H
#define PL_UDPQ_H

#include "pl_ksrc.h"

enum { PL_UQ_SOCKETS, PL_UQ_RXQ, PL_UQ_TXQ, PL_UQ_RXBUSY, PL_UQ_RXMAX, PL_UQ_DROPS, PL_UQ_N };

typedef struct pl_udpq {
    uint64_t v[PL_UQ_N];
    uint8_t st[PL_UQ_N];     /* PL_NS_* */
} pl_udpq;

/* seq_file iterators: read until 0 */
extern const pl_ksrc_def pl_ksrc_udp, pl_ksrc_udp6;

/* One line of a /proc/net/{tcp,udp}[6] socket table, up to nl: its state
 * (st, hex), its queues (tx_queue:rx_queue, hex) and, when has_drops, the
 * drops column; 1, or 0 when the line does not have that shape.  Shared by
 * the TCP tables (tcptab.h). */
typedef struct pl_sockline {
    unsigned state;
    uint64_t tx, rx, drops;
} pl_sockline;
int pl_socktab_line(const char *p, const char *nl, int has_drops, pl_sockline *out);

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0, or EINVAL when
 * the first line is not the table's header. */
int pl_parse_udpq(const char *buf, size_t len, void *out);

#endif
