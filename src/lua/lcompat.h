/* The one place that knows which Lua the binding is built for (5.1, 5.2,
 * 5.3 or 5.4; LuaJIT 2.1 loads the 5.1 build): the binding files are written against the 5.4
 * API and include this header (through lpl.h) instead of lua.h.
 *
 * Below 5.3, Debian's lua-compat53 (compat-5.3.h, included with its source:
 * static functions) supplies the 5.3 API; this header adds what 5.4 has on
 * top of it (user values, luaL_typeerror, %I in lua_pushfstring) and makes
 * integer arguments as strict as 5.3 (a float with a fraction is refused,
 * not truncated).
 *
 * 64-bit values (raw counts): 5.3 and 5.4 have 64-bit integers and use
 * them.  On 5.1, 5.2 and LuaJIT numbers are doubles, exact only to 2^53, so
 * a raw count goes out as a number when |v| <= 2^53 and otherwise as the
 * decimal string of the same signed 64-bit value that 5.4 shows
 * ("9007199254740993"; 2^64-1 is -1 there as on 5.4), and such a string is
 * taken back where a raw value is expected: lpl_pushint64, lpl_toint64. */
#ifndef LCOMPAT_H
#define LCOMPAT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>

#define LPL_EXACT_MAX 9007199254740992LL     /* 2^53: doubles hold every integer up to it */

#if LUA_VERSION_NUM < 503
#include <compat-5.3.h>
#endif

/* LuaJIT's compiled code runs no count hook, and the instruction limits of
 * perflib.sandbox and perflib.define are count hooks: the function at i
 * (and the functions it defines) stays in the interpreter.  LuaJIT takes
 * 5.1's modules (lib/lua/5.1), so one 5.1 build serves both: it finds
 * luaJIT_setmode at run time, in LuaJIT only. */
#if LUA_VERSION_NUM == 501
#include <dlfcn.h>
typedef int (*lpl_setmode_fn)(lua_State *L, int idx, int mode);
enum { LPL_LJ_MODE_FUNC = 2, LPL_LJ_MODE_ALLSUBFUNC = 4, LPL_LJ_MODE_OFF = 0 };  /* luajit.h's values */
static inline void lpl_interpreted(lua_State *L, int i)
{
    static int looked;
    static lpl_setmode_fn setmode;
    if (!looked) {
        looked = 1;
        *(void **)&setmode = dlsym(RTLD_DEFAULT, "luaJIT_setmode");
    }
    if (setmode && lua_type(L, i) == LUA_TFUNCTION && !lua_iscfunction(L, i)) {
        setmode(L, i, LPL_LJ_MODE_FUNC | LPL_LJ_MODE_OFF);
        setmode(L, i, LPL_LJ_MODE_ALLSUBFUNC | LPL_LJ_MODE_OFF);
    }
}
#else
static inline void lpl_interpreted(lua_State *L, int i) { (void)L, (void)i; }
#endif

#ifndef LUA_LOADED_TABLE
#define LUA_LOADED_TABLE "_LOADED"
#endif
#ifndef luaL_pushfail
#define luaL_pushfail(L) lua_pushnil(L)
#endif

#if LUA_VERSION_NUM >= 503

static inline void lpl_pushint64(lua_State *L, int64_t v) { lua_pushinteger(L, (lua_Integer)v); }

/* A raw value: an integer (not a float, not a string). */
static inline int lpl_toint64(lua_State *L, int i, int64_t *out)
{
    if (!lua_isinteger(L, i))
        return 0;
    *out = (int64_t)lua_tointeger(L, i);
    return 1;
}

#else  /* 5.1, 5.2, LuaJIT: numbers are doubles */

/* An integral double in the range of int64_t, as one. */
static inline int lpl_num2int(lua_Number n, lua_Integer *out)
{
    if (!(n >= -9223372036854775808.0 && n < 9223372036854775808.0) || n != (lua_Number)(lua_Integer)n)
        return 0;
    *out = (lua_Integer)n;
    return 1;
}

