/* Fibre Channel (issue 17, node_exporter's fibrechannel): one instance per
 * FC host adapter port, /sys/class/fc_host/hostN, named hostN, id N.
 * Layout and values: drivers/scsi/scsi_transport_fc.c (Linux 6.x) and
 * Documentation/ABI/testing/sysfs-class-fc_host.
 *
 * speed is "<n> Gbit" (several joined by ", " for a port that reports a
 * set; the first is taken), "Unknown" or "Not Negotiated" (no value);
 * port_state and port_type are the names of enum fc_port_state and
 * fc_port_type (include/scsi/scsi_transport_fc.h), given as their enum
 * values.  statistics/ files are "0x<hex>"; the transport prints an
 * all-ones value (-1) for a statistic the driver does not keep: no value.
 * A driver without get_fc_host_stats makes the read fail: no value.
 * Text facts: port_name, node_name, fabric_name (WWNs), symbolic_name and
 * supported_classes.  No fc_host class is zero instances.  Files are kept
 * open and read with one pread each; the class is listed at each collect. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "srcparse.h"
#include "sysattr.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BULK PERF_COUNTER_BULK_COUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* counters, in the order of the files they read (one file each) */
enum { C_SPEED, C_STATE, C_TYPE, C_RXF, C_TXF, C_RXW, C_TXW, C_ERRF, C_DUMPF, C_CRC,
       C_TXWORD, C_LINKF, C_SYNC, C_SIGNAL, C_NOS, C_ABORT, C_RESET, NC };

