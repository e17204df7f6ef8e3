/* /proc/net/ip_vs as a kernel source: see ipvsdest.h. */
#include "ipvsdest.h"
#include "srcparse.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#define MAXTOK 12

typedef struct dest_ctx {
    int line;                /* lines seen: the first three are the headers */
    int other;               /* the headers are not ip_vs's: no rows */
    int ntok;                /* fields of a server line (the third header's) */
    int col[PL_IPVSD_N];     /* their indexes of Weight, ActiveConn, InActConn */
    signed char fld[MAXTOK]; /* the other way: a column's count, or -1 */
    int svc_ok;              /* the current service line was read */
    pl_ipvs_key svc;         /* its part of the key */
} dest_ctx;

/* The bytes that end a token: blanks, the line's end, '\0' and the other
 * control bytes (below '!'). */
static const unsigned char stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* Hex digits' values plus one (0: not a hex digit). */
static const unsigned char hexv[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
    ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Past the blanks at p; the kernel pads with runs of spaces (%-10d). */
static const char *skip_blanks(const char *p, const char *eol)
{
    while (eol - p >= 8 && !memcmp(p, "        ", 8))
        p += 8;
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The blank-separated tokens of [p, eol): their count, MAXTOK + 1 when
 * there are more, -1 when the line holds a control byte other than a tab.
 * The scans stop at *eol without a bound check: it is the line's '\n'
 * or the buffer's '\0' (rows.h). */
static int tokens(const char *p, const char *eol, const char **tok, size_t *tl)
{
    int n = 0;
    for (;;) {
        const char *s;
        p = skip_blanks(p, eol);
        if (p >= eol)
            return n;
        if (n == MAXTOK)
            return MAXTOK + 1;
        for (s = p; !stop[(unsigned char)*p]; p++)
            ;
        if (p < eol && *p != ' ' && *p != '\t')
            return -1;       /* a control byte before the line's end */
        tok[n] = s;
        tl[n++] = (size_t)(p - s);
    }
}

static int is_tok(const char *t, size_t n, const char *w)
{
    return n == strlen(w) && memcmp(t, w, n) == 0;
}

/* Exactly n hex digits at t: 1 with *v. */
static int hexn(const char *t, size_t n, uint32_t *v)
{
    uint32_t x = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = hexv[(unsigned char)t[i]];
        if (!d)
            return 0;
        x = x << 4 | (d - 1);
    }
    *v = x;
    return 1;
}

/* "0A000001:0050" or "[2001:0db8:...]:0050": 1 with addr, af and port. */
static int addr_port(const char *t, size_t n, uint8_t *addr, uint8_t *af, uint16_t *port)
{
    uint32_t v;
    if (n < 5 || t[n - 5] != ':' || !hexn(t + n - 4, 4, &v))
        return 0;
    *port = (uint16_t)v;
    n -= 5;
    if (n == 8 && hexn(t, 8, &v)) {
        addr[0] = (uint8_t)(v >> 24);
        addr[1] = (uint8_t)(v >> 16);
        addr[2] = (uint8_t)(v >> 8);
        addr[3] = (uint8_t)v;
        *af = PL_IPVS_AF_INET;
        return 1;
    }
    if (n >= 4 && n <= 41 && t[0] == '[' && t[n - 1] == ']') {
        char a[40];
        memcpy(a, t + 1, n - 2);
        a[n - 2] = '\0';
        *af = PL_IPVS_AF_INET6;
        return memchr(a, '\0', n - 2) == NULL && inet_pton(AF_INET6, a, addr) == 1;
    }
    return 0;
}

/* A service line: the service's part of c->svc, c->svc_ok. */
static void service(dest_ctx *c, const char *const *tok, const size_t *tl, int n, int whole)
{
    pl_ipvs_key *k = &c->svc;
    memset(k, 0, sizeof *k);
    c->svc_ok = 0;
    if (!whole || n < 3 || n > MAXTOK || tl[0] >= PL_IPVS_PROTO)
        return;
    for (size_t i = 0; i < tl[0]; i++) {
        char ch = tok[0][i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '_'))
            return;
    }
    memcpy(k->proto, tok[0], tl[0]);
    if (is_tok(tok[0], tl[0], "FWM")) {
        k->svc_af = PL_IPVS_AF_FWM;
        c->svc_ok = tl[1] == 8 && hexn(tok[1], 8, &k->fwmark);
    } else {
        c->svc_ok = addr_port(tok[1], tl[1], k->svc_addr, &k->svc_af, &k->svc_port);
    }
}

/* A decimal count: PL_NS_OK with *v, else PL_NS_BAD (a sign, another byte,
 * past 2^64 - 1).  Up to 19 digits cannot overflow. */
static uint8_t count(const char *t, size_t n, uint64_t *v)
{
    const char *p = t;
    uint64_t x = 0;
    size_t i;
    for (i = 0; i < n && n < 20; i++) {
        unsigned d = (unsigned)(unsigned char)t[i] - '0';
        if (d > 9)
            break;
        x = x * 10 + d;
    }
    if (n && i == n) {
        *v = x;
        return PL_NS_OK;
    }
    if (n >= 20 && pl_src_num(&p, t + n, v) == 0 && p == t + n)
        return PL_NS_OK;
    *v = 0;
    return PL_NS_BAD;
}

