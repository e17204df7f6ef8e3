/* SQLite logs (issue 15 item 2): the PDH-like rows read back with sqlite3
 * (a rate's CounterValue computed here from its two raw values and times,
 * the raw values' 32-bit halves, PDH's CounterDateTime text), the Records
 * read back into samples equal to the written ones, time-range reads,
 * appending (a new run), rotation by size and by time, a database locked by
 * another connection (EBUSY, then success), a full "disk" (PRAGMA
 * max_page_count makes SQLite give SQLITE_FULL: no root mount needed),
 * rows off, and corrupt or foreign files (random bytes, a truncated
 * database, a foreign database, another version, another host, a Records
 * row with a bad payload).  The core alone: no Lua. */
#include "ctest.h"
#include "ct_tmp.h"
#include "perflib.h"
#include "pl_slog.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const FIX = "spec/fixtures/basic";

static void rm_db(const char *p)
{
    char x[160];
    unlink(p);
    snprintf(x, sizeof x, "%s-wal", p);
    unlink(x);
    snprintf(x, sizeof x, "%s-shm", p);
    unlink(x);
}

/* One integer from sql on the database at path (-1 when it fails). */
static long long q_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static int exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

static pl_query *query(pl_env *env, const char *path)
{
    pl_query *q = pl_query_new(env);
    pl_add_status st = PL_ADD_OK;
    uint32_t ix = 0;
    CHECK(pl_query_add_path(q, path, &st, &ix) == 0 && st == 0);
    return q;
}

/* n samples of q at times t0 + k * step seconds. */
static int write_n(pl_slog_writer *w, pl_query *q, int n, int64_t t0, int step, pl_sample **keep)
{
    char msg[256];
    int e = 0;
    for (int k = 0; k < n && !e; k++) {
        pl_sample *s = NULL;
        CHECK(pl_query_collect(q, &s) == 0);
        s->time100ns = t0 + (int64_t)k * step * 10000000;
        e = pl_slog_write(w, s, msg, sizeof msg);
        if (keep)
            keep[k] = s;
        else
            free(s);
    }
    return e;
}

/* 2024-01-02 03:04:05.678 UTC as FILETIME: 1704067200 is 2024-01-01 00:00:00 UTC,
 * one day and 3 h 4 min 5 s later is 1704164645. */
static const int64_t T_2024 = (1704164645LL * 1000 + 678) * 10000 + 116444736000000000LL;

/* pl_sample_raw: what the rows hold, the value and its time stamp (a BULK
 * count's second value is the result's time in ticks of the sample's
 * frequency); a value the sample lacks is its status. */
static void check_raw(pl_sample *s, uint64_t v, uint64_t t)
{
    pl_raw raw;
    int64_t rf = 0;
    pl_block *b = &s->blocks[0];
    CHECK(pl_sample_raw(s, b, 0, 0, &raw, &rf) == PL_VALID);
    CHECK_EQ_U64(raw.first, v);
    CHECK_EQ_U64(raw.second, t);
    CHECK(rf == s->perf_freq);
    CHECK(pl_sample_raw(s, b, 1, 0, &raw, &rf) == PL_NO_INSTANCE);
    s->have[b->vals_off] = 0;
    CHECK(pl_sample_raw(s, b, 0, 0, &raw, &rf) == PL_NO_DATA);
    s->have[b->vals_off] = 1;
}

