/***
 * The rule sandbox: a call that an instruction limit, a memory budget and a
 * stop signal end whatever the code inside does (pcall cannot swallow the
 * limit: once hit, every instruction raises again), with the sandbox's own
 * string metatable, and library functions that a count hook cannot
 * interrupt (pattern matching, table shifts) charged their worst case.
 * @module perflib.core
 */
#include "lpl.h"

#include <string.h>

#define SB_PERIOD 1000              /* instructions between two hook calls */

enum { SB_RUNNING, SB_INSTRUCTIONS, SB_MEMORY, SB_SIGNAL };
static const char *const sb_kind[] = { "error", "instructions", "memory", "signal" };

typedef struct sandbox {
    lua_Alloc alloc;                /* the state's allocator, which this one wraps */
    void *ud;
    lua_State *L;                   /* the thread that made the call */
    lua_Integer limit, used;        /* instructions, and steps charged by the library */
    long long budget, net;          /* bytes allocated net since the call began */
    int period;                     /* the hook's current count */
    int stopped;                    /* SB_* once nothing inside may go on */
    const char *signal;             /* the stop signal's name */
    int deny;                       /* fail every growth: the hook raises */
    int suspect;                    /* a growth over budget failed; no retry succeeded yet */
    const void *fptr;               /* that request, to tell Lua's emergency retry */
    size_t fosize, fnsize;
} sandbox;

static void sb_hook(lua_State *L, lua_Debug *ar);
static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* The sandbox running on L's state, or NULL outside any. */
static sandbox *sb_current(lua_State *L)
{
    void *ud;
    return lua_getallocf(L, &ud) == sb_alloc ? ud : NULL;
}

/* The hook's count while nothing is amiss. */
static int sb_period(const sandbox *sb)
{
    return sb->limit < SB_PERIOD ? (int)sb->limit : SB_PERIOD;
}

static void sb_arm(lua_State *L, sandbox *sb, int count)
{
    sb->period = count;
    lua_sethook(L, sb_hook, count == 1 ? LUA_MASKCOUNT | LUA_MASKCALL : LUA_MASKCOUNT, count);
}

/* From now on every instruction and call raises: a pcall inside catches one
 * error, and the next instruction of its caller raises again. */
static void sb_stop(lua_State *L, sandbox *sb, int why)
{
    if (!sb->stopped)
        sb->stopped = why;
    sb_arm(L, sb, 1);
}

static void sb_hook(lua_State *L, lua_Debug *ar)
{
    sandbox *sb = sb_current(L);
    if (!sb) {                      /* a coroutine that outlived its call */
        lua_sethook(L, NULL, 0, 0);
        return;
    }
    if (!sb->stopped) {
        const char *sig = lpl_stop_signal();
        if (sb->suspect)
            sb_stop(L, sb, SB_MEMORY);
        else if (sig) {
            sb->signal = sig;
            sb_stop(L, sb, SB_SIGNAL);
        } else if (ar->event == LUA_HOOKCOUNT && (sb->used += sb->period) >= sb->limit)
            sb_stop(L, sb, SB_INSTRUCTIONS);
        else
            return;
    }
    sb_arm(L, sb, 1);               /* this thread too, if it is another */
    /* Raise as a memory error: Lua calls no message handler for those, and a
     * handler (xpcall's) called from here would run with hooks off. */
    sb->deny = 1;
    lua_newuserdatauv(L, 64, 0);
}

/* Counts net bytes; a growth beyond the budget fails.  Lua answers a failure
 * with a full collection and the same request again: only when that retry
 * fails too (or no retry came before the next instruction) is the budget
 * spent for good. */
