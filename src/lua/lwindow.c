/***
 * Rule windows (`perflib.Window`): (sample time, value) windows with their
 * reducers, in C.  perflib.rules keeps one per rule and instance; the rule
 * bank (`perflib.RuleBank`) steps the same windows in bulk.
 * @module perflib.core
 */
#include "lpl.h"
#include "pl_window.h"

#include <errno.h>
#include <string.h>

static pl_window *check_window(lua_State *L, int i)
{
    lpl_window *w = luaL_checkudata(L, i, LPL_WINDOW);
    if (w->released)
        luaL_argerror(L, i, "attempt to use a released window");
    return &w->w;
}

static pl_wfn check_fn(lua_State *L, int i)
{
    const char *name = luaL_checkstring(L, i);
    pl_wfn fn = pl_wfn_parse(name);
    if (fn == PL_WFN_NONE)
        luaL_argerror(L, i, lua_pushfstring(L, "unknown value function '%s'", name));
    return fn;
}

static pl_wval check_val(lua_State *L, int i)
{
    pl_wval v;
    int64_t n;
    v.isint = lpl_toint64(L, i, &n);          /* below 5.3 also a raw count's decimal string */
    v.i = v.isint ? n : 0;
    v.d = v.isint ? (double)n : luaL_checknumber(L, i);
    return v;
}

static void push_val(lua_State *L, pl_wval v)
{
    if (v.isint)
        lpl_pushint64(L, v.i);
    else
        lua_pushnumber(L, v.d);
}

static void no_memory(lua_State *L, int e)
{
    if (e)
        luaL_error(L, "window: %s", strerror(e));
}

/***
 * A new window keeping `span` seconds.
 * @function window
 * @tparam number span seconds
 * @tparam[opt] boolean raw raw counter values (a reset flag per sample, one more sample kept for deltas)
 * @tparam[opt] string fn the reducer it will be reduced with ("avg", "min", "max", "pct" keep state)
 * @treturn perflib.Window
 */
int lpl_new_window(lua_State *L)
{
    double span = luaL_optnumber(L, 1, 0.0);
    int raw = lua_toboolean(L, 2);
    pl_wfn fn = lua_isnoneornil(L, 3) ? PL_WFN_NONE : check_fn(L, 3);
    lpl_window *w = lua_newuserdatauv(L, sizeof *w, 0);
    pl_window_init(&w->w, span, raw, fn);
    w->released = 0;
    luaL_setmetatable(L, LPL_WINDOW);
    return 1;
}

/***
 * Pushes a sample (and prunes what is older than the span).
 * @function Window:push
 * @tparam number t sample time, seconds
 * @tparam number|string v the value (before Lua 5.3 a raw count beyond 2^53 as its decimal string)
 * @tparam[opt] boolean reset raw windows: a counter reset at this sample
 * @treturn boolean true when the sample is a reset (raw: the value went backwards or was flagged)
 */
static int push_or_append(lua_State *L, int append)
{
    pl_window *w = check_window(L, 1);
    double t = luaL_checknumber(L, 2);
    pl_wval v = check_val(L, 3);
    int reset = lua_toboolean(L, 4), was = 0;
    no_memory(L, append ? pl_window_append(w, t, v, reset) : pl_window_push(w, t, v, reset, &was));
    if (append)
        return 0;
    lua_pushboolean(L, was);
    return 1;
}

static int w_push(lua_State *L) { return push_or_append(L, 0); }

/***
 * Appends a sample as it is: no prune, no reset detection (restoring exported state).
 * @function Window:append
 */
static int w_append(lua_State *L) { return push_or_append(L, 1); }

/***
 * Reduces the samples after `now - window`.
 * @function Window:reduce
 * @tparam string fn "last", "raw", "avg", "min", "max", "pct", "rate" or "increase"
 * @tparam number window seconds
 * @tparam number p the percentile (pct)
 * @tparam number now
 * @treturn number|nil the value, nil when unknown
 */
static int w_reduce(lua_State *L)
{
    pl_window *w = check_window(L, 1);
    pl_wfn fn = check_fn(L, 2);
    double window = luaL_optnumber(L, 3, 0.0), p = luaL_optnumber(L, 4, 0.0), now = luaL_checknumber(L, 5);
    double out;
    int got = pl_window_reduce(w, fn, window, p, now, &out);
    if (got < 0)
        no_memory(L, ENOMEM);
    if (got)
        lua_pushnumber(L, out);
    else
        lua_pushnil(L);
    return 1;
}

