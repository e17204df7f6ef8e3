/***
 * Bulk formatted values: `Sample:evaluate` and `Sample:columns`.
 *
 * Both refill the tables they returned for the same result of the same
 * query by default: see README "Calculators and bulk evaluation".
 * @module perflib
 */
/***
 * A sample (continued): its bulk formatted values.
 * @type Sample
 */
#include "lpl.h"

#include <stdint.h>
#include <string.h>

/* A sample's cache (user value 2: the query's, shared by all its samples;
 * a sample read from a block or a log gets its own):
 *   [C_NAMES]   signature hash -> names entry, weak values
 *   [C_SCRATCH] a byte buffer reused by every call (absent while in use)
 *   [C_STATUS]  lpl_status_key(code) -> status name, interned once
 *   [C_ITERBUF] the formatted iterators' buffer (absent while one runs)
 *   [slot key]  {tables, tables, instance entry, counter entry}: what
 *               evaluate or columns returned last for one result and one
 *               set of formatting options, or (K_NAMES) the entries the
 *               iterators used last for one result; they keep the entries
 *               alive (slot_key)
 * A names entry is {names, ids, index, signature}: an instance list (or a
 * counter list, {names, nil, nil, signature}) as Lua strings, made once and
 * never changed afterwards, so results share it and a caller may keep it. */
enum { C_NAMES = 1, C_SCRATCH = 2, C_STATUS = 3, C_ITERBUF = 4, C_SLOTS = 16 };
enum { E_NAMES = 1, E_IDS = 2, E_INDEX = 3, E_SIG = 4 };
enum { K_EVALUATE = 0, K_COLUMNS = 1, K_NAMES = 2, K_KINDS = 3 };

/* The slot of result index (0-based) for one kind of call and formatting:
 * different options, different tables.  flags: PL_FMT_* >> 12 (4 bits). */
static lua_Integer slot_key(uint32_t index, int kind, const pl_fmt *fmt)
{
    lua_Integer f = fmt ? (lua_Integer)((fmt->flags >> 12) & 15) : 0;
    lua_Integer sc = fmt && fmt->scale_set ? fmt->scale + 11 : 0;       /* 0, or 1 to 21 */
    return C_SLOTS + (((lua_Integer)index * K_KINDS + kind) * 16 + f) * 32 + sc;
}

void lpl_push_cache_new(lua_State *L)
{
    lua_createtable(L, 3, 0);
    lua_createtable(L, 0, 4);                       /* C_NAMES, weak: unused lists go */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawseti(L, -2, C_NAMES);
    lua_createtable(L, PL_STATUS_COUNT, 0);
    for (int st = 0; st < PL_STATUS_COUNT; st++) {
        lua_pushstring(L, pl_status_name((pl_status)st));
        lua_rawseti(L, -2, st + 1);
    }
    lua_rawseti(L, -2, C_STATUS);
}

int lpl_push_cache(lua_State *L, int si)
{
    si = lua_absindex(L, si);
    if (lua_getiuservalue(L, si, 2) != LUA_TTABLE) {   /* from a block or a log: its own */
        lua_pop(L, 1);
        lpl_push_cache_new(L);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, si, 2);
    }
    return lua_gettop(L);
}

/* ---- scratch ----------------------------------------------------------------------------- */

/* The cache's buffer of at least size bytes, taken out of the cache (a
 * finalizer that evaluates meanwhile gets another) and left on the stack. */
static unsigned char *scratch_take(lua_State *L, int cache, size_t size)
{
    unsigned char *p = NULL;
    if (lua_rawgeti(L, cache, C_SCRATCH) == LUA_TUSERDATA && lua_rawlen(L, -1) >= size)
        p = lua_touserdata(L, -1);
    if (!p) {
        lua_pop(L, 1);
        p = lua_newuserdatauv(L, size < 1024 ? 1024 : size + size / 2, 0);
    }
    lua_pushnil(L);
    lua_rawseti(L, cache, C_SCRATCH);
    return p;
}

