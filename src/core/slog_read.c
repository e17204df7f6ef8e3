/* SQLite logs (pl_slog.h has the schema): the checks every opener makes,
 * and the reader, which gives the records back after checking every
 * payload.  No Lua. */
#include "pl_slog.h"
#include "pl_le.h"
#include "pl_logutil.h"
#include "pl_slog_impl.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Each table with every column the writer and the reader use: one that
 * prepares is a perflib log's (a column missing fails the prepare). */
static const char *const SCHEMA_CHECK[] = {
    "SELECT GUID, RunID, DisplayString, LogStartTime, LogStopTime, NumberOfRecords, MinutesToUTC,"
    " TimeZoneName, Host, Perflib, Created, Rows FROM DisplayToID LIMIT 0",
    "SELECT CounterID, MachineName, ObjectName, CounterName, CounterType, DefaultScale, InstanceName,"
    " InstanceIndex, ParentName, ParentObjectID, TimeBaseA, TimeBaseB, SetGUID, CounterIndex, Unit"
    " FROM CounterDetails LIMIT 0",
    "SELECT GUID, CounterID, RecordIndex, CounterDateTime, CounterValue, FirstValueA, FirstValueB,"
    " SecondValueA, SecondValueB, MultiCount FROM CounterData LIMIT 0",
    "SELECT Seq, GUID, RecordIndex, Type, Time, Payload FROM Records LIMIT 0",
};

/* The errno an SQLite result code stands for. */
int pl_slog_errno(int rc)
{
    switch (rc & 0xFF) {
    case SQLITE_FULL: return ENOSPC;
    case SQLITE_BUSY: case SQLITE_LOCKED: return EBUSY;
    case SQLITE_NOMEM: return ENOMEM;
    case SQLITE_NOTADB: case SQLITE_CORRUPT: case SQLITE_SCHEMA: return EINVAL;
    case SQLITE_READONLY: case SQLITE_PERM: case SQLITE_AUTH: return EACCES;
    case SQLITE_TOOBIG: return EFBIG;
    default: return EIO;
    }
}

/* One integer from sql (bound with nothing): 0 with *v, or an SQLite code. */
int pl_slog_int(sqlite3 *db, const char *sql, int64_t *v)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    *v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_finalize(st);
    return rc;
}

/* Whether db holds a perflib log of this version: 0, 1 for an empty
 * database (no table, no id), or an errno with msg. */
