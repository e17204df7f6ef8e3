/* /metrics' text (expose.c): every counter a family named by pl_metric_name,
 * values in base units (raw x factor, arithmetic below), a base's family
 * from its counter's column, labels escaped, invalid UTF-8 replaced, values
 * the source did not have left out, OpenMetrics' counter family names and
 * "# EOF". */
#include "ctest.h"
#include "pl_expose.h"
#include "pl_provider.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const pl_counter_def ex_counters[] = {
    { 0, "Bytes Sent/sec", "Bytes sent.", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8,
      PL_U(BYTES, 1, COUNTER) },
    { 1, "Queue Length", "Waiting \"now\"\nand \\ more.", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE,
      0, 8, PL_U(COUNT, 1, GAUGE) },
    { 2, "Avg. sec/Op", "Time per operation.", PERF_AVERAGE_TIMER, 3, PERF_DETAIL_NOVICE, 0, 8,
      PL_U(SECONDS, 1e-7, COUNTER) },
    { 3, "Avg. sec/Op Base", "Operations.", PERF_AVERAGE_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8,
      PL_U(COUNT, 1, COUNTER) },
    { 4, "% Busy", "Busy time.", PERF_100NSEC_TIMER_INV, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8,
      PL_U(SECONDS, 1e-7, COUNTER) },
};

static const char *const ex_names[] = { "eth0", "we\"ird\\name", "bad\xff" "byte" };

static int ex_open(pl_env *env, void **st)
{
    (void)env;
    *st = NULL;
    return 0;
}

static void ex_close(void *st) { (void)st; }

static int ex_instances(void *st, pl_snapshot *snap)
{
    (void)st;
    for (uint32_t i = 0; i < 3; i++)
        if (pl_snap_add(snap, ex_names[i], i == 2 ? (uint32_t)PERF_NO_UNIQUE_ID : i) < 0)
            return ENOMEM;
    return 0;
}

static int ex_collect(void *st, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    int e = ex_instances(st, snap);
    for (uint32_t i = 0; !e && i < 3; i++) {
        pl_snap_set(snap, i, 0, 1000 + i);
        if (i != 1)                      /* the source has no queue length for the second */
            pl_snap_set(snap, i, 1, 7);
        pl_snap_set(snap, i, 2, 25000000);   /* 25,000,000 ticks x 1e-7 = 2.5 s */
        pl_snap_set(snap, i, 3, 4);
        pl_snap_set(snap, i, 4, 30000000);   /* 3 s of idle time */
    }
    return e;
}

static const pl_provider_ops ex_ops = { ex_open, ex_close, ex_instances, ex_collect, NULL, NULL };
static const pl_counterset_def ex_set = { { 0xe0000001, 0, 0x4000, { 0x80, 0, 0, 0, 0, 0, 0, 1 } }, "Expose Test",
                                          "A set the exposition test publishes.", PERF_COUNTERSET_MULTI_INSTANCES, 0,
                                          5, ex_counters, &ex_ops, 96000, NULL };

static char *render(int format)
{
    pl_env *env = pl_env_new(NULL);
    pl_add_status st = PL_ADD_OK;
    uint32_t idx;
    pl_sample *s = NULL;
    pl_text t = { 0 };
    CHECK(env && pl_env_register(env, &ex_set) == 0);
    pl_query *q = env ? pl_query_new(env) : NULL;
    CHECK(q && pl_query_add_path(q, "\\Expose Test(*)\\*", &st, &idx) == 0 && st == 0);
    CHECK(q && pl_query_collect(q, &s) == 0);
    pl_expose_cache *c = pl_expose_cache_new();
    if (s) {
        CHECK(pl_expose(s, format, NULL, &t) == 0);     /* without a cache and with one: the same text */
        pl_text again = { 0 };
        CHECK(c && pl_expose(s, format, c, &again) == 0 && pl_expose(s, format, c, &again) == 0);
        CHECK(again.len == 2 * t.len && memcmp(again.p, t.p, t.len) == 0 && memcmp(again.p + t.len, t.p, t.len) == 0);
        pl_text_free(&again);
    }
    pl_expose_cache_free(c);
    pl_expose_end(format, &t);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    return t.p;
}

static void test_text(void)
{
    char *t = render(PL_EXPOSE_TEXT);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK(strstr(t, "# HELP perflib_expose_test_sent_bytes_total Bytes sent.\n"
                    "# TYPE perflib_expose_test_sent_bytes_total counter\n"
                    "perflib_expose_test_sent_bytes_total{instance_name=\"eth0\",instance_id=\"0\"} 1000\n"
                    "perflib_expose_test_sent_bytes_total{instance_name=\"we\\\"ird\\\\name\",instance_id=\"1\"} 1001\n"
                    "perflib_expose_test_sent_bytes_total{instance_name=\"bad\xEF\xBF\xBD" "byte\"} 1002\n") != NULL);
    /* HELP escapes \ and newline (not quotes) in the text format; the second instance had no value */
    CHECK(strstr(t, "# HELP perflib_expose_test_queue_length Waiting \"now\"\\nand \\\\ more.\n"
                    "# TYPE perflib_expose_test_queue_length gauge\n"
                    "perflib_expose_test_queue_length{instance_name=\"eth0\",instance_id=\"0\"} 7\n"
                    "perflib_expose_test_queue_length{instance_name=\"bad") != NULL);
    CHECK(strstr(t, "perflib_expose_test_queue_length{instance_name=\"we") == NULL);
    /* 25,000,000 x 1e-7 = 2.5 seconds; the base (hidden from "*") comes from the column's .b */
    CHECK(strstr(t, "perflib_expose_test_avg_op_seconds_total{instance_name=\"eth0\",instance_id=\"0\"} 2.5\n"));
    CHECK(strstr(t, "# TYPE perflib_expose_test_avg_op_base_total counter\n"
                    "perflib_expose_test_avg_op_base_total{instance_name=\"eth0\",instance_id=\"0\"} 4\n"));
    /* an inverse timer says so: 30,000,000 x 1e-7 = 3 s outside the state */
    CHECK(strstr(t, "perflib_expose_test_percent_busy_inverse_seconds_total{instance_name=\"eth0\",instance_id=\"0\"} 3\n"));
    CHECK(strstr(t, "perflib_counterset_up{counterset=\"Expose Test\"} 1\n"));
    CHECK(strstr(t, "# EOF") == NULL);
    free(t);
}

static void test_openmetrics(void)
{
    char *t = render(PL_EXPOSE_OPENMETRICS);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK(strstr(t, "# TYPE perflib_expose_test_sent_bytes counter\n"
                    "perflib_expose_test_sent_bytes_total{instance_name=\"eth0\",instance_id=\"0\"} 1000\n"));
    CHECK(strstr(t, "# HELP perflib_expose_test_queue_length Waiting \\\"now\\\"\\nand \\\\ more.\n"));
    size_t n = strlen(t);
    CHECK(n > 6 && strcmp(t + n - 6, "# EOF\n") == 0);
    free(t);
}

static void test_escape(void)
{
    pl_text t = { 0 };
    pl_expose_escape(&t, "a\"b\\c\nd\xc3\xa9\xc0\xaf\xed\xa0\x80", 1);   /* é kept; overlong and surrogate replaced */
    CHECK_STR(t.p, "a\\\"b\\\\c\\nd\xc3\xa9\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    pl_text_free(&t);
}

int main(void)
{
    RUN(test_text);
    RUN(test_openmetrics);
    RUN(test_escape);
    return CT_END();
}
