/* Prometheus textfiles (issue 12, item 5): the text-format parser against a
 * fixture that uses every part of the format and against malformed lines,
 * then families read from a directory through their countersets, with the
 * values formatted by hand-computed arithmetic (a counter 100 -> 250 in 5 s
 * is 30/s). */
#include "ctest.h"
#include "textfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DOUBLE_RAW 0x00012000u

static char dir[64];

/* ---- the parser ------------------------------------------------------------------ */

static int parse_text(const char *text, size_t len, pl_tf_doc *doc)
{
    return pl_tf_parse(text, len, doc);
}

static const pl_tf_family *fam_named(const pl_tf_doc *d, const char *name)
{
    for (uint32_t i = 0; i < d->nfam; i++)
        if (strcmp(d->fam[i].name, name) == 0)
            return &d->fam[i];
    return NULL;
}

/* The value of the one series of family fam, slot, instance inst; NAN if absent. */
static double series(const pl_tf_doc *d, const char *fam, uint32_t slot, const char *inst)
{
    const pl_tf_family *f = fam_named(d, fam);
    double v = NAN;
    int n = 0;
    for (uint32_t i = 0; f && i < d->nser; i++)
        if (&d->fam[d->ser[i].fam] == f && d->ser[i].slot == slot && strcmp(d->ser[i].inst, inst) == 0) {
            v = d->ser[i].v;
            n++;
        }
    if (n > 1)
        fprintf(stderr, "  %s %s: %d series\n", fam, inst, n);
    return n == 1 ? v : NAN;
}

