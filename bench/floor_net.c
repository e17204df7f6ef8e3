/* The C floor of the network countersets: the files the netif, netproto and
 * sockets providers read for a full `\Set(*)\*` query, kept open, pread at
 * offset 0 until EOF (as pl_file_read does, 4096-byte first buffer doubled as
 * needed), parsed with the least work that yields the values: column and
 * line positions are found once at open, so a collect only skips to them.
 * No perflib code.
 *
 *   floor_net [-t SECONDS] [-r ROUNDS] [set ...]
 *
 * Sets (the counterset): netif (Network Interface), ipv4, ipv6, tcpv4, tcpv6
 * (costly: the /proc/net/tcp6 walk), udpv4, udpv6, icmp, icmpv6, sockets; and
 * netif_fmt (only when named): netif with every value formatted (floor_format
 * in floor_common.h).
 * Output, one line per set, as bench/floor.c:
 *
 *   floor <set> <ns per collect> <iterations> <min ns> <max ns>
 *
 * Lines starting with '#' are comments (one maps each set to its query
 * path).  A set whose main file is missing (IPv6 disabled) prints no line. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#define FLOOR_NAME "floor_net"
#define FLOOR_USAGE "[netif|ipv4|ipv6|tcpv4|tcpv6|udpv4|udpv6|icmp|icmpv6|sockets|netif_fmt ...]"
#include "floor_common.h"    /* die, rfile (rf_open, rf_read, rf_close), next_line, num, timing */

static const char *skip_token(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++;
    return p;
}

/* ---- header/value pairs: the wanted columns found once ------------------------------ */

typedef struct pair {
    const char *tag;         /* "Tcp:" */
    int col[40], ncol;       /* wanted columns, ascending */
} pair;

static void pair_init(pair *pr, const char *text, const char *tag, const char *const *names)
{
    size_t tl = strlen(tag);
    pr->tag = tag;
    pr->ncol = 0;
    for (const char *p = text; p && *p; p = next_line(p)) {
        if (strncmp(p, tag, tl) != 0)
            continue;
        const char *q = p + tl;
        for (int c = 0;; c++) {
            const char *t;
            while (*q == ' ')
                q++;
            if (*q == '\n' || !*q)
                break;
            t = q;
            q = skip_token(q);
            for (int k = 0; names[k]; k++)
                if (strlen(names[k]) == (size_t)(q - t) && strncmp(names[k], t, (size_t)(q - t)) == 0)
                    pr->col[pr->ncol++] = c;
        }
        return;
    }
}

static void pair_read(const pair *pr, const char *text)
{
    size_t tl = strlen(pr->tag);
    for (const char *p = text; p && *p; p = next_line(p)) {
        if (strncmp(p, pr->tag, tl) != 0)
            continue;
        const char *q = next_line(p);
        int c = 0;
        if (!q)
            return;
        q += tl;
        for (int k = 0; k < pr->ncol; k++) {
            uint64_t v;
            for (; c < pr->col[k]; c++)
                q = skip_token(q);
            if (num(&q, &v))
                sink += v;
            c++;
        }
        return;
    }
}

/* ---- "key value" lines: the wanted line numbers found once ------------------------- */

typedef struct klines {
    int line[40], n;
} klines;

static void klines_init(klines *kl, const char *text, const char *const *names)
{
    int ln = 0;
    kl->n = 0;
    for (const char *p = text; p && *p; p = next_line(p), ln++) {
        size_t l = (size_t)(skip_token(p) - p);
        for (int k = 0; names[k]; k++)
            if (strlen(names[k]) == l && strncmp(names[k], p, l) == 0)
                kl->line[kl->n++] = ln;
    }
}

static void klines_read(const klines *kl, const char *text)
{
    int ln = 0, k = 0;
    for (const char *p = text; p && *p && k < kl->n; p = next_line(p), ln++) {
        uint64_t v;
        const char *q;
        if (ln != kl->line[k])
            continue;
        q = skip_token(p);
        if (num(&q, &v))
            sink += v;
        k++;
    }
}

/* ---- the sets ------------------------------------------------------------------------ */

