/***
 * Logs (`perflib.log_writer`, `perflib.read_log`): samples appended as
 * perflib data blocks to a crash-safe binary file (src/core/pl_blog.h has
 * the format) or recorded in an SQLite database (src/core/pl_slog.h), and
 * binary logs read back as samples that format exactly like the live ones.
 * @module perflib
 */
#include "lpl.h"
#include "pl_blog.h"
#include "pl_slog.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define LPL_LOGWRITER "perflib.LogWriter"
#define LPL_LOGREADER "perflib.LogReader"


typedef struct lpl_logwriter {
    pl_blog_writer *w;        /* a binary log's, or NULL */
    pl_slog_writer *sw;       /* an SQLite log's, or NULL; both NULL once closed */
} lpl_logwriter;

typedef struct lpl_logreader {
    pl_blog_reader r;         /* the file read now; r.fd < 0 once closed */
    int64_t from, to;
    int cur, n;               /* its index (1-based) among the n paths (uservalue 2) */
    uint64_t records, samples;     /* of all of them */
} lpl_logreader;

/* A file offset in decimal (lua_pushfstring has no 64-bit format on 5.1). */
static const char *offset_str(char buf[24], uint64_t off)
{
    snprintf(buf, 24, "%llu", (unsigned long long)off);
    return buf;
}

static void push_fail(lua_State *L, const char *msg, int e)
{
    luaL_pushfail(L);
    lua_pushstring(L, msg);
    lua_pushinteger(L, e);
}

/* opts.key at t as an integer >= 0 (default 0), raising for anything else. */
static lua_Integer opt_count(lua_State *L, int t, const char *key, const char *fname, lua_Integer max)
{
    lua_getfield(L, t, key);
    lua_Integer v = 0;
    if (!lua_isnil(L, -1)) {
        int ok = 0;
        v = lua_tointegerx(L, -1, &ok);
        if (!ok || v < 0 || v > max)
            luaL_argerror(L, t, lua_pushfstring(L, "opts.%s must be an integer from 0 to %I (%s)", key, max,
                                                fname));
    }
    lua_pop(L, 1);
    return v;
}

/* 1 when path names an SQLite log by its extension (.db, .sqlite, .sqlite3). */
static int sqlite_ext(const char *path)
{
    static const char *const exts[] = { ".db", ".sqlite", ".sqlite3" };
    size_t n = strlen(path);
    for (size_t k = 0; k < sizeof exts / sizeof *exts; k++) {
        size_t e = strlen(exts[k]);
        if (n > e && strcmp(path + n - e, exts[k]) == 0)
            return 1;
    }
    return 0;
}

/* opts.format and opts.rows at t: 1 for sqlite, 0 for bin (by path's extension when absent). */
static int opt_format(lua_State *L, int t, const char *path, int *rows)
{
    static const char *const names[] = { "bin", "sqlite", NULL };
    int sqlite = sqlite_ext(path);
    lua_getfield(L, t, "format");
    if (!lua_isnil(L, -1)) {
        const char *f = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        int k = 0;
        while (names[k] && strcmp(names[k], f) != 0)
            k++;
        if (!names[k])
            luaL_argerror(L, t, "opts.format must be \"sqlite\" or \"bin\" (log_writer)");
        sqlite = k;
    }
    lua_getfield(L, t, "rows");
    if (!lua_isnil(L, -1)) {
        if (!lua_isboolean(L, -1))
            luaL_argerror(L, t, "opts.rows must be a boolean (log_writer)");
        if (!sqlite)
            luaL_argerror(L, t, "opts.rows is an option of the sqlite format (log_writer)");
        *rows = lua_toboolean(L, -1);
    }
    lua_pop(L, 2);
    return sqlite;
}