static void test_spec_fixture(void)
{
    static char buf[8192];
    pl_tf_doc d;
    FILE *f = fopen("spec/fixtures/textfile/spec/all.prom", "rb");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    CHECK(n > 0);
    CHECK(parse_text(buf, n, &d) == 0);
    CHECK_STR(d.err, "");
    CHECK_EQ_U64(d.nfam, 6);
    for (uint32_t i = 0; i < d.nfam; i++)
        CHECK_STR(d.fam[i].err, "");
    const pl_tf_family *req = fam_named(&d, "tf_spec_requests_total");
    CHECK(req && req->type == PL_TF_COUNTER);
    CHECK(req && req->help && strcmp(req->help, "Requests served; a back\\slash and a\nnewline.") == 0);
    /* labels sorted by name, a trailing comma, blanks around every token */
    CHECK_NEAR(series(&d, "tf_spec_requests_total", PL_TF_VALUE, "code=200,method=post"), 1027, 0);
    CHECK_NEAR(series(&d, "tf_spec_requests_total", PL_TF_VALUE, "code=400,method=post"), 3, 0);
    CHECK_NEAR(series(&d, "tf_spec_requests_total", PL_TF_VALUE, "code=200,method=get"), 2500, 0);
    /* \\ \" \n decoded, then every path character written as %XX; UTF-8 kept */
    CHECK_NEAR(series(&d, "tf_spec_escapes", PL_TF_VALUE,
                      "error=Cannot find file:%0A%22FILE.TXT%22,path=C:%5CDIR%5CFILE.TXT"), 1458255915.0, 0);
    double z = series(&d, "tf_spec_escapes", PL_TF_VALUE,
                      "error=caf\xc3\xa9,path=a%2Cb%3Dc%28d%29%2Fe%23f%2Ag%3Fh%25i");
    CHECK(z == 0 && signbit(z));
    CHECK(fam_named(&d, "tf_spec_escapes")->type == PL_TF_UNTYPED);
    CHECK(isinf(series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=pinf")) &&
          series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=pinf") > 0);
    CHECK(isinf(series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=ninf")) &&
          series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=ninf") < 0);
    CHECK(isnan(series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=nan")));
    CHECK_NEAR(series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=exp"), -0.0015, 0);
    CHECK_NEAR(series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=big"), 12345678901234567890.0, 0);
    CHECK_NEAR(series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=neg_ts"), 7, 0);
    CHECK_NEAR(series(&d, "tf_spec_gauge", PL_TF_VALUE, "k=ts_min"), 8, 0);
    /* a comment that mentions TYPE is a comment */
    CHECK(fam_named(&d, "tf_spec_untyped_metric")->type == PL_TF_UNTYPED);
    CHECK_NEAR(series(&d, "tf_spec_untyped_metric", PL_TF_VALUE, "{}"), 42, 0);
    CHECK(fam_named(&d, "tf_spec_rpc_seconds")->type == PL_TF_SUMMARY);
    CHECK_NEAR(series(&d, "tf_spec_rpc_seconds", PL_TF_VALUE, "quantile=0.5"), 4773, 0);
    CHECK_NEAR(series(&d, "tf_spec_rpc_seconds", PL_TF_VALUE, "quantile=0.99"), 76656, 0);
    CHECK_NEAR(series(&d, "tf_spec_rpc_seconds", PL_TF_SUM, "{}"), 17560473, 0);
    CHECK_NEAR(series(&d, "tf_spec_rpc_seconds", PL_TF_COUNT, "{}"), 2693, 0);
    CHECK(fam_named(&d, "tf_spec_latency")->type == PL_TF_HISTOGRAM);
    CHECK_NEAR(series(&d, "tf_spec_latency", PL_TF_VALUE, "le=0.05"), 24054, 0);
    CHECK_NEAR(series(&d, "tf_spec_latency", PL_TF_VALUE, "le=+Inf"), 144320, 0);
    CHECK_NEAR(series(&d, "tf_spec_latency", PL_TF_SUM, "{}"), 53423, 0);
    CHECK_NEAR(series(&d, "tf_spec_latency", PL_TF_COUNT, "{}"), 144320, 0);
    CHECK_EQ_U64(d.nser, 21);           /* 3 + 2 + 7 + 1 + 4 + 4 */
    pl_tf_doc_free(&d);
}

static const struct {
    const char *text;
    const char *fam;          /* the family with the problem, NULL: the file's */
    const char *why;          /* part of the sentence */
} bad[] = {
    { "m{a=\"x\\q\"} 1\n", "m", "line 1: a label value has an escape other than" },
    { "# HELP m bad \\t escape\n", "m", "a HELP line has an escape other than" },
    { "m 1\n# TYPE m gauge\n", "m", "line 2: a TYPE line after the metric's samples" },
    { "# TYPE m gauge\n# TYPE m gauge\n", "m", "a second TYPE line" },
    { "# HELP m a\n# HELP m b\n", "m", "a second HELP line" },
    { "# TYPE m gauges\n", "m", "type is not counter" },
    { "m 12", "m", "the last line has no newline" },
    { "\x01\x02garbage\n", NULL, "no metric name" },
    { "m-x 1\n", "m", "outside [a-zA-Z0-9_:]" },
    { "# TYPE h histogram\nh_bucket 1\n", "h", "a bucket has no le label" },
    { "# TYPE h histogram\nh 1\n", "h", "not _bucket, _sum or _count" },
    { "# TYPE s summary\ns_sum{quantile=\"0.5\"} 1\n", "s", "has a quantile or le label" },
    { "# TYPE s summary\ns{quantile=\"half\"} 1\n", "s", "not a number" },
    { "m{a=\"1\",a=\"2\"} 1\n", "m", "a label appears twice" },
    { "m 1 2 3\n", "m", "text after the timestamp" },
    { "m 0x10\n", "m", "the value is not a number" },
    { "m 1_000\n", "m", "the value is not a number" },
    { "m 1.5.2\n", "m", "the value is not a number" },
    { "m 1e309\n", "m", "the value is not a number" },
    { "m 1 1.5\n", "m", "the timestamp is not an integer" },
    { "m 1 9223372036854775808\n", "m", "the timestamp is not an integer" },
    { "m{a=\"1\" b=\"2\"} 5\n", "m", "not separated by ','" },
    { "m{a=\"1} 5\n", "m", "no closing quote" },
    { "m{1a=\"1\"} 5\n", "m", "a label name is not" },
    { "m{a=1} 5\n", "m", "a label value is not quoted" },
    { "m{a=\"\xff\"} 1\n", "m", "a label value is not UTF-8" },
    { "# HELP m caf\xe9\n", "m", "a HELP line is not UTF-8" },
    { "{\"m.x\"} 1\n", NULL, "no metric name" },    /* quoted names are not format 0.0.4 */
};

/* Each malformed line gives its family (or the file) a sentence, and no sample. */
static void test_malformed_lines(void)
{
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        pl_tf_doc d;
        const char *err = NULL;
        CHECK(parse_text(bad[k].text, strlen(bad[k].text), &d) == 0);
        if (bad[k].fam) {
            const pl_tf_family *f = fam_named(&d, bad[k].fam);
            err = f ? f->err : NULL;
        } else {
            err = d.err;
        }
        if (!err || !strstr(err, bad[k].why)) {
            ct_failed_checks++;
            fprintf(stderr, "  case %zu (%s): got \"%s\", expected \"%s\"\n", k, bad[k].text, err ? err : "(none)",
                    bad[k].why);
        }
        for (uint32_t i = 0; i < d.nser; i++)
            CHECK(d.ser[i].line != 1 || strncmp(bad[k].text, "m 1\n", 4) == 0);
        pl_tf_doc_free(&d);
    }
}

/* An empty label is no label (Prometheus' data model): the same instance. */
static void test_empty_label(void)
{
    static const char text[] = "m{a=\"\",b=\"x\"} 1\nm{b=\"x\"} 2\nm{a=\"\"} 3\n";
    pl_tf_doc d;
    CHECK(parse_text(text, sizeof text - 1, &d) == 0);
    CHECK_EQ_U64(d.nser, 3);
    if (d.nser == 3) {
        CHECK_STR(d.ser[0].inst, "b=x");     /* sorted by instance name, then line */
        CHECK_STR(d.ser[1].inst, "b=x");
        CHECK_STR(d.ser[2].inst, "{}");
        CHECK(d.ser[0].line == 1 && d.ser[1].line == 2);
    }
    pl_tf_doc_free(&d);
}

/* ---- families from a directory ---------------------------------------------------- */

/* Writes name atomically (a temporary file renamed), as the convention says. */
static void put_file(const char *name, const char *text)
{
    char tmp[128], path[128];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    CHECK(rename(tmp, path) == 0);
}

static void drop_file(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

typedef struct reader {
    pl_env *env;
    const pl_counterset_def *cs;
    void *state;
    pl_snapshot snap;
} reader;

static int reader_open(reader *r, const char *set)
{
    memset(r, 0, sizeof *r);
    r->env = pl_env_new(NULL);
    r->cs = r->env ? pl_env_find(r->env, set) : NULL;
    if (!r->cs || pl_provider_open(r->cs, r->env, &r->state) != 0) {
        fprintf(stderr, "  %s: not there\n", set);
        pl_env_unref(r->env);
        return 0;
    }
    pl_snap_init(&r->snap, r->cs);
    return 1;
}

static void reader_close(reader *r)
{
    pl_snap_free(&r->snap);
    r->cs->ops->close(r->state);
    pl_env_unref(r->env);
}

static int collect(reader *r)
{
    return r->cs->ops->collect(r->state, NULL, &r->snap);
}

static int inst_of(const reader *r, const char *name)
{
    for (uint32_t i = 0; i < r->snap.ninst; i++)
        if (strcmp(pl_snap_name(&r->snap, i), name) == 0)
            return (int)i;
    return -1;
}

/* Raw value of counter `counter` of instance i; have says whether it is there. */
static uint64_t raw(const reader *r, int i, const char *counter, int *have)
{
    int c = pl_counter_index_by_name(r->cs, counter);
    size_t k = (size_t)i * r->cs->ncounters + (size_t)c;
    *have = i >= 0 && c >= 0 && r->snap.have[k];
    return *have ? r->snap.values[k] : 0;
}

/* The one-sample formatted value of a DOUBLE_RAW counter. */
static pl_status value(const reader *r, int i, const char *counter, double *out)
{
    int have;
    pl_raw x = { raw(r, i, counter, &have), 0, 0, 8 };
    if (!have)
        return PL_NO_DATA;
    return pl_format_raw(DOUBLE_RAW, &x, NULL, 1, 0, 0, out);
}

static void test_rates_and_gauges(void)
{
    reader r, g;
    int have;
    double v;
    put_file("rate.prom", "# TYPE tf_rate_total counter\ntf_rate_total{job=\"a\"} 100\ntf_rate_total{job=\"b\"} 1.5\n"
                          "# TYPE tf_rate_gauge gauge\ntf_rate_gauge -3.25\n");
    CHECK(pl_textfiles_load(dir, NULL, 0) == 0);
    if (!reader_open(&r, "Prometheus tf_rate_total") || !reader_open(&g, "Prometheus tf_rate_gauge"))
        return;
    CHECK(r.cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES && r.cs->ncounters == 2);
    CHECK(r.cs->counters[1].type == PERF_COUNTER_BULK_COUNT && r.cs->counters[1].scale == -3);
    CHECK(collect(&r) == 0);
    uint64_t a0 = raw(&r, inst_of(&r, "job=a"), "Value/sec", &have);
    uint64_t b0 = raw(&r, inst_of(&r, "job=b"), "Value/sec", &have);
    CHECK_EQ_U64(a0, 100000);          /* x 1000 */
    CHECK_EQ_U64(b0, 1500);
    put_file("rate.prom", "# TYPE tf_rate_total counter\ntf_rate_total{job=\"a\"} 250\ntf_rate_total{job=\"b\"} 2.25\n"
                          "# TYPE tf_rate_gauge gauge\ntf_rate_gauge -3.25\n");
    CHECK(collect(&r) == 0);
    uint64_t a1 = raw(&r, inst_of(&r, "job=a"), "Value/sec", &have);
    uint64_t b1 = raw(&r, inst_of(&r, "job=b"), "Value/sec", &have);
    /* 100 -> 250 in 5 s: 150 / 5 = 30/s; 1.5 -> 2.25 in 0.5 s: 0.75 / 0.5 = 1.5/s */
    pl_raw n1 = { a1, 5, 0, 8 }, n0 = { a0, 0, 0, 8 };
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &n1, &n0, 1, 0, -3, &v) == PL_VALID);
    CHECK_NEAR(v, 30.0, 1e-12);
    pl_raw m1 = { b1, 500, 0, 8 }, m0 = { b0, 0, 0, 8 };
    CHECK(pl_format_raw(PERF_COUNTER_BULK_COUNT, &m1, &m0, 1000, 0, -3, &v) == PL_VALID);
    CHECK_NEAR(v, 1.5, 1e-12);
    CHECK(value(&r, inst_of(&r, "job=a"), "Value", &v) == PL_VALID);
    CHECK_NEAR(v, 250, 0);
    CHECK(collect(&g) == 0);
    CHECK(g.snap.ninst == 1 && inst_of(&g, "{}") == 0);
    CHECK(value(&g, 0, "Value", &v) == PL_VALID);
    CHECK_NEAR(v, -3.25, 0);           /* a float kept whole, its sign too */
    /* another file that makes the gauge a counter: the family gives no number */
    put_file("conflict.prom", "# TYPE tf_rate_gauge counter\ntf_rate_gauge 1\n");
    CHECK(collect(&g) == EINVAL && g.snap.ninst == 0);
    CHECK(g.snap.err_msg && strstr(g.snap.err_msg, "conflict.prom: its TYPE is counter, another file's is gauge"));
    drop_file("conflict.prom");
    CHECK(collect(&g) == 0 && g.snap.ninst == 1);
    /* the one file now says counter: the gauge's set keeps its one counter, filled */
    put_file("rate.prom", "# TYPE tf_rate_total gauge\ntf_rate_total{job=\"a\"} 260\n"
                          "# TYPE tf_rate_gauge counter\ntf_rate_gauge 5\n");
    CHECK(collect(&g) == 0 && g.snap.ninst == 1);
    CHECK(value(&g, 0, "Value", &v) == PL_VALID && v == 5);
    /* and the counter's set, now a gauge: its value, never a rate of a gauge */
    CHECK(collect(&r) == 0 && r.snap.ninst == 1);
    CHECK(value(&r, 0, "Value", &v) == PL_VALID && v == 260);
    raw(&r, 0, "Value/sec", &have);
    CHECK(!have);
    reader_close(&r);
    reader_close(&g);
}

static void test_value_statuses(void)
{
    reader r;
    double v;
    int have;
    put_file("st.prom", "# TYPE tf_st_total counter\ntf_st_total{s=\"dup\"} 1\ntf_st_total{s=\"dup\"} 2\n"
                        "tf_st_total{s=\"neg\"} -1\ntf_st_total{s=\"huge\"} 1e300\ntf_st_total{s=\"nan\"} NaN\n"
                        "tf_st_total{s=\"ok\"} 7\n");
    CHECK(pl_textfiles_load(dir, NULL, 0) == 0);
    if (!reader_open(&r, "Prometheus tf_st_total"))
        return;
    CHECK(collect(&r) == 0);
    CHECK_EQ_U64(r.snap.ninst, 5);
    CHECK(value(&r, inst_of(&r, "s=dup"), "Value", &v) == PL_INVALID_DATA);   /* which of 1 and 2? */
    CHECK(value(&r, inst_of(&r, "s=neg"), "Value", &v) == PL_INVALID_DATA);   /* a counter is >= 0 */
    CHECK(value(&r, inst_of(&r, "s=nan"), "Value", &v) == PL_INVALID_DATA);
    CHECK(value(&r, inst_of(&r, "s=huge"), "Value", &v) == PL_VALID && v == 1e300);
    CHECK(value(&r, inst_of(&r, "s=ok"), "Value", &v) == PL_VALID && v == 7);
    static const char *const norate[] = { "s=dup", "s=neg", "s=nan", "s=huge" };
    for (int k = 0; k < 4; k++) {
        raw(&r, inst_of(&r, norate[k]), "Value/sec", &have);
        CHECK(!have);                   /* no_data, never a made-up integer */
    }
    CHECK_EQ_U64(raw(&r, inst_of(&r, "s=ok"), "Value/sec", &have), 7000);
    reader_close(&r);
}

static void test_broken_and_new_files(void)
{
    reader r, g;
    put_file("bad.prom", "# TYPE tf_bad gauge\ntf_bad{a=\"1\"} 1\ntf_bad{a=\"\\q\"} 2\n");
    put_file("garbage.prom", "tf_g_ok 1\n\x01\xff\xfe\x80\n");
    CHECK(pl_textfiles_load(dir, NULL, 0) == 0);
    if (!reader_open(&r, "Prometheus tf_bad") || !reader_open(&g, "Prometheus tf_g_ok"))
        return;
    CHECK(collect(&r) == EINVAL && r.snap.ninst == 0);
    CHECK(r.snap.err_msg && strstr(r.snap.err_msg, "/bad.prom: line 3: a label value has an escape"));
    CHECK(collect(&g) == EINVAL && g.snap.ninst == 0);
    CHECK(g.snap.err_msg && strstr(g.snap.err_msg, "/garbage.prom: line 2: no metric name"));
    drop_file("bad.prom");
    CHECK(collect(&r) == ENOENT);
    CHECK_STR(r.snap.err_msg, "no *.prom file defines tf_bad now");
    put_file("bad.prom", "# TYPE tf_bad gauge\ntf_bad{a=\"1\"} 1\n");
    CHECK(collect(&r) == 0 && r.snap.ninst == 1);
    /* a FIFO where the file was: never opened for a blocking read, and said */
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/bad.prom", dir);
    drop_file("bad.prom");
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(collect(&r) == ENOENT);
    CHECK(r.snap.err_msg && strstr(r.snap.err_msg, "now (") && strstr(r.snap.err_msg, "/bad.prom: Invalid argument)"));
    drop_file("bad.prom");
    put_file("bad.prom", "# TYPE tf_bad gauge\ntf_bad{a=\"1\"} 1\n");
    CHECK(collect(&r) == 0 && r.snap.ninst == 1);
    /* a family that appears while a collect of another set runs */
    put_file("new.prom", "tf_new_family{x=\"y\"} 5\n");
    CHECK(pl_env_find(r.env, "Prometheus tf_new_family") == NULL);
    CHECK(collect(&r) == 0);
    CHECK(pl_env_sync(r.env) == 0);
    CHECK(pl_env_find(r.env, "Prometheus tf_new_family") != NULL);
    reader_close(&r);
    reader_close(&g);
}

/* One family from two files: its instances merged; one in both is a duplicate. */
static void test_family_in_two_files(void)
{
    reader r;
    double v;
    put_file("x1.prom", "# TYPE tf_multi gauge\ntf_multi{f=\"1\"} 1\ntf_multi{both=\"y\"} 3\n");
    put_file("x2.prom", "# TYPE tf_multi gauge\ntf_multi{both=\"y\"} 4\ntf_multi{f=\"2\"} 2\n");
    CHECK(pl_textfiles_load(dir, NULL, 0) == 0);
    if (!reader_open(&r, "Prometheus tf_multi"))
        return;
    CHECK(collect(&r) == 0);
    CHECK_EQ_U64(r.snap.ninst, 3);
    CHECK(inst_of(&r, "both=y") == 0 && inst_of(&r, "f=1") == 1 && inst_of(&r, "f=2") == 2);
    CHECK(value(&r, inst_of(&r, "both=y"), "Value", &v) == PL_INVALID_DATA);
    CHECK(value(&r, inst_of(&r, "f=1"), "Value", &v) == PL_VALID && v == 1);
    CHECK(value(&r, inst_of(&r, "f=2"), "Value", &v) == PL_VALID && v == 2);
    drop_file("x1.prom");
    CHECK(collect(&r) == 0 && r.snap.ninst == 2);
    CHECK(value(&r, inst_of(&r, "both=y"), "Value", &v) == PL_VALID && v == 4);
    drop_file("x2.prom");
    reader_close(&r);
}

static void test_summary_average(void)
{
    reader r;
    int have;
    double v;
    put_file("avg.prom", "# TYPE tf_avg summary\ntf_avg{quantile=\"0.9\"} 4\ntf_avg_sum 12.5\ntf_avg_count 5\n");
    CHECK(pl_textfiles_load(dir, NULL, 0) == 0);
    if (!reader_open(&r, "Prometheus tf_avg"))
        return;
    CHECK(collect(&r) == 0);
    int i = inst_of(&r, "{}");
    uint64_t s0 = raw(&r, i, "Average", &have), c0 = raw(&r, i, "Average Base", &have);
    CHECK(value(&r, inst_of(&r, "quantile=0.9"), "Value", &v) == PL_VALID && v == 4);
    put_file("avg.prom", "# TYPE tf_avg summary\ntf_avg{quantile=\"0.9\"} 4\ntf_avg_sum 25\ntf_avg_count 10\n");
    CHECK(collect(&r) == 0);
    uint64_t s1 = raw(&r, i, "Average", &have), c1 = raw(&r, i, "Average Base", &have);
    /* (25 - 12.5) / (10 - 5) = 2.5 per observation in the interval */
    pl_raw n1 = { s1, c1, 0, 8 }, n0 = { s0, c0, 0, 8 };
    CHECK(pl_format_raw(PERF_AVERAGE_BULK, &n1, &n0, 1, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 2.5, 1e-12);
    CHECK(value(&r, i, "Sum", &v) == PL_VALID && v == 25);
    raw(&r, i, "Value", &have);
    CHECK(!have);                       /* _sum and _count carry no quantile */
    reader_close(&r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/perflib-textfile-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    RUN(test_spec_fixture);
    RUN(test_malformed_lines);
    RUN(test_empty_label);
    RUN(test_rates_and_gauges);
    RUN(test_value_statuses);
    RUN(test_broken_and_new_files);
    RUN(test_family_in_two_files);
    RUN(test_summary_average);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return CT_END();
}
