/***
 * Query handles, after PerfOpenQueryHandle / PerfAddCounters /
 * PerfDeleteCounters / PerfQueryCounterInfo / PerfQueryCounterData.
 *
 * Each specification added gets its own status: an unknown counterset or
 * counter is reported for that specification, never raised for the call.
 * @module perflib
 */
/***
 * A query: counter specifications and the samples collected for them.
 * (`Query:samples`, written in Lua, is listed with the functions above.)
 * @type Query
 */
#include "lpl.h"
#include "pl_suggest.h"
#include "pl_codes.h"

#include <errno.h>
#include <string.h>

static lpl_query *get_query(lua_State *L, int i)
{
    return luaL_checkudata(L, i, LPL_QUERY);
}

static lpl_query *check_open(lua_State *L, int i)
{
    lpl_query *q = get_query(L, i);
    if (!q->q)
        luaL_argerror(L, i, "attempt to use a closed query");
    if (q->busy)             /* from a perflib.define callback this collect runs */
        luaL_argerror(L, i, "attempt to use a query while it collects");
    return q;
}

int lpl_new_query(lua_State *L, int mi)
{
    lpl_machine *m = lpl_check_machine(L, mi);
    lpl_query *q;
    mi = lua_absindex(L, mi);
    q = lua_newuserdatauv(L, sizeof *q, 2);
    q->q = NULL;             /* closed until the handle exists */
    q->busy = q->closing = 0;
    luaL_setmetatable(L, LPL_QUERY);
    lua_pushvalue(L, mi);
    lua_setiuservalue(L, -2, 1);
    lpl_push_cache_new(L);   /* names and results its samples share (levaluate.c) */
    lua_setiuservalue(L, -2, 2);
    q->q = pl_query_new(m->env);
    if (!q->q)
        return lpl_fail(L, "query", errno);
    return 1;
}

/* The parts of " (did you mean 'name'?)", empty when there is no close name. */
#define DID_YOU_MEAN(s) (s) ? " (did you mean '" : "", (s) ? (s) : "", (s) ? "'?)" : ""

static void push_message(lua_State *L, pl_query *q, const pl_spec_in *in, pl_add_status st)
{
    const pl_counterset_def *cs = pl_env_find(pl_query_env(q), in->counterset);
    switch (st) {
    case PL_ADD_NO_SET:
    {
        const char *s = pl_suggest_counterset(pl_query_env(q), in->counterset);
        lua_pushfstring(L, "no counterset '%s'%s%s%s", in->counterset, DID_YOU_MEAN(s));
        break;
    }
    case PL_ADD_NO_COUNTER:
        if (in->counter) {
            /* a pattern that matches nothing is not a misspelled name */
            const char *s = cs && !strpbrk(in->counter, "*?") ? pl_suggest_counter(cs, in->counter) : NULL;
            lua_pushfstring(L, "no counter '%s' in '%s'%s%s%s", in->counter, cs ? cs->name : "?", DID_YOU_MEAN(s));
        } else
            lua_pushfstring(L, "no counter with id %d in '%s'", (int)in->counter_id, cs ? cs->name : "?");
        break;
    case PL_ADD_BAD_INSTANCE:
        if (cs && cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE)
            lua_pushfstring(L, "'%s' has a single instance: give no instance name", cs->name);
        else
            lua_pushfstring(L, "'%s' has multiple instances: name one, or use '*'", cs ? cs->name : "?");
        break;
    case PL_ADD_DUPLICATE:
        lua_pushliteral(L, "the query already has this specification");
        break;
    default:
        lua_pushliteral(L, "invalid specification");
    }
}

