/* Application providers (libperflib-provider's segments) as countersets.
 *
 * Discovery: pl_appseg_enable registers a discoverer with the core
 * (pl_register_discoverer) that scans the segment directories -- the
 * ':'-separated $PERFLIB_APPSEG_DIR if set, else $XDG_RUNTIME_DIR/perflib,
 * /dev/shm/perflib-<uid> and /run/perflib -- when one of them changed (its
 * mtime, or a scan less than a clock tick after a change), and registers
 * each new counterset through the one door with an assigned title index.
 * A set whose name or GUID is taken is refused (pl_appseg_refusal says
 * why); the others load.  A GUID stays bound to the segment that defined it
 * while that provider lives; after it exits a new segment with the same
 * definition takes over.
 *
 * Trust: a segment is read only when it is a regular file owned by the
 * reading user or root, not writable by group or others, and its pid runs
 * as the file's owner; a directory entry that is a symbolic link must read
 * /proc/<pid>/fd/<n> (a provider's memfd).  A memfd sealed against
 * shrinking is mapped and read in place (appseg_live.c): it cannot shrink
 * under the mapping, so no read can fault.  Any other segment is pread
 * whole at each collect (one that shrinks gives fewer bytes, never a
 * fault).  Every field, count, offset and name is checked against the
 * bytes there; a bad segment, a provider that stopped (its header's flag)
 * or exited (pidfd, asked at most once a millisecond) or whose pid now
 * belongs to another process (start time) fails its counterset with a
 * sentence, never old numbers. */
#ifndef PL_APPSEG_H
#define PL_APPSEG_H

#include "perflib.h"
#include "../provider/appseg_layout.h"

/* Turns discovery on for this process (idempotent, thread-safe). */
int pl_appseg_enable(void);
/* The i-th most recent refusal (0 = newest), or NULL. */
const char *pl_appseg_refusal(uint32_t i, char *buf, size_t size);

/* ---- the checks, for the reader, tests and the fuzz target --------------- */
/* The header of a segment of len bytes: 0 and *used (bytes of records to
 * walk), or EPROTO with a sentence. */
int pl_appseg_check_header(const uint8_t *buf, size_t len, size_t *used, char *msg, size_t size);
/* A set record at off (its size checked to fit in used): 0 or EPROTO. */
int pl_appseg_check_set(const uint8_t *buf, size_t used, size_t off, char *msg, size_t size);
/* A counterset definition built from a checked set record, with where each
 * counter's value lies; cs.provider_data is the caller's.  NULL (ENOMEM). */
typedef struct pl_appseg_def {
    pl_counterset_def cs;
    pl_counter_def *counters;
    uint32_t *offset;        /* per counter index, into the counter area */
    uint8_t *ref;            /* per counter index: 1 for a by-reference counter */
    uint32_t area;
    uint32_t nrefs;          /* by-reference counters */
    int all8;                /* every counter an 8-byte value in place: the fast copy */
    int contig;              /* all8, and counter i at offset 8 x i: one copy per instance */
} pl_appseg_def;
pl_appseg_def *pl_appseg_def_new(const appseg_set *s);
void pl_appseg_def_free(pl_appseg_def *d);
/* 1 when the set record at off (its size checked to fit in used) defines
 * the set d does: the same counters at the same places. */
int pl_appseg_same_set(const uint8_t *buf, size_t used, size_t off, const pl_appseg_def *d);
/* The instances of d's set (found by GUID, its definition checked against
 * d) into snap, wanted as in collect (may be NULL); key: the instances'
 * identity key.  A by-reference counter's value is the address the provider
 * stored.  Records that are changing (odd or unequal seq) are left out.
 * 0, ENOENT (no such set in the segment) or EPROTO with a sentence. */
int pl_appseg_take(const uint8_t *buf, size_t len, const pl_appseg_def *d, const uint8_t *wanted,
                   uint64_t key, pl_snapshot *snap, char *msg, size_t size);

/* Reading a mapped segment in place (a sealed memfd, which cannot shrink
 * under the mapping).  The memory changes while it is read: every field is
 * loaded once into a local and checked there, a name is copied before it is
 * checked, and an instance is kept only when its record's seq is the same
 * even number before and after its values are loaded.  The cursor keeps
 * where the last walk found each instance: while every record keeps its seq
 * the next read restores the snapshot's instances (pl_snap_restore) and
 * loads only the values; a new instance is found at the next generation. */
typedef struct pl_appseg_ent {
    uint32_t off;            /* the instance's record */
    uint64_t seq;            /* its seq when walked */
} pl_appseg_ent;
typedef struct pl_appseg_cursor {
    const pl_snapshot *snap; /* the snapshot the walk filled, and its stamp after it */
    uint64_t stamp, gen;
    int valid;
    int have_all;            /* the snapshot's have flags of those instances are all 1 */
    uint32_t ninst, cap;
    size_t names_len, used;
    pl_appseg_ent *ent;
} pl_appseg_cursor;
void pl_appseg_cursor_free(pl_appseg_cursor *c);
/* As pl_appseg_take, on len bytes mapped at map (8-aligned); EAGAIN when
 * the segment's bytes in use have grown past len (map it again). */
int pl_appseg_take_live(const uint8_t *map, size_t len, const pl_appseg_def *d, const uint8_t *wanted,
                        uint64_t key, pl_snapshot *snap, pl_appseg_cursor *cur, char *msg, size_t size);

#endif
