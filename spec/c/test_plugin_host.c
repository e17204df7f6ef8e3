/* The out-of-process plug-in host and its guards (issue 11, items 4 and 7):
 * pl_plughost_* against the deliberately broken plug-in
 * build/test-plugins/bad.so (spec/c/plugins/bad.c), whose first export
 * string picks the misbehaviour.  Each guard: its errno, a message that
 * says what happened, the host restarted on the next call, the consumer
 * never killed, and the guard's switch off letting the case through. */
#include "ctest.h"
#include "plugin_host.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char plugdir[4200];
static char marker[64];

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* build/test-plugins, found from this binary (build/ctest or build/san/ctest) */
static int find_plugins(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -1;
        *slash = 0;
        snprintf(plugdir, sizeof plugdir, "%s/test-plugins", exe);
        char probe[4300];
        snprintf(probe, sizeof probe, "%s/bad.so", plugdir);
        if (access(probe, R_OK) == 0)
            return 0;
    }
    return -1;
}

static char lib_path[4400];
static const char *exports[2];

/* A spec for bad.so in mode with arg as its second export (the marker). */
static pl_plug_spec spec_for(const char *lib, const char *mode, const char *arg)
{
    snprintf(lib_path, sizeof lib_path, "%s/%s", plugdir, lib);
    exports[0] = mode;
    exports[1] = arg;
    pl_plug_spec s = {
        .library = lib_path, .open_fn = "BadOpen", .collect_fn = "BadCollect", .close_fn = "BadClose",
        .exports = exports, .nexports = arg ? 2 : 1,
        .first_counter = 5000, .first_help = 5001, .last_counter = 5010, .last_help = 5011,
        .open_timeout_ms = 3000, .collect_timeout_ms = 3000, .max_buffer = 1u << 20,
        .guards = { .test_level = 4, .check_alignment = 1, .check_buffers = 1, .check_timeouts = 1 },
    };
    return s;
}

typedef struct outcome {
    int rc;
    const uint8_t *data;
    size_t len;
    uint32_t nobjs;
    char msg[600];
    double ms;
} outcome;

static outcome collect(pl_plughost *h, const char *query)
{
    outcome o = { 0 };
    double t0 = now_ms();
    o.rc = pl_plughost_collect(h, query, &o.data, &o.len, &o.nobjs, o.msg, sizeof o.msg);
    o.ms = now_ms() - t0;
    if (o.rc)
        printf("    (%s)\n", o.msg);
    return o;
}

static pl_plughost *host(const pl_plug_spec *s)
{
    pl_plughost *h = NULL;
    CHECK(pl_plughost_new(s, &h) == 0);
    return h;
}

/* One call in mode with the given guards; returns its outcome, host freed. */
static outcome once(const char *mode, pl_plug_guards g)
{
    pl_plug_spec s = spec_for("bad.so", mode, NULL);
    s.guards = g;
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    pl_plughost_free(h);
    return o;
}

static const pl_plug_guards ALL = { 4, 1, 1, 1 };

/* One call in mode fails with rc and a message containing says. */
static void expect(const char *mode, pl_plug_guards g, int rc, const char *says)
{
    outcome o = once(mode, g);
    if (o.rc != rc || !strstr(o.msg, says))
        fprintf(stderr, "  mode %s: rc %d, expected %d saying \"%s\"\n", mode, o.rc, rc, says);
    CHECK(o.rc == rc);
    CHECK(strstr(o.msg, says) != NULL);
}