/***
 * A log writer appending to `path`: a binary log, or an SQLite log with
 * `format = "sqlite"` or a path ending in `.db`, `.sqlite` or `.sqlite3`
 * (`format = "bin"` forces the binary log).  A binary log is created with its
 * header when missing or empty; an existing log of this host is appended to
 * after its records are checked, a torn last record cut off.  An SQLite log
 * (WAL, one transaction per sample; the schema is PDH's SQL log's, README
 * "SQLite logs") is created with its tables when missing or empty; appending
 * to one starts a new run.  Another host's log, a corrupt one, one of
 * another version or a file that is no log is refused.  `max_bytes`: past it
 * a new file `path_001.ext`, `_002`... (0: none); `max_seconds`: the same for
 * a sample that many seconds after the file's first (0: none); `max_files`:
 * circular, as logman's: starting a file removes the one `max_files` back,
 * so at most that many stay (0: every file stays); `sync_every`:
 * binary: fdatasync every n samples (0: only on close), SQLite: any n > 0
 * makes each sample durable when written (synchronous=FULL); `rows` (SQLite
 * only, default true): false leaves the CounterDetails and CounterData rows
 * out (a smaller file that perflib reads the same).
 * @function log_writer
 * @tparam string path
 * @tparam[opt] table opts `format`, `rows`, `max_bytes`, `max_seconds`, `max_files`, `sync_every`
 * @treturn[1] perflib.LogWriter
 * @return[2] nil, message, errno
 */
static int l_log_writer(lua_State *L)
{
    static const char *const keys[] = { "format", "rows", "max_bytes", "max_seconds", "max_files", "sync_every",
                                        NULL };
    const char *path = luaL_checkstring(L, 1);
    pl_blog_opts o = { NULL, 0, 0, 0, 0 };
    int sqlite = sqlite_ext(path), rows = 1;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lpl_check_keys(L, 2, keys, "log_writer");
        sqlite = opt_format(L, 2, path, &rows);
        o.max_bytes = (uint64_t)opt_count(L, 2, "max_bytes", "log_writer", (lua_Integer)1 << 50);
        o.sync_every = (uint32_t)opt_count(L, 2, "sync_every", "log_writer", 1000000000);
        o.max_seconds = (uint32_t)opt_count(L, 2, "max_seconds", "log_writer", 1000000000);
        o.max_files = (uint32_t)opt_count(L, 2, "max_files", "log_writer", 100000);
    }
    lpl_logwriter *lw = lua_newuserdatauv(L, sizeof *lw, 0);
    lw->w = NULL;
    lw->sw = NULL;
    luaL_setmetatable(L, LPL_LOGWRITER);
    char msg[512];
    int e;
    if (sqlite) {
        pl_slog_opts so = { NULL, !rows, o.max_bytes, o.max_seconds, o.sync_every, 0, o.max_files };
        e = pl_slog_open(path, &so, &lw->sw, msg, sizeof msg);
    } else {
        e = pl_blog_open(path, &o, &lw->w, msg, sizeof msg);
    }
    if (e) {
        push_fail(L, msg, e);
        return 3;
    }
    return 1;
}

/***
 * The samples of a binary log, in order: `for s in perflib.read_log(path) do`;
 * of several logs one after the other with a list of paths (the files of a
 * rotation: `{"a.blg", "a_001.blg"}`).  Every log is checked first: a file
 * that is not a log, or one corrupt before its last record, is
 * `nil, "read_log: path: offset N: rule", EINVAL`; a torn last record (what a
 * crash leaves) is left out and said by `log:warning()`.  The iterator
 * raises when a block names a counterset `machine` lacks, or a file changed
 * since.  `from`, `to`: Unix seconds, the samples whose timestamp is in
 * [from, to].
 * @function read_log
 * @tparam string|{string,...} path
 * @tparam[opt] table opts `from`, `to`, `machine` (whose countersets the samples use; default this machine)
 * @treturn[1] function the iterator
 * @treturn[1] perflib.LogReader the log (also its to-be-closed value)
 * @return[2] nil, message, errno
 */
/***
 * A log being written (binary or SQLite): @{log_writer} makes one.
 * @type LogWriter
 */
static lpl_logwriter *check_writer(lua_State *L)
{
    lpl_logwriter *lw = luaL_checkudata(L, 1, LPL_LOGWRITER);
    if (!lw->w && !lw->sw)
        luaL_argerror(L, 1, "attempt to use a closed log writer");
    return lw;
}

/***
 * Appends a sample (its counter definitions first when the log has not
 * described its sets or counters yet).  On failure the file ends at its last
 * whole record (SQLite: the sample's transaction rolls back; a full disk is
 * ENOSPC, a database another process holds locked past the 5 s busy timeout
 * EBUSY), and the writer may be used again.
 * @function LogWriter:write
 * @tparam perflib.Sample sample
 * @treturn[1] boolean true
 * @return[2] nil, message, errno
 */
