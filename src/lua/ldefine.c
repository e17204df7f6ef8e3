/***
 * Lua-defined and derived countersets: `perflib.define` (instances and
 * values from a Lua function) and `perflib.derive` (counters computed in C
 * from formulas over other counters).  Both add a set to one machine only
 * (pl_env_register): it is never in the process-wide registry, so no other
 * thread or lua_State can reach its callback.
 *
 * Lifetimes.  Each set's definition is owned by a userdata anchored to its
 * machine in an ephemeron table (machine -> owners): kept while the machine
 * lives.  Finalizers of one cycle run newest first, so a query made before
 * the set may be finalized after its owner: the definition is freed when
 * both its owner is finalized and no provider state is open on it.  The
 * callback lives on a thread of its own, referenced by the owner only, so
 * a callback that refers to its machine does not keep it alive.
 * @module perflib
 */
#include "derived.h"
#include "lpl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LPL_DEFINED "perflib.Defined"
#define LPL_DERIVED "perflib.Derived"
#define PERF_DOUBLE_RAW 0x00012000u
#define HOOK_COUNT 10000                 /* instructions between two looks at the clock */

typedef struct lpl_defined {
    pl_counterset_def def;
    pl_counter_def *counters;
    char **strings;                      /* owned: names and help texts */
    uint32_t nstrings;
    lua_State *T;                        /* slot 1: the callback; 2..n+1: counter names */
    int busy, timed_out;
    double timeout;
    struct timespec deadline;
    char msg[512];                       /* the snapshot's err_msg until the next collect */
    uint32_t nopen;                      /* provider states open on it */
    int released;                        /* its userdata finalized: freed when nopen is 0 */
} lpl_defined;

/* The userdata that owns a definition; uservalue 1: its thread. */
typedef struct lpl_defined_ud { lpl_defined *d; } lpl_defined_ud;

typedef struct lpl_derived_ud { pl_derived *d; } lpl_derived_ud;

/* The set whose callback runs, for the hook: coroutines the callback makes
 * inherit the hook, so their time counts too. */
static _Thread_local lpl_defined *running;

/* ---- anchoring to the machine -------------------------------------------------- */

/* Keeps the userdata at ui alive as long as the machine at mi: a list in the
 * machine's user value, which a callback that refers to its machine cannot
 * keep alive (a weak-keyed table could, on 5.1 and LuaJIT: no ephemerons). */
static void anchor(lua_State *L, int mi, int ui)
{
    mi = lua_absindex(L, mi);
    ui = lua_absindex(L, ui);
    if (lua_getiuservalue(L, mi, 1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, mi, 1);
    }
    lua_pushvalue(L, ui);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

/* The machine named by opts.machine (or the default one), pushed. */
static lpl_machine *opt_machine(lua_State *L, int t)
{
    lua_getfield(L, t, "machine");
    if (!lua_isnil(L, -1) && !luaL_testudata(L, -1, LPL_MACHINE))
        luaL_argerror(L, 1, "field 'machine' must be a Machine");
    int mi = lua_gettop(L);
    lpl_machine *m = lpl_opt_machine(L, lua_isnil(L, mi) ? lua_gettop(L) + 1 : mi);
    lua_remove(L, mi);
    return m;
}

static const char *opt_string(lua_State *L, int t, const char *k, const char *what)
{
    int ty = lua_getfield(L, t, k);
    const char *s = lua_tostring(L, -1);
    lua_pop(L, 1);                       /* the table keeps the string */
    if (ty != LUA_TNIL && ty != LUA_TSTRING)
        luaL_argerror(L, 1, lua_pushfstring(L, "%s must be a string", what));
    return ty == LUA_TSTRING ? s : NULL;
}

static void opt_guid(lua_State *L, int t, const char *name, const char *kind, pl_guid *g)
{
    const char *s = opt_string(L, t, "guid", "field 'guid'");
    if (!s)
        *g = pl_name_guid(kind, name);
    else if (pl_guid_parse(s, g) != 0)
        luaL_argerror(L, 1, "field 'guid' is not a GUID");
}

/* ---- the provider of perflib.define ----------------------------------------------- */

static void say(lpl_defined *d, const char *fmt, const char *a)
{
    snprintf(d->msg, sizeof d->msg, fmt, d->def.name, a);
}

static void hook(lua_State *T, lua_Debug *ar)
{
    struct timespec now;
    lpl_defined *d = running;
    (void)ar;
    if (!d)                              /* a coroutine the callback made, run later */
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > d->deadline.tv_sec ||
        (now.tv_sec == d->deadline.tv_sec && now.tv_nsec > d->deadline.tv_nsec)) {
        d->timed_out = 1;
        luaL_error(T, "collect ran longer than %f s", d->timeout);
    }
}

