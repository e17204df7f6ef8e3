/* SQLite logs (pl_slog.h has the schema): the writer records each sample in
 * one transaction (the records pl_logenc gives, and PDH-like rows for SQL
 * users); slog_read.c has the reader.  No Lua. */
#include "pl_slog.h"
#include "pl_logutil.h"
#include "pl_slog_impl.h"
#include "pl_winperf.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define GUID_LEN 36
#define TIME_TEXT 96                  /* room for any int gmtime gives (24 used) */
#define UNIX_EPOCH_100NS 116444736000000000LL

static const char SCHEMA[] =
    "CREATE TABLE DisplayToID (GUID TEXT PRIMARY KEY, RunID INTEGER NOT NULL, DisplayString TEXT,"
    " LogStartTime TEXT, LogStopTime TEXT, NumberOfRecords INTEGER NOT NULL, MinutesToUTC INTEGER,"
    " TimeZoneName TEXT, Host TEXT NOT NULL, Perflib TEXT NOT NULL, Created INTEGER NOT NULL,"
    " Rows INTEGER NOT NULL);"
    "CREATE TABLE CounterDetails (CounterID INTEGER PRIMARY KEY, MachineName TEXT NOT NULL,"
    " ObjectName TEXT NOT NULL, CounterName TEXT NOT NULL, CounterType INTEGER NOT NULL,"
    " DefaultScale INTEGER NOT NULL, InstanceName TEXT, InstanceIndex INTEGER, ParentName TEXT,"
    " ParentObjectID INTEGER, TimeBaseA INTEGER, TimeBaseB INTEGER, SetGUID TEXT NOT NULL,"
    " CounterIndex INTEGER NOT NULL, Unit TEXT);"
    "CREATE TABLE CounterData (GUID TEXT NOT NULL, CounterID INTEGER NOT NULL, RecordIndex INTEGER NOT NULL,"
    " CounterDateTime TEXT NOT NULL, CounterValue REAL, FirstValueA INTEGER, FirstValueB INTEGER,"
    " SecondValueA INTEGER, SecondValueB INTEGER, MultiCount INTEGER,"
    " PRIMARY KEY (GUID, RecordIndex, CounterID)) WITHOUT ROWID;"
    "CREATE TABLE Records (Seq INTEGER PRIMARY KEY, GUID TEXT NOT NULL, RecordIndex INTEGER NOT NULL,"
    " Type INTEGER NOT NULL, Time INTEGER NOT NULL, Payload BLOB NOT NULL);"
    "CREATE INDEX RecordsTime ON Records (Time);"
    "PRAGMA application_id = 1347179345;"        /* PL_SLOG_APP_ID, 0x504C5351 */
    "PRAGMA user_version = 1;";

/* FILETIME t as PDH's CounterDateTime, 'yyyy-mm-dd hh:mm:ss.fff' UTC. */
static void time_text(int64_t t, char out[TIME_TEXT])
{
    int64_t ms = t / 10000 - UNIX_EPOCH_100NS / 10000;   /* ms since 1970; t is never near INT64_MIN */
    time_t sec = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    struct tm tm;
    if (t < 0 || !gmtime_r(&sec, &tm) || tm.tm_year + 1900 > 9999) {
        snprintf(out, TIME_TEXT, "0000-00-00 00:00:00.000");
        return;
    }
    snprintf(out, TIME_TEXT, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms - (int64_t)sec * 1000));
}

/* ------------------------------------------------------------ writing a log */

/* A CounterDetails row: a counter of an instance, and its last raw value. */
typedef struct row {
    pl_guid set;
    uint32_t counter, inst_id, type;
    char *inst;                   /* "" for a single-instance set */
    uint64_t hash;
    int64_t id;                   /* CounterID */
    pl_raw prev, next;            /* the value of sample prev_rec; the one this sample writes */
    int64_t prev_freq, next_freq;
    int64_t prev_rec;             /* the RecordIndex of prev, 0: none */
} row;

