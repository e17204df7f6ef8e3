/* Application providers (issue 12, items 1 and 2): a child process
 * publishes with libperflib-provider, this process reads with the core
 * through the discoverer, as perflua would: values, a rate over two
 * collects, a provider that dies in the middle of its updates, one that
 * stops, and thousands of instances created and deleted. */
#include "ctest.h"
#include "appseg_helpers.h"

#include <dirent.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

typedef struct child {
    pid_t pid;
    int cmd, ack;            /* pipes: commands to it, acknowledgements from it */
} child;

/* The child's loop: 'a' adds 100 requests to worker-1, 'l' updates
 * forever (until killed), 's' stops the provider cleanly, 'q' exits. */
static void child_main(int cmd, int ack)
{
    HANDLE h = start_set(0xa0000001, "MyApp Requests", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xa0000001);
    PPERF_COUNTERSET_INSTANCE w1 = h ? PerfCreateInstance(h, &g, u"worker-1", 1) : NULL;
    PPERF_COUNTERSET_INSTANCE w2 = h ? PerfCreateInstanceUtf8(h, &g, "worker-2", 2) : NULL;
    char c = w1 && w2 ? 'r' : 'f';
    if (w1 && w2) {
        PerfSetULongLongCounterValue(h, w1, 1, 1000);
        PerfSetULongCounterValue(h, w1, 2, 7);
        PerfSetULongLongCounterValue(h, w1, 3, 5000000000ull);
        PerfSetULongLongCounterValue(h, w2, 1, 5);
        PerfIncrementULongCounterValue(h, w2, 2, 4);
        PerfDecrementULongCounterValue(h, w2, 2, 1);
    }
    if (write(ack, &c, 1) != 1)
        _exit(3);
    while (read(cmd, &c, 1) == 1) {
        if (c == 'a') {
            PerfIncrementULongLongCounterValue(h, w1, 1, 100);
        } else if (c == 'l') {
            for (uint64_t i = 0;; i++)
                PerfSetULongLongCounterValue(h, w1, 3, i), PerfIncrementULongLongCounterValue(h, w2, 1, 1);
        } else if (c == 's') {
            PerfStopProvider(h);
        } else {
            break;
        }
        if (write(ack, &c, 1) != 1)
            break;
    }
    _exit(0);
}

