/* InfiniBand (issue 17, node_exporter's infiniband): one instance per port
 * of each RDMA device, /sys/class/infiniband/<dev>/ports/<n>, named
 * "<dev>/<n>" (mlx5_0/1); the id is the device's place in name order << 8
 * | n.  Layout and values: Documentation/ABI/stable/sysfs-class-infiniband
 * and drivers/infiniband/core/sysfs.c (Linux 6.x).
 *
 * counters/ are the PMA port counters, one decimal per file; port_rcv_data
 * and port_xmit_data count 4-byte words (IBA 16.1.3.5), given as bytes.
 * A device without a PMA prints "N/A (no PMA)": no value.  hw_counters/
 * are the driver's own (mlx5 names, drivers/infiniband/hw/mlx5/counters.c);
 * a driver without one leaves it unset.  state and phys_state are
 * "<code>: <NAME>" (4: ACTIVE, 5: LinkUp) given as the code; rate is
 * "<n>[.5] Gb/sec (<w>X <speed>)", given in bytes per second.  board_id,
 * fw_ver, hca_type (device) and link_layer (port) are text facts.  No
 * infiniband class is zero instances.  Files are kept open and read with
 * one pread each; the devices and ports are listed at each collect. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "sysattr.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define PC(f) "counters/" f
#define HW(f) "hw_counters/" f

enum { C_STATE, C_PHYS, C_RATE, C_RXB, C_TXB, C_RXP, C_TXP, C_URXP, C_UTXP, C_MRXP, C_MTXP,
       C_RXERR, C_TXDISC, C_SYMBOL, C_DOWNED, C_RECOV, C_LLI, C_EBO, C_RPHYS, C_RELAY,
       C_TXCONS, C_RXCONS, C_VL15, C_WAIT, C_OOB, C_OOS, C_DUP, C_PSEQ, C_ACKTO, C_RNR,
       C_CNPSENT, C_CNPHAND, C_ECN, NC };

#define ERR(R, id, name, file, what, det) \
    R(id, name, what " (" PC(file) ").", LRAW, PL_NO_ID, det, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND())
#define HWC(R, id, name, file, what) \
    R(id, name, what " (" HW(file) ", driver-specific).", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_BY_HAND())
#define IB_ROWS(R) \
    R(C_STATE, "Port State", "Logical port state code (state): 1 DOWN, 2 INIT, 3 ARMED, " \
      "4 ACTIVE, 5 ACTIVE_DEFER.", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(C_PHYS, "Physical State", "Physical port state code (phys_state): 1 Sleep, 2 Polling, " \
      "3 Disabled, 4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test.", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(C_RATE, "Rate", "Link rate in bytes per second (rate, \"<n> Gb/sec\" as n x 10^9 / 8).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES_PER_SECOND, 1, GAUGE), PL_BY_HAND()) \
    R(C_RXB, "Bytes Received/sec", "Data bytes received, 4 x " PC("port_rcv_data") \
      " (4-byte words).", BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(C_TXB, "Bytes Sent/sec", "Data bytes sent, 4 x " PC("port_xmit_data") " (4-byte words).", \
      BULK, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, COUNTER), PL_BY_HAND()) \
    R(C_RXP, "Packets Received/sec", "Packets received (" PC("port_rcv_packets") ").", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_TXP, "Packets Sent/sec", "Packets sent (" PC("port_xmit_packets") ").", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_URXP, "Unicast Packets Received/sec", "Unicast packets received (" \
      PC("unicast_rcv_packets") ").", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_UTXP, "Unicast Packets Sent/sec", "Unicast packets sent (" \
      PC("unicast_xmit_packets") ").", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_MRXP, "Multicast Packets Received/sec", "Multicast packets received (" \
      PC("multicast_rcv_packets") ").", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_MTXP, "Multicast Packets Sent/sec", "Multicast packets sent (" \
      PC("multicast_xmit_packets") ").", BULK, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    ERR(R, C_RXERR, "Receive Errors", "port_rcv_errors", "Packets received with an error", NOV) \
    ERR(R, C_TXDISC, "Transmit Discards", "port_xmit_discards", \
        "Outbound packets discarded because the port was down or congested", NOV) \
    ERR(R, C_SYMBOL, "Symbol Errors", "symbol_error", "Minor link errors on any lane", NOV) \
    ERR(R, C_DOWNED, "Link Downed", "link_downed", \
        "Times the link error recovery failed and the link went down", NOV) \
    ERR(R, C_RECOV, "Link Error Recovery", "link_error_recovery", \
        "Times the link error recovery process completed", ADV) \
    ERR(R, C_LLI, "Local Link Integrity Errors", "local_link_integrity_errors", \
        "Times the local physical errors passed their threshold", ADV) \
    ERR(R, C_EBO, "Excessive Buffer Overruns", "excessive_buffer_overrun_errors", \
        "Times consecutive flow-control update overruns passed their threshold", ADV) \
    ERR(R, C_RPHYS, "Remote Physical Errors", "port_rcv_remote_physical_errors", \
        "Packets received marked bad (EBP delimiter) by a remote physical error", ADV) \
    ERR(R, C_RELAY, "Switch Relay Errors", "port_rcv_switch_relay_errors", \
        "Packets a switch could not forward", ADV) \
    ERR(R, C_TXCONS, "Transmit Constraint Errors", "port_xmit_constraint_errors", \
        "Packets not sent because of a partition or raw-packet constraint", ADV) \
    ERR(R, C_RXCONS, "Receive Constraint Errors", "port_rcv_constraint_errors", \
        "Packets discarded on receipt for a partition or raw-packet constraint", ADV) \
    ERR(R, C_VL15, "VL15 Dropped", "VL15_dropped", \
        "Subnet management packets on VL15 dropped for lack of buffers", ADV) \
    R(C_WAIT, "Transmit Wait Ticks", "Ticks the port had data to send but no flow-control " \
      "credits (" PC("port_xmit_wait") ").", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    HWC(R, C_OOB, "Out Of Buffer", "out_of_buffer", \
        "Packets dropped for lack of a receive WQE") \
    HWC(R, C_OOS, "Out Of Sequence", "out_of_sequence", "Out-of-sequence packets received") \
    HWC(R, C_DUP, "Duplicate Requests", "duplicate_request", "Duplicate requests received") \
    HWC(R, C_PSEQ, "Packet Sequence Errors", "packet_seq_err", \
        "Received NAKs for a packet sequence error") \
    HWC(R, C_ACKTO, "Local Ack Timeouts", "local_ack_timeout_err", \
        "Ack timer expirations of sending QPs") \
    HWC(R, C_RNR, "RNR NAK Retries Exceeded", "rnr_nak_retry_err", \
        "Receiver-not-ready NAKs past the retry limit") \
    HWC(R, C_CNPSENT, "CNPs Sent", "np_cnp_sent", "RoCE congestion notification packets sent") \
    HWC(R, C_CNPHAND, "CNPs Handled", "rp_cnp_handled", \
        "RoCE congestion notification packets handled by rate reduction") \
    HWC(R, C_ECN, "ECN Marked Packets", "np_ecn_marked_roce_packets", \
        "RoCE packets received with an ECN congestion mark")

static const pl_counter_def counters[] = { IB_ROWS(PL_ROW_COUNTER) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

/* the file of each counter, below the port's directory */
static const char *const files[NC] = {
    "state", "phys_state", "rate", PC("port_rcv_data"), PC("port_xmit_data"),
    PC("port_rcv_packets"), PC("port_xmit_packets"), PC("unicast_rcv_packets"),
    PC("unicast_xmit_packets"), PC("multicast_rcv_packets"), PC("multicast_xmit_packets"),
    PC("port_rcv_errors"), PC("port_xmit_discards"), PC("symbol_error"), PC("link_downed"),
    PC("link_error_recovery"), PC("local_link_integrity_errors"),
    PC("excessive_buffer_overrun_errors"), PC("port_rcv_remote_physical_errors"),
    PC("port_rcv_switch_relay_errors"), PC("port_xmit_constraint_errors"),
    PC("port_rcv_constraint_errors"), PC("VL15_dropped"), PC("port_xmit_wait"),
    HW("out_of_buffer"), HW("out_of_sequence"), HW("duplicate_request"), HW("packet_seq_err"),
    HW("local_ack_timeout_err"), HW("rnr_nak_retry_err"), HW("np_cnp_sent"),
    HW("rp_cnp_handled"), HW("np_ecn_marked_roce_packets"),
};

