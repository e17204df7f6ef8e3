/***
 * The rule bank (`perflib.RuleBank`): perflib.rules' fast path.  A rule
 * whose instance list is steady, watched per instance with threshold levels,
 * is registered here with its windows; `step` then cooks every value, applies
 * the levels and hands back only the rules that need the Lua engine: those
 * with an alert that is not quiet (inactive, condition false, flap history
 * steady), those whose instance list changed, and those never registered.
 * The engine keeps the state machine; the bank only spares it the quiet ones.
 * @module perflib.core
 */
#include "lpl.h"
#include "pl_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { R_SLOW, R_FAST, R_OFF };
enum { C_FALSE, C_TRUE, C_UNKNOWN };
/* What the bank does on its own for an alert (the engine says, after each step it runs) */
enum { Q_NONE,                       /* nothing: the engine steps it */
       Q_INACTIVE,                   /* inactive: while the condition stays false */
       Q_FIRING,                     /* firing: while it stays true at level qlvl */
       Q_RECOVERING };               /* recovering: while it stays false, until keep has passed */
#define MAX_CODES 256                /* distinct status strings remembered */

typedef struct bseries {
    pl_window *w;                    /* inside a perflib.Window pinned by the user value */
    pl_flap *fh;                     /* the alert's perflib.Flap (pinned too), or NULL */
    double value;
    double since;                    /* Q_RECOVERING: clear since */
    uint32_t latch;
    int16_t lvl, qlvl;               /* severity level index or -1; the one Q_FIRING expects */
    uint8_t why, c, mode, flapping;
    uint16_t status;                 /* status code (names in the user value) */
} bseries;

typedef struct brule {
    int state;
    int sid;                         /* source id, 1-based */
    lua_Integer ver;                 /* the source's instance-list version when registered */
    double every, last, dt;
    int has_last, has_dt;
    int stepped;                     /* cooked since it was registered */
    pl_wfn fn;
    double window, p;
    double high, low;                /* flap thresholds */
    double keep;                     /* how long an alert must stay clear */
    double gap;                      /* a longer dt is a gap, which restarts keep (0: none) */
    int nlv;
    pl_wlevel *lv;
    size_t n, nflag;
    bseries *s;
    uint32_t *flag;
} brule;

typedef struct lpl_rulebank {
    size_t nrules;                   /* 0 once released */
    brule *r;
    size_t nsrc;
    lua_Integer *ver;                /* nsrc: each source's version in the step at hand */
    uint16_t ncodes;
    pl_wstatus kind[MAX_CODES + 1];
} lpl_rulebank;

/* User value slots */
enum { UV_KEYS = 1, UV_NAMES, UV_WINS, UV_CODES, UV_CNAMES, UV_FLAPS, UV_N = UV_FLAPS };

static lpl_rulebank *check_bank(lua_State *L, int i)
{
    lpl_rulebank *b = luaL_checkudata(L, i, LPL_RULEBANK);
    if (!b->r)
        luaL_argerror(L, i, "attempt to use a released rule bank");
    return b;
}

static brule *check_rule(lua_State *L, lpl_rulebank *b, int i)
{
    lua_Integer k = luaL_checkinteger(L, i);
    luaL_argcheck(L, k >= 1 && (size_t)k <= b->nrules, i, "rule index out of range");
    return &b->r[k - 1];
}

static void clear_rule(brule *r)
{
    free(r->lv);
    free(r->s);
    free(r->flag);
    r->lv = NULL;
    r->s = NULL;
    r->flag = NULL;
    r->n = r->nflag = 0;
    r->nlv = 0;
}

static int bank_release(lua_State *L)
{
    lpl_rulebank *b = luaL_checkudata(L, 1, LPL_RULEBANK);
    if (b->r) {
        for (size_t i = 0; i < b->nrules; i++)
            clear_rule(&b->r[i]);
        free(b->r);
        free(b->ver);
        b->r = NULL;
        b->ver = NULL;
        b->nrules = 0;
    }
    return 0;
}

static void push_uv(lua_State *L, int bi, int slot)
{
    lua_getiuservalue(L, bi, 1);
    lua_rawgeti(L, -1, slot);
    lua_remove(L, -2);
}

