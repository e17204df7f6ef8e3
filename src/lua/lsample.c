/***
 * Samples: timestamped raw values of every specification of a query, and
 * formatted values computed in C from two samples.
 *
 * Raw values are integers (64-bit; values of 2^63 and above read as
 * negative: use `math.ult` or `("%u"):format(v)`).  Formatted values are
 * floats with a status; a value is nil unless its status is "valid".
 * @module perflib
 */
/***
 * A sample: the raw values one collect read; @{Query:collect} gives one.
 * (`Sample:values`, written in Lua, is listed with the functions above.)
 * @type Sample
 */
#include "lpl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *lpl_shape_name(uint32_t shape);

static lpl_sample *check_sample(lua_State *L, int i)
{
    lpl_sample *s = luaL_checkudata(L, i, LPL_SAMPLE);
    if (!s->s)
        luaL_argerror(L, i, "attempt to use a released sample");
    return s;
}

lpl_sample *lpl_check_sample(lua_State *L, int i)
{
    return check_sample(L, i);
}

#define INLINE_OFF ((sizeof(lpl_sample) + 15u) & ~(size_t)15u)

void *lpl_sample_alloc(void *ud, size_t size)
{
    lpl_alloc *a = ud;
    char *b;
    lpl_sample *u;
    if (a->reuse && a->reuse->cap >= size) {
        a->reused = 1;           /* refill in place: no allocation, no GC work */
        return (char *)(void *)a->reuse + INLINE_OFF;
    }
    b = lua_newuserdatauv(a->L, INLINE_OFF + size, 2);    /* machine, names cache */
    u = (lpl_sample *)(void *)b;
    u->s = NULL;
    u->cap = size;
    return b + INLINE_OFF;
}

lpl_sample *lpl_test_sample(lua_State *L, int i)
{
    return luaL_testudata(L, i, LPL_SAMPLE);
}

void lpl_sample_finish(lua_State *L, pl_sample *s, int mi)
{
    mi = lua_absindex(L, mi);
    luaL_getmetatable(L, LPL_SAMPLE);
    lua_insert(L, -2);
    lpl_sample_finish_meta(L, s, mi, -2);
    lua_remove(L, -2);
}

void lpl_sample_finish_meta(lua_State *L, pl_sample *s, int mi, int mt)
{
    lpl_sample *u = lua_touserdata(L, -1);
    mi = lua_absindex(L, mi);
    mt = lua_absindex(L, mt);
    u->s = s;
    lua_pushvalue(L, mt);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, mi);
    lua_setiuservalue(L, -2, 1);
}

/* The older sample at i (nil allowed), checked against s1.  Samples of one
 * query come in order; a sample from a data block (foreign) carries another
 * process's ids and sequence, so only its results' pairing is checked
 * (check_paired), and time order is each value's status. */
const pl_sample *lpl_opt_older(lua_State *L, int i, const pl_sample *s1)
{
    const pl_sample *s0;
    if (lua_isnoneornil(L, i))
        return NULL;
    s0 = check_sample(L, i)->s;
    if (s0->foreign || s1->foreign)
        return s0;
    if (s0->query_id != s1->query_id)
        luaL_argerror(L, i, "sample from another query");
    if (s0->seq >= s1->seq)
        luaL_argerror(L, i, lua_pushfstring(L, "older sample expected (#%d is not older than #%d)",
                                            (int)s0->seq, (int)s1->seq));
    return s0;
}

/* A foreign older sample at i must hold a result that b pairs with (the same
 * counterset and counters, a clock at the same frequency): comparing
 * unrelated results is refused, never guessed. */
void lpl_check_paired(lua_State *L, int i, const pl_sample *s1, const pl_block *b, const pl_sample *s0)
{
    if (!s0 || (!s0->foreign && !s1->foreign) || pl_sample_pair(s1, b, s0))
        return;
    luaL_argerror(L, i, lua_pushfstring(L, "no result in the other sample pairs with result #%d "
                                        "(%s, %d counters): counterset, counters and clock differ",
                                        (int)(b - s1->blocks) + 1, b->cs->name, (int)b->ncounters));
}

