/* Application segments are untrusted (issue 12, item 3): truncated,
 * garbage, lying and other-writable segments are refused with a sentence
 * and a good provider beside them still loads; a segment that shrinks under
 * the reader fails its counterset instead of faulting; two providers with
 * one GUID or one name: the first keeps it; changing records are left out;
 * random damage never makes the reader crash or read out of bounds (run
 * under ASan by make test). */
#include "ctest.h"
#include "appseg_helpers.h"

#include <fcntl.h>
#include <sys/stat.h>

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc(1 << 20);
    *len = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static void put(const char *name, const void *buf, size_t len, mode_t mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", seg_dir_path, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, buf, len) == (ssize_t)len);
    if (fd >= 0) {
        fchmod(fd, mode);
        close(fd);
    }
}

/* The first set record of a segment, and its definition. */
static appseg_set *first_set(uint8_t *buf) { return (appseg_set *)(void *)(buf + APPSEG_HDR_SIZE); }

static void test_bad_segments_refused(void)
{
    HANDLE h = start_set(0xb0000001, "Trust Model", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000001);
    size_t len;
    CHECK(h && PerfCreateInstanceUtf8(h, &g, "one", 1));
    uint8_t *good = slurp(PerfProviderSegmentPath(h), &len), *bad = malloc(len);
    CHECK(len > APPSEG_HDR_SIZE + sizeof(appseg_set));
    put("trunc.seg", good, 200, 0644);                       /* header says more than is there */
    for (size_t i = 0; i < len; i++)
        bad[i] = (uint8_t)(i * 7919u >> 3);
    put("garbage.seg", bad, len, 0644);
    memcpy(bad, good, len);
    first_set(bad)->guid.d1 = 0xb00000aa;
    snprintf(first_set(bad)->name, sizeof first_set(bad)->name, "Other Writable");
    put("openw.seg", bad, len, 0666);                         /* anyone could have written it */
    first_set(bad)->ncounters = 9999;
    put("liar.seg", bad, len, 0644);
    first_set(bad)->ncounters = 3;
    ((appseg_counter *)(first_set(bad) + 1))[2].offset = 4096;  /* beyond its counter area */
    put("offset.seg", bad, len, 0644);
    ((appseg_counter *)(first_set(bad) + 1))[2].offset = 16;
    ((appseg_hdr *)(void *)bad)->start_time += 1;            /* our pid, another process's start */
    put("reused.seg", bad, len, 0644);
    HANDLE h2 = start_set(0xb0000002, "Good After Bad", PERF_COUNTERSET_SINGLE_INSTANCE);
    GUID g2 = set_guid(0xb0000002);
    PPERF_COUNTERSET_INSTANCE i2 = h2 ? PerfCreateInstanceUtf8(h2, &g2, "_Default", 0) : NULL;
    CHECK(i2 && PerfSetULongLongCounterValue(h2, i2, 3, 42) == 0);

    pl_env *env = pl_env_new(NULL);
    CHECK(refused("200 were read"));                        /* trunc.seg: its header says more */
    CHECK(refused("not a perflib segment"));
    CHECK(refused("openw.seg refused: not a regular file owned"));
    CHECK(refused("9999 counters"));
    CHECK(refused("at offset 4096 of 24"));
    CHECK(pl_env_find(env, "Other Writable") == NULL);      /* refused, or dead (reused.seg) */
    CHECK(pl_env_find(env, "Trust Model") != NULL);
    pl_query *q = query_path(env, "\\Good After Bad\\Total");
    pl_sample *s = NULL;
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1);
    CHECK(s && s->vals[s->blocks[0].vals_off].v == 42);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    free(good);
    free(bad);
    PerfStopProvider(h);
    PerfStopProvider(h2);
}

/* The segment shrinks under the reader: a status with a sentence, no SIGBUS. */
static void test_shrinks_under_reader(void)
{
    HANDLE h = start_set(0xb0000003, "Shrinking", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000003);
    pl_sample *s = NULL;
    CHECK(h && PerfCreateInstanceUtf8(h, &g, "a", 1));
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\Shrinking(*)\\Active");
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1);
    free(s);
    s = NULL;
    /* from here on the provider must not touch its mapping (its pages are gone) */
    CHECK(truncate(PerfProviderSegmentPath(h), 100) == 0);
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_NO_DATA && s->blocks[0].ninst == 0);
    CHECK(s && s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "shorter than its header"));
    free(s);
    s = NULL;
    CHECK(truncate(PerfProviderSegmentPath(h), 700) == 0);     /* the header, half a set record */
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_NO_DATA);
    CHECK(s && s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "were read"));
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(h);
}