static uint32_t u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static int read_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    int pid = 0;
    if (f) {
        if (fscanf(f, "%d", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return pid;
}

static void test_good_object_query_env(void)
{
    pl_plug_spec s = spec_for("bad.so", "good", NULL);
    pl_plughost *h = host(&s);
    CHECK(pl_plughost_pid(h) == 0);              /* started on first use */
    outcome o = collect(h, "Global");
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 120);
    CHECK_EQ_U64(o.nobjs, 1);
    int pid = pl_plughost_pid(h);
    CHECK(pid > 0);
    if (o.rc == 0 && o.len == 120) {
        CHECK_EQ_U64(u32(o.data), 120);          /* TotalByteLength */
        CHECK_EQ_U64(u32(o.data + 12), 5000);    /* PERFLIB_FIRST_COUNTER reached Open's process */
        CHECK_EQ_U64(u32(o.data + 20), 5001);
        uint64_t v;
        memcpy(&v, o.data + 112, 8);             /* the query as UTF-16: length, last, first unit */
        CHECK_EQ_U64(v, (6ull << 32) | ('l' << 16) | 'G');
    }
    o = collect(h, "1000 1008");
    CHECK(o.rc == 0);
    if (o.rc == 0 && o.len == 120) {
        uint64_t v;
        memcpy(&v, o.data + 112, 8);
        CHECK_EQ_U64(v, (9ull << 32) | ('8' << 16) | '1');
    }
    CHECK(pl_plughost_pid(h) == pid);            /* one host for many calls */
    pl_plughost_free(h);
}

static void test_empty_answer_is_fine(void)
{
    outcome o = once("empty", ALL);
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 0);
    CHECK_EQ_U64(o.nobjs, 0);
}

/* a host for bad.so in mode, with a fresh marker file /tmp/..._tag as its second export */
static pl_plughost *marked_host(const char *mode, const char *tag)
{
    snprintf(marker, sizeof marker, "/tmp/pl_plughost_%d_%s", (int)getpid(), tag);
    unlink(marker);
    pl_plug_spec s = spec_for("bad.so", mode, marker);
    return host(&s);
}

/* a crash is the host's: the consumer goes on, the next call starts a new host */
static void test_crash_then_restart(void)
{
    pl_plughost *h = marked_host("crashonce", "crash");
    outcome o = collect(h, "Global");
    CHECK(o.rc == ECHILD);
    CHECK(strstr(o.msg, "bad.so") && strstr(o.msg, "died in Collect"));
    CHECK(strstr(o.msg, "Segmentation fault") != NULL);
    CHECK(pl_plughost_pid(h) == 0);
    int first = read_pid(marker);
    o = collect(h, "Global");
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 120);
    CHECK(first > 0 && pl_plughost_pid(h) > 0 && pl_plughost_pid(h) != first);
    pl_plughost_free(h);
    unlink(marker);
}

static void test_guard_page_catches_big_overrun(void)
{
    pl_plug_guards g = ALL;
    g.test_level = 1;
    expect("bigoverrun", g, ECHILD, "Segmentation fault");
}

static void test_canary_catches_overrun(void)
{
    pl_plug_guards g = ALL;
    g.test_level = 2;
    expect("overrun", g, EFAULT, "wrote past its buffer of 65536 bytes");
    g.check_buffers = 0;                         /* "don't check buffers": it goes through */
    outcome o = once("overrun", g);
    CHECK(o.rc == 0);
}

static void test_exit_status(void)
{
    expect("exit", ALL, ECHILD, "exited with status 3");
}

/* mode hangs in Open or Collect: ETIMEDOUT after about the timeout, host gone */
static void check_timeout(const char *mode, const char *arg, unsigned open_ms, unsigned collect_ms,
                          const char *says)
{
    pl_plug_spec s = spec_for("bad.so", mode, arg);
    s.open_timeout_ms = open_ms;
    s.collect_timeout_ms = collect_ms;
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    CHECK(o.rc == ETIMEDOUT);
    CHECK(strstr(o.msg, says) != NULL);
    CHECK(o.ms >= 290 && o.ms < 2000);
    CHECK(pl_plughost_pid(h) == 0);
    pl_plughost_free(h);
}

static void test_collect_timeout(void)
{
    snprintf(marker, sizeof marker, "/tmp/pl_plughost_%d_hang", (int)getpid());
    check_timeout("hang", marker, 3000, 300, "Collect did not return within 300 ms");
    int pid = read_pid(marker);
    CHECK(pid > 0 && kill(pid, 0) != 0 && errno == ESRCH);   /* killed and reaped */
    unlink(marker);
}

static void test_open_timeout(void)
{
    check_timeout("slowopen", NULL, 300, 3000, "Open did not return within 300 ms");
}

/* "don't check timeouts": a slow Collect is waited for */
static void test_timeouts_off(void)
{
    pl_plug_spec s = spec_for("bad.so", "slowcollect", NULL);
    s.collect_timeout_ms = 100;
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    CHECK(o.rc == ETIMEDOUT);
    pl_plughost_free(h);
    s.guards.check_timeouts = 0;
    h = host(&s);
    o = collect(h, "Global");
    CHECK(o.rc == 0);
    CHECK(o.ms >= 450);
    pl_plughost_free(h);
}

