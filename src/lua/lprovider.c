/***
 * Publishing countersets from Lua: `perflib.provider{...}` over
 * libperflib-provider (the PerfLib V2 provider API, src/provider).
 *
 * A provider owns one shared-memory segment; its countersets are declared
 * once, its instances come and go, and every update is one call into the
 * library: a table look-up and one aligned store or atomic add, no system
 * call and no allocation.  Any perflib reader (this process or another)
 * sees the sets like built-in ones.
 * @module perflib
 */
#include "lpl.h"
#include "../provider/perflib_provider.h"
#include "../provider/appseg_layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LPL_PROVIDER "perflib.Provider"
#define LPL_PINSTANCE "perflib.ProviderInstance"
#define LPL_PCOUNTER "perflib.ProviderCounter"
#define MAX_COUNTER_ID 498
#define MAX_INSTANCE_NAME 1023

/* What an update needs of a counter: its id; get() also its slot. */
typedef struct pcounter { uint32_t id, offset, size; } pcounter;

typedef struct pset {
    GUID guid;
    char name[APPSEG_NAME_MAX];
    uint32_t instance_type, ncounters, next_id;
    pcounter c[APPSEG_MAX_COUNTERS];
} pset;

/* The provider userdata; uservalue 1: set index -> { instance name -> instance },
 * 2: set index -> { counter name -> id }. */
typedef struct lprov {
    HANDLE h;                /* NULL once stopped */
    uint32_t nsets;
    pset sets[];
} lprov;

/* An instance; uservalue 1: its provider, 2: its set's names, 3: its name. */
typedef struct lpinst {
    PPERF_COUNTERSET_INSTANCE inst;   /* NULL once deleted */
    lprov *p;
    uint32_t set;
} lpinst;

/* An accessor of one counter of one instance; uservalue 1: the instance. */
typedef struct lpcounter {
    lpinst *w;
    uint32_t id;
} lpcounter;

/* A set's template as PerfSetCounterSetInfoEx takes it (scratch memory). */
typedef struct tmpl {
    PERF_COUNTERSET_INFO info;
    PERF_COUNTER_INFO c[APPSEG_MAX_COUNTERS];
    char name[APPSEG_NAME_MAX], help[APPSEG_HELP_MAX];
    char cname[APPSEG_MAX_COUNTERS][APPSEG_CNAME_MAX], chelp[APPSEG_MAX_COUNTERS][APPSEG_CHELP_MAX];
    char cunit[APPSEG_MAX_COUNTERS][APPSEG_UNIT_MAX], csem[APPSEG_MAX_COUNTERS][16];
    const char *cn[APPSEG_MAX_COUNTERS], *ch[APPSEG_MAX_COUNTERS], *cu[APPSEG_MAX_COUNTERS], *cs[APPSEG_MAX_COUNTERS];
} tmpl;

/* ---- reading the declaration ------------------------------------------------------ */

/* Raises "bad argument #1 to 'provider' (<where>: <what>)". */
static int decl_error(lua_State *L, const char *where, const char *what)
{
    return luaL_argerror(L, 1, lua_pushfstring(L, "%s: %s", where, what));
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", braces allowed; 0 when malformed. */
static int parse_guid(const char *s, GUID *g)
{
    unsigned v[11];
    char tail;
    size_t n = strlen(s);
    if (n == 38 && s[0] == '{' && s[37] == '}')
        s++, n -= 2;
    if (n != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
        return 0;
    if (sscanf(s, "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
               &v[7], &v[8], &v[9], &v[10], &tail) != 11)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '-' && !strchr("0123456789abcdefABCDEF", s[i]))
            return 0;
    g->Data1 = v[0], g->Data2 = (uint16_t)v[1], g->Data3 = (uint16_t)v[2];
    for (int i = 0; i < 8; i++)
        g->Data4[i] = (uint8_t)v[3 + i];
    return 1;
}

/* The GUID of a name (pl_name_guid: the same name, the same GUID, so title
 * indexes stay from run to run) in Windows' layout. */
static void name_guid(const char *kind, const char *name, GUID *g)
{
    pl_guid p = pl_name_guid(kind, name);
    g->Data1 = p.d1;
    g->Data2 = p.d2;
    g->Data3 = p.d3;
    memcpy(g->Data4, p.d4, 8);
}

/* Field k of the table at t as a string of at most max-1 bytes, or NULL when
 * absent; raises for another type or a longer one. */
static const char *opt_text(lua_State *L, int t, const char *k, size_t max, const char *where)
{
    lua_getfield(L, t, k);
    int ty = lua_type(L, -1);
    lua_pop(L, 1);                       /* the table keeps the string */
    if (ty == LUA_TNIL)
        return NULL;
    lua_getfield(L, t, k);
    if (ty != LUA_TSTRING)
        decl_error(L, where, lua_pushfstring(L, "%s must be a string, not %s", k, luaL_typename(L, -1)));
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    lua_pop(L, 1);
    if (n >= max || strlen(s) != n)
        decl_error(L, where, lua_pushfstring(L, "%s is longer than %d bytes or holds a NUL", k, (int)max - 1));
    return s;
}

static lua_Integer opt_int(lua_State *L, int t, const char *k, lua_Integer dflt, lua_Integer lo, lua_Integer hi,
                           const char *where)
{
    int isnum;
    lua_getfield(L, t, k);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return dflt;
    }
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    lua_pop(L, 1);
    if (!isnum || v < lo || v > hi)
        decl_error(L, where, lua_pushfstring(L, "%s must be an integer from %I to %I", k, lo, hi));
    return v;
}

