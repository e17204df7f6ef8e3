/* Sockets (single instance): socket counts and socket memory of the query's
 * network namespace, from /proc/net/sockstat and /proc/net/sockstat6, the
 * machine's sources (sockstat.h), each read once per collect.
 *
 * Each file is one source (pl_sources): an unreadable or empty one leaves
 * only its own counters unset, and the set fails only when every file it
 * read failed.  sockstat6 is missing when IPv6 is disabled at boot; then only
 * the IPv6 counters are unset, since the IPv4 figures are still true.  "mem"
 * counts pages (converted with the page size); FRAG "memory" is bytes. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "sockstat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_RAWCOUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define CTR(id, name, help, type, detail, u) { id, name, help, type, PL_NO_ID, detail, 0, 8, u }

static const pl_counter_def counters[] = {
    CTR(0, "Sockets Used", "Sockets of all families allocated now (sockstat \"sockets: "
        "used\").", RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(1, "TCP In Use", "TCP sockets in use now, listening ones included, IPv4 only "
        "(sockstat \"TCP: inuse\").", RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(2, "TCP Orphans", "TCP sockets no longer attached to a file descriptor, still "
        "closing (sockstat \"TCP: orphan\").", RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(3, "TCP TIME_WAIT", "TCP connections in TIME_WAIT, both families (sockstat \"TCP: "
        "tw\").", RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(4, "TCP Allocated", "TCP sockets allocated, both families and all states (sockstat "
        "\"TCP: alloc\").", RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(5, "TCP Memory Bytes", "Memory charged to TCP socket buffers, in bytes (sockstat "
        "\"TCP: mem\" pages x page size).", LRAW, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(6, "UDP In Use", "IPv4 UDP sockets in use now (sockstat \"UDP: inuse\").", RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(7, "UDP Memory Bytes", "Memory charged to UDP socket buffers, in bytes (sockstat "
        "\"UDP: mem\" pages x page size).", LRAW, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(8, "RAW In Use", "IPv4 raw sockets in use now (sockstat \"RAW: inuse\").", RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(9, "FRAG In Use", "IPv4 fragment reassembly queues now (sockstat \"FRAG: inuse\").",
        RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(10, "FRAG Memory Bytes", "Memory held by IPv4 fragment reassembly, in bytes "
        "(sockstat \"FRAG: memory\").", LRAW, ADV, PL_U(BYTES, 1, GAUGE)),
    CTR(11, "TCP6 In Use", "IPv6 TCP sockets in use now (sockstat6 \"TCP6: inuse\").",
        RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(12, "UDP6 In Use", "IPv6 UDP sockets in use now (sockstat6 \"UDP6: inuse\").",
        RAW, NOV, PL_U(COUNT, 1, GAUGE)),
    CTR(13, "RAW6 In Use", "IPv6 raw sockets in use now (sockstat6 \"RAW6: inuse\").",
        RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(14, "FRAG6 In Use", "IPv6 fragment reassembly queues now (sockstat6 \"FRAG6: "
        "inuse\").", RAW, ADV, PL_U(COUNT, 1, GAUGE)),
    CTR(15, "FRAG6 Memory Bytes", "Memory held by IPv6 fragment reassembly, in bytes "
        "(sockstat6 \"FRAG6: memory\").", LRAW, ADV, PL_U(BYTES, 1, GAUGE)),
};

#define NC (sizeof counters / sizeof counters[0])
_Static_assert(NC == PL_SS_N, "counter i is the sources' field i");

typedef struct sk_state {
    uint64_t page;
    pl_ksrc *v4, *v6;        /* the machine's readers */
} sk_state;

static int sk_open(pl_env *env, void **state)
{
    sk_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->page = (uint64_t)pl_env_page_size(env);
    s->v4 = pl_ksrc_attach(env, &pl_ksrc_sockstat);
    s->v6 = pl_ksrc_attach(env, &pl_ksrc_sockstat6);
    if (!s->v4 || !s->v6) {
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static void sk_close(void *state)
{
    free(state);             /* the readers are the environment's */
}

/* The fields [first, last) of a parsed file; "mem" pages in bytes. */
static void put(const sk_state *s, const pl_sockstat *m, uint32_t first, uint32_t last,
                pl_snapshot *snap)
{
    for (uint32_t f = first; f < last; f++) {
        uint64_t v = m->v[f];
        if (m->st[f] != PL_NS_OK)
            continue;
        if ((f == PL_SS_TCP_MEM || f == PL_SS_UDP_MEM) && !pl_mul_ok(v, s->page, &v))
            continue;
        pl_snap_set(snap, 0, f, v);
    }
}

static int sk_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    sk_state *s = state;
    pl_sources src;
    int need6 = 0, e;

    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    /* sockstat is always read, so a set with both files missing always fails;
     * each file is one source: a missing one leaves only its counters unset */
    pl_sources_init(&src);
    if (pl_source_done(&src, pl_ksrc_get(s->v4), pl_ksrc_path(s->v4))) {
        snap->time = pl_ksrc_time(s->v4);
        put(s, pl_ksrc_data(s->v4), 0, PL_SS_TCP6_INUSE, snap);
    }
    for (size_t i = PL_SS_TCP6_INUSE; i < NC; i++)
        if (!wanted || wanted[i])
            need6 = 1;
    if (need6 && pl_source_done(&src, pl_ksrc_get(s->v6), pl_ksrc_path(s->v6)))
        put(s, pl_ksrc_data(s->v6), PL_SS_TCP6_INUSE, PL_SS_N, snap);
    return pl_sources_end(&src, snap);
}

static const pl_provider_ops ops = { sk_open, sk_close, pl_single_instance, sk_collect, NULL };

const pl_counterset_def pl_sockets_def = {
    {0x23006823, 0x5d1c, 0x556c, {0xb9, 0x5d, 0x09, 0x69, 0x94, 0x1a, 0x91, 0xba}},
    "Sockets",
    "Sockets in use and socket buffer memory of this network namespace by protocol, from "
    "/proc/net/sockstat and /proc/net/sockstat6.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 0, NC, counters, &ops, 26000, NULL,
};
