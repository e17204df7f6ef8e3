/* Where the core's statuses become Windows codes (src/capi/pl_codes.h):
 * every pl_add_status with its name and the Win32 code PerfAddCounters
 * writes; every pl_status with its PDH code; the errno codes of the V2 API;
 * values out of range; and the core's add/find outcomes on the fixture tree
 * mapped to the codes the core itself gave before it spoke its own statuses
 * (0, 4200, 4202, 87, 183).  Links libperflib.a, as a C API program does. */
#include "ctest.h"
#include "perflib.h"
#include "pl_codes.h"
#include "providers.h"

#include <errno.h>
#include <stdint.h>

/* Every add status, by hand: its Lua name and its winerror.h code. */
static void test_add_status_table(void)
{
    static const struct { pl_add_status st; const char *name; uint32_t win32; } s[] = {
        { PL_ADD_OK, "ok", 0u },                            /* ERROR_SUCCESS */
        { PL_ADD_NO_SET, "no_counterset", 4200u },          /* ERROR_WMI_GUID_NOT_FOUND */
        { PL_ADD_NO_COUNTER, "no_counter", 4202u },         /* ERROR_WMI_ITEMID_NOT_FOUND */
        { PL_ADD_BAD_INSTANCE, "bad_instance", 87u },       /* ERROR_INVALID_PARAMETER */
        { PL_ADD_DUPLICATE, "duplicate", 183u },            /* ERROR_ALREADY_EXISTS */
        { PL_ADD_BAD_PATH, "bad_path", 87u },               /* ERROR_INVALID_PARAMETER */
        { PL_ADD_NOT_IN_QUERY, "not_in_query", 87u },       /* ERROR_INVALID_PARAMETER */
    };
    CHECK_EQ_U64(sizeof s / sizeof s[0], PL_ADD_STATUS_COUNT);
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        CHECK_EQ_U64(s[i].st, i);                           /* the table walks the enum in order */
        CHECK_STR(pl_add_status_name(s[i].st), s[i].name);
        CHECK_EQ_U64(pl_add_status_win32(s[i].st), s[i].win32);
    }
    /* a status the enum gains without a row here would map to 0: no failure maps to success */
    for (int st = 1; st < PL_ADD_STATUS_COUNT; st++) {
        CHECK(pl_add_status_win32((pl_add_status)st) != ERROR_SUCCESS);
        CHECK(pl_add_status_name((pl_add_status)st) != NULL);
    }
    /* out of range: a malformed specification, never success */
    CHECK_EQ_U64(pl_add_status_win32(PL_ADD_STATUS_COUNT), ERROR_INVALID_PARAMETER);
    CHECK_EQ_U64(pl_add_status_win32((pl_add_status)999), 87u);
    CHECK_STR(pl_add_status_name(PL_ADD_STATUS_COUNT), "invalid");
    CHECK_STR(pl_add_status_name((pl_add_status)999), "invalid");
}

/* Every value status with the PDH code PdhGetFormattedCounterValue's CStatus would carry. */
static void test_status_pdh_table(void)
{
    static const struct { pl_status st; uint32_t pdh; } s[] = {
        { PL_VALID, 0x00000000u },                /* PDH_CSTATUS_VALID_DATA */
        { PL_FIRST_SAMPLE, 0xC0000BBAu },         /* PDH_CSTATUS_INVALID_DATA */
        { PL_NEGATIVE_DELTA, 0x800007D8u },       /* PDH_CALC_NEGATIVE_VALUE */
        { PL_ZERO_INTERVAL, 0x800007D6u },        /* PDH_CALC_NEGATIVE_DENOMINATOR */
        { PL_NEGATIVE_INTERVAL, 0x800007D7u },    /* PDH_CALC_NEGATIVE_TIMEBASE */
        { PL_ZERO_BASE, 0x800007D6u },            /* PDH_CALC_NEGATIVE_DENOMINATOR */
        { PL_NO_INSTANCE, 0x800007D1u },          /* PDH_CSTATUS_NO_INSTANCE */
        { PL_NO_DATA, 0x800007D5u },              /* PDH_NO_DATA */
        { PL_INVALID_DATA, 0xC0000BBAu },         /* PDH_CSTATUS_INVALID_DATA */
        { PL_UNSUPPORTED_TYPE, 0xC0000BBEu },     /* PDH_FUNCTION_NOT_FOUND */
        { PL_NO_ACCESS, 0xC0000BDBu },            /* PDH_ACCESS_DENIED */
    };
    CHECK_EQ_U64(sizeof s / sizeof s[0], PL_STATUS_COUNT);
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        CHECK_EQ_U64(s[i].st, i);
        CHECK_EQ_U64(pl_status_pdh(s[i].st), s[i].pdh);
    }
    /* only PL_VALID is valid data */
    for (int st = 1; st < PL_STATUS_COUNT; st++)
        CHECK(pl_status_pdh((pl_status)st) != 0);
    CHECK_EQ_U64(pl_status_pdh(PL_STATUS_COUNT), 0xC0000BBAu);   /* out of range: invalid data */
    CHECK_EQ_U64(pl_status_pdh((pl_status)-1), 0xC0000BBAu);
}

