/* Logs as data sources (issue 15 item 3, src/providers/logsrc.h): a query on
 * a log's environment gets the logged samples in order with their logged
 * values, flags and clocks, formats rates as the live samples did (the rate
 * worked out here from the raw values and times), ends with ENODATA; time
 * ranges; several files in order; sets that appear and go mid-way; a set
 * defined again with more counters (merged) or otherwise (refused); a file
 * changed after it was opened (refused at that record, never misread). */
#include "ctest.h"
#include "ct_tmp.h"
#include "perflib.h"
#include "pl_blog.h"
#include "logsrc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t tick;                       /* the test set's clock: values follow it */

/* "LogT Queue": instances a and b (and c from tick 3 on), Items/sec = 100 or
 * 200 x tick, Depth = tick. */
static int t_open(pl_env *env, void **state)
{
    (void)env;
    *state = &tick;
    return 0;
}
static void t_close(void *state) { (void)state; }
static int t_instances(void *state, pl_snapshot *snap)
{
    (void)state;
    if (pl_snap_add(snap, "a", 1) < 0 || pl_snap_add(snap, "b", 2) < 0 || (tick >= 3 && pl_snap_add(snap, "c", 3) < 0))
        return ENOMEM;
    return 0;
}
static int t_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    int e = t_instances(state, snap);
    for (uint32_t i = 0; !e && i < snap->ninst; i++) {
        pl_snap_set(snap, i, 0, 100 * (i + 1) * tick);
        pl_snap_set(snap, i, 1, tick);
    }
    return e;
}
static const pl_provider_ops t_ops = { t_open, t_close, t_instances, t_collect, NULL, NULL };

static const pl_counter_def counters[] = {
    { 0, "Items/sec", "Items a second.", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, 0, 0, 0 },
    { 1, "Depth", "Items waiting.", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8, 0, 0, 0 },
};
/* the same set with one more counter (a later perflib), and with Depth's type changed */
static const pl_counter_def counters_more[] = {
    { 0, "Items/sec", "Items a second.", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, 0, 0, 0 },
    { 1, "Depth", "Items waiting.", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8, 0, 0, 0 },
    { 2, "Peak", "The deepest.", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8, 0, 0, 0 },
};
static const pl_counter_def counters_other[] = {
    { 0, "Items/sec", "Items a second.", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, 0, 0, 0 },
    { 1, "Depth", "Items waiting.", PERF_COUNTER_RAWCOUNT, PL_NO_ID, 100, 0, 4, 0, 0, 0 },
};
#define QGUID { 0x10600001, 0x1111, 0x2222, { 1, 2, 3, 4, 5, 6, 7, 8 } }
static const pl_counterset_def queue = { QGUID, "LogT Queue", "Queues.", PERF_COUNTERSET_MULTI_INSTANCES, 0, 2,
                                         counters, &t_ops, 93000, NULL };
static const pl_counterset_def queue_more = { QGUID, "LogT Queue", "Queues.", PERF_COUNTERSET_MULTI_INSTANCES, 0, 3,
                                              counters_more, &t_ops, 93000, NULL };
static const pl_counterset_def queue_other = { QGUID, "LogT Queue", "Queues.", PERF_COUNTERSET_MULTI_INSTANCES, 0, 2,
                                               counters_other, &t_ops, 93000, NULL };

/* An environment of the fixture tree with the queue set (def) added. */
static pl_env *env_with(const pl_counterset_def *def)
{
    pl_env *env = pl_env_new("spec/fixtures/basic");
    CHECK(env && pl_env_register(env, def) == 0);
    return env;
}

static pl_query *query_of(pl_env *env, const char *const *paths)
{
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t ix;
    for (; *paths; paths++)
        CHECK(pl_query_add_path(q, *paths, &st, &ix) == 0 && st == 0);
    return q;
}

/* Writes one sample of q per query in qs (NULL ends) at ticks 1, 2, ... into path; keeps them. */
static void write_log(const char *path, pl_query *const *qs, pl_sample **keep)
{
    pl_blog_writer *w = NULL;
    char msg[256];
    unlink(path);
    CHECK(pl_blog_open(path, NULL, &w, msg, sizeof msg) == 0);
    for (int i = 0; qs[i]; i++) {
        tick = (uint64_t)i + 1;
        CHECK(pl_query_collect(qs[i], &keep[i]) == 0);
        CHECK(pl_blog_write(w, keep[i], msg, sizeof msg) == 0);
        usleep(2000);                       /* the times differ */
    }
    CHECK(pl_blog_close(w) == 0);
}

