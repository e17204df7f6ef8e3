/* Network Interface: one instance per interface of /proc/net/dev (the
 * query's network namespace), named as the kernel names it, with the ifindex
 * as instance id, and "_Total".
 *
 * /proc/net/dev is the machine's source (netdev.h), read and parsed into
 * rows once per collect for every set and query that wants it.  The ifindex and the device type
 * (/sys/class/net/<if>/ifindex, type) are read once per interface and kept;
 * 0 when sysfs has no such interface.  The sysfs value files (speed, mtu,
 * operstate, carrier, duplex, flags, carrier_changes, statistics/rx_nohandler) are kept open and read
 * only when their counters are wanted.
 *
 * Falling values (rule R2, sysstat's check_net_dev_reg): when a field falls,
 * the interface is re-registered (a reset: the new values are published as
 * they are) if its ifindex changed, if every one of rx/tx bytes and packets
 * that was above 0 fell, or if a falling field was or is above 2^32-1 (a
 * 64-bit counter never wraps); otherwise each falling field wrapped at 2^32
 * (a 32-bit kernel) and is unwrapped into a 64-bit accumulator.
 *
 * _Total: Windows lists no loopback interface, so _Total leaves out loopback
 * devices (type 772, or the name "lo" without sysfs).  Its /sec counters add
 * up the interfaces' increments since the query's previous collect, so an
 * interface that goes away or is re-registered never makes them fall; its
 * error counts are the sum over the present interfaces.  A _Total value is
 * unset when an interface it adds lacks the field.  Current Bandwidth of
 * _Total is the sum of the known speeds.
 *
 * Output queue: Linux shows a device's transmit queue only as its root
 * qdisc's statistics over rtnetlink (qdisc.h), one RTM_GETQDISC dump per
 * collect on a socket kept open, matched to the interfaces by ifindex.  The
 * socket sees the process's own network namespace, so only a query of the
 * live root ("/") uses it; on a fixture tree those counters have no data.
 * _Total sums the interfaces that have a root qdisc (one without queues
 * nothing), loopback left out. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "pl_rowset.h"
#include "netdev.h"
#include "qdisc.h"
#include "srcparse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/net/dev fields, in file order */
enum { RXB, RXP, RXE, RXD, RXFIFO, RXFRAME, RXCOMP, RXMC,
       TXB, TXP, TXE, TXD, TXFIFO, COLLS, CARRIER, TXCOMP, NF };
_Static_assert(NF == PL_ND_FIELDS, "the source's fields");
/* sysfs value files */
enum { SF_SPEED, SF_MTU, SF_OPER, SF_CHG, SF_NOHANDLER, SF_CARRIER, SF_DUPLEX, SF_FLAGS, NSF };
static const char *const sf_file[NSF] = {
    "speed", "mtu", "operstate", "carrier_changes", "statistics/rx_nohandler", "carrier",
    "duplex", "flags",
};

#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
/* The /proc/net/dev rows read an interface's published values (its
 * accumulators, or _Total's sums: a ndvals handed as source S_ROW); the
 * sysfs rows and Output Queue Length are the collect's own. */
