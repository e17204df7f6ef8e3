/* Memory and System providers through their ops, against the fixture trees
 * in spec/fixtures (run from the repository root).  Expected values are
 * worked out by hand from the fixture files; the arithmetic is in comments.
 * basic2 is the basic machine 10.00 s later (uptime 699.22 -> 709.22). */
#include "perflib.h"
#include "ctest.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define FX "spec/fixtures/"
#define KB 1024ull

static pl_env *fx_env(const char *tree)
{
    pl_env *env = pl_env_new(tree);
    if (env) {
        pl_env_set_page_size(env, 4096);
        pl_env_set_user_hz(env, 100);
    }
    return env;
}

/* One collection of a whole set (wanted may be NULL) into snap; returns
 * collect's result.  The snapshot stays valid until pl_snap_free. */
static int collect_set(const char *tree, const char *set, const uint8_t *wanted,
                       pl_snapshot *snap)
{
    pl_env *env = fx_env(tree);
    const pl_counterset_def *cs;
    void *st = NULL;
    int e;
    memset(snap, 0, sizeof *snap);
    if (!env)
        return errno ? errno : ENOMEM;
    cs = pl_env_find(env, set);
    if (!cs) {
        pl_env_unref(env);
        return ENOENT;
    }
    pl_snap_init(snap, cs);
    e = pl_provider_open(cs, env, &st);
    if (e == 0) {
        e = cs->ops->collect(st, wanted, snap);
        cs->ops->close(st);
    }
    pl_env_unref(env);     /* the def is static, the snapshot outlives env */
    return e;
}

static int idx_of(const pl_snapshot *s, const char *name)
{
    int i = pl_counter_index_by_name(s->cs, name);
    if (i < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  no counter \"%s\" in %s\n", name, s->cs->name);
    }
    return i;
}

static int has(const pl_snapshot *s, const char *name, uint64_t *v)
{
    int i = idx_of(s, name);
    if (i < 0 || s->ninst != 1)
        return 0;
    *v = s->values[i];
    return s->have[i];
}

static void expect(int line, const pl_snapshot *s, const char *name, uint64_t want)
{
    uint64_t v = 0;
    if (!has(s, name, &v)) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: \"%s\" unset, expected %llu\n", line, name,
                (unsigned long long)want);
    } else if (v != want) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: \"%s\" == %llu, expected %llu\n", line, name,
                (unsigned long long)v, (unsigned long long)want);
    }
}

static void expect_unset(int line, const pl_snapshot *s, const char *name)
{
    uint64_t v = 0;
    if (has(s, name, &v)) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: \"%s\" == %llu, expected unset\n", line, name,
                (unsigned long long)v);
    }
}

#define EXPECT(s, name, want) expect(__LINE__, s, name, want)
#define UNSET(s, name) expect_unset(__LINE__, s, name)

/* Raw value and base of a counter as the formula takes them. */
static pl_raw raw_of(const pl_snapshot *s, const char *name, uint64_t second)
{
    int i = idx_of(s, name);
    pl_raw r = {0, second, 0, 8};
    if (i >= 0) {
        const pl_counter_def *c = &s->cs->counters[i];
        r.first = s->values[i];
        if (c->base_id != PL_NO_ID)
            r.second = s->values[pl_counter_index(s->cs, c->base_id)];
    }
    return r;
}

static double fmt1(const pl_snapshot *s, const char *name)
{
    int i = idx_of(s, name);
    double out = -1;
    pl_raw r = raw_of(s, name, (uint64_t)s->obj_time);
    if (i >= 0)
        CHECK(pl_format_raw(s->cs->counters[i].type, &r, NULL, s->obj_freq, PL_FMT_NOCAP100,
                            s->cs->counters[i].scale, &out) == PL_VALID);
    return out;
}

/* Rate over the 10 s between basic and basic2, on a 1 GHz clock. */
static double rate(const pl_snapshot *s0, const pl_snapshot *s1, const char *name)
{
    int i = idx_of(s1, name);
    double out = -1;
    pl_raw r0 = raw_of(s0, name, 1000000000ull), r1 = raw_of(s1, name, 11000000000ull);
    if (i >= 0)
        CHECK(pl_format_raw(s1->cs->counters[i].type, &r1, &r0, 1000000000, PL_FMT_NOCAP100,
                            0, &out) == PL_VALID);
    return out;
}