static pl_env *open_logs(const char *const *paths, size_t n, int64_t from, int64_t to, int want, char *msg)
{
    pl_env *env = NULL;
    char m[512] = "";
    int e = pl_logsrc_open(paths, n, from, to, &env, m, sizeof m);
    CHECK_EQ_U64(e, want);
    if (msg)
        strcpy(msg, m);
    if (e && e != want)
        fprintf(stderr, "  %s\n", m);
    return env;
}

/* The value of counter c of instance name in the first block of s (its raw pair), or -1. */
static long long raw_of(const pl_sample *s, const char *name, uint32_t c, uint8_t *have)
{
    const pl_block *b = &s->blocks[0];
    for (uint32_t i = 0; i < b->ninst; i++)
        if (strcmp(pl_sample_inst_name(s, b, i), name) == 0) {
            size_t k = b->vals_off + (size_t)i * b->ncounters + c;
            *have = s->have[k];
            return (long long)s->vals[k].v;
        }
    return -1;
}

static void t_round_trip(void)
{
    pl_env *live = env_with(&queue);
    static const char *const paths[] = { "\\LogT Queue(*)\\Items/sec", "\\LogT Queue(*)\\Depth", NULL };
    pl_query *q = query_of(live, paths);
    pl_query *qs[] = { q, q, q, NULL };
    pl_sample *s[3];
    write_log(tmp("rt.blg"), qs, s);
    const char *p = tmp("rt.blg");
    pl_env *env = open_logs(&p, 1, INT64_MIN, INT64_MAX, 0, NULL);
    const pl_counterset_def *cs = env ? pl_env_find(env, "LogT Queue") : NULL;
    CHECK(cs && cs != &queue && cs->ncounters == 2 && !strcmp(cs->counters[0].help, "Items a second."));
    CHECK(env && pl_env_find(env, "Memory") == NULL);          /* only the log's sets */
    pl_query *lq = env ? query_of(env, paths) : NULL;
    pl_sample *g[3] = { NULL, NULL, NULL };
    for (int i = 0; lq && i < 3; i++) {
        CHECK(pl_query_collect(lq, &g[i]) == 0);
        if (!g[i])
            continue;
        CHECK(g[i]->time100ns == s[i]->time100ns && g[i]->perf_time == s[i]->perf_time);
        CHECK(g[i]->perf_freq == s[i]->perf_freq && g[i]->blocks[0].time == s[i]->blocks[0].time);
        uint8_t h = 0;
        /* b's Items/sec = 200 x tick, Depth = tick; c from tick 3 */
        CHECK_EQ_U64(raw_of(g[i], "b", 0, &h), 200 * (i + 1));
        CHECK_EQ_U64(h, 1);
        CHECK_EQ_U64(raw_of(g[i], "a", 0, &h), 100 * (i + 1));
        CHECK_EQ_U64(g[i]->blocks[1].ninst, i == 2 ? 3 : 2);
    }
    /* the rate of b between the last two: (600 - 400) / their interval in seconds */
    if (g[1] && g[2]) {
        double v = 0, want = 200.0 / ((double)(g[2]->blocks[0].time - g[1]->blocks[0].time) / 1e7);
        uint32_t bi = 1;                                            /* a, b, c: b is index 1 */
        CHECK(pl_sample_format(g[2], &g[2]->blocks[0], bi, 0, g[1], NULL, &v) == PL_VALID);
        CHECK_NEAR(v, want, want * 1e-9);
        double lv = 0;
        CHECK(pl_sample_format(s[2], &s[2]->blocks[0], bi, 0, s[1], NULL, &lv) == PL_VALID);
        CHECK_NEAR(v, lv, 0);                                      /* exactly the live value */
    }
    pl_sample *end = NULL;
    CHECK(lq && pl_query_collect(lq, &end) == ENODATA && end == NULL);
    CHECK_STR(lq ? pl_query_source_error(lq) : NULL, "end of the log");
    /* a second query reads from the start, at its own pace */
    pl_query *lq2 = env ? query_of(env, paths) : NULL;
    pl_sample *again = NULL;
    CHECK(lq2 && pl_query_collect(lq2, &again) == 0 && again && again->time100ns == s[0]->time100ns);
    free(again);
    /* the instances of the set outside a query: the first sample's */
    pl_snapshot snap;
    pl_snap_init(&snap, cs);
    CHECK(cs && pl_enum_instances(env, cs, &snap) == 0 && snap.ninst == 2);
    pl_snap_free(&snap);
    pl_logsrc_info info;
    CHECK(env && pl_logsrc_info_of(env, &info) == 1 && info.samples == 3 && info.records == 4 && info.files == 1);
    CHECK(env && info.first == s[0]->time100ns && info.last == s[2]->time100ns && info.warning == NULL);
    CHECK(pl_logsrc_info_of(live, &info) == 0);
    for (int i = 0; i < 3; i++) {
        free(s[i]);
        free(g[i]);
    }
    pl_query_free(lq2);
    pl_query_free(lq);
    pl_env_unref(env);
    pl_query_free(q);
    pl_env_unref(live);
}

