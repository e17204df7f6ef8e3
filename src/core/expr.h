/* Formulas of derived counters: a small expression language compiled once
 * to a bytecode evaluated without allocation.  No Lua: a C program uses it.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := number | '[' path ']' | '(' expr ')'
 *            | ('min' | 'max') '(' expr ',' expr ')'
 *
 * A number is decimal with an optional fraction and exponent (no sign: that
 * is unary minus).  A path is any text up to the next ']' (no ']' or NUL
 * inside); the same path twice is one reference. */
#ifndef PL_EXPR_H
#define PL_EXPR_H

#include <stddef.h>
#include <stdint.h>
#include "perflib.h"

#define PL_EXPR_MAX_LEN 4096     /* bytes of source */
#define PL_EXPR_MAX_REFS 32      /* distinct paths */
#define PL_EXPR_MAX_DEPTH 32     /* nesting of parentheses, minus and calls */
#define PL_EXPR_MAX_OPS 512      /* instructions */

typedef struct pl_expr pl_expr;

/* Compiles src.  0, EINVAL with a sentence in msg naming the byte offset
 * (also in *pos, may be NULL), E2BIG past a limit above, ENOMEM. */
int pl_expr_compile(const char *src, pl_expr **out, char *msg, size_t msgsize, size_t *pos);
void pl_expr_free(pl_expr *e);
uint32_t pl_expr_nrefs(const pl_expr *e);
const char *pl_expr_ref(const pl_expr *e, uint32_t i);    /* the path as written */

/* The value with ref i's value in vals[i] and its status in st[i].  PL_VALID
 * and *out, else the status of the first operand that was not valid, or
 * PL_ZERO_BASE for a division by zero, PL_INVALID_DATA for a result that is
 * not finite (overflow): never inf or NaN. */
pl_status pl_expr_eval(const pl_expr *e, const double *vals, const uint8_t *st, double *out);

#endif