static void test_more_data_grows(void)
{
    pl_plug_spec s = spec_for("bad.so", "big", NULL);
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 200 * 1024);
    CHECK_EQ_U64(o.nobjs, 1);
    if (o.rc == 0)
        CHECK_EQ_U64(u32(o.data), 200 * 1024);
    o = collect(h, "Global");                    /* again, at the size that worked */
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 200 * 1024);
    pl_plughost_free(h);
}

static void test_more_data_forever(void)
{
    pl_plug_spec s = spec_for("bad.so", "moredata", NULL);
    s.max_buffer = 256 * 1024;
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    CHECK(o.rc == EOVERFLOW);
    CHECK(strstr(o.msg, "ERROR_MORE_DATA up to 262144 bytes") != NULL);
    pl_plughost_free(h);
}

static void test_call_checks(void)
{
    expect("badcode", ALL, EPROTO, "Collect returned 5");
    expect("badptr", ALL, EPROTO, "moved its pointer by 112 bytes but returned a length of 120");
    expect("badcount", ALL, EPROTO, "returned 0 objects in 120 bytes");
    expect("moredatadirty", ALL, EPROTO, "ERROR_MORE_DATA with length 120");
    expect("badlen", ALL, EPROTO, "length of 65544 bytes for a buffer of 65536");
}

static void test_alignment_and_switches(void)
{
    expect("unaligned", ALL, EPROTO, "length of 44 bytes, not a multiple of 8");
    pl_plug_guards g = ALL;
    g.check_alignment = 0;                       /* "skip alignment tests" */
    outcome o = once("unaligned", g);
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 44);
    g = ALL;
    g.check_buffers = 0;                         /* "don't check buffers" */
    o = once("unaligned", g);
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 44);
    g = ALL;
    g.test_level = 3;                            /* ExtCounterTestLevel 3: no tests */
    o = once("unaligned", g);
    CHECK(o.rc == 0);
    CHECK_EQ_U64(o.len, 44);
    o = once("badptr", g);
    CHECK(o.rc == 0);
}

static void test_open_failures(void)
{
    expect("openfail", ALL, EPROTO, "Open returned 5");

    pl_plug_spec s = spec_for("nocollect.so", "good", NULL);
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    CHECK(o.rc == ENOENT);
    CHECK(strstr(o.msg, "no function BadCollect") != NULL);
    pl_plughost_free(h);

    s = spec_for("missing.so", "good", NULL);
    h = host(&s);
    o = collect(h, "Global");
    CHECK(o.rc == ENOENT);
    CHECK(strstr(o.msg, "cannot load") && strstr(o.msg, "missing.so"));
    pl_plughost_free(h);
}

static void test_host_program_missing(void)
{
    setenv("PERFLIB_PLUGIN_HOST", "/nonexistent/perflib-plugin-host", 1);
    pl_plug_spec s = spec_for("bad.so", "good", NULL);
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    CHECK(o.rc == ENOENT);
    CHECK(strstr(o.msg, "/nonexistent/perflib-plugin-host") != NULL);
    unsetenv("PERFLIB_PLUGIN_HOST");
    o = collect(h, "Global");
    CHECK(o.rc == 0);
    pl_plughost_free(h);
}

/* a request to a host that just died: EPIPE, never SIGPIPE (left at its
 * default here, so it would end this test) */
static void test_dead_host_no_sigpipe(void)
{
    signal(SIGPIPE, SIG_DFL);
    pl_plug_spec s = spec_for("bad.so", "good", NULL);
    pl_plughost *h = host(&s);
    outcome o = collect(h, "Global");
    CHECK(o.rc == 0);
    int pid = pl_plughost_pid(h);
    CHECK(pid > 0);
    if (pid > 0)
        kill(pid, SIGKILL);
    usleep(50 * 1000);
    o = collect(h, "Global");
    CHECK(o.rc == ECHILD);
    CHECK(strstr(o.msg, "Killed") != NULL);
    o = collect(h, "Global");
    CHECK(o.rc == 0);
    CHECK(pl_plughost_pid(h) > 0 && pl_plughost_pid(h) != pid);
    pl_plughost_free(h);
}