static void test_errno_table(void)
{
    CHECK_EQ_U64(pl_errno_win32(0), 0u);              /* ERROR_SUCCESS */
    CHECK_EQ_U64(pl_errno_win32(ENOMEM), 14u);        /* ERROR_OUTOFMEMORY */
    CHECK_EQ_U64(pl_errno_win32(ENOENT), 2u);         /* ERROR_FILE_NOT_FOUND */
    CHECK_EQ_U64(pl_errno_win32(EACCES), 5u);         /* ERROR_ACCESS_DENIED */
    CHECK_EQ_U64(pl_errno_win32(EPERM), 5u);
    CHECK_EQ_U64(pl_errno_win32(EIO), 13u);           /* anything else: ERROR_INVALID_DATA */
    CHECK_EQ_U64(pl_errno_win32(-1), 13u);
}

/* The core's outcomes, through the edge's table, are the codes the core
 * returned itself before: 0, 183, 87, 4200, 4202 (spec/c/test_core.c has the
 * same calls with the core's statuses). */
static void test_core_outcomes(void)
{
    pl_env *env = pl_env_new("spec/fixtures/basic");
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_add_status st = PL_ADD_STATUS_COUNT;
    uint32_t idx = 99, at = 99;
    pl_env_unref(env);
    CHECK(q != NULL);
    if (!q)
        return;
    static const struct { const char *path; uint32_t win32; } adds[] = {
        { "\\Memory\\Available Bytes", 0u },
        { "\\Memory\\Available Bytes", 183u },                      /* again: a duplicate */
        { "\\Memory(x)\\Available Bytes", 87u },                    /* an instance on a single-instance set */
        { "\\Processor Information\\% Processor Time", 87u },       /* none on a multi-instance set */
        { "\\Nope(*)\\x", 4200u },
        { "\\Memory\\Nope", 4202u },
        { "\\Memory\\Zz*", 4202u },                                 /* a pattern that matches nothing */
        { "bad", 87u },                                             /* no path at all */
    };
    for (size_t i = 0; i < sizeof adds / sizeof adds[0]; i++) {
        CHECK(pl_query_add_path(q, adds[i].path, &st, &idx) == 0);
        CHECK_EQ_U64(pl_add_status_win32(st), adds[i].win32);
    }
    CHECK_EQ_U64(pl_query_count(q), 1);
    /* find: there (0), not there (87, as PerfDeleteCounters says), and add's refusals */
    pl_spec_in there = { "Memory", "", PL_NO_ID, "Available Bytes", 0, 0 };
    pl_spec_in other = { "Memory", "", PL_NO_ID, "Committed Bytes", 0, 0 };
    pl_spec_in noset = { "Nope", "*", PL_NO_ID, "x", 0, 0 };
    pl_spec_in named = { "Memory", "x", PL_NO_ID, "Available Bytes", 0, 0 };
    CHECK(pl_query_find(q, &there, &st, &at) == 0 && st == PL_ADD_OK && at == 0);
    CHECK_EQ_U64(pl_add_status_win32(st), 0u);
    CHECK(pl_query_find(q, &other, &st, &at) == 0 && st == PL_ADD_NOT_IN_QUERY);
    CHECK_EQ_U64(pl_add_status_win32(st), 87u);
    CHECK(pl_query_find(q, &noset, &st, &at) == 0);
    CHECK_EQ_U64(pl_add_status_win32(st), 4200u);
    CHECK(pl_query_find(q, &named, &st, &at) == 0);
    CHECK_EQ_U64(pl_add_status_win32(st), 87u);
    pl_query_free(q);
}

int main(void)
{
    CHECK(pl_register_builtin(NULL, 0) == 0);       /* what the API does at its first call */
    RUN(test_add_status_table);
    RUN(test_status_pdh_table);
    RUN(test_errno_table);
    RUN(test_core_outcomes);
    return CT_END();
}
