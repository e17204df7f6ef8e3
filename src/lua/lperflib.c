/***
 * perflib.core: the C core of perflib for Lua 5.1-5.4 and LuaJIT.
 *
 * Use it through the facade, `require "perflib"`, which re-exports the
 * public functions: they are documented under perflib.  Errors follow two
 * classes: misuse (wrong types, closed handles, unknown option keys) raises;
 * environment failures return `nil, message, errno`.
 * @module perflib
 */
#include "appseg.h"
#include "lpl.h"
#include "plugin.h"
#include "providers.h"
#include "textfile.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define LPL_EXPORT __attribute__((visibility("default")))

void lpl_newclass(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    if (methods) {
        lua_newtable(L);
        luaL_setfuncs(L, methods, 0);
        lua_setfield(L, -2, "__index");
    }
    lua_pop(L, 1);
}

int lpl_fail(lua_State *L, const char *what, int e)
{
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", what, strerror(e));
    lua_pushinteger(L, e);
    return 3;
}

void lpl_check_keys(lua_State *L, int t, const char *const *keys, const char *fname)
{
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        int ok = 0;
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING)
            for (const char *const *k = keys; *k; k++)
                if (strcmp(lua_tostring(L, -1), *k) == 0)
                    ok = 1;
        if (!ok) {
            lua_pushvalue(L, -1);
            luaL_error(L, "%s: unknown option '%s'", fname, luaL_tolstring(L, -1, NULL));
        }
    }
}

/***
 * Sleeps without busy-waiting.
 * @function sleep
 * @tparam number seconds non-negative
 * @treturn[1] boolean true
 * @return[2] nil when a signal interrupted the sleep
 * @treturn[2] string message
 * @treturn[2] int errno (EINTR)
 */
static int l_sleep(lua_State *L)
{
    lua_Number sec = luaL_checknumber(L, 1);
    struct timespec ts;
    luaL_argcheck(L, sec >= 0 && sec < 1e9, 1, "seconds must be between 0 and 1e9");
    ts.tv_sec = (time_t)sec;
    ts.tv_nsec = (long)((sec - (lua_Number)ts.tv_sec) * 1e9);
    if (nanosleep(&ts, NULL) != 0)
        return lpl_fail(L, "sleep", errno);    /* let a signal handler run now */
    lua_pushboolean(L, 1);
    return 1;
}

/***
 * Monotonic clock in seconds (a float), for measuring intervals.
 * @function clock
 * @treturn number seconds since an arbitrary start (not the epoch)
 */
static int l_clock(lua_State *L)
{
    int64_t t, f;
    pl_now(&t, &f, NULL);
    lua_pushnumber(L, (lua_Number)t / (lua_Number)f);
    return 1;
}

/***
 * The perflib type of a value: the class of one of perflib's objects, in
 * lower case (as `io.type` names files).
 * @function type
 * @param v any value
 * @return "machine", "counterset", "query", "closed query", "sample",
 *   "provider", "provider instance", "provider counter", "server", or nil
 *   for anything else
 */
static int l_type(lua_State *L)
{
    static const char *const names[][2] = {
        { LPL_MACHINE, "machine" }, { LPL_COUNTERSET, "counterset" }, { LPL_SAMPLE, "sample" },
        { "perflib.Provider", "provider" }, { "perflib.ProviderInstance", "provider instance" },
        { "perflib.ProviderCounter", "provider counter" }, { "perflib.Server", "server" },
        { "perflib.LogWriter", "log writer" }, { "perflib.LogReader", "log reader" },
    };
    lpl_query *q = luaL_testudata(L, 1, LPL_QUERY);
    if (q) {
        lua_pushstring(L, q->q ? "query" : "closed query");
        return 1;
    }
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (luaL_testudata(L, 1, names[k][0])) {
            lua_pushstring(L, names[k][1]);
            return 1;
        }
    luaL_pushfail(L);
    return 1;
}

/***
 * Iterates over the countersets of a machine.
 * @function countersets
 * @tparam[opt] Machine machine default: this machine, root "/"
 * @return iterator yielding CounterSet objects
 */
static int l_countersets(lua_State *L)
{
    lpl_opt_machine(L, 1);                /* syncs: discovers new plug-in, textfile and app sets */
    return lpl_countersets(L, lua_gettop(L));
}

