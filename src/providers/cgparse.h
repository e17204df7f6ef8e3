/* Value parsers of cgroup files, shared by Control Group (every group) and
 * Container (the reader's own group): a number that ends its line, a "key
 * value" line, a limit that may be "max". */
#ifndef PL_CGPARSE_H
#define PL_CGPARSE_H

#include "pl_provider.h"

#include <stdint.h>
#include <string.h>

/* A decimal that ends its line: a cut-off file yields no number. */
static inline int pl_cg_num_eol(const char *p, uint64_t *v)
{
    return pl_parse_u64(&p, v) == 0 && *p == '\n';
}

/* "key value\n" anywhere in text. */
static inline int pl_cg_kv(const char *text, const char *key, uint64_t *v)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = pl_next_line(p))
        if (strncmp(p, key, kl) == 0 && p[kl] == ' ')
            return pl_cg_num_eol(p + kl + 1, v);
    return 0;
}

/* A file holding one number, or "max" (then *unlimited). */
static inline int pl_cg_limit(const char *t, uint64_t *v, int *unlimited)
{
    *unlimited = t && strcmp(t, "max\n") == 0;
    return t && !*unlimited && pl_cg_num_eol(t, v);
}

#endif