static void scratch_give(lua_State *L, int cache, int at)
{
    lua_pushvalue(L, at);
    lua_rawseti(L, cache, C_SCRATCH);
}

size_t lpl_iter_buffer_take(lua_State *L, int si)
{
    int cache = lpl_push_cache(L, si);
    size_t cap = 0;
    if (lua_rawgeti(L, cache, C_ITERBUF) == LUA_TUSERDATA) {
        cap = lua_rawlen(L, -1) / (sizeof(double) + 1);
        lua_pushnil(L);
        lua_rawseti(L, cache, C_ITERBUF);
    }
    lua_remove(L, cache);
    return cap;
}

void lpl_iter_buffer_give(lua_State *L, int si, int buf)
{
    buf = lua_absindex(L, buf);
    int cache = lpl_push_cache(L, si);
    lua_pushvalue(L, buf);
    lua_rawseti(L, cache, C_ITERBUF);
    lua_pop(L, 1);
}

/* ---- names entries ------------------------------------------------------------------------- */

/* Signatures: what makes two instance (or counter) lists the same list. */
static size_t inst_sig_size(const pl_sample *s, const pl_block *b)
{
    size_t n = 1 + sizeof(uint32_t);
    for (uint32_t i = 0; i < b->ninst; i++)
        n += sizeof(uint32_t) + strlen(pl_sample_inst_name(s, b, i)) + 1;
    return n;
}

static size_t inst_sig(const pl_sample *s, const pl_block *b, unsigned char *p)
{
    unsigned char *q = p;
    *q++ = 'I';
    memcpy(q, &b->ninst, sizeof b->ninst);
    q += sizeof b->ninst;
    for (uint32_t i = 0; i < b->ninst; i++) {
        uint32_t id = pl_sample_inst_id(s, b, i);
        const char *name = pl_sample_inst_name(s, b, i);
        size_t len = strlen(name) + 1;
        memcpy(q, &id, sizeof id);
        memcpy(q + sizeof id, name, len);
        q += sizeof id + len;
    }
    return (size_t)(q - p);
}

static size_t ctr_sig_size(const pl_block *b)
{
    return 1 + sizeof(void *) + sizeof(uint32_t) * (1 + (size_t)b->ncounters);
}

static size_t ctr_sig(const pl_sample *s, const pl_block *b, unsigned char *p)
{
    unsigned char *q = p;
    *q++ = 'C';
    memcpy(q, &b->cs, sizeof b->cs);              /* definitions live as long as the machine */
    q += sizeof b->cs;
    memcpy(q, &b->ncounters, sizeof b->ncounters);
    q += sizeof b->ncounters;
    if (b->ncounters)                           /* no cidx at all for none */
        memcpy(q, s->cidx + b->counters_off, sizeof(uint32_t) * b->ncounters);
    return (size_t)(q - p) + sizeof(uint32_t) * b->ncounters;
}

static int sig_equal(lua_State *L, int entry, const unsigned char *sig, size_t len)
{
    int same;
    lua_rawgeti(L, entry, E_SIG);
    same = lua_rawlen(L, -1) == len && memcmp(lua_touserdata(L, -1), sig, len) == 0;
    lua_pop(L, 1);
    return same;
}

static lua_Integer sig_hash(const unsigned char *p, size_t len)
{
    uint64_t h = 1469598103934665603u;
    for (size_t k = 0; k < len; k++)
        h = (h ^ p[k]) * 1099511628211u;
    return (lua_Integer)(h >> 11);      /* 53 bits: exact as a double too */
}