#define ST(f) "statistics/" f
#define FC_ROWS(R) \
    R(C_SPEED, "Speed", "Negotiated link speed in bytes per second (speed, \"<n> Gbit\" as " \
      "n x 10^9 / 8; no value while Unknown or Not Negotiated).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES_PER_SECOND, 1, GAUGE), PL_BY_HAND()) \
    R(C_STATE, "Port State", "port_state as its code: 0 Unknown, 1 Not Present, 2 Online, " \
      "3 Offline, 4 Blocked, 5 Bypassed, 6 Diagnostics, 7 Linkdown, 8 Error, 9 Loopback, " \
      "10 Deleted, 11 Marginal.", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), PL_BY_HAND()) \
    R(C_TYPE, "Port Type", "port_type as its code: 0 Unknown, 1 Other, 2 Not Present, " \
      "3 NPort, 4 NLPort, 5 LPort, 6 Point-To-Point, 7 NPIV VPORT.", \
      PERF_COUNTER_RAWCOUNT, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND()) \
    R(C_RXF, "Frames Received/sec", "Frames received (" ST("rx_frames") ").", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_TXF, "Frames Sent/sec", "Frames sent (" ST("tx_frames") ").", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_RXW, "Words Received/sec", "4-byte words received (" ST("rx_words") ").", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_TXW, "Words Sent/sec", "4-byte words sent (" ST("tx_words") ").", \
      BULK, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_ERRF, "Error Frames", "Frames received in error (" ST("error_frames") ").", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_DUMPF, "Dumped Frames", "Frames dropped for lack of resources (" ST("dumped_frames") \
      ").", LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_CRC, "Invalid CRC Count", "Frames received with a bad CRC (" \
      ST("invalid_crc_count") ").", LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_TXWORD, "Invalid Transmission Words", "Invalid transmission words received (" \
      ST("invalid_tx_word_count") ").", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_LINKF, "Link Failures", "Link failures (" ST("link_failure_count") ").", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_SYNC, "Loss Of Sync", "Losses of synchronisation (" ST("loss_of_sync_count") ").", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_SIGNAL, "Loss Of Signal", "Losses of signal (" ST("loss_of_signal_count") ").", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_NOS, "NOS Count", "Not-Operational primitive sequences received (" ST("nos_count") \
      ").", LRAW, PL_NO_ID, ADV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_ABORT, "FCP Packet Aborts", "FCP exchanges aborted (" ST("fcp_packet_aborts") ").", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), PL_BY_HAND()) \
    R(C_RESET, "Seconds Since Reset", "Seconds since the statistics were last reset (" \
      ST("seconds_since_last_reset") ").", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1, GAUGE), PL_BY_HAND())

static const pl_counter_def counters[] = { FC_ROWS(PL_ROW_COUNTER) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

static const char *const files[NC] = {
    "speed", "port_state", "port_type", ST("rx_frames"), ST("tx_frames"), ST("rx_words"),
    ST("tx_words"), ST("error_frames"), ST("dumped_frames"), ST("invalid_crc_count"),
    ST("invalid_tx_word_count"), ST("link_failure_count"), ST("loss_of_sync_count"),
    ST("loss_of_signal_count"), ST("nos_count"), ST("fcp_packet_aborts"),
    ST("seconds_since_last_reset"),
};

/* the names scsi_transport_fc.c prints, at their enum values */
static const char *const states[] = {
    "Unknown", "Not Present", "Online", "Offline", "Blocked", "Bypassed", "Diagnostics",
    "Linkdown", "Error", "Loopback", "Deleted", "Marginal", NULL,
};
static const char *const types[] = {
    "Unknown", "Other", "Not Present", "NPort (fabric via point-to-point)",
    "NLPort (fabric via loop)", "LPort (private loop)",
    "Point-To-Point (direct nport connection)", "NPIV VPORT", NULL,
};

#define CLASS "sys/class/fc_host"
_Static_assert(NC <= PL_NUMDEV_FILES, "a descriptor per file");

static int fc_open(pl_env *env, void **state)
{
    return pl_numclass_open(env, CLASS, "host", state);
}

/* "0x<1..16 hex digits>" and an optional newline: 1 with *v, else 0; the
 * transport's all-ones "not kept" is 0 too. */
static int parse_hex(const char *p, uint64_t *v)
{
    uint64_t x = 0;
    int n = 0, d;
    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
        return 0;
    for (p += 2; (d = pl_src_hex(*p)) >= 0; p++, n++) {
        if (n == 16)
            return 0;
        x = x << 4 | (uint64_t)d;
    }
    if (n == 0 || (*p == '\n' && p[1]) || (*p && *p != '\n') || x == UINT64_MAX)
        return 0;
    *v = x;
    return 1;
}

/* The code of a name in a NULL-ended table (the whole line), or -1. */
static int code_of(const char *const *names, const char *t)
{
    size_t n = strcspn(t, "\n");
    for (int k = 0; names[k]; k++)
        if (strlen(names[k]) == n && strncmp(names[k], t, n) == 0 && (!t[n] || !t[n + 1]))
            return k;
    return -1;
}

/* "<n> Gbit[, ...]" in bytes per second: 1 with *v, else 0. */
static int parse_speed(const char *p, uint64_t *v)
{
    uint64_t g;
    if (*p < '0' || *p > '9' || pl_parse_u64(&p, &g) || strncmp(p, " Gbit", 5) != 0 ||
        (p[5] != '\0' && p[5] != '\n' && p[5] != ',') || g > 100000)
        return 0;
    *v = g * 125000000u;     /* 10^9 bits / 8 */
    return 1;
}

/* Counter k of host h (file k): 1 with *v, else 0. */
static int read_ctr(const pl_numclass *c, pl_numdev *h, int k, uint64_t *v)
{
    char buf[128];
    int code;
    if (pl_numdev_read(c, h, k, files[k], buf, sizeof buf))
        return 0;
    if (k == C_SPEED)
        return parse_speed(buf, v);
    if (k == C_STATE || k == C_TYPE) {
        if ((code = code_of(k == C_STATE ? states : types, buf)) < 0)
            return 0;
        *v = (uint64_t)code;
        return 1;
    }
    return parse_hex(buf, v);
}

static int fc_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_numclass *c = state;
    uint64_t v;
    int e;
    if ((e = pl_numclass_list(c, snap)) != 0)
        return e;
    for (uint32_t i = 0; i < c->devs.n; i++)
        for (int k = 0; k < NC; k++)
            if ((!wanted || wanted[k]) && read_ctr(c, (pl_numdev *)c->devs.v + i, k, &v))
                pl_snap_set(snap, i, (uint32_t)k, v);
    return 0;
}

/* Text facts of hostN: the WWNs, symbolic name and classes (files read
 * afresh: not the sampling path). */
static int fc_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    static const char *const keys[] = {
        "port_name", "node_name", "fabric_name", "symbolic_name", "supported_classes",
    };
    pl_numclass *c = state;
    char rel[96], buf[64];
    unsigned num;
    if (!instance || !pl_entry_number(instance, "host", 1u << 20, &num))
        return ENOENT;
    snprintf(rel, sizeof rel, CLASS "/host%u/port_state", num);
    if (pl_read_text(c->env, rel, buf, sizeof buf) == ENOENT)
        return ENOENT;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        snprintf(rel, sizeof rel, CLASS "/host%u/%s", num, keys[k]);
        if (pl_emit_file(c->env, rel, keys[k], emit, ud))
            return 0;
    }
    return 0;
}

static const pl_provider_ops fc_ops = { fc_open, pl_numclass_close, pl_numclass_list,
                                        fc_collect, NULL, fc_info };

const pl_counterset_def pl_fibrechannel_def = {
    /* UUIDv5(perflib namespace, "Fibre Channel") c1470625-bc70-5741-84ac-843a35d6d966 */
    { 0xc1470625, 0xbc70, 0x5741, { 0x84, 0xac, 0x84, 0x3a, 0x35, 0xd6, 0xd9, 0x66 } },
    "Fibre Channel",
    "Link speed, state and frame, word and error statistics of each Fibre Channel host "
    "port, from /sys/class/fc_host/hostN (scsi_transport_fc); no instances without FC "
    "adapters.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &fc_ops, 60000, NULL,
};