/* A counter's type: an integer or a name of perflib.types (upvalue 1). */
static uint32_t counter_type(lua_State *L, int t, const char *where)
{
    lua_getfield(L, t, "type");
    if (lua_type(L, -1) == LUA_TSTRING) {
        const char *name = lua_tostring(L, -1);
        if (lua_getfield(L, lua_upvalueindex(1), name) != LUA_TNUMBER)
            decl_error(L, where, lua_pushfstring(L, "unknown counter type '%s'", name));
        lua_replace(L, -2);
    }
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 0xFFFFFFFF)
        decl_error(L, where, "type must be a perflib.types value or its name");
    uint32_t v = (uint32_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

static uint32_t detail_level(lua_State *L, int t, const char *where)
{
    static const char *const names[] = { "novice", "advanced", "expert", "wizard", NULL };
    lua_getfield(L, t, "detail");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return PERF_DETAIL_NOVICE;
    }
    for (int i = 0; lua_type(L, -1) == LUA_TSTRING && names[i]; i++)
        if (strcmp(lua_tostring(L, -1), names[i]) == 0) {
            lua_pop(L, 1);
            return 100u * (uint32_t)(i + 1);
        }
    return (uint32_t)decl_error(L, where, "detail must be 'novice', 'advanced', 'expert' or 'wizard'");
}

/* A counter's unit and semantics (optional texts, as readers take them:
 * "bytes", "KiB", "ms" ...; "counter", "gauge", "discrete"), checked now
 * against its type so that a reader never refuses the set. */
static void counter_units(lua_State *L, int ci, tmpl *t, uint32_t i, const char *where)
{
    pl_counter_def d = { .id = t->c[i].CounterId, .name = t->cname[i], .type = t->c[i].Type, .base_id = PL_NO_ID };
    pl_unit_kind kind = PL_UNIT_UNDECLARED;
    pl_semantics sem = PL_SEM_UNDECLARED;
    char why[200];
    const char *unit = opt_text(L, ci, "unit", APPSEG_UNIT_MAX, where);
    const char *semantics = opt_text(L, ci, "semantics", 64, where);
    if (unit && *unit && pl_unit_parse_scaled(unit, &kind, &d.unit_scale) != 0)
        decl_error(L, where, lua_pushfstring(L, "unit '%s' is not one perflib knows", unit));
    if (semantics && *semantics && pl_semantics_parse(semantics, &sem) != 0)
        decl_error(L, where, lua_pushfstring(L, "semantics must be counter, gauge or discrete, not '%s'", semantics));
    d.unit = (uint8_t)kind;
    d.semantics = (uint8_t)sem;
    pl_units_complete(&d);
    if (pl_units_check(&d, why, sizeof why) != 0)
        decl_error(L, where, why);
    snprintf(t->cunit[i], sizeof t->cunit[0], "%s", unit ? unit : "");
    snprintf(t->csem[i], sizeof t->csem[0], "%s", semantics ? semantics : "");
    t->cu[i] = t->cunit[i], t->cs[i] = t->csem[i];
}

/* Counter k (1-based) of the set being read: the counter table is at the top,
 * names (counter name -> id) at ni; *end: the counter area so far. */