static int start_child(child *ch)
{
    int a[2], b[2];
    char c = 0;
    if (pipe(a) || pipe(b))
        return -1;
    ch->pid = fork();
    if (ch->pid == 0) {
        close(a[1]);
        close(b[0]);
        child_main(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    ch->cmd = a[1];
    ch->ack = b[0];
    return read(ch->ack, &c, 1) == 1 && c == 'r' ? 0 : -1;
}

static int tell(child *ch, char c)
{
    char r = 0;
    return write(ch->cmd, &c, 1) == 1 && (c == 'l' || (read(ch->ack, &r, 1) == 1 && r == c)) ? 0 : -1;
}

static void end_child(child *ch)
{
    char c = 'q';
    if (write(ch->cmd, &c, 1) != 1)
        kill(ch->pid, SIGKILL);
    waitpid(ch->pid, NULL, 0);
    close(ch->cmd);
    close(ch->ack);
}

/* Published values are read as the provider wrote them; Requests/sec over
 * two collects is the increment over the time between them. */
static void test_publish_and_rate(void)
{
    child ch;
    pl_sample *s0 = NULL, *s1 = NULL;
    CHECK(start_child(&ch) == 0);
    pl_env *env = pl_env_new(NULL);   /* discovery runs when the environment syncs */
    CHECK(pl_env_find(env, "MyApp Requests") != NULL);
    pl_query *q = query_path(env, "\\MyApp Requests(*)\\*");
    CHECK(q != NULL);
    if (!q)
        goto out;
    CHECK(pl_query_collect(q, &s0) == 0);
    CHECK(tell(&ch, 'a') == 0);
    CHECK(pl_query_collect(q, &s1) == 0);
    if (!s0 || !s1)
        goto out;
    const pl_block *b1 = &s1->blocks[0];
    CHECK_EQ_U64(b1->status, PL_VALID);
    CHECK_EQ_U64(b1->ninst, 2);
    CHECK_EQ_U64(b1->ncounters, 3);
    for (uint32_t i = 0; i < b1->ninst; i++) {
        const pl_pair *v = &s1->vals[b1->vals_off + (size_t)i * 3];
        const char *name = pl_sample_inst_name(s1, b1, i);
        if (strcmp(name, "worker-1") == 0) {
            CHECK_EQ_U64(pl_sample_inst_id(s1, b1, i), 1);
            CHECK_EQ_U64(v[0].v, 1100);
            CHECK_EQ_U64(v[1].v, 7);
            CHECK_EQ_U64(v[2].v, 5000000000ull);
            double rate;
            const pl_block *b0 = pl_sample_pair(s1, b1, s0);
            CHECK(b0 != NULL);
            CHECK_EQ_U64(pl_sample_format(s1, b1, i, 0, s0, NULL, &rate), PL_VALID);
            /* 100 requests over the time between the two reads of the set */
            double secs = (double)(b1->time - b0->time) / (double)s1->perf_freq;
            CHECK_NEAR(rate, 100.0 / secs, 1e-9 * rate);
        } else {
            CHECK_STR(name, "worker-2");
            CHECK_EQ_U64(v[0].v, 5);
            CHECK_EQ_U64(v[1].v, 3);       /* 4 added, 1 taken away */
        }
    }
out:
    free(s0);
    free(s1);
    pl_query_free(q);
    pl_env_unref(env);
    end_child(&ch);
}

/* Entries of the segment directory that name pid's segments. */
static unsigned links_of(pid_t pid)
{
    char part[32];
    unsigned n = 0;
    DIR *dp = opendir(seg_dir_path);
    struct dirent *de;
    snprintf(part, sizeof part, ".%ld.", (long)pid);
    while (dp && (de = readdir(dp)) != NULL)
        n += strstr(de->d_name, part) != NULL;
    if (dp)
        closedir(dp);
    return n;
}

/* A provider killed while it updates: its segment stays, its counterset
 * fails with a sentence, and no value is given as valid. */
static void test_dies_mid_update(void)
{
    child ch;
    pl_sample *s = NULL;
    struct timespec ms = { 0, 20 * 1000000 };
    CHECK(start_child(&ch) == 0);
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\MyApp Requests(worker-1)\\Total");
    CHECK(q != NULL);
    CHECK(tell(&ch, 'l') == 0);
    nanosleep(&ms, NULL);
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID);
    free(s);
    s = NULL;
    kill(ch.pid, SIGKILL);
    nanosleep(&ms, NULL);              /* a zombie now: its pid still there, its pidfd readable */
    CHECK(q && pl_query_collect(q, &s) == 0);
    if (s) {
        CHECK_EQ_U64(s->blocks[0].status, PL_NO_DATA);
        CHECK_EQ_U64(s->blocks[0].ninst, 0);
        CHECK(s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "has exited"));
        CHECK(s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "remains"));
    }
    free(s);
    s = NULL;
    waitpid(ch.pid, NULL, 0);          /* reaped: the pid is gone */
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_NO_DATA && s->blocks[0].ninst == 0);
    free(s);
    /* its link stays until the next provider of this user starts, which sweeps it */
    CHECK_EQ_U64(links_of(ch.pid), 1);
    HANDLE next = start_set(0xa000000f, "Sweeper", PERF_COUNTERSET_SINGLE_INSTANCE);
    CHECK(next != NULL);
    CHECK_EQ_U64(links_of(ch.pid), 0);
    if (next)
        PerfStopProvider(next);
    pl_query_free(q);
    pl_env_unref(env);
    close(ch.cmd);
    close(ch.ack);
}

/* A provider that stops removes its segment: the set says so.  A new one
 * with the same definition takes the set over, within one collect. */
static void test_stop_and_restart(void)
{
    child ch, ch2;
    pl_sample *s = NULL;
    CHECK(start_child(&ch) == 0);
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\MyApp Requests(worker-2)\\Active");
    CHECK(q != NULL);
    CHECK(tell(&ch, 's') == 0);
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_NO_DATA);
    CHECK(s && s->blocks[0].err_msg && strstr(s->blocks[0].err_msg, "has stopped"));
    free(s);
    s = NULL;
    end_child(&ch);
    CHECK(start_child(&ch2) == 0);
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].status == PL_VALID && s->blocks[0].ninst == 1);
    CHECK(s && s->vals[s->blocks[0].vals_off].v == 3);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    end_child(&ch2);
}

/* Thousands of instances created and deleted: records are reused, so the
 * segment does not grow with the churn, and a read sees exactly the live ones. */
