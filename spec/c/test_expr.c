/* The formula language of derived counters (src/core/expr.c): precedence,
 * references, statuses (a missing operand's, division by zero, overflow),
 * errors with their byte offsets, and the limits.  Values by hand. */
#include "ctest.h"
#include "expr.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The value of src with refs given in order of first appearance. */
static pl_status ev(const char *src, const double *vals, const uint8_t *st, double *out)
{
    pl_expr *e;
    char msg[128];
    int rc = pl_expr_compile(src, &e, msg, sizeof msg, NULL);
    if (rc) {
        fprintf(stderr, "  compile '%s': %s\n", src, msg);
        return PL_STATUS_COUNT;
    }
    pl_status s = pl_expr_eval(e, vals, st, out);
    pl_expr_free(e);
    return s;
}

static double num(const char *src)
{
    double v = -12345.0;
    CHECK(ev(src, NULL, NULL, &v) == PL_VALID);
    return v;
}

static void precedence(void)
{
    CHECK_NEAR(num("1 + 2 * 3"), 7.0, 0);             /* * before + */
    CHECK_NEAR(num("(1 + 2) * 3"), 9.0, 0);
    CHECK_NEAR(num("10 - 4 - 3"), 3.0, 0);            /* left to right: (10-4)-3 */
    CHECK_NEAR(num("24 / 4 / 2"), 3.0, 0);            /* (24/4)/2 */
    CHECK_NEAR(num("-2 * 3"), -6.0, 0);
    CHECK_NEAR(num("- -2"), 2.0, 0);
    CHECK_NEAR(num("2 - -3"), 5.0, 0);
    CHECK_NEAR(num("1.5e2 + .5"), 150.5, 0);
    CHECK_NEAR(num("min(3, 2 + 2) * max(1, -1)"), 3.0, 0);
    CHECK_NEAR(num("max(min(1, 2), min(5, 4))"), 4.0, 0);
    CHECK_NEAR(num(" ( ( 7 ) ) "), 7.0, 0);
    CHECK(1 / num("0 * -1") > 0);                     /* no negative zero */
}

static void refs(void)
{
    pl_expr *e;
    double v[2] = { 4096.0, 16.0 }, out = 0;
    uint8_t st[2] = { PL_VALID, PL_VALID };
    CHECK(pl_expr_compile("[\\PhysicalDisk(*)\\Disk Bytes/sec] / [\\PhysicalDisk(*)\\Disk Transfers/sec]"
                          " + [\\PhysicalDisk(*)\\Disk Bytes/sec] * 0", &e, NULL, 0, NULL) == 0);
    CHECK_EQ_U64(pl_expr_nrefs(e), 2);                /* the same path twice is one reference */
    CHECK_STR(pl_expr_ref(e, 0), "\\PhysicalDisk(*)\\Disk Bytes/sec");
    CHECK_STR(pl_expr_ref(e, 1), "\\PhysicalDisk(*)\\Disk Transfers/sec");
    CHECK(pl_expr_ref(e, 2) == NULL);
    CHECK(pl_expr_eval(e, v, st, &out) == PL_VALID);
    CHECK_NEAR(out, 256.0, 0);                        /* 4096 / 16 */
    st[1] = PL_FIRST_SAMPLE;                          /* a rate with one sample: its status */
    CHECK(pl_expr_eval(e, v, st, &out) == PL_FIRST_SAMPLE);
    st[1] = PL_VALID;
    v[1] = 0.0;                                       /* no transfers: zero base, never inf */
    CHECK(pl_expr_eval(e, v, st, &out) == PL_ZERO_BASE);
    st[0] = PL_NO_INSTANCE;                           /* the left operand's status comes first */
    CHECK(pl_expr_eval(e, v, st, &out) == PL_NO_INSTANCE);
    pl_expr_free(e);
}

