/***
 * V1 plug-in providers: seed 002's Open / Collect / Close in a shared
 * object, each run in a host process of its own, each of its objects a
 * counterset.  `require "perflib"` loads the plug-ins of $PERFLIB_PLUGIN_DIR
 * (directories separated by ':'), or of /etc/perflib/plugins.d when that
 * variable is unset; @{load_plugins} loads more.  The file format, the
 * guards and the Perflib switches are in doc/plugins.md.
 * @module perflib
 */
#include "lpl.h"
#include "plugin.h"

#include <errno.h>
#include <string.h>

static void push_info(lua_State *L, const pl_plugin_info *in)
{
    lua_createtable(L, 0, 10);
    lua_pushstring(L, in->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, in->file);
    lua_setfield(L, -2, "file");
    lua_pushstring(L, in->library);
    lua_setfield(L, -2, "library");
    lua_pushstring(L, in->state_name);
    lua_setfield(L, -2, "state");
    lua_pushinteger(L, in->failures);
    lua_setfield(L, -2, "failures");
    lua_pushinteger(L, in->total_failures);
    lua_setfield(L, -2, "total_failures");
    lua_pushinteger(L, in->failure_limit);
    lua_setfield(L, -2, "failure_limit");
    lua_pushinteger(L, (lua_Integer)in->collects);
    lua_setfield(L, -2, "collects");
    if (in->error[0]) {
        lua_pushstring(L, in->error);
        lua_setfield(L, -2, "error");
    }
    lua_createtable(L, (int)in->nsets, 0);
    for (uint32_t k = 0; k < in->nsets; k++) {
        lua_pushstring(L, in->sets[k]->name);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, "countersets");
}

/***
 * The plug-ins loaded so far, in load order.
 * @function plugins
 * @treturn {table,...} each `{name=, file=, library=, state=, failures=,
 * total_failures=, failure_limit=, collects=, error=, countersets={names}}`;
 * state is "running", "disabled" (after failure_limit failures in a row;
 * failure_limit 0: never), "failed" (it could not load: error says why) or
 * "off" (Disable Performance Counters)
 */
int lpl_plugins(lua_State *L)
{
    uint32_t n = pl_plugin_count();
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        pl_plugin_info *in = lua_newuserdatauv(L, sizeof *in, 0);
        if (pl_plugin_info_get(i, in) != 0) {
            lua_pop(L, 1);
            break;
        }
        push_info(L, in);
        lua_remove(L, -2);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/***
 * Loads the plug-ins of a directory that are not loaded yet (its
 * `*.plugin` files, in name order, after its perflib.conf).  A plug-in that
 * cannot load is listed by @{plugins} as "failed" with the reason; only the
 * directory itself fails this call.  The default machine sees the new
 * countersets at once; a machine made before does not.
 * @function load_plugins
 * @tparam string dir
 * @treturn[1] true
 * @return[2] fail, message, errno
 */
int lpl_load_plugins(lua_State *L)
{
    const char *dir = luaL_checkstring(L, 1);
    char msg[512];
    luaL_argcheck(L, *dir, 1, "directory must not be empty");
    int e = pl_plugins_load(dir, msg, sizeof msg);
    if (e) {
        luaL_pushfail(L);
        lua_pushstring(L, msg[0] ? msg : strerror(e));
        lua_pushinteger(L, e);
        return 3;
    }
    lpl_opt_machine(L, 2);                /* syncs the default machine */
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * Enables a plug-in that was disabled after failures again.
 * @function reset_plugin
 * @tparam string name
 * @treturn[1] true
 * @return[2] fail, message, errno (no such plug-in, or it is not disabled)
 */
int lpl_reset_plugin(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    int e = pl_plugin_reset(name);
    if (e) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", name, e == ENOENT ? "no such plug-in" : "not disabled");
        lua_pushinteger(L, e);
        return 3;
    }
    lua_pushboolean(L, 1);
    return 1;
}
