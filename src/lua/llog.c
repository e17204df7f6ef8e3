/***
 * Binary logs (`perflib.log_writer`, `perflib.read_log`): samples appended
 * as perflib data blocks to a crash-safe file (src/core/pl_blog.h has the
 * format) and read back as samples that format exactly like the live ones.
 * @module perflib.core
 */
#include "lpl.h"
#include "pl_blog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define LPL_LOGWRITER "perflib.LogWriter"
#define LPL_LOGREADER "perflib.LogReader"

/* FILETIME of 1970-01-01 UTC, in 100 ns units */
#define UNIX_EPOCH_100NS 116444736000000000LL

typedef struct lpl_logwriter {
    pl_blog_writer *w;        /* NULL once closed */
} lpl_logwriter;

typedef struct lpl_logreader {
    pl_blog_reader r;         /* r.fd < 0 once closed */
    int64_t from, to;
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

/***
 * A binary log writer appending to `path` (created with its header when
 * missing or empty; an existing log of this host is appended to after its
 * records are checked, a torn last record cut off; another host's log, a
 * corrupt one or a file that is no log is refused).  `max_bytes`: past it a
 * new file `path_001.ext`, `_002`... (0: none); `sync_every`: fdatasync
 * every n samples (0: only on close).
 * @function log_writer
 * @tparam string path
 * @tparam[opt] table opts `max_bytes`, `sync_every`
 * @treturn[1] perflib.LogWriter
 * @return[2] nil, message, errno
 */
static int l_log_writer(lua_State *L)
{
    static const char *const keys[] = { "max_bytes", "sync_every", NULL };
    const char *path = luaL_checkstring(L, 1);
    pl_blog_opts o = { NULL, 0, 0 };
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lpl_check_keys(L, 2, keys, "log_writer");
        o.max_bytes = (uint64_t)opt_count(L, 2, "max_bytes", "log_writer", (lua_Integer)1 << 50);
        o.sync_every = (uint32_t)opt_count(L, 2, "sync_every", "log_writer", 1000000000);
    }
    lpl_logwriter *lw = lua_newuserdatauv(L, sizeof *lw, 0);
    lw->w = NULL;
    luaL_setmetatable(L, LPL_LOGWRITER);
    char msg[512];
    int e = pl_blog_open(path, &o, &lw->w, msg, sizeof msg);
    if (e) {
        push_fail(L, msg, e);
        return 3;
    }
    return 1;
}

static lpl_logwriter *check_writer(lua_State *L)
{
    lpl_logwriter *lw = luaL_checkudata(L, 1, LPL_LOGWRITER);
    if (!lw->w)
        luaL_argerror(L, 1, "attempt to use a closed log writer");
    return lw;
}

/***
 * Appends a sample (its counter definitions first when the log has not
 * described its sets or counters yet).  On failure the file ends at its last
 * whole record.
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
    int e = pl_blog_write(lw->w, s, msg, sizeof msg);
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
    lua_pushstring(L, pl_blog_path(check_writer(L)->w));
    return 1;
}

/***
 * The size of the file written now, in bytes.
 * @function LogWriter:size
 * @treturn integer
 */
static int w_size(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)pl_blog_size(check_writer(L)->w));
    return 1;
}

/***
 * Flushes (fdatasync) and closes the log; closing again does nothing.
 * @function LogWriter:close
 * @treturn[1] boolean true
 * @return[2] nil, message, errno
 */
static int w_close(lua_State *L)
{
    lpl_logwriter *lw = luaL_checkudata(L, 1, LPL_LOGWRITER);
    pl_blog_writer *w = lw->w;
    lw->w = NULL;
    int e = pl_blog_close(w);
    if (e)
        return lpl_fail(L, "log_writer: close", e);
    lua_pushboolean(L, 1);
    return 1;
}

static int w_tostring(lua_State *L)
{
    lpl_logwriter *lw = luaL_checkudata(L, 1, LPL_LOGWRITER);
    lua_pushfstring(L, LPL_LOGWRITER " (%s)", lw->w ? pl_blog_path(lw->w) : "closed");
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

/* Unix seconds at opts[key] as FILETIME; dflt when absent. */
static int64_t opt_time(lua_State *L, int t, const char *key, int64_t dflt)
{
    lua_getfield(L, t, key);
    int64_t v = dflt;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_argerror(L, t, lua_pushfstring(L, "opts.%s must be a number (Unix seconds)", key));
        double x = lua_tonumber(L, -1);
        if (!(x > -1e10 && x < 1e10))
            luaL_argerror(L, t, lua_pushfstring(L, "opts.%s is out of range", key));
        v = UNIX_EPOCH_100NS + (int64_t)floor(x * 1e7);
    }
    lua_pop(L, 1);
    return v;
}