/* A Lua number as counter c's raw value (below 5.3 also the decimal string
 * of one beyond 2^53, lcompat.h); 0 when it is none (see define). */
static int to_raw(lua_State *T, int i, const pl_counter_def *c, uint64_t *out)
{
    const double lim = c->size == 4 ? 4294967296.0 : 18446744073709551616.0;
    int64_t n;
    if (lpl_toint64(T, i, &n) && c->type != PERF_DOUBLE_RAW) {
        if (n < 0 || (c->size == 4 && n > 0xFFFFFFFF))
            return 0;
        *out = (uint64_t)n;
        return 1;
    }
    if (lua_type(T, i) != LUA_TNUMBER)
        return 0;
    if (c->type == PERF_DOUBLE_RAW) {
        double v = lua_tonumber(T, i);
        memcpy(out, &v, sizeof v);
        return isfinite(v);
    }
    double r = round(lua_tonumber(T, i));    /* half away from zero */
    if (!(r >= 0.0 && r < lim))              /* NaN, inf, negative, too big */
        return 0;
    *out = (uint64_t)r;
    return 1;
}

/* The row (a table) at the top of T into instance inst: by position, else by name. */
static void take_row(lpl_defined *d, lua_State *T, pl_snapshot *snap, uint32_t inst)
{
    int row = lua_gettop(T);
    for (uint32_t c = 0; c < d->def.ncounters; c++) {
        uint64_t v;
        if (lua_rawgeti(T, row, (lua_Integer)c + 1) == LUA_TNIL) {
            lua_pop(T, 1);
            lua_pushvalue(T, 2 + (int)c);
            lua_rawget(T, row);
        }
        if (to_raw(T, -1, &d->counters[c], &v))
            pl_snap_set(snap, inst, c, v);
        lua_pop(T, 1);
    }
}

static uint32_t name_id(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h & 0x7FFFFFFFu;
}

/* The callback's result (at the top of T) into snap; 0 or EINVAL with d->msg. */
static int take(lpl_defined *d, lua_State *T, pl_snapshot *snap)
{
    int res = lua_gettop(T);
    if (!lua_istable(T, res)) {
        say(d, "collect of '%s' returned a %s, not a table", luaL_typename(T, res));
        return EINVAL;
    }
    if (d->def.instance_type == PERF_COUNTERSET_SINGLE_INSTANCE) {
        int i = pl_snap_add(snap, "", 0);
        if (i < 0)
            return ENOMEM;
        take_row(d, T, snap, (uint32_t)i);
        return 0;
    }
    lua_pushnil(T);
    while (lua_next(T, res)) {
        size_t n;
        const char *name = lua_type(T, -2) == LUA_TSTRING ? lua_tolstring(T, -2, &n) : NULL;
        if (!name || !n || strlen(name) != n || !lua_istable(T, -1)) {
            say(d, "collect of '%s' must return instance names (non-empty strings) with tables of "
                "values; it returned %s", !name ? luaL_typename(T, -2) : !lua_istable(T, -1)
                                          ? "a row that is not a table" : "a bad instance name");
            return EINVAL;
        }
        int i = pl_snap_add(snap, name, name_id(name));
        if (i < 0)
            return ENOMEM;
        take_row(d, T, snap, (uint32_t)i);
        lua_pop(T, 1);
    }
    return 0;
}

