/* Process and Thread providers through their ops and through pl_query_*,
 * against spec/fixtures/proc-basic (run from the repository root) and
 * mkdtemp trees for the mutation traps.  Expected values are worked out by
 * hand from the fixture files; the arithmetic is in comments.  At USER_HZ
 * 100 a tick is 100000 (100 ns); pages are 4096 bytes; kB x 1024. */
#include "perflib.h"
#include "pl_provider.h"
#include "proctable.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "proc_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FX "spec/fixtures/"
#define U UINT64_MAX         /* expected unset */
#define D (UINT64_MAX - 1)   /* expected no_access: its file was not readable */
#define T 100000ull          /* 100 ns per tick at USER_HZ 100 */
#define TOTAL_ID 0xFFFFFFFEu

/* ---- helpers ------------------------------------------------------------------------ */

typedef struct ctx {
    pl_env *env;
    const pl_counterset_def *cs;
    void *st;
} ctx;

static int cx_open(ctx *c, const char *root, const char *set, long hz, long page)
{
    memset(c, 0, sizeof *c);
    c->env = pl_env_new(root);
    if (!c->env)
        return errno;
    pl_env_set_user_hz(c->env, hz);
    pl_env_set_page_size(c->env, page);
    c->cs = pl_env_find(c->env, set);
    if (!c->cs)
        return ENOENT;
    return pl_provider_open(c->cs, c->env, &c->st);
}

static void cx_close(ctx *c)
{
    if (c->st)
        c->cs->ops->close(c->st);
    pl_env_unref(c->env);
    memset(c, 0, sizeof *c);
}

static int cx_collect(ctx *c, const uint8_t *wanted, pl_snapshot *snap)
{
    if (!snap->cs)
        pl_snap_init(snap, c->cs);
    return c->cs->ops->collect(c->st, wanted, snap);
}

static int ctr(const pl_snapshot *s, const char *name)
{
    int i = pl_counter_index_by_name(s->cs, name);
    if (i < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  no counter \"%s\"\n", name);
    }
    return i;
}

/* want == U: the value must be unset */
static void expect_u(int line, const pl_snapshot *s, const char *inst, const char *name, uint64_t want)
{
    int i = inst_of(s, inst), c = ctr(s, name);
    size_t k;
    if (i < 0 || c < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: no instance \"%s\"\n", line, inst);
        return;
    }
    k = (size_t)i * s->cs->ncounters + (size_t)c;
    if (want == U || want == D) {
        if (s->have[k] != (want == D ? PL_HAVE_NO_ACCESS : 0)) {
            ct_failed_checks++;
            fprintf(stderr, "  line %d: %s %s has flag %d (%llu), expected %s\n", line, inst, name, s->have[k],
                    (unsigned long long)s->values[k], want == D ? "no_access" : "unset");
        }
    } else if (s->have[k] != 1 || s->values[k] != want) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s %s == %s%llu, expected %llu\n", line, inst, name,
                s->have[k] ? "" : "(unset) ", (unsigned long long)s->values[k],
                (unsigned long long)want);
    }
}
#undef EXPECT
#define EXPECT(s, inst, name, want) expect_u(__LINE__, s, inst, name, want)

/* Every counter of one instance, in counters[] order. */
static void expect_row(int line, const pl_snapshot *s, const char *inst, const uint64_t *want)
{
    for (uint32_t c = 0; c < s->cs->ncounters; c++)
        expect_u(line, s, inst, s->cs->counters[c].name, want[c]);
}

/* A stat line with the fields the providers read; the rest zero. */
static int put_stat(const char *dir, unsigned pid, const char *comm, unsigned long long utime,
                    unsigned long long stime, unsigned long long start)
{
    char rel[64], line[512];
    snprintf(rel, sizeof rel, "proc/%u/stat", pid);
    snprintf(line, sizeof line,
             "%u (%s) S 1 %u %u 0 -1 4194304 100 0 2 0 %llu %llu 0 0 20 0 1 0 %llu 4096000 100 "
             "18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
             pid, comm, pid, pid, utime, stime, start);
    return put_inplace(dir, rel, line);
}

/* ======================================================================== */