static inline int lpl_isinteger(lua_State *L, int i)
{
    lua_Integer v;
    return lua_type(L, i) == LUA_TNUMBER && lpl_num2int(lua_tonumber(L, i), &v);
}

/* As 5.3: numbers and numeric strings with an integral value. */
static inline lua_Integer lpl_tointegerx(lua_State *L, int i, int *isnum)
{
    lua_Integer v = 0;
    int ok = lua_isnumber(L, i) && lpl_num2int(lua_tonumber(L, i), &v);
    if (isnum)
        *isnum = ok;
    return ok ? v : 0;
}

static inline lua_Integer lpl_checkinteger(lua_State *L, int i)
{
    lua_Integer v = 0;
    if (!lpl_num2int(luaL_checknumber(L, i), &v))
        luaL_argerror(L, i, "number has no integer representation");
    return v;
}

#undef lua_isinteger
#undef lua_tointegerx
#undef luaL_checkinteger
#undef luaL_optinteger
#define lua_isinteger lpl_isinteger
#define lua_tointegerx lpl_tointegerx
#define luaL_checkinteger lpl_checkinteger
#define luaL_optinteger(L, i, d) (lua_isnoneornil(L, (i)) ? (lua_Integer)(d) : lpl_checkinteger(L, (i)))

static inline void lpl_pushint64(lua_State *L, int64_t v)
{
    char buf[24];
    if (v >= -LPL_EXACT_MAX && v <= LPL_EXACT_MAX) {
        lua_pushnumber(L, (lua_Number)v);
        return;
    }
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    lua_pushstring(L, buf);
}

/* A raw value: an integral number, or the decimal string of one beyond
 * 2^53 (signed, or unsigned up to 2^64-1 as its two's complement). */
static inline int lpl_toint64(lua_State *L, int i, int64_t *out)
{
    lua_Integer v = 0;
    const char *s, *p;
    char *end;
    if (lua_type(L, i) == LUA_TNUMBER) {
        if (!lpl_num2int(lua_tonumber(L, i), &v))
            return 0;
        *out = (int64_t)v;
        return 1;
    }
    if (lua_type(L, i) != LUA_TSTRING)
        return 0;
    s = lua_tostring(L, i);
    for (p = *s == '-' ? s + 1 : s; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    if (p == s || (*s == '-' && p == s + 1))
        return 0;
    errno = 0;
    if (*s == '-')
        *out = (int64_t)strtoll(s, &end, 10);
    else
        *out = (int64_t)strtoull(s, &end, 10);
    /* only the form lpl_pushint64 gives: beyond 2^53, no overflow */
    return errno == 0 && (*out < -LPL_EXACT_MAX || *out > LPL_EXACT_MAX || (*s != '-' && *out < 0));
}

/* 5.1 and 5.2 know no %I: lua_pushfstring and luaL_error go through this,
 * which reads %I as a lua_Integer and hands the rest to lua_pushfstring. */
static inline const char *lpl_pushvfstring(lua_State *L, const char *fmt, va_list ap)
{
    int n = 0;
    const char *e;
    char buf[32];
    luaL_checkstack(L, 8, "lpl_pushvfstring");
    while ((e = strchr(fmt, '%')) != NULL) {
        lua_pushlstring(L, fmt, (size_t)(e - fmt));
        switch (e[1]) {
        case 's': { const char *str = va_arg(ap, const char *); lua_pushstring(L, str ? str : "(null)"); break; }
        case 'd': lua_pushfstring(L, "%d", va_arg(ap, int)); break;
        case 'c': lua_pushfstring(L, "%c", va_arg(ap, int)); break;
        case 'f': lua_pushfstring(L, "%f", va_arg(ap, lua_Number)); break;
        case 'p': lua_pushfstring(L, "%p", va_arg(ap, void *)); break;
        case 'I': snprintf(buf, sizeof buf, "%lld", (long long)va_arg(ap, lua_Integer)); lua_pushstring(L, buf); break;
        default: lua_pushlstring(L, e + 1, e[1] ? 1 : 0); break;    /* "%%" */
        }
        n += 2;
        fmt = e[1] ? e + 2 : e + 1;
        if (n >= 6) {
            lua_concat(L, n);
            n = 1;
        }
    }
    lua_pushstring(L, fmt);
    lua_concat(L, n + 1);
    return lua_tostring(L, -1);
}

static inline const char *lpl_pushfstring(lua_State *L, const char *fmt, ...)
{
    const char *s;
    va_list ap;
    va_start(ap, fmt);
    s = lpl_pushvfstring(L, fmt, ap);
    va_end(ap);
    return s;
}

static inline int lpl_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    luaL_where(L, 1);
    va_start(ap, fmt);
    lpl_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    return lua_error(L);
}