static int run(lpl_defined *d, pl_snapshot *snap)
{
    lua_State *T = d->T;
    int base = (int)d->def.ncounters + 1, e;
    lpl_defined *prev = running;
    clock_gettime(CLOCK_MONOTONIC, &d->deadline);
    d->deadline.tv_sec += (time_t)d->timeout;
    d->deadline.tv_nsec += (long)((d->timeout - floor(d->timeout)) * 1e9);
    if (d->deadline.tv_nsec >= 1000000000L) {
        d->deadline.tv_sec++;
        d->deadline.tv_nsec -= 1000000000L;
    }
    d->busy = 1;
    d->timed_out = 0;
    running = d;
    lua_settop(T, base);
    lua_pushvalue(T, 1);
    /* the timeout's count hook only while the callback runs: LuaJIT has one
     * hook for the whole VM, which must not stay armed after it */
    lua_Hook h0 = lua_gethook(T);
    int mask0 = lua_gethookmask(T), count0 = lua_gethookcount(T);
    lua_sethook(T, hook, LUA_MASKCOUNT, HOOK_COUNT);
    int rc = lua_pcall(T, 0, 1, 0);
    lua_sethook(T, h0, mask0, count0);
    running = prev;
    d->busy = 0;
    if (rc != LUA_OK) {
        say(d, "collect of '%s' failed: %s", lua_type(T, -1) == LUA_TSTRING ? lua_tostring(T, -1)
                                                                         : luaL_typename(T, -1));
        e = d->timed_out ? ETIMEDOUT : EIO;
    } else {
        e = take(d, T, snap);
    }
    lua_settop(T, base);
    return e;
}

static int def_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    lpl_defined *d = state;
    int e;
    (void)wanted;                        /* the callback gives whole rows */
    pl_snap_clear(snap);
    d->msg[0] = '\0';
    if (!d->T) {
        say(d, "'%s' was released%s", "");
        e = ECANCELED;
    } else if (d->busy) {
        say(d, "collect of '%s' called itself%s", "");
        e = EDEADLK;
    } else {
        e = run(d, snap);
    }
    if (e) {
        pl_snap_clear(snap);             /* nothing of a bad answer stays */
        snap->err_msg = e == ENOMEM ? NULL : d->msg;
    }
    return e;
}

static int def_instances(void *state, pl_snapshot *snap)
{
    return def_collect(state, NULL, snap);
}

static int def_open_set(pl_env *env, const pl_counterset_def *cs, void **state)
{
    lpl_defined *d = cs->provider_data;
    (void)env;
    d->nopen++;
    *state = d;
    return 0;
}

static void destroy(lpl_defined *d)
{
    for (uint32_t i = 0; d->strings && i < d->nstrings; i++)
        free(d->strings[i]);
    free(d->strings);
    free(d->counters);
    free(d);
}

/* A query its owner's finalizer outlived (finalizers of one cycle run
 * newest first) closes it last. */
static void def_close(void *state)
{
    lpl_defined *d = state;
    if (--d->nopen == 0 && d->released)
        destroy(d);
}

static const pl_provider_ops def_ops = { NULL, def_close, def_instances, def_collect, def_open_set, NULL };

/* ---- perflib.define ---------------------------------------------------------------- */

/* Idempotent, never raises. */
static int defined_gc(lua_State *L)
{
    lpl_defined_ud *u = luaL_checkudata(L, 1, LPL_DEFINED);
    lpl_defined *d = u->d;
    u->d = NULL;
    if (!d)
        return 0;
    d->T = NULL;                         /* the thread goes with the userdata's uservalue */
    d->released = 1;
    if (!d->nopen)
        destroy(d);
    return 0;
}