int pl_slog_check(sqlite3 *db, const char *path, char *msg, size_t size)
{
    int64_t app, ver, ntab;
    int rc = pl_slog_int(db, "PRAGMA application_id", &app);
    if (rc == SQLITE_OK)
        rc = pl_slog_int(db, "PRAGMA user_version", &ver);
    if (rc == SQLITE_OK)
        rc = pl_slog_int(db, "SELECT count(*) FROM sqlite_master", &ntab);
    if (rc != SQLITE_OK) {
        int e = pl_slog_errno(rc);
        if (e == EINVAL)
            pl_say(msg, size, "%s: not a perflib SQLite log (%s)", path, sqlite3_errstr(rc));
        else
            pl_say(msg, size, "%s: %s", path, sqlite3_errmsg(db));
        return e;
    }
    if (app == 0 && ver == 0 && ntab == 0)
        return 1;
    if (app != PL_SLOG_APP_ID) {
        pl_say(msg, size, "%s: an SQLite database that is not a perflib log (application_id %lld)", path,
            (long long)app);
        return EINVAL;
    }
    if (ver != PL_SLOG_VERSION) {
        pl_say(msg, size, "%s: a perflib SQLite log of version %lld: this perflib knows version %d", path,
            (long long)ver, PL_SLOG_VERSION);
        return EINVAL;
    }
    for (size_t k = 0; k < sizeof SCHEMA_CHECK / sizeof *SCHEMA_CHECK; k++) {
        sqlite3_stmt *st;
        rc = sqlite3_prepare_v2(db, SCHEMA_CHECK[k], -1, &st, NULL);
        sqlite3_finalize(st);
        if (rc != SQLITE_OK) {
            pl_say(msg, size, "%s: not a perflib SQLite log of version 1 (%s)", path, sqlite3_errmsg(db));
            return rc == SQLITE_ERROR ? EINVAL : pl_slog_errno(rc);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ reading a log */

static const char READ_SQL[] =
    "SELECT Seq, RecordIndex, Type, Time, Payload FROM Records WHERE Seq > ?1 AND Seq <= ?4"
    " AND (Type <> 2 OR Time BETWEEN ?2 AND ?3) ORDER BY Seq";

/* 0 with info and counts, or an SQLite code. */
static int read_info(pl_slog_reader *r)
{
    sqlite3_stmt *st;
    int64_t v;
    int rc = sqlite3_prepare_v2(r->db, "SELECT Host, Perflib, Created FROM DisplayToID ORDER BY RunID LIMIT 1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *h = (const char *)sqlite3_column_text(st, 0), *p = (const char *)sqlite3_column_text(st, 1);
        snprintf(r->info.host, sizeof r->info.host, "%s", h ? h : "");
        snprintf(r->info.perflib, sizeof r->info.perflib, "%s", p ? p : "");
        r->info.created = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return rc;
    r->info.version = PL_SLOG_VERSION;
    if ((rc = pl_slog_int(r->db, "SELECT count(*) FROM DisplayToID", &v)) != SQLITE_OK)
        return rc;
    r->info.runs = (uint64_t)v;
    if ((rc = pl_slog_int(r->db, "SELECT count(*) FROM Records", &v)) != SQLITE_OK)
        return rc;
    r->nrecords = (uint64_t)v;
    if ((rc = pl_slog_int(r->db, "SELECT count(*) FROM Records WHERE Type = 2", &v)) != SQLITE_OK)
        return rc;
    r->ndata = (uint64_t)v;
    if (r->ndata > r->nrecords)
        return SQLITE_CORRUPT;   /* an index that disagrees with its table (count(*) reads the index) */
    if ((rc = pl_slog_int(r->db, "SELECT Time FROM Records WHERE Type = 2 ORDER BY Seq LIMIT 1", &r->first))
        != SQLITE_OK || (rc = pl_slog_int(r->db, "SELECT max(Seq) FROM Records", &r->end_seq)) != SQLITE_OK)
        return rc;
    return pl_slog_int(r->db, "SELECT Time FROM Records WHERE Type = 2 ORDER BY Seq DESC LIMIT 1", &r->last_time);
}

/* Opens and checks path; its info and counts read, or copied from checked. */
static int open_reader(const char *path, const pl_slog_reader *checked, pl_slog_reader *r, char *msg, size_t size)
{
    struct stat sb;
    memset(r, 0, sizeof *r);
    if (stat(path, &sb) != 0) {
        int e = errno;
        pl_say(msg, size, "%s: %s", path, strerror(e));
        return e;
    }
    int rc = sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL), e = 0;
    if (rc == SQLITE_OK && (rc = sqlite3_exec(r->db, "BEGIN", NULL, NULL, NULL)) == SQLITE_OK) {
        e = pl_slog_check(r->db, path, msg, size);        /* the read transaction starts here */
        if (e == 1) {
            pl_say(msg, size, "%s: not a perflib SQLite log (an empty database)", path);
            e = EINVAL;
        }
        if (!e && checked) {
            r->info = checked->info;
            r->nrecords = checked->nrecords, r->ndata = checked->ndata;
            r->first = checked->first, r->last_time = checked->last_time, r->end_seq = checked->end_seq;
        }
        if (!e && (checked || (rc = read_info(r)) == SQLITE_OK))
            rc = sqlite3_prepare_v2(r->db, READ_SQL, -1, &r->st, NULL);
        r->whole = 1;
    }
    if (!e && rc != SQLITE_OK) {
        e = pl_slog_errno(rc);
        pl_say(msg, size, "%s: %s", path, r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
        if (e == EINVAL)
            pl_say(msg, size, "%s: not a perflib SQLite log (%s)", path, sqlite3_errstr(rc));
    }
    if (e)
        pl_slog_read_close(r);
    return e;
}

int pl_slog_read_open(const char *path, pl_slog_reader *r, char *msg, size_t size)
{
    return open_reader(path, NULL, r, msg, size);
}

int pl_slog_read_again(const char *path, const pl_slog_reader *checked, pl_slog_reader *r, char *msg, size_t size)
{
    return open_reader(path, checked, r, msg, size);
}

static int bad_row(pl_slog_reader *r, sqlite3_stmt *st, const char *rule, size_t off)
{
    pl_say(r->msg, sizeof r->msg, "Records row Seq %lld (RecordIndex %lld): %s (payload offset %zu)",
        (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1), rule, off);
    return -EINVAL;
}

/* The record at the statement's row, checked. */
static int check_row(pl_slog_reader *r, sqlite3_stmt *st, pl_slog_record *rec)
{
    pl_db_error err = { 0, NULL };
    int t = sqlite3_column_type(st, 2);
    rec->seq = sqlite3_column_int64(st, 0);
    rec->index = sqlite3_column_int64(st, 1);
    rec->type = (uint32_t)sqlite3_column_int64(st, 2);
    rec->time = sqlite3_column_int64(st, 3);
    rec->data = sqlite3_column_blob(st, 4);
    rec->len = (size_t)sqlite3_column_bytes(st, 4);
    if (t != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_INTEGER
        || sqlite3_column_type(st, 4) != SQLITE_BLOB || !rec->data)
        return bad_row(r, st, "Type, Time or Payload of the wrong kind", 0);
    if (rec->type == PL_LOG_DEFS) {
        pl_defs *d = NULL;
        int e = pl_defs_read(rec->data, rec->len, &d, &err);
        pl_defs_free(d);
        if (e == EINVAL)
            return bad_row(r, st, err.rule, err.offset);
        if (e)
            return -e;
        r->started |= 2;          /* definitions seen */
        return 1;
    }
    if (rec->type != PL_LOG_DATA)
        return bad_row(r, st, "unknown record type", 0);
    if (!(r->started & 2))
        return bad_row(r, st, "data record before any definitions record", 0);
    if (pl_db_validate(rec->data, rec->len, &err) != 0)
        return bad_row(r, st, err.rule, err.offset);
    if ((int64_t)pl_r64((const uint8_t *)rec->data + 16) != rec->time)
        return bad_row(r, st, "Time is not the block's PerfTime100nSec", 16);
    return 1;
}

/* Binds the walk to [from, to], from the record after the last one given:
 * up to the last DATA record in range, found by the Time index (a whole
 * read does not use it).  0 or -errno. */
static int bind_range(pl_slog_reader *r, int64_t from, int64_t to)
{
    int64_t seq = (r->started & 1) ? r->last : 0, hi = INT64_MAX;
    if (from != INT64_MIN || to != INT64_MAX) {
        sqlite3_stmt *h;
        if (sqlite3_prepare_v2(r->db, "SELECT max(Seq) FROM Records WHERE Time BETWEEN ?1 AND ?2 AND Type = 2",
                               -1, &h, NULL) != SQLITE_OK)
            return -EIO;
        sqlite3_bind_int64(h, 1, from);
        sqlite3_bind_int64(h, 2, to);
        hi = sqlite3_step(h) == SQLITE_ROW ? sqlite3_column_int64(h, 0) : 0;
        sqlite3_finalize(h);
    }
    sqlite3_reset(r->st);
    sqlite3_bind_int64(r->st, 1, seq);
    sqlite3_bind_int64(r->st, 2, from);
    sqlite3_bind_int64(r->st, 3, to);
    sqlite3_bind_int64(r->st, 4, hi < r->end_seq ? hi : r->end_seq);   /* nothing written since open */
    r->from = from, r->to = to;
    r->whole &= from == INT64_MIN && to == INT64_MAX;
    r->started |= 1;
    return 0;
}

int pl_slog_next(pl_slog_reader *r, int64_t from, int64_t to, pl_slog_record *rec)
{
    int e;
    if (!r->st)
        return 0;
    if ((!(r->started & 1) || from != r->from || to != r->to) && (e = bind_range(r, from, to)) != 0)
        return e;
    int rc = sqlite3_step(r->st);
    if (rc == SQLITE_DONE) {
        /* a whole read gives what the counts at open said, or the file is corrupt */
        if (r->whole && (r->given != r->nrecords || r->given_data != r->ndata)) {
            pl_say(r->msg, sizeof r->msg, "the Records table holds %llu records (%llu data), its counts say "
                   "%llu (%llu): a corrupt database", (unsigned long long)r->given,
                   (unsigned long long)r->given_data, (unsigned long long)r->nrecords,
                   (unsigned long long)r->ndata);
            return -EINVAL;
        }
        return 0;
    }
    if (rc != SQLITE_ROW) {
        pl_say(r->msg, sizeof r->msg, "%s", sqlite3_errmsg(r->db));
        return -pl_slog_errno(rc);
    }
    r->last = sqlite3_column_int64(r->st, 0);
    if ((e = check_row(r, r->st, rec)) == 1) {
        r->given++;
        r->given_data += rec->type == PL_LOG_DATA;
    }
    return e;
}

int pl_slog_next_defs(pl_slog_reader *r, pl_slog_record *rec)
{
    if (!r->db)
        return 0;
    if (!r->defs) {
        if (sqlite3_prepare_v2(r->db, "SELECT Seq, RecordIndex, Type, Time, Payload FROM Records"
                               " WHERE Type = 1 AND Seq <= ?1 ORDER BY Seq", -1, &r->defs, NULL) != SQLITE_OK) {
            pl_say(r->msg, sizeof r->msg, "%s", sqlite3_errmsg(r->db));
            return -EIO;
        }
        sqlite3_bind_int64(r->defs, 1, r->end_seq);
    }
    int rc = sqlite3_step(r->defs);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW) {
        pl_say(r->msg, sizeof r->msg, "%s", sqlite3_errmsg(r->db));
        return -pl_slog_errno(rc);
    }
    int started = r->started, e = check_row(r, r->defs, rec);
    r->started = started;               /* the main walk's own state stays as it was */
    return e;
}

void pl_slog_rewind(pl_slog_reader *r)
{
    if (r->st)
        sqlite3_reset(r->st);
    r->started = 0;
    r->last = 0;
    r->given = r->given_data = 0;
    r->whole = 1;
}

void pl_slog_read_close(pl_slog_reader *r)
{
    sqlite3_finalize(r->st);
    r->st = NULL;
    sqlite3_finalize(r->defs);
    r->defs = NULL;
    if (r->db)
        sqlite3_close_v2(r->db);     /* ends the read transaction */
    r->db = NULL;
}