/* The code of a status string (interned in the user value). */
static uint16_t intern(lua_State *L, lpl_rulebank *b, int codes, int cnames, int si)
{
    lua_pushvalue(L, si);
    if (lua_rawget(L, codes) == LUA_TNUMBER) {
        uint16_t c = (uint16_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
        return c;
    }
    lua_pop(L, 1);
    if (b->ncodes >= MAX_CODES)
        return 0;                    /* code 0: "other" (beyond 256 distinct strings) */
    uint16_t c = ++b->ncodes;
    b->kind[c] = lpl_wstatus_of(lua_tostring(L, si));
    lua_pushvalue(L, si);
    lua_pushinteger(L, c);
    lua_rawset(L, codes);
    lua_pushvalue(L, si);
    lua_rawseti(L, cnames, c);
    return c;
}

/***
 * A rule bank for `n` rules (indexes 1..n), all slow at first.
 * @function rulebank
 * @tparam integer n
 * @treturn perflib.RuleBank
 */
int lpl_new_rulebank(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    luaL_argcheck(L, n >= 0 && n <= 100000000, 1, "rule count out of range");
    lpl_rulebank *b = lua_newuserdatauv(L, sizeof *b, 1);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, LPL_RULEBANK);
    lua_createtable(L, UV_N, 0);
    for (int k = 1; k <= UV_N; k++) {
        lua_newtable(L);
        lua_rawseti(L, -2, k);
    }
    lua_setiuservalue(L, -2, 1);
    b->r = calloc(n ? (size_t)n : 1, sizeof *b->r);
    if (!b->r)
        return luaL_error(L, "rulebank: %s", strerror(ENOMEM));
    b->nrules = (size_t)n;
    /* the statuses every frame has, interned first */
    static const char *const pre[] = { "valid", "no_data", "negative_delta", "reset", "first_sample" };
    int top = lua_gettop(L);
    push_uv(L, top, UV_CODES);
    push_uv(L, top, UV_CNAMES);
    for (size_t k = 0; k < sizeof pre / sizeof *pre; k++) {
        lua_pushstring(L, pre[k]);
        intern(L, b, top + 1, top + 2, lua_gettop(L));
        lua_pop(L, 1);
    }
    lua_settop(L, top);
    return 1;
}

/***
 * The id of a source key (its frame key), made on first use.
 * @function RuleBank:source
 * @tparam string key
 * @treturn integer sid
 */
static int b_source(lua_State *L)
{
    lpl_rulebank *b = check_bank(L, 1);
    luaL_checkstring(L, 2);
    push_uv(L, 1, UV_KEYS);
    for (size_t k = 1; k <= b->nsrc; k++) {
        lua_rawgeti(L, -1, (lua_Integer)k);
        if (lua_rawequal(L, -1, 2)) {
            lua_pushinteger(L, (lua_Integer)k);
            return 1;
        }
        lua_pop(L, 1);
    }
    /* the step's scratch grows with the sources, never per step */
    lua_Integer *ver = realloc(b->ver, (b->nsrc + 1) * sizeof *ver);
    if (!ver)
        return luaL_error(L, "rulebank: %s", strerror(ENOMEM));
    b->ver = ver;
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, (lua_Integer)++b->nsrc);
    lua_pushinteger(L, (lua_Integer)b->nsrc);
    return 1;
}