/* A set that joins at the second sample and leaves at the third; a time range; two files in order. */
static void t_changes_range_files(void)
{
    pl_env *live = env_with(&queue);
    static const char *const pq[] = { "\\LogT Queue(*)\\Depth", NULL };
    static const char *const pqm[] = { "\\LogT Queue(*)\\Depth", "\\Memory\\Available Bytes", NULL };
    pl_query *q1 = query_of(live, pq), *q2 = query_of(live, pqm);
    pl_query *qs[] = { q1, q2, q1, NULL };
    pl_sample *s[3], *t[3];
    write_log(tmp("ch.blg"), qs, s);
    write_log(tmp("ch_001.blg"), qs, t);
    const char *p = tmp("ch.blg");
    pl_env *env = open_logs(&p, 1, INT64_MIN, INT64_MAX, 0, NULL);
    static const char *const pm[] = { "\\Memory\\Available Bytes", NULL };
    pl_query *lq = env ? query_of(env, pm) : NULL;
    pl_sample *g = NULL;
    for (int i = 0; lq && i < 3; i++) {
        CHECK(pl_query_collect(lq, &g) == 0);
        /* Memory only in the second sample: the others say no_data (not logged) */
        CHECK(g && g->blocks[0].status == (i == 1 ? PL_VALID : PL_NO_DATA));
        if (g && i == 1)
            CHECK(g->vals[0].v == s[1]->vals[s[1]->blocks[1].vals_off].v && g->have[0] == 1);
        free(g);
    }
    pl_query_free(lq);
    pl_env_unref(env);
    /* [second, third]: two samples; the two files in order: six */
    env = open_logs(&p, 1, s[1]->time100ns, s[2]->time100ns, 0, NULL);
    lq = env ? query_of(env, pq) : NULL;
    int n = 0;
    while (lq && pl_query_collect(lq, &g) == 0) {
        CHECK(g->time100ns == s[n + 1]->time100ns);
        free(g);
        n++;
    }
    CHECK_EQ_U64(n, 2);
    pl_query_free(lq);
    pl_env_unref(env);
    const char *both[2] = { tmp("ch.blg"), tmp("ch_001.blg") };
    env = open_logs(both, 2, INT64_MIN, INT64_MAX, 0, NULL);
    lq = env ? query_of(env, pq) : NULL;
    int64_t last = 0;
    n = 0;
    while (lq && pl_query_collect(lq, &g) == 0) {
        CHECK(g->time100ns > last && g->time100ns == (n < 3 ? s[n] : t[n - 3])->time100ns);
        last = g->time100ns;
        free(g);
        n++;
    }
    CHECK_EQ_U64(n, 6);
    pl_query_free(lq);
    pl_env_unref(env);
    for (int i = 0; i < 3; i++) {
        free(s[i]);
        free(t[i]);
    }
    pl_query_free(q1);
    pl_query_free(q2);
    pl_env_unref(live);
}

