/* The sources made of one row per line (diskstats, net/dev, swaps): a table
 * of fixed-size rows, grown and kept across parses, filled by one line
 * parser per line. */
#ifndef PL_ROWS_H
#define PL_ROWS_H

#include <stddef.h>
#include <stdint.h>

typedef struct pl_rows {
    void *row;                /* n rows of the source's row type */
    uint32_t n, cap;
} pl_rows;

/* Parses the line [p, eol) into row (eol is the line's '\n', or buf + len
 * for a last line without one; the line may hold a '\0' before eol).
 * 1: a row; 0: a line to skip; -1: ENOMEM. */
typedef int pl_row_fn(const char *p, const char *eol, void *row, void *ctx);

/* Every line of buf (buf[len] is '\0') through line: 0 or ENOMEM. */
int pl_rows_parse(const char *buf, size_t len, pl_rows *t, size_t size, pl_row_fn *line, void *ctx);
/* The release of a pl_ksrc_def whose struct is a pl_rows. */
void pl_rows_release(void *out);

#endif
