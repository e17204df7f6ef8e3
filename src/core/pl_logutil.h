/* Small helpers the log writers and readers share (slog.c; blog.c and
 * logenc.c have their own copies of the first two, for their owners to
 * switch).  Part of the core: no Lua. */
#ifndef PL_LOGUTIL_H
#define PL_LOGUTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for need elements of el bytes at *p (capacity *cap, doubled): 0 or ENOMEM. */
static inline int pl_grow(void **p, size_t *cap, size_t need, size_t el)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * el);
    if (!q)
        return ENOMEM;
    *p = q, *cap = c;
    return 0;
}

/* A message into msg (size bytes; nothing when msg is NULL). */
static inline void pl_say(char *msg, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void pl_say(char *msg, size_t size, const char *fmt, ...)
{
    if (!msg || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
}

/* The name of file n of a rotation of base: base itself for 0, else
 * base with _NNN before its extension (a.db: a_001.db).  Free with free();
 * NULL for ENOMEM. */
static inline char *pl_rotated_path(const char *base, unsigned n)
{
    const char *name = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
    const char *dot = strrchr(name, '.');
    size_t stem = dot && dot != name ? (size_t)(dot - base) : strlen(base), len = strlen(base) + 16;
    char *p = malloc(len);
    if (p && n)
        snprintf(p, len, "%.*s_%03u%s", (int)stem, base, n, base + stem);
    else if (p)
        snprintf(p, len, "%s", base);
    return p;
}

#endif