static int w_write(lua_State *L)
{
    lpl_logwriter *lw = check_writer(L);
    const pl_sample *s = lpl_check_sample(L, 2)->s;
    char msg[512];
    int e = lw->sw ? pl_slog_write(lw->sw, s, msg, sizeof msg) : pl_blog_write(lw->w, s, msg, sizeof msg);
    if (e) {
        push_fail(L, msg, e);
        return 3;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * The file written now (rotation moves on to `path_001.ext`...).
 * @function LogWriter:path
 * @treturn string
 */
static int w_path(lua_State *L)
{
    lpl_logwriter *lw = check_writer(L);
    lua_pushstring(L, lw->sw ? pl_slog_path(lw->sw) : pl_blog_path(lw->w));
    return 1;
}

/***
 * The size of the file written now, in bytes (SQLite: the database's pages,
 * its WAL's included once checkpointed).
 * @function LogWriter:size
 * @treturn integer
 */
static int w_size(lua_State *L)
{
    lpl_logwriter *lw = check_writer(L);
    lua_pushinteger(L, (lua_Integer)(lw->sw ? pl_slog_size(lw->sw) : pl_blog_size(lw->w)));
    return 1;
}

/***
 * The log's format.
 * @function LogWriter:format
 * @treturn string "sqlite" or "bin"
 */
static int w_format(lua_State *L)
{
    lua_pushstring(L, check_writer(L)->sw ? "sqlite" : "bin");
    return 1;
}

/***
 * Flushes (binary: fdatasync; SQLite: a WAL checkpoint) and closes the log;
 * closing again does nothing.
 * @function LogWriter:close
 * @treturn[1] boolean true
 * @return[2] nil, message, errno
 */
static int w_close(lua_State *L)
{
    lpl_logwriter *lw = luaL_checkudata(L, 1, LPL_LOGWRITER);
    pl_blog_writer *w = lw->w;
    pl_slog_writer *sw = lw->sw;
    lw->w = NULL;
    lw->sw = NULL;
    int e = sw ? pl_slog_close(sw) : pl_blog_close(w);
    if (e)
        return lpl_fail(L, "log_writer: close", e);
    lua_pushboolean(L, 1);
    return 1;
}

static int w_tostring(lua_State *L)
{
    lpl_logwriter *lw = luaL_checkudata(L, 1, LPL_LOGWRITER);
    lua_pushfstring(L, LPL_LOGWRITER " (%s)", lw->sw ? pl_slog_path(lw->sw) : lw->w ? pl_blog_path(lw->w) : "closed");
    return 1;
}

/* ------------------------------------------------------------------ reader */

static lpl_logreader *check_reader(lua_State *L, int i)
{
    lpl_logreader *lr = luaL_checkudata(L, i, LPL_LOGREADER);
    if (lr->r.fd < 0)
        luaL_argerror(L, i, "attempt to use a closed log reader");
    return lr;
}


/* Pushes the path of the file read now (for messages). */
static const char *push_cur_path(lua_State *L, int ud, const lpl_logreader *lr)
{
    lua_getiuservalue(L, ud, 2);
    lua_rawgeti(L, -1, lr->cur);
    lua_remove(L, -2);
    return lua_tostring(L, -1);
}

/* The next DATA record in range, going on to the next file at the end of
 * one: 1, 0 at the end of the last, or raises. */
static int next_data(lua_State *L, int ud, lpl_logreader *lr, pl_blog_record *rec)
{
    for (;;) {
        int more;
        do
            more = pl_blog_next(&lr->r, lr->from, lr->to, rec);
        while (more == 1 && rec->type != PL_BLOG_DATA);
        if (more < 0)
            return luaL_error(L, "read_log: %s: %s", push_cur_path(L, ud, lr), strerror(-more));
        if (more == 1 || lr->cur >= lr->n)
            return more;
        pl_blog_read_close(&lr->r);
        lr->cur++;
        pl_db_error err = { 0, NULL };
        const char *path = push_cur_path(L, ud, lr);
        int e = pl_blog_read_open(path, &lr->r, &err);
        if (e)                    /* checked when read_log opened it */
            return luaL_error(L, "read_log: %s: changed since it was opened (%s)", path,
                              e == EINVAL ? err.rule : strerror(e));
        lua_pop(L, 1);
    }
}

/* The iterator: the next DATA record in range as a sample, nil at the end. */
static int r_iter(lua_State *L)
{
    int ud = lua_upvalueindex(1);
    lpl_logreader *lr = lua_touserdata(L, ud);
    pl_blog_record rec;
    if (lr->r.fd < 0 || next_data(L, ud, lr, &rec) == 0)
        return 0;
    push_cur_path(L, ud, lr);
    lua_getiuservalue(L, lua_upvalueindex(1), 1);          /* the machine */
    int mi = lua_gettop(L);
    lpl_alloc a = { L, NULL, 0 };
    pl_sample *s;
    pl_db_error err = { 0, NULL };
    char off[24];
    int e = pl_db_read(lpl_check_machine(L, mi)->env, rec.data, rec.len, lpl_sample_alloc, &a, &s, &err);
    if (e == EINVAL)
        return luaL_error(L, "read_log: %s: offset %s: %s", lua_tostring(L, mi - 1),
                          offset_str(off, rec.offset + PL_BLOG_RECORD_HEAD + err.offset), err.rule);
    if (e)
        return luaL_error(L, "read_log: %s: %s", lua_tostring(L, mi - 1), strerror(e));
    lpl_sample_finish(L, s, mi);
    return 1;
}

/* Arg 1, a path or a non-empty list of them, as a list (raising for anything else). */
static void check_paths(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TSTRING) {
        lua_createtable(L, 1, 0);
        lua_pushvalue(L, 1);
        lua_rawseti(L, -2, 1);
        lua_replace(L, 1);
        return;
    }
    luaL_argcheck(L, lua_type(L, 1) == LUA_TTABLE && lua_rawlen(L, 1) > 0 && lua_rawlen(L, 1) < 100000, 1,
                  "a path or a list of paths expected");
    for (lua_Integer k = 1; k <= (lua_Integer)lua_rawlen(L, 1); k++) {
        lua_rawgeti(L, 1, k);
        luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 1, "a list of paths must hold strings");
        lua_pop(L, 1);
    }
}

