/* make bench: application providers (issue 12).
 *
 *   build/bench/appseg [-r ROUNDS]
 *
 * Update: ns per PerfSetULongLongCounterValue and per
 * PerfIncrementULongLongCounterValue on one instance, against a plain
 * store and a plain (non-atomic) add to the same mapped slot -- the floor
 * an application writing its own shared memory has (target <= 5 ns) -- and
 * the anchor the issue names: PCP's MMV library (Debian's libpcp-mmv1)
 * setting and incrementing one U64 counter of its own mapped file, in the
 * same run.
 * Read: the provider's collect of a set of 1,000 instances x 10 counters
 * (its sealed memfd read in place: liveness, checks and the snapshot)
 * against a C floor that memcpy's the same segment from its mapping
 * (target <= 1.2x); a whole query collect (\Bench Set(*)\*: the reader
 * and the sample built from it) and pread of the segment are shown beside.  The provider runs in
 * this process.  Medians of ROUNDS (default 15) rounds; the kinds take turns
 * within a round.  Benchmarks report, tests assert: the exit status is 0
 * even on a MISS, 1 only when the set cannot be published or read. */
#include "perflib.h"
#include "appseg.h"
#include "perflib_provider.h"

#include "bench_clock.h"

#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NINST 1000
#define NCTR 10
#define UPDATES 20000000L

static volatile uint64_t sink;

typedef struct bench_set {
    HANDLE h;
    PPERF_COUNTERSET_INSTANCE inst[NINST];
} bench_set;

static int publish(bench_set *b)
{
    GUID prov = { 0xbe0c0001, 1, 2, { 3 } };
    struct {
        PERF_COUNTERSET_INFO info;
        PERF_COUNTER_INFO c[NCTR];
    } t = { { { 0xbe0c5e70, 0xa995, 0, { 0x12 } }, { 0 }, NCTR, PERF_COUNTERSET_MULTI_INSTANCES }, { { 0 } } };
    static char nbuf[NCTR][16];
    static const char *names[NCTR];
    char name[32];
    for (uint32_t c = 0; c < NCTR; c++) {
        t.c[c] = (PERF_COUNTER_INFO){ c + 1, c % 2 ? PERF_COUNTER_LARGE_RAWCOUNT : PERF_COUNTER_BULK_COUNT, 0, 8,
                                      PERF_DETAIL_NOVICE, 0, c * 8 };
        snprintf(nbuf[c], sizeof nbuf[c], "Counter %u", c + 1);
        names[c] = nbuf[c];
    }
    PERFLIB_COUNTERSET_NAMES nm = { "Bench Set", NULL, names, NULL, NULL, NULL };
    if (PerfStartProvider(&prov, NULL, &b->h) || PerfSetCounterSetInfoEx(b->h, &t.info, sizeof t, &nm))
        return -1;
    for (int i = 0; i < NINST; i++) {
        snprintf(name, sizeof name, "worker-%d", i);
        b->inst[i] = PerfCreateInstanceUtf8(b->h, &t.info.CounterSetGuid, name, (ULONG)i);
        if (!b->inst[i])
            return -1;
        for (uint32_t c = 0; c < NCTR; c++)
            PerfSetULongLongCounterValue(b->h, b->inst[i], c + 1, (ULONGLONG)i * 1000 + c);
    }
    return 0;
}

