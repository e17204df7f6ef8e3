/* Process and Thread values that say "valid" only for what was seen (issue
 * 10): running out of descriptors fails the collection (only ENOENT/ESRCH
 * mean gone), _Total has no value when a listed process lacks one, Elapsed
 * Time of processes and threads that started during the collection, last
 * lines without a newline, and the one naming rule (pl_names).  Trees are
 * made in /tmp; at USER_HZ 100 a tick is 100000 (100 ns). */
#include "perflib.h"
#include "pl_provider.h"
#include "pl_names.h"
#include "proctable.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T 100000ull

/* A stat line: ppid 1, flags, minflt 100, utime, stime, nice 0, 1 thread,
 * start, vsize 4096000, rss 100, ..., processor 0 .. blkio 0. */
static int put_stat(const char *dir, const char *rel, unsigned pid, const char *comm,
                    unsigned flags, unsigned long long utime, unsigned long long start)
{
    char line[512];
    snprintf(line, sizeof line,
             "%u (%s) S 1 %u %u 0 -1 %u 100 0 2 0 %llu 5 0 0 20 0 1 0 %llu 4096000 100 "
             "18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
             pid, comm, pid, pid, flags, utime, start);
    return put(dir, rel, line);
}

/* A process with stat, task/<pid>/stat, status, io and fd/ of nfd entries. */
static void put_proc(const char *dir, unsigned pid, const char *comm, unsigned flags,
                     unsigned long long utime, unsigned long long start, const char *status,
                     const char *io, int nfd)
{
    char rel[96];
    snprintf(rel, sizeof rel, "proc/%u/stat", pid);
    CHECK(put_stat(dir, rel, pid, comm, flags, utime, start));
    snprintf(rel, sizeof rel, "proc/%u/task/%u/stat", pid, pid);
    CHECK(put_stat(dir, rel, pid, comm, flags, utime, start));
    snprintf(rel, sizeof rel, "proc/%u/status", pid);
    CHECK(put(dir, rel, status));
    snprintf(rel, sizeof rel, "proc/%u/io", pid);
    CHECK(put(dir, rel, io));
    for (int k = 0; k < nfd; k++) {
        snprintf(rel, sizeof rel, "proc/%u/fd/%d", pid, k);
        CHECK(put(dir, rel, ""));
    }
    snprintf(rel, sizeof rel, "proc/%u/fd/x", pid);
    CHECK(mkdirs(dir, rel));     /* an empty fd/ too */
}

#define STATUS(peak, anon, swap, vol, inv) "VmPeak:\t" peak " kB\nVmHWM:\t 8 kB\nRssAnon:\t" anon \
    " kB\nVmSwap:\t" swap " kB\nvoluntary_ctxt_switches:\t" vol "\nnonvoluntary_ctxt_switches:\t" inv "\n"
#define IO(rc, wc, sr, sw) "rchar: " rc "\nwchar: " wc "\nsyscr: " sr "\nsyscw: " sw \
    "\nread_bytes: 0\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n"

/* a: 2 fds; b: 3 fds; kw, a kernel thread (PF_KTHREAD): no Vm lines, no fds. */
static void make_tree(const char *dir)
{
    put_proc(dir, 100, "a", 0x400000, 10, 1000, STATUS("100", "40", "4", "7", "1"),
             IO("1000", "500", "10", "5"), 2);
    put_proc(dir, 200, "b", 0x400000, 20, 2000, STATUS("200", "60", "0", "3", "2"),
             IO("3000", "700", "30", "7"), 3);
    put_proc(dir, 300, "kw", 0x200040, 3, 5, "voluntary_ctxt_switches:\t9\n"
             "nonvoluntary_ctxt_switches:\t0\n", IO("0", "0", "0", "0"), 0);
    CHECK(put(dir, "proc/uptime", "100.00 50.00\n"));
}

/* Status of one value of a query sample as PDH would give it. */
static pl_status status_of(const char *root, const char *path, double *v)
{
    pl_env *env = pl_env_new(root);
    pl_query *q = pl_query_new(env);
    pl_sample *smp = NULL;
    pl_add_status st;
    uint32_t idx;
    pl_status r = PL_STATUS_COUNT;
    pl_env_set_user_hz(env, 100);
    if (pl_query_add_path(q, path, &st, &idx) == 0 && st == 0 && pl_query_collect(q, &smp) == 0 &&
        smp->blocks[0].ninst == 1)
        r = pl_sample_format(smp, &smp->blocks[0], 0, 0, NULL, NULL, v);
    free(smp);
    pl_query_free(q);
    pl_env_unref(env);
    return r;
}

