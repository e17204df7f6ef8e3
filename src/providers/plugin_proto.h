/* The wire format between perflib (plugin_host.c) and perflib-plugin-host
 * (src/plughost/plughost.c), over a SOCK_STREAM socketpair (the host's end
 * is its fd 3).  Strictly one request, then one reply; native byte order
 * (both ends are the same machine and build).
 *
 *   request: pl_proto_req, then len payload bytes
 *     OPEN     pl_proto_open, then NUL-terminated strings: library, Open,
 *              Collect, Close, then nexports export strings
 *     COLLECT  the query, ASCII, no NUL
 *     CLOSE    nothing: the host calls Close and exits
 *   reply: pl_proto_rep, then len bytes: on err 0 the PERF_OBJECT_TYPE
 *          blocks Collect returned (nobjs objects); otherwise a short
 *          ASCII sentence (err an errno, code the Win32 code if any).
 * Nothing but perflib speaks this: no versioning beyond the magic. */
#ifndef PL_PLUGIN_PROTO_H
#define PL_PLUGIN_PROTO_H

#include <stdint.h>

#define PL_PROTO_MAGIC   0x50464c48u      /* "HLFP": a stray writer is caught */
#define PL_PROTO_OPEN    1u
#define PL_PROTO_COLLECT 2u
#define PL_PROTO_CLOSE   3u
#define PL_PROTO_MAX_REQ (1u << 20)       /* the host refuses larger requests */

/* pl_proto_open.flags */
#define PL_PROTO_CHECK_BUFFERS   0x1u     /* canary, pointer, length, count */
#define PL_PROTO_CHECK_ALIGNMENT 0x2u     /* *pcbData % 8 == 0 */

typedef struct pl_proto_req {
    uint32_t magic, type, len, pad;
} pl_proto_req;

typedef struct pl_proto_open {
    uint32_t first_counter, first_help, last_counter, last_help;
    uint32_t test_level, flags, nexports, pad;
    uint64_t max_buffer;
} pl_proto_open;

typedef struct pl_proto_rep {
    uint32_t magic;
    int32_t err;          /* 0 or an errno */
    uint32_t code;        /* the Win32 code Open/Collect returned, when it matters */
    uint32_t nobjs;       /* *pObjectsReturned on success */
    uint64_t len;         /* payload bytes that follow */
} pl_proto_rep;

#endif