/* The third header: the server lines' field count and the counts' columns. */
static void dest_header(dest_ctx *c, const char *const *tok, const size_t *tl, int n)
{
    static const char *const names[PL_IPVSD_N] = { "Weight", "ActiveConn", "InActConn" };
    c->ntok = 0;
    if (n > MAXTOK || n < 2 || !is_tok(tok[0], tl[0], "->") ||
        !is_tok(tok[1], tl[1], "RemoteAddress:Port"))
        return;
    for (int f = 0; f < PL_IPVSD_N; f++) {
        c->col[f] = -1;
        for (int i = 2; i < n; i++)
            if (is_tok(tok[i], tl[i], names[f]))
                c->col[f] = i;
        if (c->col[f] < 0)
            return;
    }
    c->ntok = n;
    memset(c->fld, -1, sizeof c->fld);
    for (int f = 0; f < PL_IPVSD_N; f++)
        c->fld[c->col[f]] = (signed char)f;
}

/* A real server line after its "->": row r, ok 0 without a key.  One pass
 * without a token table: these lines are nearly all of the file. */
static void server(const dest_ctx *c, const char *p, const char *eol, pl_ipvsrow *r)
{
    int i;
    r->ok = 0;
    r->key = c->svc;
    memset(r->key.dst_addr, 0, sizeof r->key.dst_addr);
    memset(r->vals.st, PL_NS_ABSENT, sizeof r->vals.st);
    if (!c->svc_ok || *eol != '\n')
        return;                                      /* cut off: the last count too */
    for (i = 1;; i++) {
        const char *s;
        p = skip_blanks(p, eol);
        if (p >= eol)
            break;
        if (i == c->ntok)
            return;                                  /* a field more than the header */
        for (s = p; !stop[(unsigned char)*p]; p++)
            ;
        if (p < eol && *p != ' ' && *p != '\t')
            return;                                  /* a control byte */
        if (i == 1) {
            if (!addr_port(s, (size_t)(p - s), r->key.dst_addr, &r->key.dst_af, &r->key.dst_port))
                return;
        } else if (c->fld[i] >= 0) {
            r->vals.st[c->fld[i]] = count(s, (size_t)(p - s), &r->vals.v[c->fld[i]]);
        }
    }
    r->ok = i == c->ntok;
}

static int parse_line(const char *p, const char *eol, void *row, void *ctx)
{
    dest_ctx *c = ctx;
    const char *tok[MAXTOK], *q;
    size_t tl[MAXTOK];
    int n, line = c->line < 3 ? c->line++ : 3;
    if (c->other)
        return 0;                                    /* another layout: no rows */
    if (line == 0) {
        static const char v[] = "IP Virtual Server version ";
        c->other = (size_t)(eol - p) < sizeof v - 1 || memcmp(p, v, sizeof v - 1) != 0;
        return 0;
    }
    q = skip_blanks(p, eol);
    if (line == 2 || eol - q < 3 || q[0] != '-' || q[1] != '>' || !stop[(unsigned char)q[2]]) {
        n = tokens(q, eol, tok, tl);
        if (line == 1)
            c->other = n < 1 || !is_tok(tok[0], tl[0], "Prot");
        else if (line == 2) {
            dest_header(c, tok, tl, n);
            c->other = c->ntok == 0;
        } else if (n != 0)
            service(c, tok, tl, n, *eol == '\n');  /* a control byte (n -1): bad too */
        return 0;
    }
    if (line == 1) {
        c->other = 1;
        return 0;
    }
    server(c, q + 2, eol, row);
    return 1;
}

int pl_parse_ipvs_dests(const char *buf, size_t len, void *out)
{
    dest_ctx c;
    memset(&c, 0, sizeof c);
    return pl_rows_parse(buf, len, out, sizeof(pl_ipvsrow), parse_line, &c);
}

static void host_port(char *buf, size_t size, uint8_t af, const uint8_t *a, uint16_t port)
{
    char t[INET6_ADDRSTRLEN];
    if (af == PL_IPVS_AF_INET6 && inet_ntop(AF_INET6, a, t, sizeof t))
        snprintf(buf, size, "[%s]:%u", t, port);
    else
        snprintf(buf, size, "%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3], port);
}

void pl_ipvs_key_name(const pl_ipvs_key *k, char *buf)
{
    char svc[INET6_ADDRSTRLEN + 8], dst[INET6_ADDRSTRLEN + 8];
    if (k->svc_af == PL_IPVS_AF_FWM)
        snprintf(svc, sizeof svc, "%u", k->fwmark);
    else
        host_port(svc, sizeof svc, k->svc_af, k->svc_addr, k->svc_port);
    host_port(dst, sizeof dst, k->dst_af, k->dst_addr, k->dst_port);
    snprintf(buf, PL_IPVS_NAME, "%s %s -> %s", k->proto, svc, dst);
}

/* a seq_file iterator: one service and its servers per show() */
const pl_ksrc_def pl_ksrc_ipvs_dests = {
    "proc/net/ip_vs", sizeof(pl_ipvs_dests), 0, pl_parse_ipvs_dests, pl_rows_release,
};