#define NETIF_ROWS(R) \
    R(0, "Bytes Total/sec", "Bytes received and sent per second, framing included " \
      "(/proc/net/dev receive + transmit bytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_SUM(S_ROW, RXB, TXB)) \
    R(1, "Packets/sec", "Packets received and sent per second (/proc/net/dev receive + " \
      "transmit packets).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_SUM(S_ROW, RXP, TXP)) \
    R(2, "Packets Received/sec", "Packets received per second (/proc/net/dev receive " \
      "packets).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, RXP)) \
    R(3, "Packets Sent/sec", "Packets sent per second (/proc/net/dev transmit packets).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, TXP)) \
    R(4, "Current Bandwidth", "Link speed in bits per second (/sys/class/net/<if>/speed in " \
      "Mb/s x 10^6); unset when the driver reports none (-1 or EINVAL).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES_PER_SECOND, 0.125, DISCRETE), PL_BY_HAND()) \
    R(5, "Bytes Received/sec", "Bytes received per second (/proc/net/dev receive bytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_FIELD(S_ROW, RXB)) \
    R(6, "Packets Received Non-Unicast/sec", "Multicast packets received per second " \
      "(/proc/net/dev receive multicast; Linux does not count broadcasts apart).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, RXMC)) \
    R(7, "Packets Received Discarded", "Received packets dropped without an error, for lack " \
      "of buffers for instance, since the interface came up (/proc/net/dev receive drop).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, RXD)) \
    R(8, "Packets Received Errors", "Received packets with errors, since the interface came " \
      "up (/proc/net/dev receive errs).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, RXE)) \
    R(9, "Packets Received Unknown", "Received packets no protocol handler wanted " \
      "(/sys/class/net/<if>/statistics/rx_nohandler, kernel 4.6 and later).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(10, "Bytes Sent/sec", "Bytes sent per second (/proc/net/dev transmit bytes).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_FIELD(S_ROW, TXB)) \
    R(11, "Packets Outbound Discarded", "Packets to send dropped without an error, since the " \
      "interface came up (/proc/net/dev transmit drop).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, TXD)) \
    R(12, "Packets Outbound Errors", "Packets that could not be sent because of errors, " \
      "since the interface came up (/proc/net/dev transmit errs).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, TXE)) \
    R(13, "Output Queue Length", "Packets queued in the interface's root qdisc now (qlen " \
      "of TCA_STATS2/TCA_STATS_QUEUE in the rtnetlink RTM_GETQDISC dump, tc's backlog Np); " \
      "no data without a root qdisc or on another machine's tree.", \
      RAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(14, "Receive FIFO Errors", "Receive FIFO buffer overruns (/proc/net/dev receive fifo).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, RXFIFO)) \
    R(15, "Receive Frame Errors", "Received packets with framing or alignment errors " \
      "(/proc/net/dev receive frame).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, RXFRAME)) \
    R(16, "Transmit FIFO Errors", "Transmit FIFO buffer underruns (/proc/net/dev transmit " \
      "fifo).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, TXFIFO)) \
    R(17, "Collisions", "Collisions detected while sending (/proc/net/dev transmit colls).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, COLLS)) \
    R(18, "Carrier Errors", "Transmit errors from carrier loss (/proc/net/dev transmit " \
      "carrier).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, CARRIER)) \
    R(19, "Compressed Packets Received", "Compressed packets received, by drivers that " \
      "compress such as PPP (/proc/net/dev receive compressed).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, RXCOMP)) \
    R(20, "Compressed Packets Sent", "Compressed packets sent (/proc/net/dev transmit " \
      "compressed).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, TXCOMP)) \
    R(21, "MTU", "Maximum transmission unit in bytes (/sys/class/net/<if>/mtu).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_BY_HAND()) \
    R(22, "Operational Status", "RFC 2863 operational state of " \
      "/sys/class/net/<if>/operstate: 1 up, 2 down, 3 testing, 4 unknown, 5 dormant, 6 " \
      "notpresent, 7 lowerlayerdown.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(23, "Carrier Changes", "Times the link carrier came or went since the interface was " \
      "created (/sys/class/net/<if>/carrier_changes).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(24, "Carrier", "1 when the link has a carrier, 0 when not " \
      "(/sys/class/net/<if>/carrier); no data while the interface is down (EINVAL).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(25, "Duplex", "Link duplex of /sys/class/net/<if>/duplex: 1 half, 2 full; no data " \
      "when the driver reports unknown or none (virtual devices, link down).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(26, "Interface Flags", "The interface's IFF_* flag bits (/sys/class/net/<if>/flags, " \
      "hex): 0x1 up, 0x2 broadcast, 0x8 loopback, 0x100 promiscuous, 0x1000 multicast.", \
      RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(27, "Output Queue Bytes", "Bytes queued in the interface's root qdisc now (backlog " \
      "of TCA_STATS2/TCA_STATS_QUEUE over rtnetlink, tc's backlog Nb).", \
      RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(28, "Output Queue Drops", "Packets the root qdisc dropped since it was attached " \
      "(drops of TCA_STATS2/TCA_STATS_QUEUE over rtnetlink; a 32-bit kernel counter).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(29, "Output Queue Requeues", "Packets the root qdisc put back because the driver was " \
      "busy, since it was attached (requeues of TCA_STATS_QUEUE over rtnetlink).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(30, "Output Queue Overlimits", "Times the root qdisc held packets back for a rate " \
      "limit, since it was attached (overlimits of TCA_STATS_QUEUE over rtnetlink).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND())