enum { NETIF, IPV4, IPV6, TCPV4, TCPV6, UDPV4, UDPV6, ICMP, ICMPV6, SOCKETS, NETIF_FMT, NSETS };
static const char *const set_names[NSETS] = {
    "netif", "ipv4", "ipv6", "tcpv4", "tcpv6", "udpv4", "udpv6", "icmp", "icmpv6", "sockets", "netif_fmt",
};
static const char *const set_paths[NSETS] = {
    "\\Network Interface(*)\\*", "\\IPv4\\*", "\\IPv6\\*", "\\TCPv4\\*", "\\TCPv6\\*",
    "\\UDPv4\\*", "\\UDPv6\\*", "\\ICMP\\*", "\\ICMPv6\\*", "\\Sockets\\*",
    "\\Network Interface(*)\\*",
};

static const char *const ip4_names[] = { "InReceives", "InHdrErrors", "InAddrErrors",
    "ForwDatagrams", "InUnknownProtos", "InDiscards", "InDelivers", "OutRequests", "OutDiscards",
    "OutNoRoutes", "ReasmReqds", "ReasmOKs", "ReasmFails", "FragOKs", "FragFails", "FragCreates",
    NULL };
static const char *const ipext_names[] = { "InOctets", "OutOctets", NULL };
static const char *const ip6_names[] = { "Ip6InReceives", "Ip6InHdrErrors", "Ip6InAddrErrors",
    "Ip6OutForwDatagrams", "Ip6InUnknownProtos", "Ip6InDiscards", "Ip6InDelivers",
    "Ip6OutRequests", "Ip6OutDiscards", "Ip6OutNoRoutes", "Ip6ReasmReqds", "Ip6ReasmOKs",
    "Ip6ReasmFails", "Ip6FragOKs", "Ip6FragFails", "Ip6FragCreates", "Ip6InOctets",
    "Ip6OutOctets", NULL };
static const char *const tcp_names[] = { "ActiveOpens", "PassiveOpens", "AttemptFails",
    "EstabResets", "CurrEstab", "InSegs", "OutSegs", "RetransSegs", "InErrs", "OutRsts",
    "InCsumErrors", NULL };
static const char *const tcpext_names[] = { "ListenOverflows", "ListenDrops", "TCPTimeouts",
    "TCPSynRetrans", NULL };
static const char *const udp_names[] = { "InDatagrams", "NoPorts", "InErrors", "OutDatagrams",
    "RcvbufErrors", "SndbufErrors", "InCsumErrors", "IgnoredMulti", "MemErrors", NULL };
static const char *const udp6_names[] = { "Udp6InDatagrams", "Udp6NoPorts", "Udp6InErrors",
    "Udp6OutDatagrams", "Udp6RcvbufErrors", "Udp6SndbufErrors", "Udp6InCsumErrors",
    "Udp6IgnoredMulti", "Udp6MemErrors", NULL };
static const char *const icmp_names[] = { "InMsgs", "InErrors", "OutMsgs", "OutErrors",
    "InDestUnreachs", "InTimeExcds", "InEchos", "InEchoReps", "OutDestUnreachs", "OutEchos",
    "OutEchoReps", NULL };
static const char *const icmp6_names[] = { "Icmp6InMsgs", "Icmp6InErrors", "Icmp6OutMsgs",
    "Icmp6OutErrors", "Icmp6InDestUnreachs", "Icmp6InTimeExcds", "Icmp6InEchos",
    "Icmp6InEchoReplies", "Icmp6OutDestUnreachs", "Icmp6OutEchos", "Icmp6OutEchoReplies",
    "Icmp6InPktTooBigs", "Icmp6OutPktTooBigs", NULL };

/* One set's files (each set has its own, as one perflib query per set). */
typedef struct net_floor {
    rfile a, b;              /* main file, second file */
    int have_b, ok;
    pair p1, p2;
    klines kl;
    /* netif: per-interface sysfs value files */
    int nif;
    int (*sfd)[8];
    int nl;                  /* netif: the rtnetlink socket of the qdisc dump */
} net_floor;

static net_floor nf[NSETS];

#define NSF 8
static const char *const sf_file[NSF] = {
    "speed", "mtu", "operstate", "carrier_changes", "statistics/rx_nohandler", "carrier", "duplex",
    "flags",
};

/* The root qdiscs' queue and basic stats, as Network Interface dumps them
 * (RTM_GETQDISC over rtnetlink, one dump per collect on a kept socket). */
