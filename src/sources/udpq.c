/* /proc/net/udp and udp6 as kernel sources: see udpq.h. */
#include "udpq.h"
#include "srcparse.h"

#include <errno.h>
#include <string.h>

/* Fields of a line after "sl:" (0-based): the queues, and drops */
enum { F_STATE = 2, F_QUEUES = 3, F_DROPS = 11, F_MIN = 11 };

/* "XXXXXXXX:XXXXXXXX" (8 hex digits each, the kernel's %08X): 1 with tx, rx. */
static int queues(const char *p, size_t len, uint64_t *tx, uint64_t *rx)
{
    uint64_t v[2] = { 0, 0 };
    if (len != 17 || p[8] != ':')
        return 0;
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 8; i++) {
            int d = pl_src_hex(p[h * 9 + i]);
            if (d < 0)
                return 0;
            v[h] = v[h] * 16 + (uint64_t)d;
        }
    *tx = v[0];
    *rx = v[1];
    return 1;
}

/* A decimal of at most 10 digits (a %u): 1 with *v. */
static int dec(const char *p, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    if (len == 0 || len > 10)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        x = x * 10 + (uint64_t)(p[i] - '0');
    }
    *v = x;
    return 1;
}

int pl_socktab_line(const char *p, const char *nl, int has_drops, pl_sockline *out)
{
    int f = -1, ok_q = 0, ok_s = 0, ok_d = !has_drops;
    memset(out, 0, sizeof *out);
    while (p < nl) {
        const char *t;
        while (p < nl && *p == ' ')
            p++;
        if (p == nl)
            break;
        t = p;
        while (p < nl && *p != ' ')
            p++;
        if (f < 0 && (p - t < 2 || p[-1] != ':'))
            return 0;                    /* "sl:" first */
        if (f == F_STATE && p - t == 2 && pl_src_hex(t[0]) >= 0 && pl_src_hex(t[1]) >= 0) {
            out->state = (unsigned)(pl_src_hex(t[0]) * 16 + pl_src_hex(t[1]));
            ok_s = 1;
        } else if (f == F_QUEUES) {
            ok_q = queues(t, (size_t)(p - t), &out->tx, &out->rx);
        } else if (f == F_DROPS && has_drops) {
            ok_d = dec(t, (size_t)(p - t), &out->drops);
        }
        f++;
    }
    return ok_q && ok_s && ok_d && f >= F_MIN;
}

/* One table line (up to '\n'): adds it to u; 0 when it is malformed. */
static int take_line(const char *p, const char *nl, int has_drops, pl_udpq *u)
{
    pl_sockline l;
    if (!pl_socktab_line(p, nl, has_drops, &l))
        return 0;
    u->v[PL_UQ_SOCKETS]++;
    u->v[PL_UQ_TXQ] += l.tx;
    u->v[PL_UQ_RXQ] += l.rx;
    u->v[PL_UQ_RXBUSY] += l.rx > 0;
    if (l.rx > u->v[PL_UQ_RXMAX])
        u->v[PL_UQ_RXMAX] = l.rx;
    u->v[PL_UQ_DROPS] += l.drops;
    return 1;
}

int pl_parse_udpq(const char *buf, size_t len, void *out)
{
    pl_udpq *u = out;
    const char *nl = memchr(buf, '\n', len), *p;
    int has_drops;
    memset(u, 0, sizeof *u);
    /* the header: "   sl  local_address rem_address   st tx_queue rx_queue ..." */
    if (!nl || !memmem(buf, (size_t)(nl - buf), "tx_queue rx_queue", 17))
        return EINVAL;
    for (p = nl; p > buf && p[-1] == ' ';)
        p--;                             /* udp pads its lines to 127 columns */
    has_drops = p - buf >= 5 && memcmp(p - 5, "drops", 5) == 0;
    for (p = nl + 1; (nl = memchr(p, '\n', len - (size_t)(p - buf))) != NULL; p = nl + 1)
        if (!take_line(p, nl, has_drops, u)) {
            memset(u->st, PL_NS_BAD, sizeof u->st);
            return 0;
        }
    memset(u->st, PL_NS_OK, sizeof u->st);
    if (!has_drops)
        u->st[PL_UQ_DROPS] = PL_NS_ABSENT;
    return 0;
}

const pl_ksrc_def pl_ksrc_udp = { "proc/net/udp", sizeof(pl_udpq), 0, pl_parse_udpq, NULL };
const pl_ksrc_def pl_ksrc_udp6 = { "proc/net/udp6", sizeof(pl_udpq), 0, pl_parse_udpq, NULL };