enum { S_ROW, NSRC };

/* The values an instance publishes: /proc/net/dev fields, st[f] PL_NS_OK
 * when known. */
typedef struct ndvals {
    uint64_t v[NF];
    uint8_t st[NF];
} ndvals;

static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, ndvals) };
static const pl_counter_def counters[] = { NETIF_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { NETIF_ROWS(PL_ROW_FEED) };

#define NC (sizeof counters / sizeof counters[0])

/* The sysfs value file of each counter made from one. */
enum { C_SPEED = 4, C_NOHANDLER = 9, C_MTU = 21, C_OPER = 22, C_CHG = 23, C_CARRIER = 24,
       C_DUPLEX = 25, C_FLAGS = 26 };
static const uint8_t sf_counter[NSF] = { C_SPEED, C_MTU, C_OPER, C_CHG, C_NOHANDLER, C_CARRIER,
                                         C_DUPLEX, C_FLAGS };
/* _Total of a sysfs counter: the known speeds' sum (SUM_KNOWN), the sum when
 * every non-loopback interface has it (SUM_ALL), or none (states, sizes). */
enum { NO_TOTAL, SUM_KNOWN, SUM_ALL };
static const uint8_t sf_total[NSF] = { [SF_SPEED] = SUM_KNOWN, [SF_CHG] = SUM_ALL,
                                       [SF_NOHANDLER] = SUM_ALL };

/* The root qdisc's counters (rtnetlink, the live root only). */
enum { Q_QLEN, Q_BACKLOG, Q_DROPS, Q_REQUEUES, Q_OVERLIMITS, NQ };
static const uint8_t q_counter[NQ] = { 13, 27, 28, 29, 30 };

/* Fields whose _Total is a running sum of increments (the /sec ones). */
static const uint8_t rate_field[NF] = { [RXB] = 1, [RXP] = 1, [RXMC] = 1, [TXB] = 1, [TXP] = 1 };

#define TOTAL_ID 0xFFFFFFFEu
#define NAME_MAX_ PL_ND_NAME
#define U32MAX 0xFFFFFFFFull

typedef struct nic {
    char name[NAME_MAX_];
    uint32_t ifindex;
    uint8_t loop, sysfs_ok;   /* sysfs_ok: the name is usable in a path */
    uint8_t seen[NF];
    uint64_t raw[NF];
    ndvals pub;              /* accumulators; st: in this read */
    int sfd[NSF];
    uint8_t sabsent[NSF];
    uint32_t gen;
} nic;

typedef struct netif_state {
    pl_env *env;
    pl_ksrc *dev;            /* the machine's /proc/net/dev reader */
    nic *nics;
    uint32_t n, cap, gen;
    uint64_t total[NF];      /* running sums of increments, loopback left out */
    int live;                /* the root is "/": rtnetlink sees this namespace */
    pl_qdisc_sock *qs;       /* opened on first want, kept; NULL after a failure */
    pl_qdisc_list ql;        /* the last dump's root qdiscs */
} netif_state;

/* ---- sysfs ------------------------------------------------------------------ */

/* Reads a small sysfs file of interface x once (open, read, close): for the
 * ifindex and type, which never change while the interface exists. */
static int read_once(const netif_state *s, const nic *x, const char *file, uint64_t *v)
{
    char rel[NAME_MAX_ + 48], buf[32];
    const char *p = buf;
    ssize_t r;
    int fd;
    if (!x->sysfs_ok)
        return 0;
    snprintf(rel, sizeof rel, "sys/class/net/%s/%s", x->name, file);
    if ((fd = pl_open_rel(s->env, rel)) < 0)
        return 0;
    r = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    if (r <= 0)
        return 0;
    buf[r] = '\0';
    return pl_parse_u64(&p, v) == 0 && (*p == '\n' || *p == '\0');
}

static uint32_t read_ifindex(const netif_state *s, const nic *x)
{
    uint64_t v;
    return read_once(s, x, "ifindex", &v) && v < TOTAL_ID ? (uint32_t)v : 0;
}

static void identify(const netif_state *s, nic *x)
{
    uint64_t type;
    x->ifindex = read_ifindex(s, x);
    if (read_once(s, x, "type", &type))
        x->loop = type == 772;           /* ARPHRD_LOOPBACK */
    else
        x->loop = strcmp(x->name, "lo") == 0;
}

static void close_sysfs(nic *x)
{
    for (int k = 0; k < NSF; k++) {
        if (x->sfd[k] >= 0)
            close(x->sfd[k]);
        x->sfd[k] = -1;
        x->sabsent[k] = 0;
    }
}

/* Reads value file k of x into buf: its length, or -1 when there is no value
 * now.  The fd stays open; a file the interface lacks is not looked for
 * again; EINVAL (speed of a virtual device) keeps the fd for the next try. */
static int read_sys(const netif_state *s, nic *x, int k, char *buf, size_t cap)
{
    ssize_t r;
    if (!x->sysfs_ok || x->sabsent[k])
        return -1;
    if (x->sfd[k] < 0) {
        char rel[NAME_MAX_ + 48];
        snprintf(rel, sizeof rel, "sys/class/net/%s/%s", x->name, sf_file[k]);
        x->sfd[k] = pl_open_rel(s->env, rel);
        if (x->sfd[k] < 0) {
            if (errno == ENOENT || errno == ENOTDIR)
                x->sabsent[k] = 1;
            return -1;
        }
    }
    do
        r = pread(x->sfd[k], buf, cap - 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        if (errno == ENODEV || errno == ENOENT) {   /* the device went away */
            close(x->sfd[k]);
            x->sfd[k] = -1;
        }
        return -1;
    }
    buf[r] = '\0';
    return (int)r;
}

static const char *const operstates[] = {
    "up", "down", "testing", "unknown", "dormant", "notpresent", "lowerlayerdown",
};

/* duplex: "unknown" (and anything else) has no code */
static const char *const duplexes[] = { "half", "full" };

/* 1 + the index of the word buf holds (up to '\n') in words, 0 if none. */
static uint64_t word_code(const char *buf, const char *const *words, size_t n)
{
    size_t l = strcspn(buf, "\n");
    for (size_t i = 0; i < n; i++)
        if (strlen(words[i]) == l && strncmp(buf, words[i], l) == 0)
            return i + 1;
    return 0;
}

/* "0x1003\n" (dev_show's "%#x"): 1 with *v; anything else 0. */
static int parse_hex(const char *p, uint64_t *v)
{
    uint64_t x = 0;
    int n = 0;
    if (p[0] != '0' || p[1] != 'x')
        return 0;
    for (p += 2; n < 16; p++, n++) {
        int d = pl_src_hex(*p);
        if (d < 0)
            break;
        x = x * 16 + (uint64_t)d;
    }
    if (n == 0 || (*p != '\n' && *p != '\0'))
        return 0;
    *v = x;
    return 1;
}

/* Value of sysfs counter k of x: 1 with *v, 0 if none. */
static int sys_value(const netif_state *s, nic *x, int k, uint64_t *v)
{
    char buf[64];
    const char *p = buf;
    int len = read_sys(s, x, k, buf, sizeof buf);
    if (len < 0)
        return 0;
    if (k == SF_OPER || k == SF_DUPLEX) {
        *v = k == SF_OPER ? word_code(buf, operstates, sizeof operstates / sizeof operstates[0])
                          : word_code(buf, duplexes, 2);
        return *v != 0;
    }
    if (k == SF_FLAGS)
        return parse_hex(buf, v);
    /* speed -1 is "unknown"; anything not a plain decimal is left unset */
    if (pl_parse_u64(&p, v) || (*p != '\n' && *p != '\0'))
        return 0;
    if (k == SF_SPEED) {
        if (*v == 0xFFFF || *v >= U32MAX)
            return 0;                    /* SPEED_UNKNOWN of older drivers */
        *v *= 1000000;
    }
    return k != SF_CARRIER || *v <= 1;
}

/* ---- root qdiscs ------------------------------------------------------------ */

/* One dump of the root qdiscs into s->ql: 1 when it holds this collect's.
 * The list grows (rarely) when a dump filled it; a failed dump closes the
 * socket, whose queue may hold the rest of that dump, for a fresh one next
 * time. */
static int read_qdiscs(netif_state *s, uint32_t nifs)
{
    for (int tries = 0; tries < 2; tries++) {
        if (s->ql.cap < nifs + 8 || (tries && s->ql.n == s->ql.cap)) {
            uint32_t cap = (nifs + 8 > 2 * s->ql.cap ? nifs + 8 : 2 * s->ql.cap);
            pl_qdisc *q = realloc(s->ql.q, cap * sizeof *q);
            if (!q)
                return 0;
            s->ql.q = q;
            s->ql.cap = cap;
        }
        if (!s->qs && !(s->qs = pl_qdisc_open()))
            return 0;
        if (pl_qdisc_dump(s->qs, &s->ql) != 0) {
            pl_qdisc_close(s->qs);
            s->qs = NULL;
            return 0;
        }
        if (s->ql.n < s->ql.cap)
            return 1;
    }
    return 0;
}

/* The root qdisc of ifindex in the last dump (hint: its likely place). */
static const pl_qdisc *find_qdisc(const netif_state *s, uint32_t ifindex, uint32_t hint)
{
    if (ifindex == 0)
        return NULL;
    if (hint < s->ql.n && s->ql.q[hint].ifindex == ifindex)
        return &s->ql.q[hint];
    for (uint32_t i = 0; i < s->ql.n; i++)
        if (s->ql.q[i].ifindex == ifindex)
            return &s->ql.q[i];
    return NULL;
}

/* Sets x's wanted qdisc counters in instance inst and adds them to tq
 * (nq: how many interfaces added one) unless x is loopback. */
static void put_qdisc(const netif_state *s, const nic *x, uint32_t hint, const uint8_t *want,
                      pl_snapshot *snap, uint32_t inst, uint64_t *tq, uint32_t *nq)
{
    const pl_qdisc *q = find_qdisc(s, x->ifindex, hint);
    uint64_t v[NQ];
    if (!q || !q->have_queue)
        return;
    v[Q_QLEN] = q->qlen;
    v[Q_BACKLOG] = q->backlog;
    v[Q_DROPS] = q->drops;
    v[Q_REQUEUES] = q->requeues;
    v[Q_OVERLIMITS] = q->overlimits;
    for (int j = 0; j < NQ; j++) {
        if (!want[j])
            continue;
        pl_snap_set(snap, inst, q_counter[j], v[j]);
        if (!x->loop) {
            tq[j] += v[j];
            nq[j]++;
        }
    }
}

/* ---- interfaces -------------------------------------------------------------- */

static nic *find_nic(netif_state *s, const char *name, size_t len, uint32_t hint)
{
    nic *x;
    if (hint < s->n && strlen(s->nics[hint].name) == len &&
        memcmp(s->nics[hint].name, name, len) == 0)
        return &s->nics[hint];
    for (uint32_t i = 0; i < s->n; i++)
        if (strlen(s->nics[i].name) == len && memcmp(s->nics[i].name, name, len) == 0)
            return &s->nics[i];
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 8;
        nic *nn = realloc(s->nics, cap * sizeof *nn);
        if (!nn)
            return NULL;
        s->nics = nn;
        s->cap = cap;
    }
    x = &s->nics[s->n++];
    memset(x, 0, sizeof *x);
    memcpy(x->name, name, len);
    x->name[len] = '\0';
    /* a name that is not a plain path component gets no sysfs lookups */
    x->sysfs_ok = !memchr(name, '/', len) && strcmp(x->name, ".") != 0 &&
                  strcmp(x->name, "..") != 0;
    for (int k = 0; k < NSF; k++)
        x->sfd[k] = -1;
    identify(s, x);
    return x;
}