/* ---- item 13: a total over processes that lack the value ------------------- */

static void partial_body(int denied)
{
    char dir[] = "/tmp/pl-ptrust-XXXXXX", path[300];
    pl_snapshot s = { 0 };
    double v;
    CHECK(mkdtemp(dir) != NULL);
    make_tree(dir);
    /* complete: everything sums.  Private Bytes (40 + 4) + (60 + 0) kB, the kernel
     * thread has none of its own; handles 2 + 3 + 0; rchar 1000 + 3000 + 0;
     * switches 8 + 5 + 9 */
    CHECK(pc_collect_tree(dir, "Process", 100, 4096, NULL, &s) == 0);
    EXPECT(&s, "_Total", "Private Bytes", 104 * 1024);
    EXPECT(&s, "_Total", "Handle Count", 5);
    EXPECT(&s, "_Total", "IO Read Bytes/sec", 4000);
    EXPECT(&s, "_Total", "IO Other Bytes/sec", 0);
    EXPECT(&s, "_Total", "Context Switches/sec", 22);
    EXPECT(&s, "_Total", "Disk Write Bytes/sec", 3 * 4096);
    CHECK(status_of(dir, "\\Process(_Total)\\Handle Count", &v) == PL_VALID && v == 5);
    pl_snap_free(&s);
    /* b's io and fd/ unreadable (as nobody) or gone (a kernel without them) */
    snprintf(path, sizeof path, "%s/proc/200/io", dir);
    CHECK(denied ? chmod(path, 0) == 0 : remove(path) == 0);
    snprintf(path, sizeof path, "%s/proc/200/fd", dir);
    if (denied) {
        CHECK(chmod(path, 0) == 0);
    } else {
        rm_tree(path);
    }
    CHECK(pc_collect_tree(dir, "Process", 100, 4096, NULL, &s) == 0);
    /* unreadable: no_access; gone: simply unset (no_data) */
#define ABSENT(s, inst, ctr) expect_absent(__LINE__, s, inst, ctr, denied ? PL_HAVE_NO_ACCESS : 0)
    ABSENT(&s, "b", "IO Read Bytes/sec");
    ABSENT(&s, "b", "Handle Count");
    EXPECT(&s, "a", "IO Read Bytes/sec", 1000);
    ABSENT(&s, "_Total", "IO Read Bytes/sec");       /* 1000 + 0 of 3 is not the sum */
    ABSENT(&s, "_Total", "IO Other Bytes/sec");
    ABSENT(&s, "_Total", "Disk Write Bytes/sec");
    ABSENT(&s, "_Total", "Handle Count");
#undef ABSENT
    EXPECT(&s, "_Total", "Private Bytes", 104 * 1024); /* status is still whole */
    EXPECT(&s, "_Total", "% Processor Time", (10 + 5 + 20 + 5 + 3 + 5) * T);
    CHECK(status_of(dir, "\\Process(_Total)\\Handle Count", &v) == (denied ? PL_NO_ACCESS : PL_NO_DATA));
    CHECK(status_of(dir, "\\Process(b)\\Handle Count", &v) == (denied ? PL_NO_ACCESS : PL_NO_DATA));
    pl_snap_free(&s);
    if (denied) {
        snprintf(path, sizeof path, "%s/proc/200/fd", dir);
        CHECK(chmod(path, 0700) == 0);
    }
    rm_tree(dir);
}

static void test_total_missing(void)
{
    partial_body(0);
}

/* Root reads anything: the denied case runs in a child that dropped to nobody. */
static void test_total_denied(void)
{
    pid_t pid;
    int status = 0;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        ct_failed_checks = 0;
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(99);
        partial_body(1);
        _exit(ct_failed_checks ? 1 : 0);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- item 12: out of descriptors is an error, never an exit ----------------- */

static void emfile_body(const char *dir)
{
    struct rlimit rl = { 64, 64 };
    pctx p, t;
    pl_snapshot s = { 0 }, ts = { 0 };
    int fill[80], n = 0;
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);         /* budget 64 / 2 - 64: nothing kept */
    pl_pt_budget_refresh();
    CHECK(pc_open_set(&p, dir, "Process", 100, 4096) == 0);
    CHECK(pc_open_set(&t, dir, "Thread", 100, 4096) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 4);
    CHECK(pc_collect(&t, NULL, &ts) == 0);
    CHECK_EQ_U64(ts.ninst, 3);
    while (n < 80 && (fill[n] = dup(0)) >= 0)
        n++;
    CHECK(n < 80 && errno == EMFILE);
    /* before: every open failed as "exited": _Total alone, no threads, status valid */
    CHECK_EQ_U64(pc_collect(&p, NULL, &s), EMFILE);
    CHECK_STR(s.err_path, "proc/[pid]/stat");
    CHECK_EQ_U64(pc_collect(&t, NULL, &ts), EMFILE);
    while (n > 0)
        close(fill[--n]);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 4);
    EXPECT(&s, "b", "% Processor Time", 25 * T);
    /* ENOENT still means gone: b's directory removed */
    {
        char path[300];
        snprintf(path, sizeof path, "%s/proc/200", dir);
        rm_tree(path);
    }
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "a", "kw", "_Total");
    CHECK(pc_collect(&t, NULL, &ts) == 0);
    NAMES(&ts, "a/100", "kw/300");
    pl_snap_free(&s);
    pl_snap_free(&ts);
    pc_close(&p);
    pc_close(&t);
}