static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sandbox *sb = ud;
    size_t old = ptr ? osize : 0;
    if (nsize > old) {
        if (sb->deny)
            return NULL;
        int retry = sb->suspect && ptr == sb->fptr && osize == sb->fosize && nsize == sb->fnsize;
        long long room = sb->budget - sb->net;
        if (nsize - old > (unsigned long long)(room > 0 ? room : 0)) {
            if (retry)
                sb_stop(sb->L, sb, SB_MEMORY);
            else {
                sb->suspect = 1;
                sb->fptr = ptr, sb->fosize = osize, sb->fnsize = nsize;
                sb_arm(sb->L, sb, 1);       /* decide at the next instruction */
            }
            return NULL;
        }
        if (retry) {
            sb->suspect = 0;
            if (!sb->stopped)
                sb_arm(sb->L, sb, sb_period(sb));
        }
    }
    void *p = sb->alloc(sb->ud, ptr, osize, nsize);
    if (p || nsize == 0)
        sb->net += (long long)nsize - (long long)old;
    return p;
}

/* Why the call failed, as the message and kind it returns. */
static int sb_failed(lua_State *L, const sandbox *sb, int status)
{
    int why = sb->stopped;
    /* a refused allocation that failed the call: a memory error, or on 5.3
     * the plain error its luaL_Buffer raises ("not enough memory for buffer
     * allocation": it calls the allocator itself, and Lua retries nothing) */
    if (!why && status != LUA_OK && sb->suspect)
        why = SB_MEMORY;
    lua_pushboolean(L, 0);
    switch (why) {
    case SB_INSTRUCTIONS:
        lua_pushfstring(L, "instruction limit (%I) exceeded", sb->limit);
        break;
    case SB_MEMORY:
        lua_pushfstring(L, "memory budget (%I bytes) exceeded", (lua_Integer)sb->budget);
        break;
    case SB_SIGNAL:
        lua_pushfstring(L, "stopped by SIG%s", sb->signal);
        break;
    default:
        lua_pushvalue(L, -2);       /* the error object as raised */
    }
    lua_pushstring(L, sb_kind[why]);
    return 3;
}

static void set_string_meta(lua_State *L, int idx)
{
    lua_pushliteral(L, "");
    lua_pushvalue(L, idx);
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
}

/***
 * Calls `fn(...)` in the sandbox: at most `limit` instructions (steps that
 * library functions are charged count too), at most `memory` bytes
 * allocated net, `strmt` as the metatable of strings while it runs (nil: the
 * current one), and a trapped TERM or INT ends it.  Once a limit is hit,
 * every further instruction raises, so a pcall inside cannot go on.
 * @function sandbox
 * @tparam integer limit instructions (> 0)
 * @tparam integer memory bytes (> 0)
 * @tparam[opt] table strmt the string metatable inside
 * @tparam function fn
 * @param ... its arguments
 * @return[1] true, and what fn returned
 * @return[2] false, message (or the error object), kind: "error",
 *   "instructions", "memory" or "signal"
 */
int lpl_sandbox(lua_State *L)
{
    lua_Integer limit = luaL_checkinteger(L, 1), memory = luaL_checkinteger(L, 2);
    int nargs = lua_gettop(L) - 4, status;
    sandbox sb;
    luaL_argcheck(L, limit > 0, 1, "positive instruction limit expected");
    luaL_argcheck(L, memory > 0 && memory <= ((lua_Integer)1 << 50), 2, "memory budget out of range");
    if (!lua_isnil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checkany(L, 4);
    lpl_interpreted(L, 4);
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1))
        lua_pushnil(L);
    lua_replace(L, -2);
    lua_insert(L, 4);               /* the string metatable to put back, below fn */
    lua_Hook hook = lua_gethook(L);
    int hmask = lua_gethookmask(L), hcount = lua_gethookcount(L);
    memset(&sb, 0, sizeof sb);
    sb.L = L, sb.limit = limit, sb.budget = memory;
    if (!lua_isnil(L, 3))
        set_string_meta(L, 3);
    sb.alloc = lua_getallocf(L, &sb.ud);
    lua_setallocf(L, sb_alloc, &sb);
    sb_arm(L, &sb, sb_period(&sb));
    status = lua_pcall(L, nargs, LUA_MULTRET, 0);
    lua_sethook(L, hook, hmask, hcount);
    lua_setallocf(L, sb.alloc, sb.ud);
    set_string_meta(L, 4);
    if (status != LUA_OK || sb.stopped)
        return sb_failed(L, &sb, status);
    lua_pushboolean(L, 1);
    lua_replace(L, 4);
    return lua_gettop(L) - 3;
}