static void test_defs(void)
{
    pl_env *env = pl_env_new(FX "proc-basic");
    const pl_counterset_def *p = pl_env_find(env, "Process"), *t = pl_env_find(env, "Thread");
    static const struct { uint32_t id; const char *name; uint32_t type; uint32_t detail; } want[] = {
        {0, "% Processor Time", PERF_100NSEC_TIMER, PERF_DETAIL_NOVICE},
        {1, "% User Time", PERF_100NSEC_TIMER, PERF_DETAIL_NOVICE},
        {2, "% Privileged Time", PERF_100NSEC_TIMER, PERF_DETAIL_NOVICE},
        {3, "Virtual Bytes Peak", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_NOVICE},
        {4, "Virtual Bytes", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_NOVICE},
        {5, "Page Faults/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {6, "Working Set Peak", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_NOVICE},
        {7, "Working Set", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_NOVICE},
        {9, "Page File Bytes", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_NOVICE},
        {10, "Private Bytes", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_NOVICE},
        {11, "Thread Count", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE},
        {12, "Priority Base", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE},
        {13, "Elapsed Time", PERF_ELAPSED_TIME, PERF_DETAIL_NOVICE},
        {14, "ID Process", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE},
        {15, "Creating Process ID", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_NOVICE},
        {18, "Handle Count", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_WIZARD},
        {19, "IO Read Operations/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {20, "IO Write Operations/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {21, "IO Data Operations/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {22, "IO Other Operations/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {23, "IO Read Bytes/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {24, "IO Write Bytes/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {25, "IO Data Bytes/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {26, "IO Other Bytes/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE},
        {27, "Working Set - Private", PERF_COUNTER_LARGE_RAWCOUNT, PERF_DETAIL_WIZARD},
        {32, "Major Page Faults/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED},
        {33, "Disk Read Bytes/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED},
        {34, "Disk Write Bytes/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED},
        {35, "Context Switches/sec", PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED},
        {36, "% IO Wait Time", PERF_100NSEC_TIMER, PERF_DETAIL_ADVANCED},
        {37, "Processor", PERF_COUNTER_RAWCOUNT, PERF_DETAIL_ADVANCED},
    };
    char g[PL_GUID_STRLEN + 1];
    CHECK(p && t);
    if (!p || !t) {
        pl_env_unref(env);
        return;
    }
    pl_guid_format(&p->guid, g);
    CHECK_STR(g, "7f6354f6-b0e1-5efd-aea3-5222ce8af8c5");   /* uuid5(perflib ns, "Process") */
    pl_guid_format(&t->guid, g);
    CHECK_STR(g, "0adf2b76-b505-59cc-bbdd-c87466a19b03");   /* uuid5(perflib ns, "Thread") */
    CHECK_EQ_U64(p->index, 14000);
    CHECK_EQ_U64(t->index, 15000);
    CHECK(p->costly == 0 && t->costly == 1);
    CHECK(p->instance_type == PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK(t->instance_type == PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK_EQ_U64(p->ncounters, sizeof want / sizeof want[0]);
    for (uint32_t i = 0; i < p->ncounters && i < sizeof want / sizeof want[0]; i++) {
        const pl_counter_def *c = &p->counters[i];
        CHECK_EQ_U64(c->id, want[i].id);
        CHECK_STR(c->name, want[i].name);
        CHECK_EQ_U64(c->type, want[i].type);
        CHECK_EQ_U64(c->detail, want[i].detail);
        CHECK(c->base_id == PL_NO_ID && !pl_counter_hidden(c) && c->help && strlen(c->help) > 20);
    }
    CHECK_EQ_U64(t->ncounters, 12);
    CHECK_STR(t->counters[3].name, "Context Switches/sec");
    CHECK_EQ_U64(t->counters[11].id, 32);
    for (uint32_t i = 0; i < t->ncounters; i++)
        CHECK(t->counters[i].help && strlen(t->counters[i].help) > 20);
    pl_env_unref(env);
}

/* proc-basic, every counter of every instance (counters[] order:
 * %Proc %User %Priv VPeak Virtual Faults WSPeak WS PageFile Private Threads
 * Prio Elapsed ID PPID Handles IORops IOWops IODops IOOops IORb IOWb IODb IOOb
 * WSPriv Maj DiskR DiskW Ctxsw %IOWait Processor). */
static void test_basic(void)
{
    static const char *const names[] = { "process_api", "kthreadd", "bash", "we ird) (x", "cat",
                                         "bash#1", "_Total#1", "trunc", "_Total" };
    static const uint32_t ids[] = { 1, 2, 1162, 20259, 25423, 30473, 30700, 30800, TOTAL_ID };
    /* 1: utime 940 stime 1210; VmPeak 45616 kB; minflt 79978 + majflt 12; VmHWM 16792 kB;
     * rss 3998 x 4096; RssAnon 10560 + VmSwap 0 kB; start 7 ticks; 5 fds; io garbage (the
     * EACCES stand-in): IO unset; smaps (68 + 112 + 0) kB; 400 + 83 switches */
    static const uint64_t p1[] = { 2150 * T, 940 * T, 1210 * T, 46710784, 44343296, 79990,
        17195008, 16375808, 0, 10813440, 3, 120, 7 * T, 1, 0, 5, U, U, U, U, U, U, U, U, 184320,
        12, U, U, 483, 0, 1 };
    /* 2: kernel thread: no Vm lines, no fd/ in the fixture, smaps_rollup not read; io all 0 */
    static const uint64_t p2[] = { 3 * T, 0, 3 * T, U, 0, 0, U, 0, U, U, 1, 120, 0, 2, 0, U,
        0, 0, 0, 0, 0, 0, 0, 0, U, 0, 0, 0, 125, 0, 0 };
    /* 1162: utime 12 stime 8; minflt 755 + 1; VmHWM 5300 kB; rss 1280; VmSwap 200 kB;
     * RssAnon 1800 + 200 kB; nice 5: prio 25 + 100; start 2015; syscr 300 syscw 40;
     * rchar 10^6 wchar 20000; smaps 100 + 1700 kB (no Private_Hugetlb line); blkio 4 */
    static const uint64_t p1162[] = { 20 * T, 12 * T, 8 * T, 9216000, 8916992, 756, 5427200,
        5242880, 204800, 2048000, 1, 125, 2015 * T, 1162, 1161, 4, 300, 40, 340, 0, 1000000,
        20000, 1020000, 0, 1843200, 1, 4096, 8192, 157, 4 * T, 0 };
    /* 20259 (we ird) (x): stat alone; rss 419 x 4096 = 1716224; start 48180 */
    static const uint64_t p20259[] = { 0, 0, 0, U, 2990080, 140, U, 1716224, U, U, 1, 120,
        48180 * T, 20259, 1, U, U, U, U, U, U, U, U, U, U, 0, U, U, U, 0, 0 };
    /* 25423: the reference's cat: rss 394 x 4096; VmHWM 1788 kB; RssAnon 116 kB;
     * io rchar 6976 syscr 10 */
    static const uint64_t p25423[] = { 0, 0, 0, 3133440, 3133440, 101, 1830912, 1613824, 0,
        118784, 1, 120, 69922 * T, 25423, 25416, 4, 10, 0, 10, 0, 6976, 0, 6976, 0, 184320, 0,
        0, 0, 0, 0, 1 };
    /* 30473: utime 150 stime 75; minflt 2100 + 3; rss 1400; smaps 120 + 1900 kB;
     * 900 + 30 switches; blkio 2 */
    static const uint64_t p30473[] = { 225 * T, 150 * T, 75 * T, 9420800, 9117696, 2103,
        5734400, 5734400, 0, 2048000, 2, 120, 250000 * T, 30473, 30471, 4, 1200, 800, 2000, 0,
        500000, 250000, 750000, 0, 2068480, 3, 0, 4096, 930, 2 * T, 1 };
    /* 30700 calls itself _Total; SCHED_FIFO 50: stat 18 = -51, -51 + 100 = 49 */
    static const uint64_t p30700[] = { 16 * T, 7 * T, 9 * T, U, 3133440, 5, U, 1613824, U, U,
        1, 49, 300000 * T, 30700, 1, U, U, U, U, U, U, U, U, U, U, 0, U, U, U, 0, 1 };
    /* 30800: cut after "rss 12" with no newline: rss and later fields unset */
    static const uint64_t p30800[] = { 8 * T, 5 * T, 3 * T, U, 1234567, 10, U, U, U, U, 1,
        120, 6000 * T, 30800, 1, U, U, U, U, U, U, U, U, U, U, 0, U, U, U, U, U };
    /* _Total: sums over all eight, or unset where one of them lacks the value
     * (peaks, priority, times and ids are not summed).  Summed over all:
     * Virtual 44343296 + 0 + 8916992 + 2990080 + 3133440 + 9117696 + 3133440 + 1234567;
     * threads 3+1+1+1+1+2+1+1; %Proc ticks 2150 + 3 + 20 + 225 + 16 + 8 = 2422;
     * user 940+12+150+7+5 = 1114; priv 1210+3+8+75+9+3 = 1308;
     * faults 79990+756+140+101+2103+5+10 = 83105; majflt 12+1+3.
     * Unset: Working Set and % IO Wait Time (trunc's stat is cut before rss), Page
     * File and Private Bytes, Handle Count, Working Set - Private and Context
     * Switches (we ird) (x, _Total#1 and trunc have no status, fd/ or smaps_rollup;
     * kthreadd has no fd/ here), and IO (process_api's io is unreadable, three
     * have none).  kthreadd's missing Vm lines and smaps_rollup do not count: a
     * kernel thread has no memory of its own. */
    static const uint64_t tot[] = { 2422 * T, 1114 * T, 1308 * T, U, 72869511, 83105, U,
        U, U, U, 11, U, U, U, U, U, U, U, U, U, U, U, U, U, U, 16, U, U, U, U, U };
    ctx c;
    pl_snapshot s = { 0 };
    CHECK(cx_open(&c, FX "proc-basic", "Process", 100, 4096) == 0);
    CHECK(cx_collect(&c, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 9);          /* 512 (no stat) and 30900 (garbage) left out */
    for (uint32_t i = 0; i < s.ninst && i < 9; i++) {
        CHECK_STR(pl_snap_name(&s, i), names[i]);
        CHECK_EQ_U64(s.inst[i].id, ids[i]);
    }
    CHECK_EQ_U64(s.inst[0].key, 7);    /* the start time is the key */
    CHECK_EQ_U64(s.inst[4].key, 69922);
    CHECK_EQ_U64(s.inst[8].key, 0);
    CHECK_EQ_U64(s.obj_time, 6992200000ull);   /* uptime 699.22 s in 100 ns */
    CHECK_EQ_U64(s.obj_freq, 10000000);
    expect_row(__LINE__, &s, "process_api", p1);
    expect_row(__LINE__, &s, "kthreadd", p2);
    expect_row(__LINE__, &s, "bash", p1162);
    expect_row(__LINE__, &s, "we ird) (x", p20259);
    expect_row(__LINE__, &s, "cat", p25423);
    expect_row(__LINE__, &s, "bash#1", p30473);
    expect_row(__LINE__, &s, "_Total#1", p30700);
    expect_row(__LINE__, &s, "trunc", p30800);
    expect_row(__LINE__, &s, "_Total", tot);
    /* a second collect of the same state gives the same (kept fds re-read) */
    CHECK(cx_collect(&c, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 9);
    expect_row(__LINE__, &s, "bash", p1162);
    pl_snap_free(&s);
    cx_close(&c);
    CHECK_EQ_U64(pl_pt_kept(), 0);     /* every kept fd closed with the state */
}

/* Only the files a wanted counter needs are read (and kept). */
static void test_lazy(void)
{
    ctx c;
    pl_snapshot s = { 0 };
    uint8_t w[31] = { 0 };
    CHECK(cx_open(&c, FX "proc-basic", "Process", 100, 4096) == 0);
    w[0] = 1;                          /* % Processor Time */
    CHECK(cx_collect(&c, w, &s) == 0);
    /* stat of 1 2 1162 20259 25423 30473 30700 30800 30900: nine kept fds, nothing else */
    CHECK_EQ_U64(pl_pt_kept(), 9);
    CHECK_EQ_U64(s.obj_time, 0);       /* no Elapsed Time: /proc/uptime not read */
    EXPECT(&s, "bash", "% Processor Time", 20 * T);
    EXPECT(&s, "bash", "Working Set", U);       /* not asked: not set */
    w[pl_counter_index_by_name(c.cs, "Private Bytes")] = 1;
    CHECK(cx_collect(&c, w, &s) == 0);
    /* + status of 1 2 1162 25423 30473 */
    CHECK_EQ_U64(pl_pt_kept(), 14);
    EXPECT(&s, "bash", "Private Bytes", 2048000);
    w[pl_counter_index_by_name(c.cs, "Working Set - Private")] = 1;
    CHECK(cx_collect(&c, w, &s) == 0);
    /* + smaps_rollup of 1 1162 25423 30473 (not of the kernel thread 2) */
    CHECK_EQ_U64(pl_pt_kept(), 18);
    EXPECT(&s, "kthreadd", "Working Set - Private", U);
    pl_snap_free(&s);
    cx_close(&c);
    CHECK_EQ_U64(pl_pt_kept(), 0);
}

/* USER_HZ 250 (4 ms ticks, 40000 x 100 ns) and 16 KiB pages. */
static void test_hz_page(void)
{
    ctx c;
    pl_snapshot s = { 0 };
    CHECK(cx_open(&c, FX "proc-basic", "Process", 250, 16384) == 0);
    CHECK(cx_collect(&c, NULL, &s) == 0);
    EXPECT(&s, "process_api", "% Processor Time", 2150 * 40000ull);
    EXPECT(&s, "process_api", "% User Time", 940 * 40000ull);
    EXPECT(&s, "process_api", "Elapsed Time", 7 * 40000ull);
    EXPECT(&s, "process_api", "Working Set", 3998 * 16384ull);   /* rss pages x 16 KiB */
    EXPECT(&s, "bash", "% IO Wait Time", 4 * 40000ull);
    EXPECT(&s, "process_api", "Private Bytes", 10813440);       /* kB are not pages */
    EXPECT(&s, "_Total", "% Processor Time", 2422 * 40000ull);
    pl_snap_free(&s);
    cx_close(&c);
    /* USER_HZ 1024 does not divide 10^7: 2150 ticks = 2150 * 10^7 / 1024 = 20996093 */
    CHECK(cx_open(&c, FX "proc-basic", "Process", 1024, 4096) == 0);
    CHECK(cx_collect(&c, NULL, &s) == 0);
    EXPECT(&s, "process_api", "% Processor Time", 20996093);
    pl_snap_free(&s);
    cx_close(&c);
}

/* Threads of proc-basic: the leader's comm names them; 30473's leader is missing. */
static void test_thread(void)
{
    static const char *const names[] = { "process_api/1", "process_api/45", "process_api/46",
        "kthreadd/2", "bash/1162", "cat/25423", "bashthr/30480" };
    static const uint32_t ids[] = { 1, 45, 46, 2, 1162, 25423, 30480 };
    /* %Proc %User %Priv Ctxsw Elapsed PrioCur PrioBase State Wait PID TID Processor */
    static const uint64_t want[][12] = {
        { 1200 * T, 500 * T, 700 * T, 110, 7 * T, 120, 120, 5, 1, 1, 1, 1 },
        { 700 * T, 300 * T, 400 * T, 230, 120 * T, 120, 120, 5, 1, 1, 45, 0 },
        /* D; SCHED_FIFO rtprio 10: stat 18 = -11 -> 89, base 99 - 10; no status */
        { 250 * T, 140 * T, 110 * T, U, 130 * T, 89, 89, 5, 2, 1, 46, 1 },
        { 3 * T, 0, 3 * T, U, 0, 120, 120, 5, 1, 2, 2, 0 },
        /* nice 5: 25 + 100 and 120 + 5 */
        { 20 * T, 12 * T, 8 * T, U, 2015 * T, 125, 125, 5, 1, 1162, 1162, 0 },
        /* R: running (2), reason 0 */
        { 0, 0, 0, U, 69922 * T, 120, 120, 2, 0, 25423, 25423, 1 },
        /* Z: terminated (4), reason 6 */
        { 2 * T, T, T, U, 250010 * T, 120, 120, 4, 6, 30473, 30480, 0 },
    };
    ctx c;
    pl_snapshot s = { 0 };
    uint8_t w[12] = { 0 };
    CHECK(cx_open(&c, FX "proc-basic", "Thread", 100, 4096) == 0);
    CHECK(cx_collect(&c, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 7);
    for (uint32_t i = 0; i < s.ninst && i < 7; i++) {
        CHECK_STR(pl_snap_name(&s, i), names[i]);
        CHECK_EQ_U64(s.inst[i].id, ids[i]);
        expect_row(__LINE__, &s, names[i], want[i]);
    }
    CHECK_EQ_U64(s.inst[1].key, 120);
    CHECK_EQ_U64(s.obj_time, 6992200000ull);
    cx_close(&c);
    CHECK_EQ_U64(pl_pt_kept(), 0);
    /* without Context Switches/sec no task status is opened: 7 task stat + the task/
     * dirs of 1 2 1162 25423 30473 */
    CHECK(cx_open(&c, FX "proc-basic", "Thread", 100, 4096) == 0);
    w[0] = 1;
    CHECK(cx_collect(&c, w, &s) == 0);
    CHECK_EQ_U64(pl_pt_kept(), 12);
    EXPECT(&s, "process_api/45", "% Processor Time", 700 * T);
    EXPECT(&s, "process_api/45", "Context Switches/sec", U);
    pl_snap_free(&s);
    cx_close(&c);
}

/* Metadata: the same names, ids and keys as a collection (one source, stat). */
static void test_instances(void)
{
    static const char *const names[] = { "process_api", "kthreadd", "bash", "we ird) (x", "cat",
                                         "bash#1", "_Total#1", "trunc", "_Total" };
    static const char *const tnames[] = { "process_api/1", "process_api/45", "process_api/46",
        "kthreadd/2", "bash/1162", "cat/25423", "bashthr/30480" };
    pl_env *env = pl_env_new(FX "proc-basic");
    pl_snapshot s;
    const pl_counterset_def *cs = pl_env_find(env, "Process");
    pl_snap_init(&s, cs);
    CHECK(pl_enum_instances(env, cs, &s) == 0);
    /* 512 (a comm, no stat) and 30900 (garbage stat) are left out, as by collect */
    CHECK_EQ_U64(s.ninst, 9);
    for (uint32_t i = 0; i < s.ninst && i < 9; i++)
        CHECK_STR(pl_snap_name(&s, i), names[i]);
    if (s.ninst == 9) {
        CHECK_EQ_U64(s.inst[5].id, 30473);
        CHECK_EQ_U64(s.inst[5].key, 250000);
    }
    pl_snap_free(&s);
    cs = pl_env_find(env, "Thread");
    pl_snap_init(&s, cs);
    CHECK(pl_enum_instances(env, cs, &s) == 0);
    /* 30480's leader task is missing: it names itself, as in test_thread */
    CHECK_EQ_U64(s.ninst, 7);
    for (uint32_t i = 0; i < s.ninst && i < 7; i++)
        CHECK_STR(pl_snap_name(&s, i), tnames[i]);
    pl_snap_free(&s);
    pl_env_unref(env);
    CHECK_EQ_U64(pl_pt_kept(), 0);
}

/* No proc directory: a set-level error naming it. */
static void test_no_proc(void)
{
    ctx c;
    pl_snapshot s = { 0 };
    CHECK(cx_open(&c, FX "proc-basic/no-such-root", "Process", 100, 4096) == 0);
    CHECK(cx_collect(&c, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc");
    CHECK(c.cs->ops->instances(c.st, &s) == ENOENT);
    pl_snap_free(&s);
    cx_close(&c);
    CHECK(cx_open(&c, FX "proc-basic/no-such-root", "Thread", 100, 4096) == 0);
    CHECK(cx_collect(&c, NULL, &s) == ENOENT);
    pl_snap_free(&s);
    cx_close(&c);
}

/* ---- mutation trees --------------------------------------------------------------- */

/* Raw value of counter c of the instance with this id in block b, or U. */
static uint64_t sample_v(const pl_sample *smp, const pl_block *b, uint32_t id, uint32_t c)
{
    for (uint32_t i = 0; i < b->ninst; i++)
        if (pl_sample_inst_id(smp, b, i) == id) {
            size_t k = b->vals_off + (size_t)i * b->ncounters + c;
            return smp->have[k] ? smp->vals[k].v : U;
        }
    return U;
}

static int sample_inst(const pl_sample *smp, const pl_block *b, uint32_t id)
{
    for (uint32_t i = 0; i < b->ninst; i++)
        if (pl_sample_inst_id(smp, b, i) == id)
            return (int)i;
    return -1;
}

/* pid reuse, a process exiting, and _Total's rates that do not fall. */
static void test_reuse_exit(void)
{
    char dir[] = "/tmp/pl-process-XXXXXX", path[256];
    pl_env *env;
    pl_query *q;
    pl_sample *s[3] = { NULL, NULL, NULL };
    pl_add_status st = PL_ADD_STATUS_COUNT;
    uint32_t idx = 99;
    double v;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put_inplace(dir, "proc/uptime", "100.00 50.00\n"));
    CHECK(put_stat(dir, 100, "a", 10, 0, 1000));
    CHECK(put_stat(dir, 200, "b", 20, 0, 2000));
    CHECK(put_stat(dir, 300, "b", 30, 0, 3000));
    env = pl_env_new(dir);
    pl_env_set_user_hz(env, 100);
    q = pl_query_new(env);
    CHECK(pl_query_add_path(q, "\\Process(*)\\% Processor Time", &st, &idx) == 0 && st == 0);
    CHECK(pl_query_collect(q, &s[0]) == 0);
    const pl_block *b0 = &s[0]->blocks[0];
    CHECK_EQ_U64(b0->ninst, 4);
    CHECK_STR(pl_sample_inst_name(s[0], b0, 1), "b");
    CHECK_STR(pl_sample_inst_name(s[0], b0, 2), "b#1");
    CHECK_EQ_U64(sample_v(s[0], b0, TOTAL_ID, 0), 60 * T);   /* 10 + 20 + 30 ticks */

    /* 200 is now another process (start 2500, 1 tick): rewritten in place, as the
     * kept fd sees it; a and b#1 ran 5 and 10 ticks more */
    CHECK(put_stat(dir, 100, "a", 15, 0, 1000));
    CHECK(put_stat(dir, 200, "b", 1, 0, 2500));
    CHECK(put_stat(dir, 300, "b", 40, 0, 3000));
    CHECK(pl_query_collect(q, &s[1]) == 0);
    const pl_block *b1 = &s[1]->blocks[0];
    int i200 = sample_inst(s[1], b1, 200), i100 = sample_inst(s[1], b1, 100);
    CHECK(i200 >= 0 && i100 >= 0);
    CHECK_EQ_U64(pl_sample_inst_key(s[1], b1, (uint32_t)i200), 2500);
    CHECK_EQ_U64(sample_v(s[1], b1, 200, 0), 1 * T);
    CHECK(pl_sample_format(s[1], b1, (uint32_t)i200, 0, s[0], NULL, &v) == PL_FIRST_SAMPLE);
    CHECK(pl_sample_format(s[1], b1, (uint32_t)i100, 0, s[0], NULL, &v) == PL_VALID);
    /* _Total: alive 15 + 1 + 40, plus the old 200's last 20 = 76 (not 56: no fall) */
    CHECK_EQ_U64(sample_v(s[1], b1, TOTAL_ID, 0), 76 * T);
    CHECK(pl_sample_format(s[1], b1, b1->ninst - 1, 0, s[0], NULL, &v) == PL_VALID);

    /* 200 exits: 300 is the only b now (names shift, as on Windows); its fd closes */
    snprintf(path, sizeof path, "%s/proc/200/stat", dir);
    CHECK(remove(path) == 0);
    snprintf(path, sizeof path, "%s/proc/200", dir);
    CHECK(remove(path) == 0);
    CHECK(pl_query_collect(q, &s[2]) == 0);
    const pl_block *b2 = &s[2]->blocks[0];
    CHECK_EQ_U64(b2->ninst, 3);
    CHECK_STR(pl_sample_inst_name(s[2], b2, 1), "b");
    CHECK_EQ_U64(pl_sample_inst_id(s[2], b2, 1), 300);
    CHECK_EQ_U64(pl_pt_kept(), 2);     /* the stat fds of 100 and 300 */
    /* 15 + 40 alive, 20 + 1 of the exited identities */
    CHECK_EQ_U64(sample_v(s[2], b2, TOTAL_ID, 0), 76 * T);
    for (int k = 0; k < 3; k++)
        free(s[k]);
    pl_query_free(q);
    pl_env_unref(env);
    CHECK_EQ_U64(pl_pt_kept(), 0);
    rm_tree(dir);
}

/* An unreadable io leaves only the IO counters without a value, no_access. */
static void eacces_body(void)
{
    char dir[] = "/tmp/pl-process-XXXXXX", path[256];
    ctx c;
    pl_snapshot s = { 0 };
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put_stat(dir, 100, "a", 10, 0, 1000));
    CHECK(put_inplace(dir, "proc/100/io", "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\n"
              "write_bytes: 6\n"));
    snprintf(path, sizeof path, "%s/proc/100/io", dir);
    CHECK(chmod(path, 0) == 0);
    CHECK(cx_open(&c, dir, "Process", 100, 4096) == 0);
    CHECK(cx_collect(&c, NULL, &s) == 0);
    EXPECT(&s, "a", "IO Read Bytes/sec", D);
    EXPECT(&s, "a", "IO Other Bytes/sec", D);
    EXPECT(&s, "a", "% Processor Time", 10 * T);
    pl_snap_free(&s);
    cx_close(&c);
    rm_tree(dir);
}

/* Root reads anything: as root, the test runs in a child that has dropped to
 * nobody (65534), so the chmod 000 file really is unreadable. */
static void test_eacces(void)
{
    pid_t pid;
    int status = 0;
    if (geteuid() != 0) {
        eacces_body();
        return;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(99);
        eacces_body();
        _exit(ct_failed_checks ? 1 : 0);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Past the fd budget (half the soft limit less 64) files are opened and closed. */
static void test_fd_budget(void)
{
    char dir[] = "/tmp/pl-process-XXXXXX", name[16];
    struct rlimit old, low;
    ctx c;
    pl_snapshot s = { 0 };
    CHECK(mkdtemp(dir) != NULL);
    CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
    for (unsigned p = 1; p <= 60; p++) {
        char rel[64];
        snprintf(name, sizeof name, "p%u", p);
        CHECK(put_stat(dir, p, name, p, 1, 100 + p));
        snprintf(rel, sizeof rel, "proc/%u/status", p);
        CHECK(put_inplace(dir, rel, "voluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t1\n"));
    }
    low = old;
    low.rlim_cur = 200;                /* budget 200 / 2 - 64 = 36 */
    if (old.rlim_max < 200 || setrlimit(RLIMIT_NOFILE, &low) != 0) {
        rm_tree(dir);
        return;
    }
    CHECK(cx_open(&c, dir, "Process", 100, 4096) == 0);
    for (int round = 0; round < 2; round++) {
        CHECK(cx_collect(&c, NULL, &s) == 0);
        CHECK_EQ_U64(s.ninst, 61);
        CHECK_EQ_U64(pl_pt_kept(), 36);
        EXPECT(&s, "p1", "Context Switches/sec", 8);
        EXPECT(&s, "p60", "Context Switches/sec", 8);    /* read without a kept fd */
        EXPECT(&s, "p60", "% Processor Time", 61 * T);
        /* utime 1..60 + stime 60 x 1 = 1830 + 60 */
        EXPECT(&s, "_Total", "% Processor Time", 1890 * T);
    }
    pl_snap_free(&s);
    cx_close(&c);
    CHECK_EQ_U64(pl_pt_kept(), 0);
    CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
    pl_pt_budget_refresh();
    rm_tree(dir);
}

/* No /proc/uptime: no object clock, Elapsed Time unset, the rest as usual. */
static void test_no_uptime(void)
{
    char dir[] = "/tmp/pl-process-XXXXXX";
    ctx c;
    pl_snapshot s = { 0 };
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put_stat(dir, 7, "x", 1, 2, 3));
    CHECK(cx_open(&c, dir, "Process", 100, 4096) == 0);
    CHECK(cx_collect(&c, NULL, &s) == 0);
    CHECK_EQ_U64(s.obj_time, 0);
    EXPECT(&s, "x", "Elapsed Time", U);
    EXPECT(&s, "x", "% Processor Time", 3 * T);
    pl_snap_free(&s);
    cx_close(&c);
    rm_tree(dir);
}

/* Instance names with parentheses, '#' and '/' through counter paths. */
static void test_query_paths(void)
{
    static const struct { const char *path; uint64_t want; } cases[] = {
        { "\\Process(we ird) (x)\\ID Process", 20259 },
        { "\\Process(bash#1)\\Creating Process ID", 30471 },
        { "\\Process(_Total#1)\\Priority Base", 49 },
        { "\\Process(_Total)\\Thread Count", 11 },
        { "\\Thread(process_api/46)\\Priority Current", 89 },
        { "\\Thread(bashthr/30480)\\Thread State", 4 },
    };
    pl_env *env = pl_env_new(FX "proc-basic");
    pl_query *q = pl_query_new(env);
    pl_sample *smp = NULL;
    pl_add_status st;
    uint32_t idx;
    pl_env_set_user_hz(env, 100);
    pl_env_set_page_size(env, 4096);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(pl_query_add_path(q, cases[i].path, &st, &idx) == 0 && st == 0);
    CHECK(pl_query_collect(q, &smp) == 0);
    for (size_t i = 0; smp && i < sizeof cases / sizeof cases[0]; i++) {
        const pl_block *b = &smp->blocks[i];
        CHECK_EQ_U64(b->ninst, 1);
        if (b->ninst == 1)
            CHECK_EQ_U64(smp->vals[b->vals_off].v, cases[i].want);
    }
    free(smp);
    pl_query_free(q);
    pl_env_unref(env);
}

/* The stat parser on its own: the traps of reference 2.8 and bad numbers. */
static void test_parse_stat(void)
{
    pl_pstat ps;
    const uint32_t all = PS_BIT(PS_N) - 1;
    const char *l1 = "5 (x) y) S 3 0 0 0 -1 64 10 0 2 0 7 8 0 0 -2 -20 4 0 99 100 5 7\n";
    char longc[200];
    CHECK(pl_pt_parse_stat(l1, strlen(l1), all, &ps) == 0);
    CHECK(ps.comm_len == 4 && memcmp(ps.comm, "x) y", 4) == 0);    /* up to the LAST ')' */
    CHECK(ps.state == 'S');
    CHECK_EQ_U64(ps.v[PS_PPID], 3);
    CHECK_EQ_U64(ps.v[PS_UTIME], 7);
    CHECK_EQ_U64((int64_t)ps.v[PS_PRIO], -2);                      /* signed fields */
    CHECK_EQ_U64((int64_t)ps.v[PS_NICE], -20);
    CHECK_EQ_U64(ps.v[PS_START], 99);
    CHECK_EQ_U64(ps.v[PS_RSS], 5);                                 /* field 24 */
    CHECK(!(ps.have & PS_BIT(PS_CPU)));                            /* an older, shorter line */
    /* overflow, a negative count, a lone '-', a letter: those fields unset */
    const char *l2 = "5 (x) S 3 0 0 0 -1 64 -10 0 - 0 7x 8 0 0 20 0 4 0 99 "
                     "99999999999999999999999 5\n";
    CHECK(pl_pt_parse_stat(l2, strlen(l2), all, &ps) == 0);
    CHECK(!(ps.have & (PS_BIT(PS_MINFLT) | PS_BIT(PS_MAJFLT) | PS_BIT(PS_UTIME) |
                       PS_BIT(PS_VSIZE))));
    CHECK((ps.have & PS_BIT(PS_STIME)) && (ps.have & PS_BIT(PS_RSS)));
    CHECK_EQ_U64(ps.v[PS_RSS], 5);
    /* 20 digits that fit, and the largest value */
    const char *l3 = "5 (x) S 3 0 0 0 -1 64 18446744073709551615 0 0 0 0 0 0 0 20 0 1 0 1 2 3\n";
    CHECK(pl_pt_parse_stat(l3, strlen(l3), all, &ps) == 0);
    CHECK_EQ_U64(ps.v[PS_MINFLT], UINT64_MAX);
    /* no comm, no state, a state glued to more letters, empty */
    CHECK(pl_pt_parse_stat("5 x S 3\n", 8, all, &ps) == EINVAL);
    CHECK(pl_pt_parse_stat("5 (x)\n", 6, all, &ps) == EINVAL);
    CHECK(pl_pt_parse_stat("5 (x) SS 3\n", 11, all, &ps) == EINVAL);
    CHECK(pl_pt_parse_stat(") 5 (x", 6, all, &ps) == EINVAL);
    CHECK(pl_pt_parse_stat("", 0, all, &ps) == EINVAL);
    /* fields past `need` are not parsed */
    CHECK(pl_pt_parse_stat(l1, strlen(l1), PS_BIT(PS_PPID), &ps) == 0);
    CHECK(ps.have == PS_BIT(PS_PPID));
    /* a comm longer than the kernel's 64 is cut to 63 */
    memset(longc, 'c', sizeof longc);
    memcpy(longc, "9 (", 3);
    memcpy(longc + 150, ") R 1\n", 6);
    CHECK(pl_pt_parse_stat(longc, 156, all, &ps) == 0);
    CHECK_EQ_U64(ps.comm_len, PL_COMM_MAX - 1);
    CHECK_EQ_U64(ps.v[PS_PPID], 1);
}

static void test_scan_keys(void)
{
    static const pl_ptkey keys[] = { PL_PTKEY("VmPeak", 1), PL_PTKEY("Vm", 1), PL_PTKEY("n", 0) };
    uint64_t v[3];
    uint32_t h;
    /* "VmPeak" must not match "Vm"; a kB value without its unit leaves that key
     * unset; a last line without its newline is read */
    const char *t1 = "Vm:\t 5 kB\nVmPeak:\t 3 kB\nn: 4\n";
    const char *t2 = "VmPeak:\t 3\nVm:\t 5 kB\nn: 4";
    CHECK(pl_pt_scan_keys(t1, strlen(t1), keys, 3, v, &h) == 3);
    CHECK_EQ_U64(h, 7);
    CHECK_EQ_U64(v[0], 3072);
    CHECK_EQ_U64(v[1], 5120);
    CHECK_EQ_U64(v[2], 4);
    pl_pt_scan_keys(t2, strlen(t2), keys, 3, v, &h);
    CHECK_EQ_U64(h, 6);
    CHECK_EQ_U64(v[2], 4);
}

static void run_mutation_tests(void)
{
    RUN(test_reuse_exit);
    RUN(test_eacces);
    RUN(test_fd_budget);
    RUN(test_no_uptime);
    RUN(test_query_paths);
    RUN(test_parse_stat);
    RUN(test_scan_keys);
}

int main(void)
{
    RUN(test_defs);
    RUN(test_basic);
    RUN(test_lazy);
    RUN(test_hz_page);
    RUN(test_thread);
    RUN(test_instances);
    RUN(test_no_proc);
    run_mutation_tests();
    return CT_END();
}