static const char *keep(lua_State *L, lpl_defined *d, const char *s)
{
    char *c = strdup(s ? s : "");
    if (!c)
        luaL_error(L, "define: out of memory");
    d->strings[d->nstrings++] = c;
    return c;
}

static uint32_t check_type(lua_State *L, int ci)
{
    int ty = lua_getfield(L, ci, "type"), ti = lua_gettop(L);
    lua_Integer t = PERF_COUNTER_LARGE_RAWCOUNT;
    if (ty == LUA_TSTRING) {
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        lua_getfield(L, -1, "perflib.core");             /* its table of type names */
        if (!lua_istable(L, -1) || lua_getfield(L, -1, "types") != LUA_TTABLE ||
            lua_getfield(L, -1, lua_tostring(L, ti)) != LUA_TNUMBER)
            luaL_argerror(L, 1, lua_pushfstring(L, "unknown counter type '%s'", lua_tostring(L, ti)));
        t = lua_tointeger(L, -1);
        lua_settop(L, ti);
    } else if (ty != LUA_TNIL) {
        t = lua_tointeger(L, -1);
        if (!lua_isinteger(L, -1) || t < 0 || t > 0xFFFFFFFF || !pl_type_known((uint32_t)t))
            luaL_argerror(L, 1, "a counter's type must be a type name or a known type number");
    }
    lua_pop(L, 1);
    return (uint32_t)t;
}

/* A counter table's `unit` and `semantics` (at ci) into c: names perflib
 * knows, and consistent with c's type. */
static void check_units(lua_State *L, int ci, pl_counter_def *c)
{
    const char *u = opt_string(L, ci, "unit", "a counter's unit");
    const char *sem = opt_string(L, ci, "semantics", "a counter's semantics");
    pl_unit_kind k;
    pl_semantics se;
    double scale;
    char why[200];
    if (u) {
        if (pl_unit_parse_scaled(u, &k, &scale))
            luaL_argerror(L, 1, lua_pushfstring(L, "counter '%s': unit '%s' is not a unit (bytes, seconds, "
                                                "count, percent, ... or KiB, ms, MHz ...)", c->name, u));
        c->unit = (uint8_t)k;
        c->unit_scale = scale;
    }
    if (sem) {
        if (pl_semantics_parse(sem, &se))
            luaL_argerror(L, 1, lua_pushfstring(L, "counter '%s': semantics '%s' is not counter, gauge or "
                                                "discrete", c->name, sem));
        c->semantics = (uint8_t)se;
    }
    pl_counter_def full = *c;
    pl_units_complete(&full);
    if (pl_units_check(&full, why, sizeof why))
        luaL_argerror(L, 1, lua_pushstring(L, why));
}

/* counters[i] of opts (the table at ci) into d; its name onto d->T's stack. */
static void check_counter(lua_State *L, lpl_defined *d, int ci, uint32_t i)
{
    static const char *const keys[] = { "name", "type", "help", "scale", "unit", "semantics", NULL };
    pl_counter_def *c = &d->counters[i];
    const char *name;
    if (!lua_istable(L, ci))
        luaL_argerror(L, 1, "each of 'counters' must be a table");
    lpl_check_keys(L, ci, keys, "define");
    name = opt_string(L, ci, "name", "a counter's name");
    if (!name || !*name)
        luaL_argerror(L, 1, "each counter needs a name");
    for (uint32_t j = 0; j < i; j++)
        if (strcasecmp(d->counters[j].name, name) == 0)
            luaL_argerror(L, 1, lua_pushfstring(L, "counter '%s' is defined twice", name));
    c->id = i;
    c->name = keep(L, d, name);
    c->help = keep(L, d, opt_string(L, ci, "help", "a counter's help"));
    c->type = check_type(L, ci);
    c->base_id = PL_NO_ID;
    c->detail = PERF_DETAIL_NOVICE;
    lua_getfield(L, ci, "scale");
    c->scale = (int32_t)luaL_optinteger(L, -1, 0);
    lua_pop(L, 1);
    luaL_argcheck(L, c->scale >= -10 && c->scale <= 10, 1, "a counter's scale must be from -10 to 10");
    c->size = (c->type & 0x300u) == PERF_SIZE_LARGE || c->type == PERF_DOUBLE_RAW ? 8 : 4;
    if (i && (c->type & 0x00070000u) == PERF_COUNTER_BASE)
        d->counters[i - 1].base_id = i;   /* a base serves the counter before it */
    check_units(L, ci, c);
    lua_pushstring(d->T, name);
}

