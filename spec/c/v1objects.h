/* PERF_OBJECT_TYPE runs built by hand from winperf.h's documented layout
 * (windows-perf-model.md 4.2: object 64 bytes, counter definition 40,
 * instance definition 24, counter block ByteLength + data), independently of
 * perflib's writer: what a V1 plug-in's Collect returns.  Field offsets are
 * written out as numbers on purpose. */
#ifndef V1OBJECTS_H
#define V1OBJECTS_H

#include <stdint.h>
#include <string.h>

typedef struct vb {
    uint8_t buf[16384];
    size_t len;
} vb;

static inline void vb_put32(vb *b, size_t off, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->buf[off + i] = (uint8_t)(v >> (8 * i));
}

static inline void vb_put64(vb *b, size_t off, uint64_t v)
{
    vb_put32(b, off, (uint32_t)v);
    vb_put32(b, off + 4, (uint32_t)(v >> 32));
}

static inline void vb_pad8(vb *b)
{
    while (b->len % 8)
        b->buf[b->len++] = 0;
}

/* A PERF_OBJECT_TYPE header; DefinitionLength and TotalByteLength come later. */
static inline size_t vb_object(vb *b, uint32_t title, uint32_t ncounters, int32_t ninst)
{
    size_t o = b->len;
    memset(b->buf + o, 0, 64);
    vb_put32(b, o + 8, 64);               /* HeaderLength */
    vb_put32(b, o + 12, title);           /* ObjectNameTitleIndex */
    vb_put32(b, o + 20, title + 1);       /* ObjectHelpTitleIndex */
    vb_put32(b, o + 28, 100);             /* DetailLevel: novice */
    vb_put32(b, o + 32, ncounters);
    vb_put32(b, o + 40, (uint32_t)ninst); /* NumInstances */
    vb_put64(b, o + 48, 123456789);       /* PerfTime */
    vb_put64(b, o + 56, 10000000);        /* PerfFreq */
    b->len += 64;
    return o;
}

/* A PERF_COUNTER_DEFINITION: CounterOffset from the PERF_COUNTER_BLOCK's start. */
static inline void vb_counter(vb *b, uint32_t title, uint32_t type, uint32_t size, uint32_t offset)
{
    size_t d = b->len;
    memset(b->buf + d, 0, 40);
    vb_put32(b, d, 40);                   /* ByteLength */
    vb_put32(b, d + 4, title);
    vb_put32(b, d + 12, title + 1);
    vb_put32(b, d + 24, 100);             /* DetailLevel */
    vb_put32(b, d + 28, type);
    vb_put32(b, d + 32, size);
    vb_put32(b, d + 36, offset);
    b->len += 40;
}

static inline void vb_end_defs(vb *b, size_t obj)
{
    vb_put32(b, obj + 4, (uint32_t)(b->len - obj));
}

/* A PERF_COUNTER_BLOCK of nbytes of data after its 4-byte ByteLength; the
 * data starts at the returned offset + 4. */
static inline size_t vb_block(vb *b, uint32_t nbytes)
{
    size_t k = b->len;
    uint32_t bl = (4 + nbytes + 7) / 8 * 8;
    memset(b->buf + k, 0, bl);
    vb_put32(b, k, bl);
    b->len += bl;
    return k;
}

/* A PERF_INSTANCE_DEFINITION with an ASCII name in UTF-16LE, padded to 8. */
static inline size_t vb_instance(vb *b, const char *name, int32_t uid)
{
    size_t i = b->len, n = strlen(name);
    memset(b->buf + i, 0, 24);
    vb_put32(b, i + 12, (uint32_t)uid);
    vb_put32(b, i + 16, 24);              /* NameOffset */
    vb_put32(b, i + 20, (uint32_t)(2 * (n + 1)));   /* NameLength with the NUL */
    b->len += 24;
    for (size_t k = 0; k <= n; k++) {
        b->buf[b->len++] = (uint8_t)name[k];
        b->buf[b->len++] = 0;
    }
    vb_pad8(b);
    vb_put32(b, i, (uint32_t)(b->len - i));
    return i;
}

static inline void vb_end_object(vb *b, size_t obj)
{
    vb_put32(b, obj, (uint32_t)(b->len - obj));
}

#endif