/***
 * Finds a counterset by name (case-insensitive) or GUID.
 * @function counterset
 * @tparam string name_or_guid
 * @tparam[opt] Machine machine
 * @treturn[1] CounterSet
 * @return[2] nil
 * @treturn[2] string message
 */
static int l_counterset(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lpl_machine *m = lpl_opt_machine(L, 2);
    const pl_counterset_def *cs = pl_env_find(m->env, name);
    if (!cs) {
        luaL_pushfail(L);
        lua_pushfstring(L, "no counterset '%s'", name);
        return 2;
    }
    lpl_push_counterset(L, cs, lua_gettop(L));
    return 1;
}

/***
 * Text facts of a counterset's instances: what is not a number (a CPU's
 * frequency governor and driver, the CPU vulnerabilities, a disk's model),
 * as strings by lower_snake_case key.  The set's provider is opened for the
 * call and closed after it (not for sampling loops).  Control characters in
 * the kernel's text come escaped as `\xNN`.
 * @function info
 * @tparam string set counterset name (case-insensitive) or GUID
 * @tparam[opt] string instance one instance (multi-instance sets); without
 *   it, every instance's facts
 * @tparam[opt] Machine machine default: this machine, root "/"
 * @treturn[1] table `{ key = value }` of the instance, or of a single-instance
 *   set; without an instance, `{ [instance] = { key = value } }` (instances
 *   without facts left out)
 * @return[2] nil
 * @treturn[2] string message "no counterset 'name'"
 * @return[3] nil
 * @treturn[3] string message (no such instance, a set without text facts,
 *   an unreadable source)
 * @treturn[3] int errno (ENOENT, ENOTSUP, the source's)
 * @usage perflib.info("Processor Information", "_Total").vulnerability_meltdown
 */
/***
 * Opens a query handle.
 * @function query
 * @tparam[opt] Machine|table machine a Machine, or options for a new one
 *   (`root`, `user_hz`, `page_size`; or `host` and the others of @{machine}: a remote
 *   machine)
 * @treturn[1] Query
 * @return[2] nil
 * @treturn[2] string message
 * @treturn[2] int errno (a remote machine that cannot be reached; no memory for the handle)
 */
static int l_query(lua_State *L)
{
    if (lua_istable(L, 1) && lua_getfield(L, 1, "host") != LUA_TNIL) {
        lua_pop(L, 1);
        int n = lpl_remote_machine(L, 1);
        if (n != 1)
            return n;                    /* nil, message, errno: as perflib.machine{host=} */
    } else if (lua_istable(L, 1))
        lpl_machine_from_opts(L, 1);
    else
        lpl_opt_machine(L, 1);
    return lpl_new_query(L, lua_gettop(L));
}

/***
 * A view of a machine below a root directory (for fixtures and containers),
 * or a remote machine: another host's `perflua serve` (README, "Remote
 * machines").
 * @function machine
 * @tparam[opt] table opts `root` (default "/"), `user_hz`, `page_size`; or
 *   `host` ("name:port"), `token` (bearer token), `tls` (boolean: https),
 *   `cacert` (PEM file of the CA to trust), `timeout` (seconds a request may
 *   take, connect included; 5)
 * @treturn[1] Machine
 * @return[2] fail when the host cannot be read (down, refused token, not perflib)
 * @treturn[2] string message
 * @treturn[2] int errno (ECONNREFUSED, ETIMEDOUT, EACCES, EPROTO ...)
 */
static int l_machine(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        lpl_opt_machine(L, 1);
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_getfield(L, 1, "host") != LUA_TNIL) {
        lua_pop(L, 1);
        return lpl_remote_machine(L, 1);
    }
    lua_pop(L, 1);
    lpl_machine_from_opts(L, 1);
    return 1;
}

/* ---- calculator ------------------------------------------------------------ */

static uint32_t check_type(lua_State *L, int i)
{
    if (lua_type(L, i) == LUA_TSTRING) {
        lua_getfield(L, lua_upvalueindex(1), lua_tostring(L, i));
        if (!lua_isinteger(L, -1))
            luaL_argerror(L, i, lua_pushfstring(L, "unknown counter type '%s'", lua_tostring(L, i)));
        lua_Integer t = lua_tointeger(L, -1);
        lua_pop(L, 1);
        return (uint32_t)t;
    }
    lua_Integer t = luaL_checkinteger(L, i);
    luaL_argcheck(L, t >= 0 && t <= 0xFFFFFFFF && pl_type_known((uint32_t)t), i, "unknown counter type");
    return (uint32_t)t;
}

