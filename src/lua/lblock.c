/***
 * Samples as PerfLib V2 data blocks (`s:block()`) and blocks back into
 * samples (`perflib.sample_from_block`), with strict validation of blocks
 * that come from outside: a bad block is `nil, "block: offset N: rule", EINVAL`,
 * never a read out of bounds.
 * @module perflib.core
 */
#include "lpl.h"
#include "pl_datablock.h"

#include <errno.h>
#include <string.h>

/***
 * The sample as a data block: PERF_DATA_HEADER and one PERF_COUNTER_HEADER
 * block per result.  By default with perflib's trailers, so that
 * `perflib.sample_from_block` gives back a sample that formats exactly like
 * this one; `{standard = true}` leaves them out (what the C API returns).
 * @function Sample:block
 * @tparam[opt] table opts `standard`
 * @treturn string
 */
int lpl_sample_block(lua_State *L)
{
    static const char *const keys[] = { "standard", NULL };
    const pl_sample *s = lpl_check_sample(L, 1)->s;
    int ext = 1;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lpl_check_keys(L, 2, keys, "block");
        lua_getfield(L, 2, "standard");
        ext = !lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    size_t n = pl_db_size(s, ext);
    if (n > UINT32_MAX)                  /* dwTotalSize is 32 bits */
        return luaL_error(L, "block: the sample does not fit in a data block (%f bytes)", (double)n);
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, n);
    pl_db_write(s, ext, p, n);
    luaL_pushresultsize(&b, n);
    return 1;
}

static int bad_block(lua_State *L, const pl_db_error *e)
{
    luaL_pushfail(L);
    lua_pushfstring(L, "block: offset %d: %s", (int)e->offset, e->rule);
    lua_pushinteger(L, EINVAL);
    return 3;
}

/***
 * A sample from a data block made by `Sample:block()` (perflib's trailers
 * needed: a standard block lacks the countersets of its results).  The
 * countersets are the machine's, looked up by GUID.
 * @function sample_from_block
 * @tparam string block
 * @tparam[opt] perflib.Machine machine default: this machine
 * @treturn[1] perflib.Sample
 * @return[2] nil, "block: offset N: rule", EINVAL (malformed, or an unknown counterset or counter)
 */
int lpl_sample_from_block(lua_State *L)
{
    size_t len;
    const char *buf = luaL_checklstring(L, 1, &len);
    lpl_machine *m = lpl_opt_machine(L, 2);             /* pushed */
    int mi = lua_gettop(L);
    lpl_alloc a = { L, NULL, 0 };
    pl_sample *s;
    pl_db_error err = { 0, NULL };
    int e = pl_db_read(m->env, buf, len, lpl_sample_alloc, &a, &s, &err);
    if (e == EINVAL)
        return bad_block(L, &err);
    if (e)
        return lpl_fail(L, "sample_from_block", e);
    lpl_sample_finish(L, s, mi);
    return 1;
}

/***
 * Checks a data block (standard or perflib's) against every rule of the
 * layout: sizes, offsets, counts, multiples of 8, terminated names.
 * @function check_block
 * @tparam string block
 * @treturn[1] boolean true
 * @return[2] nil, "block: offset N: rule", EINVAL
 */
int lpl_check_block(lua_State *L)
{
    size_t len;
    const char *buf = luaL_checklstring(L, 1, &len);
    pl_db_error err = { 0, NULL };
    if (pl_db_validate(buf, len, &err))
        return bad_block(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}
