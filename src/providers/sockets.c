/* Sockets (single instance): socket counts and socket memory of the query's
 * network namespace, from /proc/net/sockstat and /proc/net/sockstat6.
 *
 * Each file is one source (pl_sources): an unreadable or empty one leaves
 * only its own counters unset, and the set fails only when every file it
 * read failed.  sockstat6 is missing when IPv6 is disabled at boot; then only
 * the IPv6 counters are unset, since the IPv4 figures are still true.  "mem"
 * counts pages (converted with the page size); FRAG "memory" is bytes. */
#include "providers.h"
#include "pl_provider.h"
#include "netsnmp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_RAWCOUNT
#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define CTR(id, name, help, type, detail, u) { id, name, help, type, PL_NO_ID, detail, 0, 8, u }
#define K PL_NS_KEY

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
#define FIRST6 11            /* counters from sockstat6 start here */

/* One sockstat line: its tag, keys, and the counter of each key (the two
 * "mem" keys are pages). */
typedef struct sk_line {
    const char *tag;
    pl_ns_key keys[5];
    uint8_t nkeys;
    uint8_t ctr[5];
    uint8_t pages;           /* bit k: key k counts pages */
} sk_line;

static const sk_line lines4[] = {
    { "sockets", { K("used") }, 1, { 0 }, 0 },
    { "TCP", { K("inuse"), K("orphan"), K("tw"), K("alloc"), K("mem") }, 5, { 1, 2, 3, 4, 5 },
      1u << 4 },
    { "UDP", { K("inuse"), K("mem") }, 2, { 6, 7 }, 1u << 1 },
    { "RAW", { K("inuse") }, 1, { 8 }, 0 },
    { "FRAG", { K("inuse"), K("memory") }, 2, { 9, 10 }, 0 },
};

static const sk_line lines6[] = {
    { "TCP6", { K("inuse") }, 1, { 11 }, 0 },
    { "UDP6", { K("inuse") }, 1, { 12 }, 0 },
    { "RAW6", { K("inuse") }, 1, { 13 }, 0 },
    { "FRAG6", { K("inuse"), K("memory") }, 2, { 14, 15 }, 0 },
};

typedef struct sk_state {
    pl_env *env;
    uint64_t page;
    pl_file v4, v6;
} sk_state;

static int sk_open(pl_env *env, void **state)
{
    sk_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->page = (uint64_t)pl_env_page_size(env);
    pl_file_init(&s->v4);
    pl_file_init(&s->v6);
    *state = s;
    return 0;
}

static void sk_close(void *state)
{
    sk_state *s = state;
    if (!s)
        return;
    pl_file_close(&s->v4);
    pl_file_close(&s->v6);
    pl_env_unref(s->env);
    free(s);
}

/* One pass over the file: each line's tag picks its entry in lines[]. */
static void parse(const sk_state *s, const char *text, const sk_line *lines, size_t n,
                  pl_snapshot *snap)
{
    uint64_t v[8][5];
    uint8_t st[8][5], done[8] = { 0 };
    const char *nl;
    memset(st, PL_NS_ABSENT, sizeof st);
    for (const char *p = text; *p; p = *nl ? nl + 1 : nl) {
        const char *colon;
        nl = strchr(p, '\n');
        if (!nl)
            nl = p + strlen(p);  /* a cut-off last line: its whole fields still count */
        colon = memchr(p, ':', (size_t)(nl - p));
        if (!colon)
            continue;
        for (size_t i = 0; i < n && i < 8; i++) {
            const char *t = lines[i].tag;
            size_t tl = strlen(t);
            if (tl == (size_t)(colon - p) && memcmp(p, t, tl) == 0) {
                if (!done[i])                        /* the first such line only */
                    pl_ns_tagged_fields(colon + 1, lines[i].keys, lines[i].nkeys, v[i], st[i]);
                done[i] = 1;
                break;
            }
        }
    }
    for (size_t i = 0; i < n && i < 8; i++) {
        const sk_line *l = &lines[i];
        for (unsigned k = 0; k < l->nkeys; k++) {
            if (st[i][k] != PL_NS_OK)
                continue;
            if (l->pages & (1u << k)) {
                if (s->page && v[i][k] > UINT64_MAX / s->page)
                    continue;
                v[i][k] *= s->page;
            }
            pl_snap_set(snap, 0, l->ctr[k], v[i][k]);
        }
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
    if (pl_source_read(&src, &s->v4, s->env, "proc/net/sockstat"))
        parse(s, s->v4.buf, lines4, sizeof lines4 / sizeof lines4[0], snap);
    for (size_t i = FIRST6; i < NC; i++)
        if (!wanted || wanted[i])
            need6 = 1;
    if (need6 && pl_source_read(&src, &s->v6, s->env, "proc/net/sockstat6"))
        parse(s, s->v6.buf, lines6, sizeof lines6 / sizeof lines6[0], snap);
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
