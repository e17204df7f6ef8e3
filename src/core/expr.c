/* Formulas of derived counters (expr.h): a recursive-descent compiler to a
 * stack bytecode, and its evaluator over statuses.  The compiler bounds
 * everything it builds (length, references, depth, instructions), so the
 * evaluator's stack has a size known at compile time and it allocates
 * nothing. */
#include "expr.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_NUM, OP_REF, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX };

typedef struct pl_op {
    uint8_t op;
    uint32_t arg;            /* constant or reference index */
} pl_op;

struct pl_expr {
    uint32_t nops, nconst, nrefs, depth;     /* depth: the stack the evaluator needs */
    pl_op ops[PL_EXPR_MAX_OPS];
    double consts[PL_EXPR_MAX_OPS];
    char *refs[PL_EXPR_MAX_REFS];
};

typedef struct parser {
    const char *src, *p;
    pl_expr *e;
    uint32_t nest, sp;       /* current nesting and evaluation stack height */
    int err;
    char *msg;
    size_t msgsize, pos;
} parser;

static int fail(parser *ps, int err, const char *fmt, ...)
{
    if (ps->err)
        return ps->err;
    ps->err = err;
    ps->pos = (size_t)(ps->p - ps->src);
    if (ps->msg && ps->msgsize) {
        va_list ap;
        int n = snprintf(ps->msg, ps->msgsize, "at offset %zu: ", ps->pos);
        va_start(ap, fmt);
        if (n > 0 && (size_t)n < ps->msgsize)
            vsnprintf(ps->msg + n, ps->msgsize - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return err;
}

static void skip(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

/* Appends an instruction; pushes and pops track the stack height. */
static int emit(parser *ps, uint8_t op, uint32_t arg)
{
    pl_expr *e = ps->e;
    if (e->nops == PL_EXPR_MAX_OPS)
        return fail(ps, E2BIG, "more than %d operations", PL_EXPR_MAX_OPS);
    e->ops[e->nops++] = (pl_op){ op, arg };
    if (op == OP_NUM || op == OP_REF) {
        if (++ps->sp > e->depth)
            e->depth = ps->sp;
    } else if (op != OP_NEG) {
        ps->sp--;
    }
    return 0;
}

static int expr(parser *ps);

/* A sub-expression, then the character that closes it. */
static int expr_then(parser *ps, char close, const char *what)
{
    if (expr(ps))
        return ps->err;
    skip(ps);
    if (*ps->p != close)
        return fail(ps, EINVAL, "%s", what);
    ps->p++;
    return 0;
}

static int number(parser *ps)
{
    char *end;
    double v = strtod(ps->p, &end);
    if (end == ps->p || !isfinite(v))
        return fail(ps, EINVAL, "a number is not valid here");
    /* strtod takes hex, inf and nan too: keep to decimal digits */
    for (const char *q = ps->p; q < end; q++)
        if (!strchr("0123456789.eE+-", *q))
            return fail(ps, EINVAL, "a number must be decimal");
    ps->p = end;
    ps->e->consts[ps->e->nconst] = v;
    return emit(ps, OP_NUM, ps->e->nconst++);
}

static int ref(parser *ps)
{
    pl_expr *e = ps->e;
    const char *a = ++ps->p, *b = strchr(a, ']');
    uint32_t i;
    if (!b)
        return fail(ps, EINVAL, "'[' without its ']'");
    if (b == a)
        return fail(ps, EINVAL, "an empty counter path");
    for (i = 0; i < e->nrefs; i++)
        if (strlen(e->refs[i]) == (size_t)(b - a) && memcmp(e->refs[i], a, (size_t)(b - a)) == 0)
            break;
    if (i == e->nrefs) {
        if (e->nrefs == PL_EXPR_MAX_REFS)
            return fail(ps, E2BIG, "more than %d counter paths", PL_EXPR_MAX_REFS);
        if (!(e->refs[i] = strndup(a, (size_t)(b - a))))
            return fail(ps, ENOMEM, "out of memory");
        e->nrefs++;
    }
    ps->p = b + 1;
    return emit(ps, OP_REF, i);
}

/* min(a, b) or max(a, b), after its name. */
static int call(parser *ps, uint8_t op)
{
    skip(ps);
    if (*ps->p != '(')
        return fail(ps, EINVAL, "'(' expected after %s", op == OP_MIN ? "min" : "max");
    ps->p++;
    if (expr_then(ps, ',', "',' expected: min and max take two arguments") ||
        expr_then(ps, ')', "')' expected"))
        return ps->err;
    return emit(ps, op, 0);
}

static int primary(parser *ps)
{
    skip(ps);
    char c = *ps->p;
    if (c == '[')
        return ref(ps);
    if ((c >= '0' && c <= '9') || c == '.')
        return number(ps);
    if (c == '(') {
        ps->p++;
        return expr_then(ps, ')', "')' expected");
    }
    if (strncmp(ps->p, "min", 3) == 0 || strncmp(ps->p, "max", 3) == 0) {
        uint8_t op = ps->p[1] == 'i' ? OP_MIN : OP_MAX;
        ps->p += 3;
        return call(ps, op);
    }
    if (c == '\0')
        return fail(ps, EINVAL, "the formula ends where an operand is expected");
    return fail(ps, EINVAL, "'%c' where an operand is expected", c);
}

static int unary(parser *ps)
{
    skip(ps);
    if (*ps->p != '-')
        return primary(ps);
    if (++ps->nest > PL_EXPR_MAX_DEPTH)
        return fail(ps, E2BIG, "nested deeper than %d", PL_EXPR_MAX_DEPTH);
    ps->p++;
    if (unary(ps))
        return ps->err;
    ps->nest--;
    return emit(ps, OP_NEG, 0);
}

static int term(parser *ps)
{
    if (unary(ps))
        return ps->err;
    for (;;) {
        skip(ps);
        char c = *ps->p;
        if (c != '*' && c != '/')
            return 0;
        ps->p++;
        if (unary(ps) || emit(ps, c == '*' ? OP_MUL : OP_DIV, 0))
            return ps->err;
    }
}

static int expr(parser *ps)
{
    if (++ps->nest > PL_EXPR_MAX_DEPTH)
        return fail(ps, E2BIG, "nested deeper than %d", PL_EXPR_MAX_DEPTH);
    if (term(ps))
        return ps->err;
    for (;;) {
        skip(ps);
        char c = *ps->p;
        if (c != '+' && c != '-')
            break;
        ps->p++;
        if (term(ps) || emit(ps, c == '+' ? OP_ADD : OP_SUB, 0))
            return ps->err;
    }
    ps->nest--;
    return 0;
}

int pl_expr_compile(const char *src, pl_expr **out, char *msg, size_t msgsize, size_t *pos)
{
    parser ps = { src, src, NULL, 0, 0, 0, msg, msgsize, 0 };
    *out = NULL;
    if (msg && msgsize)
        msg[0] = '\0';
    if (strlen(src) > PL_EXPR_MAX_LEN) {
        ps.p = src + PL_EXPR_MAX_LEN;
        fail(&ps, E2BIG, "a formula is at most %d bytes", PL_EXPR_MAX_LEN);
    } else if (!(ps.e = calloc(1, sizeof *ps.e))) {
        return ENOMEM;
    } else if (!expr(&ps)) {
        skip(&ps);
        if (*ps.p)
            fail(&ps, EINVAL, "'%c' where an operator or the end is expected", *ps.p);
    }
    if (pos)
        *pos = ps.pos;
    if (ps.err) {
        pl_expr_free(ps.e);
        return ps.err;
    }
    *out = ps.e;
    return 0;
}

void pl_expr_free(pl_expr *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->nrefs; i++)
        free(e->refs[i]);
    free(e);
}

uint32_t pl_expr_nrefs(const pl_expr *e)
{
    return e->nrefs;
}

const char *pl_expr_ref(const pl_expr *e, uint32_t i)
{
    return i < e->nrefs ? e->refs[i] : NULL;
}

/* One binary operation on the two top entries; the first bad status wins. */
static void binop(uint8_t op, double *v, uint8_t *st, uint32_t sp)
{
    double a = v[sp - 2], b = v[sp - 1];
    if (st[sp - 2] != PL_VALID)
        return;
    if (st[sp - 1] != PL_VALID) {
        st[sp - 2] = st[sp - 1];
        return;
    }
    switch (op) {
    case OP_ADD: a += b; break;
    case OP_SUB: a -= b; break;
    case OP_MUL: a *= b; break;
    case OP_DIV:
        if (b == 0.0) {
            st[sp - 2] = PL_ZERO_BASE;
            return;
        }
        a /= b;
        break;
    case OP_MIN: a = b < a ? b : a; break;
    default: a = b > a ? b : a; break;
    }
    if (!isfinite(a))
        st[sp - 2] = PL_INVALID_DATA;
    v[sp - 2] = a;
}

pl_status pl_expr_eval(const pl_expr *e, const double *vals, const uint8_t *st, double *out)
{
    double v[PL_EXPR_MAX_OPS];
    uint8_t s[PL_EXPR_MAX_OPS];
    uint32_t sp = 0;
    s[0] = PL_INVALID_DATA;                   /* a compiled formula has an operand: never kept */
    for (uint32_t i = 0; i < e->nops; i++) {
        const pl_op *o = &e->ops[i];
        switch (o->op) {
        case OP_NUM:
            v[sp] = e->consts[o->arg];
            s[sp++] = PL_VALID;
            break;
        case OP_REF:
            v[sp] = vals[o->arg];
            s[sp] = st[o->arg];
            if (s[sp] == PL_VALID && !isfinite(v[sp]))
                s[sp] = PL_INVALID_DATA;
            sp++;
            break;
        case OP_NEG:
            v[sp - 1] = -v[sp - 1];
            break;
        default:
            binop(o->op, v, s, sp);
            sp--;
        }
    }
    if (s[0] != PL_VALID)
        return (pl_status)s[0];
    *out = v[0] == 0.0 ? 0.0 : v[0];          /* no -0 */
    return PL_VALID;
}