static void build_entry(lua_State *L, const pl_sample *s, const pl_block *b, int inst)
{
    uint32_t n = inst ? b->ninst : b->ncounters;
    lua_createtable(L, 4, 0);
    lua_createtable(L, (int)n, 0);                                  /* names */
    for (uint32_t k = 0; k < n; k++) {
        lua_pushstring(L, inst ? pl_sample_inst_name(s, b, k) : pl_sample_counter(s, b, k)->name);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    if (inst) {
        lua_createtable(L, (int)n, 0);                              /* ids */
        lua_createtable(L, 0, (int)n);                              /* index */
        for (uint32_t k = 0; k < n; k++) {
            lua_pushinteger(L, pl_sample_inst_id(s, b, k));
            lua_rawseti(L, -3, (lua_Integer)k + 1);
            lua_rawgeti(L, -3, (lua_Integer)k + 1);
            lua_pushinteger(L, (lua_Integer)k + 1);
            lua_rawset(L, -3);                  /* a repeated name: its last instance */
        }
        lua_rawseti(L, -4, E_INDEX);
        lua_rawseti(L, -3, E_IDS);
    }
    lua_rawseti(L, -2, E_NAMES);
}

/* Pushes the names entry of block b's instances (inst) or counters: the
 * one at hint (a stack index, 0 for none) when its signature matches, else
 * the cache's entry of that signature, else a new one. */
static int push_entry(lua_State *L, int cache, unsigned char *buf, const pl_sample *s,
                      const pl_block *b, int inst, int hint)
{
    size_t len = inst ? inst_sig(s, b, buf) : ctr_sig(s, b, buf);
    lua_Integer h;
    if (hint && lua_istable(L, hint) && sig_equal(L, hint, buf, len)) {
        lua_pushvalue(L, hint);
        return lua_gettop(L);
    }
    h = sig_hash(buf, len);
    lua_rawgeti(L, cache, C_NAMES);
    if (lua_rawgeti(L, -1, h) == LUA_TTABLE && sig_equal(L, -1, buf, len)) {
        lua_remove(L, -2);
        return lua_gettop(L);
    }
    lua_pop(L, 1);
    build_entry(L, s, b, inst);
    memcpy(lua_newuserdatauv(L, len, 0), buf, len);
    lua_rawseti(L, -2, E_SIG);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, h);                      /* a colliding older list loses its place only */
    lua_remove(L, -2);
    return lua_gettop(L);
}

void lpl_push_status_names(lua_State *L, int si)
{
    int cache = lpl_push_cache(L, si);
    lua_rawgeti(L, cache, C_STATUS);
    lua_remove(L, cache);
}

void lpl_push_block_names(lua_State *L, int si, const pl_sample *s, const pl_block *b)
{
    luaL_checkstack(L, 24, NULL);
    int cache = lpl_push_cache(L, si);
    size_t need = inst_sig_size(s, b), cn = ctr_sig_size(b);
    lua_Integer key = slot_key(b->index, K_NAMES, NULL);
    unsigned char *buf = scratch_take(L, cache, need > cn ? need : cn);
    int at = lua_gettop(L), inst, ctr;
    if (lua_rawgeti(L, cache, key) == LUA_TTABLE) {  /* at + 1: the entries used last */
        lua_rawgeti(L, at + 1, 3);
        lua_rawgeti(L, at + 1, 4);
    } else {
        lua_pushnil(L);
        lua_pushnil(L);
    }
    inst = push_entry(L, cache, buf, s, b, 1, at + 2);
    ctr = push_entry(L, cache, buf, s, b, 0, at + 3);
    scratch_give(L, cache, at);
    if (!lua_rawequal(L, inst, at + 2) || !lua_rawequal(L, ctr, at + 3)) {
        lua_createtable(L, 4, 0);               /* kept by the query: interned once */
        lua_pushvalue(L, inst);
        lua_rawseti(L, -2, 3);
        lua_pushvalue(L, ctr);
        lua_rawseti(L, -2, 4);
        lua_rawseti(L, cache, key);
    }
    lua_rawgeti(L, inst, E_NAMES);
    lua_rawgeti(L, ctr, E_NAMES);
    lua_replace(L, cache + 1);                  /* counters where the scratch was */
    lua_replace(L, cache);                      /* instances where the cache was */
    lua_settop(L, cache + 1);
}