/* Context Switches/sec (PERF_COUNTER_BULK_COUNT, single instance): its rows. */
static void t_rows_by_hand(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\System\\Context Switches/sec");
    const char *p = tmp("rows.db");
    rm_db(p);
    pl_slog_writer *w = NULL;
    char msg[256];
    pl_slog_opts o = { "hostA", 0, 0, 0, 0, 0, 0 };
    CHECK(pl_slog_open(p, &o, &w, msg, sizeof msg) == 0);
    pl_sample *s[2] = { NULL, NULL };
    const uint64_t v0 = 0x100000005ull, v1 = v0 + 500;       /* 4294967301 and 4294967801 */
    int64_t f = 0, t0 = 0x200000000LL + 1000;
    for (int k = 0; k < 2; k++) {
        CHECK(pl_query_collect(q, &s[k]) == 0);
        pl_block *b = &s[k]->blocks[0];
        f = s[k]->perf_freq;
        b->time = t0 + k * 2 * f;                                   /* 2 seconds apart */
        s[k]->vals[b->vals_off].v = k ? v1 : v0;
        s[k]->time100ns = T_2024 + k * 20000000LL;
        CHECK(pl_slog_write(w, s[k], msg, sizeof msg) == 0);
    }
    check_raw(s[1], v1, (uint64_t)(t0 + 2 * f));
    char guid[40];
    snprintf(guid, sizeof guid, "%s", pl_slog_guid(w));
    CHECK(pl_slog_close(w) == 0);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, "SELECT d.GUID, d.RecordIndex, d.CounterDateTime, d.CounterValue, d.FirstValueA,"
                             " d.FirstValueB, d.SecondValueA, d.SecondValueB, c.MachineName, c.ObjectName,"
                             " c.CounterName, c.CounterType, c.InstanceName, c.TimeBaseA, c.TimeBaseB, c.Unit"
                             " FROM CounterData d JOIN CounterDetails c USING (CounterID) ORDER BY RecordIndex",
                             -1, &st, NULL) == SQLITE_OK);
    for (int k = 0; k < 2; k++) {
        CHECK(sqlite3_step(st) == SQLITE_ROW);
        uint64_t v = k ? v1 : v0, t = (uint64_t)(t0 + k * 2 * f);
        CHECK_STR((const char *)sqlite3_column_text(st, 0), guid);
        CHECK_EQ_U64(sqlite3_column_int64(st, 1), k + 1);
        CHECK_STR((const char *)sqlite3_column_text(st, 2), k ? "2024-01-02 03:04:07.678" : "2024-01-02 03:04:05.678");
        if (k == 0)
            CHECK(sqlite3_column_type(st, 3) == SQLITE_NULL);  /* a rate's first sample: not valid */
        else                                                    /* 500 switches in 2 s */
            CHECK_NEAR(sqlite3_column_double(st, 3), 250.0, 1e-9);
        CHECK_EQ_U64(sqlite3_column_int64(st, 4), k ? 505 : 5); /* low 32 bits of 0x1_0000_0005 (+500) */
        CHECK_EQ_U64(sqlite3_column_int64(st, 5), 1);
        CHECK_EQ_U64(sqlite3_column_int64(st, 6), t & 0xFFFFFFFFu);
        CHECK_EQ_U64(sqlite3_column_int64(st, 7), t >> 32);      /* 2 + (f * 2k >> 32) */
        CHECK_STR((const char *)sqlite3_column_text(st, 8), "\\\\hostA");
        CHECK_STR((const char *)sqlite3_column_text(st, 9), "System");
        CHECK_STR((const char *)sqlite3_column_text(st, 10), "Context Switches/sec");
        CHECK_EQ_U64(sqlite3_column_int64(st, 11), PERF_COUNTER_BULK_COUNT);
        CHECK(sqlite3_column_type(st, 12) == SQLITE_NULL);      /* single instance */
        CHECK_EQ_U64((uint64_t)sqlite3_column_int64(st, 13) | (uint64_t)sqlite3_column_int64(st, 14) << 32,
                     (uint64_t)f);
        CHECK_STR((const char *)sqlite3_column_text(st, 15), "count");
        (void)v;
    }
    CHECK(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
    CHECK_EQ_U64(q_int(p, "SELECT NumberOfRecords FROM DisplayToID"), 2);
    CHECK_EQ_U64(q_int(p, "SELECT LogStopTime = '2024-01-02 03:04:07.678' AND LogStartTime ="
                       " '2024-01-02 03:04:05.678' FROM DisplayToID"), 1);
    CHECK_EQ_U64(q_int(p, "PRAGMA user_version"), 1);
    CHECK_EQ_U64(q_int(p, "PRAGMA application_id"), 0x504C5351);
    CHECK(exec(p, "SELECT 1") == SQLITE_OK);
    free(s[0]);
    free(s[1]);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Every CPU's % Processor Time: the Records give back the written blocks and
 * samples; ranges; appending is a second run. */
static void t_records_round_trip(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
    const char *p = tmp("rt.db");
    rm_db(p);
    pl_slog_writer *w = NULL;
    char msg[256];
    pl_sample *s[5];
    CHECK(pl_slog_open(p, NULL, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 5, T_2024, 10, s) == 0);
    CHECK(pl_slog_close(w) == 0);
    pl_slog_reader r;
    pl_slog_record rec;
    pl_db_error err = { 0, NULL };
    CHECK(pl_slog_read_open(p, &r, msg, sizeof msg) == 0);
    char host[65] = "";
    gethostname(host, 64);
    CHECK_STR(r.info.host, host);
    CHECK_STR(r.info.perflib, PL_VERSION);
    CHECK_EQ_U64(r.nrecords, 6);
    CHECK_EQ_U64(r.ndata, 5);
    CHECK(r.first == T_2024);
    CHECK(pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1 && rec.type == PL_LOG_DEFS && rec.index == 1);
    for (int k = 0; k < 5; k++) {
        CHECK(pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1 && rec.type == PL_LOG_DATA);
        CHECK(rec.time == T_2024 + k * 100000000LL && rec.index == k + 1);
        size_t n = pl_db_size(s[k], 1);
        uint8_t *blk = malloc(n);
        pl_db_write(s[k], 1, blk, n);
        CHECK(rec.len == n && !memcmp(rec.data, blk, n));
        free(blk);
        pl_sample *x = NULL;
        CHECK(pl_db_read(env, rec.data, rec.len, NULL, NULL, &x, &err) == 0);
        const pl_block *ob = &s[k]->blocks[0], *xb = x ? &x->blocks[0] : ob;
        CHECK(x && x->time100ns == s[k]->time100ns && xb->ninst == ob->ninst && xb->time == ob->time);
        for (size_t v = 0; x && v < (size_t)ob->ninst * ob->ncounters; v++) {
            CHECK_EQ_U64(x->vals[xb->vals_off + v].v, s[k]->vals[ob->vals_off + v].v);
            CHECK_EQ_U64(x->have[xb->vals_off + v], s[k]->have[ob->vals_off + v]);
        }
        free(x);
    }
    CHECK(pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec) == 0);
    /* [t0 + 10 s, t0 + 30 s]: samples 2, 3, 4 and the definitions */
    pl_slog_rewind(&r);
    int data = 0, defs = 0;
    while (pl_slog_next(&r, T_2024 + 100000000LL, T_2024 + 300000000LL, &rec) == 1) {
        defs += rec.type == PL_LOG_DEFS;
        data += rec.type == PL_LOG_DATA && rec.index >= 2 && rec.index <= 4;
    }
    CHECK_EQ_U64(defs, 1);
    CHECK_EQ_U64(data, 3);
    pl_slog_rewind(&r);
    CHECK(pl_slog_next(&r, 0, 1, &rec) == 0);                   /* nothing in range */
    pl_slog_read_close(&r);
    pl_slog_read_close(&r);                                     /* idempotent */
    /* appending: a second run, its own GUID and RecordIndex from 1, its definitions again */
    CHECK(pl_slog_open(p, NULL, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 2, T_2024 + 600000000LL, 10, NULL) == 0);
    CHECK(pl_slog_close(w) == 0);
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM DisplayToID"), 2);
    CHECK_EQ_U64(q_int(p, "SELECT max(RunID) FROM DisplayToID"), 2);
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM Records WHERE Type = 1"), 2);
    CHECK_EQ_U64(q_int(p, "SELECT count(DISTINCT GUID) FROM CounterData"), 2);
    CHECK_EQ_U64(q_int(p, "SELECT NumberOfRecords FROM DisplayToID WHERE RunID = 2"), 2);
    /* CounterDetails rows are reused across runs: one per CPU */
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM CounterDetails"),
                 q_int(p, "SELECT count(DISTINCT CounterID) FROM CounterData"));
    CHECK(pl_slog_read_open(p, &r, msg, sizeof msg) == 0);
    CHECK_EQ_U64(r.ndata, 7);
    CHECK_EQ_U64(r.info.runs, 2);
    pl_slog_read_close(&r);
    for (int k = 0; k < 5; k++)
        free(s[k]);
    pl_query_free(q);
    pl_env_unref(env);
}

