/* SQLite logs (issue 15 item 2): samples recorded in an SQLite database
 * (libsqlite3, WAL), its writer and its reader.  Part of the core: no Lua.
 *
 * The schema (version 1: PRAGMA user_version = 1, PRAGMA application_id =
 * 0x504C5351 "PLSQ").  Three tables follow PDH's SQL log (the "SQL Log File
 * Schema" of the Windows docs: DisplayToID, CounterDetails, CounterData),
 * with its table and column names, so SQL written for typeperf's logs reads
 * these; a fourth, Records, is what perflib reads back exactly.
 *
 *   DisplayToID     one row per run (each writer open, each rotated file)
 *     GUID TEXT PRIMARY KEY      the run's GUID (random, v4), no braces
 *     RunID INTEGER              1, 2, ... in the file
 *     DisplayString TEXT         "perflib <host>"
 *     LogStartTime, LogStopTime TEXT   first and last sample, 'yyyy-mm-dd
 *                                hh:mm:ss.fff' UTC (NULL before the first)
 *     NumberOfRecords INTEGER    samples of the run
 *     MinutesToUTC INTEGER       UTC minus local time in minutes at open
 *                                (Windows' Bias: 60 for UTC-1)
 *     TimeZoneName TEXT          tzname at open
 *     perflib's: Host TEXT, Perflib TEXT (the writer's PL_VERSION),
 *                Created INTEGER (FILETIME of the open), Rows INTEGER (1 when
 *                the run writes CounterDetails/CounterData rows)
 *   CounterDetails  one row per counter and instance seen
 *     CounterID INTEGER PRIMARY KEY, MachineName TEXT ("\\host"),
 *     ObjectName TEXT, CounterName TEXT, CounterType INTEGER, DefaultScale
 *     INTEGER, InstanceName TEXT (NULL for a single-instance set),
 *     InstanceIndex INTEGER (the instance id), ParentName TEXT and
 *     ParentObjectID INTEGER (always NULL: perflib has no parent instances),
 *     TimeBaseA/TimeBaseB INTEGER (the low/high 32 bits of the frequency
 *     the counter's formula counts time in), and perflib's SetGUID TEXT,
 *     CounterIndex INTEGER (the counter id), Unit TEXT (pl_unit_name)
 *   CounterData     one row per value and sample
 *     GUID TEXT, CounterID INTEGER, RecordIndex INTEGER (the sample's index
 *     in its run, from 1), CounterDateTime TEXT ('yyyy-mm-dd hh:mm:ss.fff'
 *     UTC, PDH's text), CounterValue REAL (the formatted value with the
 *     default scale and flags, NULL unless its status is valid: a value
 *     really seen, where PDH writes 0), FirstValueA/FirstValueB INTEGER (the
 *     raw value's low/high 32 bits), SecondValueA/SecondValueB INTEGER (its
 *     base or time stamp, low/high), MultiCount INTEGER;
 *     PRIMARY KEY (GUID, RecordIndex, CounterID) WITHOUT ROWID: PDH's key
 *     columns, in the order that makes a sample's rows an append (PDH's
 *     order spreads them over the whole table: twice the write time)
 *   Records         the log itself
 *     Seq INTEGER PRIMARY KEY (the order), GUID TEXT (the run),
 *     RecordIndex INTEGER (the sample's; a DEFS record has the index of the
 *     sample it comes with), Type INTEGER (PL_LOG_DEFS 1, PL_LOG_DATA 2),
 *     Time INTEGER (DATA: the sample's FILETIME; DEFS: 0), Payload BLOB
 *     (exactly what pl_logenc_encode gives: pl_logenc.h);
 *     index RecordsTime (Time)
 *
 * Where it differs from PDH: the times are UTC text as PDH's but with
 * CounterValue NULL for values not valid (PDH writes 0); InstanceIndex is
 * perflib's instance id; CounterDetails has no per-log-file table of its
 * own (PDH's is shared too); the extra columns above; the Records table.
 * The CounterDetails and CounterData rows are for SQL users: a writer
 * with rows off (opts.no_rows) leaves both empty, and the reader never
 * reads them.
 *
 * Writer: WAL, synchronous=NORMAL (FULL when sync_every > 0), a busy
 * timeout, one transaction per sample (its Records, rows and the run's
 * counts), statements prepared once.  A transaction that fails (SQLITE_FULL:
 * ENOSPC; SQLITE_BUSY after the timeout: EBUSY; others EIO) rolls back: the
 * file keeps its last whole sample and the writer may be used again.
 * Appending to a log starts a new run; a database of another host, one that
 * is not a perflib log, or one of another version is refused (EINVAL).
 * Rotation as the binary log's: past max_bytes (database and WAL), or for a
 * sample max_seconds after the file's first, path_001.ext, _002...
 *
 * Reader: opens read-only (never blocks or changes a log being written) and
 * checks application_id, user_version and that every table has the columns
 * above (a SELECT of them prepares) -- not PRAGMA quick_check, too slow for
 * big files.  It reads one snapshot (a read transaction from open to close).
 * Every payload is untrusted: DATA must pass pl_db_validate, DEFS
 * pl_defs_read; a row that does not is EINVAL naming its Seq and
 * RecordIndex. */
#ifndef PL_SLOG_H
#define PL_SLOG_H