static int64_t raw_field(lua_State *L, int i, const char *k, int64_t dflt)
{
    int64_t v = dflt;
    int t = lua_getfield(L, i, k);
    if (t != LUA_TNIL && !lpl_toint64(L, -1, &v))
        return luaL_argerror(L, i, lua_pushfstring(L, "field '%s' must be an integer", k));
    lua_pop(L, 1);
    return v;
}

static void check_raw(lua_State *L, int i, pl_raw *r)
{
    static const char *const keys[] = { "value", "base", "time", "multi", "size", NULL };
    memset(r, 0, sizeof *r);
    r->size = 8;
    int64_t v;
    if (lpl_toint64(L, i, &v)) {
        r->first = (uint64_t)v;
        return;
    }
    if (!lua_istable(L, i))
        luaL_argerror(L, i, "raw value must be an integer or a table {value=, base=, time=}");
    lpl_check_keys(L, i, keys, "calculate");
    r->first = (uint64_t)raw_field(L, i, "value", 0);
    r->second = (uint64_t)raw_field(L, i, "base", raw_field(L, i, "time", 0));
    r->multi = (uint32_t)raw_field(L, i, "multi", 0);
    r->size = (uint32_t)raw_field(L, i, "size", 8);
    luaL_argcheck(L, r->size == 4 || r->size == 8, i, "size must be 4 or 8");
}

void lpl_check_fmt(lua_State *L, int i, const char *const *keys, const char *fname, pl_fmt *fmt)
{
    memset(fmt, 0, sizeof *fmt);
    if (lua_isnoneornil(L, i))
        return;
    luaL_checktype(L, i, LUA_TTABLE);
    lpl_check_keys(L, i, keys, fname);
    fmt->flags = lpl_fmt_flags(L, i);
    if (lua_getfield(L, i, "scale") != LUA_TNIL) {
        lua_Integer sc = lua_tointeger(L, -1);
        if (!lua_isinteger(L, -1) || sc < -10 || sc > 10)
            luaL_argerror(L, i, "scale must be an integer from -10 to 10");
        fmt->scale_set = 1;
        fmt->scale = (int)sc;
    }
    lua_pop(L, 1);
}

int64_t lpl_opt_time(lua_State *L, int t, const char *key, int64_t dflt, int side)
{
    lua_getfield(L, t, key);
    int64_t v = dflt;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_argerror(L, t, lua_pushfstring(L, "opts.%s must be a number (Unix seconds)", key));
        double x = lua_tonumber(L, -1);
        if (!(x > -1e10 && x < 1e10))
            luaL_argerror(L, t, lua_pushfstring(L, "opts.%s is out of range", key));
        /* a double holds today's Unix seconds to about 0.2 us: half a microsecond
         * of slack, so a sample's own timestamp given back selects it */
        v = LPL_UNIX_EPOCH_100NS + (int64_t)llround(x * 1e7) + side * 5;
    }
    lua_pop(L, 1);
    return v;
}

unsigned lpl_fmt_flags(lua_State *L, int i)
{
    unsigned f = 0;
    if (lua_getfield(L, i, "nocap"), lua_toboolean(L, -1)) f |= PL_FMT_NOCAP100;
    if (lua_getfield(L, i, "x1000"), lua_toboolean(L, -1)) f |= PL_FMT_1000;
    if (lua_getfield(L, i, "noscale"), lua_toboolean(L, -1)) f |= PL_FMT_NOSCALE;
    lua_pop(L, 3);
    return f;
}

/***
 * Formats raw values of a counter type (PdhFormatFromRawValue): newer first.
 * A raw value is an integer or `{value=, base=, time=, multi=, size=}` (before
 * Lua 5.3 an integer beyond 2^53 is its decimal string, as `Sample:value` gives it).
 * @function calculate
 * @tparam string|int type counter type name ("PERF_COUNTER_BULK_COUNT") or value
 * @param newer raw value
 * @param[opt] older raw value (two-sample types)
 * @tparam[opt] table opts `freq` (ticks per second of `time`, default 10^7),
 *   `scale`, `nocap`, `x1000`, `noscale`
 * @treturn number|nil value (nil unless the status is "valid")
 * @treturn string status
 */
