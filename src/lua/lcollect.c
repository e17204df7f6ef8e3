/***
 * Registry-style collection and title indexes, after RegQueryValueEx on
 * HKEY_PERFORMANCE_DATA: perflib.collect (the query-string form, which
 * does several jobs) and one clearly named function per job
 * (collect_sets, collect_block, metadata, counter_names, help_texts,
 * counter_units), and the title-index lookups (lookup, index_of).
 * @module perflib
 */
#include "lpl.h"

#include <errno.h>
#include <string.h>

/* The metadata of one counterset as a table (registry Metadata* results). */
static void push_metadata(lua_State *L, const pl_counterset_def *cs)
{
    char g[PL_GUID_STRLEN + 1];
    pl_guid_format(&cs->guid, g);
    lua_createtable(L, 0, 9);
    lua_pushstring(L, cs->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, g);
    lua_setfield(L, -2, "guid");
    lua_pushstring(L, cs->help);
    lua_setfield(L, -2, "help");
    lua_pushinteger(L, cs->index);
    lua_setfield(L, -2, "index");
    lua_pushinteger(L, cs->index + 1);
    lua_setfield(L, -2, "help_index");
    lua_pushstring(L, cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE ? "single" : "multiple");
    lua_setfield(L, -2, "instance_type");
    lua_pushboolean(L, cs->costly);
    lua_setfield(L, -2, "costly");
    lua_createtable(L, (int)cs->ncounters, 0);
    for (uint32_t i = 0; i < cs->ncounters; i++) {
        lpl_push_counter_info(L, cs, &cs->counters[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "counters");
}

static void push_metadata_list(lua_State *L, const pl_registry_sel *sel)
{
    lua_createtable(L, (int)sel->nsets, 0);
    for (uint32_t k = 0; k < sel->nsets; k++) {
        push_metadata(L, sel->sets[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

/* The "Counter 009" (help = 0) or "Help 009" (help = 1) table. */
static void push_titles(lua_State *L, const pl_env *env, int help)
{
    lua_Integer last = 0;
    lua_newtable(L);
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
        const pl_counterset_def *cs = pl_env_counterset(env, k);
        lua_pushstring(L, help ? cs->help : cs->name);
        lua_rawseti(L, -2, (lua_Integer)cs->index + help);
        last = cs->index > last ? cs->index : last;
        for (uint32_t i = 0; i < cs->ncounters; i++) {
            const pl_counter_def *c = &cs->counters[i];
            lua_Integer t = (lua_Integer)pl_counter_title_index(cs, c);
            lua_pushstring(L, help ? c->help : c->name);
            lua_rawseti(L, -2, t + help);
            last = t > last ? t : last;
        }
    }
    if (!help) {                          /* as Windows' table and the C API's: 1 -> the highest index */
        lua_pushfstring(L, "%I", last);
        lua_rawseti(L, -2, 1);
    }
}

/* The "Units 009" table: counter name index -> units line, as the V1 value. */
static void push_units(lua_State *L, const pl_env *env)
{
    char line[512];
    lua_newtable(L);
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
        const pl_counterset_def *cs = pl_env_counterset(env, k);
        for (uint32_t i = 0; i < cs->ncounters; i++) {
            pl_units_describe(cs, &cs->counters[i], line, sizeof line);
            lua_pushstring(L, line);
            lua_rawseti(L, -2, (lua_Integer)pl_counter_title_index(cs, &cs->counters[i]));
        }
    }
}

/* opts at index i of collect / collect_block: whether a V1 block is asked
 * for (always for collect_block) and whether it is metadata only. */
static int block_opts(lua_State *L, int i, int always, int *metadata)
{
    int v1 = always;
    if (lua_isnoneornil(L, i))
        return v1;
    luaL_checktype(L, i, LUA_TTABLE);
    if (!always) {
        lua_getfield(L, i, "v1");
        v1 = lua_toboolean(L, -1);
        lua_pop(L, 1);
    } else {
        static const char *const keys[] = { "metadata", "system", NULL };
        lpl_check_keys(L, i, keys, "collect_block");
        lua_getfield(L, i, "metadata");
        *metadata = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    lua_getfield(L, i, "system");      /* checked before any I/O, by the rules of s:block */
    if (!lua_isnil(L, -1) && !lua_isstring(L, -1))
        luaL_argerror(L, i, "opts.system must be a string");
    if (!lua_isnil(L, -1) && !v1)
        luaL_argerror(L, i, "opts.system needs opts.v1 (V2 samples carry no system name)");
    lua_pop(L, 1);
    return v1;
}

/* Collects the selected sets in a new query: the Sample (or, block >= 0,
 * its V1 block string, metadata-only when block is 1), the Query and the
 * unknown indexes.  Options (opts.system) are at index 3. */
static int collect_sets(lua_State *L, int mi, const pl_registry_sel *sel, int block)
{
    uint32_t first, count;
    int e;
    lpl_new_query(L, mi);
    int qi = lua_gettop(L);
    lpl_query *q = lua_touserdata(L, qi);
    if (!q || !q->q)
        return 3;                    /* lpl_new_query pushed nil, message, errno */
    if ((e = pl_query_add_sets(q->q, sel, &first, &count)) != 0)
        return lpl_fail(L, "collect", e);
    lua_getfield(L, qi, "collect");
    lua_pushvalue(L, qi);
    lua_call(L, 1, 3);
    if (lua_isnil(L, -3))
        return 3;
    lua_pop(L, 2);
    if (block >= 0) {                /* s:block{v1 = true, metadata = ..., system = opts.system} */
        lua_getfield(L, -1, "block");
        lua_insert(L, -2);
        lua_createtable(L, 0, 3);
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "v1");
        lua_pushboolean(L, block);
        lua_setfield(L, -2, "metadata");
        if (lua_istable(L, 3)) {
            lua_getfield(L, 3, "system");
            lua_setfield(L, -2, "system");
        }
        lua_call(L, 2, 1);
    }
    lua_pushvalue(L, qi);
    lua_createtable(L, (int)sel->nunknown, 0);
    for (uint32_t k = 0; k < sel->nunknown; k++) {
        lua_pushinteger(L, sel->unknown[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 3;
}

/* Parses the query string at index 1 for the machine pushed last (its
 * index is returned in *mi); kinds outside `allowed` (a bit per kind)
 * raise, naming fname and the function that does that job. */
static pl_registry_sel *parse_what(lua_State *L, lpl_machine *m, unsigned allowed, const char *fname, int *mi)
{
    static const char *const job[] = {
        [PL_REG_DATA] = "perflib.collect_sets", [PL_REG_METADATA] = "perflib.metadata",
        [PL_REG_NAMES] = "perflib.counter_names", [PL_REG_HELP] = "perflib.help_texts",
        [PL_REG_UNITS] = "perflib.counter_units",
    };
    const char *what = luaL_checkstring(L, 1);
    *mi = lua_gettop(L);
    pl_registry_sel *sel = lua_newuserdatauv(L, sizeof *sel, 0);
    int e = pl_registry_parse(m->env, what, sel);
    if (e == EINVAL)
        luaL_argerror(L, 1, lua_pushfstring(L, "not a registry query string: '%s'", what));
    if (e) {
        lpl_fail(L, fname, e);
        lua_error(L);                /* unreachable in practice: parsing does no I/O */
    }
    if (!(allowed & (1u << sel->kind)))
        luaL_argerror(L, 1, lua_pushfstring(L, "'%s' is not for %s: use %s", what, fname, job[sel->kind]));
    return sel;
}

/* (what, machine-or-opts, opts) -> (what, machine, opts); returns the machine. */
static lpl_machine *machine_and_opts(lua_State *L)
{
    lua_settop(L, 3);
    if (lua_istable(L, 2)) {
        lua_copy(L, 2, 3);
        lua_pushnil(L);
        lua_replace(L, 2);
    }
    return lpl_opt_machine(L, 2);
}

#define DATA_KINDS ((1u << PL_REG_DATA) | (1u << PL_REG_METADATA))

/***
 * Collection by registry query string, after RegQueryValueEx on
 * HKEY_PERFORMANCE_DATA: "Global" (every counterset not marked costly),
 * "Costly" (the costly ones), a list of counterset title indexes ("1000
 * 3000"; Thread brings Process along), "MetadataGlobal" / "MetadataCostly"
 * (definitions only: no instance data and no I/O), "Counter 009" and
 * "Help 009" (the title index tables; every language id gives the English
 * ones, the only ones, as Windows falls back to English), and perflib's
 * "Units 009" (each counter's name index -> its units line, as the V1 C
 * API's "Units" value: "unit=bytes scale=1024 semantics=gauge ...").
 * `opts.v1 = true` returns the data and metadata collections as the
 * PERF_DATA_BLOCK string RegQueryValueEx would (the metadata form collects
 * a sample for it); `opts.system` names the system in it.  Each of these
 * jobs also has a function of its own: `collect_sets`, `collect_block`,
 * `metadata`, `counter_names`, `help_texts`, `counter_units`.
 * @function collect
 * @tparam string what
 * @tparam[opt] Machine machine (or opts in its place)
 * @tparam[opt] table opts `v1`, `system`
 * @return for data: a Sample (with `v1`: its V1 block string), the Query
 *   that took it (collect again for rates), and the list of indexes that
 *   named no counterset; for metadata: an array of counterset tables (with
 *   `v1`: the metadata-only V1 block string); for the name tables: a table
 *   index -> text (the names with [1] = the highest index, as Windows' table;
 *   the units lines by counter name index)
 */
static int l_collect(lua_State *L)
{
    luaL_checkstring(L, 1);
    lpl_machine *m = machine_and_opts(L);
    int mi, metadata = 0;
    int v1 = block_opts(L, 3, 0, &metadata);
    pl_registry_sel *sel = parse_what(L, m, ~0u, "collect", &mi);
    if (v1 && !(DATA_KINDS & (1u << sel->kind)))
        return luaL_error(L, "collect: opts.v1 is for data and metadata collections, not name tables");
    switch (sel->kind) {
    case PL_REG_METADATA:
        if (v1)
            return collect_sets(L, mi, sel, 1);
        push_metadata_list(L, sel);
        return 1;
    case PL_REG_NAMES:
    case PL_REG_HELP:
        push_titles(L, m->env, sel->kind == PL_REG_HELP);
        return 1;
    case PL_REG_UNITS:
        push_units(L, m->env);
        return 1;
    default:
        return collect_sets(L, mi, sel, v1 ? 0 : -1);
    }
}

/***
 * Collects countersets in a new query: "Global" (every counterset not marked
 * costly), "Costly", or a list of counterset title indexes ("1000 3000").
 * `perflib.collect(which)` for these strings.
 * @function collect_sets
 * @tparam string which
 * @tparam[opt] Machine machine
 * @treturn[1] Sample the sample
 * @treturn[1] Query the query that took it (collect it again for rates)
 * @treturn[1] {int,...} the indexes in `which` that name no counterset
 * @return[2] nil, message, errno
 */
static int l_collect_sets(lua_State *L)
{
    int mi;
    lua_settop(L, 2);
    lpl_machine *m = lpl_opt_machine(L, 2);
    pl_registry_sel *sel = parse_what(L, m, 1u << PL_REG_DATA, "collect_sets", &mi);
    return collect_sets(L, mi, sel, -1);
}

/***
 * Collects countersets as the V1 PERF_DATA_BLOCK string RegQueryValueEx
 * returns: `which` as for `collect_sets` ("MetadataGlobal" and
 * "MetadataCostly" too, for the definitions-only block).
 * @function collect_block
 * @tparam string which
 * @tparam[opt] Machine machine (or opts in its place)
 * @tparam[opt] table opts `metadata` (boolean: definitions only, no instance
 *   data), `system` (the system name written in the block)
 * @treturn[1] string the block
 * @treturn[1] Query the query that took it
 * @treturn[1] {int,...} the indexes in `which` that name no counterset
 * @return[2] nil, message, errno
 */
static int l_collect_block(lua_State *L)
{
    int mi, metadata = 0;
    luaL_checkstring(L, 1);
    lpl_machine *m = machine_and_opts(L);
    block_opts(L, 3, 1, &metadata);
    pl_registry_sel *sel = parse_what(L, m, DATA_KINDS, "collect_block", &mi);
    return collect_sets(L, mi, sel, metadata || sel->kind == PL_REG_METADATA);
}

/***
 * The definitions of countersets, without collecting: `which` is "Global",
 * "Costly", a list of title indexes, or "MetadataGlobal" / "MetadataCostly".
 * No I/O.
 * @function metadata
 * @tparam string which
 * @tparam[opt] Machine machine
 * @treturn {table,...} one table per counterset: `name`, `help`, `guid`,
 *   `index`, `help_index`, `instance_type` ("single" or "multiple"),
 *   `costly`, `counters` (as `CounterSet:counter`)
 */
static int l_metadata(lua_State *L)
{
    int mi;
    lua_settop(L, 2);
    lpl_machine *m = lpl_opt_machine(L, 2);
    push_metadata_list(L, parse_what(L, m, DATA_KINDS, "metadata", &mi));
    return 1;
}

/***
 * The counter name table ("Counter 009"): title index -> name of every
 * counterset and counter, and [1] = the highest index as a string, as
 * Windows' table.
 * @function counter_names
 * @tparam[opt] Machine machine
 * @treturn table
 */
static int l_counter_names(lua_State *L)
{
    push_titles(L, lpl_opt_machine(L, 1)->env, 0);
    return 1;
}

/***
 * The help text table ("Help 009"): help index (name index + 1) -> help
 * text of every counterset and counter.
 * @function help_texts
 * @tparam[opt] Machine machine
 * @treturn table
 */
static int l_help_texts(lua_State *L)
{
    push_titles(L, lpl_opt_machine(L, 1)->env, 1);
    return 1;
}

/***
 * The units table ("Units 009", the V1 C API's "Units" value): counter name
 * index -> its units line ("unit=bytes scale=1024 semantics=gauge ...").
 * @function counter_units
 * @tparam[opt] Machine machine
 * @treturn table
 */
static int l_counter_units(lua_State *L)
{
    push_units(L, lpl_opt_machine(L, 1)->env);
    return 1;
}

/***
 * What a title index names.
 * @function lookup
 * @tparam int index
 * @tparam[opt] Machine machine
 * @treturn[1] table `{index=, counterset=, counter=, help=boolean, text=}`
 * @return[2] nil when the index names nothing
 * @treturn[2] string message
 */
static int l_lookup(lua_State *L)
{
    lua_Integer idx = luaL_checkinteger(L, 1);
    lpl_machine *m;
    lua_settop(L, 2);
    m = lpl_opt_machine(L, 2);
    const pl_counterset_def *cs;
    const pl_counter_def *c;
    int help;
    if (idx < 0 || idx > 0xFFFFFFFF || pl_env_lookup_index(m->env, (uint32_t)idx, &cs, &c, &help)) {
        luaL_pushfail(L);
        lua_pushfstring(L, "no counterset or counter has title index %I", (lua_Integer)idx);
        return 2;
    }
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, idx);
    lua_setfield(L, -2, "index");
    lua_pushstring(L, cs->name);
    lua_setfield(L, -2, "counterset");
    if (c) {
        lua_pushstring(L, c->name);
        lua_setfield(L, -2, "counter");
    }
    lua_pushboolean(L, help);
    lua_setfield(L, -2, "help");
    lua_pushstring(L, c ? (help ? c->help : c->name) : (help ? cs->help : cs->name));
    lua_setfield(L, -2, "text");
    return 1;
}

/***
 * The title index of a counterset name, or of a counter name in a counterset.
 * @function index_of
 * @tparam string counterset name or GUID
 * @tparam[opt] string|int counter name or id
 * @tparam[opt] Machine machine
 * @treturn[1] int
 * @return[2] nil when there is no such counterset or counter
 * @treturn[2] string message
 */
static int l_index_of(lua_State *L)
{
    const char *set = luaL_checkstring(L, 1);
    lpl_machine *m;
    lua_settop(L, 3);
    m = lpl_opt_machine(L, 3);
    const pl_counterset_def *cs = pl_env_find(m->env, set);
    int i;
    if (!cs) {
        luaL_pushfail(L);
        lua_pushfstring(L, "no counterset '%s'", set);
        return 2;
    }
    if (lua_isnoneornil(L, 2)) {
        lua_pushinteger(L, cs->index);
        return 1;
    }
    if (lua_isinteger(L, 2)) {
        lua_Integer id = lua_tointeger(L, 2);
        i = id >= 0 && id <= 0xFFFFFFFF ? pl_counter_index(cs, (uint32_t)id) : -1;
    } else {
        i = pl_counter_index_by_name(cs, luaL_checkstring(L, 2));
    }
    if (i >= 0) {
        lua_pushinteger(L, pl_counter_title_index(cs, &cs->counters[i]));
        return 1;
    }
    return lpl_push_no_counter(L, cs, 2);
}

static const luaL_Reg funcs[] = {
    { "collect", l_collect },
    { "collect_sets", l_collect_sets },
    { "collect_block", l_collect_block },
    { "metadata", l_metadata },
    { "counter_names", l_counter_names },
    { "help_texts", l_help_texts },
    { "counter_units", l_counter_units },
    { "lookup", l_lookup },
    { "index_of", l_index_of },
    { NULL, NULL }
};

void lpl_open_collect(lua_State *L)
{
    luaL_setfuncs(L, funcs, 0);
}