#define lua_pushfstring lpl_pushfstring
#define luaL_error lpl_error

#endif /* below 5.3 */

/* ---- 5.4's API where 5.3 (and so compat-5.3) lacks it ------------------------ */

#if LUA_VERSION_NUM < 504
#if LUA_VERSION_NUM == 501
#define LPL_GETUV(L, i) lua_getfenv((L), (i))
#define LPL_SETUV(L, i) lua_setfenv((L), (i))
#else
#define LPL_GETUV(L, i) lua_getuservalue((L), (i))
#define LPL_SETUV(L, i) lua_setuservalue((L), (i))
#endif

/* 5.4's n user values live in a table, the one user value (5.1: the
 * environment) that these versions give a userdata; t[0] = n tells it from
 * 5.1's default environment (the creating function's globals). */
static inline void *lpl_newuserdatauv(lua_State *L, size_t size, int nuv)
{
    void *p = lua_newuserdata(L, size);
    if (nuv > 0) {
        lua_createtable(L, nuv, 1);
        lua_pushinteger(L, nuv);
        lua_rawseti(L, -2, 0);
        LPL_SETUV(L, -2);
    }
    return p;
}

/* Pushes the user value table of the userdata at i if it has user value n. */
static inline int lpl_uvtable(lua_State *L, int i, int n)
{
    LPL_GETUV(L, i);
    if (lua_istable(L, -1)) {
        lua_rawgeti(L, -1, 0);
        if (lua_tointeger(L, -1) >= n && n >= 1) {
            lua_pop(L, 1);
            return 1;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

static inline int lpl_getiuservalue(lua_State *L, int i, int n)
{
    i = lua_absindex(L, i);
    if (!lpl_uvtable(L, i, n)) {
        lua_pushnil(L);
        return LUA_TNONE;
    }
    lua_rawgeti(L, -1, n);
    lua_remove(L, -2);
    return lua_type(L, -1);
}

static inline int lpl_setiuservalue(lua_State *L, int i, int n)
{
    i = lua_absindex(L, i);
    if (!lpl_uvtable(L, i, n)) {
        lua_pop(L, 1);
        return 0;
    }
    lua_insert(L, -2);
    lua_rawseti(L, -2, n);
    lua_pop(L, 1);
    return 1;
}

#define lua_newuserdatauv lpl_newuserdatauv
#define lua_getiuservalue lpl_getiuservalue
#define lua_setiuservalue lpl_setiuservalue

static inline int lpl_typeerror(lua_State *L, int arg, const char *tname)
{
    const char *got;
    if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
        got = "light userdata";
    else
        got = luaL_typename(L, arg);
    return luaL_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, got));
}
#define luaL_typeerror lpl_typeerror
#define luaL_argexpected(L, cond, arg, tname) ((void)((cond) || lpl_typeerror(L, (arg), (tname))))
#endif

#endif