#include "pl_logenc.h"

#include <stdint.h>

#define PL_SLOG_VERSION 1
#define PL_SLOG_APP_ID 0x504C5351       /* "PLSQ" */
#define PL_SLOG_HOST 64u

typedef struct pl_slog_opts {
    const char *host;          /* the host recorded; NULL: gethostname */
    int no_rows;               /* 1: no CounterDetails/CounterData rows (smaller files) */
    uint64_t max_bytes;        /* 0: no limit; else a new file path_001.ext, _002... past it */
    uint32_t max_seconds;      /* 0: no limit; else a new file for a sample this many seconds
                                  or more after the file's first sample */
    uint32_t sync_every;       /* > 0: synchronous=FULL (each sample durable); 0: NORMAL */
    uint32_t busy_ms;          /* the busy timeout; 0: 5000 */
    uint32_t max_files;        /* 0: keep every file; else circular: starting file n removes
                                  file n - max_files (and its -wal, -shm) */
} pl_slog_opts;

typedef struct pl_slog_writer pl_slog_writer;
struct sqlite3;

/* Opens path (creating the database and its tables when missing or empty)
 * and starts a run.  0, or an errno with a sentence in msg. */
int pl_slog_open(const char *path, const pl_slog_opts *opts, pl_slog_writer **out, char *msg, size_t size);
/* Records sample s in one transaction.  0, or an errno with msg (ENOSPC,
 * EBUSY, EIO, ENOMEM, EFBIG): nothing of s is in the file then, and the
 * writer may be used again. */
int pl_slog_write(pl_slog_writer *w, const pl_sample *s, char *msg, size_t size);
const char *pl_slog_path(const pl_slog_writer *w);     /* the file written now */
uint64_t pl_slog_size(const pl_slog_writer *w);        /* its bytes with its WAL */
const char *pl_slog_guid(const pl_slog_writer *w);     /* the run's GUID */
/* The connection, for tests (PRAGMA max_page_count simulates a full disk). */
struct sqlite3 *pl_slog_db(pl_slog_writer *w);
/* Checkpoints and closes; frees w (NULL is fine).  0 or EIO. */
int pl_slog_close(pl_slog_writer *w);

typedef struct pl_slog_info {
    int version;               /* user_version */
    int64_t created;           /* the first run's Created (FILETIME) */
    char perflib[17];          /* its Perflib */
    char host[PL_SLOG_HOST + 1];
    uint64_t runs;
} pl_slog_info;

typedef struct pl_slog_record {
    uint32_t type;             /* PL_LOG_DEFS or PL_LOG_DATA */
    int64_t seq;               /* Records.Seq */
    int64_t index;             /* Records.RecordIndex */
    const void *data;          /* the payload, valid until the next call */
    size_t len;
    int64_t time;              /* DATA: the sample's FILETIME; DEFS: 0 */
} pl_slog_record;

typedef struct pl_slog_reader {
    pl_slog_info info;
    uint64_t nrecords, ndata;
    int64_t first;             /* the first DATA record's time, or 0 */
    int64_t last_time;         /* the last one's, or 0 */
    int64_t end_seq;           /* the last Records.Seq at open: a reader never reads past it */
    char msg[256];             /* what a failed pl_slog_next found */
    /* private */
    struct sqlite3 *db;
    struct sqlite3_stmt *st;
    struct sqlite3_stmt *defs;   /* pl_slog_next_defs' walk, once it is used */
    int64_t from, to, last;  /* the range bound, the last Seq given */
    int started;             /* 1: the statement is bound; 2: a DEFS record was seen */
    int whole;               /* 1 while every call since the rewind read the whole range */
    uint64_t given, given_data;   /* records (DATA ones) given since the rewind */
} pl_slog_reader;

/* Opens and checks a log: 0; EINVAL with msg for a file that is not a
 * perflib SQLite log (or one of another version); another errno (ENOENT,
 * EIO) when it cannot be read. */
int pl_slog_read_open(const char *path, pl_slog_reader *r, char *msg, size_t size);
/* Opens path again as checked (a reader pl_slog_read_open filled, closed
 * since) found it: its schema checked again, its counts and end taken from
 * checked instead of counted again, so it reads the records checked saw and
 * none written since (a log being written grows).  As pl_slog_read_open. */
int pl_slog_read_again(const char *path, const pl_slog_reader *checked, pl_slog_reader *r, char *msg, size_t size);
/* The next record whose time is in [from, to] (DATA; the DEFS records
 * before the last DATA record in range always), in Seq order: 1 with *rec,
 * 0 at the end, or -errno (-EINVAL: a corrupt row, r->msg naming it; or,
 * at the end of a whole read, records that do not add up to the counts
 * read at open: a corrupt table or index). */
int pl_slog_next(pl_slog_reader *r, int64_t from, int64_t to, pl_slog_record *rec);
/* The next definitions (DEFS) record of the whole log, in Seq order, checked
 * as pl_slog_next checks it (it has a walk of its own): 1 with *rec, 0 after
 * the last, or -errno (r->msg names a bad row). */
int pl_slog_next_defs(pl_slog_reader *r, pl_slog_record *rec);
void pl_slog_rewind(pl_slog_reader *r);                /* back to the first record */
void pl_slog_read_close(pl_slog_reader *r);            /* idempotent */

#endif
