/***
 * Samples as PerfLib V2 data blocks (`s:block()`) or V1 PERF_DATA_BLOCKs
 * (`s:block{v1 = true}`) and blocks of either kind back into samples
 * (`perflib.sample_from_block`), with strict validation of blocks
 * that come from outside: a bad block is `nil, "block: offset N: rule", EINVAL`,
 * never a read out of bounds.
 * @module perflib
 */
#include "lpl.h"
#include "pl_datablock.h"
#include "pl_v1.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The sample as a V1 PERF_DATA_BLOCK, named by system (default: the host's name). */
static int v1_block(lua_State *L, const pl_sample *s, const char *system, unsigned flags)
{
    char host[256] = "";
    if (!system) {
        if (gethostname(host, sizeof host - 1) != 0)
            host[0] = '\0';
        host[sizeof host - 1] = '\0';
        system = host;
    }
    size_t n = pl_v1_write(s, system, flags, NULL, 0);
    if (n > UINT32_MAX)                  /* TotalByteLength is 32 bits */
        return luaL_error(L, "block: the sample does not fit in a data block (%f bytes)", (double)n);
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, n);
    pl_v1_write(s, system, flags, p, n);
    luaL_pushresultsize(&b, n);
    return 1;
}

/***
 * The sample as a data block: PERF_DATA_HEADER and one PERF_COUNTER_HEADER
 * block per result.  By default with perflib's trailers, so that
 * `perflib.sample_from_block` gives back a sample that formats exactly like
 * this one; `{standard = true}` leaves them out (what the C API returns).
 * `{v1 = true}` gives a PerfLib V1 PERF_DATA_BLOCK instead (what
 * RegQueryValueEx(HKEY_PERFORMANCE_DATA) returns): one PERF_OBJECT_TYPE per
 * result that has data, title indexes as in "Counter 009", `system` its
 * system name (default: this host's), `metadata = true` the definitions only
 * (NumInstances PERF_METADATA_*, as "MetadataGlobal" answers).
 * @function Sample:block
 * @tparam[opt] table opts `standard`, `v1`, `metadata`, `system`
 * @treturn string
 */
int lpl_sample_block(lua_State *L)
{
    static const char *const keys[] = { "standard", "v1", "metadata", "system", NULL };
    const pl_sample *s = lpl_check_sample(L, 1)->s;
    int ext = 1, v1 = 0, meta = 0;
    const char *system = NULL;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lpl_check_keys(L, 2, keys, "block");
        lua_getfield(L, 2, "standard");
        ext = !lua_toboolean(L, -1);
        lua_getfield(L, 2, "v1");
        v1 = lua_toboolean(L, -1);
        lua_getfield(L, 2, "metadata");
        meta = lua_toboolean(L, -1);
        lua_getfield(L, 2, "system");
        if (!lua_isnil(L, -1) && !lua_isstring(L, -1))
            return luaL_error(L, "block: opts.system must be a string");
        system = lua_tostring(L, -1);     /* stays on the stack until we return */
        if (meta && !v1)
            return luaL_error(L, "block: opts.metadata needs opts.v1 (V2 blocks have no metadata form)");
        if (system && !v1)
            return luaL_error(L, "block: opts.system needs opts.v1 (V2 blocks carry no system name)");
    }
    if (v1)
        return v1_block(L, s, system, meta ? PL_V1_METADATA : 0);
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
 * needed: a standard block lacks the countersets of its results), or from a
 * V1 PERF_DATA_BLOCK (told apart by its signature "PERF" in UTF-16), whose
 * objects and counters are looked up by title index: one from another
 * machine reads when its objects are countersets of this machine.  The
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
    int e = pl_v1_is_block(buf, len) ? pl_v1_read(m->env, buf, len, lpl_sample_alloc, &a, &s, &err)
                                      : pl_db_read(m->env, buf, len, lpl_sample_alloc, &a, &s, &err);
    if (e == EINVAL)
        return bad_block(L, &err);
    if (e)
        return lpl_fail(L, "sample_from_block", e);
    lpl_sample_finish(L, s, mi);
    return 1;
}

/***
 * Checks a data block (V2 standard or perflib's, or V1) against every rule of
 * its layout: sizes, offsets, counts, multiples of 8, terminated names.
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
    if (pl_v1_is_block(buf, len) ? pl_v1_validate(buf, len, &err) : pl_db_validate(buf, len, &err))
        return bad_block(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}