static int l_calculate(lua_State *L)
{
    uint32_t type = check_type(L, 1);
    pl_raw n1, n0;
    int scale = 0, has0 = !lua_isnoneornil(L, 3);
    lua_Integer freq = 10000000;
    double v;
    check_raw(L, 2, &n1);
    if (has0)
        check_raw(L, 3, &n0);
    unsigned flags = 0;
    if (!lua_isnoneornil(L, 4)) {
        static const char *const keys[] = { "nocap", "x1000", "noscale", "scale", "freq", NULL };
        luaL_checktype(L, 4, LUA_TTABLE);
        lpl_check_keys(L, 4, keys, "calculate");
        flags = lpl_fmt_flags(L, 4);
        if (lua_getfield(L, 4, "freq") != LUA_TNIL) {
            freq = luaL_checkinteger(L, -1);
            luaL_argcheck(L, freq > 0, 4, "freq must be positive");
        }
        if (lua_getfield(L, 4, "scale") != LUA_TNIL) {
            lua_Integer sc = luaL_checkinteger(L, -1);
            luaL_argcheck(L, sc >= -10 && sc <= 10, 4, "scale must be between -10 and 10");
            scale = (int)sc;
        }
        lua_pop(L, 2);
    }
    pl_status st = pl_format_raw(type, &n1, has0 ? &n0 : NULL, freq, flags, scale, &v);
    if (st == PL_VALID)
        lua_pushnumber(L, v);
    else
        lua_pushnil(L);
    lua_pushstring(L, pl_status_name(st));
    return 2;
}

/* types[name] = value; PERF_PRECISION_TIMESTAMP aliases PERF_LARGE_RAW_BASE. */
static void push_types(lua_State *L)
{
    static const struct { const char *n; uint32_t v; } tv[] = {
#define T(x) { #x, x }
        T(PERF_COUNTER_COUNTER), T(PERF_COUNTER_BULK_COUNT), T(PERF_SAMPLE_COUNTER),
        T(PERF_COUNTER_QUEUELEN_TYPE), T(PERF_COUNTER_LARGE_QUEUELEN_TYPE),
        T(PERF_COUNTER_100NS_QUEUELEN_TYPE), T(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE),
        T(PERF_COUNTER_TIMER), T(PERF_COUNTER_TIMER_INV), T(PERF_100NSEC_TIMER),
        T(PERF_100NSEC_TIMER_INV), T(PERF_OBJ_TIME_TIMER), T(PERF_COUNTER_MULTI_TIMER),
        T(PERF_COUNTER_MULTI_TIMER_INV), T(PERF_100NSEC_MULTI_TIMER), T(PERF_100NSEC_MULTI_TIMER_INV),
        T(PERF_COUNTER_MULTI_BASE), T(PERF_SAMPLE_FRACTION), T(PERF_SAMPLE_BASE), T(PERF_RAW_FRACTION),
        T(PERF_LARGE_RAW_FRACTION), T(PERF_RAW_BASE), T(PERF_LARGE_RAW_BASE), T(PERF_AVERAGE_TIMER),
        T(PERF_AVERAGE_BULK), T(PERF_AVERAGE_BASE), T(PERF_PRECISION_SYSTEM_TIMER),
        T(PERF_PRECISION_100NS_TIMER), T(PERF_PRECISION_OBJECT_TIMER), T(PERF_PRECISION_TIMESTAMP),
        T(PERF_ELAPSED_TIME), T(PERF_COUNTER_DELTA), T(PERF_COUNTER_LARGE_DELTA),
        T(PERF_COUNTER_RAWCOUNT), T(PERF_COUNTER_LARGE_RAWCOUNT), T(PERF_COUNTER_RAWCOUNT_HEX),
        T(PERF_COUNTER_LARGE_RAWCOUNT_HEX), T(PERF_COUNTER_TEXT), T(PERF_COUNTER_NODATA),
        T(PERF_COUNTER_HISTOGRAM_TYPE), { "PERF_DOUBLE_RAW", 0x00012000u },
#undef T
    };
    lua_newtable(L);
    for (size_t i = 0; i < sizeof tv / sizeof tv[0]; i++) {
        lua_pushinteger(L, (lua_Integer)tv[i].v);
        lua_setfield(L, -2, tv[i].n);
    }
}