/* rows = false: Records only. */
static void t_no_rows(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
    const char *p = tmp("norows.db");
    rm_db(p);
    pl_slog_writer *w = NULL;
    char msg[256];
    pl_slog_opts o = { NULL, 1, 0, 0, 0, 0, 0 };
    CHECK(pl_slog_open(p, &o, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 3, T_2024, 1, NULL) == 0);
    CHECK(pl_slog_close(w) == 0);
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM CounterData"), 0);
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM CounterDetails"), 0);
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM Records WHERE Type = 2"), 3);
    CHECK_EQ_U64(q_int(p, "SELECT Rows FROM DisplayToID"), 0);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Files of a rotation, each a whole log that reads back. */
static long long file_samples(const char *p)
{
    pl_slog_reader r;
    pl_slog_record rec;
    char msg[256];
    long long n = 0;
    if (pl_slog_read_open(p, &r, msg, sizeof msg) != 0)
        return -1;
    int first = pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1 && rec.type == PL_LOG_DEFS;
    while (pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec) == 1)
        n += rec.type == PL_LOG_DATA;
    pl_slog_read_close(&r);
    return first ? n + 0 : -2;
}

static void t_rotation(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
    char msg[256];
    pl_slog_writer *w = NULL;
    /* by time: samples 10 s apart, 25 s per file: 0, 10, 20 | 30, 40, 50 */
    const char *p = tmp("t.db");
    rm_db(p);
    rm_db(tmp("t_001.db"));
    pl_slog_opts o = { NULL, 0, 0, 25, 0, 0, 0 };
    CHECK(pl_slog_open(p, &o, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 6, T_2024, 10, NULL) == 0);
    CHECK_STR(pl_slog_path(w), tmp("t_001.db"));
    CHECK(pl_slog_close(w) == 0);
    CHECK_EQ_U64(file_samples(tmp("t.db")), 3);
    CHECK_EQ_U64(file_samples(tmp("t_001.db")), 3);
    /* by size: past max_bytes a new file; every sample in one of them */
    char ps[128];
    snprintf(ps, sizeof ps, "%s", tmp("s.db"));                /* tmp's names are reused */
    p = ps;
    char name[32];
    for (int k = 0; k < 40; k++) {
        snprintf(name, sizeof name, k ? "s_%03d.db" : "s.db", k);
        rm_db(tmp(name));
    }
    pl_slog_opts o2 = { NULL, 0, 64 * 1024, 0, 0, 0, 0 };
    CHECK(pl_slog_open(p, &o2, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 60, T_2024, 1, NULL) == 0);
    CHECK(pl_slog_close(w) == 0);
    long long total = 0, files = 0;
    for (int k = 0; k < 40; k++) {
        snprintf(name, sizeof name, k ? "s_%03d.db" : "s.db", k);
        struct stat sb;
        if (stat(tmp(name), &sb) != 0)
            break;
        files++;
        CHECK(sb.st_size <= 64 * 1024 + 8192);                 /* at most the last sample past it */
        long long n = file_samples(tmp(name));
        CHECK(n > 0);
        total += n;
    }
    CHECK(files >= 2);
    CHECK_EQ_U64(total, 60);
    pl_query_free(q);
    pl_env_unref(env);
}

