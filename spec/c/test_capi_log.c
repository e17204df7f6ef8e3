/* The PerfLib V2 C API reading a binary log (issue 15 item 3): szMachine =
 * u"log:PATH" opens the log's own sets; PerfQueryCounterData returns its
 * samples in order, each with the logged raw value and time, then
 * ERROR_NO_MORE_ITEMS; two files as one (u"log:A;B"); a file that is no log. */
#include "ctest.h"
#include "ct_tmp.h"
#include "capi_read.h"
#include "perflib.h"
#include "pl_blog.h"
#include "pl_capi.h"
#include "providers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void widen(WCHAR *w, const char *s)
{
    while ((*w++ = (WCHAR)(unsigned char)*s++) != 0)
        ;
}

/* n samples of \Memory\Available Bytes of the fixture tree into path; their values and times. */
static void write_log(const char *path, int n, uint64_t *vals, int64_t *times)
{
    pl_env *env = pl_env_new("spec/fixtures/basic");
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t ix;
    CHECK(pl_query_add_path(q, "\\Memory\\Available Bytes", &st, &ix) == 0 && st == 0);
    pl_blog_writer *w = NULL;
    char msg[256];
    unlink(path);
    CHECK(pl_blog_open(path, NULL, &w, msg, sizeof msg) == 0);
    for (int i = 0; i < n; i++) {
        pl_sample *s = NULL;
        CHECK(pl_query_collect(q, &s) == 0 && s);
        if (!s)
            continue;
        vals[i] = s->vals[0].v;
        times[i] = s->time100ns;
        CHECK(pl_blog_write(w, s, msg, sizeof msg) == 0);
        free(s);
        usleep(1000);
    }
    CHECK(pl_blog_close(w) == 0);
    pl_query_free(q);
    pl_env_unref(env);
}

static int64_t i64_at(const uint8_t *p, size_t off)
{
    int64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/* Reads every sample of machine through the C API: how many, checked against vals/times. */
static int read_all(const WCHAR *machine, const GUID *set, ULONG counter, const uint64_t *vals, const int64_t *times)
{
    HANDLE h;
    PERF_COUNTER_IDENTIFIER id;
    uint8_t data[4096];
    DWORD size = 0;
    int n = 0;
    CHECK_EQ_U64(PerfOpenQueryHandle(machine, &h), ERROR_SUCCESS);
    memset(&id, 0, sizeof id);
    id.CounterSetGuid = *set;
    id.Size = sizeof id;
    id.CounterId = counter;
    id.InstanceId = 0xFFFFFFFFu;
    CHECK_EQ_U64(PerfAddCounters(h, &id, sizeof id), ERROR_SUCCESS);
    CHECK_EQ_U64(id.Status, ERROR_SUCCESS);
    ULONG e;
    while ((e = PerfQueryCounterData(h, (PPERF_DATA_HEADER)(void *)data, sizeof data, &size)) == ERROR_SUCCESS) {
        /* PERF_DATA_HEADER: PerfTime100nSec at 16; then the counter's header (48), data (64), value (72) */
        CHECK(i64_at(data, 16) == times[n]);
        CHECK_EQ_U64(capi_u32(data, 48), ERROR_SUCCESS);
        CHECK_EQ_U64((uint64_t)i64_at(data, 72), vals[n]);
        n++;
    }
    CHECK_EQ_U64(e, ERROR_NO_MORE_ITEMS);
    CHECK_EQ_U64(PerfCloseQueryHandle(h), ERROR_SUCCESS);
    return n;
}

int main(void)
{
    ct_tmp_init("test_capi_log");
    CHECK(pl_register_builtin(NULL, 0) == 0);       /* what the API does at its first call */
    char a[128], b[128], name[300];
    snprintf(a, sizeof a, "%s/a.blg", ct_dir);
    snprintf(b, sizeof b, "%s/b.blg", ct_dir);
    uint64_t vals[5];
    int64_t times[5];
    write_log(a, 3, vals, times);
    write_log(b, 2, vals + 3, times + 3);
    /* the set's GUID and the counter's id, as the log defines them */
    pl_env *env = pl_env_new("spec/fixtures/basic");
    const pl_counterset_def *cs = pl_env_find(env, "Memory");
    int ci = cs ? pl_counter_index_by_name(cs, "Available Bytes") : -1;
    CHECK(ci >= 0);
    GUID g;
    if (ci < 0)
        return 1;
    memcpy(&g, &cs->guid, sizeof g);
    ULONG counter = ci >= 0 ? cs->counters[ci].id : 0;
    WCHAR w[300];
    snprintf(name, sizeof name, "log:%s", a);
    widen(w, name);
    CHECK_EQ_U64(read_all(w, &g, counter, vals, times), 3);
    snprintf(name, sizeof name, "log:%s;%s", a, b);
    widen(w, name);
    CHECK_EQ_U64(read_all(w, &g, counter, vals, times), 5);
    HANDLE h;
    snprintf(name, sizeof name, "log:%s/missing.blg", ct_dir);
    widen(w, name);
    CHECK_EQ_U64(PerfOpenQueryHandle(w, &h), ERROR_FILE_NOT_FOUND);
    CHECK_EQ_U64(PerfOpenQueryHandle(u"log:/etc/passwd", &h), ERROR_BAD_NETPATH);
    CHECK_EQ_U64(PerfOpenQueryHandle(u"log:", &h), ERROR_BAD_NETPATH);
    pl_env_unref(env);
    ct_tmp_remove();
    ct_passed += ct_failed_checks == 0;
    ct_failed += ct_failed_checks != 0;
    return CT_END();
}
