/* Process queries of sizes only (Virtual Bytes, Working Set, ID Process)
 * read /proc/[pid]/statm and comm instead of stat once those are kept
 * descriptors proven to be the process's (ptshare.h, pl_ptshare_mem).
 * Temporary trees whose statm disagrees with stat show which file a value
 * came from; this machine's /proc shows a name following exec and an exit
 * seen through the kept descriptors. */
#include "perflib.h"
#include "proctable.h"
#include "ptshare.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "proc_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define U UINT64_MAX
#define TOTAL_ID 0xFFFFFFFEu
/* results (one per path) of the queries below */
enum { R_WS, R_VIRT, R_PID };
enum { R_CPU = 0 };

/* stat of a process with vsize 4096000 bytes and rss 100 pages. */
static int put_stat(const char *dir, unsigned pid, const char *comm, unsigned long long start)
{
    char rel[64], line[512];
    snprintf(rel, sizeof rel, "proc/%u/stat", pid);
    snprintf(line, sizeof line,
             "%u (%s) S 1 %u %u 0 -1 4194304 100 0 2 0 10 5 0 0 20 0 1 0 %llu 4096000 100 "
             "18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
             pid, comm, pid, pid, start);
    return put_inplace(dir, rel, line);
}

static int put_pid(const char *dir, unsigned pid, const char *leaf, const char *text)
{
    char rel[64];
    snprintf(rel, sizeof rel, "proc/%u/%s", pid, leaf);
    return put_inplace(dir, rel, text);
}

static int find(const pl_sample *smp, uint32_t id)
{
    const pl_block *b = &smp->blocks[0];
    for (uint32_t i = 0; i < b->ninst; i++)
        if (pl_sample_inst_id(smp, b, i) == id)
            return (int)i;
    return -1;
}

/* Raw value of result r (a path of one counter) for the instance with this
 * id, or U. */
static uint64_t val(const pl_sample *smp, uint32_t id, uint32_t r)
{
    const pl_block *b = &smp->blocks[r];
    size_t k;
    for (uint32_t i = 0; i < b->ninst; i++)
        if (pl_sample_inst_id(smp, b, i) == id) {
            k = b->vals_off + (size_t)i * b->ncounters;
            return smp->have[k] ? smp->vals[k].v : U;
        }
    return U;
}

static const char *name_of(const pl_sample *smp, uint32_t id)
{
    int i = find(smp, id);
    return i < 0 ? "(none)" : pl_sample_inst_name(smp, &smp->blocks[0], (uint32_t)i);
}

static pl_query *query(pl_env *env, const char *const *paths)
{
    pl_query *q = pl_query_new(env);
    for (; *paths; paths++) {
        pl_add_status st = PL_ADD_OK;
        uint32_t idx = 0;
        CHECK(pl_query_add_path(q, *paths, &st, &idx) == 0 && st == 0);
    }
    return q;
}

static pl_sample *collect(pl_query *q)
{
    pl_sample *s = NULL;
    CHECK(pl_query_collect(q, &s) == 0);
    return s;
}

static const char *const SIZES[] = { "\\Process(*)\\Working Set", "\\Process(*)\\Virtual Bytes",
                                     "\\Process(*)\\ID Process", NULL };

/* 100: stat, statm (2000 300 pages) and comm; 200: stat alone; 300: a kernel
 * thread's statm of zeros.  Page 4096.  The first collect reads stat
 * (vsize 4096000, rss 100 x 4096 = 409600) and binds statm and comm; later
 * ones read those instead where they are kept. */