static uint8_t *want_only(const pl_counterset_def *cs, const char *const *names)
{
    uint8_t *w = calloc(cs->ncounters, 1);
    for (; w && *names; names++) {
        int i = pl_counter_index_by_name(cs, *names);
        CHECK(i >= 0);
        if (i >= 0)
            w[i] = 1;
    }
    return w;
}

/* ------------------------------------------------------------------ */

static void check_def(const pl_counterset_def *cs, const char *guid)
{
    pl_guid g;
    CHECK(pl_guid_parse(guid, &g) == 0);
    CHECK(pl_guid_equal(&cs->guid, &g));
    CHECK(cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE);
    CHECK(cs->costly == 0);
    CHECK(cs->help && strlen(cs->help) > 20);
    for (uint32_t i = 0; i < cs->ncounters; i++) {
        const pl_counter_def *c = &cs->counters[i];
        CHECK_EQ_U64(c->id, i);                      /* ids are the table order */
        CHECK(pl_type_known(c->type));
        CHECK(c->help && strlen(c->help) > 20 && c->help[strlen(c->help) - 1] == '.');
        CHECK(c->detail == PERF_DETAIL_NOVICE || c->detail == PERF_DETAIL_ADVANCED);
        for (uint32_t j = 0; j < i; j++)
            CHECK(strcmp(cs->counters[j].name, c->name) != 0);
        if (c->base_id != PL_NO_ID) {
            /* the base follows its numerator, hidden */
            CHECK_EQ_U64(c->base_id, i + 1);
            CHECK(i + 1 < cs->ncounters && pl_counter_hidden(&cs->counters[i + 1]));
        }
        if (pl_counter_hidden(c))
            CHECK(i > 0 && cs->counters[i - 1].base_id == i);
        if (strstr(c->name, "/sec"))
            CHECK_EQ_U64(c->type, PERF_COUNTER_BULK_COUNT);
    }
}

static void test_defs(void)
{
    pl_env *env = fx_env(FX "basic");
    const pl_counterset_def *m, *s;
    CHECK(env != NULL);
    if (!env)
        return;
    m = pl_env_find(env, "memory");
    s = pl_env_find(env, "{5823c5ba-7886-523b-9e1b-85b4b1272744}");
    CHECK(m && s);
    if (m && s) {
        CHECK_STR(m->name, "Memory");
        CHECK_STR(s->name, "System");
        check_def(m, "146c2676-5548-53f3-b7e0-d4bd5161f27f");
        check_def(s, "5823c5ba-7886-523b-9e1b-85b4b1272744");
        CHECK_EQ_U64(m->ncounters, 90);   /* 55 + the meminfo fields of issue 17 */
        CHECK_EQ_U64(s->ncounters, 17);
        CHECK(pl_counter_index_by_name(s, "System Calls/sec") < 0);   /* not on Linux */
        CHECK_EQ_U64(s->counters[pl_counter_index_by_name(s, "Load Average 1 min")].scale,
                     (uint64_t)(int64_t)-2);
    }
    pl_env_unref(env);
}

static void test_instances(void)
{
    pl_env *env = fx_env(FX "basic");
    const char *sets[] = {"Memory", "System"};
    for (int k = 0; env && k < 2; k++) {
        const pl_counterset_def *cs = pl_env_find(env, sets[k]);
        pl_snapshot snap;
        void *st = NULL;
        pl_snap_init(&snap, cs);
        CHECK(pl_provider_open(cs, env, &st) == 0);
        CHECK(cs->ops->instances(st, &snap) == 0);
        CHECK_EQ_U64(snap.ninst, 1);
        CHECK_STR(pl_snap_name(&snap, 0), "");
        CHECK_EQ_U64(snap.inst[0].id, 0);
        /* the same state collects again and again with the same answer */
        for (int r = 0; r < 3; r++) {
            CHECK(cs->ops->collect(st, NULL, &snap) == 0);
            CHECK_EQ_U64(snap.ninst, 1);
        }
        cs->ops->close(st);
        pl_snap_free(&snap);
    }
    pl_env_unref(env);
}

