/***
 * CounterSets: the metadata of one counterset (name, GUID, help, instance
 * type, costly flag, counters) and its current instances.
 * @classmod CounterSet
 */
#include "lpl.h"

#include <string.h>

/* A counterset is its machine's: once the machine is released (a finalizer
 * can reach both afterwards), the counterset raises too. */
static lpl_counterset *check_cs(lua_State *L, int i)
{
    lpl_counterset *c = luaL_checkudata(L, i, LPL_COUNTERSET);
    lua_getiuservalue(L, i, 1);
    lpl_machine *m = luaL_testudata(L, -1, LPL_MACHINE);
    if (!m || !m->env)
        luaL_argerror(L, i, "attempt to use a counterset of a released machine");
    lua_pop(L, 1);
    return c;
}

void lpl_push_counterset(lua_State *L, const pl_counterset_def *cs, int mi)
{
    mi = lua_absindex(L, mi);
    lpl_counterset *c = lua_newuserdatauv(L, sizeof *c, 1);
    c->cs = cs;
    luaL_setmetatable(L, LPL_COUNTERSET);
    lua_pushvalue(L, mi);    /* pin the machine: it owns the registry */
    lua_setiuservalue(L, -2, 1);
}

static int countersets_iter(lua_State *L)
{
    lpl_machine *m = lpl_check_machine(L, lua_upvalueindex(1));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    const pl_counterset_def *cs = pl_env_counterset(m->env, (uint32_t)i);
    if (!cs)
        return 0;
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    lpl_push_counterset(L, cs, lua_upvalueindex(1));
    return 1;
}

int lpl_countersets(lua_State *L, int mi)
{
    lua_pushvalue(L, mi);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, countersets_iter, 2);
    return 1;
}

static const char *detail_name(uint32_t d)
{
    switch (d) {
    case PERF_DETAIL_NOVICE: return "novice";
    case PERF_DETAIL_ADVANCED: return "advanced";
    case PERF_DETAIL_EXPERT: return "expert";
    case PERF_DETAIL_WIZARD: return "wizard";
    default: return "unknown";
    }
}

void lpl_push_counter_info(lua_State *L, const pl_counterset_def *cs, const pl_counter_def *c)
{
    const char *tn = pl_type_name(c->type);
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, c->id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, c->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, c->help);
    lua_setfield(L, -2, "help");
    lua_pushinteger(L, (lua_Integer)c->type);
    lua_setfield(L, -2, "type");
    lua_pushstring(L, tn ? tn : "unknown");
    lua_setfield(L, -2, "type_name");
    lua_pushstring(L, detail_name(c->detail));
    lua_setfield(L, -2, "detail");
    lua_pushinteger(L, c->scale);
    lua_setfield(L, -2, "scale");
    lua_pushboolean(L, pl_counter_hidden(c));
    lua_setfield(L, -2, "hidden");
    lua_pushinteger(L, c->size == 4 ? 4 : 8);
    lua_setfield(L, -2, "size");
    lua_pushinteger(L, pl_counter_title_index(cs, c));
    lua_setfield(L, -2, "index");
    if (c->base_id != PL_NO_ID) {
        int b = pl_counter_index(cs, c->base_id);
        lua_pushinteger(L, c->base_id);
        lua_setfield(L, -2, "base_id");
        if (b >= 0) {
            lua_pushstring(L, cs->counters[b].name);
            lua_setfield(L, -2, "base");
        }
    }
}

/***
 * Fields: `name`, `guid`, `help`, `instance_type` ("single" or "multiple"),
 * `costly` (boolean), `counters` (array of counter tables with `id`, `name`,
 * `help`, `type`, `type_name`, `detail`, `scale`, `hidden`, `base_id`, `base`).
 * @table CounterSet
 */
