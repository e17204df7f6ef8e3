/* bcache's sysfs texts: see bcache.h. */
#include "bcache.h"
#include "pl_ksrc.h"

#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Decimal digits at buf[*i, len) into *v; 0 when none or over 64 bits. */
static int digits(const char *buf, size_t len, size_t *i, uint64_t *v)
{
    size_t start = *i;
    uint64_t x = 0;
    for (; *i < len && is_digit(buf[*i]); (*i)++) {
        unsigned d = (unsigned)(buf[*i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *v = x;
    return *i > start;
}

/* Only "\n" or nothing left. */
static int at_end(const char *buf, size_t len, size_t i)
{
    return i == len || (i + 1 == len && buf[i] == '\n');
}

pl_bch_size pl_bch_size_parse(const char *buf, size_t len)
{
    static const char units[] = "kMGTPE";   /* Z and Y: past 64 bits */
    pl_bch_size r = { 0, PL_NS_BAD, 0 };
    uint64_t q, d = 0, unit = 1, frac;
    size_t i = 0;
    const char *u;
    int dot = 0;
    if (at_end(buf, len, 0)) {
        r.st = PL_NS_ABSENT;
        return r;
    }
    if (!digits(buf, len, &i, &q))
        return r;
    if (i < len && buf[i] == '.') {
        size_t j = ++i;
        dot = 1;
        if (!digits(buf, len, &i, &d) || i - j > 2 || d > 10 || (i - j == 2 && d != 10))
            return r;
    }
    if (i < len && buf[i] != '\n') {
        if (buf[i] == '\0' || !(u = strchr(units, buf[i])))
            return r;
        for (long k = u - units; k >= 0; k--)
            unit <<= 10;
        i++;
    } else if (dot) {
        return r;                          /* a decimal point comes only with a unit */
    }
    if (!at_end(buf, len, i))
        return r;
    /* d x unit / 10, floored, without d x unit (10 x 2^60 is past 64 bits) */
    frac = d * (unit / 10) + d * (unit % 10) / 10;
    if (q > UINT64_MAX / unit || q * unit > UINT64_MAX - frac)
        return r;
    r.v = q * unit + frac;
    r.st = PL_NS_OK;
    r.exact = unit == 1;
    return r;
}

static const char *const prio_keys[PL_BCHP_N] = { "Unused", "Clean", "Dirty", "Metadata",
                                                  "Average" };

/* One line [p, e): its field set when it is one of the keys, well formed. */
static void prio_line(const char *p, const char *e, pl_bch_prio *out)
{
    const char *colon = memchr(p, ':', (size_t)(e - p));
    size_t i, n;
    int k;
    if (!colon)
        return;
    for (k = 0; k < PL_BCHP_N; k++)
        if ((size_t)(colon - p) == strlen(prio_keys[k]) &&
            !memcmp(p, prio_keys[k], (size_t)(colon - p)))
            break;
    if (k == PL_BCHP_N)
        return;
    p = colon + 1;
    n = (size_t)(e - p);
    for (i = 0; i < n && (p[i] == '\t' || p[i] == ' '); i++)
        ;
    out->st[k] = PL_NS_BAD;
    if (i == 0 || !digits(p, n, &i, &out->v[k]))
        return;
    if (k != PL_BCHP_AVERAGE && !(i < n && p[i++] == '%'))
        return;
    if (i == n)
        out->st[k] = PL_NS_OK;
}

void pl_bch_prio_parse(const char *buf, size_t len, pl_bch_prio *out)
{
    const char *p = buf, *end = buf + len;
    memset(out, 0, sizeof *out);
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        prio_line(p, e, out);
        p = e + 1;
    }
}

int pl_bch_state(const char *buf, size_t len)
{
    static const char *const states[] = { "no cache", "clean", "dirty", "inconsistent" };
    if (len && buf[len - 1] == '\n')
        len--;
    for (int k = 0; k < 4; k++)
        if (len == strlen(states[k]) && !memcmp(buf, states[k], len))
            return k;
    return -1;
}

int pl_bch_is_uuid(const char *name)
{
    for (int i = 0; i < 36; i++) {
        char c = name[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return 0;
        } else if (!is_digit(c) && !(c >= 'a' && c <= 'f')) {
            return 0;
        }
    }
    return name[36] == '\0';
}