/* Reads a spec table at i into in (strings stay on the Lua stack owner). */
static void check_spec_table(lua_State *L, int i, pl_spec_in *in)
{
    static const char *const keys[] = { "counterset", "instance", "instance_id", "counter", "detail",
                                        NULL };
    static const char *const details[] = { "novice", "advanced", "expert", "wizard", NULL };
    memset(in, 0, sizeof *in);
    in->instance_id = PL_NO_ID;
    in->counter_id = PERF_WILDCARD_COUNTER;
    lpl_check_keys(L, i, keys, "add");
    if (lua_getfield(L, i, "counterset") != LUA_TSTRING)
        luaL_argerror(L, 2, "field 'counterset' must be a string (name or GUID)");
    in->counterset = lua_tostring(L, -1);
    lua_getfield(L, i, "instance");
    if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
        luaL_argerror(L, 2, "field 'instance' must be a string");
    in->instance = lua_tostring(L, -1);
    if (lua_getfield(L, i, "instance_id") != LUA_TNIL) {
        lua_Integer id = lua_tointeger(L, -1);
        if (!lua_isinteger(L, -1) || id < 0 || id >= 0xFFFFFFFF)
            luaL_argerror(L, 2, "field 'instance_id' must be an integer from 0 to 2^32-2");
        in->instance_id = (uint32_t)id;
    }
    lua_getfield(L, i, "counter");
    if (lua_isinteger(L, -1)) {
        lua_Integer id = lua_tointeger(L, -1);
        if (id < 0 || id > 0xFFFFFFFF)
            luaL_argerror(L, 2, "field 'counter' id out of range");
        in->counter_id = (uint32_t)id;
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        in->counter = lua_tostring(L, -1);
    } else if (!lua_isnil(L, -1)) {
        luaL_argerror(L, 2, "field 'counter' must be a name, a pattern or an id");
    }
    if (lua_getfield(L, i, "detail") != LUA_TNIL) {
        const char *d = lua_tostring(L, -1);
        int k = -1;
        for (int j = 0; d && lua_type(L, -1) == LUA_TSTRING && details[j]; j++)
            if (strcmp(d, details[j]) == 0)
                k = j;
        if (k < 0)
            luaL_argerror(L, 2, "field 'detail' must be \"novice\", \"advanced\", \"expert\" or \"wizard\"");
        in->detail = (uint32_t)(k + 1) * 100;
    }
    /* leave the values on the stack: in points into them */
}

/* A path naming a machine (\\host\Set...) whose sets this machine does not
 * hold yet: attaches them (lremote.c).  0, or pushes fail, message,
 * "no_machine", ERROR_BAD_NETPATH and returns 4. */
static int attach_machine(lua_State *L, lpl_query *q, const char *path, const pl_spec_in *in)
{
    char host[256], msg[512];
    pl_env *env = pl_query_env(q->q);
    if (!pl_path_machine(path, host, sizeof host) || pl_env_find(env, in->counterset))
        return 0;
    int e = lpl_remote_attach(L, env, host, msg, sizeof msg);
    if (e == ENOMEM)
        return luaL_error(L, "add: %s", msg);
    if (!e)
        return 0;
    luaL_pushfail(L);
    lua_pushfstring(L, "machine '%s': %s", host, msg);
    lua_pushliteral(L, "no_machine");
    lua_pushinteger(L, ERROR_BAD_NETPATH);      /* PDH_CSTATUS_NO_MACHINE's cause */
    return 4;
}

/* Adds the spec at index i; pushes index, "ok" or nil, message, status, code
 * (the message second, for assert). */
static int add_one(lua_State *L, lpl_query *q, int i)
{
    char buf[2048];
    pl_spec_in in;
    pl_add_status st = PL_ADD_OK;
    uint32_t index = 0;
    int top = lua_gettop(L), e;
    i = lua_absindex(L, i);
    if (lua_type(L, i) == LUA_TSTRING) {
        const char *path = lua_tostring(L, i);
        if (pl_path_parse(path, buf, sizeof buf, &in) != 0) {
            luaL_pushfail(L);
            lua_pushfstring(L, "bad counter path '%s': expected \\Counterset(instance)\\Counter", path);
            lua_pushstring(L, pl_add_status_name(PL_ADD_BAD_PATH));
            lua_pushinteger(L, pl_add_status_win32(PL_ADD_BAD_PATH));
            return 4;
        }
    } else if (lua_istable(L, i)) {
        check_spec_table(L, i, &in);
    } else {
        return luaL_argerror(L, 2, "specification must be a counter path or a table");
    }
    if (lua_type(L, i) == LUA_TSTRING && (e = attach_machine(L, q, lua_tostring(L, i), &in)) != 0)
        return e;
    e = pl_query_add(q->q, &in, &st, &index);
    if (e)
        return luaL_error(L, "add: %s", strerror(e));
    if (st == PL_ADD_OK) {
        lua_settop(L, top);
        lua_pushinteger(L, (lua_Integer)index + 1);
        lua_pushliteral(L, "ok");
        return 2;
    }
    push_message(L, q->q, &in, st);
    int msg = lua_gettop(L);
    luaL_pushfail(L);
    lua_pushvalue(L, msg);
    lua_pushstring(L, pl_add_status_name(st));
    lua_pushinteger(L, pl_add_status_win32(st));
    return 4;            /* the top four; the spec's strings below are dropped */
}