static const pl_block *check_block(lua_State *L, int i, const pl_sample *s)
{
    lua_Integer k = luaL_checkinteger(L, i);
    luaL_argcheck(L, k >= 1 && k <= (lua_Integer)s->nblocks, i, "no such result index");
    return &s->blocks[k - 1];
}

/* Instance by name, id or (for one-instance blocks) nil; -1 if absent. */
static int find_inst(lua_State *L, int i, const pl_sample *s, const pl_block *b)
{
    if (lua_isnoneornil(L, i))
        return b->ninst == 1 ? 0 : -1;
    if (lua_isinteger(L, i)) {
        lua_Integer id = lua_tointeger(L, i);
        for (uint32_t k = 0; k < b->ninst; k++)
            if ((lua_Integer)pl_sample_inst_id(s, b, k) == id)
                return (int)k;
        return -1;
    }
    const char *name = luaL_checkstring(L, i);
    for (uint32_t k = 0; k < b->ninst; k++)
        if (strcmp(pl_sample_inst_name(s, b, k), name) == 0)
            return (int)k;
    return -1;
}

static int find_counter(lua_State *L, int i, const pl_sample *s, const pl_block *b)
{
    if (lua_isnoneornil(L, i)) {
        luaL_argcheck(L, b->ncounters == 1, i, "counter name or id expected");
        return 0;
    }
    for (uint32_t c = 0; c < b->ncounters; c++) {
        const pl_counter_def *d = pl_sample_counter(s, b, c);
        if (lua_isinteger(L, i) ? (lua_Integer)d->id == lua_tointeger(L, i)
                                : strcasecmp(d->name, luaL_checkstring(L, i)) == 0)
            return (int)c;
    }
    return luaL_argerror(L, i, lua_pushfstring(L, "no such counter in result #%d", (int)b->index + 1));
}

/***
 * One raw value.
 * @function Sample:value
 * @tparam int index result index
 * @tparam[opt] string|int instance name or id (optional for one instance)
 * @tparam[opt] string|int counter name or id (optional for one counter)
 * @treturn[1] int|string raw value, the signed 64 bits (before Lua 5.3: a number
 *   up to 2^53, beyond it the decimal string; README "Lua 5.1, 5.2, 5.3 and LuaJIT")
 * @treturn[1] int|string base value (or object time), 0 if none
 * @return[2] nil
 * @treturn[2] string status ("no_instance", "no_data")
 */
static int s_value(lua_State *L)
{
    const pl_sample *s = check_sample(L, 1)->s;
    const pl_block *b = check_block(L, 2, s);
    int i, c;
    if (b->shape == PERF_ERROR_RETURN) {
        luaL_pushfail(L);
        lua_pushstring(L, pl_status_name(b->status));
        return 2;
    }
    c = find_counter(L, 4, s, b);
    i = find_inst(L, 3, s, b);
    if (i < 0) {
        luaL_pushfail(L);
        lua_pushliteral(L, "no_instance");
        return 2;
    }
    size_t k = b->vals_off + (size_t)i * b->ncounters + (size_t)c;
    if (!PL_HAVE_VALUE(s->have[k])) {
        luaL_pushfail(L);
        lua_pushstring(L, s->have[k] == PL_HAVE_NO_ACCESS ? "no_access" : "no_data");
        return 2;
    }
    lpl_pushint64(L, (int64_t)s->vals[k].v);
    lpl_pushint64(L, (int64_t)s->vals[k].b);
    return 2;
}

/***
 * One formatted value against an older sample.
 * @function Sample:format
 * @tparam Sample|nil older nil for single-sample types
 * @tparam int index
 * @tparam[opt] string|int instance
 * @tparam[opt] string|int counter
 * @tparam[opt] table opts `nocap`, `x1000`, `noscale`
 * @treturn number|nil value
 * @treturn string status
 */