static void test_sizes(void)
{
    char dir[] = "/tmp/pl-statm-XXXXXX";
    pl_env *env;
    pl_query *q;
    pl_sample *s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put_stat(dir, 100, "app", 1000) && put_pid(dir, 100, "statm", "2000 300 10 1 0 50 0\n") &&
          put_pid(dir, 100, "comm", "app\n"));
    CHECK(put_stat(dir, 200, "solo", 2000));
    CHECK(put_stat(dir, 300, "k", 3000) && put_pid(dir, 300, "statm", "0 0 0 0 0 0 0\n") &&
          put_pid(dir, 300, "comm", "k\n"));
    env = pl_env_new(dir);
    pl_env_set_page_size(env, 4096);
    q = query(env, SIZES);

    s = collect(q);          /* stat everywhere; statm + comm kept for 100 and 300 */
    CHECK_EQ_U64(val(s, 100, R_VIRT), 4096000);
    CHECK_EQ_U64(val(s, 100, R_WS), 409600);
    CHECK_EQ_U64(val(s, 300, R_WS), 409600);
    CHECK_EQ_U64(val(s, TOTAL_ID, R_VIRT), 3 * 4096000ull);
    CHECK_EQ_U64(val(s, TOTAL_ID, R_WS), 3 * 409600ull);
    CHECK_EQ_U64(pl_pt_kept(), 3 + 1 + 3);      /* 200 has no statm: its comm is not opened */
    free(s);

    s = collect(q);          /* statm: 2000 x 4096, 300 x 4096; 300's zeros; 200 stat */
    CHECK_STR(name_of(s, 100), "app");
    CHECK_EQ_U64(pl_sample_inst_key(s, &s->blocks[0], (uint32_t)find(s, 100)), 1000);
    CHECK_EQ_U64(val(s, 100, R_VIRT), 8192000);
    CHECK_EQ_U64(val(s, 100, R_WS), 1228800);
    CHECK_EQ_U64(val(s, 200, R_VIRT), 4096000);
    CHECK_EQ_U64(val(s, 300, R_VIRT), 0);
    CHECK_EQ_U64(val(s, 300, R_WS), 0);
    CHECK_EQ_U64(val(s, TOTAL_ID, R_VIRT), 8192000 + 4096000);
    CHECK_EQ_U64(val(s, TOTAL_ID, R_WS), 1228800 + 409600);
    CHECK_EQ_U64(pl_pt_kept(), 7);
    free(s);

    /* 100 execs: comm says so (stat, unread, still says app); its identity stays */
    CHECK(put_pid(dir, 100, "comm", "app2\n"));
    CHECK(put_pid(dir, 100, "statm", "2500 310 10 1 0 50 0\n"));
    s = collect(q);
    CHECK_STR(name_of(s, 100), "app2");
    CHECK_EQ_U64(pl_sample_inst_key(s, &s->blocks[0], (uint32_t)find(s, 100)), 1000);
    CHECK_EQ_U64(val(s, 100, R_VIRT), 2500 * 4096ull);
    CHECK_EQ_U64(val(s, 100, R_WS), 310 * 4096ull);
    free(s);

    /* malformed statm or comm: that process is left out, the rest go on; _Total
     * sums the listed ones */
    CHECK(put_pid(dir, 300, "statm", "12"));
    CHECK(put_pid(dir, 100, "comm", "app2"));  /* no newline: cut */
    s = collect(q);
    CHECK_EQ_U64(s->blocks[0].ninst, 2);       /* 200 and _Total */
    CHECK(find(s, 100) < 0 && find(s, 300) < 0);
    CHECK_EQ_U64(val(s, TOTAL_ID, R_VIRT), 4096000);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    CHECK_EQ_U64(pl_pt_kept(), 0);
    rm_tree(dir);
}

/* Any other counter wanted: stat as before, no statm or comm opened.  A
 * query of sizes collected with one that read stat in the same generation
 * takes stat's values (nothing more read). */
static void test_with_stat(void)
{
    static const char *const cpu[] = { "\\Process(*)\\% Processor Time", NULL };
    static const char *const mixed[] = { "\\Process(*)\\Working Set", "\\Process(*)\\Thread Count",
                                         NULL };
    char dir[] = "/tmp/pl-statm-XXXXXX";
    pl_env *env;
    pl_query *a, *b;
    pl_sample *sa, *sb;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put_stat(dir, 100, "app", 1000) && put_pid(dir, 100, "statm", "2000 300 10 1 0 50 0\n") &&
          put_pid(dir, 100, "comm", "app\n"));
    env = pl_env_new(dir);
    pl_env_set_page_size(env, 4096);
    pl_env_set_user_hz(env, 100);
    a = query(env, mixed);
    sa = collect(a);
    sb = collect(a);
    CHECK_EQ_U64(val(sb, 100, R_WS), 409600);   /* rss 100 pages: stat */
    CHECK_EQ_U64(pl_pt_kept(), 1);
    free(sa);
    free(sb);
    pl_query_free(a);

    a = query(env, SIZES);
    b = query(env, cpu);
    sa = collect(a);         /* binds statm and comm */
    free(sa);
    CHECK_EQ_U64(pl_pt_kept(), 3);
    pl_env_begin(env);
    sb = collect(b);
    sa = collect(a);
    pl_env_end(env);
    CHECK_EQ_U64(val(sb, 100, R_CPU), 15 * 100000ull);     /* 10 + 5 ticks */
    CHECK_EQ_U64(val(sa, 100, R_WS), 409600);                /* stat's, this generation */
    free(sa);
    free(sb);
    pl_env_begin(env);       /* sizes first: statm; then stat for the other query */
    sa = collect(a);
    sb = collect(b);
    pl_env_end(env);
    CHECK_EQ_U64(val(sa, 100, R_WS), 1228800);
    CHECK_EQ_U64(val(sb, 100, R_CPU), 15 * 100000ull);
    free(sa);
    free(sb);
    pl_query_free(a);
    pl_query_free(b);
    pl_env_unref(env);
    rm_tree(dir);
}