/***
 * Adds counter specifications.
 *
 * A specification is a counter path `\Counterset(instance)\Counter` (no
 * parentheses for single-instance sets; `*` and `?` wildcards in the instance
 * and counter), or a table `{counterset=, instance=, instance_id=, counter=}`
 * where `counter` is a name, a pattern or a numeric id (default: all).
 * @function Query:add
 * @param spec a path, a table, or an array of them
 * @treturn[1] int result index (1-based) of a single spec
 * @treturn[1] string "ok"
 * @return[2] nil when the spec was refused (so `assert(q:add(spec))` raises with the message)
 * @treturn[2] string message
 * @treturn[2] string status: "no_counterset", "no_counter", "bad_instance", "bad_path", "duplicate",
 *   "no_machine" (a path's `\\host:port` could not be read: down, refused token, not perflib)
 * @treturn[2] int Win32 status code (PerfAddCounters Status)
 * @return[3] for an array: an array of `{index=, status=, message=, code=}`
 */
static int q_add(lua_State *L)
{
    lpl_query *q = check_open(L, 1);
    int n;
    if (lua_istable(L, 2) && lua_rawlen(L, 2) > 0) {
        n = (int)lua_rawlen(L, 2);
        lua_createtable(L, n, 0);
        for (int k = 1; k <= n; k++) {
            int top = lua_gettop(L), r;
            lua_rawgeti(L, 2, k);
            r = add_one(L, q, -1);
            lua_createtable(L, 0, 4);
            if (r == 2) {
                lua_pushvalue(L, -3);
                lua_setfield(L, -2, "index");
                lua_pushvalue(L, -2);
                lua_setfield(L, -2, "status");
            } else {                     /* nil, message, status, code, then the table */
                lua_pushvalue(L, -4);
                lua_setfield(L, -2, "message");
                lua_pushvalue(L, -3);
                lua_setfield(L, -2, "status");
                lua_pushvalue(L, -2);
                lua_setfield(L, -2, "code");
            }
            lua_rawseti(L, top, k);
            lua_settop(L, top);
        }
        return 1;
    }
    luaL_argcheck(L, lua_type(L, 2) == LUA_TSTRING || lua_istable(L, 2), 2,
                  "specification must be a counter path or a table");
    return add_one(L, q, 2);
}

/***
 * Adds whole countersets by registry query string: "Global", "Costly" or a
 * list of title indexes ("1000 3000"), each as `\Set(*)\*`.
 * @function Query:add_sets
 * @tparam string what
 * @treturn int the result index of the first set added
 * @treturn int how many were added (sets already in the query are not added twice)
 * @treturn table indexes in the list that name no counterset
 */