static void read_counter(lua_State *L, tmpl *t, pset *s, int ni, uint32_t k, uint32_t *end, const char *where)
{
    static const char *const keys[] = { "id", "name", "type", "help", "size", "detail", "scale", "unit",
                                        "semantics", NULL };
    int ci = lua_gettop(L);
    if (!lua_istable(L, ci))
        decl_error(L, where, "must be a table");
    lpl_check_keys(L, ci, keys, lua_pushfstring(L, "perflib.provider: %s", where));
    lua_pop(L, 1);
    PERF_COUNTER_INFO *c = &t->c[k - 1];
    const char *name = opt_text(L, ci, "name", APPSEG_CNAME_MAX, where);
    const char *help = opt_text(L, ci, "help", APPSEG_CHELP_MAX, where);
    if (!name || !*name)
        decl_error(L, where, "name is required");
    c->CounterId = (ULONG)opt_int(L, ci, "id", (lua_Integer)k - 1, 0, MAX_COUNTER_ID, where);
    c->Type = counter_type(L, ci, where);
    c->Size = (ULONG)opt_int(L, ci, "size", 8, 4, 8, where);
    if (c->Size != 4 && c->Size != 8)
        decl_error(L, where, "size must be 4 or 8");
    c->DetailLevel = detail_level(L, ci, where);
    c->Scale = (LONG)opt_int(L, ci, "scale", 0, -10, 10, where);
    c->Offset = (*end + c->Size - 1) / c->Size * c->Size;
    *end = c->Offset + c->Size;
    for (uint32_t j = 0; j + 1 < k; j++)
        if (t->c[j].CounterId == c->CounterId)
            decl_error(L, where, lua_pushfstring(L, "id %d is taken by counter %d", (int)c->CounterId, (int)j + 1));
    if (lua_getfield(L, ni, name) != LUA_TNIL)
        decl_error(L, where, lua_pushfstring(L, "name '%s' is taken by another counter", name));
    lua_pop(L, 1);
    lua_pushinteger(L, c->CounterId);
    lua_setfield(L, ni, name);
    snprintf(t->cname[k - 1], sizeof t->cname[0], "%s", name);
    snprintf(t->chelp[k - 1], sizeof t->chelp[0], "%s", help ? help : "");
    t->cn[k - 1] = t->cname[k - 1], t->ch[k - 1] = t->chelp[k - 1];
    counter_units(L, ci, t, k - 1, where);
    s->c[k - 1] = (pcounter){ c->CounterId, c->Offset, c->Size };
}

/* The set table at the top into t and s; pushes its names table. */
static void read_set(lua_State *L, tmpl *t, pset *s, int i)
{
    static const char *const keys[] = { "guid", "name", "help", "instances", "counters", NULL };
    static const char *const kinds[] = { "single", "multiple", NULL };
    char where[96];
    int st = lua_gettop(L);
    snprintf(where, sizeof where, "countersets[%d]", i);
    if (!lua_istable(L, st))
        decl_error(L, where, "must be a table");
    lpl_check_keys(L, st, keys, lua_pushfstring(L, "perflib.provider: %s", where));
    lua_pop(L, 1);
    const char *name = opt_text(L, st, "name", APPSEG_NAME_MAX, where);
    const char *help = opt_text(L, st, "help", APPSEG_HELP_MAX, where);
    const char *guid = opt_text(L, st, "guid", 64, where);
    if (!name || !*name)
        decl_error(L, where, "name is required");
    if (guid ? !parse_guid(guid, &t->info.CounterSetGuid) : (name_guid("perflib.set", name, &t->info.CounterSetGuid), 0))
        decl_error(L, where, lua_pushfstring(L, "guid '%s' is not xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", guid));
    const char *inst = opt_text(L, st, "instances", 16, where);
    int kind = -1;
    for (int k = 0; kinds[k]; k++)
        if (!inst || strcmp(inst, kinds[k]) == 0)
            kind = inst ? k : 1;         /* "multiple" when not said */
    if (kind < 0)
        decl_error(L, where, "instances must be 'single' or 'multiple'");
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->help, sizeof t->help, "%s", help ? help : "");
    memcpy(s->name, t->name, sizeof s->name);
    s->guid = t->info.CounterSetGuid;
    s->instance_type = t->info.InstanceType = kind ? PERF_COUNTERSET_MULTI_INSTANCES : PERF_COUNTERSET_SINGLE_INSTANCE;
    if (lua_getfield(L, st, "counters") != LUA_TTABLE)
        decl_error(L, where, "counters must be a table of counters");
    lua_Unsigned n = lua_rawlen(L, -1);
    if (n == 0 || n > APPSEG_MAX_COUNTERS)
        decl_error(L, where, lua_pushfstring(L, "counters must list 1 to %d counters", (int)APPSEG_MAX_COUNTERS));
    s->ncounters = t->info.NumCounters = (ULONG)n;
    lua_newtable(L);                     /* counter name -> id */
    uint32_t end = 0;
    for (uint32_t k = 1; k <= n; k++) {
        char cw[128];
        snprintf(cw, sizeof cw, "%s.counters[%u]", where, (unsigned)k);
        lua_rawgeti(L, st + 1, (lua_Integer)k);
        read_counter(L, t, s, st + 2, k, &end, cw);
        lua_pop(L, 1);
    }
    lua_remove(L, st + 1);               /* the counters; the names stay on top */
}