static void test_instance_churn(void)
{
    HANDLE h = start_set(0xa0000002, "Churn Set", PERF_COUNTERSET_MULTI_INSTANCES);
    GUID g = set_guid(0xa0000002);
    static PPERF_COUNTERSET_INSTANCE inst[5000];
    char name[32];
    struct stat st1, st2;
    pl_sample *s = NULL;
    CHECK(h != NULL);
    if (!h)
        return;
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 5000; i++) {
            snprintf(name, sizeof name, "conn-%d", i);
            inst[i] = PerfCreateInstanceUtf8(h, &g, name, (ULONG)i);
        }
        if (round == 0)
            stat(PerfProviderSegmentPath(h), &st1);
        for (int i = 0; i < 5000; i++)
            CHECK(PerfDeleteInstance(h, inst[i]) == ERROR_SUCCESS);
    }
    stat(PerfProviderSegmentPath(h), &st2);
    CHECK_EQ_U64(st2.st_size, st1.st_size);
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "conn-%d", i);
        inst[i] = PerfCreateInstanceUtf8(h, &g, name, (ULONG)i);
        PerfSetULongLongCounterValue(h, inst[i], 3, (ULONGLONG)i * 3);
    }
    CHECK(PerfDeleteInstance(h, inst[999]) == ERROR_SUCCESS);
    CHECK(PerfDeleteInstance(h, inst[999]) == ERROR_NOT_FOUND);   /* already free */
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\Churn Set(*)\\Total");
    CHECK(q && pl_query_collect(q, &s) == 0);
    if (s) {
        const pl_block *b = &s->blocks[0];
        uint64_t sum = 0;
        CHECK_EQ_U64(b->ninst, 999);
        for (uint32_t i = 0; i < b->ninst; i++)
            sum += s->vals[b->vals_off + i].v;
        CHECK_EQ_U64(sum, 3ull * 998 * 999 / 2);    /* 3 x (0 + 1 + ... + 998) */
    }
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(h);
}

/* A provider started after the environment was made: a query add of its
 * path finds it (the add syncs, which runs the discoverer), no restart. */
static void test_visible_to_next_add(void)
{
    pl_env *env = pl_env_new(NULL);
    HANDLE h = start_set(0xa0000005, "Late Set", PERF_COUNTERSET_SINGLE_INSTANCE);
    GUID g = set_guid(0xa0000005);
    PPERF_COUNTERSET_INSTANCE i = h ? PerfCreateInstanceUtf8(h, &g, "_Default", 0) : NULL;
    pl_sample *s = NULL;
    CHECK(i && PerfSetULongLongCounterValue(h, i, 3, 31) == 0);
    pl_query *q = query_path(env, "\\Late Set\\Total");
    CHECK(q && pl_query_collect(q, &s) == 0);
    CHECK(s && s->blocks[0].ninst == 1 && s->vals[s->blocks[0].vals_off].v == 31);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(h);
}

