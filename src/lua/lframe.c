/* Engine frames in one C call (perflib.core.frame, internal): what
 * lua/perflib/frame.lua's F.of builds for `perflua monitor`, `perflua
 * replay` and the recordings, without a Lua table per value read and
 * thrown away.  A backtest builds one per logged sample: a day is 86,400. */
#include "lpl.h"

#include <string.h>

/* { instances = {}, value = {}, status = {}, error = err } with the error at the top (popped). */
static void push_failed(lua_State *L)
{
    lua_createtable(L, 0, 4);
    lua_newtable(L);
    lua_setfield(L, -2, "instances");
    lua_newtable(L);
    lua_setfield(L, -2, "value");
    lua_newtable(L);
    lua_setfield(L, -2, "status");
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "error");
    lua_remove(L, -2);
}

/* The entry of block b: its first counter, formatted against s0 (cooked) or raw. */
static void push_entry(lua_State *L, const pl_sample *s1, const pl_block *b, const pl_sample *s0, int raw)
{
    static const pl_fmt fmt = { PL_FMT_NOCAP100, 0, 0 };
    lua_createtable(L, 0, 3);
    lua_createtable(L, (int)b->ninst, 0);
    lua_createtable(L, 0, (int)b->ninst);
    lua_createtable(L, 0, (int)b->ninst);                 /* entry, instances, value, status */
    for (uint32_t i = 0; i < b->ninst && b->ncounters > 0; i++) {
        const char *name = pl_sample_inst_name(s1, b, i);
        lua_pushstring(L, name);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -5, (lua_Integer)i + 1);
        lua_pushvalue(L, -1);                             /* name name */
        const char *st;
        if (raw) {
            size_t k = b->vals_off + (size_t)i * b->ncounters;
            int have = PL_HAVE_VALUE(s1->have[k]);
            if (have)
                lpl_pushint64(L, (int64_t)s1->vals[k].v);
            else
                lua_pushnil(L);
            st = have ? "valid" : "no_data";
        } else {
            double v = 0;
            pl_status status = pl_sample_format(s1, b, i, 0, s0, &fmt, &v);
            if (status == PL_VALID)
                lua_pushnumber(L, v);
            else
                lua_pushnil(L);
            st = pl_status_name(status);
        }
        lua_rawset(L, -5);                                /* value[name] */
        lua_pushstring(L, st);
        lua_rawset(L, -3);                                /* status[name] */
    }
    lua_setfield(L, -4, "status");
    lua_setfield(L, -3, "value");
    lua_setfield(L, -2, "instances");
}

/* core.frame(s1, s0, index, both): index[key] = { index = result, raw = bool }. */
int lpl_frame(lua_State *L)
{
    const pl_sample *s1 = lpl_check_sample(L, 1)->s;
    const pl_sample *s0 = lua_isnoneornil(L, 2) ? NULL : lpl_check_sample(L, 2)->s;
    luaL_checktype(L, 3, LUA_TTABLE);
    int both = lua_toboolean(L, 4);
    lua_settop(L, 4);
    lua_newtable(L);                                       /* 5: the frame */
    lua_pushnil(L);
    while (lua_next(L, 3)) {                               /* key at -2, { index =, raw = } at -1 */
        luaL_argcheck(L, lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1), 3, "{ [key] = { index = n } } expected");
        lua_getfield(L, -1, "index");
        lua_Integer ix = lua_tointeger(L, -1);
        luaL_argcheck(L, ix >= 1 && ix <= (lua_Integer)s1->nblocks, 3, "a result index out of range");
        lua_getfield(L, -2, "raw");
        int raw = lua_toboolean(L, -1);
        lua_pop(L, 2);
        const pl_block *b = &s1->blocks[ix - 1];
        lua_pushvalue(L, -2);                              /* the key */
        if (b->shape == PERF_ERROR_RETURN) {
            lpl_push_block_error(L, 1, b);
            push_failed(L);
        } else {
            push_entry(L, s1, b, s0, raw);
        }
        lua_rawset(L, 5);
        if (both) {
            lua_pushfstring(L, "raw:%s", lua_tostring(L, -2));
            if (b->shape == PERF_ERROR_RETURN) {
                lpl_push_block_error(L, 1, b);
                push_failed(L);
            } else {
                push_entry(L, s1, b, s0, 1);
            }
            lua_rawset(L, 5);
        }
        lua_pop(L, 1);
    }
    return 1;
}
