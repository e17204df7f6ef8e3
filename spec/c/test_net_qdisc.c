/* The root qdisc source (src/sources/qdisc.c): its parser on netlink
 * messages built here with libmnl, the layout of linux/rtnetlink.h,
 * linux/gen_stats.h and net/sched/sch_api.c's tc_fill_qdisc (a tcmsg, then
 * TCA_KIND, TCA_STATS2 nesting TCA_STATS_BASIC and TCA_STATS_QUEUE),
 * well-formed and malformed; then the real rtnetlink dump of this machine,
 * cross-checked with `tc -s qdisc` (iproute2), and Network Interface's
 * Output Queue counters on the live root. */
#include "perflib.h"
#include "pl_provider.h"
#include "qdisc.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>

static char buf[8192];

/* Appends an RTM_NEWQDISC of ifindex/parent at *off: queue (NULL: none),
 * sent bytes; the message's length (to corrupt it). */
static struct nlmsghdr *put_qdisc(size_t *off, int ifindex, uint32_t parent,
                                  const struct gnet_stats_queue *gq, uint64_t bytes)
{
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + *off);
    struct tcmsg *tcm;
    struct nlattr *nest;
    struct gnet_stats_basic gb;
    nlh->nlmsg_type = RTM_NEWQDISC;
    nlh->nlmsg_flags = NLM_F_MULTI;
    nlh->nlmsg_seq = 7;
    tcm = mnl_nlmsg_put_extra_header(nlh, sizeof *tcm);
    tcm->tcm_family = AF_UNSPEC;
    tcm->tcm_ifindex = ifindex;
    tcm->tcm_parent = parent;
    mnl_attr_put_strz(nlh, TCA_KIND, "pfifo_fast");
    nest = mnl_attr_nest_start(nlh, TCA_STATS2);
    memset(&gb, 0, sizeof gb);
    gb.bytes = bytes;
    gb.packets = 3;
    mnl_attr_put(nlh, TCA_STATS_BASIC, sizeof gb, &gb);
    if (gq)
        mnl_attr_put(nlh, TCA_STATS_QUEUE, sizeof *gq, gq);
    mnl_attr_nest_end(nlh, nest);
    *off += nlh->nlmsg_len;
    return nlh;
}

static void put_done(size_t *off)
{
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + *off);
    nlh->nlmsg_type = NLMSG_DONE;
    nlh->nlmsg_flags = NLM_F_MULTI;
    nlh->nlmsg_seq = 7;
    *off += nlh->nlmsg_len;
}

static void test_parse(void)
{
    const struct gnet_stats_queue q2 = { 5, 1500, 7, 2, 3 }, q3 = { 0, 0, 4294967295u, 0, 1 };
    pl_qdisc arr[4];
    pl_qdisc_list out = { arr, 0, 4 };
    size_t off = 0;
    memset(buf, 0, sizeof buf);
    put_qdisc(&off, 2, TC_H_ROOT, &q2, 123456789012ull);
    put_qdisc(&off, 2, 0x10001, &q3, 1);            /* a class's leaf qdisc: not root */
    put_qdisc(&off, 3, TC_H_ROOT, &q3, 42);
    put_done(&off);
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 7, 0, &out), 0);   /* DONE: the dump ended */
    CHECK_EQ_U64(out.n, 2);
    CHECK(arr[0].ifindex == 2 && arr[0].have_queue && arr[0].have_basic);
    CHECK(arr[0].qlen == 5 && arr[0].backlog == 1500 && arr[0].drops == 7 &&
          arr[0].requeues == 2 && arr[0].overlimits == 3);
    CHECK_EQ_U64(arr[0].bytes, 123456789012ull);
    CHECK(arr[1].ifindex == 3 && arr[1].drops == 4294967295u && arr[1].overlimits == 1);
    CHECK_EQ_U64(arr[1].bytes, 42);
    /* without DONE: more to come; a full list drops the rest */
    out.n = 0;
    out.cap = 1;
    off = 0;
    put_qdisc(&off, 2, TC_H_ROOT, &q2, 1);
    put_qdisc(&off, 3, TC_H_ROOT, &q2, 1);
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 7, 0, &out), 1);
    CHECK_EQ_U64(out.n, 1);
    CHECK_EQ_U64(arr[0].ifindex, 2);
    out.cap = 4;
    /* another dump's sequence number: an error (libmnl says EPROTO), nothing taken */
    out.n = 0;
    CHECK(pl_qdisc_parse(buf, off, 8, 0, &out) == -1 && errno == EPROTO);
    CHECK_EQ_U64(out.n, 0);
    /* no queue statistics: listed, without have_queue */
    out.n = 0;
    off = 0;
    put_qdisc(&off, 9, TC_H_ROOT, NULL, 10);
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK(out.n == 1 && !arr[0].have_queue && arr[0].have_basic && arr[0].bytes == 10);
}

