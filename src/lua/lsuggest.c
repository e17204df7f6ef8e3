/***
 * "Did you mean": `perflib.suggest(word, names)`, the closest of a list of
 * names to a misspelled one (the core's pl_suggest, which also names the
 * counterset or counter in the messages of `Query:add`).
 * @module perflib
 */
#include "lpl.h"
#include "pl_suggest.h"

typedef struct names_ctx { lua_State *L; int t; } names_ctx;

/* Entry i + 1 of the list, or NULL when it is not a string.  The string stays
 * valid while the list holds it (Lua strings do not move). */
static const char *name_at(const void *ctx, size_t i)
{
    const names_ctx *c = ctx;
    const char *s = NULL;
    if (lua_rawgeti(c->L, c->t, (lua_Integer)i + 1) == LUA_TSTRING)
        s = lua_tostring(c->L, -1);
    lua_pop(c->L, 1);
    return s;
}

/***
 * The closest name in `names` to `word`, ignoring case, when it is close:
 * within 1 edit (insertion, deletion, substitution, swap of neighbours) for
 * words of up to 4 characters, 2 up to 8, 3 beyond; a name that starts with
 * a word of 4 characters or more counts as 1 edit away.
 * @function suggest
 * @tparam string word
 * @tparam {string,...} names
 * @treturn[1] string the suggestion
 * @return[2] nil when no name is close
 * @treturn[2] string message
 */
int lpl_suggest(lua_State *L)
{
    const char *word = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    names_ctx c = { L, 2 };
    const char *s = pl_suggest(word, name_at, &c, lua_rawlen(L, 2));
    if (s) {
        lua_pushstring(L, s);
        return 1;
    }
    luaL_pushfail(L);
    lua_pushfstring(L, "no name close to '%s'", word);
    return 2;
}