static const char *const why_names[] = { NULL, "reset", "first_sample", "no_data" };

const char *lpl_why_name(int why)
{
    return why > 0 && why < 4 ? why_names[why] : NULL;
}

pl_wstatus lpl_wstatus_of(const char *s)
{
    if (strcmp(s, "valid") == 0)
        return PL_WST_VALID;
    if (strcmp(s, "negative_delta") == 0 || strcmp(s, "reset") == 0)
        return PL_WST_RESET;
    if (strcmp(s, "first_sample") == 0)
        return PL_WST_FIRST;
    return PL_WST_OTHER;
}

/***
 * Takes one value in as the rule engine does and cooks the rule's value.
 * @function Window:cook
 * @tparam number t sample time
 * @tparam number|nil v the value (nil: none)
 * @tparam string|nil status the sample's status ("valid" when nil and v is given)
 * @tparam string fn value function
 * @tparam number window seconds
 * @tparam number p percentile
 * @treturn number|nil value
 * @treturn string|nil why it is unknown: "reset", "first_sample" or "no_data"
 */
static int w_cook(lua_State *L)
{
    pl_window *w = check_window(L, 1);
    double t = luaL_checknumber(L, 2);
    pl_wval v, *vp = NULL;
    if (!lua_isnoneornil(L, 3)) {
        v = check_val(L, 3);
        vp = &v;
    }
    pl_wstatus st = lua_isnoneornil(L, 4) ? (vp ? PL_WST_VALID : PL_WST_OTHER)
                                          : lpl_wstatus_of(luaL_checkstring(L, 4));
    pl_wfn fn = check_fn(L, 5);
    double window = luaL_optnumber(L, 6, 0.0), p = luaL_optnumber(L, 7, 0.0), value = 0.0;
    pl_why why;
    no_memory(L, pl_window_cook(w, t, vp, st, fn, window, p, &value, &why));
    if (why == PL_WHY_NONE)
        lua_pushnumber(L, value);
    else
        lua_pushnil(L);
    if (why == PL_WHY_NONE)
        lua_pushnil(L);
    else
        lua_pushstring(L, why_names[why]);
    return 2;
}

/***
 * Plain data of the window: `{span =, raw =, t = {...}, v = {...}, r = {...}}`.
 * @function Window:export
 */
static int w_export(lua_State *L)
{
    pl_window *w = check_window(L, 1);
    size_t n = pl_window_count(w);
    lua_createtable(L, 0, 5);
    lua_pushnumber(L, w->span);
    lua_setfield(L, -2, "span");
    lua_pushboolean(L, w->raw);
    lua_setfield(L, -2, "raw");
    lua_createtable(L, (int)n, 0);
    lua_createtable(L, (int)n, 0);
    lua_createtable(L, (int)n, 0);
    for (size_t k = 0; k < n; k++) {
        double t;
        pl_wval v;
        int r;
        pl_window_at(w, k, &t, &v, &r);
        lua_pushnumber(L, t);
        lua_rawseti(L, -4, (lua_Integer)k + 1);
        push_val(L, v);
        lua_rawseti(L, -3, (lua_Integer)k + 1);
        lua_pushboolean(L, r);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -4, "r");
    lua_setfield(L, -3, "v");
    lua_setfield(L, -2, "t");
    return 1;
}

static int w_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)pl_window_count(check_window(L, 1)));
    return 1;
}

/* Idempotent; a released window raises on use (even when a finalizer
 * reaches it again after __gc: nothing grows that no one frees). */
static int w_gc(lua_State *L)
{
    lpl_window *w = luaL_checkudata(L, 1, LPL_WINDOW);
    if (!w->released)
        pl_window_free(&w->w);
    w->released = 1;
    return 0;
}

static int w_tostring(lua_State *L)
{
    if (((lpl_window *)luaL_checkudata(L, 1, LPL_WINDOW))->released) {
        lua_pushliteral(L, "perflib.Window (released)");
        return 1;
    }
    pl_window *w = check_window(L, 1);
    lua_pushfstring(L, "perflib.Window (%s, %f s, %d samples): %p", w->raw ? "raw" : "cooked", w->span,
                    (int)pl_window_count(w), (void *)w);
    return 1;
}

void lpl_open_window(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", w_gc }, { "__close", w_gc }, { "__len", w_len }, { "__tostring", w_tostring }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "push", w_push }, { "append", w_append }, { "reduce", w_reduce },
        { "cook", w_cook }, { "export", w_export },
        { NULL, NULL }
    };
    lpl_newclass(L, LPL_WINDOW, meta, methods);
}
