/* Remote machines: another host's `perflua serve` as a Machine.
 *
 * `perflib.machine{host = "h:port", token = ..., tls = false, cacert = nil,
 * timeout = 5}` reads the host's countersets once (GET /api/v1/countersets)
 * and gives a machine whose countersets, instances and queries are the
 * host's: each collect posts the counter paths of a set to its
 * /api/v1/query and reads the data block as untrusted input.  The same host
 * again gives the same definitions (kept for the process's life).
 *
 * A counter path that names a machine, `\\h:port\Set(inst)\Counter`, added to
 * a query of a local machine attaches that host's sets to the machine under
 * the names `\\h:port\Set` (the host's options come from
 * `perflib.remote_tokens[host]`: a token string, or a table of the options
 * above).  The functions are documented where they are reached: perflib.machine
 * (lperflib.c) and Query:add (lquery.c). */
#include "lpl.h"
#include "remote.h"

#include <errno.h>
#include <string.h>

#define TOKENS_KEY "perflib.remote_tokens"

/* The options in table t (host is the caller's); raises naming the field. */
static void remote_opts(lua_State *L, int t, pl_remote_opts *o)
{
    t = lua_absindex(L, t);
    if (lua_getfield(L, t, "token") != LUA_TNIL)
        o->token = luaL_checkstring(L, -1);    /* the table keeps the string */
    if (lua_getfield(L, t, "tls") != LUA_TNIL) {
        luaL_argexpected(L, lua_isboolean(L, -1), 1, "boolean for field 'tls'");
        o->tls = lua_toboolean(L, -1);
    }
    if (lua_getfield(L, t, "cacert") != LUA_TNIL)
        o->cacert = luaL_checkstring(L, -1);
    if (lua_getfield(L, t, "timeout") != LUA_TNIL) {
        o->timeout = luaL_checknumber(L, -1);
        luaL_argcheck(L, o->timeout > 0 && o->timeout <= 3600, 1, "timeout must be seconds in (0, 3600]");
    }
    lua_pop(L, 4);
}

/* Pushes the machine of the remote r. */
static void push_remote_machine(lua_State *L, pl_remote *r)
{
    lpl_machine *m = lua_newuserdatauv(L, sizeof *m, 1);   /* 1: as lmachine.c's */
    m->env = NULL;
    luaL_setmetatable(L, LPL_MACHINE);
    m->env = pl_remote_env(r);
}

int lpl_remote_machine(lua_State *L, int t)
{
    static const char *const keys[] = { "host", "token", "tls", "cacert", "timeout", NULL };
    pl_remote_opts o = { 0 };
    char msg[512];
    t = lua_absindex(L, t);
    lpl_check_keys(L, t, keys, "machine");
    lua_getfield(L, t, "host");
    o.host = luaL_checkstring(L, -1);
    remote_opts(L, t, &o);
    pl_remote *r = pl_remote_get(&o, msg, sizeof msg);
    if (!r) {
        int e = errno;
        if (e == EINVAL)
            return luaL_argerror(L, 1, msg);
        luaL_pushfail(L);
        lua_pushstring(L, msg);
        lua_pushinteger(L, e);
        return 3;
    }
    push_remote_machine(L, r);
    return 1;
}

int lpl_remote_attach(lua_State *L, pl_env *env, const char *host, char *msg, size_t size)
{
    pl_remote_opts o = { 0 };
    int top = lua_gettop(L);
    o.host = host;
    lua_getfield(L, LUA_REGISTRYINDEX, TOKENS_KEY);
    int t = lua_istable(L, -1) ? lua_getfield(L, -1, host) : LUA_TNIL;
    if (t == LUA_TSTRING)
        o.token = lua_tostring(L, -1);
    else if (t == LUA_TTABLE)
        remote_opts(L, -1, &o);
    else if (t != LUA_TNIL)
        luaL_error(L, "perflib.remote_tokens['%s'] must be a token string or a table of options", host);
    pl_remote *r = pl_remote_get(&o, msg, size);
    int e = r ? pl_remote_attach(r, env, msg, size) : errno;
    lua_settop(L, top);
    return e;
}

void lpl_open_remote(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, TOKENS_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, TOKENS_KEY);
    }
}
