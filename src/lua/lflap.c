/***
 * Flap histories (`perflib.Flap`): an alert's last condition bits and their
 * weighted share of changes, in C, so that the rule bank and the Lua engine
 * step the same history.
 * @module perflib.core
 */
#include "lpl.h"

#include <errno.h>
#include <string.h>

static pl_flap *check_flap(lua_State *L, int i)
{
    pl_flap *f = luaL_checkudata(L, i, LPL_FLAP);
    if (lpl_flap_released(f))
        luaL_argerror(L, i, "attempt to use a released flap history");
    return f;
}

pl_flap *lpl_test_flap(lua_State *L, int i)
{
    return luaL_testudata(L, i, LPL_FLAP);
}

/***
 * A new flap history of `window` bits, optionally filled with `bits` (oldest first).
 * @function flap
 * @tparam integer window
 * @tparam[opt] {boolean,...} bits
 * @treturn perflib.Flap
 */
int lpl_new_flap(lua_State *L)
{
    lua_Integer w = luaL_checkinteger(L, 1);
    luaL_argcheck(L, w >= 2 && w <= 1000000, 1, "window must be 2 to 1000000");
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    pl_flap *f = lua_newuserdatauv(L, sizeof *f, 0);
    memset(f, 0, sizeof *f);
    luaL_setmetatable(L, LPL_FLAP);
    if (pl_flap_init(f, (uint32_t)w))
        return luaL_error(L, "flap: %s", strerror(ENOMEM));
    if (lua_istable(L, 2)) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
        for (lua_Integer k = 1; k <= n; k++) {
            lua_rawgeti(L, 2, k);
            pl_flap_push(f, lua_toboolean(L, -1));
            lua_pop(L, 1);
        }
    }
    return 1;
}

/***
 * Pushes the condition bit; says what it means for an alert that is (or is not) flapping.
 * @function Flap:step
 * @tparam boolean bit
 * @tparam number high share at which flapping starts
 * @tparam number low share below which it ends
 * @tparam boolean flapping whether the alert is flapping now
 * @treturn number|nil the share (nil: fewer than two bits, unchanged)
 * @treturn string|nil "start", "end" or nil
 */
static int f_step(lua_State *L)
{
    pl_flap *f = check_flap(L, 1);
    int bit = lua_toboolean(L, 2);
    double high = luaL_checknumber(L, 3), low = luaL_checknumber(L, 4);
    int flapping = lua_toboolean(L, 5);
    double pct = 0.0;
    int has = pl_flap_peek(f, bit, &pct);
    pl_flap_commit(f, bit, has, pct);
    int ch = pl_flap_change(flapping, has, pct, high, low);
    if (has)
        lua_pushnumber(L, pct);
    else
        lua_pushnil(L);
    if (ch > 0)
        lua_pushliteral(L, "start");
    else if (ch < 0)
        lua_pushliteral(L, "end");
    else
        lua_pushnil(L);
    return 2;
}

/***
 * The bits, oldest first.
 * @function Flap:bits
 */
static int f_bits(lua_State *L)
{
    pl_flap *f = check_flap(L, 1);
    lua_createtable(L, (int)f->n, 0);
    for (uint32_t k = 0; k < f->n; k++) {
        lua_pushboolean(L, pl_flap_bit(f, k));
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 1;
}

/***
 * The share of the latest push with two bits or more (nil before).
 * @function Flap:pct
 */
static int f_pct(lua_State *L)
{
    pl_flap *f = check_flap(L, 1);
    if (f->has_pct)
        lua_pushnumber(L, f->pct);
    else
        lua_pushnil(L);
    return 1;
}

/***
 * Whether the history is full and without a change, its bits all `bit`:
 * pushing `bit` again changes nothing (share 0).
 * @function Flap:steady
 * @tparam boolean bit
 * @treturn boolean
 */
static int f_steady(lua_State *L)
{
    pl_flap *f = check_flap(L, 1);
    int bit = lua_toboolean(L, 2);
    lua_pushboolean(L, f->n == f->window && f->n > 0 && f->cnt == 0 && pl_flap_bit(f, f->n - 1) == bit);
    return 1;
}

static int f_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_flap(L, 1)->n);
    return 1;
}

/* Idempotent, never raises. */
static int f_gc(lua_State *L)
{
    pl_flap_free(luaL_checkudata(L, 1, LPL_FLAP));
    return 0;
}

static int f_tostring(lua_State *L)
{
    if (lpl_flap_released(luaL_checkudata(L, 1, LPL_FLAP))) {
        lua_pushliteral(L, "perflib.Flap (released)");
        return 1;
    }
    pl_flap *f = check_flap(L, 1);
    lua_pushfstring(L, "perflib.Flap (%d of %d bits, %d changes): %p", (int)f->n, (int)f->window, (int)f->cnt,
                    (void *)f);
    return 1;
}

void lpl_open_flap(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", f_gc }, { "__close", f_gc }, { "__len", f_len }, { "__tostring", f_tostring }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "step", f_step }, { "steady", f_steady }, { "bits", f_bits }, { "pct", f_pct }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_FLAP, meta, methods);
}
