/***
 * CounterSets: the metadata of one counterset (name, GUID, help, instance
 * type, costly flag, counters) and its current instances.
 * @module perflib
 */
/***
 * The Prometheus metric a counter is exported as: `perflib_<set>_<counter>`
 * in lower case, `%` as "percent", "/sec" dropped from a cumulative counter
 * (its raw value is exported, for rate()), every other run of characters
 * one `_`, the counter's base unit once at the end (`_bytes`, `_seconds`,
 * ...) and `_total` for cumulative counters; two counters of a set that would
 * share a name both take their id before the suffixes.
 * @function metric_name
 * @tparam string|table path_or_counter a counter path without wildcards, or a
 *   counter table (`cs:counter(...)`, `cs.counters[i]`)
 * @tparam[opt] Machine machine
 * @treturn[1] string the metric name
 * @treturn[1] string "counter" or "gauge"
 * @treturn[1] number the factor from the raw value to the metric's value
 * @return[2] nil when no such counter
 * @treturn[2] string message
 */

/***
 * A counterset: its metadata and its current instances; @{counterset} gives one.
 * @type CounterSet
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

/* unit, unit_scale, semantics, units_declared, formatted_unit and formatted
 * ({unit=, scale=, per=}) of c, into the table on top. */
static void push_units(lua_State *L, const pl_counter_def *c)
{
    static const char *const per[] = { NULL, "second", "op" };
    char txt[64];
    pl_units u;
    pl_counter_units(c, &u);
    lua_pushstring(L, pl_unit_name(u.kind));
    lua_setfield(L, -2, "unit");
    lua_pushnumber(L, u.scale);
    lua_setfield(L, -2, "unit_scale");
    lua_pushstring(L, pl_semantics_name(u.semantics));
    lua_setfield(L, -2, "semantics");
    lua_pushboolean(L, u.declared);
    lua_setfield(L, -2, "units_declared");
    pl_units_format(&u, txt, sizeof txt);
    lua_pushstring(L, txt);
    lua_setfield(L, -2, "formatted_unit");
    lua_createtable(L, 0, 3);
    lua_pushstring(L, pl_unit_name(u.fkind));
    lua_setfield(L, -2, "unit");
    lua_pushnumber(L, u.fscale);
    lua_setfield(L, -2, "scale");
    if ((unsigned)u.fper < 3 && per[u.fper]) {
        lua_pushstring(L, per[u.fper]);
        lua_setfield(L, -2, "per");
    }
    lua_setfield(L, -2, "formatted");
}

void lpl_push_counter_info(lua_State *L, const pl_counterset_def *cs, const pl_counter_def *c)
{
    const char *tn = pl_type_name(c->type);
    lua_createtable(L, 0, 18);
    lua_pushstring(L, cs->name);
    lua_setfield(L, -2, "counterset");
    push_units(L, c);
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
 * `counterset`, `help`, `type`, `type_name`, `detail`, `scale` (the display
 * power of ten), `hidden`, `base_id`, `base`, and the units: `unit` (of the
 * raw value: "bytes", "seconds", "count", "percent", "hertz", "celsius",
 * "kelvin", "watts", ..., "none"), `unit_scale` (raw x unit_scale = base
 * units), `semantics` ("counter": cumulative, "gauge", "discrete"),
 * `units_declared` (false when derived from the type), `formatted_unit` (the
 * formatted value's, as text: "bytes/s", "percent", "seconds/op", "MHz",
 * "" for counts) and `formatted` (`{unit=, scale=, per=}`, per "second" or
 * "op" or nil)).
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

/* nil and "no counter ... in 'Set'" for the name or id at arg: 2 results. */
int lpl_push_no_counter(lua_State *L, const pl_counterset_def *cs, int arg)
{
    luaL_pushfail(L);
    if (lua_isinteger(L, arg))
        lua_pushfstring(L, "no counter with id %I in '%s'", (lua_Integer)lua_tointeger(L, arg), cs->name);
    else
        lua_pushfstring(L, "no counter '%s' in '%s'", lua_tostring(L, arg), cs->name);
    return 2;
}

/***
 * One counter by name (case-insensitive) or id.
 * @function CounterSet:counter
 * @tparam string|int name_or_id
 * @treturn[1] table counter table
 * @return[2] nil when the set has no such counter
 * @treturn[2] string message
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
    if (i < 0)
        return lpl_push_no_counter(L, cs, 2);
    lpl_push_counter_info(L, cs, &cs->counters[i]);
    return 1;
}

/* The counter a path names ("\\Set(inst)\\Counter", no wildcards) on machine
 * mi, or a counter table's (`counterset` and `name` or `id`); NULL with a
 * message pushed when it names none. */
static const pl_counter_def *metric_counter(lua_State *L, lpl_machine *m, const pl_counterset_def **cs)
{
    const char *set, *name = NULL;
    lua_Integer id = -1;
    int i;
    if (lua_type(L, 1) == LUA_TSTRING) {
        const char *path = lua_tostring(L, 1);
        size_t n = strlen(path) + 1;
        char *buf = lua_newuserdatauv(L, n, 0);
        pl_spec_in in;
        if (pl_path_parse(path, buf, n, &in) || !in.counter)
            luaL_argerror(L, 1, lua_pushfstring(L, "'%s' is not a counter path", path));
        if (pl_has_wildcard(in.counter) || pl_has_wildcard(in.counterset))
            luaL_argerror(L, 1, "a metric is one counter's: no wildcards");
        set = in.counterset;
        name = in.counter;
    } else if (lua_type(L, 1) == LUA_TTABLE) {
        lua_getfield(L, 1, "counterset");
        lua_getfield(L, 1, "name");
        lua_getfield(L, 1, "id");
        set = lua_tostring(L, -3);
        name = lua_tostring(L, -2);
        id = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
        luaL_argcheck(L, lua_type(L, -3) == LUA_TSTRING && (name || id >= 0), 1,
                      "a counter table needs 'counterset' and 'name' or 'id'");
    } else {
        return (luaL_typeerror(L, 1, "counter path or counter table"), NULL);
    }
    if (!(*cs = pl_env_find(m->env, set)))
        return (lua_pushfstring(L, "no counterset '%s'", set), NULL);
    i = name ? pl_counter_index_by_name(*cs, name)
             : id <= 0xFFFFFFFF ? pl_counter_index(*cs, (uint32_t)id) : -1;
    if (i < 0)
        return (lua_pushfstring(L, "counterset '%s' has no counter '%s'", set,
                                name ? name : lua_pushfstring(L, "%d", (int)id)), NULL);
    return &(*cs)->counters[i];
}

/* perflib.metric_name: its LDoc comment is at the top of this file, outside
 * the CounterSet section. */
int lpl_metric_name(lua_State *L)
{
    lpl_machine *m;
    const pl_counterset_def *cs;
    const pl_counter_def *c;
    char name[PL_METRIC_NAME_MAX];
    pl_metric mt;
    lua_settop(L, 2);
    m = lpl_opt_machine(L, 2);       /* may push the default machine: kept on the stack */
    if (!(c = metric_counter(L, m, &cs))) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (pl_metric_name(cs, c, name, sizeof name, &mt))
        return luaL_error(L, "metric_name: the name of '%s' is longer than %d bytes", c->name,
                          PL_METRIC_NAME_MAX - 1);
    lua_pushstring(L, name);
    lua_pushstring(L, mt.type);
    lua_pushnumber(L, mt.factor);
    return 3;
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