static void test_memory_basic(void)
{
    pl_snapshot s;
    CHECK(collect_set(FX "basic", "Memory", NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 1);
    EXPECT(&s, "Available Bytes", 23781276 * KB);          /* 24352026624 */
    EXPECT(&s, "Available KBytes", 23781276);
    EXPECT(&s, "Available MBytes", 23223);                  /* 23781276/1024 = 23223.9 */
    EXPECT(&s, "Committed Bytes", 612936 * KB);             /* 627646464 */
    EXPECT(&s, "Commit Limit", 14422810 * KB);              /* 14768957440 */
    EXPECT(&s, "% Committed Bytes In Use", 612936 * KB);
    EXPECT(&s, "% Committed Bytes In Use Base", 14422810 * KB);
    CHECK_NEAR(fmt1(&s, "% Committed Bytes In Use"), 100.0 * 612936 / 14422810, 1e-9); /* 4.2498 */
    EXPECT(&s, "Free & Zero Page List Bytes", 23340156 * KB);
    EXPECT(&s, "Cache Bytes", 601852 * KB);
    EXPECT(&s, "Modified Page List Bytes", (124 + 16) * KB);   /* Dirty + Writeback = 143360 */
    EXPECT(&s, "Pool Nonpaged Bytes", 53716 * KB);          /* SUnreclaim */
    EXPECT(&s, "Pool Paged Bytes", 48932 * KB);             /* SReclaimable */
    EXPECT(&s, "Total Bytes", 24684092 * KB);               /* 25276510208 */
    EXPECT(&s, "Buffers Bytes", 21480 * KB);
    EXPECT(&s, "Shared Bytes", 4964 * KB);
    EXPECT(&s, "Active Bytes", 253180 * KB);
    EXPECT(&s, "Inactive Bytes", 512404 * KB);
    EXPECT(&s, "Active Anon Bytes", 141112 * KB);
    EXPECT(&s, "Inactive Anon Bytes", 9472 * KB);
    EXPECT(&s, "Active File Bytes", 112068 * KB);
    EXPECT(&s, "Inactive File Bytes", 502932 * KB);
    EXPECT(&s, "Anonymous Bytes", 142396 * KB);
    EXPECT(&s, "Mapped Bytes", 118944 * KB);
    EXPECT(&s, "Slab Bytes", 102648 * KB);
    EXPECT(&s, "Slab Reclaimable Bytes", 48932 * KB);
    EXPECT(&s, "Slab Unreclaimable Bytes", 53716 * KB);
    EXPECT(&s, "Kernel Stack Bytes", 3296 * KB);
    EXPECT(&s, "Page Table Bytes", 3512 * KB);
    EXPECT(&s, "Mlocked Bytes", 3072 * KB);
    EXPECT(&s, "Unevictable Bytes", 3072 * KB);
    EXPECT(&s, "Percpu Bytes", 1536 * KB);
    EXPECT(&s, "Anon Huge Pages Bytes", 36864 * KB);
    EXPECT(&s, "Huge Pages Total Bytes", 16 * 2048 * KB);   /* 33554432 */
    EXPECT(&s, "Huge Pages Free Bytes", 12 * 2048 * KB);    /* 25165824 */
    EXPECT(&s, "Swap Total Bytes", 2097148 * KB);
    EXPECT(&s, "Swap Free Bytes", 2031612 * KB);
    EXPECT(&s, "Swap Cached Bytes", 1840 * KB);
    EXPECT(&s, "Zswap Bytes", 5120 * KB);
    EXPECT(&s, "Zswapped Bytes", 18432 * KB);
    EXPECT(&s, "Page Faults/sec", 4567890);                 /* pgfault */
    EXPECT(&s, "Page Reads/sec", 3210);                     /* pgmajfault */
    EXPECT(&s, "Pages Input/sec", 1200);                    /* pswpin */
    EXPECT(&s, "Pages Output/sec", 16384);                  /* pswpout */
    EXPECT(&s, "Pages/sec", 1200 + 16384);                  /* 17584 */
    EXPECT(&s, "Page-in Bytes/sec", 2356457 * KB);          /* pgpgin KiB: 2413011968 */
    EXPECT(&s, "Page-out Bytes/sec", 1893080 * KB);         /* 1938513920 */
    EXPECT(&s, "Pages Freed/sec", 8123456);
    EXPECT(&s, "Pages Scanned kswapd/sec", 50000);
    EXPECT(&s, "Pages Scanned Direct/sec", 4000);           /* not + pgscan_direct_throttle 7 */
    EXPECT(&s, "Pages Stolen/sec", 40000 + 2000);           /* not + pgsteal_anon/file */
    EXPECT(&s, "% Reclaim Efficiency", 42000);
    EXPECT(&s, "% Reclaim Efficiency Base", 50000 + 4000);
    EXPECT(&s, "Allocation Stalls/sec", 0 + 0 + 12 + 30 + 0);   /* allocstall_* */
    EXPECT(&s, "Working Set Refaults/sec", 150 + 2300);
    EXPECT(&s, "OOM Kills", 1);
    /* nothing left out of ids 0-54; test_memory_meminfo checks the later
     * ids, some of which this kernel's file lacks */
    for (uint32_t i = 0; i < s.cs->ncounters; i++)
        CHECK(s.cs->counters[i].id >= 55 || s.have[i]);
    pl_snap_free(&s);
}

static void test_memory_rates(void)
{
    pl_snapshot s0, s1;
    CHECK(collect_set(FX "basic", "Memory", NULL, &s0) == 0);
    CHECK(collect_set(FX "basic2", "Memory", NULL, &s1) == 0);
    EXPECT(&s1, "Available Bytes", 23745100 * KB);
    EXPECT(&s1, "Modified Page List Bytes", (2048 + 0) * KB);
    EXPECT(&s1, "Committed Bytes", 640112 * KB);
    EXPECT(&s1, "OOM Kills", 2);
    CHECK_NEAR(rate(&s0, &s1, "Page Faults/sec"), 12345, 1e-6);     /* (4691340-4567890)/10 */
    CHECK_NEAR(rate(&s0, &s1, "Page Reads/sec"), 7, 1e-9);          /* (3280-3210)/10 */
    CHECK_NEAR(rate(&s0, &s1, "Pages Input/sec"), 5, 1e-9);         /* (1250-1200)/10 */
    CHECK_NEAR(rate(&s0, &s1, "Pages Output/sec"), 15, 1e-9);       /* (16534-16384)/10 */
    CHECK_NEAR(rate(&s0, &s1, "Pages/sec"), 20, 1e-9);              /* (17784-17584)/10 */
    CHECK_NEAR(rate(&s0, &s1, "Page-in Bytes/sec"), 524288, 1e-6);  /* 5120 KiB x 1024 / 10 */
    CHECK_NEAR(rate(&s0, &s1, "Page-out Bytes/sec"), 1048576, 1e-6); /* 10240 KiB x 1024 / 10 */
    CHECK_NEAR(rate(&s0, &s1, "Pages Freed/sec"), 8000, 1e-6);      /* 80000/10 */
    CHECK_NEAR(rate(&s0, &s1, "Pages Scanned kswapd/sec"), 300, 1e-9);
    CHECK_NEAR(rate(&s0, &s1, "Pages Scanned Direct/sec"), 100, 1e-9);
    CHECK_NEAR(rate(&s0, &s1, "Pages Stolen/sec"), 360, 1e-9);      /* (2700+900)/10 */
    CHECK_NEAR(rate(&s0, &s1, "% Reclaim Efficiency"), 90, 1e-9);   /* 3600/(3000+1000) */
    CHECK_NEAR(rate(&s0, &s1, "Allocation Stalls/sec"), 0.5, 1e-12); /* (3+2)/10 */
    CHECK_NEAR(rate(&s0, &s1, "Working Set Refaults/sec"), 20, 1e-9); /* (20+180)/10 */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

static void test_memory_old_kernel(void)
{
    pl_snapshot s;
    CHECK(collect_set(FX "old-kernel", "Memory", NULL, &s) == 0);
    /* No MemAvailable: psutil's estimate with zoneinfo low = 8+1525+2507 =
     * 4040 pages x 4096 = 16547840 B = 16160 kB.  In kB:
     *   free 5123456 - 16160                            = 5107296
     *   file LRU 851256+1076400 = 1927656, less min(963828, 16160) = 1911496
     *   SReclaimable 200000, less min(100000, 16160)    = 183840
     *   total 7202632 kB = 7375495168 B, 7033 MB (7033.8) */
    EXPECT(&s, "Available Bytes", 7375495168ull);
    EXPECT(&s, "Available KBytes", 7202632);
    EXPECT(&s, "Available MBytes", 7033);
    /* per-zone reclaim counters summed; pgscan_direct_throttle is not a zone */
    EXPECT(&s, "Pages Scanned kswapd/sec", 0 + 400 + 1100 + 0);
    EXPECT(&s, "Pages Scanned Direct/sec", 0 + 50 + 150 + 0);
    EXPECT(&s, "Pages Stolen/sec", (0 + 300 + 700 + 0) + (0 + 20 + 80 + 0));
    EXPECT(&s, "% Reclaim Efficiency Base", 1500 + 200);
    EXPECT(&s, "Allocation Stalls/sec", 6);                 /* single "allocstall" */
    EXPECT(&s, "Huge Pages Total Bytes", 0);                /* 0 x 2048 kB: a real 0 */
    EXPECT(&s, "Swap Free Bytes", 4194300 * KB);
    /* fields this kernel does not have are absent, not 0 */
    UNSET(&s, "Zswap Bytes");
    UNSET(&s, "Zswapped Bytes");
    UNSET(&s, "Percpu Bytes");
    UNSET(&s, "Working Set Refaults/sec");
    UNSET(&s, "OOM Kills");
    pl_snap_free(&s);
}

static void test_memory_avail_zero(void)
{
    pl_snapshot s;
    CHECK(collect_set(FX "avail-zero", "Memory", NULL, &s) == 0);
    /* MemAvailable 0 and no zoneinfo: psutil falls back to MemFree + Cached
     * = 23340156 + 601852 = 23942008 kB = 24516616192 B, 23380 MB (23380.9) */
    EXPECT(&s, "Available Bytes", 23942008 * KB);
    EXPECT(&s, "Available KBytes", 23942008);
    EXPECT(&s, "Available MBytes", 23380);
    pl_snap_free(&s);
}

static void test_memory_wanted(void)
{
    pl_snapshot s;
    pl_env *env = fx_env(FX "broken-missing");
    const pl_counterset_def *cs = env ? pl_env_find(env, "Memory") : NULL;
    const char *mi[] = {"Available Bytes", "% Committed Bytes In Use",
                        "% Committed Bytes In Use Base", NULL};
    const char *vm[] = {"Page Faults/sec", NULL};
    uint8_t *w1, *w2;
    CHECK(cs != NULL);
    if (!cs)
        return;
    w1 = want_only(cs, mi);
    w2 = want_only(cs, vm);
    pl_env_unref(env);
    /* broken-missing has meminfo but no vmstat: the meminfo counters keep
     * their values, the vmstat ones are unset (issue 10 #14) */
    CHECK_EQ_U64(collect_set(FX "broken-missing", "Memory", NULL, &s), 0);
    EXPECT(&s, "Available Bytes", 23781276 * KB);
    EXPECT(&s, "Total Bytes", 24684092 * KB);
    UNSET(&s, "Page Faults/sec");
    UNSET(&s, "OOM Kills");
    pl_snap_free(&s);
    CHECK_EQ_U64(collect_set(FX "broken-missing", "Memory", w1, &s), 0);
    EXPECT(&s, "Available Bytes", 23781276 * KB);
    EXPECT(&s, "% Committed Bytes In Use", 612936 * KB);
    UNSET(&s, "Page Faults/sec");                            /* vmstat never opened */
    pl_snap_free(&s);
    /* only vmstat wanted, and it is missing: no source left, the set fails */
    CHECK_EQ_U64(collect_set(FX "broken-missing", "Memory", w2, &s), ENOENT);
    CHECK_STR(s.err_path, "proc/vmstat");
    pl_snap_free(&s);
    /* vmstat alone on a good tree: meminfo values stay unset */
    CHECK_EQ_U64(collect_set(FX "basic", "Memory", w2, &s), 0);
    EXPECT(&s, "Page Faults/sec", 4567890);
    UNSET(&s, "Total Bytes");
    UNSET(&s, "Available Bytes");
    pl_snap_free(&s);
    free(w1);
    free(w2);
}

static void test_memory_truncated(void)
{
    pl_snapshot s;
    /* meminfo ends after "Cached:           601" without a newline: that
     * last line counts as written (issue 10 #15), the later keys are absent;
     * vmstat ends with "pgfault 45" the same way */
    CHECK(collect_set(FX "broken-truncated", "Memory", NULL, &s) == 0);
    EXPECT(&s, "Total Bytes", 24684092 * KB);
    EXPECT(&s, "Available Bytes", 23781276 * KB);
    EXPECT(&s, "Buffers Bytes", 21480 * KB);
    EXPECT(&s, "Cache Bytes", 601 * KB);                     /* 615424 */
    UNSET(&s, "Committed Bytes");
    UNSET(&s, "Swap Total Bytes");
    UNSET(&s, "Huge Pages Total Bytes");
    EXPECT(&s, "Pages Input/sec", 1200);                     /* before the cut */
    EXPECT(&s, "Page-in Bytes/sec", 2356457 * KB);
    EXPECT(&s, "Page Faults/sec", 45);                       /* the last line */
    UNSET(&s, "Page Reads/sec");
    UNSET(&s, "OOM Kills");
    pl_snap_free(&s);
}

static void test_memory_garbage(void)
{
    pl_snapshot s;
    CHECK(collect_set(FX "broken-garbage", "Memory", NULL, &s) == 0);
    UNSET(&s, "Free & Zero Page List Bytes");               /* 2334x156 */
    UNSET(&s, "Cache Bytes");                               /* -852 */
    UNSET(&s, "Modified Page List Bytes");                  /* Dirty over 2^64 */
    UNSET(&s, "Committed Bytes");                           /* no digits */
    UNSET(&s, "% Committed Bytes In Use");
    EXPECT(&s, "% Committed Bytes In Use Base", 14422810 * KB);
    UNSET(&s, "Swap Total Bytes");                          /* "MB" */
    EXPECT(&s, "Swap Free Bytes", 2031612 * KB);
    EXPECT(&s, "Available Bytes", 23781276 * KB);           /* MemAvailable is fine */
    UNSET(&s, "Page Faults/sec");                           /* abc */
    UNSET(&s, "Pages Input/sec");                           /* 2^64 */
    UNSET(&s, "Pages/sec");
    EXPECT(&s, "Pages Output/sec", 16384);
    UNSET(&s, "Allocation Stalls/sec");                     /* allocstall_dma32 1.5 */
    EXPECT(&s, "Page Reads/sec", 3210);
    pl_snap_free(&s);
}

static void test_memory_empty(void)
{
    pl_snapshot s;
    CHECK_EQ_U64(collect_set(FX "broken-empty", "Memory", NULL, &s), EINVAL);
    CHECK_STR(s.err_path, "proc/meminfo");
    pl_snap_free(&s);
    CHECK_EQ_U64(collect_set(FX "no-such-tree", "Memory", NULL, &s), ENOENT);
    CHECK_STR(s.err_path, "proc/meminfo");
    pl_snap_free(&s);
}

static void test_system_basic(void)
{
    pl_snapshot s;
    CHECK(collect_set(FX "basic", "System", NULL, &s) == 0);
    EXPECT(&s, "Context Switches/sec", 2472631);            /* ctxt */
    EXPECT(&s, "Forks/sec", 25420);                         /* processes */
    EXPECT(&s, "Processor Queue Length", 3 - 1);            /* loadavg 3/102, less self */
    EXPECT(&s, "Processes Blocked", 0);
    EXPECT(&s, "Processes", 5);                             /* proc/1 2 3 512 25423 */
    EXPECT(&s, "Threads", 102);
    EXPECT(&s, "System Up Time", 0);
    CHECK_EQ_U64(s.obj_time, 6992200000ull);                /* 699.22 s x 10^7 */
    CHECK_EQ_U64(s.obj_freq, 10000000);
    CHECK_NEAR(fmt1(&s, "System Up Time"), 699.22, 1e-9);
    EXPECT(&s, "Load Average 1 min", 38);                   /* 0.38 x 100 */
    EXPECT(&s, "Load Average 5 min", 44);
    EXPECT(&s, "Load Average 15 min", 24);
    CHECK_NEAR(fmt1(&s, "Load Average 1 min"), 0.38, 1e-12);   /* 38 x 10^-2 */
    CHECK_NEAR(fmt1(&s, "Load Average 15 min"), 0.24, 1e-12);
    EXPECT(&s, "File Handles Allocated", 677);
    EXPECT(&s, "File Handles Max", 2466177);
    EXPECT(&s, "% File Handles In Use", 677);
    EXPECT(&s, "% File Handles In Use Base", 2466177);
    CHECK_NEAR(fmt1(&s, "% File Handles In Use"), 100.0 * 677 / 2466177, 1e-12); /* 0.02745 */
    EXPECT(&s, "Entropy Available Bits", 256);
    EXPECT(&s, "Max Processes", 4194304);
    EXPECT(&s, "Max Threads", 191795);
    for (uint32_t i = 0; i < s.cs->ncounters; i++)
        CHECK(s.have[i]);
    pl_snap_free(&s);
}

static void test_system_rates(void)
{
    pl_snapshot s0, s1;
    CHECK(collect_set(FX "basic", "System", NULL, &s0) == 0);
    CHECK(collect_set(FX "basic2", "System", NULL, &s1) == 0);
    CHECK_NEAR(rate(&s0, &s1, "Context Switches/sec"), 2500, 1e-6);  /* (2497631-2472631)/10 */
    CHECK_NEAR(rate(&s0, &s1, "Forks/sec"), 4, 1e-9);                 /* (25460-25420)/10 */
    EXPECT(&s1, "Processor Queue Length", 2 - 1);           /* 2/105 */
    EXPECT(&s1, "Threads", 105);
    EXPECT(&s1, "Processes Blocked", 1);
    EXPECT(&s1, "Processes", 6);                            /* 1 2 3 512 25431 25432 */
    CHECK_EQ_U64(s1.obj_time, 7092200000ull);               /* 709.22 s */
    CHECK_NEAR(fmt1(&s1, "Load Average 5 min"), 0.47, 1e-12);
    EXPECT(&s1, "File Handles Allocated", 704);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

static void test_system_broken(void)
{
    pl_snapshot s;
    pl_env *env = fx_env(FX "basic");
    const pl_counterset_def *cs = env ? pl_env_find(env, "System") : NULL;
    const char *ctx[] = {"Context Switches/sec", NULL};
    uint8_t *w = cs ? want_only(cs, ctx) : NULL;
    pl_env_unref(env);

    /* garbage: each malformed field alone is unset */
    CHECK(collect_set(FX "broken-garbage", "System", NULL, &s) == 0);
    UNSET(&s, "Context Switches/sec");                      /* 24x2631 */
    EXPECT(&s, "Forks/sec", 25420);
    UNSET(&s, "Processes Blocked");                         /* -1 */
    EXPECT(&s, "Load Average 1 min", 38);
    UNSET(&s, "Load Average 5 min");                        /* zz */
    EXPECT(&s, "Load Average 15 min", 24);
    EXPECT(&s, "Processor Queue Length", 2);                /* 3/1x2 */
    UNSET(&s, "Threads");
    UNSET(&s, "System Up Time");                            /* abc */
    CHECK_EQ_U64(s.obj_time, 0);
    EXPECT(&s, "File Handles Allocated", 677);
    UNSET(&s, "File Handles Max");                          /* lots */
    UNSET(&s, "% File Handles In Use");
    UNSET(&s, "Entropy Available Bits");                    /* "2 5 6" */
    UNSET(&s, "Max Processes");                             /* empty line */
    EXPECT(&s, "Max Threads", 191795);
    pl_snap_free(&s);

    /* truncated /proc/stat: lines after btime are absent */
    CHECK(collect_set(FX "broken-truncated", "System", NULL, &s) == 0);
    EXPECT(&s, "Context Switches/sec", 2472631);
    UNSET(&s, "Forks/sec");
    UNSET(&s, "Processes Blocked");
    pl_snap_free(&s);

    /* missing loadavg and /proc/sys only unset their own counters (issue 10
     * #14): the others keep their values */
    CHECK_EQ_U64(collect_set(FX "broken-missing", "System", NULL, &s), 0);
    EXPECT(&s, "Context Switches/sec", 2472631);
    UNSET(&s, "Processor Queue Length");
    UNSET(&s, "Load Average 1 min");
    UNSET(&s, "Threads");
    pl_snap_free(&s);
    CHECK(w != NULL);
    CHECK_EQ_U64(collect_set(FX "broken-missing", "System", w, &s), 0);
    EXPECT(&s, "Context Switches/sec", 2472631);
    UNSET(&s, "Processes");                                 /* /proc not listed */
    UNSET(&s, "System Up Time");
    pl_snap_free(&s);

    /* an empty loadavg is a failed source: its counters unset, the rest kept */
    CHECK_EQ_U64(collect_set(FX "broken-empty", "System", NULL, &s), 0);
    EXPECT(&s, "Context Switches/sec", 2472631);
    UNSET(&s, "Load Average 1 min");
    UNSET(&s, "System Up Time");                            /* uptime is empty too */
    pl_snap_free(&s);
    CHECK_EQ_U64(collect_set(FX "broken-empty", "System", w, &s), 0);
    EXPECT(&s, "Context Switches/sec", 2472631);
    pl_snap_free(&s);
    free(w);
}

static int put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    f = fopen(path, "w");          /* truncates in place: same inode */
    if (!f)
        return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

/* Files are opened once and re-read at offset 0: a rewrite is seen, and a
 * file unlinked after the first collection still reads through its fd. */
static void test_reread(void)
{
    char dir[] = "/tmp/pl-memsys-XXXXXX", sub[600], path[600];
    pl_env *env;
    const pl_counterset_def *cs;
    pl_snapshot s;
    void *st = NULL;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(sub, sizeof sub, "%s/proc", dir);
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(put(dir, "proc/meminfo", "MemTotal:  1000 kB\nMemFree:  10 kB\n"));
    CHECK(put(dir, "proc/vmstat", "pgfault 5\n"));
    env = fx_env(dir);
    cs = env ? pl_env_find(env, "Memory") : NULL;
    CHECK(cs != NULL);
    if (!cs) {
        pl_env_unref(env);
        return;
    }
    pl_snap_init(&s, cs);
    CHECK(pl_provider_open(cs, env, &st) == 0);
    CHECK(cs->ops->collect(st, NULL, &s) == 0);
    EXPECT(&s, "Total Bytes", 1000 * KB);
    EXPECT(&s, "Page Faults/sec", 5);
    EXPECT(&s, "Available Bytes", (10 + 0) * KB);    /* psutil: MemFree + Cached (absent: 0) */
    CHECK(put(dir, "proc/meminfo", "MemTotal:  1000 kB\nMemFree:  20 kB\nCached: 7 kB\n"));
    CHECK(put(dir, "proc/vmstat", "pgfault 9\n"));
    CHECK(cs->ops->collect(st, NULL, &s) == 0);
    EXPECT(&s, "Free & Zero Page List Bytes", 20 * KB);
    EXPECT(&s, "Cache Bytes", 7 * KB);
    EXPECT(&s, "Page Faults/sec", 9);
    snprintf(path, sizeof path, "%s/proc/meminfo", dir);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/proc/vmstat", dir);
    CHECK(unlink(path) == 0);
    CHECK(cs->ops->collect(st, NULL, &s) == 0);              /* still open */
    EXPECT(&s, "Cache Bytes", 7 * KB);
    cs->ops->close(st);
    pl_snap_free(&s);
    pl_env_unref(env);
    CHECK(rmdir(sub) == 0);
    CHECK(rmdir(dir) == 0);
}

/* The same collections through a query, as a user sees them. */
static void test_query(void)
{
    pl_env *env = fx_env(FX "broken-missing");
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_add_status st = PL_ADD_STATUS_COUNT;
    uint32_t i0 = 99, i1 = 99;
    pl_sample *smp = NULL;
    CHECK(q != NULL);
    if (!q) {
        pl_env_unref(env);
        return;
    }
    CHECK(pl_query_add_path(q, "\\Memory\\Available MBytes", &st, &i0) == 0);
    CHECK_EQ_U64(st, PL_ADD_OK);
    CHECK(pl_query_add_path(q, "\\System\\Context Switches/sec", &st, &i1) == 0);
    CHECK_EQ_U64(st, PL_ADD_OK);
    CHECK(pl_query_collect(q, &smp) == 0);
    if (smp) {
        for (uint32_t b = 0; b < smp->nblocks; b++) {
            const pl_block *blk = &smp->blocks[b];
            CHECK(blk->status == PL_VALID);
            CHECK_EQ_U64(blk->ninst, 1);
            CHECK(smp->have[blk->vals_off]);
            if (blk->cs && strcmp(blk->cs->name, "Memory") == 0)
                CHECK_EQ_U64(smp->vals[blk->vals_off].v, 23223);
            else
                CHECK_EQ_U64(smp->vals[blk->vals_off].v, 2472631);
        }
        free(smp);
    }
    pl_query_free(q);
    pl_env_unref(env);
}

/* This machine: plausible, not exact. */
static void test_live(void)
{
    pl_snapshot m, s;
    uint64_t avail = 0, total = 0, procs = 0, thr = 0, fmax = 0;
    CHECK(collect_set("/", "Memory", NULL, &m) == 0);
    CHECK(has(&m, "Total Bytes", &total) && total > 0);
    CHECK(has(&m, "Available Bytes", &avail) && avail > 0 && avail <= total);
    CHECK(has(&m, "Page Faults/sec", &thr) && thr > 0);
    pl_snap_free(&m);
    CHECK(collect_set("/", "System", NULL, &s) == 0);
    CHECK(has(&s, "Processes", &procs) && procs > 0);
    CHECK(has(&s, "Threads", &thr) && thr >= 1);
    CHECK(s.obj_time > 0 && s.obj_freq == 10000000);
    if (has(&s, "File Handles Max", &fmax))
        CHECK(fmax > 0);
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_defs);
    RUN(test_instances);
    RUN(test_memory_basic);
    RUN(test_memory_rates);
    RUN(test_memory_old_kernel);
    RUN(test_memory_avail_zero);
    RUN(test_memory_wanted);
    RUN(test_memory_truncated);
    RUN(test_memory_garbage);
    RUN(test_memory_empty);
    RUN(test_reread);
    RUN(test_system_basic);
    RUN(test_system_rates);
    RUN(test_system_broken);
    RUN(test_query);
    RUN(test_live);
    return CT_END();
}