/* ns per call of four update kinds, one round. */
static void update_round(const bench_set *b, double ns[4])
{
    uint64_t *slot = (uint64_t *)(void *)(b->inst[0] + 1);   /* counter 1 at offset 0 */
    volatile uint64_t *vslot = slot;
    double t0 = bench_now();
    for (long i = 0; i < UPDATES; i++)
        *vslot = (uint64_t)i;                                   /* floor: a plain store */
    double t1 = bench_now();
    for (long i = 0; i < UPDATES; i++)
        PerfSetULongLongCounterValue(b->h, b->inst[0], 1, (ULONGLONG)i);
    double t2 = bench_now();
    for (long i = 0; i < UPDATES; i++)
        *vslot += 1;                                            /* floor: a plain add */
    double t3 = bench_now();
    for (long i = 0; i < UPDATES; i++)
        PerfIncrementULongLongCounterValue(b->h, b->inst[0], 1, 1);
    double t4 = bench_now();
    ns[0] = (t1 - t0) * 1e9 / UPDATES;
    ns[1] = (t2 - t1) * 1e9 / UPDATES;
    ns[2] = (t3 - t2) * 1e9 / UPDATES;
    ns[3] = (t4 - t3) * 1e9 / UPDATES;
}

/* PCP MMV's file with one U64 counter (no instances), in PCP_TMP_DIR: its address and the value. */
static void *mmv_open(const char *dir, pmAtomValue **value)
{
    static char name[] = "updates", none[] = "";
    static mmv_metric2_t metric = { name, 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
                                    MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE), 0, none, none };
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/mmv", dir);
    mkdir(tmp, 0700);
    setenv("PCP_TMP_DIR", dir, 1);
    void *addr = mmv_stats2_init("perflib-bench", 0, 0, &metric, 1, NULL, 0);
    *value = addr ? mmv_lookup_value_desc(addr, "updates", NULL) : NULL;
    return *value ? addr : NULL;
}

/* ns per mmv_set_value and per mmv_inc (PCP's own update calls), one round. */
static void mmv_round(void *addr, pmAtomValue *v, double ns[2])
{
    double t0 = bench_now();
    for (long i = 0; i < UPDATES; i++)
        mmv_set_value(addr, v, (double)i);
    double t1 = bench_now();
    for (long i = 0; i < UPDATES; i++)
        mmv_inc(addr, v);
    double t2 = bench_now();
    ns[0] = (t1 - t0) * 1e9 / UPDATES;
    ns[1] = (t2 - t1) * 1e9 / UPDATES;
}

/* µs per read of four kinds, one round of n reads each. */
static int read_round(pl_query *q, const pl_counterset_def *cs, void *state, const uint8_t *map, size_t len, int fd,
                      uint8_t *buf, int n, double us[4])
{
    pl_sample *s = NULL;
    pl_snapshot snap;
    pl_snap_init(&snap, cs);
    double t0 = bench_now();
    for (int k = 0; k < n; k++) {
        if (pl_query_collect(q, &s) != 0 || s->blocks[0].ninst != NINST)
            return -1;
        sink += s->vals[s->blocks[0].vals_off].v;
        free(s);
    }
    double t1 = bench_now();
    for (int k = 0; k < n; k++)
        sink += (uint64_t)pread(fd, buf, len, 0);
    double t2 = bench_now();
    for (int k = 0; k < n; k++) {
        memcpy(buf, map, len);                                 /* floor: the segment copied */
        sink += buf[len - 1];
    }
    double t3 = bench_now();
    for (int k = 0; k < n; k++) {               /* the reader alone: the provider's collect into a snapshot */
        pl_snap_clear(&snap);
        if (cs->ops->collect(state, NULL, &snap) != 0 || snap.ninst != NINST)
            return -1;
        sink += snap.values[0];
    }
    double t4 = bench_now();
    pl_snap_free(&snap);
    us[0] = (t3 - t2) * 1e6 / n;
    us[1] = (t2 - t1) * 1e6 / n;
    us[2] = (t1 - t0) * 1e6 / n;
    us[3] = (t4 - t3) * 1e6 / n;
    return 0;
}

