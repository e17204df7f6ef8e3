/* Binary logs: an append-only, self-describing, crash-safe file of perflib
 * data blocks (issue 15 item 2), its writer and its reader.  Part of the
 * core: no Lua.
 *
 * The format (version 2; every integer little-endian):
 *
 *   file header, 112 bytes
 *     0   magic      8 bytes  89 'P' 'L' 'B' 0D 0A 1A 0A  (a text transfer or a
 *                             truncation to 7 bits breaks it, as PNG's does)
 *     8   version    u16      2 (1 is still read)
 *     10  flags      u16      0 (no flag is defined; a reader refuses others)
 *     12  size       u32      112: where the first record starts
 *     16  created    i64      FILETIME (100 ns since 1601-01-01 UTC)
 *     24  perflib    16 bytes the writer's PL_VERSION, NUL-padded
 *     40  host       64 bytes the creating host's name, NUL-padded
 *     104 reserved   u32      0
 *     108 crc        u32      CRC-32C of bytes 0..107
 *
 *   then records, each starting at a multiple of 8:
 *     0   type       u32      1 METADATA, 2 DATA (a reader refuses others)
 *     4   length     u32      payload bytes (at most PL_BLOG_MAX_RECORD)
 *     8   crc        u32      CRC-32C of the payload
 *     12  head crc   u32      CRC-32C of bytes 0..11: a length is never
 *                             trusted before its own check
 *     16  payload    length bytes, then zeros to the next multiple of 8
 *
 *   The records are pl_logenc.h's, which the SQLite log shares:
 *   METADATA (PL_LOG_DEFS): the definitions of the countersets the DATA
 *     records after it use (pl_defs_write: GUIDs, names, help, types, bases,
 *     units), so that a log reads back on any machine (perflib.open_log).  A
 *     writer writes one before the first DATA record that uses a set, and
 *     again when a set's definition changes or a new file begins (new
 *     instances need nothing; a set gone stops appearing).
 *   DATA: one sample as an extended V2 data block (pl_db_write with ext:
 *     what Sample:block() makes), its time in the PERF_DATA_HEADER.
 *
 *   Version 1 (perflib 0.1.0 before definitions) had a PerfLib V1 metadata
 *   block in METADATA; it is still read (pl_blog_info.version says which),
 *   never appended to.
 *
  * CRC-32C (Castagnoli, reflected 0x82F63B78, init and final xor ~0: the
 * iSCSI/ext4 one), table-driven here: check("123456789") = 0xE3069283.
 *
 * Crash safety.  A record is written with one write() at the end of the
 * file; nothing written is rewritten.  A write that fails (ENOSPC, EFBIG)
 * truncates the file back to its last whole record and returns the errno.
 * A torn last record is what a crash can leave: a partial head, a payload
 * that runs past the end of the file, a last record whose CRC fails, or
 * zero bytes where the file was extended but never written.  The reader
 * reports it (pl_blog_reader.torn) and stops before it; the writer, opening
 * such a log to append, cuts it off first.  Anything else that breaks a rule
 * (a bad CRC with records after it, an unknown type, a DATA block
 * pl_db_validate refuses) is an error naming the offset: a log is never
 * misread by skipping into it.  fdatasync: every sync_every records (0:
 * only on close).  Rotation: past max_bytes, or for a sample max_seconds
 * after the file's first, the writer goes on in path_001.ext, _002...,
 * each a whole log with its own header and METADATA; with max_files, the
 * oldest file goes when one more would pass it. */
#ifndef PL_BLOG_H
#define PL_BLOG_H

#include "pl_logenc.h"

#include <stdint.h>

#define PL_BLOG_HEADER 112u
#define PL_BLOG_RECORD_HEAD 16u
#define PL_BLOG_VERSION 2u
#define PL_BLOG_METADATA PL_LOG_DEFS
#define PL_BLOG_DATA PL_LOG_DATA
#define PL_BLOG_MAX_RECORD PL_LOG_MAX_RECORD
#define PL_BLOG_HOST 64u