/* ---- the provider ---------------------------------------------------------------- */

/* Set i's name and GUID against the sets before it. */
static void check_unique(lua_State *L, const lprov *p, uint32_t i)
{
    char where[32];
    snprintf(where, sizeof where, "countersets[%u]", (unsigned)i + 1);
    for (uint32_t j = 0; j < i; j++) {
        if (strcmp(p->sets[j].name, p->sets[i].name) == 0)
            decl_error(L, where, lua_pushfstring(L, "name '%s' is taken by countersets[%d]", p->sets[i].name, (int)j + 1));
        if (memcmp(&p->sets[j].guid, &p->sets[i].guid, sizeof(GUID)) == 0)
            decl_error(L, where, lua_pushfstring(L, "guid is taken by countersets[%d]", (int)j + 1));
    }
}

/* Starts the provider ud (at pi) and declares its n sets from t. */
static int start(lua_State *L, lprov *p, int pi, tmpl *t, uint32_t n, const GUID *g)
{
    const char *dir = getenv("PERFLIB_APPSEG_DIR");
    errno = 0;
    ULONG e = PerfStartProvider((LPGUID)(uintptr_t)g, NULL, &p->h);
    if (e) {
        int en = errno ? errno : EACCES;
        p->h = NULL;
        lua_pushfstring(L, "perflib.provider: no segment in %s", dir && *dir ? dir : "the segment directory");
        return lpl_fail(L, lua_tostring(L, -1), en);
    }
    for (uint32_t i = 0; i < n; i++) {
        PERFLIB_COUNTERSET_NAMES nm = { t[i].name, t[i].help, t[i].cn, t[i].ch, t[i].cu, t[i].cs };
        t[i].info.ProviderGuid = *g;
        e = PerfSetCounterSetInfoEx(p->h, &t[i].info,
                                    (ULONG)(sizeof t[i].info + t[i].info.NumCounters * sizeof(PERF_COUNTER_INFO)), &nm);
        if (e) {                         /* the declaration was checked: the segment could not grow */
            PerfStopProvider(p->h);
            p->h = NULL;
            return lpl_fail(L, "perflib.provider: declaring a counterset", ENOMEM);
        }
    }
    p->nsets = n;
    lua_pushvalue(L, pi);
    return 1;
}

/***
 * Publishes countersets from this program (libperflib-provider).
 * `decl` is `{ guid =, countersets = { set, ... } }`; each set is
 * `{ name =, help =, guid =, instances = "multiple" | "single", counters = { counter, ... } }`
 * and each counter `{ name =, id =, type =, help =, size = 8 | 4, detail =, scale = }`:
 * `type` a `perflib.types` value or its name ("PERF_COUNTER_COUNTER"), `id`
 * 0..498 (default: its position - 1), `detail` "novice" (default),
 * "advanced", "expert" or "wizard", `scale` -10..10 (default 0).  A GUID left
 * out is derived from the name, so it is the same from run to run.  A
 * declaration that does not hold raises, naming the field.
 * @function provider
 * @tparam table decl the countersets
 * @treturn Provider the provider, publishing until `stop` (or `__close`, or collection)
 * @return[2] fail, message, errno when the segment cannot be made (no segment directory)
 */