static void qdisc_dump(net_floor *f)
{
    struct {
        struct nlmsghdr nh;
        struct tcmsg tc;
    } req = { { NLMSG_LENGTH(sizeof(struct tcmsg)), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, 1, 0 },
              { .tcm_family = AF_UNSPEC } };
    static char buf[32768];
    if (f->nl < 0 || send(f->nl, &req, req.nh.nlmsg_len, 0) < 0)
        return;
    for (;;) {
        ssize_t n = recv(f->nl, buf, sizeof buf, 0);
        if (n <= 0)
            return;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
                return;
            struct tcmsg *tc = NLMSG_DATA(h);
            if (h->nlmsg_type != RTM_NEWQDISC || tc->tcm_parent != TC_H_ROOT)
                continue;
            int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *tc));
            for (struct rtattr *a = (struct rtattr *)((char *)tc + NLMSG_ALIGN(sizeof *tc)); RTA_OK(a, len);
                 a = RTA_NEXT(a, len)) {
                if (a->rta_type != TCA_STATS2)
                    continue;
                int l2 = (int)RTA_PAYLOAD(a);
                for (struct rtattr *b = RTA_DATA(a); RTA_OK(b, l2); b = RTA_NEXT(b, l2)) {
                    uint64_t v[5] = { 0 };
                    if (b->rta_type == TCA_STATS_QUEUE && RTA_PAYLOAD(b) >= 20) {
                        uint32_t q[5];
                        memcpy(q, RTA_DATA(b), sizeof q);
                        for (int k = 0; k < 5; k++)
                            v[k] = q[k];
                    } else if (b->rta_type == TCA_STATS_BASIC && RTA_PAYLOAD(b) >= 12) {
                        memcpy(&v[0], RTA_DATA(b), sizeof v[0]);
                    }
                    for (int k = 0; k < 5; k++)
                        floor_keep(v[k]);
                }
            }
        }
    }
}

static void netif_open(net_floor *f)
{
    DIR *d;
    struct dirent *de;
    f->ok = rf_open(&f->a, "/proc/net/dev", 0);
    f->nif = 0;
    f->sfd = NULL;
    f->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (!f->ok || !(d = opendir("/sys/class/net")))
        return;
    while ((de = readdir(d)) != NULL) {
        char path[600];
        if (de->d_name[0] == '.')
            continue;
        f->sfd = realloc(f->sfd, (size_t)(f->nif + 1) * sizeof *f->sfd);
        if (!f->sfd)
            die("realloc", "");
        for (int k = 0; k < NSF; k++) {
            snprintf(path, sizeof path, "/sys/class/net/%s/%s", de->d_name, sf_file[k]);
            f->sfd[f->nif][k] = open(path, O_RDONLY | O_CLOEXEC);
        }
        f->nif++;
    }
    closedir(d);
}

static void netif_collect(net_floor *f)
{
    const char *p = rf_read(&f->a);
    for (; p && *p; p = next_line(p)) {
        const char *nl = strchr(p, '\n'), *colon = NULL;
        uint64_t v;
        if (!nl)
            break;
        for (const char *q = p; q < nl; q++)
            if (*q == ':')
                colon = q;
        if (!colon)
            continue;
        sink += (uint64_t)(colon - p);   /* the name */
        p = colon + 1;
        for (int n = 0; n < 16 && num(&p, &v); n++)
            floor_keep(v);
    }
    for (int i = 0; i < f->nif; i++)
        for (int k = 0; k < NSF; k++) {
            char buf[64];
            ssize_t r;
            const char *q = buf;
            uint64_t v;
            if (f->sfd[i][k] < 0 || (r = pread(f->sfd[i][k], buf, sizeof buf - 1, 0)) <= 0)
                continue;    /* EINVAL: the speed of a virtual device */
            buf[r] = '\0';
            if (num(&q, &v))
                floor_keep(v);
            else
                sink += (uint64_t)buf[0];   /* operstate */
        }
    qdisc_dump(f);
}

static void netif_close(net_floor *f)
{
    rf_close(&f->a);
    for (int i = 0; i < f->nif; i++)
        for (int k = 0; k < NSF; k++)
            if (f->sfd[i][k] >= 0)
                close(f->sfd[i][k]);
    free(f->sfd);
    if (f->nl >= 0)
        close(f->nl);
}

