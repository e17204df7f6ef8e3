/* Tests of the counter core without Lua: GUIDs, wildcards, counter paths,
 * formulas with their statuses, the registry, query specifications and
 * samples.  Links against libperflib-core.a only. */
#include "ctest.h"
#include "perflib.h"
#include "pl_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const FIX = "spec/fixtures/basic";

static void test_guid(void)
{
    pl_guid g, h;
    char s[PL_GUID_STRLEN + 1];
    CHECK(pl_guid_parse("b4fc721a-0378-476f-89ba-a5a79f810b36", &g) == 0);
    CHECK_EQ_U64(g.d1, 0xb4fc721a);
    CHECK_EQ_U64(g.d2, 0x0378);
    CHECK_EQ_U64(g.d3, 0x476f);
    CHECK_EQ_U64(g.d4[0], 0x89);
    CHECK_EQ_U64(g.d4[7], 0x36);
    pl_guid_format(&g, s);
    CHECK_STR(s, "b4fc721a-0378-476f-89ba-a5a79f810b36");
    CHECK(pl_guid_parse("{B4FC721A-0378-476F-89BA-A5A79F810B36}", &h) == 0);
    CHECK(pl_guid_equal(&g, &h));
    CHECK(pl_guid_parse("b4fc721a-0378-476f-89ba-a5a79f810b3", &h) == EINVAL);   /* short */
    CHECK(pl_guid_parse("b4fc721a-0378-476f-89ba-a5a79f810b366", &h) == EINVAL); /* long */
    CHECK(pl_guid_parse("b4fc721a+0378-476f-89ba-a5a79f810b36", &h) == EINVAL);
    CHECK(pl_guid_parse("{b4fc721a-0378-476f-89ba-a5a79f810b36", &h) == EINVAL);
    CHECK(pl_guid_parse("x4fc721a-0378-476f-89ba-a5a79f810b36", &h) == EINVAL);
    CHECK(pl_guid_parse("", &h) == EINVAL);
}