static int q_add_sets(lua_State *L)
{
    lpl_query *q = check_open(L, 1);
    const char *what = luaL_checkstring(L, 2);
    pl_registry_sel *sel = lua_newuserdatauv(L, sizeof *sel, 0);
    uint32_t first, count;
    int e = pl_registry_parse(pl_query_env(q->q), what, sel);
    if (e || sel->kind != PL_REG_DATA)
        return luaL_argerror(L, 2, lua_pushfstring(L, "not a data query string: '%s'", what));
    if ((e = pl_query_add_sets(q->q, sel, &first, &count)) != 0)
        return luaL_error(L, "add_sets: %s", strerror(e));
    lua_pushinteger(L, (lua_Integer)first + 1);
    lua_pushinteger(L, count);
    lua_createtable(L, (int)sel->nunknown, 0);
    for (uint32_t k = 0; k < sel->nunknown; k++) {
        lua_pushinteger(L, sel->unknown[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 3;
}

/***
 * Removes the specification at a result index; later indexes move down.
 * An index the query does not have raises, as every out-of-range index does.
 * @function Query:delete
 * @tparam int index
 * @treturn boolean true
 */
static int q_delete(lua_State *L)
{
    lpl_query *q = check_open(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || i > (lua_Integer)pl_query_count(q->q))
        return luaL_argerror(L, 2, lua_pushfstring(L, "no specification #%I", (lua_Integer)i));
    pl_query_delete(q->q, (uint32_t)(i - 1));
    lua_pushboolean(L, 1);
    return 1;
}

static const char *shape_name(uint32_t shape)
{
    switch (shape) {
    case PERF_SINGLE_COUNTER: return "single_counter";
    case PERF_MULTIPLE_COUNTERS: return "multiple_counters";
    case PERF_MULTIPLE_INSTANCES: return "multiple_instances";
    case PERF_COUNTERSET: return "counterset";
    default: return "error";
    }
}

const char *lpl_shape_name(uint32_t shape);
const char *lpl_shape_name(uint32_t shape) { return shape_name(shape); }

/***
 * The specifications, in result order (PerfQueryCounterInfo).
 * @function Query:specs
 * @treturn table array of `{index=, path=, counterset=, instance=,
 *   instance_id=, counters=, shape=}`
 */
static int q_specs(lua_State *L)
{
    lpl_query *q = check_open(L, 1);
    uint32_t n = pl_query_count(q->q);
    lua_createtable(L, (int)n, 0);
    for (uint32_t i = 0; i < n; i++) {
        const pl_spec *s = pl_query_spec(q->q, i);
        lua_createtable(L, 0, 8);
        lua_pushinteger(L, (lua_Integer)i + 1);
        lua_setfield(L, -2, "index");
        lua_pushstring(L, s->path);
        lua_setfield(L, -2, "path");
        lua_pushstring(L, s->cs->name);
        lua_setfield(L, -2, "counterset");
        lua_pushstring(L, s->instance);
        lua_setfield(L, -2, "instance");
        if (s->instance_id != PL_NO_ID) {
            lua_pushinteger(L, s->instance_id);
            lua_setfield(L, -2, "instance_id");
        }
        lua_pushstring(L, shape_name(s->shape));
        lua_setfield(L, -2, "shape");
        lua_createtable(L, (int)s->ncounters, 0);
        for (uint32_t c = 0; c < s->ncounters; c++) {
            lua_pushstring(L, s->cs->counters[s->counters[c]].name);
            lua_rawseti(L, -2, (lua_Integer)c + 1);
        }
        lua_setfield(L, -2, "counters");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* Query:collect's upvalues: 1 the query metatable, 2 the sample metatable
 * (made after the query's: fetched on the first call). */
static lpl_query *collect_query(lua_State *L)
{
    lpl_query *q;
    if (lua_isnil(L, lua_upvalueindex(2))) {
        luaL_getmetatable(L, LPL_SAMPLE);
        lua_replace(L, lua_upvalueindex(2));
    }
    q = lpl_has_meta(L, 1, lua_upvalueindex(1));
    if (!q || !q->q || q->busy)
        q = check_open(L, 1);            /* raises with the reason */
    return q;
}

/***
 * Takes a timestamped sample of raw values of every specification.  With an
 * older sample of this query as argument, its memory is refilled when it is
 * big enough (the same object is returned, with new contents): a monitor
 * that keeps two samples and alternates allocates nothing per collection.
 * @function Query:collect
 * @tparam[opt] Sample reuse a sample of this query that is no longer needed
 * @treturn[1] Sample
 * @return[2] nil
 * @treturn[2] string message
 * @treturn[2] int errno
 */
static int q_collect(lua_State *L)
{
    lpl_query *q = collect_query(L);
    lpl_alloc a = { L, NULL, 0 };
    pl_sample *s;
    int e;
    if (!lua_isnoneornil(L, 2)) {
        a.reuse = lpl_has_meta(L, 2, lua_upvalueindex(2));
        luaL_argcheck(L, a.reuse != NULL, 2, "sample expected");
        luaL_argcheck(L, !a.reuse->s || a.reuse->s->query_id == pl_query_id(q->q), 2,
                      "sample from another query");
    }
    lua_settop(L, 2);
    q->busy = 1;
    e = pl_query_collect_with(q->q, lpl_sample_alloc, &a, &s);
    q->busy = 0;
    if ((e = lpl_collect_failed(L, q, e)) != 0)
        return e;
    if (a.reused) {
        a.reuse->s = s;                  /* the same object, new contents */
        lua_settop(L, 2);
        return 1;
    }
    lua_getiuservalue(L, 1, 1);          /* the machine, for the new sample (on top) */
    lua_insert(L, -2);
    lpl_sample_finish_meta(L, s, -2, lua_upvalueindex(2));
    lua_getiuservalue(L, 1, 2);          /* the query's names cache, shared */
    lua_setiuservalue(L, -2, 2);
    return 1;
}

int lpl_collect_failed(lua_State *L, lpl_query *q, int e)
{
    if (q->closing) {                    /* closed by a callback of its own collect */
        pl_query_free(q->q);
        q->q = NULL;
        return lpl_fail(L, "collect", ECANCELED);
    }
    if (e && pl_query_source_error(q->q)) {   /* a log: the end, or the record that failed */
        luaL_pushfail(L);
        lua_pushfstring(L, "collect: %s", pl_query_source_error(q->q));
        lua_pushinteger(L, e);
        return 3;
    }
    return e ? lpl_fail(L, "collect", e) : 0;
}

void lpl_query_sample(lua_State *L, int qi, pl_sample *s, int mi)
{
    qi = lua_absindex(L, qi);
    lpl_sample_finish(L, s, mi);         /* the userdata lpl_sample_alloc pushed */
    lua_getiuservalue(L, qi, 2);         /* the query's names cache, shared */
    lua_setiuservalue(L, -2, 2);
}

/***
 * Frees the query's counters and state now rather than at garbage
 * collection (also `__close` and `__gc`: one release, idempotent, never
 * raises).  Afterwards every method but `close` raises "attempt to use a
 * closed query"; a query closed while it collects is freed when that
 * collect ends.
 * @function Query:close
 */
static int q_close(lua_State *L)
{
    lpl_query *q = get_query(L, 1);
    if (q->busy) {
        q->closing = 1;      /* by a callback of its collect: freed when that ends */
        return 0;
    }
    if (q->q) {
        pl_query_free(q->q);
        q->q = NULL;
    }
    return 0;
}

/* A query being collected is reachable: the finalizer frees whatever the
 * flags say (a collect a memory error left). */
static int q_gc(lua_State *L)
{
    get_query(L, 1)->busy = 0;
    return q_close(L);
}

static int q_tostring(lua_State *L)
{
    lpl_query *q = get_query(L, 1);
    if (q->q)
        lua_pushfstring(L, LPL_QUERY " (%p)", (void *)q->q);
    else
        lua_pushliteral(L, LPL_QUERY " (closed)");
    return 1;
}

static int q_len(lua_State *L)
{
    lua_pushinteger(L, pl_query_count(check_open(L, 1)->q));
    return 1;
}

void lpl_open_query(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", q_gc }, { "__close", q_close }, { "__tostring", q_tostring },
        { "__len", q_len }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "add", q_add }, { "add_sets", q_add_sets }, { "delete", q_delete }, { "specs", q_specs },
        { "collect", q_collect }, { "close", q_close }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_QUERY, meta, methods);
    /* collect again, as a closure over the metatables it checks */
    luaL_getmetatable(L, LPL_QUERY);
    lua_getfield(L, -1, "__index");
    lua_pushvalue(L, -2);
    lua_pushnil(L);
    lua_pushcclosure(L, q_collect, 2);
    lua_setfield(L, -2, "collect");
    lua_pop(L, 2);
}