/* The snmp-style sets: main file, its section, and an optional second one. */
static void snmp_open(int set, net_floor *f)
{
    memset(f, 0, sizeof *f);
    f->b.fd = -1;
    switch (set) {
    case IPV4: case TCPV4: case UDPV4: case ICMP:
        f->ok = rf_open(&f->a, "/proc/net/snmp", 0);
        break;
    case IPV6: case UDPV6: case ICMPV6:
        f->ok = rf_open(&f->a, "/proc/net/snmp6", 0);
        break;
    case TCPV6:
        f->ok = rf_open(&f->a, "/proc/net/tcp6", 0);
        return;
    case SOCKETS:
        f->ok = rf_open(&f->a, "/proc/net/sockstat", 0);
        f->have_b = rf_open(&f->b, "/proc/net/sockstat6", 0);
        return;
    default:
        return;
    }
    if (!f->ok)
        return;
    rf_read(&f->a);
    if (set == IPV4 || set == TCPV4) {
        f->have_b = rf_open(&f->b, "/proc/net/netstat", 0);
        if (f->have_b)
            rf_read(&f->b);
    }
    switch (set) {
    case IPV4:
        pair_init(&f->p1, f->a.buf, "Ip:", ip4_names);
        if (f->have_b)
            pair_init(&f->p2, f->b.buf, "IpExt:", ipext_names);
        break;
    case TCPV4:
        pair_init(&f->p1, f->a.buf, "Tcp:", tcp_names);
        if (f->have_b)
            pair_init(&f->p2, f->b.buf, "TcpExt:", tcpext_names);
        break;
    case UDPV4: pair_init(&f->p1, f->a.buf, "Udp:", udp_names); break;
    case ICMP: pair_init(&f->p1, f->a.buf, "Icmp:", icmp_names); break;
    case IPV6: klines_init(&f->kl, f->a.buf, ip6_names); break;
    case UDPV6: klines_init(&f->kl, f->a.buf, udp6_names); break;
    case ICMPV6: klines_init(&f->kl, f->a.buf, icmp6_names); break;
    default: break;
    }
}

/* sockstat lines: "TAG: key value key value" */
static void tagged_all(const char *p)
{
    for (; p && *p; p = next_line(p)) {
        const char *q = strchr(p, ':');
        uint64_t v;
        if (!q)
            continue;
        q++;
        for (;;) {
            q = skip_token(q);   /* the key */
            if (!num(&q, &v))
                break;
            sink += v;
        }
    }
}

static void tcp6_walk(net_floor *f)
{
    const char *p = next_line(rf_read(&f->a));
    uint64_t n[4] = {0};
    for (; p && *p; p = next_line(p)) {
        const char *q = skip_token(skip_token(skip_token(p)));
        while (*q == ' ')
            q++;
        if (q[0] == '0' && q[1] == '1')
            n[0]++;
        else if (q[0] == '0' && q[1] == 'A')
            n[1]++;
        n[3]++;
    }
    sink += n[0] + n[1] + n[3];
}

static void collect_set(int set)
{
    net_floor *f = &nf[set];
    switch (set) {
    case NETIF: netif_collect(f); break;
    case NETIF_FMT: FLOOR_FORMATTED(netif_collect(f)); break;
    case TCPV6: tcp6_walk(f); break;
    case SOCKETS:
        tagged_all(rf_read(&f->a));
        if (f->have_b)
            tagged_all(rf_read(&f->b));
        break;
    case IPV6: case UDPV6: case ICMPV6:
        klines_read(&f->kl, rf_read(&f->a));
        break;
    default:
        pair_read(&f->p1, rf_read(&f->a));
        if (f->have_b)
            pair_read(&f->p2, rf_read(&f->b));
        break;
    }
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = NSETS };
    int any = floor_args(&b, argc, argv);

    for (int k = 0; k < NSETS; k++) {
        if (!any)
            b.want[k] = k != NETIF_FMT;
        if (!b.want[k])
            continue;
        if (k == NETIF || k == NETIF_FMT)
            netif_open(&nf[k]);
        else
            snmp_open(k, &nf[k]);
        if (!nf[k].ok) {
            printf("# %s: main file missing, no figure\n", set_names[k]);
            b.want[k] = 0;
        }
    }
    printf("# floor_net: %d interfaces, %d round(s) of %.2f s per set\n", nf[NETIF].nif, b.rounds,
           b.secs);
    for (int k = 0; k < NSETS; k++)
        if (b.want[k])
            printf("# set %s = %s\n", set_names[k], set_paths[k]);
    floor_run(&b);
    for (int k = 0; k < NSETS; k++) {
        if (k == NETIF || k == NETIF_FMT) {
            if (nf[k].ok || nf[k].a.buf)
                netif_close(&nf[k]);
        } else {
            rf_close(&nf[k].a);
            rf_close(&nf[k].b);
        }
    }
    return 0;
}
