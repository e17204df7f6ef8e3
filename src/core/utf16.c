/* UTF-8 <-> UTF-16LE for instance names and strings of the PerfLib V2
 * layouts (pl_datablock.h): invalid UTF-8 becomes U+FFFD on the way out, an
 * unpaired surrogate is an error on the way in. */
#include "pl_datablock.h"
#include "pl_le.h"

#include <string.h>

/* Next code point of UTF-8 s (advancing *i), U+FFFD for a malformed sequence. */
static uint32_t next_cp(const unsigned char *s, size_t *i)
{
    unsigned char c = s[*i];
    uint32_t cp;
    int n;
    if (c < 0x80) { (*i)++; return c; }
    if (c >= 0xC2 && c <= 0xDF) { cp = c & 0x1Fu; n = 1; }
    else if (c >= 0xE0 && c <= 0xEF) { cp = c & 0x0Fu; n = 2; }
    else if (c >= 0xF0 && c <= 0xF4) { cp = c & 0x07u; n = 3; }
    else { (*i)++; return 0xFFFD; }
    for (int k = 1; k <= n; k++) {
        unsigned char d = s[*i + (size_t)k];
        if ((d & 0xC0) != 0x80) { (*i)++; return 0xFFFD; }   /* also stops at the NUL */
        cp = (cp << 6) | (d & 0x3Fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) {
        (*i)++;
        return 0xFFFD;
    }
    *i += (size_t)n + 1;
    return cp;
}

/* Unit k of the output: native units in out, or little-endian bytes at le. */
static void put_unit(uint16_t *out, uint8_t *le, size_t k, uint16_t v)
{
    if (out)
        out[k] = v;
    else
        pl_w16(le + 2 * k, v);
}

/* UTF-8 s as UTF-16 into out or le: as many whole units as fit in cap with
 * the NUL after them (a pair is never cut); returns all the units s has. */
static size_t to_utf16(const char *s, uint16_t *out, uint8_t *le, size_t cap)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, n = 0, w = 0;          /* w: units written, the first n that fitted */
    while (u[i]) {
        uint32_t cp = next_cp(u, &i);
        size_t k = cp >= 0x10000 ? 2 : 1;
        if (w == n && n + k < cap) {
            if (k == 2) {
                put_unit(out, le, n, (uint16_t)(0xD800 + ((cp - 0x10000) >> 10)));
                put_unit(out, le, n + 1, (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
            } else {
                put_unit(out, le, n, (uint16_t)cp);
            }
            w += k;
        }
        n += k;
    }
    if (cap)
        put_unit(out, le, w, 0);
    return n;
}

size_t pl_utf8_to_utf16(const char *s, uint16_t *out, size_t cap)
{
    return to_utf16(s, out, NULL, out ? cap : 0);
}

long pl_utf16_to_utf8(const uint16_t *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = s[i];
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (i + 1 >= n || s[i + 1] < 0xDC00 || s[i + 1] > 0xDFFF)
                return -1;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (uint32_t)(s[i + 1] - 0xDC00);
            i++;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return -1;
        }
        unsigned char b[4];
        int k;
        if (cp < 0x80) { b[0] = (unsigned char)cp; k = 1; }
        else if (cp < 0x800) { b[0] = (unsigned char)(0xC0 | (cp >> 6)); b[1] = (unsigned char)(0x80 | (cp & 0x3F)); k = 2; }
        else if (cp < 0x10000) {
            b[0] = (unsigned char)(0xE0 | (cp >> 12)); b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            b[2] = (unsigned char)(0x80 | (cp & 0x3F)); k = 3;
        } else {
            b[0] = (unsigned char)(0xF0 | (cp >> 18)); b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
            b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (unsigned char)(0x80 | (cp & 0x3F)); k = 4;
        }
        for (int j = 0; j < k; j++, o++)
            if (o + 1 < cap)
                out[o] = (char)b[j];
    }
    if (cap)
        out[o < cap ? o : cap - 1] = '\0';
    return (long)o;
}

size_t pl_db_put_utf16(void *buf, const char *s)
{
    return 2 * (to_utf16(s, NULL, buf, buf ? SIZE_MAX : 0) + 1);
}
