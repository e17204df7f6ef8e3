/* The root qdisc of each interface over rtnetlink (RTM_GETQDISC dump): its
 * queue (TCA_STATS2/TCA_STATS_QUEUE: packets and bytes queued, drops,
 * requeues, overlimits) and what it sent (TCA_STATS_BASIC).  Linux shows
 * a device's transmit queue nowhere else: /proc and sysfs have no backlog.
 * The messages are framed and walked with libmnl; every length is checked
 * against the buffer (mnl_nlmsg_ok, mnl_attr_parse, mnl_attr_validate2), and
 * a message whose attributes do not fit is skipped whole.
 *
 * A socket is opened once and kept; a dump reads into a buffer allocated at
 * open (nothing is allocated per collect).  The socket lives in the calling
 * process's network namespace: callers use it only for the live root. */
#ifndef PL_QDISC_H
#define PL_QDISC_H

#include <stddef.h>
#include <stdint.h>

/* One root qdisc; the have_* flags say which attribute was present and whole. */
typedef struct pl_qdisc {
    uint32_t ifindex;
    uint32_t qlen, backlog, drops, requeues, overlimits;
    uint64_t bytes;
    uint8_t have_queue, have_basic;
} pl_qdisc;

/* Where parsed root qdiscs go: at most cap; n counts them (more are dropped). */
typedef struct pl_qdisc_list {
    pl_qdisc *q;
    uint32_t n, cap;
} pl_qdisc_list;

/* Parses the netlink messages of a receive buffer (the pure parser: tests
 * and fuzzing call it on bytes): root qdiscs are added to out.  seq and
 * portid 0 skip those checks.  1: more messages follow (a dump part);
 * 0: the dump ended (NLMSG_DONE); -1 with errno: malformed framing
 * (EBADMSG ...) or a netlink error message (its errno). */
int pl_qdisc_parse(const void *buf, size_t len, uint32_t seq, uint32_t portid, pl_qdisc_list *out);

typedef struct pl_qdisc_sock pl_qdisc_sock;

/* A kept NETLINK_ROUTE socket and its buffer: NULL + errno. */
pl_qdisc_sock *pl_qdisc_open(void);
void pl_qdisc_close(pl_qdisc_sock *s);
/* One dump of every root qdisc into out (out->n reset): 0 or errno. */
int pl_qdisc_dump(pl_qdisc_sock *s, pl_qdisc_list *out);

#endif
