/* Parsers for the SNMP-style files of /proc/net; see netsnmp.h. */
#include "netsnmp.h"

#include <string.h>

/* The next token of the line at *p (blanks skipped): 1 with its start and
 * length, 0 at the end of the line.  *cut is set when the text ended inside
 * the token (a truncated read): such a token is never used. */
static int token(const char **p, const char **tok, size_t *len, int *cut)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '\n' || *s == '\0') {
        *p = s;
        return 0;
    }
    *tok = s;
    while (*s && *s != ' ' && *s != '\t' && *s != '\n')
        s++;
    *len = (size_t)(s - *tok);
    *cut = *s == '\0';
    *p = s;
    return 1;
}

/* A whole token as an unsigned decimal: PL_NS_OK or PL_NS_BAD (sign,
 * garbage, above 2^64-1). */
static uint8_t value(const char *s, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    if (len == 0)
        return PL_NS_BAD;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9 || x > (UINT64_MAX - d) / 10)
            return PL_NS_BAD;
        x = x * 10 + d;
    }
    *v = x;
    return PL_NS_OK;
}

/* Index of the key named tok, or -1.  Keys are in the kernel's order, so the
 * one after the last match is tried first. */
static int find_key(const pl_ns_key *keys, size_t n, const char *tok, size_t len, size_t *cursor)
{
    size_t c = *cursor;
    if (c < n && keys[c].len == len && memcmp(keys[c].name, tok, len) == 0) {
        *cursor = c + 1;
        return (int)c;
    }
    for (size_t i = 0; i < n; i++)
        if (keys[i].len == len && memcmp(keys[i].name, tok, len) == 0) {
            *cursor = i + 1;
            return (int)i;
        }
    return -1;
}

static void store(const char *tok, size_t len, int cut, int k, uint64_t *v, uint8_t *st)
{
    uint64_t x;
    if (k < 0 || cut || st[k] != PL_NS_ABSENT)
        return;              /* unknown, cut off, or already found earlier */
    st[k] = value(tok, len, &x);
    if (st[k] == PL_NS_OK)
        v[k] = x;
}

/* Does the line at p start with "tag:"? */
static int tagged_line(const char *p, const char *tag, size_t tl)
{
    return strncmp(p, tag, tl) == 0 && p[tl] == ':';
}

static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

void pl_ns_pairs(const char *text, const char *tag, const pl_ns_key *keys, size_t n,
                 uint64_t *v, uint8_t *st)
{
    size_t tl = strlen(tag), cursor = 0;
    for (const char *p = text; p && *p; p = next_line(p)) {
        const char *h, *d, *ht, *dt;
        size_t hl, dl;
        int hcut, dcut;
        if (!tagged_line(p, tag, tl))
            continue;
        d = next_line(p);
        if (!d || !tagged_line(d, tag, tl))
            return;          /* a header without values: truncated or malformed */
        h = p + tl + 1;
        d += tl + 1;
        while (token(&h, &ht, &hl, &hcut) && token(&d, &dt, &dl, &dcut)) {
            if (hcut)
                return;
            store(dt, dl, dcut, find_key(keys, n, ht, hl, &cursor), v, st);
        }
        return;              /* the first pair only */
    }
}

void pl_ns_lines(const char *text, const char *tag, const pl_ns_key *keys, size_t n,
                 uint64_t *v, uint8_t *st)
{
    size_t tl = strlen(tag), cursor = 0, found = 0;
    /* every key found: the rest of the file (other protocols) is skipped */
    for (const char *p = text; p && *p && found < n; p = next_line(p)) {
        const char *kt, *vt, *q = p;
        size_t kl, vl;
        int kcut, vcut;
        if (strncmp(p, tag, tl) != 0)
            continue;
        const char *x;
        size_t xl;
        int k, xcut;
        if (!token(&q, &kt, &kl, &kcut) || kcut || !token(&q, &vt, &vl, &vcut))
            continue;
        k = find_key(keys, n, kt, kl, &cursor);
        if (k >= 0 && token(&q, &x, &xl, &xcut)) {
            st[k] = st[k] == PL_NS_ABSENT ? PL_NS_BAD : st[k];   /* "key 5 extra" */
            continue;
        }
        if (k >= 0 && st[k] == PL_NS_ABSENT) {
            store(vt, vl, vcut, k, v, st);
            found += st[k] != PL_NS_ABSENT;
        }
    }
}

void pl_ns_tagged_fields(const char *q, const pl_ns_key *keys, size_t n, uint64_t *v, uint8_t *st)
{
    const char *kt, *vt;
    size_t kl, vl, cursor = 0;
    int kcut, vcut;
    while (token(&q, &kt, &kl, &kcut) && !kcut && token(&q, &vt, &vl, &vcut))
        store(vt, vl, vcut, find_key(keys, n, kt, kl, &cursor), v, st);
}

void pl_ns_tagged(const char *text, const char *tag, const pl_ns_key *keys, size_t n,
                  uint64_t *v, uint8_t *st)
{
    size_t tl = strlen(tag);
    for (const char *p = text; p && *p; p = next_line(p))
        if (tagged_line(p, tag, tl)) {
            pl_ns_tagged_fields(p + tl + 1, keys, n, v, st);
            return;
        }
}