/* Charges `cost` steps to the running sandbox (none outside one); raises,
 * without stopping the sandbox, when fewer steps are left. */
static void sb_charge(lua_State *L, double cost, const char *what)
{
    sandbox *sb = sb_current(L);
    if (!sb)
        return;
    double left = (double)(sb->limit - sb->used);
    if (!(cost <= left))
        luaL_error(L, "%s: worst case %f steps exceeds the %I left of the instruction limit",
                   what, cost, sb->limit - sb->used);
    sb->used += (lua_Integer)cost;
}

/* Calls the real function (upvalue 1) with the wrapper's arguments. */
static int call_real(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* Where a single-character class of a pattern ends (lstrlib's classEnd,
 * without raising: the real function reports a malformed pattern). */
static const char *class_end(const char *p, const char *ep)
{
    char c = *p++;
    if (c == '%')
        return p < ep ? p + 1 : ep;
    if (c == '[') {
        if (p < ep && *p == '^')
            p++;
        do {
            if (p >= ep)
                return ep;
            if (*p++ == '%' && p < ep)
                p++;
        } while (p < ep && *p != ']');
        return p < ep ? p + 1 : ep;
    }
    return p;
}

/* Worst-case steps of lstrlib's matcher for pattern p at ONE start position
 * of a subject of n bytes.  It backtracks without memory: an item is visited
 * at most once per path through the items before it, so the visits of item
 * d are at most the product of the earlier items' branchings (n + 1 for
 * '*', '+', '-'; 2 for '?'; 1 otherwise), and one visit costs the class
 * length c for one test; c(n + 1) + n + 1 for '*' and '+' (the greedy scan,
 * then one try per length); (c + 1)(n + 1) for '-'; n + 1 for %b and back
 * references (a scan or compare of at most the subject). */
static double pattern_steps(const char *p, const char *ep, double n)
{
    double paths = 1, steps = 0;
    while (p < ep) {
        const char *q;
        if (*p == '(' || *p == ')') {
            p += (*p == '(' && p + 1 < ep && p[1] == ')') ? 2 : 1;
            steps += paths;
            continue;
        }
        if (*p == '$' && p + 1 == ep) {
            steps += paths;
            break;
        }
        if (*p == '%' && p + 1 < ep && (p[1] == 'b' || (p[1] >= '0' && p[1] <= '9'))) {
            p += p[1] == 'b' ? 4 : 2;
            steps += paths * (n + 1);
            continue;
        }
        if (*p == '%' && p + 1 < ep && p[1] == 'f') {
            p += 2;
            q = p < ep ? class_end(p, ep) : ep;
            steps += paths * (double)(q - p + 1);
            p = q;
            continue;
        }
        q = class_end(p, ep);
        double c = (double)(q - p);
        char suffix = q < ep ? *q : 0;
        p = q + 1;                      /* past the suffix, if there is one */
        if (suffix == '*' || suffix == '+') {
            steps += paths * (c * (n + 1) + n + 1);
            paths *= n + 1;
        } else if (suffix == '-') {
            steps += paths * (c + 1) * (n + 1);
            paths *= n + 1;
        } else if (suffix == '?') {
            steps += paths * (c + 1);
            paths *= 2;
        } else {
            steps += paths * c;
            p = q;
        }
    }
    return steps;
}

/* Whether lstrlib takes the pattern as plain text (its nospecials). */
static int no_specials(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (strchr("^$*+?.([%-", p[i]) && p[i] != '\0')
            return 0;
    return 1;
}

enum { PAT_FIND, PAT_MATCH, PAT_GMATCH, PAT_GSUB };

/* string.find/match/gmatch/gsub: charged, before the real call, the
 * worst case over every start position (n + 1, or 1 when anchored), plus
 * for gsub the replacement string scanned once per match. */
static int bounded_pattern(lua_State *L)
{
    static const char *const names[] = { "find", "match", "gmatch", "gsub" };
    int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
    size_t ls, lp;
    luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp), *ep = p + lp;
    double n = (double)ls, cost;
    if (kind == PAT_FIND && (lua_toboolean(L, 4) || no_specials(p, lp)))
        cost = (n + 1) * ((double)lp + 1);          /* lmemfind: a compare per start */
    else {
        int anchored = kind != PAT_GMATCH && lp > 0 && *p == '^';
        cost = (anchored ? 1 : n + 1) * (pattern_steps(p + anchored, ep, n) + 1);
    }
    if (kind == PAT_GSUB && (lua_type(L, 3) == LUA_TSTRING || lua_type(L, 3) == LUA_TNUMBER)) {
        size_t lr;
        lua_tolstring(L, 3, &lr);
        cost += (n + 1) * ((double)lr + 1);
    }
    sb_charge(L, cost, names[kind]);
    return call_real(L);
}