/* The iterator: the next DATA record in range as a sample, nil at the end. */
static int r_iter(lua_State *L)
{
    lpl_logreader *lr = lua_touserdata(L, lua_upvalueindex(1));
    pl_blog_record rec;
    int more;
    if (lr->r.fd < 0)
        return 0;
    do
        more = pl_blog_next(&lr->r, lr->from, lr->to, &rec);
    while (more == 1 && rec.type != PL_BLOG_DATA);
    lua_getiuservalue(L, lua_upvalueindex(1), 2);          /* the path, for messages */
    if (more < 0)
        return luaL_error(L, "read_log: %s: %s", lua_tostring(L, -1), strerror(-more));
    if (more == 0)
        return 0;
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

/***
 * The samples of a binary log, in order: `for s in perflib.read_log(path) do`.
 * The whole log is checked first: a file that is not a log, or one corrupt
 * before its last record, is `nil, "path: offset N: rule", EINVAL`; a torn
 * last record (what a crash leaves) is left out and said by
 * `log:warning()`.  The iterator raises when a block names a counterset
 * `machine` lacks, or the file changed since.  `from`, `to`: Unix seconds,
 * the samples whose timestamp is in [from, to].
 * @function read_log
 * @tparam string path
 * @tparam[opt] table opts `from`, `to`, `machine` (whose countersets the samples use; default this machine)
 * @treturn[1] function the iterator
 * @treturn[1] perflib.LogReader the log (also its to-be-closed value)
 * @return[2] nil, message, errno
 */
static int l_read_log(lua_State *L)
{
    static const char *const keys[] = { "from", "to", "machine", NULL };
    const char *path = luaL_checkstring(L, 1);
    int64_t from = INT64_MIN, to = INT64_MAX;
    lua_settop(L, 2);
    if (!lua_isnil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lpl_check_keys(L, 2, keys, "read_log");
        from = opt_time(L, 2, "from", from);
        to = opt_time(L, 2, "to", to);
        lua_getfield(L, 2, "machine");
    } else {
        lua_pushnil(L);
    }
    lpl_opt_machine(L, 3);                                  /* 4 */
    lpl_logreader *lr = lua_newuserdatauv(L, sizeof *lr, 2); /* 5 */
    memset(lr, 0, sizeof *lr);
    lr->r.fd = -1;
    lr->from = from, lr->to = to;
    luaL_setmetatable(L, LPL_LOGREADER);
    lua_pushvalue(L, 4);
    lua_setiuservalue(L, 5, 1);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 5, 2);
    pl_db_error err = { 0, NULL };
    int e = pl_blog_read_open(path, &lr->r, &err);
    if (e == EINVAL) {
        luaL_pushfail(L);
        char off[24];
        lua_pushfstring(L, "read_log: %s: offset %s: %s", path, offset_str(off, err.offset), err.rule);
        lua_pushinteger(L, e);
        return 3;
    }
    if (e)
        return lpl_fail(L, lua_pushfstring(L, "read_log: %s", path), e);
    lua_pushvalue(L, 5);
    lua_pushcclosure(L, r_iter, 1);
    lua_pushvalue(L, 5);
    lua_pushnil(L);
    lua_pushvalue(L, 5);
    return 4;
}

/***
 * What a torn last record was (it is left out), or nil.
 * @function LogReader:warning
 * @treturn string|nil "path: offset N: torn last record ignored (rule)"
 */
static int r_warning(lua_State *L)
{
    lpl_logreader *lr = check_reader(L, 1);
    if (!lr->r.torn) {
        lua_pushnil(L);
        return 1;
    }
    char off[24];
    lua_getiuservalue(L, 1, 2);
    lua_pushfstring(L, "%s: offset %s: torn last record ignored (%s)", lua_tostring(L, -1),
                    offset_str(off, lr->r.torn), lr->r.torn_rule);
    return 1;
}

/***
 * The log's header and counts: `host`, `created` (Unix seconds), `perflib`
 * (the writer's version), `version` (of the format), `records` and `samples`
 * (whole records, and the data ones among them).
 * @function LogReader:info
 * @treturn table
 */
static int r_info(lua_State *L)
{
    lpl_logreader *lr = check_reader(L, 1);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, lr->r.info.host);
    lua_setfield(L, -2, "host");
    lua_pushnumber(L, (double)(lr->r.info.created - UNIX_EPOCH_100NS) / 1e7);
    lua_setfield(L, -2, "created");
    lua_pushstring(L, lr->r.info.perflib);
    lua_setfield(L, -2, "perflib");
    lua_pushinteger(L, lr->r.info.version);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, (lua_Integer)lr->r.nrecords);
    lua_setfield(L, -2, "records");
    lua_pushinteger(L, (lua_Integer)lr->r.ndata);
    lua_setfield(L, -2, "samples");
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
    luaL_checkudata(L, 1, LPL_LOGREADER);
    lua_getiuservalue(L, 1, 2);
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
        { "write", w_write }, { "close", w_close }, { "path", w_path }, { "size", w_size }, { NULL, NULL }
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