static int cs_index(lua_State *L)
{
    const pl_counterset_def *cs = check_cs(L, 1)->cs;
    const char *k = luaL_checkstring(L, 2);
    char g[PL_GUID_STRLEN + 1];
    if (strcmp(k, "name") == 0)
        lua_pushstring(L, cs->name);
    else if (strcmp(k, "guid") == 0) {
        pl_guid_format(&cs->guid, g);
        lua_pushstring(L, g);
    } else if (strcmp(k, "help") == 0)
        lua_pushstring(L, cs->help);
    else if (strcmp(k, "instance_type") == 0)
        lua_pushstring(L, cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE ? "single" : "multiple");
    else if (strcmp(k, "costly") == 0)
        lua_pushboolean(L, cs->costly);
    else if (strcmp(k, "index") == 0)
        lua_pushinteger(L, cs->index);
    else if (strcmp(k, "counters") == 0) {
        lua_createtable(L, (int)cs->ncounters, 0);
        for (uint32_t i = 0; i < cs->ncounters; i++) {
            lpl_push_counter_info(L, cs, &cs->counters[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else {
        lua_getmetatable(L, 1);
        lua_getfield(L, -1, "methods");
        lua_getfield(L, -1, k);
    }
    return 1;
}

/***
 * One counter by name (case-insensitive) or id.
 * @function CounterSet:counter
 * @tparam string|int name_or_id
 * @treturn table|nil counter table
 */
static int cs_counter(lua_State *L)
{
    const pl_counterset_def *cs = check_cs(L, 1)->cs;
    int i;
    if (lua_isinteger(L, 2)) {
        lua_Integer id = lua_tointeger(L, 2);
        i = (id >= 0 && id <= 0xFFFFFFFF) ? pl_counter_index(cs, (uint32_t)id) : -1;
    } else {
        i = pl_counter_index_by_name(cs, luaL_checkstring(L, 2));
    }
    if (i < 0) {
        luaL_pushfail(L);
        return 1;
    }
    lpl_push_counter_info(L, cs, &cs->counters[i]);
    return 1;
}

/***
 * The current instances, without collecting values.
 * @function CounterSet:instances
 * @treturn[1] table array of `{name=, id=}` (one unnamed instance for single sets)
 * @return[2] nil
 * @treturn[2] string message
 * @treturn[2] int errno
 */
static int cs_instances(lua_State *L)
{
    const pl_counterset_def *cs = check_cs(L, 1)->cs;
    lpl_machine *m;
    pl_snapshot snap;
    int e;
    lua_getiuservalue(L, 1, 1);
    m = lpl_check_machine(L, -1);
    pl_snap_init(&snap, cs);
    e = pl_enum_instances(m->env, cs, &snap);
    if (e) {
        if (snap.err_msg) {                   /* a sentence that says it all (a plug-in's) */
            luaL_pushfail(L);
            lua_pushfstring(L, "%s: %s", cs->name, snap.err_msg);
            lua_pushinteger(L, e);
            pl_snap_free(&snap);
            return 3;
        }
        const char *what = snap.err_path ? lpl_push_path(L, m->env, snap.err_path) : cs->name;
        pl_snap_free(&snap);
        return lpl_fail(L, what, e);
    }
    lua_createtable(L, (int)snap.ninst, 0);
    for (uint32_t i = 0; i < snap.ninst; i++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, pl_snap_name(&snap, i));
        lua_setfield(L, -2, "name");
        lua_pushinteger(L, snap.inst[i].id);
        lua_setfield(L, -2, "id");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    pl_snap_free(&snap);
    return 1;
}

static int cs_tostring(lua_State *L)
{
    lua_pushfstring(L, LPL_COUNTERSET " (%s)", ((lpl_counterset *)luaL_checkudata(L, 1, LPL_COUNTERSET))->cs->name);
    return 1;
}

static int cs_len(lua_State *L)
{
    lua_pushinteger(L, check_cs(L, 1)->cs->ncounters);
    return 1;
}

static int cs_eq(lua_State *L)
{
    lpl_counterset *a = luaL_testudata(L, 1, LPL_COUNTERSET), *b = luaL_testudata(L, 2, LPL_COUNTERSET);
    lua_pushboolean(L, a && b && a->cs == b->cs);
    return 1;
}

void lpl_open_counterset(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__index", cs_index }, { "__tostring", cs_tostring }, { "__len", cs_len },
        { "__eq", cs_eq }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "counter", cs_counter }, { "instances", cs_instances }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_COUNTERSET, meta, NULL);
    luaL_getmetatable(L, LPL_COUNTERSET);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
}