/* The library's own argument checks, with Windows' error codes. */
static void test_api_errors(void)
{
    GUID p = { 0x9e000001, 0, 0, { 0 } }, g = set_guid(0xa0000003), other = set_guid(0xa00000ff);
    HANDLE h = NULL;
    tmpl3 t = make_tmpl(0xa0000003, PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK_EQ_U64(PerfStartProvider(NULL, NULL, &h), ERROR_INVALID_PARAMETER);
    CHECK_EQ_U64(PerfStartProvider(&p, NULL, NULL), ERROR_INVALID_PARAMETER);
    PERF_PROVIDER_CONTEXT ctx = { 0, 0, NULL, NULL, NULL, NULL };
    CHECK_EQ_U64(PerfStartProviderEx(&p, &ctx, &h), ERROR_INVALID_PARAMETER);
    ctx.ContextSize = sizeof ctx;
    CHECK_EQ_U64(PerfStartProviderEx(&p, &ctx, &h), ERROR_SUCCESS);
    t.info.NumCounters = 0;
    CHECK_EQ_U64(PerfSetCounterSetInfo(h, &t.info, sizeof t), ERROR_INVALID_PARAMETER);
    t.info.NumCounters = 3;
    t.c[1].Offset = 4;                 /* overlaps counter 1 */
    CHECK_EQ_U64(PerfSetCounterSetInfo(h, &t.info, sizeof t), ERROR_INVALID_PARAMETER);
    t.c[1].Offset = 8;
    CHECK_EQ_U64(PerfSetCounterSetInfo(h, &t.info, sizeof t), ERROR_SUCCESS);
    CHECK_EQ_U64(PerfSetCounterSetInfo(h, &t.info, sizeof t), ERROR_ALREADY_EXISTS);
    CHECK(PerfCreateInstance(h, NULL, u"x", 1) == NULL && PerfGetLastError() == ERROR_INVALID_PARAMETER);
    CHECK(PerfCreateInstance(h, &other, u"x", 1) == NULL && PerfGetLastError() == ERROR_NOT_FOUND);
    CHECK(PerfCreateInstance(h, &g, NULL, 1) == NULL && PerfGetLastError() == ERROR_INVALID_PARAMETER);
    PPERF_COUNTERSET_INSTANCE i = PerfCreateInstance(h, &g, u"11", 4);
    CHECK(i != NULL);
    if (i) {
        /* Windows' instance block: name after the 24-byte counter area, its size with the NUL */
        CHECK_EQ_U64(i->InstanceId, 4);
        CHECK_EQ_U64(i->InstanceNameSize, 6);
        CHECK_EQ_U64(i->InstanceNameOffset, 32 + 24);
        CHECK_EQ_U64(i->dwSize, 32 + 24 + 8);
        CHECK_EQ_U64(PerfSetULongLongCounterValue(h, i, 9, 1), ERROR_NOT_FOUND);
        CHECK_EQ_U64(PerfSetCounterRefValue(h, i, 1, &p), ERROR_INVALID_PARAMETER);   /* not by reference */
    }
    CHECK_EQ_U64(PerfStopProvider(h), ERROR_SUCCESS);
}

/* Units a publisher declares (PERFLIB_COUNTERSET_NAMES' CounterUnits and
 * CounterSemantics) reach the reader's definitions and metric names; an
 * unknown unit, or a semantics the type contradicts, refuses the set. */
static HANDLE start_units(uint32_t d1, const char *name, const char *u0, const char *s0, const char *s1)
{
    struct {
        PERF_COUNTERSET_INFO info;
        PERF_COUNTER_INFO c[2];
    } t = { { set_guid(d1), { 0 }, 2, PERF_COUNTERSET_SINGLE_INSTANCE },
            { { 1, PERF_COUNTER_LARGE_RAWCOUNT, 0, 8, PERF_DETAIL_NOVICE, 0, 0 },
              { 2, PERF_COUNTER_BULK_COUNT, 0, 8, PERF_DETAIL_NOVICE, 0, 8 } } };
    static const char *const cn[] = { "Queue Size", "Wait Time" };
    const char *units[] = { u0, "ms" }, *sems[] = { s0, s1 };
    PERFLIB_COUNTERSET_NAMES nm = { name, NULL, cn, NULL, units, sems };
    return start_tmpl(d1, &t.info, sizeof t, &nm);
}

static void test_declared_units(void)
{
    HANDLE good = start_units(0xa0000010, "Units Declared", "KiB", "gauge", NULL);
    HANDLE unknown = start_units(0xa0000011, "Units Unknown", "furlongs", NULL, NULL);
    HANDLE contra = start_units(0xa0000012, "Units Contradicted", "bytes", NULL, "gauge");
    char name[PL_METRIC_NAME_MAX];
    pl_metric m;
    CHECK(good && unknown && contra);
    pl_env *env = pl_env_new(NULL);
    const pl_counterset_def *cs = pl_env_find(env, "Units Declared");
    CHECK(cs != NULL);
    if (cs) {
        CHECK_EQ_U64(cs->counters[0].unit, PL_UNIT_BYTES);
        CHECK(cs->counters[0].unit_scale == 1024);
        CHECK_EQ_U64(cs->counters[0].semantics, PL_SEM_GAUGE);
        CHECK_EQ_U64(cs->counters[1].unit, PL_UNIT_SECONDS);
        CHECK(cs->counters[1].unit_scale == 1e-3);
        CHECK_EQ_U64(cs->counters[1].semantics, PL_SEM_UNDECLARED);
        pl_units u;
        pl_counter_units(&cs->counters[1], &u);
        CHECK_EQ_U64(u.semantics, PL_SEM_COUNTER);                  /* BULK_COUNT's own */
        CHECK(pl_metric_name(cs, &cs->counters[0], name, sizeof name, &m) == 0);
        CHECK_STR(name, "perflib_units_declared_queue_size_bytes");
        CHECK(m.factor == 1024 && strcmp(m.type, "gauge") == 0);
        CHECK(pl_metric_name(cs, &cs->counters[1], name, sizeof name, &m) == 0);
        CHECK_STR(name, "perflib_units_declared_wait_time_seconds_total");
        CHECK(m.factor == 1e-3 && strcmp(m.type, "counter") == 0);
    }
    CHECK(pl_env_find(env, "Units Unknown") == NULL && refused("has a unit or semantics perflib does not know"));
    /* a rate type (BULK_COUNT) declared a gauge: its rate needs a cumulative raw value */
    CHECK(pl_env_find(env, "Units Contradicted") == NULL && refused("must be cumulative"));
    pl_env_unref(env);
    PerfStopProvider(good);
    PerfStopProvider(unknown);
    PerfStopProvider(contra);
}

/* By-reference counters: the reader reads the provider's own variables; one
 * whose address cannot be read is absent, not a number. */
static void test_reference_values(void)
{
    static uint64_t big = 123456789012ull;
    static uint32_t small = 77;
    struct {
        PERF_COUNTERSET_INFO info;
        PERF_COUNTER_INFO c[3];
    } t = { { set_guid(0xa0000004), { 0 }, 3, PERF_COUNTERSET_MULTI_INSTANCES },
            { { 1, PERF_COUNTER_LARGE_RAWCOUNT, PERF_ATTRIB_BY_REFERENCE, 8, PERF_DETAIL_NOVICE, 0, 0 },
              { 2, PERF_COUNTER_RAWCOUNT, PERF_ATTRIB_BY_REFERENCE, 8, PERF_DETAIL_NOVICE, 0, 8 },
              { 3, PERF_COUNTER_RAWCOUNT, PERF_ATTRIB_BY_REFERENCE, 8, PERF_DETAIL_NOVICE, 0, 16 } } };
    static const char *const names[] = { "Big", "Small", "Nowhere" };
    PERFLIB_COUNTERSET_NAMES nm = { "Ref Set", NULL, names, NULL, NULL, NULL };
    GUID p = { 0x9e000004, 0, 0, { 0 } };
    HANDLE h = NULL;
    pl_sample *s = NULL;
    CHECK(PerfStartProvider(&p, NULL, &h) == 0 && PerfSetCounterSetInfoEx(h, &t.info, sizeof t, &nm) == 0);
    PPERF_COUNTERSET_INSTANCE i = PerfCreateInstance(h, &t.info.CounterSetGuid, u"self", 1);
    CHECK(i && PerfSetCounterRefValue(h, i, 1, &big) == 0 && PerfSetCounterRefValue(h, i, 2, &small) == 0);
    CHECK(PerfSetCounterRefValue(h, i, 3, (void *)(uintptr_t)8) == 0);
    CHECK_EQ_U64(PerfSetULongLongCounterValue(h, i, 1, 5), ERROR_INVALID_PARAMETER);   /* by reference */
    CHECK_EQ_U64(PerfSetCounterRefValue(h, i, 7, &big), ERROR_NOT_FOUND);
    pl_env *env = pl_env_new(NULL);
    pl_query *q = query_path(env, "\\Ref Set(self)\\*");
    for (int round = 0; round < 2 && q; round++) {
        CHECK(pl_query_collect(q, &s) == 0);
        if (!s)
            break;
        const pl_block *b = &s->blocks[0];
        double v;
        CHECK_EQ_U64(b->ninst, 1);
        CHECK_EQ_U64(s->vals[b->vals_off].v, big);
        CHECK_EQ_U64(s->vals[b->vals_off + 1].v, small);
        CHECK_EQ_U64(pl_sample_format(s, b, 0, 2, NULL, NULL, &v), PL_NO_DATA);
        free(s);
        s = NULL;
        big += 1000;
        small = 4000000000u;
    }
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(h);
}

int main(void)
{
    use_seg_dir();
    RUN(test_api_errors);
    RUN(test_publish_and_rate);
    RUN(test_dies_mid_update);
    RUN(test_stop_and_restart);
    RUN(test_instance_churn);
    RUN(test_reference_values);
    RUN(test_declared_units);
    RUN(test_visible_to_next_add);
    rm_seg_dir();
    return CT_END();
}