static void test_sigchld_ignored(void)
{
    struct sigaction old, ign = { .sa_handler = SIG_IGN };
    sigaction(SIGCHLD, &ign, &old);
    expect("crash", ALL, ECHILD, "died in Collect");
    outcome o = once("good", ALL);
    CHECK(o.rc == 0);
    sigaction(SIGCHLD, &old, NULL);
}

/* pid gone or a zombie (an orphan is reaped by whoever adopted it) */
static int ended(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

/* a consumer killed while its plug-in hangs does not leave the host behind */
static void test_host_ends_with_consumer(void)
{
    snprintf(marker, sizeof marker, "/tmp/pl_plughost_%d_orphan", (int)getpid());
    unlink(marker);
    pid_t child = fork();
    if (child == 0) {
        pl_plug_spec s = spec_for("bad.so", "hang", marker);
        s.guards.check_timeouts = 0;
        pl_plughost *h = NULL;
        if (pl_plughost_new(&s, &h) == 0)
            collect(h, "Global");                /* never returns */
        _exit(0);
    }
    int host_pid = 0;
    for (int i = 0; i < 300 && !host_pid; i++, usleep(10000))
        host_pid = read_pid(marker);
    CHECK(host_pid > 0);
    usleep(50000);                               /* in Collect by now */
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    int gone = 0;
    for (int i = 0; i < 300 && host_pid > 0 && !(gone = ended(host_pid)); i++)
        usleep(10000);
    CHECK(gone);
    if (!gone && host_pid > 0)
        kill(host_pid, SIGKILL);
    unlink(marker);
}

/* the san busted pass runs the consumer with LD_PRELOAD of libasan, which
 * the host inherits: a plug-in's crash is still reported as its signal,
 * not as the sanitizer's abort */
static void test_crash_under_preloaded_asan(void)
{
#ifdef CT_LIBASAN
    if (access(CT_LIBASAN, R_OK) != 0)
        return;
    const char *old = getenv("LD_PRELOAD");
    char *saved = old ? strdup(old) : NULL;
    setenv("LD_PRELOAD", CT_LIBASAN, 1);
    setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1", 0);
    expect("crash", ALL, ECHILD, "Segmentation fault");
    outcome o = once("good", ALL);
    CHECK(o.rc == 0);
    if (saved)
        setenv("LD_PRELOAD", saved, 1);
    else
        unsetenv("LD_PRELOAD");
    free(saved);
#endif
}

static void test_stop_calls_close(void)
{
    pl_plughost *h = marked_host("closemark", "close");
    outcome o = collect(h, "Global");
    CHECK(o.rc == 0);
    int pid = pl_plughost_pid(h);
    pl_plughost_stop(h);
    CHECK(pl_plughost_pid(h) == 0);
    CHECK(read_pid(marker) == pid);              /* Close ran, in that host */
    CHECK(kill(pid, 0) != 0 && errno == ESRCH);
    pl_plughost_free(h);
    pl_plughost_free(NULL);
    unlink(marker);
}

int main(void)
{
    if (find_plugins() != 0) {
        fprintf(stderr, "build/test-plugins/bad.so not found (make build/test-plugins/bad.so)\n");
        return 1;
    }
    unsetenv("PERFLIB_PLUGIN_HOST");
    alarm(30);                                   /* a guard that waits forever fails, not hangs */
    RUN(test_good_object_query_env);
    RUN(test_empty_answer_is_fine);
    RUN(test_crash_then_restart);
    RUN(test_guard_page_catches_big_overrun);
    RUN(test_canary_catches_overrun);
    RUN(test_exit_status);
    RUN(test_collect_timeout);
    RUN(test_open_timeout);
    RUN(test_timeouts_off);
    RUN(test_more_data_grows);
    RUN(test_more_data_forever);
    RUN(test_call_checks);
    RUN(test_alignment_and_switches);
    RUN(test_open_failures);
    RUN(test_host_program_missing);
    RUN(test_dead_host_no_sigpipe);
    RUN(test_sigchld_ignored);
    RUN(test_crash_under_preloaded_asan);
    RUN(test_host_ends_with_consumer);
    RUN(test_stop_calls_close);
    return CT_END();
}