/* Opens and checks every log of the list (the reader at the top, its list at
 * 1): the first stays open, the torn tails' warnings go to uservalue 3.
 * 0, or pushes nil, message, errno and returns 3. */
static int check_all(lua_State *L, lpl_logreader *lr)
{
    int ud = lua_gettop(L);
    luaL_Buffer b;
    int torn = 0;
    luaL_buffinit(L, &b);                 /* pushes nothing here on 5.4; a box on some Luas */
    for (int k = 1; k <= lr->n; k++) {
        lua_rawgeti(L, 1, k);
        const char *path = lua_tostring(L, -1);
        pl_blog_reader r;
        pl_db_error err = { 0, NULL };
        char off[24];
        int e = pl_blog_read_open(path, &r, &err);
        if (e == EINVAL) {
            luaL_pushfail(L);
            lua_pushfstring(L, "read_log: %s: offset %s: %s", path, offset_str(off, err.offset), err.rule);
            lua_pushinteger(L, e);
            return 3;
        }
        if (e)
            return lpl_fail(L, lua_pushfstring(L, "read_log: %s", path), e);
        lr->records += r.nrecords;
        lr->samples += r.ndata;
        if (r.torn) {
            lua_pushfstring(L, "%s%s: offset %s: torn last record ignored (%s)", torn++ ? "; " : "", path,
                            offset_str(off, r.torn), r.torn_rule);
            lua_remove(L, -2);            /* the path */
            luaL_addvalue(&b);
        } else {
            lua_pop(L, 1);
        }
        if (k == 1) {
            lr->r = r;
            lr->cur = 1;
        } else {
            pl_blog_read_close(&r);
        }
    }
    luaL_pushresult(&b);
    if (torn)
        lua_setiuservalue(L, ud, 3);
    else
        lua_pop(L, 1);
    return 0;
}

