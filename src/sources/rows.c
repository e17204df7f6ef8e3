/* Row tables of the line-per-row sources: see rows.h. */
#include "rows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pl_rows_parse(const char *buf, size_t len, pl_rows *t, size_t size, pl_row_fn *line, void *ctx)
{
    const char *end = buf + len;
    t->n = 0;
    for (const char *p = buf; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (t->n == t->cap) {
            uint32_t cap = t->cap ? t->cap * 2 : 8;
            void *nr = realloc(t->row, cap * size);
            if (!nr)
                return ENOMEM;
            t->row = nr;
            t->cap = cap;
        }
        int r = line(p, nl ? nl : end, (char *)t->row + t->n * size, ctx);
        if (r < 0)
            return ENOMEM;
        t->n += (uint32_t)r;
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}

void pl_rows_release(void *out)
{
    pl_rows *t = out;
    free(t->row);
    t->row = NULL;
    t->n = t->cap = 0;
}