/* Interfaces not in this read are gone: forget them. */
static void sweep(netif_state *s)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->nics[i].gen != s->gen) {
            close_sysfs(&s->nics[i]);
            continue;
        }
        if (i != j)
            s->nics[j] = s->nics[i];
        j++;
    }
    s->n = j;
}

/* Folds one read of x's fields into its accumulators and the _Total sums. */
static void update(netif_state *s, nic *x, const uint64_t v[NF], const uint8_t ok[NF])
{
    static const int mainf[4] = { RXB, RXP, TXB, TXP };
    int fell = 0, hard = 0, had = 0, mfell = 0, reset;
    for (int f = 0; f < NF; f++)
        if (ok[f] && x->seen[f] && v[f] < x->raw[f]) {
            fell = 1;
            if (x->raw[f] > U32MAX || v[f] > U32MAX)
                hard = 1;
        }
    for (int i = 0; i < 4; i++) {
        int f = mainf[i];
        if (ok[f] && x->seen[f] && x->raw[f] > 0) {
            had++;
            mfell += v[f] < x->raw[f];
        }
    }
    reset = hard || (had > 0 && mfell == had);
    if (fell) {
        uint32_t idx = read_ifindex(s, x);   /* rare: only when something fell */
        if (idx != x->ifindex)
            reset = 1;
        if (reset) {
            close_sysfs(x);                  /* the old device's files are stale */
            identify(s, x);
        }
    }
    for (int f = 0; f < NF; f++) {
        uint64_t d;
        x->pub.st[f] = ok[f] ? PL_NS_OK : PL_NS_ABSENT;
        if (reset)
            x->seen[f] = 0;
        if (!ok[f])
            continue;
        if (!x->seen[f])
            d = x->pub.v[f] = v[f];            /* new interface, field or registration */
        else if (v[f] >= x->raw[f])
            d = v[f] - x->raw[f];
        else
            d = (uint32_t)(v[f] - x->raw[f]);   /* 32-bit wrap */
        if (x->seen[f])
            x->pub.v[f] += d;
        x->raw[f] = v[f];
        x->seen[f] = 1;
        if (!x->loop)
            s->total[f] += d;
    }
}