/* Two providers with one GUID: the first keeps it, the second is refused;
 * another GUID under a taken name is refused; a good one beside them loads. */
static void test_duplicates(void)
{
    HANDLE a = start_set(0xb0000004, "Dup Set", PERF_COUNTERSET_MULTI_INSTANCES);
    HANDLE b = start_set(0xb0000004, "Dup Set", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000004);
    CHECK(a && b);
    CHECK(PerfCreateInstanceUtf8(a, &g, "from-a", 1) && PerfCreateInstanceUtf8(b, &g, "from-b", 2));
    pl_env *env = pl_env_new(NULL);
    CHECK(refused("counterset 'Dup Set' refused: pid "));
    pl_query *q = query_path(env, "\\Dup Set(*)\\Total");
    pl_sample *s = NULL;
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1);   /* one provider's, not both */
    free(s);
    HANDLE c = start_set(0xb0000005, "Dup Set", PERF_COUNTERSET_MULTI_INSTANCES);
    HANDLE d = start_set(0xb0000006, "Dup Good", PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK(c && d);
    pl_env_sync(env);
    CHECK(refused("counterset name 'Dup Set' is already registered"));
    CHECK(pl_env_find(env, "Dup Good") != NULL);
    CHECK(pl_guid_equal(&pl_env_find(env, "Dup Set")->guid, (const pl_guid *)(const void *)&g));
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(a);
    PerfStopProvider(b);
    PerfStopProvider(c);
    PerfStopProvider(d);
}

/* Records being changed (odd seq, or head and tail unequal) are left out;
 * every damaged copy of a segment gives 0, ENOENT or EPROTO. */
static void test_records_checked(void)
{
    HANDLE h = start_set(0xb0000007, "Seq Set", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xb0000007);
    size_t len, used;
    pl_snapshot snap;
    char msg[256];
    CHECK(h && PerfCreateInstanceUtf8(h, &g, "x", 1) && PerfCreateInstanceUtf8(h, &g, "y", 2));
    uint8_t *buf = slurp(PerfProviderSegmentPath(h), &len), *copy = malloc(len);
    CHECK(pl_appseg_check_header(buf, len, &used, msg, sizeof msg) == 0);
    pl_appseg_def *d = pl_appseg_def_new(first_set(buf));
    CHECK(d != NULL);
    if (!d)
        return;
    pl_snap_init(&snap, &d->cs);
    CHECK(pl_appseg_take(buf, len, d, NULL, 1, &snap, msg, sizeof msg) == 0 && snap.ninst == 2);
    appseg_rec *x = (appseg_rec *)(void *)(buf + APPSEG_HDR_SIZE + first_set(buf)->rec.size);
    x->seq += 1;                                   /* odd: being created or deleted */
    pl_snap_clear(&snap);
    CHECK(pl_appseg_take(buf, len, d, NULL, 1, &snap, msg, sizeof msg) == 0 && snap.ninst == 1);
    CHECK_STR(pl_snap_name(&snap, 0), "y");
    x->seq += 1;                                   /* even again, but the tail still says before */
    pl_snap_clear(&snap);
    CHECK(pl_appseg_take(buf, len, d, NULL, 1, &snap, msg, sizeof msg) == 0 && snap.ninst == 1);
    x->seq -= 2;
    uint32_t state = 12345;
    for (int k = 0; k < 20000; k++) {
        memcpy(copy, buf, len);
        for (int m = 0; m < 1 + k % 4; m++) {
            state = state * 1103515245u + 12345u;
            copy[(state >> 8) % used] = (uint8_t)(state >> 3);
        }
        pl_snap_clear(&snap);
        int e = pl_appseg_take(copy, (k % 7) ? len : (state >> 4) % len, d, NULL, 1, &snap, msg, sizeof msg);
        CHECK(e == 0 || e == ENOENT || e == EPROTO);
    }
    pl_snap_free(&snap);
    pl_appseg_def_free(d);
    free(buf);
    free(copy);
    PerfStopProvider(h);
}

int main(void)
{
    use_seg_dir();
    RUN(test_bad_segments_refused);
    RUN(test_shrinks_under_reader);
    RUN(test_duplicates);
    RUN(test_records_checked);
    rm_seg_dir();
    return CT_END();
}