enum { S_BEGIN, S_COMMIT, S_ROLLBACK, S_REC, S_DATA, S_DETAIL, S_RUN, S_PAGES, NSTMT };
static const char *const STMT_SQL[NSTMT] = {
    "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK",
    "INSERT INTO Records (GUID, RecordIndex, Type, Time, Payload) VALUES (?1, ?2, ?3, ?4, ?5)",
    "INSERT INTO CounterData (GUID, CounterID, RecordIndex, CounterDateTime, CounterValue, FirstValueA,"
    " FirstValueB, SecondValueA, SecondValueB, MultiCount) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    "INSERT INTO CounterDetails (MachineName, ObjectName, CounterName, CounterType, DefaultScale,"
    " InstanceName, InstanceIndex, TimeBaseA, TimeBaseB, SetGUID, CounterIndex, Unit)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    "UPDATE DisplayToID SET LogStartTime = coalesce(LogStartTime, ?1), LogStopTime = ?1,"
    " NumberOfRecords = ?2 WHERE GUID = ?3",
    "PRAGMA page_count",
};

struct pl_slog_writer {
    sqlite3 *db;
    sqlite3_stmt *st[NSTMT];
    pl_logenc *enc;
    pl_slog_opts opts;
    char host[PL_SLOG_HOST + 1];
    char machine[PL_SLOG_HOST + 3];   /* "\\host" */
    char guid[GUID_LEN + 1];
    char *base, *path;
    uint32_t rotation;
    int64_t nrec;                 /* samples of this run: the last RecordIndex */
    int64_t nfile, first;         /* samples of this file, and its first one's time */
    int64_t page_size;
    row *rows;
    size_t nrows, caprows, committed;  /* rows past committed were made by the open transaction */
    uint32_t *slots;              /* hash table of row index + 1 (0: empty) */
    size_t nslots;
    uint32_t *touched;            /* rows this sample gives a next value */
    size_t ntouched, captouched;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n--)
        h = (h ^ *b++) * 0x100000001B3ull;
    return h;
}

static uint64_t row_hash(const pl_guid *set, uint32_t counter, uint32_t inst_id, uint32_t type, const char *inst)
{
    uint32_t k[3] = { counter, inst_id, type };
    uint64_t h = fnv(0xCBF29CE484222325ull, set, sizeof *set);
    return fnv(fnv(h, k, sizeof k), inst, strlen(inst));
}

/* Puts row index i in the table (which has room). */
static void slot_put(pl_slog_writer *w, uint32_t i)
{
    size_t m = w->nslots - 1, k = (size_t)w->rows[i].hash & m;
    while (w->slots[k])
        k = (k + 1) & m;
    w->slots[k] = i + 1;
}

/* The table rebuilt for the first n rows, at least twice their number of slots. */
static int rehash(pl_slog_writer *w, size_t n)
{
    size_t want = 64;
    while (want < 2 * (n + 1))
        want *= 2;
    if (want != w->nslots) {
        uint32_t *s = realloc(w->slots, want * sizeof *s);
        if (!s)
            return ENOMEM;
        w->slots = s, w->nslots = want;
    }
    memset(w->slots, 0, w->nslots * sizeof *w->slots);
    for (size_t i = 0; i < n; i++)
        slot_put(w, (uint32_t)i);
    return 0;
}

static row *row_find(const pl_slog_writer *w, const pl_guid *set, uint32_t counter, uint32_t inst_id,
                     uint32_t type, const char *inst, uint64_t h)
{
    if (!w->nslots)
        return NULL;
    size_t m = w->nslots - 1;
    for (size_t k = (size_t)h & m; w->slots[k]; k = (k + 1) & m) {
        row *r = &w->rows[w->slots[k] - 1];
        if (r->hash == h && r->counter == counter && r->inst_id == inst_id && r->type == type
            && pl_guid_equal(&r->set, set) && strcmp(r->inst, inst) == 0)
            return r;
    }
    return NULL;
}