static void test_wildcard(void)
{
    CHECK(pl_wildcard_match("*", ""));
    CHECK(pl_wildcard_match("*", "0,1"));
    CHECK(pl_wildcard_match("0,*", "0,_Total"));
    CHECK(!pl_wildcard_match("1,*", "0,_Total"));
    CHECK(pl_wildcard_match("?,?", "0,1"));
    CHECK(!pl_wildcard_match("?,?", "0,10"));
    CHECK(pl_wildcard_match("_total", "_Total"));         /* case-insensitive */
    CHECK(pl_wildcard_match("% * Time", "% Processor Time"));
    CHECK(!pl_wildcard_match("% * Time", "% Processor Time Base"));
    CHECK(pl_wildcard_match("a*b*c", "aXXbYYbZc"));
    CHECK(!pl_wildcard_match("a*b*c", "aXXbYYbZ"));
    CHECK(pl_wildcard_match("**a", "a"));
    /* hostile pattern finishes quickly */
    CHECK(!pl_wildcard_match("*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    CHECK(pl_has_wildcard("a?"));
    CHECK(!pl_has_wildcard("abc"));
}

static void test_path(void)
{
    char buf[256];
    pl_spec_in in;
    CHECK(pl_path_parse("\\Processor Information(_Total)\\% Processor Time", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.counterset, "Processor Information");
    CHECK_STR(in.instance, "_Total");
    CHECK_STR(in.counter, "% Processor Time");
    CHECK_EQ_U64(in.instance_id, PL_NO_ID);
    CHECK(pl_path_parse("\\Memory\\Available Bytes", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.counterset, "Memory");
    CHECK_STR(in.instance, "");
    CHECK_STR(in.counter, "Available Bytes");
    /* instance names may hold parentheses: the last ')' closes */
    CHECK(pl_path_parse("\\Process(we ird) (x)\\ID Process", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.instance, "we ird) (x");
    CHECK(pl_path_parse("\\Processor Information(*)\\*", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.instance, "*");
    CHECK_STR(in.counter, "*");
    CHECK(pl_path_parse("Memory\\Available Bytes", buf, sizeof buf, &in) == EINVAL);
    /* a machine's path names its set with the machine: "\\host\Memory" (remote sets attached) */
    CHECK(pl_path_parse("\\\\host\\Memory\\Available Bytes", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.counterset, "\\\\host\\Memory");
    CHECK(pl_path_parse("\\\\\\Memory\\Available Bytes", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\Memory", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\Memory\\", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\Memory()\\x", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\Memory(x\\y", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\(x)\\y", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\Memory\\Available Bytes", buf, 5, &in) == ENAMETOOLONG);
    /* blanks as PDH tolerates them: around the path and the names, runs inside
     * the names; the instance is kept as it is */
    CHECK(pl_path_parse("  \\Memory \\ Available   Bytes \t", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.counterset, "Memory");
    CHECK_STR(in.counter, "Available Bytes");
    CHECK(pl_path_parse("\\ Processor  Information (  _Total )  \\% Processor Time", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.counterset, "Processor Information");
    CHECK_STR(in.instance, "  _Total ");
    CHECK_STR(in.counter, "% Processor Time");
    CHECK(pl_path_parse("\\\\host\\  Memory \\Available Bytes", buf, sizeof buf, &in) == 0);
    CHECK_STR(in.counterset, "\\\\host\\Memory");
    CHECK(pl_path_parse("\\Memory\\   ", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\ (x)\\y", buf, sizeof buf, &in) == EINVAL);
    CHECK(pl_path_parse("\\ \\x\\y", buf, sizeof buf, &in) == EINVAL);      /* no set name starts with \ */
    /* the buffer must hold the path as given, blanks included */
    CHECK(pl_path_parse("  \\Memory\\x", buf, strlen("  \\Memory\\x"), &in) == ENAMETOOLONG);
}

/* one raw value with a timestamp at 10 MHz */
static pl_raw R(uint64_t v, uint64_t second)
{
    pl_raw r = { v, second, 0, 8 };
    return r;
}

static void test_formula_rates(void)
{
    double v;
    pl_raw n1 = R(2472631 + 25000, 25000000), n0 = R(2472631, 0);
    /* 25000 events over 2.5 s (25e6 ticks at 1e7/s) = 10000/s */
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &n1, &n0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 10000.0, 1e-9);
    CHECK(pl_format_raw(PERF_COUNTER_COUNTER, &n1, &n0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 10000.0, 1e-9);
    /* statuses instead of numbers */
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &n1, NULL, 10000000, 0, 0, &v) == PL_FIRST_SAMPLE);
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &n0, &n1, 10000000, 0, 0, &v) == PL_NEGATIVE_DELTA);
    pl_raw same = R(2472631 + 5, 0);
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &same, &n0, 10000000, 0, 0, &v) == PL_ZERO_INTERVAL);
    pl_raw back = R(2472631 + 5, 0), later = R(2472631, 100);
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &back, &later, 10000000, 0, 0, &v) == PL_NEGATIVE_INTERVAL);
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &n1, &n0, 0, 0, 0, &v) == PL_INVALID_DATA);
    CHECK_NEAR(v, 0.0, 0);
    /* 32-bit data wraps: 4294967290 -> 5 is +11 over 1 s */
    pl_raw w0 = { 4294967290u, 0, 0, 4 }, w1 = { 5, 10000000, 0, 4 };
    CHECK(pl_format_raw(PERF_COUNTER_COUNTER, &w1, &w0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 11.0, 1e-9);
    /* the same fall in 64-bit data is a reset */
    pl_raw x0 = R(4294967290u, 0), x1 = R(5, 10000000);
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &x1, &x0, 10000000, 0, 0, &v) == PL_NEGATIVE_DELTA);
}

