/* libFuzzer target: the formula compiler of derived counters (expr.h).
 *
 * The input, as a NUL-terminated copy of exactly its size (so ASan sees any
 * read past it), is compiled; a compiled formula is evaluated with every
 * reference valid (values from the input's first bytes) and again with one
 * reference absent.  Beyond "no crash", the API's promises are checked: a
 * failure names an offset inside the input and leaves no formula; a valid
 * result is finite; an absent operand never yields a value.  A
 * disagreement aborts, which libFuzzer reports with the input saved. */
#include "expr.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *src)
{
    fprintf(stderr, "fuzz_expr: %s\n  input: \"%s\"\n", what, src);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1), msg[256];
    double vals[PL_EXPR_MAX_REFS], out = 0;
    uint8_t st[PL_EXPR_MAX_REFS];
    size_t pos = (size_t)-1;
    pl_expr *e = NULL;
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    int rc = pl_expr_compile(src, &e, msg, sizeof msg, &pos);
    if (rc) {
        if (e || pos > strlen(src) || strncmp(msg, "at offset ", 10) != 0)
            fail("a failed compile left a formula or named no offset inside the input", src);
        free(src);
        return 0;
    }
    uint32_t n = pl_expr_nrefs(e);
    if (n > PL_EXPR_MAX_REFS)
        fail("more references than the limit", src);
    for (uint32_t i = 0; i < n; i++) {
        if (!pl_expr_ref(e, i) || strchr(pl_expr_ref(e, i), ']'))
            fail("a reference with ']' or none", src);
        vals[i] = i < size ? (double)(int8_t)data[i] : 1.0;
        st[i] = PL_VALID;
    }
    if (pl_expr_eval(e, vals, st, &out) == PL_VALID && !isfinite(out))
        fail("a valid result that is not finite", src);
    if (n) {
        st[n - 1] = PL_NO_DATA;
        pl_status s = pl_expr_eval(e, vals, st, &out);
        if (s == PL_VALID)
            fail("a value with an operand absent", src);
    }
    pl_expr_free(e);
    free(src);
    return 0;
}