/* A new row in memory (its id set by the caller): NULL for ENOMEM. */
static row *row_add(pl_slog_writer *w, const pl_guid *set, uint32_t counter, uint32_t inst_id, uint32_t type,
                    const char *inst, uint64_t h)
{
    char *name = strdup(inst);
    if (!name || pl_grow((void **)&w->rows, &w->caprows, w->nrows + 1, sizeof *w->rows)
        || (2 * (w->nrows + 1) >= w->nslots && rehash(w, w->nrows))) {
        free(name);
        return NULL;
    }
    row *r = &w->rows[w->nrows];
    memset(r, 0, sizeof *r);
    r->set = *set, r->counter = counter, r->inst_id = inst_id, r->type = type;
    r->inst = name, r->hash = h;
    slot_put(w, (uint32_t)w->nrows++);
    return r;
}

/* Forgets the rows past n (a rolled-back transaction made them). */
static void rows_truncate(pl_slog_writer *w, size_t n)
{
    if (w->nrows == n)
        return;
    for (size_t i = n; i < w->nrows; i++)
        free(w->rows[i].inst);
    w->nrows = n;
    if (rehash(w, n))             /* smaller than before: the table has room; zeroed at worst */
        memset(w->slots, 0, w->nslots * sizeof *w->slots);
}