/* perflib.read_log (documented with log_writer, above the classes) */
static int l_read_log(lua_State *L)
{
    static const char *const keys[] = { "from", "to", "machine", NULL };
    int64_t from = INT64_MIN, to = INT64_MAX;
    lua_settop(L, 2);
    check_paths(L);                                         /* arg 1 becomes a list */
    if (!lua_isnil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lpl_check_keys(L, 2, keys, "read_log");
        from = lpl_opt_time(L, 2, "from", from, -1);
        to = lpl_opt_time(L, 2, "to", to, 1);
        lua_getfield(L, 2, "machine");
    } else {
        lua_pushnil(L);
    }
    lpl_opt_machine(L, 3);                                  /* 4 */
    lpl_logreader *lr = lua_newuserdatauv(L, sizeof *lr, 3); /* 5 */
    memset(lr, 0, sizeof *lr);
    lr->r.fd = -1;
    lr->from = from, lr->to = to;
    lr->n = (int)lua_rawlen(L, 1);
    luaL_setmetatable(L, LPL_LOGREADER);
    lua_pushvalue(L, 4);
    lua_setiuservalue(L, 5, 1);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 5, 2);
    int r = check_all(L, lr);
    if (r)
        return r;
    lua_pushvalue(L, 5);
    lua_pushcclosure(L, r_iter, 1);
    lua_pushvalue(L, 5);
    lua_pushnil(L);
    lua_pushvalue(L, 5);
    return 4;
}

/***
 * A binary log being read: @{read_log} gives one with its iterator.
 * @type LogReader
 */
/***
 * What a torn last record was (it is left out), or nil; with several logs,
 * each one's, joined by "; ".
 * @function LogReader:warning
 * @treturn string|nil "path: offset N: torn last record ignored (rule)"
 */
static int r_warning(lua_State *L)
{
    check_reader(L, 1);
    lua_getiuservalue(L, 1, 3);
    return 1;
}

/***
 * The log's header and counts: `host`, `created` (Unix seconds), `perflib`
 * (the writer's version), `version` (of the format): the first log's;
 * `records` and `samples` (whole records, and the data ones among them) and
 * `files`: of them all.
 * @function LogReader:info
 * @treturn table
 */
static int r_info(lua_State *L)
{
    lpl_logreader *lr = check_reader(L, 1);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, lr->r.info.host);
    lua_setfield(L, -2, "host");
    lua_pushnumber(L, (double)(lr->r.info.created - LPL_UNIX_EPOCH_100NS) / 1e7);
    lua_setfield(L, -2, "created");
    lua_pushstring(L, lr->r.info.perflib);
    lua_setfield(L, -2, "perflib");
    lua_pushinteger(L, lr->r.info.version);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, (lua_Integer)lr->records);
    lua_setfield(L, -2, "records");
    lua_pushinteger(L, (lua_Integer)lr->samples);
    lua_setfield(L, -2, "samples");
    lua_pushinteger(L, lr->n);
    lua_setfield(L, -2, "files");
    return 1;
}

/***
 * Closes the file (the iterator then ends); closing again does nothing.
 * @function LogReader:close
 */
static int r_close(lua_State *L)
{
    lpl_logreader *lr = luaL_checkudata(L, 1, LPL_LOGREADER);
    pl_blog_read_close(&lr->r);
    return 0;
}

static int r_tostring(lua_State *L)
{
    lpl_logreader *lr = luaL_checkudata(L, 1, LPL_LOGREADER);
    lua_getiuservalue(L, 1, 2);
    lua_rawgeti(L, -1, 1);
    if (lr->n > 1)
        lua_pushfstring(L, LPL_LOGREADER " (%s and %d more)", lua_tostring(L, -1), lr->n - 1);
    else
        lua_pushfstring(L, LPL_LOGREADER " (%s)", lua_tostring(L, -1));
    return 1;
}

/* Registers both classes and sets log_writer and read_log in the table on top. */
void lpl_open_log(lua_State *L)
{
    static const luaL_Reg wmeta[] = {
        { "__gc", w_close }, { "__close", w_close }, { "__tostring", w_tostring }, { NULL, NULL }
    };
    static const luaL_Reg wmethods[] = {
        { "write", w_write }, { "close", w_close }, { "path", w_path }, { "size", w_size }, { "format", w_format },
        { NULL, NULL }
    };
    static const luaL_Reg rmeta[] = {
        { "__gc", r_close }, { "__close", r_close }, { "__tostring", r_tostring }, { NULL, NULL }
    };
    static const luaL_Reg rmethods[] = {
        { "warning", r_warning }, { "info", r_info }, { "close", r_close }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_LOGWRITER, wmeta, wmethods);
    lpl_newclass(L, LPL_LOGREADER, rmeta, rmethods);
    lua_pushcfunction(L, l_log_writer);
    lua_setfield(L, -2, "log_writer");
    lua_pushcfunction(L, l_read_log);
    lua_setfield(L, -2, "read_log");
}