static void test_emfile(void)
{
    char dir[] = "/tmp/pl-ptrust-XXXXXX";
    pid_t pid;
    int status = 0;
    CHECK(mkdtemp(dir) != NULL);
    make_tree(dir);
    fflush(NULL);
    pid = fork();            /* the rlimit and the filled table stay in the child */
    if (pid == 0) {
        ct_failed_checks = 0;
        emfile_body(dir);
        _exit(ct_failed_checks ? 1 : 0);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rm_tree(dir);
}

/* ---- item 20: Elapsed Time of what started during the collection ----------- */

static volatile int g_spawn;

static void *napper(void *ud)
{
    struct timespec ts = { 0, 3000000 };
    (void)ud;
    nanosleep(&ts, NULL);
    return NULL;
}

/* New threads in this process all the time, each living 3 ms. */
static void *spawner(void *ud)
{
    (void)ud;
    while (g_spawn) {
        pthread_t t;
        if (pthread_create(&t, NULL, napper, NULL) == 0)
            pthread_detach(t);
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* Every Elapsed Time (start, at the object clock) of this machine's threads
 * and processes, among them threads that started during the collection:
 * clock - start must never be negative. */
static void test_elapsed_live(void)
{
    static const char *const el[] = { "Elapsed Time", NULL };
    pthread_t sp;
    pctx t, p;
    pl_snapshot ts = { 0 }, ps = { 0 };
    uint8_t *tw, *pw;
    unsigned neg = 0, seen = 0;
    CHECK(pc_open_set(&t, "/", "Thread", 0, 0) == 0);
    CHECK(pc_open_set(&p, "/", "Process", 0, 0) == 0);
    tw = want_only(t.cs, el);
    pw = want_only(p.cs, el);
    g_spawn = 1;
    CHECK(pthread_create(&sp, NULL, spawner, NULL) == 0);
    for (int round = 0; round < 40; round++) {
        const pl_snapshot *snaps[2] = { &ts, &ps };
        CHECK(pc_collect(&t, tw, &ts) == 0);
        CHECK(pc_collect(&p, pw, &ps) == 0);
        for (int k = 0; k < 2; k++) {
            const pl_snapshot *s = snaps[k];
            int c = pl_counter_index_by_name(s->cs, "Elapsed Time");
            for (uint32_t i = 0; i < s->ninst; i++) {
                size_t x = (size_t)i * s->cs->ncounters + (size_t)c;
                if (!s->have[x])
                    continue;
                seen++;
                neg += (int64_t)s->values[x] > s->obj_time;
            }
        }
    }
    g_spawn = 0;
    pthread_join(sp, NULL);
    CHECK(seen > 80);
    CHECK_EQ_U64(neg, 0);
    free(tw);
    free(pw);
    pl_snap_free(&ts);
    pl_snap_free(&ps);
    pc_close(&t);
    pc_close(&p);
}

/* Hand-computed: start 2015 ticks = 20.15 s, uptime 699.22 s: 679.07 s. */
static void test_elapsed_value(void)
{
    char dir[] = "/tmp/pl-ptrust-XXXXXX";
    double v = -1;
    CHECK(mkdtemp(dir) != NULL);
    put_proc(dir, 1162, "bash", 0, 12, 2015, STATUS("1", "1", "0", "1", "1"), IO("1", "1", "1", "1"), 1);
    CHECK(put(dir, "proc/uptime", "699.22 1300.00\n"));
    CHECK(status_of(dir, "\\Process(bash)\\Elapsed Time", &v) == PL_VALID);
    CHECK_NEAR(v, 679.07, 1e-9);
    CHECK(status_of(dir, "\\Thread(bash/1162)\\Elapsed Time", &v) == PL_VALID);
    CHECK_NEAR(v, 679.07, 1e-9);
    /* a process that started at the clock's own tick: 0 s, valid */
    CHECK(put(dir, "proc/uptime", "20.15 1.00\n"));
    CHECK(status_of(dir, "\\Process(bash)\\Elapsed Time", &v) == PL_VALID);
    CHECK_NEAR(v, 0, 1e-12);
    rm_tree(dir);
}

/* ---- item 15: last lines without a newline ------------------------------------ */

static void test_last_line(void)
{
    char dir[] = "/tmp/pl-ptrust-XXXXXX";
    pl_snapshot s = { 0 };
    CHECK(mkdtemp(dir) != NULL);
    put_proc(dir, 100, "a", 0, 1, 1, "VmSwap:\t 2 kB\nRssAnon:\t 3 kB\nvoluntary_ctxt_switches:\t7\n"
             "nonvoluntary_ctxt_switches:\t1", "syscr: 3\nsyscw: 4\nrchar: 1\nwchar: 2", 1);
    CHECK(put(dir, "proc/100/task/100/status", "voluntary_ctxt_switches:\t5\n"
              "nonvoluntary_ctxt_switches:\t6"));
    CHECK(pc_collect_tree(dir, "Process", 100, 4096, NULL, &s) == 0);
    EXPECT(&s, "a", "Context Switches/sec", 8);          /* 7 + 1, the 1 on the last line */
    EXPECT(&s, "a", "IO Write Bytes/sec", 2);
    EXPECT(&s, "a", "IO Data Bytes/sec", 3);
    EXPECT(&s, "a", "Private Bytes", 5 * 1024);
    pl_snap_free(&s);
    CHECK(pc_collect_tree(dir, "Thread", 100, 4096, NULL, &s) == 0);
    EXPECT(&s, "a/100", "Context Switches/sec", 11);
    pl_snap_free(&s);
    /* mountstats: the last WRITE line is read, and with it the sum over ops */
    CHECK(put(dir, "proc/self/mountstats", "device s:/x mounted on /m with fstype nfs statvers=1.1\n"
              "\tbytes:\t1 2 3 4 5 6 7 8\n\tper-op statistics\n"
              "\t        READ: 10 10 0 100 200 1 20 30 0\n\t       WRITE: 4 4 0 100 200 1 8 12 0"));
    CHECK(pc_collect_tree(dir, "NFS Client", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "/m", "Write Operations/sec", 4);
    EXPECT(&s, "/m", "Operations/sec", 14);
    EXPECT(&s, "/m", "Errors", 0);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* ---- item 19: one naming rule --------------------------------------------------- */

static void test_names(void)
{
    static const char *const in[] = { "_Total", "x", "x", "x#1", "x", "_Total", "y", "x#1" };
    static const char *const want[] = { "_Total", "x", "x#1", "x#1#1", "x#2", "_Total#1", "y",
                                        "x#1#2" };
    pl_names n;
    char out[64];
    pl_names_init(&n);
    for (int round = 0; round < 3; round++) {       /* each listing starts afresh */
        CHECK(pl_names_begin(&n, 2) == 0);
        for (int i = 0; i < 8; i++)
            CHECK_STR(pl_names_next(&n, in[i], strlen(in[i]), out), want[i]);
    }
    /* far past the expected count: the table grows, every name stays unique */
    CHECK(pl_names_begin(&n, 1) == 0);
    CHECK_STR(pl_names_next(&n, "a", 1, out), "a");
    for (int i = 1; i < 3000; i++) {
        char w[16];
        snprintf(w, sizeof w, "a#%d", i);
        CHECK_STR(pl_names_next(&n, "a", 1, out), w);
    }
    CHECK_STR(pl_names_next(&n, "a#7", 3, out), "a#7#1");
    pl_names_free(&n);
}

/* NFS Client: the same mount point twice is "#1" after the first, as everywhere. */
static void test_nfs_names(void)
{
    pl_snapshot s = { 0 };
    CHECK(pc_collect_tree("spec/fixtures/kern-broken", "NFS Client", 0, 0, NULL, &s) == 0);
    NAMES(&s, "/mnt/a", "/mnt/nostats", "/mnt/a#1", "/mnt/cut");
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_total_missing);
    RUN(test_total_denied);
    RUN(test_emfile);
    RUN(test_elapsed_value);
    RUN(test_elapsed_live);
    RUN(test_last_line);
    RUN(test_names);
    RUN(test_nfs_names);
    CHECK_EQ_U64(pl_pt_kept(), 0);
    return CT_END();
}