/* Another connection holds the write lock: EBUSY after the timeout, the log
 * still reads, and the writer succeeds once the lock is gone. */
static void t_locked(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
    const char *p = tmp("lock.db");
    rm_db(p);
    char msg[256];
    pl_slog_writer *w = NULL;
    pl_slog_opts o = { NULL, 0, 0, 0, 0, 50, 0 };
    CHECK(pl_slog_open(p, &o, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 1, T_2024, 1, NULL) == 0);
    sqlite3 *other = NULL;
    CHECK(sqlite3_open(p, &other) == SQLITE_OK);
    CHECK(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK(pl_slog_write(w, s, msg, sizeof msg) == EBUSY);
    CHECK(strstr(msg, "lock.db") && strstr(msg, "locked"));
    pl_slog_reader r;
    CHECK(pl_slog_read_open(p, &r, msg, sizeof msg) == 0);     /* WAL: readers go on */
    CHECK_EQ_U64(r.ndata, 1);
    pl_slog_read_close(&r);
    CHECK(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(other);
    CHECK(pl_slog_write(w, s, msg, sizeof msg) == 0);
    CHECK(pl_slog_close(w) == 0);
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM Records WHERE Type = 2"), 2);
    CHECK_EQ_U64(q_int(p, "SELECT max(RecordIndex) FROM CounterData"), 2);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

/* A full disk: SQLITE_FULL from max_page_count is ENOSPC, the sample rolls
 * back whole, the file reads, and the writer goes on when there is room. */
static void t_disk_full(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
    const char *p = tmp("full.db");
    rm_db(p);
    char msg[256];
    pl_slog_writer *w = NULL;
    CHECK(pl_slog_open(p, NULL, &w, msg, sizeof msg) == 0);
    CHECK(sqlite3_exec(pl_slog_db(w), "PRAGMA max_page_count = 24", NULL, NULL, NULL) == SQLITE_OK);
    int e = 0, ok = 0;
    for (int k = 0; k < 1000 && !e; k++) {
        e = write_n(w, q, 1, T_2024 + k * 10000000LL, 1, NULL);
        ok += !e;
    }
    CHECK(e == ENOSPC);
    CHECK(ok > 0);
    pl_slog_reader r;
    CHECK(pl_slog_read_open(p, &r, msg, sizeof msg) == 0);
    CHECK_EQ_U64(r.ndata, (uint64_t)ok);
    pl_slog_read_close(&r);
    CHECK_EQ_U64(q_int(p, "SELECT max(RecordIndex) FROM CounterData"), ok);
    CHECK_EQ_U64(q_int(p, "SELECT NumberOfRecords FROM DisplayToID"), ok);
    CHECK(sqlite3_exec(pl_slog_db(w), "PRAGMA max_page_count = 100000", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(write_n(w, q, 1, T_2024 + 2000 * 10000000LL, 1, NULL) == 0);
    CHECK(pl_slog_close(w) == 0);
    CHECK_EQ_U64(q_int(p, "SELECT count(*) FROM Records WHERE Type = 2"), ok + 1);
    CHECK_EQ_U64(q_int(p, "SELECT count(DISTINCT RecordIndex) FROM CounterData"), ok + 1);
    pl_query_free(q);
    pl_env_unref(env);
}

/* A file that cannot grow (RLIMIT_FSIZE in a child: a real write() failing,
 * where max_page_count above is SQLite's own limit): the write fails with
 * an errno and a sentence, the sample rolls back, the writer closes, and
 * the log reads with every sample before it. */
static void t_file_limit(void)
{
    const char *p = tmp("limit.db");
    rm_db(p);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { 256 * 1024, 256 * 1024 };
        setrlimit(RLIMIT_FSIZE, &rl);
        pl_env *env = pl_env_new(FIX);
        pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
        pl_slog_writer *w = NULL;
        char msg[256];
        int e = pl_slog_open(p, NULL, &w, msg, sizeof msg), k = 0;
        for (; !e && k < 100000; k++) {
            pl_sample *s = NULL;
            pl_query_collect(q, &s);
            e = pl_slog_write(w, s, msg, sizeof msg);
            free(s);
        }
        /* k - 1 samples made it; the writer still closes.  SQLite says SQLITE_IOERR_WRITE
         * for EFBIG, without the errno (sqlite3_system_errno is 0 then): EIO */
        int said = strstr(msg, "nothing of this sample was written") != NULL;
        _exit((e == EFBIG || e == EIO) && said && pl_slog_close(w) == 0 ? (k - 1 > 250 ? 250 : k - 1) : 255);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) > 0 && WEXITSTATUS(st) < 250);
    int ok = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    pl_slog_reader r;
    char msg[256];
    CHECK(pl_slog_read_open(p, &r, msg, sizeof msg) == 0);
    CHECK_EQ_U64(r.ndata, (uint64_t)ok);
    pl_slog_record rec;
    int n = 0, got;
    while ((got = pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec)) == 1)
        n += rec.type == PL_LOG_DATA;
    CHECK(got == 0 && n == ok);
    pl_slog_read_close(&r);
    CHECK_EQ_U64(q_int(p, "SELECT NumberOfRecords FROM DisplayToID"), ok);
    CHECK_EQ_U64(q_int(p, "SELECT count(DISTINCT RecordIndex) FROM CounterData"), ok);
}

/* Refused by the reader (and the writer) with a clear message: EINVAL. */
static void refused(const char *p, const char *says)
{
    pl_slog_reader r;
    char msg[256] = "";
    pl_slog_writer *w = NULL;
    CHECK(pl_slog_read_open(p, &r, msg, sizeof msg) == EINVAL);
    if (!strstr(msg, says))
        fprintf(stderr, "  read %s: %s\n", p, msg);
    CHECK(strstr(msg, says) != NULL);
    CHECK(pl_slog_open(p, NULL, &w, msg, sizeof msg) == EINVAL && w == NULL);
    CHECK(strstr(msg, says) != NULL);
}

static void t_foreign(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
    char msg[256];
    /* random bytes */
    const char *p = tmp("random.db");
    FILE *f = fopen(p, "wb");
    srand(7);
    for (int k = 0; k < 8192; k++)
        fputc(rand() & 0xFF, f);
    fclose(f);
    refused(p, "not a perflib SQLite log");
    /* a foreign database, a newer version */
    p = tmp("foreign.db");
    rm_db(p);
    CHECK(exec(p, "CREATE TABLE t (x); INSERT INTO t VALUES (1)") == SQLITE_OK);
    refused(p, "not a perflib log");
    pl_slog_writer *w = NULL;
    p = tmp("v2.db");
    rm_db(p);
    CHECK(pl_slog_open(p, NULL, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 3, T_2024, 1, NULL) == 0);
    CHECK(pl_slog_close(w) == 0);
    CHECK(exec(p, "PRAGMA user_version = 2") == SQLITE_OK);
    refused(p, "version 2");
    /* a table without its columns */
    CHECK(exec(p, "PRAGMA user_version = 1; ALTER TABLE Records RENAME COLUMN Payload TO P") == SQLITE_OK);
    refused(p, "not a perflib SQLite log of version 1");
    /* another host's log is not appended to */
    p = tmp("host.db");
    rm_db(p);
    pl_slog_opts o = { "elsewhere", 0, 0, 0, 0, 0, 0 };
    CHECK(pl_slog_open(p, &o, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 1, T_2024, 1, NULL) == 0);
    CHECK(pl_slog_close(w) == 0);
    CHECK(pl_slog_open(p, NULL, &w, msg, sizeof msg) == EINVAL && strstr(msg, "another host"));
    pl_query_free(q);
    pl_env_unref(env);
}

/* Rows changed by hand and truncated files: EINVAL naming the row, never a crash. */
/* A database whose Records index disagrees with its table (a fuzzer's find:
 * count(*) reads the index and saw fewer rows than a scan found DATA rows):
 * refused at open, saying why. */
static void t_index_disagrees(void)
{
    pl_slog_reader r;
    char msg[256] = "";
    CHECK(pl_slog_read_open("spec/c/slog/index-disagrees.db", &r, msg, sizeof msg) == EINVAL);
    CHECK(strstr(msg, "not a perflib SQLite log") != NULL);
}

static void t_corrupt_rows(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = query(env, "\\Processor Information(*)\\% Processor Time");
    char msg[256];
    pl_slog_writer *w = NULL;
    const char *p;
    FILE *f;
    /* a bad payload, a payload of the wrong kind, an unknown type: EINVAL naming the row */
    char pb[128];
    snprintf(pb, sizeof pb, "%s", tmp("bad.db"));              /* tmp's names are reused */
    p = pb;
    rm_db(p);
    CHECK(pl_slog_open(p, NULL, &w, msg, sizeof msg) == 0);
    CHECK(write_n(w, q, 3, T_2024, 1, NULL) == 0);
    CHECK(pl_slog_close(w) == 0);
    static const char *const bad[] = {
        "UPDATE Records SET Payload = x'00010203' WHERE Type = 2 AND RecordIndex = 2",
        "UPDATE Records SET Payload = 'text' WHERE Type = 2 AND RecordIndex = 2",
        "UPDATE Records SET Type = 7 WHERE Type = 2 AND RecordIndex = 2",
        "UPDATE Records SET Time = Time + 1 WHERE Type = 2 AND RecordIndex = 2",
        "UPDATE Records SET Payload = substr(Payload, 1, 40) WHERE Type = 2 AND RecordIndex = 2",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char c[160];
        snprintf(c, sizeof c, "cp %s %s", p, tmp("bad2.db"));
        rm_db(tmp("bad2.db"));
        CHECK(system(c) == 0);
        CHECK(exec(tmp("bad2.db"), bad[k]) == SQLITE_OK);
        pl_slog_reader r;
        pl_slog_record rec;
        CHECK(pl_slog_read_open(tmp("bad2.db"), &r, msg, sizeof msg) == 0);
        int got, n = 0;
        while ((got = pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec)) == 1)
            n++;
        CHECK(got == -EINVAL && n == 2);                       /* the DEFS and sample 1, then the bad row */
        CHECK(strstr(r.msg, "RecordIndex 2") != NULL);
        pl_slog_read_close(&r);
    }
    /* a data record without its definitions before it */
    rm_db(tmp("bad2.db"));
    char c[160];
    snprintf(c, sizeof c, "cp %s %s", p, tmp("bad2.db"));
    CHECK(system(c) == 0);
    CHECK(exec(tmp("bad2.db"), "DELETE FROM Records WHERE Type = 1") == SQLITE_OK);
    pl_slog_reader r;
    pl_slog_record rec;
    CHECK(pl_slog_read_open(tmp("bad2.db"), &r, msg, sizeof msg) == 0);
    CHECK(pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec) == -EINVAL && strstr(r.msg, "before any definitions"));
    pl_slog_read_close(&r);
    /* truncated at every 4 KiB page: refused or read to an error, never a crash */
    struct stat sb;
    CHECK(stat(p, &sb) == 0);
    for (off_t cut = 0; cut < sb.st_size; cut += 4096) {
        snprintf(c, sizeof c, "cp %s %s", p, tmp("cut.db"));
        rm_db(tmp("cut.db"));
        CHECK(system(c) == 0);
        CHECK(truncate(tmp("cut.db"), cut) == 0);
        int e = pl_slog_read_open(tmp("cut.db"), &r, msg, sizeof msg), got = 0;
        if (e == 0) {
            while ((got = pl_slog_next(&r, INT64_MIN, INT64_MAX, &rec)) == 1)
                ;
            pl_slog_read_close(&r);
        }
        CHECK(e != 0 || got < 0);                              /* never read as whole */
    }
    /* a file that is not there, an empty one */
    CHECK(pl_slog_read_open(tmp("none.db"), &r, msg, sizeof msg) == ENOENT);
    p = tmp("empty.db");
    f = fopen(p, "wb");
    fclose(f);
    CHECK(pl_slog_read_open(p, &r, msg, sizeof msg) == EINVAL && strstr(msg, "not a perflib SQLite log"));
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    ct_tmp_init("test_slog");
    RUN(t_rows_by_hand);
    RUN(t_records_round_trip);
    RUN(t_no_rows);
    RUN(t_rotation);
    RUN(t_locked);
    RUN(t_disk_full);
    RUN(t_file_limit);
    RUN(t_foreign);
    RUN(t_corrupt_rows);
    RUN(t_index_disagrees);
    ct_tmp_remove();
    return CT_END();
}
