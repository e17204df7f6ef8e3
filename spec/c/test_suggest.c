/* "Did you mean" (src/core/suggest.c): the bounded edit distance by hand, the
 * closeness limits, and the suggestions over the built-in catalog. */
#include "ctest.h"
#include "pl_suggest.h"

#include <string.h>

static void test_distance(void)
{
    CHECK_EQ_U64(pl_edit_distance("", "", 3), 0);
    CHECK_EQ_U64(pl_edit_distance("Memory", "memory", 3), 0);          /* case ignored */
    CHECK_EQ_U64(pl_edit_distance("Memroy", "Memory", 3), 1);          /* a swap is one edit */
    CHECK_EQ_U64(pl_edit_distance("kitten", "sitting", 5), 3);         /* k->s, e->i, +g */
    CHECK_EQ_U64(pl_edit_distance("Availble Bytes", "Available Bytes", 3), 1);
    CHECK_EQ_U64(pl_edit_distance("abc", "xyz", 2), 3);                /* beyond the limit: limit + 1 */
    CHECK_EQ_U64(pl_edit_distance("a", "abcdef", 2), 3);               /* lengths alone say so */
    char longer[PL_SUGGEST_MAX + 2];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    CHECK_EQ_U64(pl_edit_distance(longer, longer, 3), 4);              /* too long: never a match */
}

static const char *const NAMES[] = { "pending", "keep", "source", "sources", "severity", NULL };

static const char *list_at(const void *ctx, size_t i)
{
    return ((const char *const *)ctx)[i];
}

static void test_closest(void)
{
    CHECK_STR(pl_suggest("pendng", list_at, NAMES, 5), "pending");
    CHECK_STR(pl_suggest("sorce", list_at, NAMES, 5), "source");      /* the first of the closest */
    CHECK_STR(pl_suggest("kep", list_at, NAMES, 5), "keep");
    CHECK(pl_suggest("xyz", list_at, NAMES, 5) == NULL);              /* 3 letters: 1 edit at most */
    CHECK(pl_suggest("pzzzzng", list_at, NAMES, 5) == NULL);          /* 7 letters, 4 edits away */
    CHECK_STR(pl_suggest("seve", list_at, NAMES, 5), "severity");     /* a prefix of 4 counts as 1 */
    CHECK(pl_suggest("sev", list_at, NAMES, 5) == NULL);              /* a shorter one does not */
    CHECK(pl_suggest("", list_at, NAMES, 5) == NULL);
}

static void test_catalog(void)
{
    pl_env *env = pl_env_new("/");
    CHECK(env != NULL);
    if (!env)
        return;
    CHECK_STR(pl_suggest_counterset(env, "Procesor Informaton"), "Processor Information");
    CHECK_STR(pl_suggest_counterset(env, "memroy"), "Memory");
    CHECK(pl_suggest_counterset(env, "Nothing Like It") == NULL);
    const pl_counterset_def *mem = pl_env_find(env, "Memory");
    CHECK(mem != NULL);
    if (mem) {
        CHECK_STR(pl_suggest_counter(mem, "Availble MBytes"), "Available MBytes");
        CHECK(pl_suggest_counter(mem, "Quux") == NULL);
    }
    pl_env_unref(env);
}

int main(void)
{
    RUN(test_distance);
    RUN(test_closest);
    RUN(test_catalog);
    return CT_END();
}