/* Reads opts (at 1) into d; its thread gets the callback and counter names. */
static void check_define(lua_State *L, lpl_defined *d)
{
    const char *name = opt_string(L, 1, "name", "field 'name'"), *inst;
    uint32_t n;
    if (!name || !*name)
        luaL_argerror(L, 1, "field 'name' must be a non-empty string");
    if (lua_getfield(L, 1, "collect") != LUA_TFUNCTION)
        luaL_argerror(L, 1, "field 'collect' must be a function");
    lpl_interpreted(L, -1);
    lua_xmove(L, d->T, 1);
    inst = opt_string(L, 1, "instances", "field 'instances'");
    luaL_argcheck(L, !inst || !strcmp(inst, "single") || !strcmp(inst, "multiple"), 1,
                  "field 'instances' must be \"single\" or \"multiple\"");
    lua_getfield(L, 1, "timeout");
    d->timeout = luaL_optnumber(L, -1, 1.0);
    luaL_argcheck(L, d->timeout > 0 && d->timeout <= 3600, 1, "field 'timeout' must be from 0 to 3600 s");
    if (lua_getfield(L, 1, "counters") != LUA_TTABLE || (n = (uint32_t)lua_rawlen(L, -1)) == 0)
        luaL_argerror(L, 1, "field 'counters' must be a non-empty list");
    luaL_argcheck(L, n <= PL_MAX_COUNTER_ID + 1, 1, "too many counters");
    if (!(d->counters = calloc(n, sizeof *d->counters)) || !(d->strings = calloc(2 * n + 2, sizeof(char *))))
        luaL_error(L, "define: out of memory");
    luaL_checkstack(d->T, (int)n + 16, "define: too many counters");
    for (uint32_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        check_counter(L, d, lua_gettop(L), i);
        d->def.ncounters = i + 1;
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    opt_guid(L, 1, name, "perflib.define", &d->def.guid);
    d->def.name = keep(L, d, name);
    d->def.help = keep(L, d, opt_string(L, 1, "help", "field 'help'"));
    d->def.instance_type = inst && !strcmp(inst, "single") ? PERF_COUNTERSET_SINGLE_INSTANCE
                                                           : PERF_COUNTERSET_MULTI_INSTANCES;
    d->def.counters = d->counters;
    d->def.ops = &def_ops;
    d->def.provider_data = d;
}

/* Registers def on m; pushes the CounterSet (1) or fail, message, errno (3). */
static int publish(lua_State *L, lpl_machine *m, int mi, pl_counterset_def *def)
{
    int e;
    if (pl_env_find(m->env, def->name) || pl_env_find_guid(m->env, &def->guid)) {
        luaL_pushfail(L);
        lua_pushfstring(L, "counterset name or GUID of '%s' is taken on this machine", def->name);
        lua_pushinteger(L, EEXIST);
        return 3;
    }
    if (!(def->index = pl_env_free_index(m->env)))
        return lpl_fail(L, def->name, ENOSPC);
    if ((e = pl_env_register(m->env, def)) != 0)
        return lpl_fail(L, def->name, e);
    anchor(L, mi, -1);
    lpl_push_counterset(L, def, mi);
    return 1;
}

/* The class of a definition userdata: only a finalizer (made on first use). */
static void set_class(lua_State *L, const char *name, lua_CFunction gc)
{
    if (luaL_newmetatable(L, name)) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
}

/***
 * Adds to a machine a counterset whose instances and values come from a Lua
 * function, queryable like the others (paths, `Query:add`, rules, blocks,
 * `perflib.collect` strings).  It belongs to that machine only.
 *
 * `collect` runs inside each collect of a query that reads the set, on a
 * thread of its own, bounded by `timeout` seconds.  It returns, for a
 * `"multiple"` set, `{ [instance name] = row, ... }`; for a `"single"` one a
 * row.  A row gives each counter's value by position (`{ 3, 120 }`) or by
 * name (`{ Depth = 3 }`).  An error, a timeout, a call of the set from its
 * own callback, or a result of the wrong shape fails that set in that
 * collect (status `no_data`, the sentence in the result's `err_msg`); the
 * rest of the query goes on.  A value that is not a number, or that the
 * counter's type cannot hold, is absent (`no_data`): integer types take
 * integers from 0 (to 2^32-1 for 4-byte types, 2^64-1 for 8-byte ones) and
 * floats rounded half away from zero (NaN, infinities and what rounds out of
 * range are absent); `PERF_DOUBLE_RAW` takes any finite number as it is.
 * Before Lua 5.3 an integer beyond 2^53 is given as its decimal string, the
 * form `Sample:value` gives it; on LuaJIT `collect` runs in the interpreter
 * (compiled code would escape `timeout`, a count hook).
 * A counter of a base type (`PERF_RAW_BASE`, ...) is the base of the counter
 * just before it.
 * @function define
 * @tparam table opts `name`, `help`, `guid` (default: a UUIDv8 of the name),
 *   `instances` (`"multiple"`, the default, or `"single"`), `counters` (a
 *   list of `{ name =, type = (name or number, default
 *   `"PERF_COUNTER_LARGE_RAWCOUNT"`), help =, scale =, unit =, semantics = }`:
 *   unit a name -- "bytes", "seconds", "count", ... -- or a prefixed symbol --
 *   "KiB", "ms", "MHz" --, semantics "counter", "gauge" or "discrete"; both
 *   default to what the type implies and must agree with it), `collect` (a
 *   function), `timeout` (seconds, default 1), `machine` (default: this one)
 * @treturn[1] CounterSet
 * @return[2] nil when the name or GUID is taken on that machine
 * @treturn[2] string message
 * @treturn[2] int errno
 */
int lpl_define(lua_State *L)
{
    static const char *const keys[] = { "name", "help", "guid", "instances", "counters", "collect", "machine",
                                        "timeout", NULL };
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lpl_check_keys(L, 1, keys, "define");
    lpl_machine *m = opt_machine(L, 1);
    lpl_defined_ud *u = lua_newuserdatauv(L, sizeof *u, 1);
    u->d = NULL;
    set_class(L, LPL_DEFINED, defined_gc);
    lpl_defined *d = u->d = calloc(1, sizeof *d);
    if (!d)
        return luaL_error(L, "define: out of memory");
    d->T = lua_newthread(L);
    lua_setiuservalue(L, 3, 1);
    check_define(L, d);
    return publish(L, m, 2, &d->def);
}

static int derived_gc(lua_State *L)
{
    lpl_derived_ud *u = luaL_checkudata(L, 1, LPL_DERIVED);
    pl_derived_free(u->d);
    u->d = NULL;
    return 0;
}

/* opts.counters (at the top) as a list of pl_derived_counter, in a userdata pushed. */
static pl_derived_counter *check_derived_counters(lua_State *L, uint32_t *n)
{
    static const char *const keys[] = { "name", "formula", "help", "unit", "semantics", NULL };
    int li = lua_gettop(L);
    if (!lua_istable(L, li) || (*n = (uint32_t)lua_rawlen(L, li)) == 0)
        luaL_argerror(L, 1, "field 'counters' must be a non-empty list");
    luaL_argcheck(L, *n <= PL_MAX_COUNTER_ID + 1, 1, "too many counters");
    pl_derived_counter *c = lua_newuserdatauv(L, *n * sizeof *c, 0);
    for (uint32_t i = 0; i < *n; i++) {
        if (lua_rawgeti(L, li, (lua_Integer)i + 1) != LUA_TTABLE)
            luaL_argerror(L, 1, "each of 'counters' must be a table");
        lpl_check_keys(L, -1, keys, "derive");
        c[i].name = opt_string(L, -1, "name", "a counter's name");
        c[i].formula = opt_string(L, -1, "formula", "a counter's formula");
        c[i].help = opt_string(L, -1, "help", "a counter's help");
        c[i].unit = opt_string(L, -1, "unit", "a counter's unit");
        c[i].semantics = opt_string(L, -1, "semantics", "a counter's semantics");
        luaL_argcheck(L, c[i].name && *c[i].name && c[i].formula, 1, "each counter needs a name and a formula");
        lua_pop(L, 1);
    }
    return c;
}

/***
 * Adds to a machine a counterset of derived counters: each computed in C
 * from a formula over other counters of that machine (derived ones made
 * before included), evaluated at each collect over the formatted values of
 * an inner query the set keeps (two samples, for rates).  Formulas: decimal
 * numbers, `+ - * /`, unary minus, parentheses, `min(a, b)`, `max(a, b)` and
 * counter paths in brackets, `[\PhysicalDisk(*)\Disk Bytes/sec]`.
 * Instances: a path with a wildcard instance is joined by instance name (the
 * set's instances are those of the first such path); a path with a fixed
 * instance, or of a single-instance set, gives the same value to every
 * instance; without a wildcard path the set has a single instance.  Each
 * counter is `PERF_DOUBLE_RAW`, its raw value the result; an operand without
 * a valid value, a division by zero or an overflow leaves it absent
 * (`no_data`), never inf or NaN.
 * @function derive
 * @tparam table opts `name`, `help`, `guid` (default: a UUIDv8 of the name),
 *   `counters` (a list of `{ name =, formula =, help =, unit =, semantics = }`: a
 *   unit perflib knows -- "bytes", "seconds", "KiB", "ms" ... -- is the counter's
 *   declared unit, any other text only goes into its help; semantics "gauge" (the
 *   default), "counter" or "discrete"),
 *   `machine` (default: this one)
 * @treturn[1] CounterSet
 * @return[2] nil when a path names no counter of that machine, or the name
 *   or GUID is taken
 * @treturn[2] string message
 * @treturn[2] int errno
 */
int lpl_derive(lua_State *L)
{
    static const char *const keys[] = { "name", "help", "guid", "counters", "machine", NULL };
    char msg[512];
    uint32_t n;
    pl_guid g;
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lpl_check_keys(L, 1, keys, "derive");
    lpl_machine *m = opt_machine(L, 1);
    const char *name = opt_string(L, 1, "name", "field 'name'");
    luaL_argcheck(L, name && *name, 1, "field 'name' must be a non-empty string");
    opt_guid(L, 1, name, "perflib.derive", &g);
    lua_getfield(L, 1, "counters");
    pl_derived_counter *c = check_derived_counters(L, &n);
    lpl_derived_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->d = NULL;
    set_class(L, LPL_DERIVED, derived_gc);
    int e = pl_derived_new(m->env, name, opt_string(L, 1, "help", "field 'help'"), &g, c, n, &u->d, msg,
                           sizeof msg);
    if (e == EINVAL)
        luaL_argerror(L, 1, msg);
    if (e) {
        luaL_pushfail(L);
        lua_pushstring(L, msg[0] ? msg : strerror(e));
        lua_pushinteger(L, e);
        return 3;
    }
    anchor(L, 2, -1);
    lpl_push_counterset(L, pl_derived_def(u->d), 2);
    return 1;
}
