/* The PerfLib V2 C API with szMachine = u"127.0.0.1:PORT" against a real
 * `perflua serve` this test starts (build/perflua, behind a token): the
 * remote's countersets, a stable counter equal to the local read, a refused
 * token, a name that is no machine, and a daemon killed under an open handle
 * (its results then fail, within the timeout, without a crash). */
#include "ctest.h"
#include "capi_read.h"
#include "pl_capi.h"
#include "serve_daemon.h"

#include <string.h>
#include <time.h>

static const GUID PROC = { 0xb4fc721a, 0x0378, 0x476f, { 0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36 } };
static GUID memory;                     /* Memory's GUID, from this machine */
static ULONG commit_limit;              /* Memory\Commit Limit's counter id */
static WCHAR host[64];                  /* u"127.0.0.1:PORT" */
static serve_daemon served;
static char dir[] = "/tmp/pl-capi-remote-XXXXXX";

static void widen(WCHAR *w, const char *s)
{
    while ((*w++ = (WCHAR)(unsigned char)*s++) != 0)
        ;
}

/* Starts perflua serve with a token file; 0 or -1. */
static int start_daemon(void)
{
    char tok[128], name[64];
    FILE *f;
    if (!mkdtemp(dir) || snprintf(tok, sizeof tok, "%s/token", dir) < 0 || !(f = fopen(tok, "w")))
        return -1;
    fputs("capi-t0ken\n", f);
    fclose(f);
    if (serve_daemon_start(&served, tok) != 0)
        return -1;
    snprintf(name, sizeof name, "127.0.0.1:%u", served.port);
    widen(host, name);
    return 0;
}

static void test_token(void)
{
    HANDLE h;
    unsetenv("PERFLIB_REMOTE_TOKEN");
    CHECK_EQ_U64(PerfOpenQueryHandle(host, &h), ERROR_ACCESS_DENIED);
    setenv("PERFLIB_REMOTE_TOKEN", "wrong", 1);
    CHECK_EQ_U64(PerfOpenQueryHandle(host, &h), ERROR_ACCESS_DENIED);
    setenv("PERFLIB_REMOTE_TOKEN", "capi-t0ken", 1);
    CHECK_EQ_U64(PerfOpenQueryHandle(host, &h), ERROR_SUCCESS);
    CHECK_EQ_U64(PerfCloseQueryHandle(h), ERROR_SUCCESS);
}

static void test_countersets(void)
{
    GUID ids[256];
    DWORD n = 0;
    int proc = 0, mem = 0;
    CHECK_EQ_U64(PerfEnumerateCounterSet(host, NULL, 0, &n), ERROR_NOT_ENOUGH_MEMORY);
    CHECK(n > 2 && n <= 256);
    CHECK_EQ_U64(PerfEnumerateCounterSet(host, ids, n, &n), ERROR_SUCCESS);
    for (DWORD i = 0; i < n && i < 256; i++) {
        proc += memcmp(&ids[i], &PROC, sizeof PROC) == 0;
        mem += memcmp(&ids[i], &memory, sizeof memory) == 0;
    }
    CHECK_EQ_U64(proc, 1);
    CHECK_EQ_U64(mem, 1);
}

static void test_value(void)
{
    int ok_here = 0, ok_there = 0;
    uint64_t here = capi_machine_value(NULL, &memory, commit_limit, &ok_here);
    uint64_t there = capi_machine_value(host, &memory, commit_limit, &ok_there);
    CHECK(ok_here && ok_there);
    CHECK_EQ_U64(there, here);
    CHECK(here > 0);
    /* the same through u"\\\\127.0.0.1:PORT" */
    WCHAR unc[72] = { '\\', '\\' };
    memcpy(unc + 2, host, sizeof host - 2 * sizeof(WCHAR));
    CHECK_EQ_U64(capi_machine_value(unc, &memory, commit_limit, &ok_there), here);
    CHECK(ok_there);
}

static void test_bad_names(void)
{
    HANDLE h;
    CHECK_EQ_U64(PerfOpenQueryHandle(u"127.0.0.1:1", &h), ERROR_BAD_NETPATH);   /* nobody there */
    CHECK_EQ_U64(PerfOpenQueryHandle(u"no host/at all", &h), ERROR_BAD_NETPATH);
}

static void test_killed(void)
{
    HANDLE h;
    PERF_COUNTER_IDENTIFIER id;
    uint8_t data[4096];
    DWORD size = 0;
    memset(&id, 0, sizeof id);
    id.CounterSetGuid = memory;
    id.Size = sizeof id;
    id.CounterId = commit_limit;
    id.InstanceId = 0xFFFFFFFFu;
    CHECK_EQ_U64(PerfOpenQueryHandle(host, &h), ERROR_SUCCESS);
    CHECK_EQ_U64(PerfAddCounters(h, &id, sizeof id), ERROR_SUCCESS);
    CHECK_EQ_U64(PerfQueryCounterData(h, (PPERF_DATA_HEADER)(void *)data, sizeof data, &size), ERROR_SUCCESS);
    CHECK_EQ_U64(capi_u32(data, 48), ERROR_SUCCESS);
    serve_daemon_kill(&served);
    time_t t0 = time(NULL);
    CHECK_EQ_U64(PerfQueryCounterData(h, (PPERF_DATA_HEADER)(void *)data, sizeof data, &size), ERROR_SUCCESS);
    CHECK(time(NULL) - t0 < 6);
    CHECK(capi_u32(data, 48) != ERROR_SUCCESS);      /* the result failed: dwStatus says why */
    CHECK_EQ_U64(PerfCloseQueryHandle(h), ERROR_SUCCESS);
}

int main(void)
{
    ULONG err;
    char cmd[128];
    pl_capi_lock();
    pl_env *env = pl_capi_local(&err);
    pl_capi_unlock();
    const pl_counterset_def *cs = env ? pl_env_find(env, "Memory") : NULL;
    int ci = cs ? pl_counter_index_by_name(cs, "Commit Limit") : -1;
    if (ci < 0 || start_daemon() != 0) {
        fprintf(stderr, "no Memory\\Commit Limit here, or perflua serve did not start\n");
        return 1;
    }
    memcpy(&memory, &cs->guid, sizeof memory);
    commit_limit = cs->counters[ci].id;
    pl_env_unref(env);
    RUN(test_token);
    RUN(test_countersets);
    RUN(test_value);
    RUN(test_bad_names);
    RUN(test_killed);
    serve_daemon_kill(&served);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return CT_END();
}
