/* Little-endian fields of the PerfLib V2 layouts, read and written byte by
 * byte: the buffers may be unaligned and come from anywhere.  GUIDs as
 * Windows lays them out (Data1..3 little-endian, Data4 as bytes). */
#ifndef PL_LE_H
#define PL_LE_H

#include "perflib.h"

#include <stdint.h>
#include <string.h>

static inline uint16_t pl_r16(const void *p)
{
    const uint8_t *b = p;
    return (uint16_t)(b[0] | (b[1] << 8));
}
static inline uint32_t pl_r32(const void *p)
{
    const uint8_t *b = p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
static inline uint64_t pl_r64(const void *p)
{
    return (uint64_t)pl_r32(p) | ((uint64_t)pl_r32((const uint8_t *)p + 4) << 32);
}
static inline void pl_w16(void *p, uint16_t v)
{
    uint8_t *b = p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}
/* On a little-endian host a write is one unaligned store (memcpy): the byte
 * loop is not always merged into one, and a block writes millions of them. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void pl_w32(void *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static inline void pl_w64(void *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
#else
static inline void pl_w32(void *p, uint32_t v)
{
    uint8_t *b = p;
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}
static inline void pl_w64(void *p, uint64_t v)
{
    uint8_t *b = p;
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}
#endif
static inline void pl_guid_get(const void *p, pl_guid *g)
{
    const uint8_t *b = p;
    g->d1 = pl_r32(b);
    g->d2 = pl_r16(b + 4);
    g->d3 = pl_r16(b + 6);
    memcpy(g->d4, b + 8, 8);
}
static inline void pl_guid_put(void *p, const pl_guid *g)
{
    uint8_t *b = p;
    pl_w32(b, g->d1);
    pl_w16(b + 4, g->d2);
    pl_w16(b + 6, g->d3);
    memcpy(b + 8, g->d4, 8);
}

#endif
