/***
 * Machines: a view of /proc and /sys below a root directory.
 *
 * The default machine is this one (root "/"); others read fixture trees or a
 * container's mounted /proc.  Queries and countersets pin their machine.
 * @module perflib
 */
/***
 * A machine: the root its countersets are read below; @{machine} makes one.
 * @type Machine
 */
#include "lpl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_KEY "perflib.default_machine"

lpl_machine *lpl_check_machine(lua_State *L, int i)
{
    lpl_machine *m = luaL_checkudata(L, i, LPL_MACHINE);
    if (!m->env)             /* finalized, then reached again from another finalizer */
        luaL_argerror(L, i, "attempt to use a released machine");
    return m;
}

static lpl_machine *push_machine(lua_State *L, const char *root)
{
    lpl_machine *m = lua_newuserdatauv(L, sizeof *m, 1);   /* 1: the sets perflib.define anchors to it */
    m->env = NULL;           /* safe empty state first */
    luaL_setmetatable(L, LPL_MACHINE);
    m->env = pl_env_new(root);
    if (!m->env)
        luaL_error(L, "cannot create machine: %s", strerror(errno));
    return m;
}

lpl_machine *lpl_opt_machine(lua_State *L, int i)
{
    if (!lua_isnoneornil(L, i)) {
        lpl_machine *m = lpl_check_machine(L, i);
        lua_pushvalue(L, i);
        return m;
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, DEFAULT_KEY) == LUA_TUSERDATA) {
        lpl_machine *m = lua_touserdata(L, -1);
        pl_env_sync(m->env);              /* sets registered since (plug-ins); a clash keeps its own */
        return m;
    }
    lua_pop(L, 1);
    lpl_machine *m = push_machine(L, "/");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, DEFAULT_KEY);
    return m;
}

lpl_machine *lpl_machine_from_opts(lua_State *L, int i)
{
    static const char *const keys[] = { "root", "user_hz", "page_size", NULL };
    const char *root;
    lua_Integer hz = 0, ps = 0;
    i = lua_absindex(L, i);
    lpl_check_keys(L, i, keys, "machine");
    lua_getfield(L, i, "root");
    root = luaL_optstring(L, -1, "/");
    luaL_argcheck(L, *root != '\0', i, "root must not be empty");
    if (lua_getfield(L, i, "user_hz") != LUA_TNIL) {
        hz = luaL_checkinteger(L, -1);
        luaL_argcheck(L, hz > 0 && hz <= 1000000, i, "user_hz must be positive");
    }
    if (lua_getfield(L, i, "page_size") != LUA_TNIL) {
        ps = luaL_checkinteger(L, -1);
        luaL_argcheck(L, ps > 0 && (ps & (ps - 1)) == 0, i, "page_size must be a power of two");
    }
    lpl_machine *m = push_machine(L, root);
    if (hz)
        pl_env_set_user_hz(m->env, (long)hz);
    if (ps)
        pl_env_set_page_size(m->env, (long)ps);
    lua_replace(L, -4);      /* drop the three option values, keep the machine */
    lua_pop(L, 2);
    return m;
}

const char *lpl_push_path(lua_State *L, pl_env *env, const char *rel)
{
    const char *root = pl_env_root(env);
    size_t n = strlen(root);
    return lua_pushfstring(L, "%s%s%s", root, n && root[n - 1] == '/' ? "" : "/", rel);
}

/* Idempotent, never raises. */
static int m_gc(lua_State *L)
{
    lpl_machine *m = luaL_checkudata(L, 1, LPL_MACHINE);
    pl_env_unref(m->env);    /* queries and countersets hold their own refs */
    m->env = NULL;
    return 0;
}

static int m_tostring(lua_State *L)
{
    lpl_machine *m = luaL_checkudata(L, 1, LPL_MACHINE);
    if (m->env)
        lua_pushfstring(L, LPL_MACHINE " (%s)", pl_env_root(m->env));
    else
        lua_pushliteral(L, LPL_MACHINE " (released)");
    return 1;
}