static void test_formula_percent(void)
{
    double v;
    /* PT100: busy 480 of 1000 ticks of the private base (x100000 hns) = 48 % */
    pl_raw n1 = R(480 * 100000ULL + 7, 1000 * 100000ULL + 9), n0 = R(7, 9);
    CHECK(pl_format_raw(PERF_PRECISION_100NS_TIMER, &n1, &n0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 48.0, 1e-12);
    pl_raw z = R(480 * 100000ULL + 7, 9);
    CHECK(pl_format_raw(PERF_PRECISION_100NS_TIMER, &z, &n0, 10000000, 0, 0, &v) == PL_ZERO_INTERVAL);
    /* 100NSEC_TIMER: 2.5e6 hns busy in 1e7 hns = 25 %; the _INV form gives 75 % */
    pl_raw t1 = R(2500000, 10000000), t0 = R(0, 0);
    CHECK(pl_format_raw(PERF_100NSEC_TIMER, &t1, &t0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 25.0, 1e-12);
    CHECK(pl_format_raw(PERF_100NSEC_TIMER_INV, &t1, &t0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 75.0, 1e-12);
    /* over 100 %: capped unless NOCAP100 (1.5e7 in 1e7 = 150 %) */
    pl_raw o1 = R(15000000, 10000000);
    CHECK(pl_format_raw(PERF_100NSEC_TIMER, &o1, &t0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 100.0, 0);
    CHECK(pl_format_raw(PERF_100NSEC_TIMER, &o1, &t0, 10000000, PL_FMT_NOCAP100, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 150.0, 1e-12);
    /* raw fraction: 100 * 677 / 2466177 */
    pl_raw f = R(677, 2466177);
    CHECK(pl_format_raw(PERF_LARGE_RAW_FRACTION, &f, NULL, 0, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 100.0 * 677 / 2466177, 1e-12);
    pl_raw f0 = R(677, 0);
    CHECK(pl_format_raw(PERF_LARGE_RAW_FRACTION, &f0, NULL, 0, 0, 0, &v) == PL_ZERO_BASE);
    /* sample fraction: 30 stolen of 40 scanned = 75 % */
    pl_raw s1 = R(130, 540), s0 = R(100, 500);
    CHECK(pl_format_raw(PERF_SAMPLE_FRACTION, &s1, &s0, 0, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 75.0, 1e-12);
    pl_raw s2 = R(130, 500);
    CHECK(pl_format_raw(PERF_SAMPLE_FRACTION, &s2, &s0, 0, 0, 0, &v) == PL_ZERO_BASE);
}

static void test_formula_single(void)
{
    double v;
    pl_raw r = R(25178882048ULL, 0);
    CHECK(pl_format_raw(PERF_COUNTER_LARGE_RAWCOUNT, &r, NULL, 0, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 25178882048.0, 0);
    /* load average kept in hundredths with scale -2: 38 -> 0.38 */
    pl_raw l = R(38, 0);
    CHECK(pl_format_raw(PERF_COUNTER_LARGE_RAWCOUNT, &l, NULL, 0, 0, -2, &v) == PL_VALID);
    CHECK_NEAR(v, 0.38, 1e-15);
    CHECK(pl_format_raw(PERF_COUNTER_LARGE_RAWCOUNT, &l, NULL, 0, PL_FMT_NOSCALE, -2, &v) == PL_VALID);
    CHECK_NEAR(v, 38.0, 0);
    CHECK(pl_format_raw(PERF_COUNTER_LARGE_RAWCOUNT, &l, NULL, 0, PL_FMT_1000, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 38000.0, 0);
    /* elapsed: object clock 6992200000 hns, start 0, at 1e7/s = 699.22 s */
    pl_raw e = R(0, 6992200000ULL);
    CHECK(pl_format_raw(PERF_ELAPSED_TIME, &e, NULL, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 699.22, 1e-9);
    pl_raw eb = R(7000000000ULL, 6992200000ULL);
    CHECK(pl_format_raw(PERF_ELAPSED_TIME, &eb, NULL, 10000000, 0, 0, &v) == PL_NEGATIVE_DELTA);
    /* bases and text format to no number */
    CHECK(pl_format_raw(PERF_LARGE_RAW_BASE, &r, NULL, 0, 0, 0, &v) == PL_UNSUPPORTED_TYPE);
    CHECK(pl_format_raw(PERF_COUNTER_TEXT, &r, NULL, 0, 0, 0, &v) == PL_UNSUPPORTED_TYPE);
    CHECK(pl_format_raw(0x12345678u, &r, NULL, 0, 0, 0, &v) == PL_UNSUPPORTED_TYPE);
    CHECK(pl_format_raw(PERF_COUNTER_RAWCOUNT, NULL, NULL, 0, 0, 0, &v) == PL_NO_DATA);
    /* averages: 2e5 hns over 4 operations = 0.005 s each; 4096 bytes / 4 = 1024 */
    pl_raw a1 = R(200000, 14), a0 = R(0, 10);
    CHECK(pl_format_raw(PERF_AVERAGE_TIMER, &a1, &a0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 0.005, 1e-15);
    pl_raw b1 = R(4096, 14);
    CHECK(pl_format_raw(PERF_AVERAGE_BULK, &b1, &a0, 0, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 1024.0, 0);
    CHECK(pl_format_raw(PERF_AVERAGE_BULK, &b1, NULL, 0, 0, 0, &v) == PL_FIRST_SAMPLE);
}

static void test_names(void)
{
    CHECK_STR(pl_type_name(PERF_COUNTER_BULK_COUNT), "PERF_COUNTER_BULK_COUNT");
    CHECK_EQ_U64(PERF_COUNTER_BULK_COUNT, 0x10410500u);
    CHECK_EQ_U64(PERF_100NSEC_TIMER_INV, 558957824u);
    CHECK_EQ_U64(PERF_PRECISION_TIMESTAMP, PERF_LARGE_RAW_BASE);
    CHECK(pl_type_name(0x12345678u) == NULL);
    CHECK(pl_type_needs_two(PERF_AVERAGE_BULK));
    CHECK(pl_type_needs_two(PERF_PRECISION_100NS_TIMER));
    CHECK(!pl_type_needs_two(PERF_ELAPSED_TIME));
    CHECK(!pl_type_needs_two(PERF_LARGE_RAW_FRACTION));
    CHECK_STR(pl_status_name(PL_VALID), "valid");
    CHECK_STR(pl_status_name(PL_FIRST_SAMPLE), "first_sample");
    CHECK_STR(pl_status_name((pl_status)99), "invalid_data");
}

static void test_registry(void)
{
    pl_env *env = pl_env_new(FIX);
    const pl_counterset_def *cs;
    CHECK(env != NULL);
    if (!env)
        return;
    CHECK(pl_env_counterset_count(env) >= 3);      /* Processor Information, Memory, System first */
    CHECK_STR(pl_env_counterset(env, 2)->name, "System");
    cs = pl_env_find(env, "processor information");
    CHECK(cs != NULL && pl_env_find(env, "{B4FC721A-0378-476F-89BA-A5A79F810B36}") == cs);
    CHECK(pl_env_find(env, "Nope") == NULL);
    CHECK(pl_env_find(env, NULL) == NULL);
    /* a second set with a taken name or GUID is refused */
    CHECK(pl_env_register(env, cs) == EEXIST);
    CHECK(pl_env_register(env, NULL) == EINVAL);
    /* every counter has a unique id and name, and bases exist and are hidden */
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
        const pl_counterset_def *c = pl_env_counterset(env, k);
        for (uint32_t i = 0; i < c->ncounters; i++) {
            const pl_counter_def *d = &c->counters[i];
            CHECK(pl_type_known(d->type));
            CHECK(pl_counter_index(c, d->id) == (int)i);
            CHECK(pl_counter_index_by_name(c, d->name) == (int)i);
            if (d->base_id != PL_NO_ID) {
                int b = pl_counter_index(c, d->base_id);
                CHECK(b >= 0 && pl_counter_hidden(&c->counters[b]));
            }
        }
    }
    pl_env_unref(env);
    /* instances without values */
    env = pl_env_new(FIX);
    pl_snapshot snap;
    pl_snap_init(&snap, cs);
    CHECK(pl_enum_instances(env, cs, &snap) == 0);
    CHECK_EQ_U64(snap.ninst, 4);          /* 0,0 0,1 0,_Total _Total */
    if (snap.ninst == 4) {
        CHECK_STR(pl_snap_name(&snap, 0), "0,0");
        CHECK_STR(pl_snap_name(&snap, 2), "0,_Total");
        CHECK_STR(pl_snap_name(&snap, 3), "_Total");
        CHECK_EQ_U64(snap.inst[1].id, 1);
    }
    pl_snap_free(&snap);
    pl_env_unref(env);
}

static void test_query_specs(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t idx;
    pl_spec_in in = { "Processor Information", "*", PL_NO_ID, "% Processor Time", 0, 0 };
    pl_env_unref(env);               /* the query keeps its own reference */
    CHECK(pl_query_add(q, &in, &st, &idx) == 0 && st == 0 && idx == 0);
    CHECK(pl_query_add(q, &in, &st, &idx) == 0 && st == PL_ADD_DUPLICATE);
    CHECK(pl_query_add_path(q, "\\Memory\\Available Bytes", &st, &idx) == 0 && st == 0 && idx == 1);
    CHECK(pl_query_add_path(q, "\\Memory(x)\\Available Bytes", &st, &idx) == 0 && st == PL_ADD_BAD_INSTANCE);
    CHECK(pl_query_add_path(q, "\\Processor Information\\% Processor Time", &st, &idx) == 0 &&
          st == PL_ADD_BAD_INSTANCE);
    CHECK(pl_query_add_path(q, "\\Nope(*)\\x", &st, &idx) == 0 && st == PL_ADD_NO_SET);
    CHECK(pl_query_add_path(q, "\\Memory\\Nope", &st, &idx) == 0 && st == PL_ADD_NO_COUNTER);
    CHECK(pl_query_add_path(q, "\\Memory\\Zz*", &st, &idx) == 0 && st == PL_ADD_NO_COUNTER);
    CHECK(pl_query_add_path(q, "bad", &st, &idx) == 0 && st == PL_ADD_BAD_PATH);
    CHECK_EQ_U64(pl_query_count(q), 2);            /* none of the refused ones was added */
    /* by counter id; by GUID; the shapes of the seed */
    pl_spec_in byid = { "b4fc721a-0378-476f-89ba-a5a79f810b36", "_Total", PL_NO_ID, NULL, 8, 0 };
    CHECK(pl_query_add(q, &byid, &st, &idx) == 0 && st == 0 && idx == 2);
    CHECK(pl_query_add_path(q, "\\Processor Information(_Total)\\*", &st, &idx) == 0 && idx == 3);
    CHECK(pl_query_add_path(q, "\\Processor Information(*)\\*", &st, &idx) == 0 && idx == 4);
    CHECK_EQ_U64(pl_query_count(q), 5);
    CHECK_EQ_U64(pl_query_spec(q, 0)->shape, PERF_MULTIPLE_INSTANCES);
    CHECK_EQ_U64(pl_query_spec(q, 1)->shape, PERF_SINGLE_COUNTER);
    CHECK_EQ_U64(pl_query_spec(q, 2)->shape, PERF_SINGLE_COUNTER);
    CHECK_STR(pl_query_spec(q, 2)->path, "\\Processor Information(_Total)\\% Idle Time");
    CHECK_EQ_U64(pl_query_spec(q, 3)->shape, PERF_MULTIPLE_COUNTERS);
    CHECK_EQ_U64(pl_query_spec(q, 4)->shape, PERF_COUNTERSET);
    /* "*" leaves out the hidden bases */
    const pl_spec *all = pl_query_spec(q, 4);
    for (uint32_t c = 0; c < all->ncounters; c++)
        CHECK(!pl_counter_hidden(&all->cs->counters[all->counters[c]]));
    /* find: the spec add would take, by the same rules (the instance case-blind) */
    uint32_t at = 99;
    pl_spec_in same = { "b4fc721a-0378-476f-89ba-a5a79f810b36", "_total", PL_NO_ID, NULL, 8, 0 };
    CHECK(pl_query_find(q, &same, &st, &at) == 0 && st == 0 && at == 2);
    CHECK(pl_query_find(q, &in, &st, &at) == 0 && st == 0 && at == 0);
    pl_spec_in other = { "Processor Information", "0,0", PL_NO_ID, "% Processor Time", 0, 0 };
    CHECK(pl_query_find(q, &other, &st, &at) == 0 && st == PL_ADD_NOT_IN_QUERY);   /* not there */
    pl_spec_in noset = { "Nope", "*", PL_NO_ID, "x", 0, 0 };
    CHECK(pl_query_find(q, &noset, &st, &at) == 0 && st == PL_ADD_NO_SET);
    pl_spec_in noctr = { "Memory", "", PL_NO_ID, "Nope", 0, 0 };
    CHECK(pl_query_find(q, &noctr, &st, &at) == 0 && st == PL_ADD_NO_COUNTER);
    pl_spec_in named = { "Memory", "x", PL_NO_ID, "Available Bytes", 0, 0 };
    CHECK(pl_query_find(q, &named, &st, &at) == 0 && st == PL_ADD_BAD_INSTANCE);
    /* delete: later indexes move down */
    CHECK(pl_query_delete(q, 9) == ENOENT);
    CHECK(pl_query_delete(q, 0) == 0);
    CHECK_EQ_U64(pl_query_count(q), 4);
    CHECK_STR(pl_query_spec(q, 0)->path, "\\Memory\\Available Bytes");
    CHECK(pl_query_spec(q, 4) == NULL);
    pl_query_free(q);
}

static void test_collect(void)
{
    pl_env *env = pl_env_new(FIX);
    pl_query *q = pl_query_new(env);
    pl_sample *s1 = NULL, *s2 = NULL;
    pl_add_status st;
    uint32_t idx;
    double v;
    pl_env_unref(env);
    pl_query_add_path(q, "\\Processor Information(0,?)\\% Busy Time", &st, &idx);
    pl_query_add_path(q, "\\Processor Information(0,7)\\% Busy Time", &st, &idx);
    pl_query_add_path(q, "\\System\\System Up Time", &st, &idx);
    pl_query_add_path(q, "\\Memory\\% Committed Bytes In Use", &st, &idx);
    CHECK(pl_query_collect(q, &s1) == 0 && s1);
    CHECK(pl_query_collect(q, &s2) == 0 && s2);
    if (!s1 || !s2)
        goto out;
    CHECK_EQ_U64(s1->seq, 1);
    CHECK_EQ_U64(s2->seq, 2);
    CHECK_EQ_U64(s1->perf_freq, 10000000);
    CHECK(s2->perf_time >= s1->perf_time);
    CHECK(s1->time100ns > 130000000000000000LL);   /* after 2012 */
    CHECK_EQ_U64(s1->nblocks, 4);
    /* 0,? matches 0,0 and 0,1 but not 0,_Total */
    const pl_block *b = &s1->blocks[0];
    CHECK_EQ_U64(b->ninst, 2);
    CHECK_STR(pl_sample_inst_name(s1, b, 1), "0,1");
    /* cpu1 of the fixture: base = 9217+1+5112+54375+472+0+103+9 = 69289 ticks;
     * busy = base - idle - iowait = 69289 - 54375 - 472 = 14442 ticks; x100000 hns */
    CHECK_EQ_U64(s1->vals[b->vals_off + 1].v, 14442ULL * 100000);
    CHECK_EQ_U64(s1->vals[b->vals_off + 1].b, 69289ULL * 100000);
    /* the same files twice: no time passed on the private base */
    CHECK(pl_sample_format(s2, &s2->blocks[0], 1, 0, s1, 0, &v) == PL_ZERO_INTERVAL);
    CHECK(pl_sample_format(s2, &s2->blocks[0], 1, 0, NULL, 0, &v) == PL_FIRST_SAMPLE);
    /* a named instance that does not exist is an error block */
    CHECK_EQ_U64(s1->blocks[1].shape, PERF_ERROR_RETURN);
    CHECK(pl_sample_format(s2, &s2->blocks[1], 0, 0, s1, 0, &v) == PL_NO_INSTANCE);
    /* uptime 699.22 s from the object clock */
    CHECK(pl_sample_format(s1, &s1->blocks[2], 0, 0, NULL, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 699.22, 1e-9);
    /* bulk evaluation matches the one-by-one path */
    double out[2];
    uint8_t sts[2];
    pl_sample_format_block(s2, &s2->blocks[0], s1, 0, out, sts);
    CHECK_EQ_U64(sts[0], PL_ZERO_INTERVAL);
    CHECK_EQ_U64(sts[1], PL_ZERO_INTERVAL);
    CHECK(pl_sample_find_block(s2, s1->blocks[3].uid) == &s2->blocks[3]);
out:
    free(s1);
    free(s2);
    pl_query_free(q);
}

static void test_missing_root(void)
{
    pl_env *env = pl_env_new("spec/fixtures/does-not-exist");
    pl_query *q = pl_query_new(env);
    pl_sample *s = NULL;
    pl_add_status st;
    uint32_t idx;
    double v;
    pl_env_unref(env);
    pl_query_add_path(q, "\\Processor Information(*)\\*", &st, &idx);
    pl_query_add_path(q, "\\Memory\\*", &st, &idx);
    CHECK(pl_query_collect(q, &s) == 0 && s);
    if (s) {
        /* every set fails on its own, as a status with its errno and file */
        CHECK_EQ_U64(s->blocks[0].shape, PERF_ERROR_RETURN);
        CHECK_EQ_U64(s->blocks[0].status, PL_NO_DATA);
        CHECK_EQ_U64(s->blocks[0].err, ENOENT);
        CHECK_STR(s->blocks[0].err_path, "proc/stat");
        CHECK_EQ_U64(s->blocks[1].err, ENOENT);
        CHECK(pl_sample_format(s, &s->blocks[0], 0, 0, NULL, 0, &v) == PL_NO_DATA);
    }
    free(s);
    pl_query_free(q);
}

/* Files are read whole, but not without end: a hostile 100 MB file is refused. */
static void test_file_limits(void)
{
    char dir[] = "/tmp/perflib-test-XXXXXX", path[64];
    pl_file f;
    pl_env *env;
    int fd;
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    snprintf(path, sizeof path, "%s/big", dir);
    fd = open(path, O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0 && ftruncate(fd, 100 << 20) == 0);   /* sparse: no disk used */
    close(fd);
    env = pl_env_new(dir);
    pl_file_init(&f);
    CHECK(pl_file_read(&f, env, "big") == EFBIG);
    CHECK_EQ_U64(f.len, 0);
    pl_file_close(&f);
    pl_file_init(&f);
    CHECK(pl_file_read(&f, env, "missing") == ENOENT);
    pl_file_close(&f);
    /* numbers: 2^64-1 fits, 2^64 does not, no digits is EINVAL */
    const char *p = "18446744073709551615 x", *q = "18446744073709551616", *r = "  x";
    uint64_t v;
    CHECK(pl_parse_u64(&p, &v) == 0 && v == UINT64_MAX && *p == ' ');
    CHECK(pl_parse_u64(&q, &v) == ERANGE);
    CHECK(pl_parse_u64(&r, &v) == EINVAL);
    const char *l = "0.385 ", *m = "12 ";
    CHECK(pl_parse_fixed(&l, 2, &v) == 0 && v == 39);   /* rounds half up */
    CHECK(pl_parse_fixed(&m, 2, &v) == 0 && v == 1200);
    pl_env_unref(env);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    RUN(test_guid);
    RUN(test_wildcard);
    RUN(test_path);
    RUN(test_formula_rates);
    RUN(test_formula_percent);
    RUN(test_formula_single);
    RUN(test_names);
    RUN(test_registry);
    RUN(test_query_specs);
    RUN(test_collect);
    RUN(test_missing_root);
    RUN(test_file_limits);
    return CT_END();
}