static int s_format(lua_State *L)
{
    const pl_sample *s1 = check_sample(L, 1)->s;
    static const char *const keys[] = { "nocap", "x1000", "noscale", "scale", NULL };
    const pl_sample *s0 = lpl_opt_older(L, 2, s1);
    const pl_block *b = check_block(L, 3, s1);
    pl_fmt fmt;
    lpl_check_paired(L, 2, s1, b, s0);
    lpl_check_fmt(L, 6, keys, "format", &fmt);
    double v;
    int i, c;
    pl_status st;
    if (b->shape == PERF_ERROR_RETURN) {
        st = b->status;
    } else {
        c = find_counter(L, 5, s1, b);
        i = find_inst(L, 4, s1, b);
        st = i < 0 ? PL_NO_INSTANCE : pl_sample_format(s1, b, (uint32_t)i, (uint32_t)c, s0, &fmt, &v);
    }
    if (st == PL_VALID)
        lua_pushnumber(L, v);
    else
        luaL_pushfail(L);
    lua_pushstring(L, pl_status_name(st));
    return 2;
}

/* ---- iterators ------------------------------------------------------------ */

typedef struct iter {
    uint32_t b, i, c;        /* next position */
    int only;                /* result index to stay in, or -1 */
    pl_fmt fmt;
    int raw;
    /* the result the names and (formatted) the values in the buffer are of,
     * and the samples' contents then: one refilled meanwhile is read again */
    const pl_block *at;
    uint64_t seq1, seq0;
    int64_t time1, time0;
    size_t cap;              /* values the buffer (upvalue 7) holds */
} iter;

/* The names of result b, and for formatted its values, all at once
 * (pl_sample_format_block) into the buffer, grown when it is too small. */
static void iter_setup(lua_State *L, iter *it, const pl_sample *s1, const pl_sample *s0, const pl_block *b)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lpl_push_block_names(L, -1, s1, b);
    lua_replace(L, lua_upvalueindex(6));
    lua_replace(L, lua_upvalueindex(5));
    lua_pop(L, 1);
    it->at = b;
    it->seq1 = s1->seq;
    it->time1 = s1->perf_time;
    it->seq0 = s0 ? s0->seq : 0;
    it->time0 = s0 ? s0->perf_time : 0;
    if (it->raw || b->shape == PERF_ERROR_RETURN)
        return;
    size_t n = (size_t)b->ninst * b->ncounters;
    if (n > it->cap) {
        lua_newuserdatauv(L, n * (sizeof(double) + 1), 0);
        lua_replace(L, lua_upvalueindex(7));
        it->cap = n;
    }
    double *out = lua_touserdata(L, lua_upvalueindex(7));
    pl_sample_format_block(s1, b, s0, &it->fmt, out, (uint8_t *)(out + it->cap));
}

/* Iterator: upvalue 1 newer sample, 2 older sample or nil, 3 iter state,
 * 4 status names, 5 and 6 the current result's instance and counter names
 * (the query's interned strings: no string is made per value), 7 the
 * current result's formatted values and statuses (cap doubles, then cap
 * bytes), taken from the query's cache and given back at the end. */
/* A sample the iterator holds (checked when it was made: its class cannot
 * change), still unreleased: no class lookup by name per value. */
static const pl_sample *held_sample(lua_State *L, int up)
{
    const lpl_sample *u = lua_touserdata(L, up);
    return u && u->s ? u->s : check_sample(L, up)->s;    /* raises for a released one */
}

