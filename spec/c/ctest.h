/* A minimal C test harness for the core: CHECK macros, a case runner and a
 * closing line "N passed, N failed" like the Lua specs. */
#ifndef CTEST_H
#define CTEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int ct_failed_checks;
static int ct_passed, ct_failed;

#define CHECK(cond) do { if (!(cond)) { ct_failed_checks++; \
    fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ_U64(a, b) do { unsigned long long ct_a = (a), ct_b = (b); if (ct_a != ct_b) { \
    ct_failed_checks++; fprintf(stderr, "  %s:%d: %s == %llu, expected %llu\n", \
    __FILE__, __LINE__, #a, ct_a, ct_b); } } while (0)
#define CHECK_NEAR(a, b, eps) do { double ct_a = (a), ct_b = (b); if (!(fabs(ct_a - ct_b) <= (eps))) { \
    ct_failed_checks++; fprintf(stderr, "  %s:%d: %s == %.17g, expected %.17g\n", \
    __FILE__, __LINE__, #a, ct_a, ct_b); } } while (0)
#define CHECK_STR(a, b) do { const char *ct_a = (a), *ct_b = (b); \
    if (!ct_a || strcmp(ct_a, ct_b) != 0) { ct_failed_checks++; \
    fprintf(stderr, "  %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
    ct_a ? ct_a : "(null)", ct_b); } } while (0)

#define RUN(fn) do { int ct_before = ct_failed_checks; fn(); \
    if (ct_failed_checks == ct_before) ct_passed++; \
    else { ct_failed++; fprintf(stderr, "FAIL %s\n", #fn); } } while (0)

#define CT_END() (printf("%s: %d passed, %d failed\n", __FILE__, ct_passed, ct_failed), ct_failed != 0)

#ifdef CT_BUILTIN
/* The core's registry is empty: tests of the built-in sets link the
 * providers (the Makefile passes -DCT_BUILTIN) and register them before
 * main, as libperflib and the Lua module do before their first machine. */
#include <stdlib.h>
#include "providers.h"

__attribute__((constructor)) static void ct_register_builtin(void)
{
    char msg[256];
    if (pl_register_builtin(msg, sizeof msg) != 0) {
        fprintf(stderr, "cannot register the built-in countersets: %s\n", msg);
        exit(2);
    }
}
#endif

#endif
