/* The shared-memory segment of an application provider (libperflib-provider
 * writes it, perflib's appseg family reads it).  Native byte order, every
 * field naturally aligned, every record a multiple of 8 bytes.
 *
 *   header (APPSEG_HDR_SIZE bytes), then records back to back up to
 *   header.size; each record starts with appseg_rec and ends with a copy of
 *   its seq (the tail), so a reader that copies front to back sees the seq
 *   before and after the body:
 *     - a set record (kind APPSEG_KIND_SET): appseg_set, then ncounters x
 *       appseg_counter;
 *     - an instance record (kind = the set's ordinal): appseg_rec,
 *       PERF_COUNTERSET_INSTANCE (32 bytes, Windows' layout), the counter
 *       area (values at each counter's Offset, 8-byte aligned), the name in
 *       UTF-16 (at InstanceNameOffset, as Windows has it), the name in UTF-8
 *       (at name8_off from the record), the tail;
 *     - a free record (APPSEG_KIND_FREE): a deleted instance, reusable.
 *
 * The segment is a memfd sealed against shrinking (F_SEAL_SHRINK) that the
 * directory entry, a symbolic link to /proc/<pid>/fd/<n>, names -- so a
 * reader may map it and read in place -- or, for root's providers and with
 * PERFLIB_APPSEG_FILE set, a file there, which readers pread.
 * The writer only appends and reuses; it never shrinks the segment.  seq is
 * odd while an instance record changes identity (create, delete, reuse):
 * the writer stores head = tail = odd, the body, then tail = head = even.
 * Values themselves are single aligned stores (atomic). */
#ifndef APPSEG_LAYOUT_H
#define APPSEG_LAYOUT_H

#include <stdint.h>

#define APPSEG_MAGIC 0x47534c50u         /* "PLSG" */
#define APPSEG_VERSION 2u               /* 2: counters carry a unit and semantics */
#define APPSEG_HDR_SIZE 128u
#define APPSEG_KIND_SET 0xFFFFFFFEu
#define APPSEG_KIND_FREE 0xFFFFFFFFu
#define APPSEG_NAME_MAX 128u             /* set and instance names, with NUL */
#define APPSEG_HELP_MAX 256u
#define APPSEG_CNAME_MAX 64u
#define APPSEG_CHELP_MAX 128u
#define APPSEG_UNIT_MAX 16u              /* "bytes", "KiB", "ms" ... with NUL; "" undeclared */
#define APPSEG_MAX_SETS 64u
#define APPSEG_MAX_COUNTERS 256u
#define APPSEG_INST_HDR 32u              /* sizeof PERF_COUNTERSET_INSTANCE */
#define APPSEG_SUFFIX ".seg"

typedef struct appseg_guid {
    uint32_t d1;
    uint16_t d2, d3;
    uint8_t d4[8];
} appseg_guid;

typedef struct appseg_hdr {
    uint32_t magic;
    uint16_t version;
    uint16_t hdr_size;       /* APPSEG_HDR_SIZE */
    uint64_t size;           /* bytes in use: header and records */
    uint64_t generation;     /* a sequence lock over identities: odd while a set or an
                                instance comes or goes, then even again (+2) */
    uint64_t start_time;     /* the provider's start time (/proc/<pid>/stat field 22) */
    uint32_t pid;
    uint32_t nsets;
    appseg_guid provider;
    uint32_t flags;          /* APPSEG_FLAG_*, set by the writer */
    uint32_t pad;
    uint8_t reserved[APPSEG_HDR_SIZE - 64];
} appseg_hdr;

/* PerfStopProvider sets it before it lets go: a reader holding a mapping
 * of a memfd segment learns that its provider stopped without a stat. */
#define APPSEG_FLAG_STOPPED 1u

typedef struct appseg_rec {
    uint64_t seq;            /* even: stable; odd: changing */
    uint32_t kind;           /* set ordinal, APPSEG_KIND_SET or APPSEG_KIND_FREE */
    uint32_t size;           /* whole record, tail included; multiple of 8 */
    uint32_t name8_off;      /* instance: UTF-8 name from the record start */
    uint32_t name8_len;      /* bytes without NUL */
} appseg_rec;                /* 24 bytes */

typedef struct appseg_counter {
    uint32_t id, type;
    uint64_t attrib;
    uint32_t size;           /* 4 or 8 */
    uint32_t detail;
    int32_t scale;
    uint32_t offset;         /* into the counter area */
    char name[APPSEG_CNAME_MAX];
    char help[APPSEG_CHELP_MAX];
    char unit[APPSEG_UNIT_MAX];
    char semantics[16];      /* "counter", "gauge", "discrete", or "" */
} appseg_counter;            /* 256 bytes */

typedef struct appseg_set {
    appseg_rec rec;
    appseg_guid guid;
    uint32_t ordinal;        /* what its instance records carry as kind */
    uint32_t instance_type;
    uint32_t ncounters;
    uint32_t area;           /* counter area bytes, multiple of 8 */
    char name[APPSEG_NAME_MAX];
    char help[APPSEG_HELP_MAX];
} appseg_set;                /* 440 bytes; counters follow */

#define APPSEG_SET_REC_SIZE(n) (sizeof(appseg_set) + (n) * sizeof(appseg_counter) + 8u)

#endif