/* The CounterDetails rows of this host already in the file. */
static int rows_load(pl_slog_writer *w)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(w->db, "SELECT CounterID, SetGUID, CounterIndex, InstanceIndex,"
                                " coalesce(InstanceName, ''), CounterType FROM CounterDetails"
                                " WHERE MachineName = ?1", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_text(st, 1, w->machine, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        pl_guid g;
        const char *gs = (const char *)sqlite3_column_text(st, 1), *inst = (const char *)sqlite3_column_text(st, 4);
        if (!gs || !inst || pl_guid_parse(gs, &g) != 0)
            continue;             /* not one of ours: never matched, a new row is made */
        uint32_t c = (uint32_t)sqlite3_column_int64(st, 2), id = (uint32_t)sqlite3_column_int64(st, 3);
        uint32_t type = (uint32_t)sqlite3_column_int64(st, 5);
        uint64_t h = row_hash(&g, c, id, type, inst);
        row *r = row_find(w, &g, c, id, type, inst, h);
        if (!r && !(r = row_add(w, &g, c, id, type, inst, h))) {
            rc = SQLITE_NOMEM;
            break;
        }
        r->id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    w->committed = w->nrows;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Inserts the CounterDetails row of counter d of instance inst of set cs. */
static int detail_insert(pl_slog_writer *w, const pl_counterset_def *cs, const pl_counter_def *d,
                         const char *inst, uint32_t inst_id, int64_t freq, int64_t *id)
{
    sqlite3_stmt *st = w->st[S_DETAIL];
    char g[GUID_LEN + 1];
    pl_units u;
    pl_guid_format(&cs->guid, g);
    pl_counter_units(d, &u);
    sqlite3_bind_text(st, 1, w->machine, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, cs->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, d->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, d->type);
    sqlite3_bind_int64(st, 5, d->scale);
    if (cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE) {
        sqlite3_bind_null(st, 6);
        sqlite3_bind_null(st, 7);
    } else {
        sqlite3_bind_text(st, 6, inst, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 7, inst_id);
    }
    sqlite3_bind_int64(st, 8, (int64_t)((uint64_t)freq & 0xFFFFFFFFu));
    sqlite3_bind_int64(st, 9, (int64_t)((uint64_t)freq >> 32));
    sqlite3_bind_text(st, 10, g, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 11, d->id);
    sqlite3_bind_text(st, 12, pl_unit_name(u.fkind), -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    *id = sqlite3_last_insert_rowid(w->db);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The CounterData row of value i, c of block b (none for a value s does not
 * hold), its CounterValue against the row's value of the sample before. */
static int data_insert(pl_slog_writer *w, const pl_sample *s, const pl_block *b, uint32_t i, uint32_t c,
                       const char *when)
{
    const pl_counter_def *d = pl_sample_counter(s, b, c);
    pl_raw raw;
    int64_t freq;
    if (pl_counter_hidden(d) || pl_sample_raw(s, b, i, c, &raw, &freq) != PL_VALID)
        return SQLITE_OK;
    const char *inst = b->cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE ? "" : pl_sample_inst_name(s, b, i);
    uint32_t iid = pl_sample_inst_id(s, b, i);
    uint64_t h = row_hash(&b->cs->guid, d->id, iid, d->type, inst);
    row *r = row_find(w, &b->cs->guid, d->id, iid, d->type, inst, h);
    int rc;
    if (!r) {
        int64_t id;
        if ((rc = detail_insert(w, b->cs, d, inst, iid, freq, &id)) != SQLITE_OK)
            return rc;
        if (!(r = row_add(w, &b->cs->guid, d->id, iid, d->type, inst, h)))
            return SQLITE_NOMEM;
        r->id = id;
    }
    if (pl_grow((void **)&w->touched, &w->captouched, w->ntouched + 1, sizeof *w->touched))
        return SQLITE_NOMEM;
    w->touched[w->ntouched++] = (uint32_t)(r - w->rows);
    r->next = raw, r->next_freq = freq;
    const pl_raw *older = r->prev_rec && r->prev_rec == w->nrec && r->prev_freq == freq ? &r->prev : NULL;
    double v;
    sqlite3_stmt *st = w->st[S_DATA];
    sqlite3_bind_int64(st, 2, r->id);
    sqlite3_bind_text(st, 4, when, -1, SQLITE_STATIC);
    if (pl_format_raw(d->type, &raw, older, freq, 0, d->scale, &v) == PL_VALID)
        sqlite3_bind_double(st, 5, v);
    else
        sqlite3_bind_null(st, 5);
    sqlite3_bind_int64(st, 6, (int64_t)(raw.first & 0xFFFFFFFFu));
    sqlite3_bind_int64(st, 7, (int64_t)(raw.first >> 32));
    sqlite3_bind_int64(st, 8, (int64_t)(raw.second & 0xFFFFFFFFu));
    sqlite3_bind_int64(st, 9, (int64_t)(raw.second >> 32));
    sqlite3_bind_int64(st, 10, raw.multi);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Every CounterData row of s (RecordIndex w->nrec + 1). */
static int rows_insert(pl_slog_writer *w, const pl_sample *s)
{
    char when[TIME_TEXT];
    time_text(s->time100ns, when);
    sqlite3_bind_text(w->st[S_DATA], 1, w->guid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(w->st[S_DATA], 3, w->nrec + 1);
    for (uint32_t k = 0; k < s->nblocks; k++) {
        const pl_block *b = &s->blocks[k];
        if (b->shape == PERF_ERROR_RETURN || !b->cs)
            continue;
        for (uint32_t i = 0; i < b->ninst; i++)
            for (uint32_t c = 0; c < b->ncounters; c++) {
                int rc = data_insert(w, s, b, i, c, when);
                if (rc != SQLITE_OK)
                    return rc;
            }
    }
    return SQLITE_OK;
}

static int step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* The records and rows of s, and the run's counts, in the open transaction. */
static int put_sample(pl_slog_writer *w, const pl_sample *s, const pl_log_rec *recs, int n)
{
    sqlite3_stmt *st = w->st[S_REC];
    int rc = SQLITE_OK;
    char when[TIME_TEXT];
    for (int k = 0; k < n && rc == SQLITE_OK; k++) {
        sqlite3_bind_text(st, 1, w->guid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, w->nrec + 1);
        sqlite3_bind_int64(st, 3, recs[k].type);
        sqlite3_bind_int64(st, 4, recs[k].type == PL_LOG_DATA ? s->time100ns : 0);
        sqlite3_bind_blob64(st, 5, recs[k].data, recs[k].len, SQLITE_STATIC);
        rc = step_reset(st);
    }
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_OK && !w->opts.no_rows)
        rc = rows_insert(w, s);
    if (rc != SQLITE_OK)
        return rc;
    st = w->st[S_RUN];
    time_text(s->time100ns, when);
    sqlite3_bind_text(st, 1, when, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, w->nrec + 1);
    sqlite3_bind_text(st, 3, w->guid, -1, SQLITE_STATIC);
    return step_reset(st);
}

/* The sample's transaction made it: the rows' values move on. */
static void sample_done(pl_slog_writer *w, const pl_sample *s)
{
    for (size_t k = 0; k < w->ntouched; k++) {
        row *r = &w->rows[w->touched[k]];
        r->prev = r->next, r->prev_freq = r->next_freq, r->prev_rec = w->nrec + 1;
    }
    w->committed = w->nrows;
    w->nrec++;
    if (w->nfile++ == 0)
        w->first = s->time100ns;
    pl_logenc_commit(w->enc);
}

static uint64_t db_size(pl_slog_writer *w)
{
    int64_t pages = 0;
    if (w->db && sqlite3_step(w->st[S_PAGES]) == SQLITE_ROW)
        pages = sqlite3_column_int64(w->st[S_PAGES], 0);
    sqlite3_reset(w->st[S_PAGES]);
    return (uint64_t)(pages * w->page_size);
}

/* Checkpoints (a reader may keep it from finishing: not an error) and closes. */
static int close_db(pl_slog_writer *w)
{
    int rc = SQLITE_OK;
    for (int k = 0; k < NSTMT; k++) {
        sqlite3_finalize(w->st[k]);
        w->st[k] = NULL;
    }
    if (w->db) {
        sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
        rc = sqlite3_close_v2(w->db);
    }
    w->db = NULL;
    rows_truncate(w, 0);
    return rc;
}

/* A new run: its GUID and DisplayToID row. */
static int begin_run(pl_slog_writer *w)
{
    pl_guid g;
    if (getrandom(&g, sizeof g, 0) != (ssize_t)sizeof g)
        return SQLITE_IOERR;
    g.d3 = (uint16_t)((g.d3 & 0x0FFFu) | 0x4000u);         /* version 4, RFC 9562 variant */
    g.d4[0] = (uint8_t)((g.d4[0] & 0x3Fu) | 0x80u);
    pl_guid_format(&g, w->guid);
    time_t now = time(NULL);
    struct tm lt;
    int64_t created;
    pl_now(NULL, NULL, &created);
    localtime_r(&now, &lt);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(w->db, "INSERT INTO DisplayToID (GUID, RunID, DisplayString, NumberOfRecords,"
                                " MinutesToUTC, TimeZoneName, Host, Perflib, Created, Rows) VALUES (?1,"
                                " (SELECT coalesce(max(RunID), 0) + 1 FROM DisplayToID), ?2, 0, ?3, ?4, ?5, ?6,"
                                " ?7, ?8)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    char display[PL_SLOG_HOST + 16];
    snprintf(display, sizeof display, "perflib %s", w->host);
    sqlite3_bind_text(st, 1, w->guid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, display, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, -(int64_t)lt.tm_gmtoff / 60);
    sqlite3_bind_text(st, 4, lt.tm_zone ? lt.tm_zone : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, w->host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, PL_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, created);
    sqlite3_bind_int(st, 8, !w->opts.no_rows);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    w->nrec = 0;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The tables of a new database, once (in a transaction, checked again in it). */
static int create_schema(pl_slog_writer *w)
{
    int64_t ntab = 0;
    int rc = sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK && (rc = pl_slog_int(w->db, "SELECT count(*) FROM sqlite_master", &ntab)) == SQLITE_OK
        && ntab == 0)
        rc = sqlite3_exec(w->db, SCHEMA, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        return sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
    sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* The file's samples and its first one's time (for rotation). */
static int file_counts(pl_slog_writer *w)
{
    int rc = pl_slog_int(w->db, "SELECT count(*) FROM Records WHERE Type = 2", &w->nfile);
    if (rc == SQLITE_OK)
        rc = pl_slog_int(w->db, "SELECT Time FROM Records WHERE Type = 2 ORDER BY Seq LIMIT 1", &w->first);
    if (rc == SQLITE_OK)
        rc = pl_slog_int(w->db, "PRAGMA page_size", &w->page_size);
    return rc;
}

/* Settings, the schema (made or checked), the host, statements, rows, a run. */
static int setup(pl_slog_writer *w, char *msg, size_t size)
{
    char sql[96];
    int64_t other = 0;
    sqlite3_busy_timeout(w->db, w->opts.busy_ms ? (int)w->opts.busy_ms : 5000);
    int e = pl_slog_check(w->db, w->path, msg, size), rc = SQLITE_OK;
    if (e == 1)
        rc = create_schema(w);
    else if (e)
        return e;
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK && (e = pl_slog_check(w->db, w->path, msg, size)) != 0)
        return e == 1 ? EINVAL : e;
    if (rc == SQLITE_OK && (rc = sqlite3_prepare_v2(w->db, "SELECT count(*) FROM DisplayToID WHERE Host <> ?1",
                                                    -1, &st, NULL)) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, w->host, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(w->db);
        other = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (rc == SQLITE_OK && other) {
        pl_say(msg, size, "%s: a log of another host than '%s': not appended to", w->path, w->host);
        return EINVAL;
    }
    snprintf(sql, sizeof sql, "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s",
             w->opts.sync_every ? "FULL" : "NORMAL");
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);
    for (int k = 0; k < NSTMT && rc == SQLITE_OK; k++)
        rc = sqlite3_prepare_v3(w->db, STMT_SQL[k], -1, SQLITE_PREPARE_PERSISTENT, &w->st[k], NULL);
    if (rc == SQLITE_OK && !w->opts.no_rows)
        rc = rows_load(w);
    if (rc == SQLITE_OK)
        rc = file_counts(w);
    if (rc == SQLITE_OK)
        rc = begin_run(w);
    if (rc != SQLITE_OK) {
        pl_say(msg, size, "%s: %s", w->path, sqlite3_errmsg(w->db));
        return pl_slog_errno(rc);
    }
    return 0;
}

/* Opens w->path (closing the file before), a new run in it. */
static int open_file(pl_slog_writer *w, char *msg, size_t size)
{
    close_db(w);
    pl_logenc_reset(w->enc);
    w->nfile = w->first = 0;
    int rc = sqlite3_open_v2(w->path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    int e = rc == SQLITE_OK ? setup(w, msg, size) : 0;
    if (rc != SQLITE_OK) {
        int sys = w->db ? sqlite3_system_errno(w->db) : 0;
        e = sys ? sys : pl_slog_errno(rc);
        pl_say(msg, size, "%s: %s", w->path, sys ? strerror(sys) : sqlite3_errstr(rc));
    }
    if (e)
        close_db(w);              /* never write into a file that was refused */
    return e;
}

int pl_slog_open(const char *path, const pl_slog_opts *opts, pl_slog_writer **out, char *msg, size_t size)
{
    *out = NULL;
    pl_slog_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->base = strdup(path)) || !(w->enc = pl_logenc_new()) || pl_set_rotated_path(&w->path, w->base, 0)) {
        pl_slog_close(w);
        pl_say(msg, size, "%s: %s", path, strerror(ENOMEM));
        return ENOMEM;
    }
    if (opts)
        w->opts = *opts;
    pl_log_host(w->host, sizeof w->host, w->opts.host);
    w->opts.host = NULL;
    snprintf(w->machine, sizeof w->machine, "\\\\%s", w->host);
    int e = open_file(w, msg, size);
    if (e) {
        pl_slog_close(w);
        return e;
    }
    *out = w;
    return 0;
}

static int rotate(pl_slog_writer *w, size_t add, int64_t t, char *msg, size_t size)
{
    /* the database's size is a query: asked only when a size limit needs it */
    while (pl_log_full(w->nfile, w->opts.max_bytes && w->nfile ? db_size(w) : 0, add, w->first, t,
                       w->opts.max_bytes, w->opts.max_seconds)) {
        int e = pl_set_rotated_path(&w->path, w->base, ++w->rotation);
        if (e) {
            pl_say(msg, size, "%s: %s", w->base, strerror(e));
            return e;
        }
        if ((e = open_file(w, msg, size)) != 0)
            return e;
        static const char *const companions[] = { "-wal", "-shm", NULL };
        if ((e = pl_drop_oldest(w->base, w->rotation, w->opts.max_files, companions, msg, size)) != 0)
            return e;
    }
    return 0;
}

int pl_slog_write(pl_slog_writer *w, const pl_sample *s, char *msg, size_t size)
{
    pl_log_rec recs[2];
    int n = 0, e;
    if (!w->db) {
        pl_say(msg, size, "%s: the log could not be reopened", w->path);
        return EBADF;
    }
    if ((e = pl_logenc_encode(w->enc, s, recs, &n)) != 0) {
        pl_say(msg, size, "%s: %s", w->path, strerror(e));
        return e;
    }
    size_t add = 0;
    for (int k = 0; k < n; k++)
        add += recs[k].len;
    if ((e = rotate(w, add, s->time100ns, msg, size)) != 0)
        return e;
    if (w->nfile == 0 && n == 1 && (e = pl_logenc_encode(w->enc, s, recs, &n)) != 0) {
        pl_say(msg, size, "%s: %s", w->path, strerror(e));          /* a new file describes its sets again */
        return e;
    }
    w->ntouched = 0;
    int rc = step_reset(w->st[S_BEGIN]);
    if (rc == SQLITE_OK && (rc = put_sample(w, s, recs, n)) == SQLITE_OK
        && (rc = step_reset(w->st[S_COMMIT])) == SQLITE_OK) {
        sample_done(w, s);
        return 0;
    }
    int sys = sqlite3_system_errno(w->db);   /* an I/O error's own errno: EFBIG, EDQUOT, ENOSPC */
    e = (rc & 0xFF) == SQLITE_IOERR && sys ? sys : pl_slog_errno(rc);
    pl_say(msg, size, "%s: %s%s%s (nothing of this sample was written)", w->path, sqlite3_errmsg(w->db),
           e == sys ? ": " : "", e == sys ? strerror(sys) : "");
    if (!sqlite3_get_autocommit(w->db))
        step_reset(w->st[S_ROLLBACK]);
    rows_truncate(w, w->committed);
    return e;
}

const char *pl_slog_path(const pl_slog_writer *w)
{
    return w->path;
}

uint64_t pl_slog_size(const pl_slog_writer *w)
{
    return db_size((pl_slog_writer *)(uintptr_t)w);
}

const char *pl_slog_guid(const pl_slog_writer *w)
{
    return w->guid;
}

struct sqlite3 *pl_slog_db(pl_slog_writer *w)
{
    return w->db;
}

int pl_slog_close(pl_slog_writer *w)
{
    if (!w)
        return 0;
    int e = w->db && close_db(w) != SQLITE_OK ? EIO : 0;
    pl_logenc_free(w->enc);
    free(w->rows);
    free(w->slots);
    free(w->touched);
    free(w->base);
    free(w->path);
    free(w);
    return e;
}
