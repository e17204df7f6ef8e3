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
#include <unistd.h>

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

/* *path = file n of base's rotation (the old one freed): 0 or ENOMEM. */
static inline int pl_set_rotated_path(char **path, const char *base, unsigned n)
{
    char *p = pl_rotated_path(base, n);
    if (!p)
        return ENOMEM;
    free(*path);
    *path = p;
    return 0;
}

/* Whether a sample of add bytes at time t (FILETIME) goes to a new file: past
 * max_bytes, or max_seconds after the file's first sample; a file without
 * samples takes any.  Both log writers rotate by it. */
static inline int pl_log_full(uint64_t nsamples, uint64_t size, size_t add, int64_t first, int64_t t,
                              uint64_t max_bytes, uint32_t max_seconds)
{
    if (nsamples == 0)
        return 0;
    if (max_bytes && size + add > max_bytes)
        return 1;
    return max_seconds && t - first >= (int64_t)max_seconds * 10000000;
}

/* The host a log records into out (cap bytes): given, else this one's name. */
static inline void pl_log_host(char *out, size_t cap, const char *given)
{
    if (given)
        snprintf(out, cap, "%s", given);
    else if (gethostname(out, cap - 1) != 0)
        out[0] = '\0';
}

/* Circular rotation (max_files): once file n of base's rotation is started,
 * file n - max_files goes, with its companions (suffixes such as SQLite's
 * "-wal" and "-shm", NULL-ended; NULL for none).  Already gone is fine.
 * 0, or an errno with msg. */
static inline int pl_drop_oldest(const char *base, unsigned n, unsigned max_files, const char *const *suffixes,
                                 char *msg, size_t size)
{
    if (!max_files || n < max_files)
        return 0;
    char *old = pl_rotated_path(base, n - max_files);
    if (!old)
        return ENOMEM;
    int e = unlink(old) != 0 && errno != ENOENT ? errno : 0;
    for (size_t i = 0; !e && suffixes && suffixes[i]; i++) {
        size_t len = strlen(old) + strlen(suffixes[i]) + 1;
        char *c = malloc(len);
        if (!c) {
            e = ENOMEM;
            break;
        }
        snprintf(c, len, "%s%s", old, suffixes[i]);
        e = unlink(c) != 0 && errno != ENOENT ? errno : 0;
        free(c);
    }
    if (e)
        pl_say(msg, size, "%s: removing the oldest file: %s", old, strerror(e));
    free(old);
    return e;
}

#endif