/***
 * Statistics over a series of raw values of one counter type
 * (PdhComputeCounterStatistics): minimum, maximum and mean of the formatted
 * values, two-sample types taken pair by pair.  Values whose status is not
 * "valid" are left out of all three.
 * @function statistics
 * @tparam string|int type counter type
 * @tparam table raws array of raw values (integers or `{value=, base=, time=, ...}`), oldest first
 * @tparam[opt] table opts `first` (index of the oldest entry when raws is a
 *   ring buffer), `freq`, `scale`, `nocap`, `x1000`, `noscale`
 * @treturn[1] table `{min=, max=, mean=, count=}`
 * @return[2] nil
 * @treturn[2] string status of the last value left out
 */
static int l_statistics(lua_State *L)
{
    static const char *const keys[] = { "first", "freq", "scale", "nocap", "x1000", "noscale", NULL };
    uint32_t type = check_type(L, 1);
    lua_Integer freq = 10000000, first = 1, n;
    int scale = 0;
    unsigned flags = 0;
    pl_raw *raws;
    pl_stats st;
    pl_status res;
    luaL_checktype(L, 2, LUA_TTABLE);
    n = (lua_Integer)lua_rawlen(L, 2);
    luaL_argcheck(L, n > 0, 2, "raw values expected");
    luaL_argcheck(L, n < 100000000, 2, "too many raw values");
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        lpl_check_keys(L, 3, keys, "statistics");
        flags = lpl_fmt_flags(L, 3);
        if (lua_getfield(L, 3, "freq") != LUA_TNIL) {
            freq = luaL_checkinteger(L, -1);
            luaL_argcheck(L, freq > 0, 3, "freq must be positive");
        }
        if (lua_getfield(L, 3, "scale") != LUA_TNIL) {
            lua_Integer sc = luaL_checkinteger(L, -1);
            luaL_argcheck(L, sc >= -10 && sc <= 10, 3, "scale must be between -10 and 10");
            scale = (int)sc;
        }
        if (lua_getfield(L, 3, "first") != LUA_TNIL) {
            first = luaL_checkinteger(L, -1);
            luaL_argcheck(L, first >= 1 && first <= n, 3, "first must index the raw values");
        }
        lua_pop(L, 3);
    }
    raws = lua_newuserdatauv(L, (size_t)n * sizeof *raws, 0);
    for (lua_Integer k = 0; k < n; k++) {
        lua_rawgeti(L, 2, k + 1);
        int64_t v;
        if (!lpl_toint64(L, -1, &v) && !lua_istable(L, -1))
            luaL_argerror(L, 2, lua_pushfstring(L, "raw value #%d must be an integer or a table", (int)k + 1));
        check_raw(L, lua_gettop(L), &raws[k]);
        lua_pop(L, 1);
    }
    res = pl_statistics(type, raws, (size_t)n, (size_t)(first - 1), freq, flags, scale, &st);
    if (res != PL_VALID) {
        luaL_pushfail(L);
        lua_pushstring(L, pl_status_name(res));
        return 2;
    }
    lua_createtable(L, 0, 4);
    lua_pushnumber(L, st.min);
    lua_setfield(L, -2, "min");
    lua_pushnumber(L, st.max);
    lua_setfield(L, -2, "max");
    lua_pushnumber(L, st.mean);
    lua_setfield(L, -2, "mean");
    lua_pushinteger(L, (lua_Integer)st.count);
    lua_setfield(L, -2, "count");
    return 1;
}

/***
 * Reads Prometheus textfiles (`*.prom`, the node_exporter textfile-collector
 * convention) from one more directory: each metric family becomes the
 * counterset "Prometheus <family>", its label sets the instances (README,
 * "Prometheus textfiles").  `require "perflib"` reads $PERFLIB_TEXTFILE_DIR
 * (directories separated by ':'), or /var/lib/prometheus/node-exporter when
 * that variable is unset.  A directory is read again at each collect of one
 * of its sets where it changed; a directory that cannot be read now is kept
 * and tried again then.
 * @function load_textfiles
 * @tparam string dir
 * @treturn[1] true
 * @return[2] fail, message, errno
 */
static int l_load_textfiles(lua_State *L)
{
    const char *dir = luaL_checkstring(L, 1);
    luaL_argcheck(L, *dir, 1, "directory must not be empty");
    int e = pl_textfiles_load(dir, NULL, 0);
    if (e)
        return lpl_fail(L, dir, e);
    lpl_opt_machine(L, 2);                /* syncs the default machine */
    lua_pushboolean(L, 1);
    return 1;
}