static int m_index(lua_State *L)
{
    lpl_machine *m = lpl_check_machine(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "root") == 0)
        lua_pushstring(L, pl_env_root(m->env));
    else if (strcmp(k, "user_hz") == 0)
        lua_pushinteger(L, pl_env_user_hz(m->env));
    else if (strcmp(k, "page_size") == 0)
        lua_pushinteger(L, pl_env_page_size(m->env));
    else {
        /* methods are the module's functions taking the machine */
        lua_getmetatable(L, 1);
        lua_getfield(L, -1, "methods");
        lua_getfield(L, -1, k);
    }
    return 1;
}

/***
 * Iterates over this machine's countersets (as @{countersets}).
 * @function Machine:countersets
 * @return iterator yielding CounterSet objects
 */
static int m_countersets(lua_State *L)
{
    lpl_check_machine(L, 1);
    return lpl_countersets(L, 1);
}

/***
 * A counterset of this machine by name (case-insensitive) or GUID (as @{counterset}).
 * @function Machine:counterset
 * @tparam string name_or_guid
 * @treturn[1] CounterSet
 * @return[2] nil
 * @treturn[2] string message "no counterset 'name'"
 */
static int m_counterset(lua_State *L)
{
    lpl_machine *m = lpl_check_machine(L, 1);
    const char *name = luaL_checkstring(L, 2);
    const pl_counterset_def *cs = pl_env_find(m->env, name);
    if (!cs) {
        luaL_pushfail(L);
        lua_pushfstring(L, "no counterset '%s'", name);
        return 2;
    }
    lpl_push_counterset(L, cs, 1);
    return 1;
}

/***
 * Opens a query on this machine (as @{query}).
 * @function Machine:query
 * @treturn[1] Query
 * @return[2] nil
 * @treturn[2] string message
 * @treturn[2] int errno
 */
static int m_query(lua_State *L)
{
    lpl_check_machine(L, 1);
    return lpl_new_query(L, 1);
}

/* The collects of m_collect, run protected (m_collect holds the machine's
 * generation around them and must end it whatever happens): arguments are
 * the queries, results their samples, or fail, message, errno. */
static int collect_body(lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        lpl_query *q = lua_touserdata(L, i);
        lpl_alloc a = { L, NULL, 0 };
        pl_sample *s;
        int e;
        q->busy = 1;
        e = pl_query_collect_with(q->q, lpl_sample_alloc, &a, &s);
        q->busy = 0;
        if ((e = lpl_collect_failed(L, q, e)) != 0)
            return e;
        lpl_query_sample(L, i, s, lua_upvalueindex(1));
    }
    return n;
}

/***
 * Collects several queries of this machine at one instant: every kernel
 * file (/proc/stat, /proc/net/snmp ...) is read once for all of them, and
 * sets fed by one read share its time.  As `q:collect()` for each query, in
 * order; all or nothing.
 * @function Machine:collect
 * @tparam Query ... queries of this machine, each at most once
 * @treturn[1] Sample ... one sample per query, in order
 * @return[2] nil
 * @treturn[2] string message
 * @treturn[2] int errno
 */
static int m_collect(lua_State *L)
{
    lpl_machine *m = lpl_check_machine(L, 1);
    int n = lua_gettop(L) - 1, rc;
    luaL_argcheck(L, n >= 1, 2, "query expected");
    luaL_checkstack(L, n + 8, "too many queries");
    for (int i = 2; i <= n + 1; i++) {
        lpl_query *q = luaL_checkudata(L, i, LPL_QUERY);
        luaL_argcheck(L, q->q != NULL, i, "attempt to use a closed query");
        luaL_argcheck(L, !q->busy, i, "query is collecting");
        luaL_argcheck(L, pl_query_env(q->q) == m->env, i, "query of another machine");
        for (int j = 2; j < i; j++)
            luaL_argcheck(L, !lua_rawequal(L, i, j), i, "query given twice");
    }
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, collect_body, 1);
    lua_insert(L, 2);
    pl_env_begin(m->env);
    rc = lua_pcall(L, n, LUA_MULTRET, 0);
    pl_env_end(m->env);
    if (rc != 0)
        return lua_error(L);
    return lua_gettop(L) - 1;
}

/* ---- text facts (pl_counterset_info) ------------------------------------------ */

/* Facts gathered in C first, then made a table: building Lua tables inside
 * emit could raise (memory) with the provider still open. */
typedef struct facts {
    char *buf;               /* instance\0key\0value\0 ... */
    size_t len, cap;
    int nomem;
} facts;

