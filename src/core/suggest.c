/* "Did you mean": a bounded, case-insensitive edit distance (optimal string
 * alignment: a swap of neighbours is one edit, the commonest typo) and the
 * closest of a list of names.  No allocation: three rows on the stack. */
#include "pl_suggest.h"

#include <string.h>

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

size_t pl_edit_distance(const char *a, const char *b, size_t limit)
{
    size_t rows[3][PL_SUGGEST_MAX + 1];
    size_t la = strlen(a), lb = strlen(b);
    if (la > PL_SUGGEST_MAX || lb > PL_SUGGEST_MAX || (la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    size_t *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        unsigned char ca = lower((unsigned char)a[i - 1]);
        size_t best = cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned char cb = lower((unsigned char)b[j - 1]);
            size_t d = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb));
            if (i > 1 && j > 1 && ca == lower((unsigned char)b[j - 2])
                && lower((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1 < d)
                d = pp[j - 2] + 1;
            cur[j] = d;
            if (d < best)
                best = d;
        }
        if (best > limit)
            return limit + 1;    /* every later row is at least as far */
        size_t *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb] > limit ? limit + 1 : prev[lb];
}

/* Does s start with the prefix p, ignoring ASCII case? */
static int starts_with(const char *s, const char *p)
{
    for (; *p; s++, p++)
        if (lower((unsigned char)*s) != lower((unsigned char)*p))
            return 0;
    return 1;
}

const char *pl_suggest(const char *word, pl_name_at name_at, const void *ctx, size_t n)
{
    if (!word || !*word)
        return NULL;
    size_t len = strlen(word);
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    size_t bestd = limit + 1;
    for (size_t i = 0; i < n && bestd > 0; i++) {
        const char *name = name_at(ctx, i);
        if (!name)
            continue;
        size_t d = pl_edit_distance(word, name, limit);
        if (d > 1 && len >= 4 && starts_with(name, word))
            d = 1;
        if (d < bestd) {
            best = name;
            bestd = d;
        }
    }
    return best;
}

static const char *counterset_at(const void *ctx, size_t i)
{
    const pl_counterset_def *cs = pl_env_counterset(ctx, (uint32_t)i);
    return cs ? cs->name : NULL;
}

static const char *counter_at(const void *ctx, size_t i)
{
    return ((const pl_counterset_def *)ctx)->counters[i].name;
}

const char *pl_suggest_counterset(const pl_env *env, const char *word)
{
    return pl_suggest(word, counterset_at, env, pl_env_counterset_count(env));
}

const char *pl_suggest_counter(const pl_counterset_def *cs, const char *word)
{
    return pl_suggest(word, counter_at, cs, cs->ncounters);
}
