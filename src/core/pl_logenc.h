/* What a sample adds to a log, for every log format (the binary log,
 * pl_blog.h, and the SQLite log, pl_slog.h), and the counterset
 * definitions a log carries so that it reads back on any machine.  Part of
 * the core: no Lua.
 *
 * A log is a run of records:
 *   PL_LOG_DEFS  the definitions of the countersets the DATA records after it
 *                use (pl_defs_write): written before the first DATA record
 *                that uses a set, and again when a set's definition changes
 *                (or in each new file of a rotation);
 *   PL_LOG_DATA  one sample as an extended V2 data block (pl_db_write with
 *                ext), its time in the PERF_DATA_HEADER.
 *
 * The definitions payload (every integer little-endian, strings UTF-8 with
 * their length first and no NUL):
 *
 *   "PLD2"  u32 nsets
 *   per set:  guid 16 (pl_guid fields, each little-endian)
 *             u32 instance_type, u32 index (title index), u32 ncounters
 *             u16 name length, name; u32 help length, help
 *     per counter: u32 id, u32 type, u32 base_id, u32 detail, i32 scale,
 *             u32 size, u8 unit, u8 semantics, u16 0, f64 unit_scale,
 *             u16 name length, name; u32 help length, help
 *
 * pl_defs_read checks every length against the buffer, the bounds below,
 * the types (pl_type_known), base ids that name a counter of the set, and
 * ids that are unique. */
#ifndef PL_LOGENC_H
#define PL_LOGENC_H

#include "perflib.h"
#include "pl_datablock.h"

#define PL_LOG_DEFS 1u                  /* the record type 1 of both formats */
#define PL_LOG_DATA 2u
#define PL_DEFS_MAGIC 0x32444C50u       /* "PLD2" */
#define PL_DEFS_MAX_SETS 4096u
#define PL_DEFS_MAX_COUNTERS 4096u      /* per set */
#define PL_DEFS_MAX_NAME 1024u          /* bytes of a set's or counter's name */
#define PL_DEFS_MAX_HELP 65536u

typedef struct pl_log_rec {
    uint32_t type;                      /* PL_LOG_DEFS or PL_LOG_DATA */
    const void *data;                   /* the payload */
    size_t len;
    int64_t time;                       /* DATA: the sample's time100ns; DEFS: 0 */
} pl_log_rec;

/* ---- definitions ------------------------------------------------------- */

/* Writes the definitions of the n sets into buf (cap bytes) and returns the
 * size they take (buf NULL or cap too small: size only, nothing past cap). */
size_t pl_defs_write(const pl_counterset_def *const *sets, uint32_t n, void *buf, size_t cap);

/* Definitions read back: each set and its counters, names and help in one
 * allocation (free with pl_defs_free); ops and provider_data are NULL. */
typedef struct pl_defs {
    uint32_t nsets;
    pl_counterset_def *sets;
} pl_defs;

/* 0; EINVAL with *err (offset in buf and rule) for anything malformed;
 * ENOMEM. */
int pl_defs_read(const void *buf, size_t len, pl_defs **out, pl_db_error *err);
void pl_defs_free(pl_defs *d);         /* NULL is fine */
/* 1 when a and b define the same counters (ids, types, bases, sizes) under
 * the same set: what a log needs to read a sample of one with the other. */
int pl_defs_same(const pl_counterset_def *a, const pl_counterset_def *b);

/* ---- the encoder -------------------------------------------------------- */

typedef struct pl_logenc pl_logenc;

pl_logenc *pl_logenc_new(void);        /* NULL: ENOMEM */
/* The records sample s adds to a log, in order, into recs[0..*n-1] (*n is 1
 * or 2): a DEFS record when s uses a set (by GUID) whose definition this
 * encoder has not given since it was made or reset, or given differently;
 * then the DATA record.  The payloads stay valid until the next call.  0,
 * EFBIG (a record past PL_LOG_MAX_RECORD), ENOMEM. */
#define PL_LOG_MAX_RECORD 0x40000000u   /* 1 GiB: a data block's dwTotalSize is 32 bits */
int pl_logenc_encode(pl_logenc *e, const pl_sample *s, pl_log_rec recs[2], int *n);
/* Call once the records of the last encode are stored: the sets they
 * described are described from now on (a store that failed calls nothing,
 * so the next encode describes them again). */
int pl_logenc_commit(pl_logenc *e);
/* A new file: every set is described again. */
void pl_logenc_reset(pl_logenc *e);
void pl_logenc_free(pl_logenc *e);     /* NULL is fine */

#endif