/* Names of instance i of every listed id, in the order of ids. */
static void expect_names(int line, const pl_sample *smp, const uint32_t *ids, const char *const *names,
                         uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(name_of(smp, ids[k]), names[k]) != 0) {
            printf("  line %d: %u is \"%s\", expected \"%s\"\n", line, ids[k], name_of(smp, ids[k]),
                   names[k]);
            ct_failed_checks++;
        }
}

/* The queries of one generation name processes once (the first one's names,
 * recorded in the machine's table) while they list the same processes with
 * the same comms; a query that leaves one out, or sees another comm, names
 * by itself and gets the names the rule gives its own listing. */
static void test_shared_names(void)
{
    static const char *const cpu[] = { "\\Process(*)\\% Processor Time", NULL };
    static const uint32_t ids[] = { 100, 200, 300 };
    static const char *const all3[] = { "b", "b#1", "b#2" };
    static const char *const no200[] = { "b", "(none)", "b#1" };
    static const char *const c200[] = { "b", "c", "b#1" };
    char dir[] = "/tmp/pl-statm-XXXXXX";
    pl_env *env;
    pl_query *a, *b, *b2;
    pl_sample *sa, *sb, *sb2;
    CHECK(mkdtemp(dir) != NULL);
    for (unsigned k = 0; k < 3; k++) {
        CHECK(put_stat(dir, ids[k], "b", 1000 + k));
        CHECK(put_pid(dir, ids[k], "statm", "10 5 0 0 0 0 0\n") && put_pid(dir, ids[k], "comm", "b\n"));
    }
    env = pl_env_new(dir);
    pl_env_set_page_size(env, 4096);
    a = query(env, SIZES);
    b = query(env, cpu);
    b2 = query(env, cpu);
    sa = collect(a);         /* binds statm and comm */
    free(sa);
    /* alike: b and b2 take a's names */
    pl_env_begin(env);
    sa = collect(a);
    sb = collect(b);
    sb2 = collect(b2);
    pl_env_end(env);
    expect_names(__LINE__, sa, ids, all3, 3);
    expect_names(__LINE__, sb, ids, all3, 3);
    expect_names(__LINE__, sb2, ids, all3, 3);
    free(sa);
    free(sb);
    free(sb2);
    /* 200's statm goes bad: a (statm) leaves it out, b (stat) lists it */
    CHECK(put_pid(dir, 200, "statm", "x\n"));
    pl_env_begin(env);       /* a leads: b names by itself from 200 on */
    sa = collect(a);
    sb = collect(b);
    pl_env_end(env);
    expect_names(__LINE__, sa, ids, no200, 3);
    expect_names(__LINE__, sb, ids, all3, 3);
    free(sa);
    free(sb);
    pl_env_begin(env);       /* b leads: its stat read serves a, which lists 200 too */
    sb = collect(b);
    sa = collect(a);
    sb2 = collect(b2);
    pl_env_end(env);
    expect_names(__LINE__, sb, ids, all3, 3);
    expect_names(__LINE__, sa, ids, all3, 3);
    expect_names(__LINE__, sb2, ids, all3, 3);
    free(sa);
    free(sb);
    free(sb2);
    /* 200 execs as c: its comm says so, its stat (unread by a) still b */
    CHECK(put_pid(dir, 200, "statm", "10 5 0 0 0 0 0\n") && put_pid(dir, 200, "comm", "c\n"));
    pl_env_begin(env);
    sa = collect(a);
    sb = collect(b);
    sb2 = collect(b2);
    pl_env_end(env);
    expect_names(__LINE__, sa, ids, c200, 3);
    expect_names(__LINE__, sb, ids, all3, 3);   /* stat's comm b: named alone */
    expect_names(__LINE__, sb2, ids, all3, 3);
    free(sa);
    free(sb);
    free(sb2);
    pl_query_free(a);
    pl_query_free(b);
    pl_query_free(b2);
    pl_env_unref(env);
    rm_tree(dir);
}