/* ---- filling ---------------------------------------------------------------------------- */

/* Writes the value columns (vals[c][i], nil unless valid) and the statuses
 * (sts[c][i], a table at sts[c] only for a column with a value that is not
 * valid).  fresh: vals has no columns yet. */
static void fill_columns(lua_State *L, int vals, int sts, int names, const pl_block *b,
                         const double *out, const uint8_t *st, int fresh)
{
    for (uint32_t c = 0; c < b->ncounters; c++) {
        int bad, anybad = 0, col;
        if (fresh)
            lua_createtable(L, (int)b->ninst, 0);
        else
            lua_rawgeti(L, vals, (lua_Integer)c + 1);
        col = lua_gettop(L);
        bad = lua_rawgeti(L, sts, (lua_Integer)c + 1) == LUA_TTABLE ? lua_gettop(L) : 0;
        for (uint32_t i = 0; i < b->ninst; i++) {
            size_t k = (size_t)i * b->ncounters + c;
            if (st[k] == PL_VALID) {
                lua_pushnumber(L, out[k]);
                lua_rawseti(L, col, (lua_Integer)i + 1);
                if (bad) {                      /* an earlier fill's status */
                    lua_pushnil(L);
                    lua_rawseti(L, bad, (lua_Integer)i + 1);
                }
                continue;
            }
            if (!fresh) {
                lua_pushnil(L);
                lua_rawseti(L, col, (lua_Integer)i + 1);
            }
            if (!bad) {
                lua_pop(L, 1);
                lua_createtable(L, 0, 4);
                bad = lua_gettop(L);
                lua_pushvalue(L, bad);
                lua_rawseti(L, sts, (lua_Integer)c + 1);
            }
            anybad = 1;
            lua_rawgeti(L, names, lpl_status_key(st[k]));
            lua_rawseti(L, bad, (lua_Integer)i + 1);
        }
        if (bad && !anybad) {                   /* all valid now */
            lua_pushnil(L);
            lua_rawseti(L, sts, (lua_Integer)c + 1);
        }
        if (fresh) {
            lua_pushvalue(L, col);
            lua_rawseti(L, vals, (lua_Integer)c + 1);
        }
        lua_settop(L, col - 1);
    }
}

/* Every value column of table t is a table: only then is it refilled (a
 * column the caller replaced, or a table that only copied the layout key,
 * gets a new result instead). */
static int columns_intact(lua_State *L, int t, uint32_t ncounters)
{
    for (uint32_t c = 0; c < ncounters; c++) {
        int ok = lua_rawgeti(L, t, (lua_Integer)c + 1) == LUA_TTABLE;
        lua_pop(L, 1);
        if (!ok)
            return 0;
    }
    return 1;
}

/* A fingerprint of what a result holds (specification, counters, instance
 * ids and names, in order): the `into` check's key, `_layout`. */
static lua_Integer layout_of(const pl_sample *s, const pl_block *b)
{
    uint64_t h = 1469598103934665603u;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211u)
    MIX(b->uid);
    MIX(b->ncounters);
    for (uint32_t c = 0; c < b->ncounters; c++)
        MIX(s->cidx[b->counters_off + c]);
    MIX(b->ninst);
    for (uint32_t i = 0; i < b->ninst; i++) {
        MIX(pl_sample_inst_id(s, b, i));
        for (const char *p = pl_sample_inst_name(s, b, i); *p; p++)
            MIX((unsigned char)*p);
        MIX(0);
    }
#undef MIX
    return (lua_Integer)(h >> 11);      /* 53 bits: exact as a double too (Lua 5.1, 5.2, LuaJIT) */
}

/* ---- the shared front end ---------------------------------------------------------------- */