static int facts_put(facts *f, const char *s)
{
    size_t n = strlen(s) + 1;
    if (f->len + n > f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 1024;
        while (cap < f->len + n)
            cap *= 2;
        char *b = realloc(f->buf, cap);
        if (!b)
            return f->nomem = 1;
        f->buf = b;
        f->cap = cap;
    }
    memcpy(f->buf + f->len, s, n);
    f->len += n;
    return 0;
}

static int facts_emit(void *ud, const char *instance, const char *key, const char *value)
{
    facts *f = ud;
    return facts_put(f, instance) || facts_put(f, key) || facts_put(f, value);
}

static int facts_emit1(void *ud, const char *key, const char *value)
{
    return facts_emit(ud, "", key, value);
}

/* { key = value } of one instance, or { [instance] = { key = value } }. */
static void push_facts(lua_State *L, const facts *f, int by_instance)
{
    lua_newtable(L);
    for (size_t at = 0; at < f->len;) {
        const char *inst = f->buf + at, *key, *value;
        key = inst + strlen(inst) + 1;
        value = key + strlen(key) + 1;
        at = (size_t)(value + strlen(value) + 1 - f->buf);
        if (by_instance) {
            if (lua_getfield(L, -1, inst) == LUA_TNIL) {
                lua_pop(L, 1);
                lua_newtable(L);
                lua_pushvalue(L, -1);
                lua_setfield(L, -3, inst);
            }
        }
        lua_pushstring(L, value);
        lua_setfield(L, -2, key);
        if (by_instance)
            lua_pop(L, 1);
    }
}

/* The facts of set (argument si) on machine m, instance at si + 1. */
static int info_of(lua_State *L, pl_env *env, int si)
{
    const char *name = luaL_checkstring(L, si);
    const char *inst = luaL_optstring(L, si + 1, NULL);
    const pl_counterset_def *cs = pl_env_find(env, name);
    facts f = { NULL, 0, 0, 0 };
    int e, single;
    if (!cs) {
        luaL_pushfail(L);
        lua_pushfstring(L, "no counterset '%s'", name);
        return 2;
    }
    single = cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE;
    luaL_argcheck(L, !(single && inst && *inst), si + 1, "a single-instance set has no instance names");
    if (single)
        inst = NULL;
    if (inst)
        e = pl_counterset_info(env, cs, inst, facts_emit1, &f);
    else
        e = pl_counterset_info_all(env, cs, facts_emit, &f);
    if (f.nomem && !e)
        e = ENOMEM;
    if (!e)
        push_facts(L, &f, !single && !inst);
    free(f.buf);
    if (e == ENOTSUP) {
        luaL_pushfail(L);
        lua_pushfstring(L, "counterset '%s' has no text facts", cs->name);
        lua_pushinteger(L, e);
        return 3;
    }
    if (e == ENOENT && inst) {
        luaL_pushfail(L);
        lua_pushfstring(L, "no instance '%s' in '%s'", inst, cs->name);
        lua_pushinteger(L, e);
        return 3;
    }
    return e ? lpl_fail(L, cs->name, e) : 1;
}

/* perflib.info (documented with the module's functions, lperflib.c). */
int lpl_info(lua_State *L)
{
    luaL_checkstring(L, 1);
    luaL_optstring(L, 2, NULL);
    lua_settop(L, 3);        /* the default machine is pushed above the arguments */
    lpl_machine *m = lpl_opt_machine(L, 3);
    return info_of(L, m->env, 1);
}

/***
 * Text facts of a counterset's instances on this machine (as @{info}).
 * @function Machine:info
 * @tparam string set counterset name or GUID
 * @tparam[opt] string instance
 * @treturn[1] table facts
 * @return[2] nil
 * @treturn[2] string message
 * @treturn[2] int errno (not for an unknown set)
 */
static int m_info(lua_State *L)
{
    lpl_machine *m = lpl_check_machine(L, 1);
    return info_of(L, m->env, 2);
}

void lpl_open_machine(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", m_gc }, { "__tostring", m_tostring }, { "__index", m_index }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "countersets", m_countersets }, { "counterset", m_counterset }, { "query", m_query },
        { "collect", m_collect }, { "info", m_info }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_MACHINE, meta, NULL);
    luaL_getmetatable(L, LPL_MACHINE);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
}