/* CRC-32C of n bytes, continuing from crc (start with 0). */
uint32_t pl_crc32c(uint32_t crc, const void *p, size_t n);

typedef struct pl_blog_opts {
    const char *host;          /* the host recorded; NULL: gethostname */
    uint64_t max_bytes;        /* 0: no limit; else a new file path_001.ext, _002... past it */
    uint32_t sync_every;       /* fdatasync every n records; 0: only on close */
    uint32_t max_seconds;      /* 0: no limit; else a new file for a sample this many seconds
                                  or more after the file's first sample */
    uint32_t max_files;        /* 0: keep every file; else circular, as logman's: starting file
                                  n removes file n - max_files, so at most max_files stay */
} pl_blog_opts;

typedef struct pl_blog_writer pl_blog_writer;

/* Opens path to append (creating it with its header when it is missing or
 * empty).  An existing log must be one of this version and host with whole
 * records; a torn last record is cut off.  0; an errno with a sentence in
 * msg (EINVAL: not a log, another host's, or corrupt at an offset). */
int pl_blog_open(const char *path, const pl_blog_opts *opts, pl_blog_writer **out, char *msg, size_t size);
/* Appends sample s (a METADATA record first when it uses a set not yet
 * described in this file, or described differently).  0, or an errno with msg; the file then ends at its last whole
 * record and the writer may be used again (or closed). */
int pl_blog_write(pl_blog_writer *w, const pl_sample *s, char *msg, size_t size);
/* The file being written now (rotation changes it) and its size. */
const char *pl_blog_path(const pl_blog_writer *w);
uint64_t pl_blog_size(const pl_blog_writer *w);
/* fdatasync and close; frees w (NULL is fine).  0 or the errno of fdatasync/close. */
int pl_blog_close(pl_blog_writer *w);

typedef struct pl_blog_info {
    uint16_t version, flags;
    int64_t created;           /* FILETIME */
    char perflib[17];
    char host[PL_BLOG_HOST + 1];
} pl_blog_info;

typedef struct pl_blog_record {
    uint32_t type;             /* PL_BLOG_METADATA or PL_BLOG_DATA */
    uint64_t offset;           /* of its head in the file */
    const void *data;          /* the payload, valid until the next call */
    size_t len;
    int64_t time;              /* DATA: the block's PerfTime100nSec; METADATA: 0 */
} pl_blog_record;

typedef struct pl_blog_reader {
    pl_blog_info info;
    uint64_t nrecords, ndata;  /* whole records (and DATA ones) before the end or a torn tail */
    uint64_t end;              /* where the whole records end */
    int64_t first;             /* the first DATA record's time (FILETIME), or 0 */
    int64_t last;              /* the last one's, or 0 */
    uint64_t torn;             /* offset of a torn last record, or 0 */
    const char *torn_rule;     /* what was wrong with it, a static string */
    /* private */
    int fd;
    uint64_t pos;
    uint8_t *buf;
    size_t cap;
} pl_blog_reader;

/* Opens and checks a whole log (headers, CRCs, block layouts): 0; EINVAL
 * with *err (offset and rule) for a file that is not a log or is corrupt
 * before its last record; another errno when it cannot be read. */
int pl_blog_read_open(const char *path, pl_blog_reader *r, pl_db_error *err);
/* The next record whose time is in [from, to] (DATA; METADATA records
 * always): 1 with *rec, 0 at the end (of the whole records), or -errno
 * (-EINVAL: the file changed since it was checked). */
int pl_blog_next(pl_blog_reader *r, int64_t from, int64_t to, pl_blog_record *rec);
/* Opens path again for reading as checked (a reader pl_blog_read_open
 * filled, then closed or still open) found it, without checking it all again:
 * each record is still checked as it is read.  0, EINVAL when the file is
 * shorter than its checked records now, or an errno. */
int pl_blog_read_again(const char *path, const pl_blog_reader *checked, pl_blog_reader *r);
/* Back to the first record. */
void pl_blog_rewind(pl_blog_reader *r);
void pl_blog_read_close(pl_blog_reader *r);     /* idempotent */

#endif