#define CLASS "sys/class/infiniband"
#define DEV_CAP 64               /* IB_DEVICE_NAME_MAX */
#define MAX_PORT 256             /* a switch has ports 0..254 */

typedef struct ibport {
    char dev[DEV_CAP];
    unsigned port, id;
    int fd[NC];
    char name[DEV_CAP + 8];
} ibport;

typedef struct ib_state {
    pl_env *env;
    pl_classdir cls;
    ibport *v, *scratch;         /* the ports; the next listing */
    uint32_t n, cap;
} ib_state;

static int ib_open(pl_env *env, void **state)
{
    ib_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    *state = s;
    return 0;
}

static void port_close(ibport *p)
{
    for (int k = 0; k < NC; k++) {
        if (p->fd[k] >= 0)
            close(p->fd[k]);
        p->fd[k] = -1;
    }
}

static void ib_close(void *state)
{
    ib_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        port_close(&s->v[i]);
    free(s->v);
    free(s->scratch);
    pl_classdir_close(&s->cls);
    pl_env_unref(s->env);
    free(s);
}

static int by_name(const void *a, const void *b)
{
    const ibport *x = a, *y = b;
    int c = strcmp(x->dev, y->dev);
    return c ? c : (x->port > y->port) - (x->port < y->port);
}

