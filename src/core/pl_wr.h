/* The one-walk writer and the bounds-checked reader state shared by the
 * binary layouts (V2 data blocks, V1 PERF_DATA_BLOCKs): a writer sizes and
 * writes in the same walk and never goes past cap (buf NULL only sizes);
 * a reader's failure carries the offset and the rule it broke. */
#ifndef PL_WR_H
#define PL_WR_H

#include "pl_datablock.h"
#include "pl_le.h"

#include <errno.h>
#include <string.h>

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

typedef struct wr {
    uint8_t *buf;
    size_t off, cap;
} wr;

/* Where n bytes at off go, or NULL when they do not fit (or only sizing). */
static inline uint8_t *at(const wr *w, size_t off, size_t n)
{
    return w->buf && off <= w->cap && n <= w->cap - off ? w->buf + off : NULL;
}
static inline void put16(wr *w, uint16_t v)
{
    uint8_t *p = at(w, w->off, 2);
    if (p)
        pl_w16(p, v);
    w->off += 2;
}
static inline void put32(wr *w, uint32_t v)
{
    uint8_t *p = at(w, w->off, 4);
    if (p)
        pl_w32(p, v);
    w->off += 4;
}
static inline void put64(wr *w, uint64_t v)
{
    uint8_t *p = at(w, w->off, 8);
    if (p)
        pl_w64(p, v);
    w->off += 8;
}
static inline void put_bytes(wr *w, const void *src, size_t n)
{
    uint8_t *p = at(w, w->off, n);
    if (p && n)
        memcpy(p, src, n);
    w->off += n;
}
static inline void pad8(wr *w)
{
    static const uint8_t zero[8];
    put_bytes(w, zero, ALIGN8(w->off) - w->off);
}
/* A size that is known only after what it counts: written back at off. */
static inline void patch32(wr *w, size_t off, uint32_t v)
{
    uint8_t *p = at(w, off, 4);
    if (p)
        pl_w32(p, v);
}

typedef struct rd {
    const uint8_t *p;
    size_t len;
    pl_db_error *err;
    int lax_align;           /* V1 plug-in objects with alignment tests off: lengths need not be
                                multiples of 8 (every read is byte-wise either way) */
} rd;

static inline int fail(rd *r, size_t off, const char *rule)
{
    if (r->err) {
        r->err->offset = off;
        r->err->rule = rule;
    }
    return EINVAL;
}

#endif