static double num_field(lua_State *L, int t, const char *k, double dflt)
{
    double v = dflt;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        if (!lua_isnumber(L, -1))
            luaL_error(L, "rulebank: field '%s' must be a number", k);
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* Checks that field k of t is a table with n entries; leaves it pushed. */
static void list_field(lua_State *L, int t, const char *k, size_t n)
{
    if (lua_getfield(L, t, k) != LUA_TTABLE || lua_rawlen(L, -1) != n)
        luaL_error(L, "rulebank: field '%s' must be a list of %d", k, (int)n);
}

/***
 * Registers rule `i` for the fast path (replacing what it had).
 * spec: `sid`, `ver`, `every` (0: every step), `last` (last evaluation or nil),
 * `fn`, `window`, `p`, `levels` ({up =, x =, clear =, rank =} each),
 * `names`, `wins` (perflib.Window each), `latch` (integer bits each),
 * `mode` (0, 1 inactive, 2 firing: see `quiet`), `flaps` (perflib.Flap or
 * false each), `flapping` (boolean each), `high` and `low` (flap thresholds),
 * `gap` (an evaluation interval longer than this is a gap: the engine restarts keep).
 * @function RuleBank:set
 */
static int b_set(lua_State *L)
{
    lpl_rulebank *b = check_bank(L, 1);
    brule *r = check_rule(L, b, 2);
    int i = (int)lua_tointeger(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    brule nr;
    memset(&nr, 0, sizeof nr);
    lua_Integer sid = (lua_Integer)num_field(L, 3, "sid", 0);
    if (sid < 1 || (size_t)sid > b->nsrc)
        return luaL_error(L, "rulebank: bad source id");
    nr.sid = (int)sid;
    lua_getfield(L, 3, "ver");
    nr.ver = lua_tointeger(L, -1);
    lua_pop(L, 1);
    nr.every = num_field(L, 3, "every", 0.0);
    lua_getfield(L, 3, "last");
    nr.has_last = lua_isnumber(L, -1);
    nr.last = nr.has_last ? lua_tonumber(L, -1) : 0.0;
    lua_pop(L, 1);
    lua_getfield(L, 3, "fn");
    const char *fn = lua_tostring(L, -1);
    nr.fn = fn ? pl_wfn_parse(fn) : PL_WFN_NONE;
    lua_pop(L, 1);
    if (nr.fn == PL_WFN_NONE)
        return luaL_error(L, "rulebank: bad value function");
    nr.window = num_field(L, 3, "window", 0.0);
    nr.p = num_field(L, 3, "p", 0.0);
    nr.keep = num_field(L, 3, "keep", 0.0);
    nr.gap = num_field(L, 3, "gap", 0.0);
    nr.high = num_field(L, 3, "high", 2.0);
    nr.low = num_field(L, 3, "low", 0.0);
    if (lua_getfield(L, 3, "levels") != LUA_TTABLE)
        return luaL_error(L, "rulebank: field 'levels' must be a list");
    size_t nlv = lua_rawlen(L, -1);
    if (nlv < 1 || nlv > PL_WLEVEL_MAX)
        return luaL_error(L, "rulebank: 1 to %d levels", PL_WLEVEL_MAX);
    int lvi = lua_gettop(L);
    lua_getfield(L, 3, "names");
    size_t n = lua_rawlen(L, -1);
    lua_pop(L, 1);
    /* the per-entry lists, each n long, pushed in this order */
    static const char *const lists[] = { "names", "wins", "latch", "mode", "flaps", "flapping" };
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
        list_field(L, 3, lists[k], n);
    int flapping = lua_gettop(L), flaps = flapping - 1, mode = flapping - 2, latch = flapping - 3,
        wins = flapping - 4, names = flapping - 5;
    nr.lv = calloc(nlv, sizeof *nr.lv);
    nr.s = calloc(n ? n : 1, sizeof *nr.s);
    nr.flag = calloc(n ? n : 1, sizeof *nr.flag);
    if (!nr.lv || !nr.s || !nr.flag) {
        clear_rule(&nr);
        return luaL_error(L, "rulebank: %s", strerror(ENOMEM));
    }
    nr.nlv = (int)nlv;
    for (size_t k = 0; k < nlv; k++) {
        lua_rawgeti(L, lvi, (lua_Integer)k + 1);
        int li = lua_gettop(L);
        pl_wlevel *lv = &nr.lv[k];
        lua_getfield(L, li, "up");
        lv->up = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lv->x = num_field(L, li, "x", 0.0);
        lua_getfield(L, li, "clear");
        lv->has_clear = lua_isnumber(L, -1);
        lv->clear = lv->has_clear ? lua_tonumber(L, -1) : 0.0;
        lua_pop(L, 1);
        lv->rank = (int)num_field(L, li, "rank", 0);
        lua_pop(L, 1);
    }
    for (size_t k = 0; k < n; k++) {
        bseries *s = &nr.s[k];
        lua_rawgeti(L, names, (lua_Integer)k + 1);
        int isname = lua_type(L, -1) == LUA_TSTRING;
        lua_pop(L, 1);
        lua_rawgeti(L, wins, (lua_Integer)k + 1);
        s->w = luaL_testudata(L, -1, LPL_WINDOW);
        lua_pop(L, 1);
        if (!isname || !s->w) {
            clear_rule(&nr);
            return luaL_error(L, "rulebank: entry %d needs a name and a perflib.Window", (int)k + 1);
        }
        if (lpl_window_released(s->w)) {
            clear_rule(&nr);
            return luaL_error(L, "rulebank: entry %d's perflib.Window is released", (int)k + 1);
        }
        lua_rawgeti(L, latch, (lua_Integer)k + 1);
        s->latch = (uint32_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
        lua_rawgeti(L, mode, (lua_Integer)k + 1);
        lua_Integer m = lua_tointeger(L, -1);
        s->mode = (uint8_t)(m == Q_INACTIVE ? Q_INACTIVE : Q_NONE);   /* Q_FIRING comes from `quiet` */
        s->qlvl = -1;
        lua_rawgeti(L, flaps, (lua_Integer)k + 1);
        s->fh = lpl_test_flap(L, -1);
        if (s->fh && lpl_flap_released(s->fh)) {
            clear_rule(&nr);
            return luaL_error(L, "rulebank: entry %d's perflib.Flap is released", (int)k + 1);
        }
        lua_rawgeti(L, flapping, (lua_Integer)k + 1);
        s->flapping = (uint8_t)lua_toboolean(L, -1);
        lua_pop(L, 3);
        s->c = C_UNKNOWN;
        s->why = PL_WHY_NODATA;
        s->lvl = -1;
        s->status = 2;               /* "no_data" until the first step */
    }
    nr.n = n;
    nr.state = R_FAST;
    clear_rule(r);
    *r = nr;
    /* pin the names and windows */
    push_uv(L, 1, UV_NAMES);
    lua_pushvalue(L, names);
    lua_rawseti(L, -2, i);
    push_uv(L, 1, UV_WINS);
    lua_pushvalue(L, wins);
    lua_rawseti(L, -2, i);
    push_uv(L, 1, UV_FLAPS);
    lua_pushvalue(L, flaps);
    lua_rawseti(L, -2, i);
    return 0;
}

static int set_state(lua_State *L, int state)
{
    lpl_rulebank *b = check_bank(L, 1);
    brule *r = check_rule(L, b, 2);
    int i = (int)lua_tointeger(L, 2);
    clear_rule(r);
    r->state = state;
    push_uv(L, 1, UV_NAMES);
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
    push_uv(L, 1, UV_WINS);
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
    push_uv(L, 1, UV_FLAPS);
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
    return 0;
}

/***
 * Takes rule `i` off the fast path: `step` lists it for the engine again.
 * @function RuleBank:drop
 */
static int b_drop(lua_State *L) { return set_state(L, R_SLOW); }

/***
 * Switches rule `i` off: `step` no longer lists it (a disabled rule).
 * @function RuleBank:off
 */
static int b_off(lua_State *L) { return set_state(L, R_OFF); }

/* Reads the value at the top (popped) into *v; 0 when it is not a number
 * (below 5.3 a raw count beyond 2^53 is its decimal string: lcompat.h). */
static int take_value(lua_State *L, pl_wval *v)
{
    int isnum = 0;
    int64_t n;
    if (lpl_toint64(L, -1, &n)) {
        isnum = v->isint = 1;
        v->i = n;
        v->d = (double)n;
    } else if (lua_type(L, -1) == LUA_TNUMBER) {
        isnum = 1;
        v->isint = 0;
        v->i = 0;
        v->d = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return isnum;
}

static void step_rule(lua_State *L, lpl_rulebank *b, brule *r, double t, int vt, int st, int names, int codes,
                      int cnames, const char *valid)
{
    r->nflag = 0;
    for (size_t k = 0; k < r->n; k++) {
        bseries *s = &r->s[k];
        /* the bank pins its windows and flaps, but a __close can release them */
        if (lpl_window_released(s->w) || (s->fh && lpl_flap_released(s->fh)))
            luaL_error(L, "rulebank: a window or flap history of rule series %d was released", (int)k + 1);
        lua_rawgeti(L, names, (lua_Integer)k + 1);
        int ni = lua_gettop(L);
        pl_wval v;
        int has = 0;
        if (vt) {
            lua_pushvalue(L, ni);
            lua_rawget(L, vt);
            has = take_value(L, &v);
        }
        uint16_t code = has ? 1 : 2;     /* "valid" or "no_data" when there is no status */
        if (st) {
            lua_pushvalue(L, ni);
            if (lua_rawget(L, st) == LUA_TSTRING)
                /* short strings are interned: "valid" is the bank's own "valid" */
                code = lua_tostring(L, -1) == valid ? 1 : intern(L, b, codes, cnames, lua_gettop(L));
        }
        lua_settop(L, ni - 1);
        pl_wstatus kind = code ? b->kind[code] : PL_WST_OTHER;
        double value = 0.0;
        pl_why why = PL_WHY_NODATA;
        if (pl_window_cook(s->w, t, has ? &v : NULL, kind, r->fn, r->window, r->p, &value, &why))
            why = PL_WHY_NODATA;     /* out of memory: unknown, never a wrong number */
        int c = C_UNKNOWN, lvl = -1;
        if (why == PL_WHY_NONE)
            c = pl_levels_eval(r->lv, r->nlv, value, &s->latch, &lvl) ? C_TRUE : C_FALSE;
        s->status = code;
        s->why = (uint8_t)why;
        s->value = value;
        s->c = (uint8_t)c;
        s->lvl = (int16_t)lvl;
        /* the engine's step would change nothing: the same expressions as its state machine */
        int mode = s->mode;
        int quiet = (mode == Q_INACTIVE && c == C_FALSE)
                 || (mode == Q_FIRING && c == C_TRUE && lvl == s->qlvl)
                 || (mode == Q_RECOVERING && c == C_FALSE && !(t - s->since >= r->keep - 1e-9)
                     && !(r->gap > 0 && r->has_dt && r->dt > r->gap));
        if (quiet && s->fh && !pl_flap_steady(s->fh, c == C_TRUE)) {
            /* the engine would step the flap history: so does the bank, unless flapping starts or
             * ends (a full history without a change stays as it is) */
            int bit = c == C_TRUE;
            double pct;
            int got = pl_flap_peek(s->fh, bit, &pct);
            if (pl_flap_change(s->flapping, got, pct, r->high, r->low))
                quiet = 0;
            else
                pl_flap_commit(s->fh, bit, got, pct);
        }
        if (!quiet)
            r->flag[r->nflag++] = (uint32_t)k;
    }
}

/***
 * One evaluation step at sample time `t` on `frame`.  `vers[sid]` is each
 * source's instance-list version in this frame (-1: missing).  Fills `todo`
 * with rule indexes in order: `i` for a rule the engine evaluates itself
 * (slow, or its list changed: it is slow from now on), `-i` for a fast rule
 * with flagged alerts (see `flagged`).
 * @function RuleBank:step
 * @treturn integer the number of entries in todo
 */
static int b_step(lua_State *L)
{
    lpl_rulebank *b = check_bank(L, 1);
    double t = luaL_checknumber(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TTABLE);
    lua_settop(L, 5);
    int uv = 6, keys = 7, namesuv = 8, codes = 9, cnames = 10;
    lua_getiuservalue(L, 1, 1);
    lua_rawgeti(L, uv, UV_KEYS);
    lua_rawgeti(L, uv, UV_NAMES);
    lua_rawgeti(L, uv, UV_CODES);
    lua_rawgeti(L, uv, UV_CNAMES);
    lua_rawgeti(L, cnames, 1);
    const char *valid = lua_tostring(L, -1);      /* kept alive by the user value */
    lua_pop(L, 1);
    /* per source: its version, then (when a rule needs it) value and status tables */
    size_t ns = b->nsrc;
    if (!lua_checkstack(L, (int)(2 * ns + 20)))
        return luaL_error(L, "rulebank: too many sources");
    lua_Integer *ver = b->ver;
    int base = lua_gettop(L);
    for (size_t k = 0; k < 2 * ns; k++)
        lua_pushboolean(L, 0);       /* false: not looked up yet */
    for (size_t k = 0; k < ns; k++) {
        lua_rawgeti(L, 4, (lua_Integer)k + 1);
        ver[k] = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
        lua_pop(L, 1);
    }
    lua_Integer n = 0;
    for (size_t i = 0; i < b->nrules; i++) {
        brule *r = &b->r[i];
        if (r->state == R_OFF)
            continue;
        if (r->state == R_SLOW) {
            lua_pushinteger(L, (lua_Integer)i + 1);
            lua_rawseti(L, 5, ++n);
            continue;
        }
        if (r->every > 0 && r->has_last && t - r->last < r->every - 1e-9)
            continue;
        if (ver[r->sid - 1] < 0 || ver[r->sid - 1] != r->ver) {
            r->state = R_SLOW;       /* the engine re-registers it when it is steady again */
            lua_pushinteger(L, (lua_Integer)i + 1);
            lua_rawseti(L, 5, ++n);
            continue;
        }
        int vt = base + 1 + 2 * (r->sid - 1), st = vt + 1;
        if (lua_isboolean(L, vt)) {
            lua_rawgeti(L, keys, r->sid);
            lua_rawget(L, 3);
            int fs = lua_gettop(L);
            if (lua_type(L, fs) == LUA_TTABLE) {
                lua_getfield(L, fs, "value");
                lua_replace(L, vt);
                lua_getfield(L, fs, "status");
                lua_replace(L, st);
            } else {
                lua_pushnil(L);
                lua_replace(L, vt);
                lua_pushnil(L);
                lua_replace(L, st);
            }
            lua_settop(L, fs - 1);
        }
        r->stepped = 1;
        r->has_dt = r->has_last;
        r->dt = t - r->last;
        r->last = t;
        r->has_last = 1;
        lua_rawgeti(L, namesuv, (lua_Integer)i + 1);
        step_rule(L, b, r, t, lua_istable(L, vt) ? vt : 0, lua_istable(L, st) ? st : 0, lua_gettop(L), codes,
                  cnames, valid);
        lua_pop(L, 1);
        if (r->nflag) {
            lua_pushinteger(L, -(lua_Integer)i - 1);
            lua_rawseti(L, 5, ++n);
        }
    }
    for (lua_Integer k = n + 1; lua_rawgeti(L, 5, k) != LUA_TNIL; k++) {
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, 5, k);        /* entries of an earlier, longer step */
    }
    lua_pushinteger(L, n);
    return 1;
}

/***
 * The flagged entries of fast rule `i` from the last step, into list `out`,
 * five slots each: entry index, condition (boolean, nil: unknown), why it is
 * unknown, value, level giving the severity (1-based) (see `result`).
 * @function RuleBank:flagged
 * @treturn integer how many entries
 * @treturn number|nil the time since the rule's evaluation before (nil: first)
 */
static int b_flagged(lua_State *L)
{
    lpl_rulebank *b = check_bank(L, 1);
    brule *r = check_rule(L, b, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_Integer o = 0;
    for (size_t k = 0; k < r->nflag; k++) {
        const bseries *s = &r->s[r->flag[k]];
        lua_pushinteger(L, (lua_Integer)r->flag[k] + 1);
        lua_rawseti(L, 3, ++o);
        if (s->c == C_UNKNOWN)
            lua_pushnil(L);
        else
            lua_pushboolean(L, s->c == C_TRUE);
        lua_rawseti(L, 3, ++o);
        const char *why = lpl_why_name(s->why);
        if (why)
            lua_pushstring(L, why);
        else
            lua_pushnil(L);
        lua_rawseti(L, 3, ++o);
        if (s->why == PL_WHY_NONE)
            lua_pushnumber(L, s->value);
        else
            lua_pushnil(L);
        lua_rawseti(L, 3, ++o);
        if (s->lvl >= 0)
            lua_pushinteger(L, s->lvl + 1);
        else
            lua_pushnil(L);
        lua_rawseti(L, 3, ++o);
    }
    lua_pushinteger(L, (lua_Integer)r->nflag);
    if (r->has_dt)
        lua_pushnumber(L, r->dt);
    else
        lua_pushnil(L);
    return 2;
}

static bseries *check_series(lua_State *L, brule *r, int i)
{
    lua_Integer k = luaL_checkinteger(L, i);
    luaL_argcheck(L, k >= 1 && (size_t)k <= r->n, i, "entry index out of range");
    return &r->s[k - 1];
}

/***
 * Entry `k` of rule `i` after the last step.
 * @function RuleBank:result
 * @treturn boolean|nil the condition (nil: unknown)
 * @treturn string|nil why it is unknown
 * @treturn number|nil the value
 * @treturn integer|nil the level that gives the severity (1-based)
 * @treturn string the status
 * @treturn integer the latched levels (bit k-1: level k)
 */
static int b_result(lua_State *L)
{
    lpl_rulebank *b = check_bank(L, 1);
    brule *r = check_rule(L, b, 2);
    bseries *s = check_series(L, r, 3);
    if (s->c == C_UNKNOWN)
        lua_pushnil(L);
    else
        lua_pushboolean(L, s->c == C_TRUE);
    const char *why = lpl_why_name(s->why);
    if (why)
        lua_pushstring(L, why);
    else
        lua_pushnil(L);
    if (s->why == PL_WHY_NONE)
        lua_pushnumber(L, s->value);
    else
        lua_pushnil(L);
    if (s->lvl >= 0)
        lua_pushinteger(L, s->lvl + 1);
    else
        lua_pushnil(L);
    push_uv(L, 1, UV_CNAMES);
    if (lua_rawgeti(L, -1, s->status) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushliteral(L, "other");
    }
    lua_remove(L, -2);
    lua_pushinteger(L, s->latch);
    return 6;
}

/***
 * What the bank may do on its own for entry `k` of rule `i`: mode 1 while
 * the alert is inactive and its condition stays false; mode 2 while it is
 * firing and its condition stays true at level `lvl` (0-based); mode 3
 * while it is recovering (clear since `since`) and its condition stays false
 * for less than the rule's keep; 0 nothing.
 * In modes 1 and 2 the bank also steps the alert's flap history, and flags
 * the entry when a push would start or end flapping.
 * @function RuleBank:quiet
 * @tparam integer i
 * @tparam integer k
 * @tparam integer mode
 * @tparam integer lvl
 * @tparam boolean flapping whether the alert is flapping now
 * @tparam[opt] number since mode 3: when the condition cleared
 */
static int b_quiet(lua_State *L)
{
    lpl_rulebank *b = check_bank(L, 1);
    brule *r = check_rule(L, b, 2);
    bseries *s = check_series(L, r, 3);
    lua_Integer m = luaL_checkinteger(L, 4), lvl = luaL_optinteger(L, 5, -1);
    luaL_argcheck(L, m >= Q_NONE && m <= Q_RECOVERING, 4, "mode must be 0 to 3");
    s->since = m == Q_RECOVERING ? luaL_checknumber(L, 7) : 0.0;
    luaL_argcheck(L, lvl >= -1 && lvl < r->nlv, 5, "level out of range");
    s->mode = (uint8_t)m;
    s->qlvl = (int16_t)lvl;
    s->flapping = (uint8_t)lua_toboolean(L, 6);
    return 0;
}

/***
 * Rule `i`'s last evaluation time, and whether the bank has cooked its
 * values since it was registered.
 * @function RuleBank:rule
 * @treturn number|nil last evaluation
 * @treturn boolean stepped
 */
static int b_rule(lua_State *L)
{
    lpl_rulebank *b = check_bank(L, 1);
    brule *r = check_rule(L, b, 2);
    if (r->has_last)
        lua_pushnumber(L, r->last);
    else
        lua_pushnil(L);
    lua_pushboolean(L, r->stepped);
    return 2;
}

static int b_len(lua_State *L)
{
    lpl_rulebank *b = luaL_checkudata(L, 1, LPL_RULEBANK);
    lua_pushinteger(L, (lua_Integer)b->nrules);
    return 1;
}

static int b_tostring(lua_State *L)
{
    lpl_rulebank *b = luaL_checkudata(L, 1, LPL_RULEBANK);
    if (!b->r)
        lua_pushliteral(L, "perflib.RuleBank (released)");
    else
        lua_pushfstring(L, "perflib.RuleBank (%d rules): %p", (int)b->nrules, (void *)b);
    return 1;
}

void lpl_open_rulebank(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", bank_release }, { "__close", bank_release }, { "__len", b_len }, { "__tostring", b_tostring },
        { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "source", b_source }, { "set", b_set }, { "drop", b_drop }, { "off", b_off }, { "step", b_step },
        { "flagged", b_flagged }, { "result", b_result }, { "quiet", b_quiet }, { "rule", b_rule },
        { NULL, NULL }
    };
    lpl_newclass(L, LPL_RULEBANK, meta, methods);
}