int lpl_provider(lua_State *L)
{
    static const char *const keys[] = { "guid", "countersets", NULL };
    GUID g;
    luaL_checktype(L, 1, LUA_TTABLE);
    lpl_check_keys(L, 1, keys, "perflib.provider");
    const char *pguid = opt_text(L, 1, "guid", 64, "decl");
    if (pguid && !parse_guid(pguid, &g))
        decl_error(L, "guid", lua_pushfstring(L, "'%s' is not xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", pguid));
    if (lua_getfield(L, 1, "countersets") != LUA_TTABLE)
        decl_error(L, "countersets", "must be a table of countersets");
    int cs = lua_gettop(L);
    lua_Unsigned n = lua_rawlen(L, cs);
    if (n == 0 || n > APPSEG_MAX_SETS)
        decl_error(L, "countersets", lua_pushfstring(L, "must list 1 to %d countersets", (int)APPSEG_MAX_SETS));
    lprov *p = lua_newuserdatauv(L, sizeof *p + n * sizeof(pset), 2);
    p->h = NULL, p->nsets = 0;
    luaL_setmetatable(L, LPL_PROVIDER);
    lua_createtable(L, (int)n, 0);       /* cs + 2: set -> { name -> instance } */
    lua_createtable(L, (int)n, 0);       /* cs + 3: set -> { counter name -> id } */
    tmpl *t = lua_newuserdatauv(L, n * sizeof *t, 0);
    for (uint32_t i = 0; i < n; i++) {
        lua_rawgeti(L, cs, (lua_Integer)i + 1);
        memset(&t[i], 0, sizeof t[i]);
        read_set(L, &t[i], &p->sets[i], (int)i + 1);
        check_unique(L, p, i);
        lua_rawseti(L, cs + 3, (lua_Integer)i + 1);
        lua_pop(L, 1);
        lua_newtable(L);
        lua_rawseti(L, cs + 2, (lua_Integer)i + 1);
    }
    if (!pguid)
        name_guid("perflib.provider", p->sets[0].name, &g);
    lua_pushvalue(L, cs + 2);
    lua_setiuservalue(L, cs + 1, 1);
    lua_pushvalue(L, cs + 3);
    lua_setiuservalue(L, cs + 1, 2);
    return start(L, p, cs + 1, t, (uint32_t)n, &g);
}

static lprov *check_provider(lua_State *L)
{
    lprov *p = luaL_checkudata(L, 1, LPL_PROVIDER);
    if (!p->h)
        luaL_argerror(L, 1, "the provider is stopped");
    return p;
}

/* The set named (or numbered) at i. */
static uint32_t check_set(lua_State *L, const lprov *p, int i)
{
    if (lua_type(L, i) == LUA_TNUMBER) {
        lua_Integer k = luaL_checkinteger(L, i);
        luaL_argcheck(L, k >= 1 && k <= (lua_Integer)p->nsets, i, "no such counterset");
        return (uint32_t)(k - 1);
    }
    const char *name = luaL_checkstring(L, i);
    for (uint32_t k = 0; k < p->nsets; k++)
        if (strcmp(p->sets[k].name, name) == 0)
            return k;
    return (uint32_t)luaL_argerror(L, i, lua_pushfstring(L, "no counterset '%s' in this provider", name));
}

/***
 * A provider: the countersets it declared and their instances; @{provider} makes one.
 * @type Provider
 */
/***
 * An instance of a counterset, created on first use: the same name gives the
 * same instance until it is deleted.  It lives until `ProviderInstance:delete` or the
 * provider's `stop`, whether or not the program keeps it.
 * @function Provider:instance
 * @tparam string|int set the counterset's name (or its position in the declaration)
 * @tparam[opt] string name the instance name (none for a single-instance set)
 * @tparam[opt] int id the instance id (default: instances made in this set so far)
 * @treturn ProviderInstance
 * @return[2] fail, message, errno when the segment cannot grow
 */
static int p_instance(lua_State *L)
{
    lprov *p = check_provider(L);
    uint32_t k = check_set(L, p, 2);
    pset *s = &p->sets[k];
    size_t len = 0;
    const char *name = "";
    if (s->instance_type == PERF_COUNTERSET_MULTI_INSTANCES) {
        name = luaL_checklstring(L, 3, &len);
        luaL_argcheck(L, len > 0 && len <= MAX_INSTANCE_NAME && strlen(name) == len, 3,
                      "an instance name is 1 to 1023 bytes without NUL");
    } else {
        luaL_argcheck(L, lua_isnoneornil(L, 3), 3, "a single-instance set takes no instance name");
    }
    lua_Integer id = luaL_optinteger(L, 4, (lua_Integer)s->next_id);
    luaL_argcheck(L, id >= 0 && id <= 0xFFFFFFFF, 4, "an instance id is 0 to 4294967295");
    lua_getiuservalue(L, 1, 1);
    lua_rawgeti(L, -1, (lua_Integer)k + 1);
    if (lua_getfield(L, -1, name) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    PPERF_COUNTERSET_INSTANCE inst = PerfCreateInstanceUtf8(p->h, &s->guid, name, (ULONG)id);
    if (!inst)
        return lpl_fail(L, "perflib.provider: instance", PerfGetLastError() == ERROR_INVALID_PARAMETER ? EINVAL : ENOMEM);
    s->next_id++;
    lpinst *w = lua_newuserdatauv(L, sizeof *w, 3);
    *w = (lpinst){ inst, p, k };
    luaL_setmetatable(L, LPL_PINSTANCE);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    lua_getiuservalue(L, 1, 2);
    lua_rawgeti(L, -1, (lua_Integer)k + 1);
    lua_setiuservalue(L, -3, 2);
    lua_pop(L, 1);
    lua_pushlstring(L, name, len);
    lua_setiuservalue(L, -2, 3);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, name);
    return 1;
}