static int run(int rounds, const char *dir)
{
    static bench_set b;
    double upd[4][64], rd[4][64], ratio[64], rratio[64], x[4], y[4], mmv[2][64], m[2] = { 0, 0 };
    pmAtomValue *mv = NULL;
    void *maddr = mmv_open(dir, &mv);
    pl_add_status st = PL_ADD_NO_SET;
    uint32_t idx;
    struct stat sb;
    if (publish(&b))
        return 1;
    pl_env *env = pl_env_new(NULL);
    pl_query *q = env ? pl_query_new(env) : NULL;
    int fd = open(PerfProviderSegmentPath(b.h), O_RDONLY);
    if (!q || pl_query_add_path(q, "\\Bench Set(*)\\*", &st, &idx) || st || fd < 0 || fstat(fd, &sb))
        return 1;
    size_t len = (size_t)sb.st_size;
    uint8_t *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0), *buf = malloc(len);
    if (map == MAP_FAILED || !buf)
        return 1;
    memcpy(&len, map + 8, sizeof len);                /* the bytes in use, as the reader reads */
    const pl_counterset_def *cs = pl_env_find(env, "Bench Set");
    void *state = NULL;
    if (!cs || pl_provider_open(cs, env, &state) != 0)
        return 1;
    for (int r = 0; r < rounds; r++) {
        update_round(&b, x);
        if (maddr)
            mmv_round(maddr, mv, m);
        mmv[0][r] = m[0];
        mmv[1][r] = m[1];
        if (read_round(q, cs, state, map, len, fd, buf, 200, y))
            return 1;
        for (int k = 0; k < 4; k++)
            upd[k][r] = x[k];
        for (int k = 0; k < 4; k++)
            rd[k][r] = y[k];
        ratio[r] = y[2] / y[0];
        rratio[r] = y[3] / y[0];
    }
    printf("appseg update (ns per call, median of %d rounds):\n", rounds);
    printf("  %-38s %6.2f   floor (plain store)   %6.2f   %s (target <= 5 ns)\n", "PerfSetULongLongCounterValue",
           bench_median(upd[1], rounds), bench_median(upd[0], rounds), bench_median(upd[1], rounds) <= 5 ? "ok" : "MISS");
    printf("  %-38s %6.2f   floor (plain add)     %6.2f   %s (target <= 5 ns)\n",
           "PerfIncrementULongLongCounterValue", bench_median(upd[3], rounds), bench_median(upd[2], rounds),
           bench_median(upd[3], rounds) <= 5 ? "ok" : "MISS");
    if (maddr)
        printf("  anchor, PCP MMV (libpcp_mmv): mmv_set_value %.2f ns, mmv_inc %.2f ns\n",
               bench_median(mmv[0], rounds), bench_median(mmv[1], rounds));
    else
        printf("  anchor, PCP MMV: its file could not be made in %s\n", dir);
    double rr = bench_median(rratio, rounds);
    printf("appseg read, %d instances x %d counters, segment %zu bytes (us per read):\n", NINST, NCTR, len);
    printf("  read (the provider's collect, in place)   %6.1f   floor memcpy %.1f   ratio %.2f   %s (target <= 1.2x)\n",
           bench_median(rd[3], rounds), bench_median(rd[0], rounds), rr, rr <= 1.2 ? "ok" : "MISS");
    printf("  whole query collect (read + a sample of %d values) %.1f   ratio %.2f;   pread of the segment %.1f\n",
           NINST * NCTR, bench_median(rd[2], rounds), bench_median(ratio, rounds), bench_median(rd[1], rounds));
    cs->ops->close(state);
    munmap(map, (size_t)sb.st_size);
    free(buf);
    close(fd);
    pl_query_free(q);
    pl_env_unref(env);
    PerfStopProvider(b.h);
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 15;
    char dir[] = "/tmp/perflib-bench-XXXXXX";
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-r") == 0)
            rounds = atoi(argv[++i]);
    if (rounds < 1 || rounds > 64)
        rounds = 15;
    if (!mkdtemp(dir))
        return 1;
    setenv("PERFLIB_APPSEG_DIR", dir, 1);
    pl_appseg_enable();
    int e = run(rounds, dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);     /* MMV's file and directory too */
    if (system(cmd) != 0)
        e = e ? e : 1;
    if (e)
        fprintf(stderr, "appseg bench: cannot publish or read the set\n");
    return e;
}
