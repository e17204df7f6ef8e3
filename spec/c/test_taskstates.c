/* Task States: processes by the state letter of /proc/[pid]/stat, their
 * threads and kernel threads, against temporary trees (counts worked out
 * by hand in the comments), with Process in one query (one listing of
 * /proc), and live. */
#include "perflib.h"
#include "pl_provider.h"
#include "ptshare.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stat line through field 24 (rss): state, flags (field 9), threads (20). */
static int stat_of(const char *dir, unsigned pid, const char *comm, char state, unsigned long flags,
                   unsigned threads)
{
    char rel[64], text[256];
    snprintf(rel, sizeof rel, "proc/%u/stat", pid);
    snprintf(text, sizeof text, "%u (%s) %c 1 %u %u 0 -1 %lu 10 0 0 0 5 3 0 0 20 0 %u 0 %u 1000 10\n",
             pid, comm, state, pid, pid, flags, threads, 100 + pid);
    return put(dir, rel, text);
}

/* flags: 0x400100 a user process; 0x208040 and 0x4208060 kernel threads
 * (PF_KTHREAD 0x00200000 set) */
static void make_tree(const char *d)
{
    CHECK(put(d, "proc/uptime", "1000.00 1900.00\n"));
    CHECK(stat_of(d, 1, "systemd", 'S', 0x400100, 1));
    CHECK(stat_of(d, 2, "kthreadd", 'S', 0x208040, 1));
    CHECK(stat_of(d, 3, "kworker/0:0H", 'I', 0x4208060, 1));
    CHECK(stat_of(d, 100, "my prog) R", 'R', 0x400000, 4));   /* a name with ") R" in it */
    CHECK(stat_of(d, 101, "dd", 'D', 0x400000, 1));
    CHECK(stat_of(d, 102, "defunct", 'Z', 0x400004, 1));
    CHECK(stat_of(d, 103, "vim", 'T', 0x400000, 2));
    CHECK(stat_of(d, 104, "gdb-child", 't', 0x400000, 1));
    CHECK(stat_of(d, 105, "old", 'W', 0x400000, 1));          /* 2.6's paging: Other States */
    CHECK(put(d, "proc/106/stat", "106 (cut"));                /* no state: left out */
    /* num_threads (field 20) is no number, the start time is there */
    CHECK(put(d, "proc/107/stat", "107 (half) S 1 107 107 0 -1 4194304 1 0 0 0 1 1 0 0 20 0 x 0 207 "
              "1000 10\n"));
}

static void check_states(const pl_snapshot *s)
{
    /* 10 processes with a state: 1 2 3 100 101 102 103 104 105 107 (106 has none) */
    EXPECT(s, "", "Processes", 10);
    EXPECT(s, "", "Running", 1);        /* 100 */
    EXPECT(s, "", "Sleeping", 3);       /* 1 2 107 */
    EXPECT(s, "", "Disk Sleep", 1);     /* 101 */
    EXPECT(s, "", "Stopped", 1);        /* 103 */
    EXPECT(s, "", "Tracing Stop", 1);   /* 104 */
    EXPECT(s, "", "Zombie", 1);         /* 102 */
    EXPECT(s, "", "Dead", 0);
    EXPECT(s, "", "Idle", 1);           /* 3 */
    EXPECT(s, "", "Parked", 0);
    EXPECT(s, "", "Other States", 1);   /* 105 */
    /* 1 + 1 + 3 + 1 + 1 + 1 + 1 + 0 + 1 + 0 + 1 = 10 = Processes */
    EXPECT(s, "", "Kernel Threads", 2); /* 2 and 3 */
}

static void test_fixture(void)
{
    char dir[] = "/tmp/pl-ts-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    make_tree(dir);
    CHECK(pc_collect_tree(dir, "Task States", 100, 4096, NULL, &s) == 0);
    check_states(&s);
    UNSET(&s, "", "Threads");           /* 107's num_threads is no number: no sum to trust */
    pl_snap_free(&s);
    /* 107 whole: threads 1 + 1 + 1 + 4 + 1 + 1 + 2 + 1 + 1 + 1 (107) = 14 */
    CHECK(put(dir, "proc/107/stat",
              "107 (half) S 1 107 107 0 -1 4194304 1 0 0 0 1 1 0 0 20 0 1 0 207 1000 10\n"));
    CHECK(pc_collect_tree(dir, "Task States", 100, 4096, NULL, &s) == 0);
    check_states(&s);
    EXPECT(&s, "", "Threads", 14);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* Nothing wanted: no listing (an instances-only collect reads nothing). */
static void test_nothing_wanted(void)
{
    char dir[] = "/tmp/pl-ts-XXXXXX";
    pl_snapshot s;
    pctx p;
    CHECK(mkdtemp(dir) != NULL);
    make_tree(dir);
    CHECK(pc_open_set(&p, dir, "Task States", 100, 4096) == 0);
    memset(&s, 0, sizeof s);
    uint8_t *none = calloc(p.cs->ncounters, 1);
    CHECK(pc_collect(&p, none, &s) == 0);
    CHECK_EQ_U64(s.ninst, 1);
    UNSET(&s, "", "Processes");
    CHECK_EQ_U64(pl_ptshare_lists(pl_ptshare_attach(p.env)), 0);
    free(none);
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* No /proc below the root: the listing's errno and path. */
static void test_no_proc(void)
{
    char dir[] = "/tmp/pl-ts-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(pc_collect_tree(dir, "Task States", 100, 4096, NULL, &s) == ENOENT);
    CHECK(s.err_path != NULL);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* With Process in one query: /proc listed once, each stat read once. */
static void test_shared_listing(void)
{
    char dir[] = "/tmp/pl-ts-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    make_tree(dir);
    pl_env *env = pl_env_new(dir);
    pl_query *q = pl_query_new(env);
    pl_sample *s = NULL;
    pl_ptshare *t = pl_ptshare_attach(env);
    qadd(q, "\\Process(*)\\Thread Count");
    qadd(q, "\\Task States\\Running");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ptshare_lists(t), 1);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    rm_tree(dir);
}

/* Live: the states add up to the processes, and this one is running. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t n = 0, sum = 0, v, thr = 0, run = 0;
    static const char *const states[] = { "Running", "Sleeping", "Disk Sleep", "Stopped",
                                          "Tracing Stop", "Zombie", "Dead", "Idle", "Parked",
                                          "Other States" };
    CHECK(pc_collect_tree("/", "Task States", 0, 0, NULL, &s) == 0);
    CHECK(get(&s, "", "Processes", &n) && n >= 2);
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (get(&s, "", states[i], &v))
            sum += v;
    /* a process may change state between reads, never be counted twice */
    CHECK_EQ_U64(sum, n);
    CHECK(get(&s, "", "Running", &run) && run >= 1);           /* this test */
    CHECK(get(&s, "", "Threads", &thr) && thr >= run);
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_fixture);
    RUN(test_nothing_wanted);
    RUN(test_no_proc);
    RUN(test_shared_listing);
    RUN(test_live);
    return CT_END();
}