/* What both calls compute before they build or refill anything. */
typedef struct bulk {
    const pl_sample *s1;
    const pl_block *b;
    const double *out;
    const uint8_t *st;
    size_t valid;
    int cache, names, inst, ctr, scratch;     /* stack indexes */
    int fresh, into;                          /* into: stack index or 0 */
    lua_Integer slot;
} bulk;

/* Checks s1, older, index and opts (at 1..4), formats result index into
 * the scratch and finds the names entries.  Raises for misuse. */
static void bulk_start(lua_State *L, bulk *k, int kind, const char *fname)
{
    static const char *const keys[] = { "nocap", "x1000", "noscale", "scale", "fresh", "into", NULL };
    const pl_sample *s0;
    pl_fmt fmt;
    size_t n, need, sn, cn;
    unsigned char *buf;
    luaL_checkstack(L, 40, NULL);               /* arguments, cache, entries, a column being filled */
    k->s1 = lpl_check_sample(L, 1)->s;
    s0 = lpl_opt_older(L, 2, k->s1);
    if (lua_isnoneornil(L, 3)) {
        luaL_argcheck(L, k->s1->nblocks > 0, 3, "the sample has no results");
        k->b = &k->s1->blocks[0];
    } else {
        lua_Integer x = luaL_checkinteger(L, 3);
        luaL_argcheck(L, x >= 1 && x <= (lua_Integer)k->s1->nblocks, 3, "no such result index");
        k->b = &k->s1->blocks[x - 1];
    }
    lpl_check_paired(L, 2, k->s1, k->b, s0);
    lpl_check_fmt(L, 4, keys, fname, &fmt);
    lua_settop(L, 4);
    k->fresh = 0;
    k->into = 0;
    if (lua_istable(L, 4)) {
        k->fresh = lua_getfield(L, 4, "fresh") != LUA_TNIL && lua_toboolean(L, -1);
        luaL_argcheck(L, lua_isnil(L, -1) || lua_isboolean(L, -1), 4, "'fresh' must be a boolean");
        if (lua_getfield(L, 4, "into") != LUA_TNIL) {
            luaL_argcheck(L, kind == K_EVALUATE, 4, "'into' is evaluate's: columns refills by itself");
            luaL_argcheck(L, lua_istable(L, -1), 4, "'into' must be a table from evaluate");
            k->into = lua_gettop(L);
        }
    }
    k->slot = slot_key(k->b->index, kind, &fmt);
    k->cache = lpl_push_cache(L, 1);
    lua_rawgeti(L, k->cache, C_STATUS);
    k->names = lua_gettop(L);
    n = (size_t)k->b->ninst * k->b->ncounters;
    sn = inst_sig_size(k->s1, k->b);
    cn = ctr_sig_size(k->b);
    need = (n * sizeof(double) + n + 15) / 16 * 16;
    buf = scratch_take(L, k->cache, need + (sn > cn ? sn : cn));
    k->scratch = lua_gettop(L);
    k->out = (const double *)(void *)buf;
    k->st = buf + n * sizeof(double);
    k->valid = pl_sample_format_block(k->s1, k->b, s0, &fmt, (double *)(void *)buf, buf + n * sizeof(double));
    /* the last result of this slot names the entries to try first */
    if (lua_rawgeti(L, k->cache, k->slot) == LUA_TTABLE) {
        int slot = lua_gettop(L);
        lua_rawgeti(L, slot, 3);
        lua_rawgeti(L, slot, 4);
    } else {
        lua_pushnil(L);
        lua_pushnil(L);
    }
    k->inst = push_entry(L, k->cache, buf + need, k->s1, k->b, 1, lua_gettop(L) - 1);
    k->ctr = push_entry(L, k->cache, buf + need, k->s1, k->b, 0, k->inst - 1);
}

/* The slot's tables at 1 and 2 when its entries are this result's (pushed),
 * else nothing: 1 when pushed. */