/* Sets x's wanted sysfs counters in instance inst and adds them to tsys
 * (nsys: how many interfaces added one) unless x is loopback. */
static void put_sys(const netif_state *s, nic *x, const uint8_t *want, pl_snapshot *snap,
                    uint32_t inst, uint64_t *tsys, uint32_t *nsys)
{
    for (int j = 0; j < NSF; j++) {
        uint64_t sv;
        if (!want[j] || !sys_value(s, x, j, &sv))
            continue;
        pl_snap_set(snap, inst, sf_counter[j], sv);
        if (!x->loop) {
            tsys[j] += sv;
            nsys[j]++;
        }
    }
}

/* One pass over the rows of /proc/net/dev: instances, and values when
 * values != 0. */
static int walk(netif_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    uint8_t want_sys[NSF] = { 0 }, any_sys = 0, want_q[NQ] = { 0 }, any_q = 0;
    uint64_t tsys[NSF] = { 0 }, tq[NQ] = { 0 };
    ndvals tot;
    pl_feed_in in;
    uint32_t nsys[NSF] = { 0 }, nq[NQ] = { 0 }, nonloop = 0;
    const pl_netdev *t;
    int e, ti;

    if ((e = pl_ksrc_get(s->dev)) != 0) {
        snap->err_path = pl_ksrc_path(s->dev);
        return e;
    }
    snap->time = pl_ksrc_time(s->dev);
    t = pl_ksrc_data(s->dev);
    for (int j = 0; values && j < NSF; j++)
        if (!wanted || wanted[sf_counter[j]])
            want_sys[j] = any_sys = 1;
    for (int j = 0; values && s->live && j < NQ; j++)
        if (!wanted || wanted[q_counter[j]])
            want_q[j] = any_q = 1;
    if (any_q)
        any_q = (uint8_t)read_qdiscs(s, t->n);
    memset(&tot, 0, sizeof tot);
    memset(tot.st, PL_NS_OK, sizeof tot.st);
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    s->gen++;
    for (uint32_t r = 0; r < t->n; r++) {
        const pl_ndrow *row = (const pl_ndrow *)t->row + r;
        nic *x = find_nic(s, row->name, row->len, r);
        int inst;
        if (!x)
            return ENOMEM;
        x->gen = s->gen;
        if ((inst = pl_snap_add(snap, x->name, x->ifindex)) < 0)
            return ENOMEM;
        if (!values)
            continue;
        update(s, x, row->v, row->ok);
        /* the snapshot's id is the one before a re-registration was seen */
        snap->inst[inst].id = x->ifindex;
        pl_feed_put(&in, S_ROW, &x->pub);
        pl_feed_walk(&in, (uint32_t)inst, feeds, NC, wanted);
        if (!x->loop) {
            nonloop++;
            for (int f = 0; f < NF; f++) {
                if (x->pub.st[f] != PL_NS_OK)
                    tot.st[f] = PL_NS_ABSENT;
                tot.v[f] += x->pub.v[f];
            }
        }
        if (any_q)
            put_qdisc(s, x, r, want_q, snap, (uint32_t)inst, tq, nq);
        if (any_sys)
            put_sys(s, x, want_sys, snap, (uint32_t)inst, tsys, nsys);
    }
    sweep(s);
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (!values)
        return 0;
    for (int f = 0; f < NF; f++)
        if (rate_field[f])
            tot.v[f] = s->total[f];
    pl_feed_put(&in, S_ROW, &tot);
    pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    for (int j = 0; j < NSF; j++) {
        if (!want_sys[j])
            continue;
        if (sf_total[j] == SUM_KNOWN ? nsys[j] > 0 : sf_total[j] == SUM_ALL && nsys[j] == nonloop)
            pl_snap_set(snap, (uint32_t)ti, sf_counter[j], tsys[j]);
    }
    for (int j = 0; j < NQ; j++)        /* interfaces without a root qdisc queue nothing */
        if (nq[j] > 0)
            pl_snap_set(snap, (uint32_t)ti, q_counter[j], tq[j]);
    return 0;
}