/* string.rep: with nothing to copy lstrlib still loops n times. */
static int bounded_rep(lua_State *L)
{
    size_t l, lsep;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0 && l + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    return call_real(L);
}

/* table.move: one step per element moved (nil moves allocate nothing). */
static int bounded_move(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    if (e >= f)
        sb_charge(L, (double)e - (double)f + 1, "move");
    return call_real(L);
}

/* table.insert/remove: one step per element shifted; the length of a
 * sparse table can be far beyond its entries. */
static int bounded_shift(lua_State *L)
{
    int insert = (int)lua_tointeger(L, lua_upvalueindex(2));
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_Integer n = luaL_len(L, 1), pos;
        if (insert)
            pos = lua_gettop(L) == 3 && lua_isinteger(L, 2) ? lua_tointeger(L, 2) : n + 1;
        else
            pos = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : n;
        double shift = (double)n - (double)pos + 1;
        sb_charge(L, shift > 1 ? shift : 1, insert ? "insert" : "remove");
    }
    return call_real(L);
}

static void wrap(lua_State *L, const char *lib, const char *name, lua_CFunction f, int arg)
{
    lua_getfield(L, -1, lib);                   /* the table being built */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, lib);                   /* the library as loaded */
    lua_getfield(L, -1, name);
    lua_replace(L, -3);
    lua_pop(L, 1);
    lua_pushinteger(L, arg);
    lua_pushcclosure(L, f, 2);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

/***
 * The library functions the sandbox replaces, bound over the real ones:
 * `string.find`, `match`, `gmatch`, `gsub` (charged their worst-case
 * backtracking), `rep`, and `table.move`, `insert`, `remove` (charged the
 * elements they shift).
 * @function sandbox_lib
 * @treturn table `{ string = {...}, table = {...} }`
 */
int lpl_sandbox_lib(lua_State *L)
{
    lua_createtable(L, 0, 2);
    lua_newtable(L);
    lua_setfield(L, -2, "string");
    lua_newtable(L);
    lua_setfield(L, -2, "table");
    wrap(L, "string", "find", bounded_pattern, PAT_FIND);
    wrap(L, "string", "match", bounded_pattern, PAT_MATCH);
    wrap(L, "string", "gmatch", bounded_pattern, PAT_GMATCH);
    wrap(L, "string", "gsub", bounded_pattern, PAT_GSUB);
    wrap(L, "string", "rep", bounded_rep, 0);
    wrap(L, "table", "move", bounded_move, 0);
    wrap(L, "table", "insert", bounded_shift, 1);
    wrap(L, "table", "remove", bounded_shift, 0);
    return 1;
}