/* Room for n + 1 ports in both arrays: 0 or ENOMEM. */
static int grow(ib_state *s, uint32_t n)
{
    uint32_t cap = s->cap ? 2 * s->cap : 8;
    ibport *a, *b;
    if (n < s->cap)
        return 0;
    if (!(a = realloc(s->v, cap * sizeof *a)))
        return ENOMEM;
    s->v = a;
    if (!(b = realloc(s->scratch, cap * sizeof *b)))
        return ENOMEM;
    s->scratch = b;
    s->cap = cap;
    return 0;
}

/* Adds the ports of device dev to scratch[*n ...]: 0 or ENOMEM. */
static int list_ports(ib_state *s, const char *dev, uint32_t *n)
{
    char rel[sizeof CLASS + NAME_MAX + 8];     /* dev: a d_name, up to NAME_MAX */
    struct dirent *e;
    DIR *d;
    int fd;
    unsigned num;
    snprintf(rel, sizeof rel, CLASS "/%s/ports", dev);
    if ((fd = pl_open_rel(s->env, rel)) < 0)
        return 0;                /* gone, or no ports: nothing to list */
    if (!(d = fdopendir(fd))) {
        close(fd);
        return 0;
    }
    while ((e = readdir(d)) != NULL) {
        if (!pl_entry_number(e->d_name, "", MAX_PORT, &num))
            continue;
        if (grow(s, *n) != 0) {
            closedir(d);
            return ENOMEM;
        }
        memset(&s->scratch[*n], 0, sizeof s->scratch[*n]);
        memcpy(s->scratch[*n].dev, dev, strlen(dev) + 1);
        s->scratch[(*n)++].port = num;
    }
    closedir(d);
    return 0;
}

/* Keeps the open files of ports still there, closes the others. */
static void adopt(ib_state *s, uint32_t n)
{
    ibport *t;
    for (uint32_t i = 0; i < n; i++) {
        ibport *p = &s->scratch[i];
        int kept = 0;
        for (uint32_t j = 0; j < s->n && !kept; j++)
            if (s->v[j].fd[0] != -2 && by_name(&s->v[j], p) == 0) {
                memcpy(p->fd, s->v[j].fd, sizeof p->fd);
                s->v[j].fd[0] = -2;      /* taken */
                kept = 1;
            }
        for (int k = 0; !kept && k < NC; k++)
            p->fd[k] = -1;
        snprintf(p->name, sizeof p->name, "%s/%u", p->dev, p->port);
    }
    for (uint32_t j = 0; j < s->n; j++)
        if (s->v[j].fd[0] != -2)
            port_close(&s->v[j]);
    t = s->v;
    s->v = s->scratch;
    s->scratch = t;
    s->n = n;
}

static int list_all(ib_state *s, pl_snapshot *snap)
{
    DIR *d = pl_classdir_rewind(&s->cls, s->env, CLASS);
    struct dirent *e;
    uint32_t n = 0;
    unsigned ord = 0;
    pl_snap_clear(snap);
    while (d && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l >= DEV_CAP)
            continue;
        if (list_ports(s, e->d_name, &n) != 0)
            return ENOMEM;
    }
    if (n > 1)
        qsort(s->scratch, n, sizeof *s->scratch, by_name);
    adopt(s, n);
    for (uint32_t i = 0; i < s->n; i++) {
        if (i > 0 && strcmp(s->v[i].dev, s->v[i - 1].dev) != 0)
            ord++;
        s->v[i].id = ord << 8 | s->v[i].port;
        pl_name_sanitize(s->v[i].name);
        if (pl_snap_add(snap, s->v[i].name, s->v[i].id) < 0)
            return ENOMEM;
    }
    return 0;
}

static int ib_instances(void *state, pl_snapshot *snap)
{
    return list_all(state, snap);
}

