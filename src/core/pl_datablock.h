/* Samples as PerfLib V2 binary data blocks, and strict reading of blocks
 * that come from outside the process.
 *
 * A data block is a PERF_DATA_HEADER (48 bytes) followed by one
 * PERF_COUNTER_HEADER block per result, in the five result shapes of
 * PerfQueryCounterData (windows-perf-model.md section 3.3); every size and
 * offset is a multiple of 8 and little-endian.  Instance names are UTF-16LE.
 *
 * The perflib extension (`ext`) makes a block self-contained, so that it turns
 * back into a sample that formats exactly like the original: each
 * PERF_COUNTER_HEADER then has Reserved = PL_DB_EXT and ends in a trailer
 * (counterset GUID, spec, counter ids, instance keys and UTF-8 names, base
 * values and presence flags, and the result's own time: when its counterset
 * was read; blocks without it read as the header's time), and a sample
 * trailer (query id, sequence)
 * follows the last block inside dwTotalSize.  Standard consumers step over
 * both: they read what dwType says and move on by dwSize.
 *
 * Nothing here trusts a size field: every size, offset and count is checked
 * against the real buffer length before use, and a bad block is an error
 * with the offset and the rule it broke.  Part of the core: no Lua. */
#ifndef PL_DATABLOCK_H
#define PL_DATABLOCK_H

#include "perflib.h"

#define PL_DB_EXT 0x31584C50u           /* "PLX1" little-endian: a block with perflib's trailer */
#define PL_DB_SAMPLE 0x31534C50u        /* "PLS1": the sample trailer after the last block */

/* Sizes of the Windows structures (reference section 3.2). */
#define PL_DB_DATA_HEADER 48u
#define PL_DB_COUNTER_HEADER 16u
#define PL_DB_MULTI 8u                  /* PERF_MULTI_COUNTERS / PERF_MULTI_INSTANCES head */
#define PL_DB_INSTANCE_HEADER 8u
#define PL_DB_COUNTER_DATA 8u           /* head; the data follows, padded to 8 */
#define PL_DB_IDENTIFIER 40u            /* PERF_COUNTER_IDENTIFIER without a name */
#define PL_DB_MAX_INSTANCE_NAME 1024u   /* PERF_MAX_INSTANCE_NAME, in UTF-16 units with the NUL */

/* Win32 codes a data block carries in dwStatus: fields of the Windows wire
 * format this encoder writes (the Lua binding's s:block() too), not statuses
 * the core passes around; src/capi/pl_codes.h maps those. */
#define PL_WIN_ERROR_FILE_NOT_FOUND 2u
#define PL_WIN_ERROR_ACCESS_DENIED 5u
#define PL_WIN_ERROR_INVALID_DATA 13u
#define PL_WIN_ERROR_NOT_ENOUGH_MEMORY 8u
#define PL_WIN_ERROR_WMI_INSTANCE_NOT_FOUND 4201u

typedef struct pl_db_error {
    size_t offset;                      /* where in the buffer the rule broke */
    const char *rule;                   /* what was wrong, a static string */
} pl_db_error;

/* Bytes the block of sample s takes (with or without the extension). */
size_t pl_db_size(const pl_sample *s, int ext);
/* Writes it into buf (cap bytes) in the same walk that sizes it; returns the
 * size it takes.  When that is more than cap, buf holds a part of it only. */
size_t pl_db_write(const pl_sample *s, int ext, void *buf, size_t cap);

/* Checks a block against every rule of the layout without needing the
 * counter definitions (standard or extended): 0, or EINVAL with *err set. */
int pl_db_validate(const void *buf, size_t len, pl_db_error *err);

/* Builds a sample from an extended block; the countersets are looked up by
 * GUID in env and the counters by id.  The sample is foreign: its results
 * pair with others' by definition, never by its ids alone (pl_sample_pair).  The sample is one allocation from
 * alloc (NULL alloc: malloc, free with free()).  0; EINVAL with *err set for
 * a malformed block or one that names an unknown counterset or counter;
 * ENOMEM. */
int pl_db_read(pl_env *env, const void *buf, size_t len, pl_alloc_fn alloc, void *ud, pl_sample **out,
               pl_db_error *err);

/* A foreign sample read from a block, in one allocation from alloc (NULL:
 * malloc) laid out for these counts (nnames >= 1: names[0] is ""), with
 * everything but the pointers and nblocks zero; NULL for ENOMEM. */
pl_sample *pl_db_sample_alloc(pl_alloc_fn alloc, void *ud, uint32_t nblocks, size_t ncidx, size_t ninst,
                              size_t nvals, size_t nnames);

/* One PERF_INSTANCE_HEADER block (header, UTF-16LE name with its NUL,
 * padding to 8) at buf; buf NULL only sizes.  Returns its size. */
size_t pl_db_put_instance(void *buf, uint32_t id, const char *name);
/* A UTF-16LE string with its NUL at buf (unaligned is fine); buf NULL only
 * sizes.  Returns its size in bytes. */
size_t pl_db_put_utf16(void *buf, const char *s);

/* An instance name as UTF-16 units with its NUL, cut at PERF_MAX_INSTANCE_NAME;
 * returns the units without the NUL. */
size_t pl_db_instance_name(const char *utf8, uint16_t name[PL_DB_MAX_INSTANCE_NAME]);
/* FILETIME t100 (100 ns since 1601) as a SYSTEMTIME in UTC, 16 bytes at p;
 * any value is safe (a year gmtime cannot hold gives zeros). */
void pl_db_system_time(uint8_t *p, int64_t t100);

/* UTF-8 -> UTF-16 (native units) into out: as many whole units as fit in cap
 * with a NUL after them (a surrogate pair is never cut); invalid UTF-8 becomes
 * U+FFFD.  Returns the units s needs, without the NUL. */
size_t pl_utf8_to_utf16(const char *s, uint16_t *out, size_t cap);
/* UTF-16 (n units, no NUL needed) -> UTF-8 into out (cap bytes, always
 * NUL-terminated when cap > 0); -1 for an unpaired surrogate, else the bytes
 * needed without the NUL. */
long pl_utf16_to_utf8(const uint16_t *s, size_t n, char *out, size_t cap);

#endif
