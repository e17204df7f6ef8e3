/* Root qdiscs over rtnetlink with libmnl: see qdisc.h. */
#include "qdisc.h"

#include <errno.h>
#include <limits.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct pl_qdisc_sock {
    struct mnl_socket *nl;
    uint32_t portid, seq;
    size_t cap;
    char *buf;
};

/* TCA_STATS2's nested attributes: the payload must hold the whole struct
 * (gnet_stats_basic is 12 bytes of fields, padded to 16 on 64-bit). */
static void stats_cb(const struct nlattr *a, pl_qdisc *q)
{
    uint16_t type = mnl_attr_get_type(a);
    if (type == TCA_STATS_QUEUE &&
        mnl_attr_validate2(a, MNL_TYPE_UNSPEC, sizeof(struct gnet_stats_queue)) >= 0) {
        struct gnet_stats_queue g;
        memcpy(&g, mnl_attr_get_payload(a), sizeof g);
        q->qlen = g.qlen;
        q->backlog = g.backlog;
        q->drops = g.drops;
        q->requeues = g.requeues;
        q->overlimits = g.overlimits;
        q->have_queue = 1;
    } else if (type == TCA_STATS_BASIC && mnl_attr_get_payload_len(a) >= 12) {
        memcpy(&q->bytes, mnl_attr_get_payload(a), sizeof q->bytes);
        q->have_basic = 1;
    }
}

static int parse_stats2(const struct nlattr *nest, pl_qdisc *q);

/* The attributes from a to end (libmnl's mnl_attr_ok and mnl_attr_next,
 * as its for_each macros): the stats of a nest (inner), or the message's
 * TCA_STATS2.  0, or -1 when an attribute does not fit: the walk must end
 * exactly at end. */
static int walk_attrs(const void *first, const void *end, pl_qdisc *q, int inner)
{
    const struct nlattr *a = first;
    while (mnl_attr_ok(a, (int)((const char *)end - (const char *)a))) {
        if (inner)
            stats_cb(a, q);
        else if (mnl_attr_get_type(a) == TCA_STATS2 &&
                 (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0 || parse_stats2(a, q) < 0))
            return -1;
        a = mnl_attr_next(a);
    }
    return (const void *)a == end ? 0 : -1;
}

/* TCA_STATS2's attributes: 0, or -1 when one does not fit in the nest. */
static int parse_stats2(const struct nlattr *nest, pl_qdisc *q)
{
    const char *end = (const char *)mnl_attr_get_payload(nest) +
                      MNL_ALIGN(mnl_attr_get_payload_len(nest));
    return walk_attrs(mnl_attr_get_payload(nest), end, q, 1);
}

/* The attributes after the tcmsg: 0, or -1 when one does not fit in the
 * message or TCA_STATS2 is malformed. */
static int parse_attrs(const struct nlmsghdr *nlh, size_t offset, pl_qdisc *q)
{
    return walk_attrs(mnl_nlmsg_get_payload_offset(nlh, offset), mnl_nlmsg_get_payload_tail(nlh),
                      q, 0);
}

/* One message: a root qdisc is added; anything else is skipped. */
static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
    pl_qdisc_list *out = data;
    const struct tcmsg *tcm;
    pl_qdisc q;
    if (nlh->nlmsg_type != RTM_NEWQDISC || mnl_nlmsg_get_payload_len(nlh) < sizeof *tcm)
        return MNL_CB_OK;
    tcm = mnl_nlmsg_get_payload(nlh);
    if (tcm->tcm_parent != TC_H_ROOT || tcm->tcm_ifindex <= 0)
        return MNL_CB_OK;
    memset(&q, 0, sizeof q);
    q.ifindex = (uint32_t)tcm->tcm_ifindex;
    if (parse_attrs(nlh, sizeof *tcm, &q) < 0)
        return MNL_CB_OK;                /* malformed attributes: the message is not used */
    if (out->n < out->cap)
        out->q[out->n++] = q;
    return MNL_CB_OK;
}

/* The bytes of buf taken by whole messages from its start, where libmnl's
 * walk stops too (a header cut short, a length below the header or beyond
 * the bytes left) -- except that mnl_nlmsg_ok compares (int)nlmsg_len, so a
 * length of 2^31 or more would pass as negative and mnl_nlmsg_next jump out
 * of the buffer: such a message ends the walk here. */
static size_t framed(const unsigned char *p, size_t len)
{
    size_t off = 0;
    while (len - off >= sizeof(struct nlmsghdr)) {
        struct nlmsghdr h;
        memcpy(&h, p + off, sizeof h);
        if (h.nlmsg_len < sizeof h || h.nlmsg_len > len - off)
            break;
        size_t step = MNL_ALIGN(h.nlmsg_len);
        off += step < len - off ? step : len - off;
    }
    return off;
}

int pl_qdisc_parse(const void *buf, size_t len, uint32_t seq, uint32_t portid, pl_qdisc_list *out)
{
    if (len > INT_MAX)
        len = INT_MAX;
    len = framed(buf, len);
    int r = mnl_cb_run(buf, len, seq, portid, msg_cb, out);
    if (r < 0)
        return -1;
    return r == MNL_CB_STOP ? 0 : 1;
}

pl_qdisc_sock *pl_qdisc_open(void)
{
    pl_qdisc_sock *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cap = 32768;             /* a dump part of the kernel's largest size (32 KiB) fits */
    if (!(s->buf = malloc(s->cap)) || !(s->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) ||
        mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
        int e = errno ? errno : ENOMEM;
        pl_qdisc_close(s);
        errno = e;
        return NULL;
    }
    s->portid = mnl_socket_get_portid(s->nl);
    s->seq = (uint32_t)time(NULL);
    return s;
}

void pl_qdisc_close(pl_qdisc_sock *s)
{
    if (!s)
        return;
    if (s->nl)
        mnl_socket_close(s->nl);
    free(s->buf);
    free(s);
}

int pl_qdisc_dump(pl_qdisc_sock *s, pl_qdisc_list *out)
{
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(s->buf);
    struct tcmsg *tcm;
    ssize_t r;
    int more = 1;
    nlh->nlmsg_type = RTM_GETQDISC;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    nlh->nlmsg_seq = ++s->seq;
    tcm = mnl_nlmsg_put_extra_header(nlh, sizeof *tcm);
    tcm->tcm_family = AF_UNSPEC;
    out->n = 0;
    if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
        return errno;
    while (more > 0) {
        if ((r = mnl_socket_recvfrom(s->nl, s->buf, s->cap)) <= 0)
            return r == 0 ? EPROTO : errno;
        if ((more = pl_qdisc_parse(s->buf, (size_t)r, s->seq, s->portid, out)) < 0)
            return errno ? errno : EPROTO;
    }
    return 0;
}