/* "<code>: <NAME>" (state, phys_state): 1 with the code, else 0. */
static int parse_code(const char *p, uint64_t *v)
{
    if (*p < '0' || *p > '9' || pl_parse_u64(&p, v) || *p != ':')
        return 0;
    return 1;
}

/* "<n>[.5] Gb/sec ..." in bytes per second: 1 with *v, else 0. */
static int parse_rate(const char *p, uint64_t *v)
{
    uint64_t tenths;
    if (*p < '0' || *p > '9' || pl_parse_fixed(&p, 1, &tenths) || strncmp(p, " Gb/sec", 7) != 0 ||
        tenths > 100000000)
        return 0;
    *v = tenths * 12500000u;     /* 10^8 bits / 8 per tenth of a Gb/s */
    return 1;
}

/* A counters/ or hw_counters/ file: one decimal and a newline (not "N/A"). */
static int parse_count(const char *p, uint64_t *v)
{
    if (*p < '0' || *p > '9' || pl_parse_u64(&p, v))
        return 0;
    return *p == '\0' || (*p == '\n' && p[1] == '\0');
}

/* Counter k of port p: 1 with *v, else 0. */
static int read_ctr(ib_state *s, ibport *p, int k, uint64_t *v)
{
    char rel[DEV_CAP + 96] = "", buf[64];
    if (p->fd[k] < 0)
        snprintf(rel, sizeof rel, CLASS "/%s/ports/%u/%s", p->dev, p->port, files[k]);
    if (pl_read_once(&p->fd[k], s->env, rel, buf, sizeof buf))
        return 0;
    if (k == C_STATE || k == C_PHYS)
        return parse_code(buf, v);
    if (k == C_RATE)
        return parse_rate(buf, v);
    if (!parse_count(buf, v))
        return 0;
    return (k != C_RXB && k != C_TXB) || pl_mul_ok(*v, 4, v);   /* words to bytes */
}

static int ib_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    ib_state *s = state;
    uint64_t v;
    int e;
    if ((e = list_all(s, snap)) != 0)
        return e;
    for (uint32_t i = 0; i < s->n; i++)
        for (int k = 0; k < NC; k++)
            if ((!wanted || wanted[k]) && read_ctr(s, &s->v[i], k, &v))
                pl_snap_set(snap, i, (uint32_t)k, v);
    return 0;
}

/* Text facts of "<dev>/<n>": the device's board, firmware and HCA type and
 * the port's link layer (files read afresh: not the sampling path). */
static int ib_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    static const char *const keys[] = { "board_id", "fw_ver", "hca_type", "link_layer" };
    ib_state *s = state;
    const char *slash = instance ? strrchr(instance, '/') : NULL;
    char dev[DEV_CAP], rel[DEV_CAP + 64], buf[64];
    size_t l = slash ? (size_t)(slash - instance) : 0;
    unsigned port;
    if (!slash || l == 0 || l >= DEV_CAP || memchr(instance, '/', l) || instance[0] == '.' ||
        !pl_entry_number(slash + 1, "", MAX_PORT, &port))
        return ENOENT;
    memcpy(dev, instance, l);
    dev[l] = '\0';
    snprintf(rel, sizeof rel, CLASS "/%s/ports/%u/state", dev, port);
    if (pl_read_text(s->env, rel, buf, sizeof buf) == ENOENT)
        return ENOENT;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (k < 3)
            snprintf(rel, sizeof rel, CLASS "/%s/%s", dev, keys[k]);
        else
            snprintf(rel, sizeof rel, CLASS "/%s/ports/%u/%s", dev, port, keys[k]);
        if (pl_emit_file(s->env, rel, keys[k], emit, ud))
            return 0;
    }
    return 0;
}

static const pl_provider_ops ib_ops = { ib_open, ib_close, ib_instances, ib_collect, NULL,
                                        ib_info };

const pl_counterset_def pl_infiniband_def = {
    /* UUIDv5(perflib namespace, "InfiniBand") cc8316d1-3b8e-5e80-90cf-526eeb3bf62e */
    { 0xcc8316d1, 0x3b8e, 0x5e80, { 0x90, 0xcf, 0x52, 0x6e, 0xeb, 0x3b, 0xf6, 0x2e } },
    "InfiniBand",
    "Port state, rate, traffic and error counters of each InfiniBand/RDMA port, from "
    "/sys/class/infiniband/<dev>/ports/<n> (counters/ and hw_counters/); no instances "
    "without RDMA devices.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ib_ops, 59000, NULL,
};
