/* Samples as PerfLib V1 PERF_DATA_BLOCKs (what RegQueryValueEx on
 * HKEY_PERFORMANCE_DATA returns) and back, laid out as winperf.h does on
 * 64-bit Windows (windows-perf-model.md section 7):
 *
 *   PERF_DATA_BLOCK (88 bytes) + system name (UTF-16LE), HeaderLength = both, padded to 8
 *   per object:  PERF_OBJECT_TYPE (64) + NumCounters PERF_COUNTER_DEFINITION (40 each)
 *     NumInstances = PERF_NO_INSTANCES (-1): one PERF_COUNTER_BLOCK at DefinitionLength
 *     NumInstances >= 0: per instance PERF_INSTANCE_DEFINITION (24) + UTF-16LE name, padded
 *                        to 8, then its PERF_COUNTER_BLOCK (ByteLength a multiple of 8)
 *     NumInstances = PERF_METADATA_MULTIPLE_INSTANCES (-2) / _NO_INSTANCES (-3): nothing more
 *
 * One object per result of the sample (results that failed have none, as a
 * failed V1 provider returns no object).  Title indexes are perflib's
 * (pl_counter_title_index).  A counter with a base (fractions, averages,
 * multi timers) is followed by the base's own definition, as Windows lays
 * them out.  Object-timer sets carry their object clock in the object's
 * PerfTime/PerfFreq; other objects carry the result's own read time there.
 * Counter values are 8-byte aligned when 8 bytes long.
 *
 * Parent references (PERF_INSTANCE_DEFINITION.ParentObjectTitleIndex and
 * ParentObjectInstance), as Windows sets them: a Thread instance names the
 * Process object's title index and the 0-based position of its process (its
 * "ID Process" value matched against the Process instance ids) in the first
 * Process object of the same block.  Both are 0 when the block has no
 * Process object, the Thread result lacks "ID Process", or the process is
 * not among the Process instances (it ended between the two reads); every
 * other set has no parent.  The reader ignores them.
 *
 * perflib's extension (data form only): the last 8i + ALIGN8(n) + 24 bytes
 * of an object with i instances and n values, inside its TotalByteLength so
 * standard consumers step over them, hold the instance keys (pl_inst.key:
 * part of an instance's identity), the presence flags of its values
 * (pl_sample.have), n, i, the result's own time, their size and the mark
 * "PLV1".  Blocks without it read with keys 0, every value present and the
 * data block's PerfTime as each result's time.
 *
 * Nothing read trusts a length, offset or count: each is checked against the
 * real buffer, and a bad block is EINVAL with the offset and the rule (the
 * same pl_db_error as V2).  Part of the core: no Lua. */
#ifndef PL_V1_H
#define PL_V1_H

#include "pl_datablock.h"

#define PL_V1_DATA_BLOCK 88u
#define PL_V1_OBJECT_TYPE 64u
#define PL_V1_COUNTER_DEF 40u
#define PL_V1_INSTANCE_DEF 24u
#define PL_V1_COUNTER_BLOCK 8u            /* ByteLength and padding: values start 8-aligned */
#define PL_V1_EXT 0x31564C50u             /* "PLV1" little-endian */


#define PL_V1_METADATA 1u                 /* definitions only (MetadataGlobal / MetadataCostly) */
#define PL_V1_PLAIN 2u                    /* no perflib extension: only what winperf.h lays out */

/* Writes the V1 block of sample s into buf (cap bytes) in the one walk that
 * sizes it and returns the size it takes: when that is more than cap, buf
 * holds a part only and nothing past cap is written (buf NULL: size only),
 * so a caller answers ERROR_MORE_DATA with it.  sysname: the system name
 * (UTF-8; NULL for none).  flags: PL_V1_METADATA, PL_V1_PLAIN (the data
 * form without perflib's extension: a reader then takes every value as
 * present, keys 0, the block's PerfTime as each result's time) or 0. */
size_t pl_v1_write(const pl_sample *s, const char *sysname, unsigned flags, void *buf, size_t cap);

/* The metadata form (PL_V1_METADATA) of query q's results from their
 * definitions alone: no provider is opened or collected, so no I/O.  The
 * same bytes as pl_v1_write(sample of q, sysname, PL_V1_METADATA) but for
 * the times (the data block's and each object's PerfTime/PerfFreq: the
 * clock now), and every result has its object, where a sample leaves out
 * the sets whose collect failed.  The size it takes, as pl_v1_write. */
size_t pl_v1_write_metadata(const pl_query *q, const char *sysname, void *buf, size_t cap);

/* Checks every length, offset and count of a V1 block (any provider's, no
 * definitions needed): 0, or EINVAL with *err set. */
int pl_v1_validate(const void *buf, size_t len, pl_db_error *err);

/* Checks a run of nobj PERF_OBJECT_TYPEs without a PERF_DATA_BLOCK (what a
 * V1 plug-in's Collect returns) as pl_v1_validate checks a block's objects,
 * ending exactly at len.  flags: PL_V1_LAX_ALIGN lets lengths that are not
 * multiples of 8 through (the Perflib switch that skips alignment tests).
 * 0, or EINVAL with *err (offsets from buf). */
#define PL_V1_LAX_ALIGN 1u
int pl_v1_validate_objects(const void *buf, size_t len, uint32_t nobj, unsigned flags,
                           pl_db_error *err);

/* 1 when buf starts with the V1 signature "PERF" in UTF-16LE. */
int pl_v1_is_block(const void *buf, size_t len);

/* Builds a foreign sample from a V1 data block: each object is found by its
 * ObjectNameTitleIndex and each counter by its CounterNameTitleIndex among
 * env's countersets.  One allocation from alloc (NULL: malloc).  0; EINVAL
 * with *err for a malformed block, a metadata-only one, or an object or
 * counter no registered counterset has; ENOMEM. */
int pl_v1_read(pl_env *env, const void *buf, size_t len, pl_alloc_fn alloc, void *ud, pl_sample **out,
               pl_db_error *err);

#endif
