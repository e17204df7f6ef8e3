/* "Did you mean": the closest known name to a misspelled one (counterset and
 * counter names, rule keys).  Part of the core; no Lua. */
#ifndef PL_SUGGEST_H
#define PL_SUGGEST_H

#include "perflib.h"

#include <stddef.h>

#define PL_SUGGEST_MAX 128u       /* longer names are never suggested */

/* The i-th of the candidate names (NULL entries are skipped). */
typedef const char *(*pl_name_at)(const void *ctx, size_t i);

/* Edit distance of a and b ignoring ASCII case: insertions, deletions,
 * substitutions and swaps of neighbours cost 1.  Anything above limit (or a
 * name longer than PL_SUGGEST_MAX) gives limit + 1. */
size_t pl_edit_distance(const char *a, const char *b, size_t limit);

/* The candidate closest to word when it is close: within 1 edit for words
 * of up to 4 characters, 2 up to 8, 3 beyond; a candidate that starts with
 * word (4 characters or more) counts as 1.  The first of equals; NULL when
 * none is close. */
const char *pl_suggest(const char *word, pl_name_at name_at, const void *ctx, size_t n);

/* pl_suggest over the countersets of env, and over the counters of cs. */
const char *pl_suggest_counterset(const pl_env *env, const char *word);
const char *pl_suggest_counter(const pl_counterset_def *cs, const char *word);

#endif