static int iter_next(lua_State *L)
{
    const pl_sample *s1 = held_sample(L, lua_upvalueindex(1));
    const pl_sample *s0 = lua_isnil(L, lua_upvalueindex(2)) ? NULL : held_sample(L, lua_upvalueindex(2));
    iter *it = lua_touserdata(L, lua_upvalueindex(3));
    int sts = lua_upvalueindex(4), insts = lua_upvalueindex(5), ctrs = lua_upvalueindex(6);
    for (;;) {
        const pl_block *b;
        if (it->b >= s1->nblocks || (it->only >= 0 && it->b != (uint32_t)it->only)) {
            if (it->cap) {                      /* done: the buffer goes back for the next loop */
                lpl_iter_buffer_give(L, lua_upvalueindex(1), lua_upvalueindex(7));
                lua_pushnil(L);
                lua_replace(L, lua_upvalueindex(7));
                it->cap = 0;
            }
            return 0;
        }
        b = &s1->blocks[it->b];
        uint32_t rows = b->shape == PERF_ERROR_RETURN ? 1 : b->ninst;
        if (it->i >= rows || b->ncounters == 0) {
            it->b++;
            it->i = it->c = 0;
            continue;
        }
        uint32_t i = it->i, c = it->c;
        if (it->at != b || it->seq1 != s1->seq || it->time1 != s1->perf_time ||
            it->seq0 != (s0 ? s0->seq : 0) || it->time0 != (s0 ? s0->perf_time : 0))
            iter_setup(L, it, s1, s0, b);
        if (++it->c >= b->ncounters) {
            it->c = 0;
            it->i++;
        }
        if (b->shape == PERF_ERROR_RETURN) {
            /* the named instance, with the status in place of a value */
            lua_pushstring(L, s1->names + b->filter_off);
            lua_pushnil(L);
            lua_rawgeti(L, sts, lpl_status_key(b->status));
        } else if (it->raw) {
            /* the order of formatted's, and the base last */
            size_t k = b->vals_off + (size_t)i * b->ncounters + c;
            uint8_t h = s1->have[k];
            lua_rawgeti(L, insts, (lua_Integer)i + 1);
            if (PL_HAVE_VALUE(h))
                lpl_pushint64(L, (int64_t)s1->vals[k].v);
            else
                lua_pushnil(L);
            lua_rawgeti(L, sts, lpl_status_key(PL_HAVE_VALUE(h) ? PL_VALID
                                               : h == PL_HAVE_NO_ACCESS ? PL_NO_ACCESS : PL_NO_DATA));
            lua_rawgeti(L, ctrs, (lua_Integer)c + 1);
            lua_pushinteger(L, (lua_Integer)b->index + 1);
            lpl_pushint64(L, (int64_t)s1->vals[k].b);
            return 6;
        } else {
            const double *out = lua_touserdata(L, lua_upvalueindex(7));
            size_t k = (size_t)i * b->ncounters + c;
            uint8_t st = ((const uint8_t *)(out + it->cap))[k];
            lua_rawgeti(L, insts, (lua_Integer)i + 1);
            if (st == PL_VALID)
                lua_pushnumber(L, out[k]);
            else
                lua_pushnil(L);
            lua_rawgeti(L, sts, lpl_status_key(st));
        }
        lua_rawgeti(L, ctrs, (lua_Integer)c + 1);
        lua_pushinteger(L, (lua_Integer)b->index + 1);
        return 5;
    }
}

static int push_iter(lua_State *L, int older, int raw, int only, const pl_fmt *fmt)
{
    iter *it;
    lua_pushvalue(L, 1);
    if (older)
        lua_pushvalue(L, older);
    else
        lua_pushnil(L);
    it = lua_newuserdatauv(L, sizeof *it, 0);
    memset(it, 0, sizeof *it);
    it->only = only;
    it->b = only >= 0 ? (uint32_t)only : 0;
    if (fmt)
        it->fmt = *fmt;
    it->raw = raw;
    lpl_push_status_names(L, 1);
    lua_pushnil(L);
    lua_pushnil(L);
    if (raw)
        lua_pushnil(L);
    else
        it->cap = lpl_iter_buffer_take(L, 1);
    lua_pushcclosure(L, iter_next, 7);
    return 1;
}

/***
 * Iterates over formatted values: `for instance, value, status, counter, index in s1:formatted(s0)`.
 * Results that failed as a whole yield their instance filter, nil and the status.
 * @function Sample:formatted
 * @tparam[opt] Sample older the previous sample of the query (rates and averages need it)
 * @tparam[opt] table opts `index` (one result only; out of range raises), `nocap`, `x1000`, `noscale`
 * @return iterator yielding instance (string), value (number, nil unless valid),
 *   status (string), counter (string), result index (int)
 */
static int s_formatted(lua_State *L)
{
    static const char *const keys[] = { "index", "nocap", "x1000", "noscale", "scale", NULL };
    const pl_sample *s1 = check_sample(L, 1)->s;
    int only = -1;
    pl_fmt fmt;
    const pl_sample *s0 = lpl_opt_older(L, 2, s1);
    lpl_check_fmt(L, 3, keys, "formatted", &fmt);
    if (lua_istable(L, 3)) {
        if (lua_getfield(L, 3, "index") != LUA_TNIL) {
            lua_Integer k = lua_tointeger(L, -1);
            luaL_argcheck(L, lua_isinteger(L, -1) && k >= 1 && k <= (lua_Integer)s1->nblocks, 3,
                          "opts.index: no such result index");
            only = (int)k - 1;
        }
        lua_pop(L, 1);
    }
    for (uint32_t k = only >= 0 ? (uint32_t)only : 0; k < (only >= 0 ? (uint32_t)only + 1 : s1->nblocks); k++)
        lpl_check_paired(L, 2, s1, &s1->blocks[k], s0);
    return push_iter(L, lua_isnoneornil(L, 2) ? 0 : 2, 0, only, &fmt);
}