static int slot_tables(lua_State *L, const bulk *k)
{
    if (k->fresh || k->b->shape == PERF_ERROR_RETURN)
        return 0;
    if (lua_rawgeti(L, k->cache, k->slot) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    int slot = lua_gettop(L);
    lua_rawgeti(L, slot, 3);
    lua_rawgeti(L, slot, 4);
    int same = lua_rawequal(L, -2, k->inst) && lua_rawequal(L, -1, k->ctr);
    lua_settop(L, slot);
    if (!same || lua_rawgeti(L, slot, 1) != LUA_TTABLE || !columns_intact(L, -1, k->b->ncounters)) {
        lua_settop(L, slot - 1);
        return 0;
    }
    lua_rawgeti(L, slot, 2);
    lua_remove(L, slot);
    return 1;
}

/* Remembers tables a and b (stack indexes) as the slot's, with the entries. */
static void slot_keep(lua_State *L, const bulk *k, int a, int b)
{
    if (k->fresh || k->b->shape == PERF_ERROR_RETURN)
        return;
    lua_createtable(L, 4, 0);
    lua_pushvalue(L, a);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, b);
    lua_rawseti(L, -2, 2);
    lua_pushvalue(L, k->inst);
    lua_rawseti(L, -2, 3);
    lua_pushvalue(L, k->ctr);
    lua_rawseti(L, -2, 4);
    lua_rawseti(L, k->cache, k->slot);
}

/* ---- evaluate ------------------------------------------------------------------------------ */

static void refill(lua_State *L, const bulk *k, int t)
{
    if (lua_getfield(L, t, "status") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 0);
        lua_pushvalue(L, -1);
        lua_setfield(L, t, "status");
    }
    fill_columns(L, t, lua_gettop(L), k->names, k->b, k->out, k->st, 0);
    lua_pop(L, 1);
    lua_pushinteger(L, (lua_Integer)k->valid);
    lua_setfield(L, t, "valid");
}

/***
 * All formatted values of one result in one C call, as plain tables:
 * `v[c][i]` (or `v[counter_name][i]`) is the value of counter c for instance
 * i, nil where the status is not "valid"; `v.status[c][i]` holds those
 * statuses.  Also `v.instances`, `v.ids`, `v.counters`, `v.index[name] = i`
 * and `v.valid` (the number of valid values).
 *
 * **Refilled in place by default**: called again for the same result of the
 * same query (on the next sample, say) with the same formatting options, it
 * returns the same table as last time, its values and statuses updated,
 * while the result's instances and counters are unchanged; when they
 * changed it returns a new table (with new `instances`, `ids`, `index`),
 * never stale names.  Keep a result across calls with `fresh = true`, which
 * returns a table no later call changes.  `instances`, `ids`, `index` and
 * `counters` are shared by every result of the query with the same list and
 * reused across collects: read them, do not change them.  With `into = v`
 * (a table from evaluate), v is refilled when it holds this result's layout.
 * @function Sample:evaluate
 * @tparam[opt] Sample older
 * @tparam[opt=1] int index result index
 * @tparam[opt] table opts `nocap`, `x1000`, `noscale`, `scale`, `fresh`, `into`
 * @treturn table
 */
