/***
 * History as a data source (`perflib.open_log`): a machine whose
 * countersets, instances and queries come from a log.
 * @module perflib
 */
#include "lpl.h"
#include "logsrc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


/***
 * A machine whose countersets, instances and queries come from a log (a
 * binary log or an SQLite log, told apart by their first bytes; several,
 * read one after the other as one: the files of a rotation).  The log's own counter definitions are used, so it reads on a
 * machine that lacks its sets.  `q:collect()` on a query of it returns the
 * next logged sample in `[from, to]` with its logged timestamps, so rates,
 * statuses and rules work as on the live machine; past the last it returns
 * `nil, "collect: end of the log", ENODATA`; every query reads from the start
 * at its own pace.  A counter or instance the logged sample lacks is
 * `no_data`/`no_instance`, a set that had failed when recorded says so.
 * Every binary log is checked whole first (an SQLite log's schema, and
 * each record as it is read): one that is not a log, is corrupt
 * before its last record, or is a version 1 log (no definitions: use
 * @{read_log}) gives `nil, "open_log: path: offset N: rule", EINVAL`; a torn
 * last record is left out and said by `Machine:log().warning`.
 * @function open_log
 * @tparam string|{string,...} path
 * @tparam[opt] table opts `from`, `to`: Unix seconds (a sample within half a
 *   microsecond of a bound is in: its own `timestamp` given back selects it)
 * @treturn[1] Machine
 * @return[2] nil, message, errno
 * @usage local m = assert(perflib.open_log("cpu.blg"))
 * local q = m:query(); q:add "\\Processor Information(_Total)\\% Processor Time"
 * local s0 = q:collect()
 * for s1 in function() return q:collect() end do print(s1:values(s0)[1]); s0 = s1 end
 */
static int l_open_log(lua_State *L)
{
    static const char *const keys[] = { "from", "to", NULL };
    int64_t from = INT64_MIN, to = INT64_MAX;
    lua_settop(L, 2);
    size_t n = 1;
    if (lua_type(L, 1) == LUA_TTABLE) {
        n = (size_t)lua_rawlen(L, 1);
        luaL_argcheck(L, n > 0 && n <= PL_LOGSRC_MAX_FILES, 1, "a path or a non-empty list of paths expected");
        for (size_t k = 1; k <= n; k++) {
            lua_rawgeti(L, 1, (lua_Integer)k);
            luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 1, "a list of paths must hold strings");
            lua_pop(L, 1);
        }
    } else {
        luaL_argexpected(L, lua_type(L, 1) == LUA_TSTRING, 1, "string or table of strings");
    }
    if (!lua_isnil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lpl_check_keys(L, 2, keys, "open_log");
        from = lpl_opt_time(L, 2, "from", from, -1);
        to = lpl_opt_time(L, 2, "to", to, 1);
    }
    const char **paths = lua_newuserdatauv(L, n * sizeof *paths, 0);   /* freed by the GC */
    for (size_t k = 0; k < n; k++) {
        if (lua_type(L, 1) == LUA_TSTRING) {
            paths[k] = lua_tostring(L, 1);
        } else {
            lua_rawgeti(L, 1, (lua_Integer)k + 1);
            paths[k] = lua_tostring(L, -1);                /* the list keeps the string */
            lua_pop(L, 1);
        }
    }
    pl_env *env = NULL;
    char msg[1024];
    int e = pl_logsrc_open(paths, n, from, to, &env, msg, sizeof msg);
    if (e) {
        luaL_pushfail(L);
        lua_pushfstring(L, "open_log: %s", msg);
        lua_pushinteger(L, e);
        return 3;
    }
    lpl_machine *m = lua_newuserdatauv(L, sizeof *m, 1);   /* 1: as lmachine.c's */
    m->env = env;
    luaL_setmetatable(L, LPL_MACHINE);
    return 1;
}

static void set_time(lua_State *L, const char *key, int64_t t)
{
    if (t) {
        lua_pushnumber(L, (double)(t - LPL_UNIX_EPOCH_100NS) / 1e7);
        lua_setfield(L, -2, key);
    }
}

/***
 * What a machine of @{open_log} reads: `host` (where it was recorded),
 * `perflib` (the writer's version), `created`, `first` and `last` (Unix
 * seconds: the log's creation, its first and last sample, in the whole
 * files), `records`, `samples`, `files`, and `warning` (the torn tails left
 * out, or nil); nil for a live machine.
 * @function Machine:log
 * @treturn table|nil
 */
static int m_log(lua_State *L)
{
    lpl_machine *m = lpl_check_machine(L, 1);
    pl_logsrc_info info;
    if (!pl_logsrc_info_of(m->env, &info)) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 10);
    lua_pushstring(L, info.host);
    lua_setfield(L, -2, "host");
    lua_pushstring(L, info.perflib);
    lua_setfield(L, -2, "perflib");
    set_time(L, "created", info.created);
    set_time(L, "first", info.first);
    set_time(L, "last", info.last);
    lua_pushinteger(L, (lua_Integer)info.records);
    lua_setfield(L, -2, "records");
    lua_pushinteger(L, (lua_Integer)info.samples);
    lua_setfield(L, -2, "samples");
    lua_pushinteger(L, (lua_Integer)info.files);
    lua_setfield(L, -2, "files");
    if (info.warning) {
        lua_pushstring(L, info.warning);
        lua_setfield(L, -2, "warning");
    }
    return 1;
}

/* Sets open_log in the table on top and Machine:log (after lpl_open_machine). */
void lpl_open_openlog(lua_State *L)
{
    lua_pushcfunction(L, l_open_log);
    lua_setfield(L, -2, "open_log");
    luaL_getmetatable(L, LPL_MACHINE);
    lua_getfield(L, -1, "methods");
    lua_pushcfunction(L, m_log);
    lua_setfield(L, -2, "log");
    lua_pop(L, 2);
}
