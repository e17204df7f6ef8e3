/* The machine's shared sources seen from Thread and Hardware Events: Thread
 * lists /proc through the machine's process table (ptshare.h), so Process
 * and Thread in one generation list it once and hold one /proc directory fd;
 * Hardware Events' /proc/stat fallback (no sys/.../cpu/online) is the
 * machine's procstat source, read once per generation with Processor.
 * Against the proc-basic and hwev-nosys fixture trees (run from the
 * repository root) and temporary trees. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "procstat.h"
#include "proctable.h"
#include "ptshare.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define FX "spec/fixtures/"

/* Open descriptors of this process ("." ".." and the listing's own aside). */
static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    long n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1;
}

/* Process and Thread in one query: one listing of /proc per collect, and one
 * /proc directory fd besides the per-process and per-thread ones. */
static void test_one_listing(void)
{
    long before = open_fds();
    pl_env *env = pl_env_new(FX "proc-basic");
    pl_query *q = pl_query_new(env);
    pl_sample *s = NULL;
    pl_ptshare *t = pl_ptshare_attach(env);
    CHECK(t != NULL && pl_ptshare_lists(t) == 0);
    qadd(q, "\\Process(*)\\% Processor Time");
    qadd(q, "\\Thread(*)\\% Processor Time");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ptshare_lists(t), 1);
    /* 8 processes + _Total (10 pids: 512 has no stat, 30900's is left out:
     * test_process's test_basic), 7 threads (its test_thread) */
    CHECK_EQ_U64(s->blocks[0].ninst, 9);
    CHECK_EQ_U64(s->blocks[1].ninst, 7);
    /* kept: 9 stat (Process) + 7 task stat and the task/ dirs of 1 2 1162
     * 25423 30473 (Thread); beside them only the machine's one /proc fd */
    CHECK_EQ_U64(pl_pt_kept(), 9 + 7 + 5);
    CHECK_EQ_U64(open_fds() - before - pl_pt_kept(), 1);
    free(s);
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ptshare_lists(t), 2);        /* a new collect lists afresh */
    CHECK_EQ_U64(pl_pt_kept(), 9 + 7 + 5);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    CHECK_EQ_U64(pl_pt_kept(), 0);
    CHECK_EQ_U64(open_fds(), before);
}

/* Thread alone, then with Process in one generation of two queries: the
 * same listing; Thread's values do not depend on who listed. */
static void test_thread_with_process(void)
{
    pl_env *env = pl_env_new(FX "proc-basic");
    pl_query *a = pl_query_new(env), *b = pl_query_new(env);
    pl_sample *sa = NULL, *sb = NULL;
    pl_ptshare *t = pl_ptshare_attach(env);
    pl_env_set_user_hz(env, 100);
    qadd(a, "\\Thread(*)\\ID Thread");
    qadd(b, "\\Process(*)\\ID Process");
    pl_env_begin(env);
    CHECK(pl_query_collect(a, &sa) == 0 && pl_query_collect(b, &sb) == 0);
    pl_env_end(env);
    CHECK_EQ_U64(pl_ptshare_lists(t), 1);
    CHECK_EQ_U64(sa->blocks[0].ninst, 7);
    CHECK_EQ_U64(sb->blocks[0].ninst, 9);
    free(sa);
    free(sb);
    pl_query_free(a);
    pl_query_free(b);
    pl_env_unref(env);
}

static const char *const NOSYS_NAMES[] = { "0", "1", "3", "_Total" };

static void expect_cpus(const pl_snapshot *s, const char *const *names, uint32_t n)
{
    CHECK_EQ_U64(s->ninst, n);
    for (uint32_t i = 0; i < n && i < s->ninst; i++)
        CHECK_STR(pl_snap_name(s, i), names[i]);
}

/* hwev-nosys has no sys/devices/system/cpu/online: its CPUs are the cpuN
 * lines of /proc/stat (0, 1, 3), the one read Processor made. */
static void test_hwevents_procstat(void)
{
    pl_env *env = pl_env_new(FX "hwev-nosys");
    const pl_counterset_def *cs = pl_env_find(env, "Hardware Events");
    pl_ksrc *stat = pl_ksrc_attach(env, &pl_ksrc_stat);
    pl_query *q = pl_query_new(env);
    pl_sample *smp = NULL;
    pl_snapshot snap = { 0 };
    void *st = NULL;
    CHECK(cs != NULL && stat != NULL);
    CHECK(pl_provider_open(cs, env, &st) == 0);
    qadd(q, "\\Processor(*)\\% Processor Time");
    pl_snap_init(&snap, cs);
    pl_env_begin(env);
    CHECK(pl_query_collect(q, &smp) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 1);
    CHECK(cs->ops->instances(st, &snap) == 0);
    pl_env_end(env);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 1);       /* Processor's read, not a second */
    expect_cpus(&snap, NOSYS_NAMES, 4);
    /* outside a generation every call reads afresh */
    CHECK(cs->ops->instances(st, &snap) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 2);
    expect_cpus(&snap, NOSYS_NAMES, 4);
    free(smp);
    pl_snap_free(&snap);
    cs->ops->close(st);
    pl_query_free(q);
    pl_env_unref(env);
}

static void put_tmp(const char *rel, const char *text)
{
    FILE *f = fopen(tmp(rel), "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

/* Bad /proc/stat cpu lines fail the enumeration (EINVAL, path proc/stat);
 * the file changing between calls is followed (a missing file: ENOENT in
 * spec/38-hwevents_spec.lua's hwev-missing). */
static void test_hwevents_stat_lines(void)
{
    static const struct { const char *text; int err; } cases[] = {
        { "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu2 5 6 7 8 9\nintr 1\n", 0 },
        { "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpuX1 1 2 3 4\n", EINVAL },     /* no CPU number */
        { "cpu  1 2 3 4\ncpu0 1 2 3\n", EINVAL },                      /* 3 numbers of 4 */
        { "cpu  1 2 3 4\ncpu65536 1 2 3 4\n", EINVAL },                /* beyond 65535 */
        { "cpu  1 2 3 4\nintr 1\n", EINVAL },                          /* no cpuN line */
        { "", EINVAL },
    };
    static const char *const names[] = { "0", "2", "_Total" };
    pl_env *env;
    const pl_counterset_def *cs;
    pl_snapshot snap = { 0 };
    void *st = NULL;
    ct_tmp_init("test_proc_share");
    mkdir(tmp("proc"), 0700);
    env = pl_env_new(ct_dir);
    cs = pl_env_find(env, "Hardware Events");
    CHECK(cs != NULL && pl_provider_open(cs, env, &st) == 0);
    pl_snap_init(&snap, cs);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int e;
        put_tmp("proc/stat", cases[i].text);
        snap.err_path = NULL;
        e = cs->ops->instances(st, &snap);
        CHECK_EQ_U64(e, cases[i].err);
        if (e)
            CHECK_STR(snap.err_path, "proc/stat");
        else
            expect_cpus(&snap, names, 3);
    }
    pl_snap_free(&snap);
    cs->ops->close(st);
    pl_env_unref(env);
    ct_tmp_remove();
}

int main(void)
{
    RUN(test_one_listing);
    RUN(test_thread_with_process);
    RUN(test_hwevents_procstat);
    RUN(test_hwevents_stat_lines);
    return CT_END();
}