static void test_parse_statm(void)
{
    static const struct { const char *in; int ok; uint64_t size, res; } cases[] = {
        { "2000 300 10 1 0 50 0\n", 1, 2000, 300 },
        { "0 0 0 0 0 0 0\n", 1, 0, 0 },
        { "5 6\n", 1, 5, 6 },
        { "18446744073709551615 1 ", 1, UINT64_MAX, 1 },
        { "18446744073709551616 1 ", 0, 0, 0 },      /* 2^64: out of range */
        { "2000\n", 0, 0, 0 },
        { "2000 30", 0, 0, 0 },                       /* cut: no end to the number */
        { "2000 3x0 ", 0, 0, 0 },
        { "-1 2 ", 0, 0, 0 },
        { " 1 2 ", 0, 0, 0 },
        { "", 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t size = 7, res = 7;
        int e = pl_pt_parse_statm(cases[i].in, strlen(cases[i].in), &size, &res);
        CHECK_EQ_U64(e, cases[i].ok ? 0 : EINVAL);
        if (cases[i].ok) {
            CHECK_EQ_U64(size, cases[i].size);
            CHECK_EQ_U64(res, cases[i].res);
        }
    }
}

/* Is one of our descriptors /proc/<pid>/<leaf>? */
static int have_fd(pid_t pid, const char *leaf)
{
    char want[64], link[128], path[64];
    snprintf(want, sizeof want, "/proc/%d/%s", (int)pid, leaf);
    for (int fd = 0; fd < 4096; fd++) {
        ssize_t n;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        if ((n = readlink(path, link, sizeof link - 1)) <= 0)
            continue;
        link[n] = '\0';
        if (strcmp(link, want) == 0)
            return 1;
    }
    return 0;
}

static int comm_is(pid_t pid, const char *want)
{
    char path[64], buf[64] = { 0 };
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    if (!(f = fopen(path, "r")))
        return 0;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return strcmp(buf, want) == 0;
}

/* This machine: a child's name follows its exec at the next collect; its
 * exit is seen through the kept statm and comm (ESRCH), and it is left out. */
static void test_live_exec_exit(void)
{
    int pfd[2];
    pid_t c;
    pl_env *env;
    pl_query *q;
    pl_sample *s;
    uint64_t key;
    CHECK(pipe(pfd) == 0);
    if ((c = fork()) == 0) {
        char x;
        close(pfd[1]);
        if (read(pfd[0], &x, 1) == 1)
            execl("/bin/sleep", "sleep", "60", (char *)NULL);
        _exit(1);
    }
    close(pfd[0]);
    CHECK(c > 0);
    env = pl_env_new("/");
    q = query(env, SIZES);
    s = collect(q);
    CHECK(find(s, (uint32_t)c) >= 0);
    key = pl_sample_inst_key(s, &s->blocks[0], (uint32_t)find(s, (uint32_t)c));
    free(s);
    CHECK(have_fd(c, "statm") && have_fd(c, "comm"));
    s = collect(q);          /* through statm and comm */
    CHECK(strncmp(name_of(s, (uint32_t)c), "test_proc_statm", 15) == 0);
    CHECK(val(s, (uint32_t)c, R_WS) > 0 && val(s, (uint32_t)c, R_WS) != U);
    CHECK_EQ_U64(val(s, (uint32_t)c, R_PID), (uint64_t)c);
    free(s);
    CHECK(write(pfd[1], "x", 1) == 1);
    for (int i = 0; i < 400 && !comm_is(c, "sleep"); i++)
        usleep(5000);
    s = collect(q);
    CHECK(strncmp(name_of(s, (uint32_t)c), "sleep", 5) == 0);   /* "sleep" or "sleep#N" */
    CHECK_EQ_U64(pl_sample_inst_key(s, &s->blocks[0], (uint32_t)find(s, (uint32_t)c)), key);
    free(s);
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    s = collect(q);
    CHECK(find(s, (uint32_t)c) < 0);
    CHECK(!have_fd(c, "statm") && !have_fd(c, "comm"));
    free(s);
    close(pfd[1]);
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    RUN(test_sizes);
    RUN(test_with_stat);
    RUN(test_shared_names);
    RUN(test_parse_statm);
    RUN(test_live_exec_exit);
    return CT_END();
}