static void statuses(void)
{
    double v[1] = { 1e308 }, out = 0;
    uint8_t st[1] = { PL_VALID };
    CHECK(ev("1 / 0", NULL, NULL, &out) == PL_ZERO_BASE);
    CHECK(ev("1 / (2 - 2)", NULL, NULL, &out) == PL_ZERO_BASE);
    CHECK(ev("[a] * 10", v, st, &out) == PL_INVALID_DATA);    /* overflow to inf: no value */
    CHECK(ev("-[a] * 10", v, st, &out) == PL_INVALID_DATA);
    v[0] = NAN;                                               /* a NaN operand is not a number */
    CHECK(ev("[a] * 0", v, st, &out) == PL_INVALID_DATA);
    v[0] = 5;
    st[0] = PL_NO_DATA;
    CHECK(ev("min([a], 1)", v, st, &out) == PL_NO_DATA);
    CHECK(ev("1 / 0 + [a]", v, st, &out) == PL_ZERO_BASE);   /* the first one met */
}

/* Compiling src fails with err at byte offset at, and msg says so. */
static void bad_at(int line, const char *src, int err, size_t at)
{
    pl_expr *e = (pl_expr *)1;
    char msg[160], want[32];
    size_t pos = 9999;
    int rc = pl_expr_compile(src, &e, msg, sizeof msg, &pos);
    snprintf(want, sizeof want, "at offset %zu: ", at);
    if (rc != err || pos != at || e != NULL || strncmp(msg, want, strlen(want)) != 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: '%s': rc %d pos %zu msg '%s'\n", line, src, rc, pos, msg);
    }
}
#define BAD(src, err, at) bad_at(__LINE__, src, err, at)

static void errors(void)
{
    BAD("", EINVAL, 0);
    BAD("1 +", EINVAL, 3);
    BAD("1 + * 2", EINVAL, 4);
    BAD("(1 + 2", EINVAL, 6);
    BAD("1 + 2)", EINVAL, 5);
    BAD("[abc", EINVAL, 1);
    BAD("[]", EINVAL, 1);
    BAD("1 2", EINVAL, 2);
    BAD("0x10", EINVAL, 0);
    BAD("nan", EINVAL, 0);
    BAD("inf + 1", EINVAL, 0);
    BAD("min(1)", EINVAL, 5);
    BAD("max 1", EINVAL, 4);
    BAD("foo(1, 2)", EINVAL, 0);
    BAD("1e999", EINVAL, 0);
    BAD("3 % 2", EINVAL, 2);
}

static void limits(void)
{
    char src[PL_EXPR_MAX_LEN + 2], deep[200];
    size_t n = 0;
    pl_expr *e;
    memset(src, '1', sizeof src - 1);
    src[sizeof src - 1] = '\0';
    BAD(src, E2BIG, PL_EXPR_MAX_LEN);
    for (int i = 0; i < 40; i++)
        deep[n++] = '(';
    deep[n++] = '1';
    for (int i = 0; i < 40; i++)
        deep[n++] = ')';
    deep[n] = '\0';
    CHECK(pl_expr_compile(deep, &e, NULL, 0, NULL) == E2BIG);
    CHECK(e == NULL);
    n = 0;                                    /* 33 distinct paths */
    for (int i = 0; i <= PL_EXPR_MAX_REFS; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%s[p%d]", i ? "+" : "", i);
    CHECK(pl_expr_compile(src, &e, NULL, 0, NULL) == E2BIG);
    n = 0;                                    /* 300 constants: 599 operations */
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "%s1", i ? "+" : "");
    CHECK(pl_expr_compile(src, &e, NULL, 0, NULL) == E2BIG);
    CHECK_NEAR(num("1+1+1+1+1+1+1+1+1+1"), 10.0, 0);
}

int main(void)
{
    RUN(precedence);
    RUN(refs);
    RUN(statuses);
    RUN(errors);
    RUN(limits);
    return CT_END();
}