/* Definitions of one set across logs: more counters merge, a changed type is refused. */
static void t_definitions(void)
{
    static const char *const pd[] = { "\\LogT Queue(*)\\Depth", NULL };
    pl_env *e1 = env_with(&queue), *e2 = env_with(&queue_more), *e3 = env_with(&queue_other);
    pl_query *q1 = query_of(e1, pd), *q2 = query_of(e2, pd), *q3 = query_of(e3, pd);
    pl_query *a[] = { q1, NULL }, *b[] = { q2, NULL }, *c[] = { q3, NULL };
    pl_sample *s[3];
    write_log(tmp("d1.blg"), a, &s[0]);
    write_log(tmp("d2.blg"), b, &s[1]);
    write_log(tmp("d3.blg"), c, &s[2]);
    const char *more[2] = { tmp("d1.blg"), tmp("d2.blg") }, *other[2] = { tmp("d1.blg"), tmp("d3.blg") };
    pl_env *env = open_logs(more, 2, INT64_MIN, INT64_MAX, 0, NULL);
    const pl_counterset_def *cs = env ? pl_env_find(env, "LogT Queue") : NULL;
    CHECK(cs && cs->ncounters == 3 && !strcmp(cs->counters[2].name, "Peak"));
    static const char *const pp[] = { "\\LogT Queue(a)\\Peak", NULL };
    pl_query *lq = env ? query_of(env, pp) : NULL;
    pl_sample *g = NULL;
    CHECK(lq && pl_query_collect(lq, &g) == 0 && g && g->have[0] == 0);   /* not logged in d1 */
    free(g);
    pl_query_free(lq);
    pl_env_unref(env);
    char msg[512];
    env = open_logs(other, 2, INT64_MIN, INT64_MAX, EINVAL, msg);
    CHECK(env == NULL && strstr(msg, "counterset 'LogT Queue' is defined again otherwise (counter Depth)") != NULL);
    for (int i = 0; i < 3; i++)
        free(s[i]);
    pl_query_free(q1);
    pl_query_free(q2);
    pl_query_free(q3);
    pl_env_unref(e1);
    pl_env_unref(e2);
    pl_env_unref(e3);
}

/* Bad files: refused when opened with the offset; changed after: refused at that record. */
static void t_bad(void)
{
    char msg[512];
    const char *p = tmp("junk.blg");
    FILE *f = fopen(p, "w");
    fputs("timestamp,value\n", f);
    fclose(f);
    CHECK(open_logs(&p, 1, INT64_MIN, INT64_MAX, EINVAL, msg) == NULL);
    CHECK(strstr(msg, "junk.blg: offset 0: not a perflib binary log (bad magic)") != NULL);
    const char *missing = tmp("none.blg");
    CHECK(open_logs(&missing, 1, INT64_MIN, INT64_MAX, ENOENT, msg) == NULL);
    CHECK(open_logs(&p, 0, INT64_MIN, INT64_MAX, EINVAL, msg) == NULL);
    /* a log whose second DATA record is flipped after it was opened */
    pl_env *live = env_with(&queue);
    static const char *const pd[] = { "\\LogT Queue(*)\\Depth", NULL };
    pl_query *q = query_of(live, pd);
    pl_query *qs[] = { q, q, NULL };
    pl_sample *s[2];
    const char *c = tmp("chg.blg");
    write_log(c, qs, s);
    pl_env *env = open_logs(&c, 1, INT64_MIN, INT64_MAX, 0, NULL);
    struct stat st;
    CHECK(stat(c, &st) == 0);
    f = fopen(c, "r+b");
    fseek(f, st.st_size - 40, SEEK_SET);                /* inside the last block */
    int ch = fgetc(f);
    fseek(f, st.st_size - 40, SEEK_SET);
    fputc(ch ^ 1, f);
    fclose(f);
    pl_query *lq = env ? query_of(env, pd) : NULL;
    pl_sample *g = NULL;
    CHECK(lq && pl_query_collect(lq, &g) == 0);
    free(g);
    g = NULL;
    CHECK(lq && pl_query_collect(lq, &g) == EINVAL && g == NULL);
    CHECK(lq && strstr(pl_query_source_error(lq), "chg.blg: a record fails its check") != NULL);
    pl_query_free(lq);
    pl_env_unref(env);
    free(s[0]);
    free(s[1]);
    pl_query_free(q);
    pl_env_unref(live);
}

int main(void)
{
    ct_tmp_init("test_logsrc");
    RUN(t_round_trip);
    RUN(t_changes_range_files);
    RUN(t_definitions);
    RUN(t_bad);
    ct_tmp_remove();
    return CT_END();
}