static const luaL_Reg funcs[] = {
    { "sleep", l_sleep },
    { "clock", l_clock },
    { "type", l_type },
    { "countersets", l_countersets },
    { "counterset", l_counterset },
    { "info", lpl_info },
    { "query", l_query },
    { "machine", l_machine },
    { "trap", lpl_trap },
    { "trapped", lpl_trapped },
    { "signalled", lpl_signalled },
    { "sandbox", lpl_sandbox },
    { "sandbox_lib", lpl_sandbox_lib },
    { "spawn", lpl_spawn },
    { "wait", lpl_wait },
    { "kill", lpl_kill },
    { "syslog", lpl_syslog },
    { "isatty", lpl_isatty },
    { "window", lpl_new_window },
    { "rulebank", lpl_new_rulebank },
    { "frame", lpl_frame },
    { "flap", lpl_new_flap },
    { "sample_from_block", lpl_sample_from_block },
    { "check_block", lpl_check_block },
    { "suggest", lpl_suggest },
    { "plugins", lpl_plugins },
    { "load_plugins", lpl_load_plugins },
    { "reset_plugin", lpl_reset_plugin },
    { "load_textfiles", l_load_textfiles },
    { "define", lpl_define },
    { "derive", lpl_derive },
    { "metric_name", lpl_metric_name },
    { "http", lpl_new_http },
    { "serve", lpl_serve },
    { "calculate", NULL },
    { "statistics", NULL },
    { "provider", NULL },
    { NULL, NULL }
};

LPL_EXPORT int luaopen_perflib_core(lua_State *L);
LPL_EXPORT int luaopen_perflib_core(lua_State *L)
{
    char msg[256];
    /* the module bundles the built-in sets: every machine it makes has them */
    if (pl_register_builtin(msg, sizeof msg) != 0)
        return luaL_error(L, "perflib: %s", msg);
    /* and the plug-ins of this system; one that cannot load is listed by
     * perflib.plugins() with its reason, a directory that cannot be read
     * is not an error here (perflib.load_plugins says why) */
    pl_plugins_load_default(msg, sizeof msg);
    pl_textfiles_load_default(msg, sizeof msg);   /* and its Prometheus textfiles, as plug-ins */
    /* and the countersets applications publish (libperflib-provider) as they appear */
    pl_appseg_enable();
    lpl_open_machine(L);
    lpl_open_counterset(L);
    lpl_open_query(L);
    lpl_open_sample(L);
    lpl_open_window(L);
    lpl_open_rulebank(L);
    lpl_open_server(L);
    lpl_open_flap(L);
    lpl_open_provider(L);
    lpl_open_http(L);
    luaL_newlib(L, funcs);
    lpl_open_collect(L);                      /* collect and its named parts, lookup, index_of */
    lpl_open_log(L);                          /* log_writer, read_log and their classes */
    lpl_open_openlog(L);                      /* open_log and Machine:log */
    push_types(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "types");
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, lpl_provider, 1);     /* counter types by name */
    lua_setfield(L, -3, "provider");
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, l_calculate, 1);      /* types table as upvalue */
    lua_setfield(L, -3, "calculate");
    lua_pushcclosure(L, l_statistics, 1);
    lua_setfield(L, -2, "statistics");
    /* method tables, so the Lua facade can add methods written in Lua */
    lua_createtable(L, 0, 4);
    luaL_getmetatable(L, LPL_QUERY);
    lua_getfield(L, -1, "__index");
    lua_setfield(L, -3, "Query");
    lua_pop(L, 1);
    static const char *const named[][2] = {
        { LPL_SAMPLE, "Sample" }, { LPL_COUNTERSET, "CounterSet" }, { LPL_MACHINE, "Machine" }
    };
    for (int k = 0; k < 3; k++) {
        luaL_getmetatable(L, named[k][0]);
        lua_getfield(L, -1, "methods");
        lua_setfield(L, -3, named[k][1]);
        lua_pop(L, 1);
    }
    lua_setfield(L, -2, "methods");
    lpl_open_remote(L);                       /* pushes the per-host options of \\host paths */
    lua_setfield(L, -2, "remote_tokens");
    lpl_open_term(L);                         /* the live views' terminal layer */
    lua_setfield(L, -2, "term");
    lua_pushliteral(L, "perflib " PL_VERSION);
    lua_setfield(L, -2, "_VERSION");
    return 1;
}