/***
 * Iterates over raw values: `for instance, value, status, counter, index, base in s:raw()`,
 * in the order `Sample:formatted` yields, the base last.  The status is "valid"
 * where the source had the value, else "no_data" or "no_access" (value nil);
 * a result that failed as a whole yields its instance filter, nil and its
 * status.  Values and bases are as `Sample:value` gives them (before Lua 5.3,
 * a decimal string beyond 2^53).
 * @function Sample:raw
 * @tparam[opt] int index one result only (out of range raises)
 * @return iterator yielding instance, value, status, counter, result index, base
 */
static int s_raw(lua_State *L)
{
    const pl_sample *s = check_sample(L, 1)->s;
    int only = lua_isnoneornil(L, 2) ? -1 : (int)(check_block(L, 2, s) - s->blocks);
    return push_iter(L, 0, 1, only, NULL);
}

/* Why result b of the sample (the userdata at index si) failed: the message of
 * its errno (naming the file below the machine's root), else its status name. */
void lpl_push_block_error(lua_State *L, int si, const pl_block *b)
{
    if (!b->err) {
        lua_pushstring(L, pl_status_name(b->status));
        return;
    }
    lua_getiuservalue(L, si, 1);
    lpl_machine *m = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (b->err_msg) {
        lua_pushfstring(L, "%s: %s", b->cs->name, b->err_msg);   /* says it all */
    } else if (b->err_path && m && m->env) {
        lpl_push_path(L, m->env, b->err_path);
        lua_pushfstring(L, "%s: %s", lua_tostring(L, -1), strerror(b->err));
        lua_remove(L, -2);
    } else {
        lua_pushfstring(L, "%s: %s", b->cs->name, strerror(b->err));
    }
}

/***
 * The results: `{index=, counterset=, shape=, status=, error=, instances=, ids=, counters=, time=}`.
 * `time` is when that result's counterset was read (monotonic ticks, like
 * `s.time`): its rates use it, so a slow set read in the same collect does
 * not move another set's interval.
 * @function Sample:results
 * @treturn {table,...} one table per result, in result index order
 */