/***
 * Stops publishing: the segment file goes, every instance with it; the
 * provider's readers see its sets fail ("has stopped").  Also `__close` and
 * `__gc`; stopping twice does nothing.
 * @function Provider:stop
 * @treturn boolean true
 */
static int p_stop(lua_State *L)
{
    lprov *p = luaL_checkudata(L, 1, LPL_PROVIDER);
    if (p->h)
        PerfStopProvider(p->h);
    p->h = NULL;
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * The provider's segment file, or nil once stopped.
 * @function Provider:path
 * @treturn string|nil
 */
static int p_path(lua_State *L)
{
    lprov *p = luaL_checkudata(L, 1, LPL_PROVIDER);
    const char *path = p->h ? PerfProviderSegmentPath(p->h) : NULL;
    if (path)
        lua_pushstring(L, path);
    else
        lua_pushnil(L);
    return 1;
}

static int p_tostring(lua_State *L)
{
    lprov *p = luaL_checkudata(L, 1, LPL_PROVIDER);
    if (p->h)
        lua_pushfstring(L, LPL_PROVIDER " (%s)", PerfProviderSegmentPath(p->h));
    else
        lua_pushliteral(L, LPL_PROVIDER " (stopped)");
    return 1;
}

/* ---- instances and their counters ------------------------------------------------ */

/* The userdata of class tname at 1, for a method whose upvalue 1 is that
 * class's metatable: one comparison instead of luaL_checkudata's registry
 * look-up, on the update path. */
static void *check_self(lua_State *L, const char *tname)
{
    void *u = lua_touserdata(L, 1);
    if (u && lua_getmetatable(L, 1)) {
        int same = lua_rawequal(L, -1, lua_upvalueindex(1));
        lua_pop(L, 1);
        if (same)
            return u;
    }
    return luaL_checkudata(L, 1, tname);  /* raises, with the usual message */
}

/* w, raising (as argument 1) when it was deleted or its provider stopped;
 * wi: where the instance userdata is. */
static lpinst *live_instance(lua_State *L, lpinst *w, int wi)
{
    if (__builtin_expect(w->inst && w->p->h, 1))
        return w;
    if (!w->p->h)
        luaL_argerror(L, 1, "the instance's provider is stopped");
    if (!w->inst) {
        lua_getiuservalue(L, wi, 3);
        luaL_argerror(L, 1, lua_pushfstring(L, "instance '%s' was deleted", lua_tostring(L, -1)));
    }
    return w;
}

/* The id of the counter named or numbered at ci, for instance w at 1. */
static uint32_t counter_id(lua_State *L, const lpinst *w, int ci)
{
    const pset *s = &w->p->sets[w->set];
    if (lua_isinteger(L, ci)) {
        lua_Integer id = lua_tointeger(L, ci);
        for (uint32_t k = 0; k < s->ncounters; k++)
            if ((lua_Integer)s->c[k].id == id)
                return s->c[k].id;
        return (uint32_t)luaL_argerror(L, ci, lua_pushfstring(L, "no counter id %I in '%s'", id, s->name));
    }
    if (lua_type(L, ci) != LUA_TSTRING)
        return (uint32_t)luaL_typeerror(L, ci, "counter name or id");
    lua_getiuservalue(L, 1, 2);
    lua_pushvalue(L, ci);
    if (lua_rawget(L, -2) != LUA_TNUMBER)
        return (uint32_t)luaL_argerror(L, ci, lua_pushfstring(L, "no counter '%s' in '%s'", lua_tostring(L, ci), s->name));
    uint32_t id = (uint32_t)lua_tointeger(L, -1);
    lua_pop(L, 2);
    return id;
}

/* The integer at vi: integers, and floats with an integral value (below
 * 5.3 also the decimal string of one beyond 2^53, lcompat.h); a fractional
 * float raises, as anything else. */
static lua_Integer check_value(lua_State *L, int vi)
{
    int64_t v;
    if (lpl_toint64(L, vi, &v))
        return (lua_Integer)v;
    if (lua_type(L, vi) != LUA_TNUMBER)
        return luaL_typeerror(L, vi, "integer");
    return luaL_checkinteger(L, vi);
}

static void update(const lpinst *w, uint32_t id, lua_Integer v, int add)
{
    if (add)
        PerfIncrementULongLongCounterValue(w->p->h, w->inst, id, (ULONGLONG)v);
    else
        PerfSetULongLongCounterValue(w->p->h, w->inst, id, (ULONGLONG)v);
}

static lua_Integer read_value(const lpinst *w, uint32_t id)
{
    const pset *s = &w->p->sets[w->set];
    const uint8_t *area = (const uint8_t *)(w->inst + 1);
    for (uint32_t k = 0; k < s->ncounters; k++)
        if (s->c[k].id == id)
            return s->c[k].size == 4 ? (lua_Integer)__atomic_load_n((const uint32_t *)(const void *)(area + s->c[k].offset), __ATOMIC_RELAXED)
                                     : (lua_Integer)__atomic_load_n((const uint64_t *)(const void *)(area + s->c[k].offset), __ATOMIC_RELAXED);
    return 0;
}

/***
 * An instance of a provider's counterset; @{Provider:instance} gives one.
 * @type ProviderInstance
 */
/***
 * Sets a counter's value (a 4-byte counter keeps the low 32 bits; a
 * negative value is stored as its two's complement).
 * @function ProviderInstance:set
 * @tparam string|int counter the counter's name or id
 * @tparam int|string value an integer (a float with an integral value is taken, 2.5 raises;
 *   before Lua 5.3 also the decimal string of one beyond 2^53, README "Lua 5.1, 5.2, 5.3 and LuaJIT")
 */
static int w_set(lua_State *L)
{
    lpinst *w = live_instance(L, check_self(L, LPL_PINSTANCE), 1);
    uint32_t id = counter_id(L, w, 2);
    update(w, id, check_value(L, 3), 0);
    return 0;
}

/***
 * Adds to a counter (an atomic add: threads or processes sharing the segment
 * do not lose counts); a negative delta subtracts.
 * @function ProviderInstance:add
 * @tparam string|int counter the counter's name or id
 * @tparam[opt=1] int delta
 */
static int w_add(lua_State *L)
{
    lpinst *w = live_instance(L, check_self(L, LPL_PINSTANCE), 1);
    uint32_t id = counter_id(L, w, 2);
    update(w, id, lua_isnoneornil(L, 3) ? 1 : check_value(L, 3), 1);
    return 0;
}

/***
 * A counter's value as published (a 4-byte counter reads unsigned).
 * @function ProviderInstance:get
 * @tparam string|int counter the counter's name or id
 * @treturn int|string the value (before Lua 5.3: a number up to 2^53, beyond it
 *   the decimal string; README "Lua 5.1, 5.2, 5.3 and LuaJIT")
 */
static int w_get(lua_State *L)
{
    lpinst *w = live_instance(L, check_self(L, LPL_PINSTANCE), 1);
    lpl_pushint64(L, read_value(w, counter_id(L, w, 2)));
    return 1;
}

/***
 * An accessor of one counter, its name resolved once: `c:set(v)`,
 * `c:add(d)` and `c:get()` as the instance's methods, cheaper.
 * @function ProviderInstance:counter
 * @tparam string|int counter the counter's name or id
 * @treturn ProviderCounter
 */
static int w_counter(lua_State *L)
{
    lpinst *w = live_instance(L, check_self(L, LPL_PINSTANCE), 1);
    uint32_t id = counter_id(L, w, 2);
    lpcounter *c = lua_newuserdatauv(L, sizeof *c, 1);
    *c = (lpcounter){ w, id };
    luaL_setmetatable(L, LPL_PCOUNTER);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

/***
 * Deletes the instance from the segment (readers no longer list it); using it
 * afterwards raises.  Also `__close`; deleting twice does nothing.
 * @function ProviderInstance:delete
 */
static int w_delete(lua_State *L)
{
    lpinst *w = luaL_checkudata(L, 1, LPL_PINSTANCE);
    if (w->inst && w->p->h) {
        PerfDeleteInstance(w->p->h, w->inst);
        lua_getiuservalue(L, 1, 1);      /* the provider's table of instances forgets it */
        lua_getiuservalue(L, -1, 1);
        lua_rawgeti(L, -1, (lua_Integer)w->set + 1);
        lua_getiuservalue(L, 1, 3);
        lua_pushnil(L);
        lua_rawset(L, -3);
    }
    w->inst = NULL;
    return 0;
}

static int w_tostring(lua_State *L)
{
    lpinst *w = luaL_checkudata(L, 1, LPL_PINSTANCE);
    lua_getiuservalue(L, 1, 3);
    lua_pushfstring(L, LPL_PINSTANCE " (%s(%s)%s)", w->p->sets[w->set].name, lua_tostring(L, -1),
                    !w->inst ? ", deleted" : !w->p->h ? ", stopped" : "");
    return 1;
}

static int c_tostring(lua_State *L)
{
    lpcounter *c = luaL_checkudata(L, 1, LPL_PCOUNTER);
    lua_getiuservalue(L, 1, 1);          /* the instance: its name, and whether it still is */
    lua_getiuservalue(L, -1, 3);
    lua_pushfstring(L, LPL_PCOUNTER " (%s(%s) counter %d%s)", c->w->p->sets[c->w->set].name, lua_tostring(L, -1),
                    (int)c->id, !c->w->inst ? ", deleted" : !c->w->p->h ? ", stopped" : "");
    return 1;
}

static lpcounter *check_counter(lua_State *L)
{
    lpcounter *c = check_self(L, LPL_PCOUNTER);
    if (__builtin_expect(!c->w->inst || !c->w->p->h, 0)) {
        lua_getiuservalue(L, 1, 1);      /* the instance, for its name */
        live_instance(L, c->w, lua_gettop(L));
    }
    return c;
}

/***
 * One counter of a provider's instance, bound for fast updates; @{ProviderInstance:counter} gives one.
 * @type ProviderCounter
 */
/***
 * Sets the counter (as `ProviderInstance:set`).
 * @function ProviderCounter:set
 * @tparam int|string value as `ProviderInstance:set`
 */
static int c_set(lua_State *L)
{
    lpcounter *c = check_counter(L);
    update(c->w, c->id, check_value(L, 2), 0);
    return 0;
}

/***
 * Adds to the counter (as `ProviderInstance:add`).
 * @function ProviderCounter:add
 * @tparam[opt=1] int delta
 */
static int c_add(lua_State *L)
{
    lpcounter *c = check_counter(L);
    update(c->w, c->id, lua_isnoneornil(L, 2) ? 1 : check_value(L, 2), 1);
    return 0;
}

/***
 * The counter's value (as `ProviderInstance:get`).
 * @function ProviderCounter:get
 * @treturn int|string as `ProviderInstance:get`
 */
static int c_get(lua_State *L)
{
    lpcounter *c = check_counter(L);
    lpl_pushint64(L, read_value(c->w, c->id));
    return 1;
}

/* lpl_newclass, with the metatable as the methods' upvalue (check_self). */
static void newclass(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_newtable(L);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, methods, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

void lpl_open_provider(lua_State *L)
{
    static const luaL_Reg pmeta[] = { { "__gc", p_stop }, { "__close", p_stop }, { "__tostring", p_tostring },
                                      { NULL, NULL } };
    static const luaL_Reg pmeth[] = { { "instance", p_instance }, { "stop", p_stop }, { "path", p_path },
                                      { NULL, NULL } };
    static const luaL_Reg wmeta[] = { { "__gc", w_delete }, { "__close", w_delete }, { "__tostring", w_tostring },
                                      { NULL, NULL } };
    static const luaL_Reg wmeth[] = { { "set", w_set }, { "add", w_add }, { "get", w_get }, { "counter", w_counter },
                                      { "delete", w_delete }, { NULL, NULL } };
    static const luaL_Reg cmeta[] = { { "__tostring", c_tostring }, { NULL, NULL } };
    static const luaL_Reg cmeth[] = { { "set", c_set }, { "add", c_add }, { "get", c_get }, { NULL, NULL } };
    newclass(L, LPL_PROVIDER, pmeta, pmeth);
    newclass(L, LPL_PINSTANCE, wmeta, wmeth);
    newclass(L, LPL_PCOUNTER, cmeta, cmeth);
}
