/* Values a user may not read say so (status no_access), apart from values
 * the source simply lacks (no_data): a provider's pl_snap_deny, through the
 * sample's formulas, the V2 data block and back, the exposition (left out),
 * and a whole set whose provider fails with EACCES. */
#include "ctest.h"
#include "pl_datablock.h"
#include "pl_expose.h"
#include "pl_provider.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const pl_counter_def na_counters[] = {
    { 0, "Read Bytes/sec", "Bytes read.", PERF_COUNTER_BULK_COUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8,
      PL_U(BYTES, 1, COUNTER) },
    { 1, "Open Files", "Files open.", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8,
      PL_U(COUNT, 1, GAUGE) },
};

static int na_fail;                      /* the errno the next collect fails with */
static uint64_t na_round;

static int na_open(pl_env *env, void **st)
{
    (void)env;
    *st = NULL;
    return 0;
}

static void na_close(void *st) { (void)st; }

static int na_instances(void *st, pl_snapshot *snap)
{
    (void)st;
    return pl_snap_add(snap, "mine", 1) < 0 || pl_snap_add(snap, "theirs", 2) < 0 ? ENOMEM : 0;
}

/* "mine" has both values; "theirs" has Read Bytes/sec denied and no Open Files */
static int na_collect(void *st, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    if (na_fail)
        return na_fail;
    int e = na_instances(st, snap);
    if (e)
        return e;
    na_round++;
    pl_snap_set(snap, 0, 0, 1000 * na_round);
    pl_snap_set(snap, 0, 1, 5);
    pl_snap_deny(snap, 1, 0);
    return 0;
}

static const pl_provider_ops na_ops = { na_open, na_close, na_instances, na_collect, NULL, NULL };
static const pl_counterset_def na_set = { { 0xe0000002, 0, 0x4000, { 0x80, 0, 0, 0, 0, 0, 0, 2 } }, "Access Test",
                                          "A set with a value this user may not read.",
                                          PERF_COUNTERSET_MULTI_INSTANCES, 0, 2, na_counters, &na_ops, 97000, NULL };

static pl_env *env;
static pl_query *q;

static pl_status status_of(const pl_sample *s1, const pl_sample *s0, uint32_t i, uint32_t c)
{
    double v;
    pl_fmt fmt;
    memset(&fmt, 0, sizeof fmt);
    return pl_sample_format(s1, &s1->blocks[0], i, c, s0, &fmt, &v);
}

static void test_statuses(void)
{
    pl_sample *s0 = NULL, *s1 = NULL;
    CHECK(pl_query_collect(q, &s0) == 0 && pl_query_collect(q, &s1) == 0);
    if (!s0 || !s1)
        return;
    CHECK_EQ_U64(status_of(s1, s0, 0, 0), PL_VALID);
    CHECK_EQ_U64(status_of(s1, s0, 1, 0), PL_NO_ACCESS);     /* denied */
    CHECK_EQ_U64(status_of(s1, s0, 1, 1), PL_NO_DATA);       /* simply absent */
    CHECK_EQ_U64(status_of(s1, NULL, 1, 1), PL_NO_DATA);
    CHECK_STR(pl_status_name(PL_NO_ACCESS), "no_access");

    /* the V2 block with perflib's trailers carries the reason to a reader */
    size_t n = pl_db_size(s1, 1);
    void *buf = malloc(n);
    pl_sample *r = NULL;
    pl_db_error err;
    CHECK(buf && pl_db_write(s1, 1, buf, n) == n);
    CHECK(buf && pl_db_validate(buf, n, &err) == 0);
    CHECK(buf && pl_db_read(env, buf, n, NULL, NULL, &r, &err) == 0 && r);
    if (r) {
        CHECK_EQ_U64(r->have[r->blocks[0].vals_off + 2], PL_HAVE_NO_ACCESS);   /* theirs, Read Bytes/sec */
        CHECK_EQ_U64(r->have[r->blocks[0].vals_off + 3], 0);                   /* theirs, Open Files */
        CHECK_EQ_U64(status_of(r, NULL, 1, 1), PL_NO_DATA);
    }
    /* a flag past no_access is refused */
    if (buf && r) {
        uint8_t *p = buf;
        size_t at = 0;
        for (size_t k = 0; k + 4 <= n; k++)    /* the presence flags 1 1 3 0, in that order */
            if (p[k] == 1 && p[k + 1] == 1 && p[k + 2] == PL_HAVE_NO_ACCESS && p[k + 3] == 0)
                at = k + 2;
        CHECK(at != 0);
        if (at) {
            p[at] = PL_HAVE_NO_ACCESS + 1;
            CHECK(pl_db_validate(buf, n, &err) == EINVAL);
        }
    }
    free(r);
    free(buf);

    /* /metrics leaves the value out as it does an absent one */
    pl_text t = { 0 };
    CHECK(pl_expose(s1, PL_EXPOSE_TEXT, NULL, &t) == 0);
    CHECK(t.p && strstr(t.p, "perflib_access_test_read_bytes_total{instance_name=\"mine\",instance_id=\"1\"} 2000\n"));
    CHECK(t.p && strstr(t.p, "instance_name=\"theirs\"") == NULL);
    pl_text_free(&t);
    free(s0);
    free(s1);
}

static void test_whole_set_denied(void)
{
    pl_sample *s = NULL;
    na_fail = EACCES;
    CHECK(pl_query_collect(q, &s) == 0 && s);
    if (s) {
        CHECK_EQ_U64(s->blocks[0].status, PL_NO_ACCESS);
        CHECK_EQ_U64(s->blocks[0].err, EACCES);
    }
    free(s);
    na_fail = EIO;                       /* other failures stay no_data */
    s = NULL;
    CHECK(pl_query_collect(q, &s) == 0 && s);
    if (s)
        CHECK_EQ_U64(s->blocks[0].status, PL_NO_DATA);
    free(s);
    na_fail = 0;
}

int main(void)
{
    pl_add_status st = PL_ADD_OK;
    uint32_t idx;
    env = pl_env_new(NULL);
    CHECK(env && pl_env_register(env, &na_set) == 0);
    q = env ? pl_query_new(env) : NULL;
    CHECK(q && pl_query_add_path(q, "\\Access Test(*)\\*", &st, &idx) == 0 && st == 0);
    if (!q)
        return CT_END();
    RUN(test_statuses);
    RUN(test_whole_set_denied);
    pl_query_free(q);
    pl_env_unref(env);
    return CT_END();
}