static int s_results(lua_State *L)
{
    const pl_sample *s = check_sample(L, 1)->s;
    lua_createtable(L, (int)s->nblocks, 0);
    for (uint32_t k = 0; k < s->nblocks; k++) {
        const pl_block *b = &s->blocks[k];
        lua_createtable(L, 0, 8);
        lua_pushinteger(L, (lua_Integer)k + 1);
        lua_setfield(L, -2, "index");
        lua_pushstring(L, b->cs->name);
        lua_setfield(L, -2, "counterset");
        lua_pushstring(L, lpl_shape_name(b->shape));
        lua_setfield(L, -2, "shape");
        lua_pushstring(L, pl_status_name(b->status));
        lua_setfield(L, -2, "status");
        lua_pushstring(L, s->names + b->filter_off);
        lua_setfield(L, -2, "filter");
        lua_pushinteger(L, b->time);
        lua_setfield(L, -2, "time");
        if (b->err) {
            lpl_push_block_error(L, 1, b);
            lua_setfield(L, -2, "error");
        }
        lua_createtable(L, (int)b->ninst, 0);
        lua_createtable(L, (int)b->ninst, 0);
        for (uint32_t i = 0; i < b->ninst; i++) {
            lua_pushstring(L, pl_sample_inst_name(s, b, i));
            lua_rawseti(L, -3, (lua_Integer)i + 1);
            lua_pushinteger(L, pl_sample_inst_id(s, b, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -3, "ids");
        lua_setfield(L, -2, "instances");
        lua_createtable(L, (int)b->ncounters, 0);
        for (uint32_t c = 0; c < b->ncounters; c++) {
            lua_pushstring(L, pl_sample_counter(s, b, c)->name);
            lua_rawseti(L, -2, (lua_Integer)c + 1);
        }
        lua_setfield(L, -2, "counters");
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 1;
}

/***
 * Fields: `seq` (1, 2, ... per query), `time` (monotonic ticks: the middle of all the
 * sample's reads; each result's own is in `results()`), `freq`
 * (ticks per second), `time100ns` (100 ns units since 1601-01-01 UTC, like
 * PerfTime100NSec), `timestamp` (Unix seconds, a float).
 * @table Sample
 */
/* __index, a closure over the methods table (upvalue 1) and the sample
 * metatable (upvalue 2): a method is found with the key Lua passed, no
 * string made or looked up by name per call. */
static int s_index(lua_State *L)
{
    lpl_sample *u = lpl_has_meta(L, 1, lua_upvalueindex(2));
    const char *k;
    const pl_sample *s;
    if (!u)
        u = luaL_checkudata(L, 1, LPL_SAMPLE);     /* raises */
    k = luaL_checkstring(L, 2);
    s = u->s;
    /* methods stay reachable after release (release is idempotent) */
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1))
        return 1;
    if (!s)
        return luaL_argerror(L, 1, "attempt to use a released sample");
    if (strcmp(k, "seq") == 0)
        lua_pushinteger(L, (lua_Integer)s->seq);
    else if (strcmp(k, "time") == 0)
        lua_pushinteger(L, s->perf_time);
    else if (strcmp(k, "freq") == 0)
        lua_pushinteger(L, s->perf_freq);
    else if (strcmp(k, "time100ns") == 0)
        lua_pushinteger(L, s->time100ns);
    else if (strcmp(k, "timestamp") == 0)           /* no overflow for a block's extreme time */
        lua_pushnumber(L, s->time100ns >= INT64_MIN + LPL_UNIX_EPOCH_100NS
                              ? (lua_Number)(s->time100ns - LPL_UNIX_EPOCH_100NS) / 1e7
                              : (lua_Number)s->time100ns / 1e7 - 11644473600.0);
    else
        lua_pushnil(L);
    return 1;
}

/***
 * Drops the sample's values now (also `__close` and `__gc`; idempotent,
 * never raises).  Afterwards its methods raise "attempt to use a released
 * sample".  `Query:collect(s)` may reuse a sample in place instead.
 * @function Sample:release
 */
static int s_release(lua_State *L)
{
    lpl_sample *s = luaL_checkudata(L, 1, LPL_SAMPLE);
    s->s = NULL;             /* the sample lives in the userdata: the GC frees it */
    return 0;
}

/* __gc, a closure over the sample metatable: no lookup by name for each
 * sample the collector frees (any other value is left alone). */
static int s_gc(lua_State *L)
{
    lpl_sample *s = lpl_has_meta(L, 1, lua_upvalueindex(1));
    if (s)
        s->s = NULL;
    return 0;
}

static int s_tostring(lua_State *L)
{
    lpl_sample *s = luaL_checkudata(L, 1, LPL_SAMPLE);
    if (s->s)
        lua_pushfstring(L, LPL_SAMPLE " (#%d, %d results)", (int)s->s->seq, (int)s->s->nblocks);
    else
        lua_pushliteral(L, LPL_SAMPLE " (released)");
    return 1;
}

static int s_len(lua_State *L)
{
    lua_pushinteger(L, check_sample(L, 1)->s->nblocks);
    return 1;
}

void lpl_open_sample(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__index", s_index }, { "__gc", s_release }, { "__close", s_release },
        { "__tostring", s_tostring }, { "__len", s_len }, { NULL, NULL }
    };
    static const luaL_Reg methods[] = {
        { "value", s_value }, { "format", s_format }, { "formatted", s_formatted },
        { "raw", s_raw }, { "results", s_results },
        { "block", lpl_sample_block }, { "release", s_release }, { NULL, NULL }
    };
    lpl_newclass(L, LPL_SAMPLE, meta, NULL);
    luaL_getmetatable(L, LPL_SAMPLE);
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, s_gc, 1);        /* before any sample is made */
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, methods);
    lpl_open_evaluate(L, lua_gettop(L));
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "methods");
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, s_index, 2);     /* methods, metatable */
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