/* ---- ops ------------------------------------------------------------------------ */

static int netif_open(pl_env *env, void **state)
{
    netif_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);  /* sysfs files are opened below its root */
    s->live = strcmp(pl_env_root(env), "/") == 0;
    if (!(s->dev = pl_ksrc_attach(env, &pl_ksrc_netdev))) {
        pl_env_unref(s->env);
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static void netif_close(void *state)
{
    netif_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        close_sysfs(&s->nics[i]);
    free(s->nics);
    pl_qdisc_close(s->qs);
    free(s->ql.q);
    pl_env_unref(s->env);
    free(s);
}

static int netif_instances(void *state, pl_snapshot *snap)
{
    pl_snap_clear(snap);
    return walk(state, NULL, snap, 0);
}

static int netif_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_snap_clear(snap);
    return walk(state, wanted, snap, 1);
}

static const pl_provider_ops ops = { netif_open, netif_close, netif_instances, netif_collect, NULL, NULL };

const pl_counterset_def pl_netif_def = {
    {0x9522ef18, 0xbc04, 0x585b, {0xbc, 0xa1, 0x4c, 0x46, 0x9f, 0x9e, 0x2d, 0x1f}},
    "Network Interface",
    "Traffic, errors and link state of each network interface of this network namespace, "
    "from /proc/net/dev and /sys/class/net; _Total leaves out loopback.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 6000, NULL,
};