/* Lengths that lie: never read past the buffer or a nest, never a value. */
static void test_malformed(void)
{
    const struct gnet_stats_queue q = { 5, 1500, 7, 2, 3 };
    pl_qdisc arr[4];
    pl_qdisc_list out = { arr, 0, 4 };
    struct nlmsghdr *nlh;
    struct nlattr *a;
    size_t off = 0;

    /* a message longer than the bytes received: not parsed */
    memset(buf, 0, sizeof buf);
    nlh = put_qdisc(&off, 2, TC_H_ROOT, &q, 1);
    CHECK_EQ_U64(pl_qdisc_parse(buf, off - 4, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 0);
    /* nlmsg_len below the header */
    nlh->nlmsg_len = 8;
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 0);
    /* a payload shorter than struct tcmsg: skipped */
    off = 0;
    nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_NEWQDISC;
    mnl_nlmsg_put_extra_header(nlh, 8);
    off = nlh->nlmsg_len;
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 0);
    /* TCA_STATS2's nla_len past the message: the message is skipped */
    off = 0;
    nlh = put_qdisc(&off, 2, TC_H_ROOT, &q, 1);
    a = (struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) + MNL_ALIGN(sizeof(struct tcmsg)));
    a = mnl_attr_next(a);                         /* past TCA_KIND */
    CHECK_EQ_U64(mnl_attr_get_type(a), TCA_STATS2);
    a->nla_len = (uint16_t)(a->nla_len + 64);
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 0);
    /* an inner attribute longer than its nest: skipped */
    off = 0;
    nlh = put_qdisc(&off, 2, TC_H_ROOT, &q, 1);
    a = (struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) + MNL_ALIGN(sizeof(struct tcmsg)));
    a = mnl_attr_next(a);
    ((struct nlattr *)mnl_attr_get_payload(a))->nla_len = 200;
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 0);
    /* TCA_STATS_QUEUE of 16 bytes (a struct cut short): no queue values */
    off = 0;
    nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_NEWQDISC;
    {
        struct tcmsg *tcm = mnl_nlmsg_put_extra_header(nlh, sizeof *tcm);
        struct nlattr *nest;
        tcm->tcm_ifindex = 4;
        tcm->tcm_parent = TC_H_ROOT;
        nest = mnl_attr_nest_start(nlh, TCA_STATS2);
        mnl_attr_put(nlh, TCA_STATS_QUEUE, 16, &q);
        mnl_attr_put(nlh, TCA_STATS_BASIC, 8, &q);    /* BASIC cut short too */
        mnl_attr_nest_end(nlh, nest);
    }
    off = nlh->nlmsg_len;
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 1);
    CHECK(arr[0].ifindex == 4 && !arr[0].have_queue && !arr[0].have_basic);
    /* a netlink error message: its errno */
    out.n = 0;
    nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = NLMSG_ERROR;
    {
        struct nlmsgerr *err = mnl_nlmsg_put_extra_header(nlh, sizeof *err);
        err->error = -EPERM;
    }
    CHECK(pl_qdisc_parse(buf, nlh->nlmsg_len, 0, 0, &out) == -1 && errno == EPERM);
}

/* `tc -s qdisc show dev eth0`'s "Sent N bytes", or -1. */
static long long tc_sent(const char *dev)
{
    char cmd[128], line[512];
    long long v = -1;
    FILE *p;
    snprintf(cmd, sizeof cmd, "tc -s qdisc show dev %s root 2>/dev/null", dev);
    if (!(p = popen(cmd, "r")))
        return -1;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, " Sent %lld bytes", &v) == 1)
            break;
    pclose(p);
    return v;
}

static void test_live(void)
{
    pl_qdisc arr[64];
    pl_qdisc_list out = { arr, 0, 64 };
    pl_qdisc_sock *s = pl_qdisc_open();
    pl_snapshot snap;
    long long before, after;
    uint64_t v;
    int lo = -1, eth = -1;
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ_U64(pl_qdisc_dump(s, &out), 0);
    before = tc_sent("eth0");
    CHECK_EQ_U64(pl_qdisc_dump(s, &out), 0);         /* the kept socket dumps again */
    after = tc_sent("eth0");
    for (uint32_t i = 0; i < out.n; i++) {
        if (arr[i].ifindex == 1)
            lo = (int)i;
        else if (arr[i].ifindex == (uint32_t)if_nametoindex("eth0"))
            eth = (int)i;
    }
    CHECK(lo >= 0 && arr[lo].have_queue && arr[lo].have_basic);   /* lo's noqueue root */
    /* eth0's bytes sent, between tc's figure before and after the dump
     * (skipped without eth0 or iproute2) */
    if (eth >= 0 && before >= 0 && after >= 0)
        CHECK((long long)arr[eth].bytes >= before && (long long)arr[eth].bytes <= after);
    pl_qdisc_close(s);
    /* Network Interface: live values, a fixture tree's are unset */
    CHECK_EQ_U64(pc_collect_tree("/", "Network Interface", 0, 0, NULL, &snap), 0);
    CHECK(get(&snap, "lo", "Output Queue Length", &v));
    CHECK(get(&snap, "lo", "Output Queue Drops", &v));
    pl_snap_free(&snap);
}

/* A length of 2^31 or more: libmnl's mnl_nlmsg_ok takes it as a negative int
 * and would step out of the buffer (found by fuzz_sysparse); the walk stops
 * there, after the whole messages before it. */
static void test_huge_length(void)
{
    const struct gnet_stats_queue q = { 5, 1500, 7, 2, 3 };
    pl_qdisc arr[4];
    pl_qdisc_list out = { arr, 0, 4 };
    struct nlmsghdr *bad;
    size_t off = 0;
    memset(buf, 0, sizeof buf);
    put_qdisc(&off, 2, TC_H_ROOT, &q, 1);                 /* a whole message first */
    bad = put_qdisc(&off, 3, TC_H_ROOT, &q, 1);
    bad->nlmsg_len = 0xabababab;
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 1);                               /* ifindex 2 only */
    CHECK_EQ_U64(arr[0].ifindex, 2);
    CHECK_EQ_U64(arr[0].qlen, 5);
    out.n = 0;
    bad = (struct nlmsghdr *)(void *)buf;
    bad->nlmsg_len = 0x80000000u;
    CHECK_EQ_U64(pl_qdisc_parse(buf, off, 0, 0, &out), 1);
    CHECK_EQ_U64(out.n, 0);
}

int main(void)
{
    RUN(test_parse);
    RUN(test_malformed);
    RUN(test_huge_length);
    RUN(test_live);
    return CT_END();
}