static int s_evaluate(lua_State *L)
{
    bulk k;
    bulk_start(L, &k, K_EVALUATE, "evaluate");
    lua_Integer layout;
    if (k.into) {
        layout = layout_of(k.s1, k.b);
        if (lua_getfield(L, k.into, "_layout") == LUA_TNUMBER && lua_tointeger(L, -1) == layout &&
            k.b->shape != PERF_ERROR_RETURN && columns_intact(L, k.into, k.b->ncounters)) {
            refill(L, &k, k.into);
            scratch_give(L, k.cache, k.scratch);
            lua_pushvalue(L, k.into);
            return 1;
        }
        k.fresh = 1;                            /* into's own: not the slot's */
    } else if (slot_tables(L, &k)) {
        lua_pop(L, 1);
        refill(L, &k, lua_gettop(L));
        scratch_give(L, k.cache, k.scratch);
        return 1;
    } else {
        layout = layout_of(k.s1, k.b);
    }
    lua_createtable(L, (int)k.b->ncounters, 10);
    int t = lua_gettop(L);
    lua_createtable(L, 0, 0);
    int sts = lua_gettop(L);
    fill_columns(L, t, sts, k.names, k.b, k.out, k.st, 1);
    lua_setfield(L, t, "status");
    lua_rawgeti(L, k.inst, E_NAMES);
    lua_setfield(L, t, "instances");
    lua_rawgeti(L, k.inst, E_IDS);
    lua_setfield(L, t, "ids");
    lua_rawgeti(L, k.inst, E_INDEX);
    lua_setfield(L, t, "index");
    lua_rawgeti(L, k.ctr, E_NAMES);
    for (uint32_t c = 0; c < k.b->ncounters; c++) {
        lua_rawgeti(L, -1, (lua_Integer)c + 1);
        lua_rawgeti(L, t, (lua_Integer)c + 1);
        lua_rawset(L, t);                       /* v[name] = v[c] */
    }
    lua_setfield(L, t, "counters");
    lua_pushinteger(L, (lua_Integer)k.valid);
    lua_setfield(L, t, "valid");
    lua_pushinteger(L, layout);
    lua_setfield(L, t, "_layout");
    if (k.b->shape == PERF_ERROR_RETURN) {
        lua_rawgeti(L, k.names, lpl_status_key(k.b->status));
        lua_setfield(L, t, "error");
    }
    slot_keep(L, &k, t, t);
    scratch_give(L, k.cache, k.scratch);
    lua_settop(L, t);
    return 1;
}

/***
 * The formatted values of one result as arrays only: `values[c][i]` (nil
 * unless valid) and `statuses[c][i]` (a table at `statuses[c]` only for a
 * column with a value that is not valid), in evaluate's order, without the
 * name and index tables.  Refilled in place like `Sample:evaluate`: the same
 * two tables come back for the same result of the same query and formatting
 * options while its instances and counters are unchanged (`fresh = true` for
 * new ones).  A result that failed as a whole has empty columns and its
 * status in `statuses.error`.
 * @function Sample:columns
 * @tparam[opt] Sample older
 * @tparam[opt=1] int index result index
 * @tparam[opt] table opts `nocap`, `x1000`, `noscale`, `scale`, `fresh`
 * @treturn table values, one array per counter
 * @treturn table statuses
 * @treturn int the number of valid values
 * @treturn table the instance names (shared, read only: as evaluate's `instances`)
 * @treturn table the counter names (shared, read only)
 */
static int s_columns(lua_State *L)
{
    bulk k;
    bulk_start(L, &k, K_COLUMNS, "columns");
    if (slot_tables(L, &k)) {
        fill_columns(L, lua_gettop(L) - 1, lua_gettop(L), k.names, k.b, k.out, k.st, 0);
    } else {
        lua_createtable(L, (int)k.b->ncounters, 0);
        lua_createtable(L, 0, 0);
        fill_columns(L, lua_gettop(L) - 1, lua_gettop(L), k.names, k.b, k.out, k.st, 1);
        if (k.b->shape == PERF_ERROR_RETURN) {
            lua_rawgeti(L, k.names, lpl_status_key(k.b->status));
            lua_setfield(L, -2, "error");
        }
        slot_keep(L, &k, lua_gettop(L) - 1, lua_gettop(L));
    }
    scratch_give(L, k.cache, k.scratch);
    lua_pushinteger(L, (lua_Integer)k.valid);
    lua_rawgeti(L, k.inst, E_NAMES);
    lua_rawgeti(L, k.ctr, E_NAMES);
    return 5;
}

void lpl_open_evaluate(lua_State *L, int methods)
{
    lua_pushcfunction(L, s_evaluate);
    lua_setfield(L, methods, "evaluate");
    lua_pushcfunction(L, s_columns);
    lua_setfield(L, methods, "columns");
}
