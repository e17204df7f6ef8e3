/* /proc/net/tcp and /proc/net/tcp6 as kernel sources (pl_ksrc.h): the
 * sockets of net/ipv4/tcp_ipv4.c (get_tcp4_sock, get_openreq4,
 * get_timewait4_sock) and net/ipv6/tcp_ipv6.c, counted by state in one
 * walk per collect: O(sockets), so the sets reading them are costly.
 *
 * A line is "sl: local rem st tx_queue:rx_queue tr:when retrnsmt uid
 * timeout inode ..." (udpq.h's pl_socktab_line).  st is the kernel's
 * TCP_* state (include/net/tcp_states.h: 1 ESTABLISHED .. 11 CLOSING; 12
 * NEW_SYN_RECV is never printed, request sockets show as 3 SYN_RECV).  For
 * a listening socket rx_queue is its accept backlog (sk_ack_backlog), for
 * the others the unread bytes (rcv_nxt - copied_seq), and tx_queue the
 * unacknowledged bytes.  A line without that shape makes every value
 * PL_NS_BAD: counts over a misread table are not given. */
#ifndef PL_TCPTAB_H
#define PL_TCPTAB_H

#include "pl_ksrc.h"

/* v[1 .. 11]: sockets in TCP state k; then the others */
enum {
    PL_TT_TOTAL = 0, PL_TT_ESTABLISHED = 1, PL_TT_SYN_SENT, PL_TT_SYN_RECV, PL_TT_FIN_WAIT1,
    PL_TT_FIN_WAIT2, PL_TT_TIME_WAIT, PL_TT_CLOSE, PL_TT_CLOSE_WAIT, PL_TT_LAST_ACK, PL_TT_LISTEN,
    PL_TT_CLOSING,
    PL_TT_OTHER,             /* a state number beyond CLOSING */
    PL_TT_RXQ,               /* unread bytes of the sockets that are not listening */
    PL_TT_TXQ,               /* unacknowledged bytes */
    PL_TT_BACKLOG,           /* connections waiting in listening sockets' accept queues */
    PL_TT_N
};

typedef struct pl_tcptab {
    uint64_t v[PL_TT_N];
    uint8_t st[PL_TT_N];     /* PL_NS_* */
} pl_tcptab;

/* seq_file iterators: read until 0 */
extern const pl_ksrc_def pl_ksrc_tcp, pl_ksrc_tcp6;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0, or EINVAL when
 * the first line is not the table's header. */
int pl_parse_tcptab(const char *buf, size_t len, void *out);

#endif
