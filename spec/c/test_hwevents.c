/* Hardware Events: the pure parts (group-read parsing, multiplex scaling,
 * CPU lists) on synthetic buffers; CPU enumeration on the hwev-* fixture
 * trees; the whole collect path with a fake perf_event_open (lazy opening,
 * groups, failures, multiplexing, unscheduled intervals, hotplug, _Total);
 * and the registered set through pl_query_* on fixtures and on "/".
 *
 * The provider's statics are reached by including its source under another
 * name for the exported definition; the registered copy in the core objects
 * is the one pl_env_find returns. */
#define pl_hwevents_def hwev_copy_def
#include "hwevents.c"
#undef pl_hwevents_def
#include "ctest.h"
#include "ctest_snap.h"

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#define FX "spec/fixtures/"

/* ---- pure parts ------------------------------------------------------------------ */

static void test_parse_group(void)
{
    /* nr 3, enabled 1000, running 500, values 7 8 9; parsed from an odd
     * address to show no aligned loads are assumed */
    uint64_t w[6] = { 3, 1000, 500, 7, 8, 9 }, v[NEV], en = 0, run = 0;
    unsigned char raw[1 + sizeof w];
    memcpy(raw + 1, w, sizeof w);
    CHECK(hwev_parse_group(raw + 1, sizeof w, 3, v, &en, &run) == 0);
    CHECK_EQ_U64(en, 1000);
    CHECK_EQ_U64(run, 500);
    CHECK_EQ_U64(v[0], 7);
    CHECK_EQ_U64(v[2], 9);
    CHECK(hwev_parse_group(raw + 1, sizeof w, 2, v, &en, &run) == EINVAL);   /* nr != members */
    CHECK(hwev_parse_group(raw + 1, 40, 3, v, &en, &run) == EINVAL);         /* 5 words of 6 */
    CHECK(hwev_parse_group(raw + 1, 23, 0, v, &en, &run) == EINVAL);         /* no header */
    CHECK(hwev_parse_group(raw + 1, 0, 3, v, &en, &run) == EINVAL);
    w[0] = 0;                /* an empty group reads as just the header */
    CHECK(hwev_parse_group(w, 24, 0, v, &en, &run) == 0);
    w[0] = UINT64_MAX;       /* a hostile nr must not overflow the length check */
    CHECK(hwev_parse_group(w, sizeof w, 3, v, &en, &run) == EINVAL);
}

static void test_scale(void)
{
    CHECK_EQ_U64(hwev_scale(1234, 1000, 1000), 1234);        /* on the PMU all the time */
    CHECK_EQ_U64(hwev_scale(1234, 1000, 2000), 1234);        /* running > enabled: as is */
    CHECK_EQ_U64(hwev_scale(1234, 1000, 0), 1234);           /* caller's case; no division */
    CHECK_EQ_U64(hwev_scale(1000, 3000, 2000), 1500);        /* 1000 x 3/2 */
    CHECK_EQ_U64(hwev_scale(10, 4, 3), 13);                  /* 13.33 rounds down */
    CHECK_EQ_U64(hwev_scale(5, 3, 2), 8);                    /* 7.5 rounds half up */
    CHECK_EQ_U64(hwev_scale(1, 5, 3), 2);                    /* 1.67 */
    /* 2^62 x 3 / 2 = 6917529027641081856 needs 128-bit intermediates (2^62 x 3 > 2^63) */
    CHECK_EQ_U64(hwev_scale(1ull << 62, 3, 2), 6917529027641081856ull);
    CHECK_EQ_U64(hwev_scale(UINT64_MAX, 2, 1), UINT64_MAX);  /* saturates */
}

static void test_deltas(void)
{
    uint64_t ben = 0, brun = 0, braw[2] = { 0, 0 }, d[2] = { 0, 0 };
    uint64_t r1[2] = { 100, 40 }, r3[2] = { 300, 140 }, r4[2] = { 250, 150 };
    /* first read: enabled 1000, running 500: 100 x 2 = 200, 40 x 2 = 80 */
    CHECK(hwev_deltas(&ben, &brun, braw, 2, 1000, 500, r1, d) == 1);
    CHECK_EQ_U64(d[0], 200);
    CHECK_EQ_U64(d[1], 80);
    CHECK_EQ_U64(ben, 1000);
    CHECK_EQ_U64(braw[1], 40);
    /* not on the PMU since: no estimate, baseline kept */
    CHECK(hwev_deltas(&ben, &brun, braw, 2, 2000, 500, r1, d) == 0);
    CHECK_EQ_U64(ben, 1000);
    /* the next interval spans both: den 3000-1000 = 2000, drun 1500-500 = 1000,
     * counts 200 and 100, scaled x2: 400, 200 */
    CHECK(hwev_deltas(&ben, &brun, braw, 2, 3000, 1500, r3, d) == 1);
    CHECK_EQ_U64(d[0], 400);
    CHECK_EQ_U64(d[1], 200);
    /* a count going back: re-based, no value */
    CHECK(hwev_deltas(&ben, &brun, braw, 2, 4000, 2500, r4, d) == -1);
    CHECK_EQ_U64(braw[0], 250);
    CHECK_EQ_U64(ben, 4000);
    /* enabled going back: re-based too */
    CHECK(hwev_deltas(&ben, &brun, braw, 2, 100, 2600, r4, d) == -1);
    CHECK_EQ_U64(ben, 100);
}

static void test_cpulist(void)
{
    const char *p = "0-3,5,7-8\n";
    uint32_t lo = 99, hi = 99;
    CHECK(pl_cpulist_next(&p, 65536, &lo, &hi) == 1 && lo == 0 && hi == 3);
    CHECK(pl_cpulist_next(&p, 65536, &lo, &hi) == 1 && lo == 5 && hi == 5);
    CHECK(pl_cpulist_next(&p, 65536, &lo, &hi) == 1 && lo == 7 && hi == 8);
    CHECK(pl_cpulist_next(&p, 65536, &lo, &hi) == 0);
    static const char *const bad[] = { "3-1\n", "a\n", "0-\n", "-1\n", "0-x\n", "1x\n",
                                       "65536\n", "0-65536\n", "99999999999999999999999\n", NULL };
    for (int i = 0; bad[i]; i++) {
        p = bad[i];
        CHECK(pl_cpulist_next(&p, 65536, &lo, &hi) == -1);
    }
    p = "65535";             /* the highest CPU number taken, no newline */
    CHECK(pl_cpulist_next(&p, 65536, &lo, &hi) == 1 && lo == 65535 && hi == 65535);
    p = "";
    CHECK(pl_cpulist_next(&p, 65536, &lo, &hi) == 0);
}

/* ---- a fake perf_event_open --------------------------------------------------------- */

#define FCPU 4
#define FFD 128
static struct fake {
    struct { int used, cpu, ev, leader; } fd[FFD];
    int nopen, opens, reads;
    uint64_t count[FCPU][NEV];     /* raw kernel counts, by CPU and event */
    uint64_t en[FCPU][NEV], run[FCPU][NEV];   /* group times, by CPU and leader event */
    int err[FCPU][NEV];            /* errno an open fails with */
    int maxhw;                     /* hardware members a group takes (0: any) */
    int fail_read;
} fk;

static int ev_of(uint32_t type, uint64_t config)
{
    for (int e = 0; e < NEV; e++)
        if (events[e].type == type && events[e].config == config)
            return e;
    return -1;
}

static int fake_open(void *ud, uint32_t type, uint64_t config, int cpu, int group_fd)
{
    int e = ev_of(type, config), n = 0;
    (void)ud;
    if (e < 0 || cpu < 0 || cpu >= FCPU)
        return -EINVAL;
    fk.opens++;
    if (fk.err[cpu][e])
        return -fk.err[cpu][e];
    if (group_fd >= 0) {
        if (!fk.fd[group_fd].used || fk.fd[group_fd].leader != group_fd)
            return -EBADF;
        for (int f = 0; f < FFD; f++)
            n += fk.fd[f].used && fk.fd[f].leader == group_fd;
        if (fk.maxhw && type == PERF_TYPE_HARDWARE && n >= fk.maxhw)
            return -EINVAL;  /* as x86 validate_group: the group would not fit */
    }
    for (int f = 3; f < FFD; f++) {
        if (fk.fd[f].used)
            continue;
        fk.fd[f].used = 1;
        fk.fd[f].cpu = cpu;
        fk.fd[f].ev = e;
        fk.fd[f].leader = group_fd >= 0 ? group_fd : f;
        fk.nopen++;
        return f;
    }
    return -EMFILE;
}

/* The group's buffer: leader first, then members in the order opened (the
 * fake hands out the lowest free fd, and tests never reuse one mid-group). */
static ssize_t fake_read(void *ud, int fd, void *buf, size_t len)
{
    uint64_t w[3 + NEV];
    size_t n = 0;
    (void)ud;
    fk.reads++;
    if (fk.fail_read || fd < 0 || fd >= FFD || !fk.fd[fd].used) {
        errno = fk.fail_read ? fk.fail_read : EBADF;
        return -1;
    }
    int cpu = fk.fd[fd].cpu, lev = fk.fd[fd].ev;
    w[1] = fk.en[cpu][lev];
    w[2] = fk.run[cpu][lev];
    w[3 + n++] = fk.count[cpu][lev];
    for (int f = 0; f < FFD; f++)
        if (f != fd && fk.fd[f].used && fk.fd[f].leader == fd)
            w[3 + n++] = fk.count[cpu][fk.fd[f].ev];
    w[0] = n;
    if (len < (3 + n) * 8) {
        errno = ENOSPC;
        return -1;
    }
    memcpy(buf, w, (3 + n) * 8);
    return (ssize_t)((3 + n) * 8);
}

static void fake_close(void *ud, int fd)
{
    (void)ud;
    if (fd >= 0 && fd < FFD && fk.fd[fd].used) {
        fk.fd[fd].used = 0;
        fk.nopen--;
    }
}

/* A state of the provider's copy on root, with the fake installed. */
typedef struct hctx {
    pl_env *env;
    hwstate *st;
    pl_snapshot snap;
} hctx;

static int hc_open(hctx *h, const char *root)
{
    void *st = NULL;
    memset(&fk, 0, sizeof fk);
    memset(h, 0, sizeof *h);
    h->env = pl_env_new(root);
    if (!h->env)
        return errno;
    int e = hwev_copy_def.ops->open(h->env, &st);
    h->st = st;
    if (e == 0) {
        h->st->sys.open = fake_open;
        h->st->sys.read = fake_read;
        h->st->sys.close = fake_close;
    }
    pl_snap_init(&h->snap, &hwev_copy_def);
    return e;
}

static void hc_close(hctx *h)
{
    hwev_copy_def.ops->close(h->st);
    pl_snap_free(&h->snap);
    pl_env_unref(h->env);
}

static int hc_collect(hctx *h, const uint8_t *wanted)
{
    return hwev_copy_def.ops->collect(h->st, wanted, &h->snap);
}

static void expect_c(int line, const pl_snapshot *s, const char *inst, int c, int have, uint64_t want)
{
    int i = inst_of(s, inst);
    if (i < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: no instance %s\n", line, inst);
        return;
    }
    size_t k = (size_t)i * NC + (size_t)c;
    if (s->have[k] != have || (have == 1 && s->values[k] != want)) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s \"%s\" %s %llu, expected %s %llu\n", line, inst,
                counters[c].name, s->have[k] == 1 ? "set" : s->have[k] ? "denied" : "unset",
                (unsigned long long)s->values[k], have == 1 ? "set" : have ? "denied" : "unset",
                (unsigned long long)want);
    }
}
#undef EXPECT
#undef UNSET
#undef DENIED
#define EXPECT(s, inst, c, v) expect_c(__LINE__, s, inst, c, 1, v)
#define UNSET(s, inst, c) expect_c(__LINE__, s, inst, c, 0, 0)
#define DENIED(s, inst, c) expect_c(__LINE__, s, inst, c, PL_HAVE_NO_ACCESS, 0)

/* Every group of the fake: enabled = running = t (no multiplexing). */
static void fake_times(uint64_t t)
{
    for (int c = 0; c < FCPU; c++)
        for (int e = 0; e < NEV; e++)
            fk.en[c][e] = fk.run[c][e] = t;
}

/* ---- collect with the fake ------------------------------------------------------------ */

static void test_lazy_open(void)
{
    hctx h;
    uint8_t w[NC] = { 0 };
    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    CHECK(hwev_copy_def.ops->instances(h.st, &h.snap) == 0);
    CHECK_EQ_U64(h.snap.ninst, 3);
    CHECK_EQ_U64(fk.opens, 0);                       /* listing opens nothing */

    /* Context Switches/sec alone: one software event per CPU */
    w[C_CS] = 1;
    fk.count[0][E_CS] = 10;
    fk.count[1][E_CS] = 32;
    fake_times(1000);
    CHECK(hc_collect(&h, w) == 0);
    CHECK_EQ_U64(fk.opens, 2);
    CHECK_EQ_U64(fk.reads, 2);
    EXPECT(&h.snap, "0", C_CS, 10);
    EXPECT(&h.snap, "1", C_CS, 32);
    EXPECT(&h.snap, "_Total", C_CS, 42);             /* 10 + 32 */
    UNSET(&h.snap, "0", C_CYC);
    UNSET(&h.snap, "_Total", C_PF);

    /* % Cache Miss Ratio: misses and references join, led by the first opened */
    memset(w, 0, sizeof w);
    w[C_CMR] = w[C_CMRB] = 1;
    CHECK(hc_collect(&h, w) == 0);
    CHECK_EQ_U64(fk.opens, 6);                       /* + 2 per CPU */
    CHECK_EQ_U64(h.st->cpu[0].ng, 2);                /* software, hardware */
    CHECK_EQ_U64(h.st->cpu[0].g[1].n, 2);
    CHECK_EQ_U64(h.st->cpu[0].g[1].ev[0], E_CREF);
    CHECK_EQ_U64(h.st->cpu[0].g[1].ev[1], E_CMISS);
    CHECK_EQ_U64(fk.reads, 4);                       /* only the hardware groups */
    UNSET(&h.snap, "0", C_CS);                       /* not asked for, not read */

    /* everything: the rest joins the groups of its kind */
    CHECK(hc_collect(&h, NULL) == 0);
    CHECK_EQ_U64(fk.opens, 6 + 2 * 6);
    CHECK_EQ_U64(h.st->cpu[1].ng, 2);
    CHECK_EQ_U64(h.st->cpu[1].g[0].n, 3);            /* cs, migrations, faults */
    CHECK_EQ_U64(h.st->cpu[1].g[1].n, 6);
    CHECK_EQ_U64(fk.nopen, 18);
    hc_close(&h);
    CHECK_EQ_U64(fk.nopen, 0);                       /* close closes every fd */
}

static void test_values(void)
{
    hctx h;
    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    /* cpu0: 2000 cycles 3000 instructions 400 refs 100 misses 500 branches 5 misses,
     *       7 switches 1 migration 9 faults; cpu1: ten times as many hardware events */
    uint64_t c0[NEV] = { 2000, 3000, 400, 100, 500, 5, 7, 1, 9 };
    for (int e = 0; e < NEV; e++) {
        fk.count[0][e] = c0[e];
        fk.count[1][e] = e < SW_FIRST ? 10 * c0[e] : c0[e];
    }
    /* cycles group: enabled 20000 ns, running 10000 (half the time on the PMU) */
    fake_times(20000);
    fk.run[0][E_CYC] = fk.run[1][E_CYC] = 10000;
    CHECK(hc_collect(&h, NULL) == 0);
    /* the hardware counts scaled x2; software ones as they are */
    EXPECT(&h.snap, "0", C_CYC, 4000);
    EXPECT(&h.snap, "0", C_IPCB, 4000);
    EXPECT(&h.snap, "0", C_INS, 6000);
    EXPECT(&h.snap, "0", C_IPC, 6000);
    EXPECT(&h.snap, "0", C_CREF, 800);
    EXPECT(&h.snap, "0", C_CMRB, 800);
    EXPECT(&h.snap, "0", C_CMISS, 200);
    EXPECT(&h.snap, "0", C_CMR, 200);
    EXPECT(&h.snap, "0", C_BR, 1000);
    EXPECT(&h.snap, "0", C_BMRB, 1000);
    EXPECT(&h.snap, "0", C_BMISS, 10);
    EXPECT(&h.snap, "0", C_BMR, 10);
    EXPECT(&h.snap, "0", C_CS, 7);
    EXPECT(&h.snap, "0", C_MIG, 1);
    EXPECT(&h.snap, "0", C_PF, 9);
    EXPECT(&h.snap, "0", C_ACT, 100);                /* 10000 ns / 100 */
    EXPECT(&h.snap, "0", C_ACTB, 200);               /* 20000 ns / 100 */
    EXPECT(&h.snap, "1", C_CYC, 40000);              /* 20000 x 2 */
    EXPECT(&h.snap, "1", C_BMR, 100);
    EXPECT(&h.snap, "1", C_CS, 7);
    EXPECT(&h.snap, "_Total", C_CYC, 44000);         /* 4000 + 40000 */
    EXPECT(&h.snap, "_Total", C_INS, 66000);
    EXPECT(&h.snap, "_Total", C_CMR, 2200);
    EXPECT(&h.snap, "_Total", C_CS, 14);
    EXPECT(&h.snap, "_Total", C_ACT, 200);           /* 100 + 100 */
    EXPECT(&h.snap, "_Total", C_ACTB, 400);

    /* 10 us later, the group on the PMU for all of it: no scaling of the new
     * counts.  cpu0 +1000 cycles +2500 instructions +100 refs +50 misses */
    fk.count[0][E_CYC] += 1000;
    fk.count[0][E_INS] += 2500;
    fk.count[0][E_CREF] += 100;
    fk.count[0][E_CMISS] += 50;
    fake_times(30000);
    fk.run[0][E_CYC] = fk.run[1][E_CYC] = 20000;
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "0", C_CYC, 5000);               /* 4000 + 1000 */
    EXPECT(&h.snap, "0", C_INS, 8500);               /* 6000 + 2500 */
    EXPECT(&h.snap, "0", C_CMISS, 250);
    EXPECT(&h.snap, "0", C_ACT, 200);
    EXPECT(&h.snap, "0", C_ACTB, 300);
    /* the formulas over the interval: IPC 2500 / 1000, cache misses 50 / 100,
     * counter active (200-100) / (300-200) */
    double v;
    pl_raw n1 = { 8500, 5000, 0, 8 }, n0 = { 6000, 4000, 0, 8 };
    CHECK(pl_format_raw(PERF_AVERAGE_BULK, &n1, &n0, 1, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 2.5, 1e-12);
    pl_raw m1 = { 250, 900, 0, 8 }, m0 = { 200, 800, 0, 8 };
    CHECK(pl_format_raw(PERF_SAMPLE_FRACTION, &m1, &m0, 1, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 50.0, 1e-12);
    pl_raw a1 = { 200, 300, 0, 8 }, a0 = { 100, 200, 0, 8 };
    CHECK(pl_format_raw(PERF_SAMPLE_FRACTION, &a1, &a0, 1, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 100.0, 1e-12);
    hc_close(&h);
}

static void test_failures(void)
{
    hctx h;
    uint8_t w[NC] = { 0 };
    /* no PMU: hardware events ENOENT on every CPU; software events still count */
    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    for (int c = 0; c < FCPU; c++)
        for (int e = 0; e < SW_FIRST; e++)
            fk.err[c][e] = ENOENT;
    fk.count[0][E_PF] = 5;
    fk.count[1][E_PF] = 6;
    fake_times(100);
    CHECK(hc_collect(&h, NULL) == 0);
    UNSET(&h.snap, "0", C_CYC);
    UNSET(&h.snap, "0", C_IPC);
    UNSET(&h.snap, "_Total", C_CMR);
    UNSET(&h.snap, "_Total", C_ACT);
    EXPECT(&h.snap, "0", C_PF, 5);
    EXPECT(&h.snap, "_Total", C_PF, 11);
    int opens = fk.opens;
    CHECK(hc_collect(&h, NULL) == 0);
    CHECK_EQ_U64(fk.opens, opens);                   /* failed opens are not retried */
    /* a query that wants only hardware events fails with the errno */
    w[C_IPC] = w[C_IPCB] = 1;
    CHECK(hc_collect(&h, w) == ENOENT);
    CHECK_STR(h.snap.err_path, "sys/bus/event_source/devices");
    hc_close(&h);

    /* perf_event_paranoid: everything EACCES */
    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    for (int c = 0; c < FCPU; c++)
        for (int e = 0; e < NEV; e++)
            fk.err[c][e] = EACCES;
    CHECK(hc_collect(&h, NULL) == EACCES);
    CHECK_STR(h.snap.err_path, "proc/sys/kernel/perf_event_paranoid");
    CHECK_EQ_U64(fk.nopen, 0);
    hc_close(&h);

    /* the paranoia level refuses cpu1's cycles (EACCES): its cycles, IPC and
     * _Total's are no_access, not merely unset; cpu0 counts */
    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    fk.err[1][E_CYC] = EACCES;
    fk.count[0][E_CYC] = 50;
    fk.count[0][E_INS] = fk.count[1][E_INS] = 70;
    fake_times(100);
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "0", C_CYC, 50);
    DENIED(&h.snap, "1", C_CYC);
    DENIED(&h.snap, "1", C_IPC);                     /* its base event was refused */
    DENIED(&h.snap, "_Total", C_CYC);
    EXPECT(&h.snap, "1", C_INS, 70);
    EXPECT(&h.snap, "_Total", C_INS, 140);
    hc_close(&h);

    /* one CPU refuses cycles: its value and _Total's are unset, cpu0 counts */
    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    fk.err[1][E_CYC] = EMFILE;
    fk.count[0][E_CYC] = 50;
    fk.count[0][E_INS] = fk.count[1][E_INS] = 70;
    fake_times(100);
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "0", C_CYC, 50);
    UNSET(&h.snap, "1", C_CYC);
    UNSET(&h.snap, "_Total", C_CYC);
    EXPECT(&h.snap, "1", C_INS, 70);                 /* instructions led cpu1's group */
    UNSET(&h.snap, "1", C_IPC);                      /* no base, no ratio */
    UNSET(&h.snap, "1", C_ACT);                      /* no cycles group */
    EXPECT(&h.snap, "_Total", C_INS, 140);
    /* a group that cannot be read leaves its values unset */
    fk.fail_read = EIO;
    CHECK(hc_collect(&h, NULL) == 0);
    UNSET(&h.snap, "0", C_INS);
    UNSET(&h.snap, "0", C_PF);
    CHECK_EQ_U64(h.snap.ninst, 3);
    hc_close(&h);

    /* a real (not fake) state on a fixture root: perf cannot count that machine */
    pl_env *env = pl_env_new(FX "hwev-basic");
    void *st = NULL;
    pl_snapshot s;
    CHECK(hwev_copy_def.ops->open(env, &st) == 0);
    pl_snap_init(&s, &hwev_copy_def);
    CHECK(hwev_copy_def.ops->collect(st, NULL, &s) == ENOTSUP);
    CHECK(hwev_copy_def.ops->instances(st, &s) == 0);
    CHECK_EQ_U64(s.ninst, 3);
    hwev_copy_def.ops->close(st);
    pl_snap_free(&s);
    pl_env_unref(env);
}

static void test_overflow_group(void)
{
    hctx h;
    CHECK(hc_open(&h, FX "hwev-sparse") == 0);
    fk.maxhw = 4;            /* a PMU with 4 counters: branches start a second group */
    for (int c = 0; c < FCPU; c++)
        for (int e = 0; e < NEV; e++)
            fk.count[c][e] = (uint64_t)(100 * c + e + 1);
    fake_times(1000);
    fk.run[2][E_BR] = 500;   /* cpu2's second group half the time on the PMU */
    CHECK(hc_collect(&h, NULL) == 0);
    CHECK_EQ_U64(h.st->cpu[0].ng, 3);                /* cycles group, branch group, software */
    CHECK_EQ_U64(h.st->cpu[0].g[0].n, 4);
    CHECK_EQ_U64(h.st->cpu[0].g[1].ev[0], E_BR);
    CHECK_EQ_U64(h.st->cpu[0].g[1].ev[1], E_BMISS);
    CHECK_EQ_U64(fk.reads, 9);                       /* 3 groups x 3 CPUs */
    EXPECT(&h.snap, "2", C_CMISS, 204);              /* 100 x 2 + E_CMISS + 1 */
    EXPECT(&h.snap, "2", C_BR, 410);                 /* (200 + 4 + 1) x 1000/500 */
    EXPECT(&h.snap, "2", C_BMR, 412);                /* (200 + 5 + 1) x 2 */
    EXPECT(&h.snap, "3", C_BR, 305);
    EXPECT(&h.snap, "_Total", C_BR, 5 + 410 + 305);
    CHECK_EQ_U64(h.snap.inst[1].id, 2);
    hc_close(&h);
}

static void test_unscheduled(void)
{
    hctx h;
    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    /* opened while another user holds the PMU: enabled 500, running 0, nothing
     * counted; the accumulators' start (0) is published, not "no data" */
    fk.en[0][E_CYC] = fk.en[1][E_CYC] = 500;
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "0", C_CYC, 0);
    EXPECT(&h.snap, "_Total", C_IPC, 0);
    EXPECT(&h.snap, "0", C_ACT, 0);
    EXPECT(&h.snap, "0", C_ACTB, 5);
    /* then on the PMU half the time from the open on: 1000 cycles x 1000/500 */
    fk.count[0][E_CYC] = fk.count[1][E_CYC] = 500;
    fake_times(1000);
    fk.run[0][E_CYC] = fk.run[1][E_CYC] = 500;
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "0", C_CYC, 1000);
    hc_close(&h);

    CHECK(hc_open(&h, FX "hwev-basic") == 0);
    fk.count[0][E_CYC] = fk.count[1][E_CYC] = 1000;
    fake_times(1000);
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "0", C_CYC, 1000);
    /* cpu0's group off the PMU for the whole next interval */
    fake_times(2000);
    fk.run[0][E_CYC] = 1000;
    CHECK(hc_collect(&h, NULL) == 0);
    UNSET(&h.snap, "0", C_CYC);
    UNSET(&h.snap, "_Total", C_CYC);
    EXPECT(&h.snap, "0", C_ACT, 10);                 /* times still published: 1000 / 100 */
    EXPECT(&h.snap, "0", C_ACTB, 20);
    EXPECT(&h.snap, "1", C_CYC, 1000);
    /* it runs again: the two intervals as one, den 3000 - 1000, drun 2000 - 1000,
     * 600 new cycles x 2 = 1200 */
    fake_times(3000);
    fk.run[0][E_CYC] = 2000;
    fk.count[0][E_CYC] = 1600;
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "0", C_CYC, 2200);
    EXPECT(&h.snap, "_Total", C_CYC, 3200);          /* 2200 + 1000 */
    hc_close(&h);
}

/* ---- hotplug, in a temporary tree ------------------------------------------------------ */

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb; (void)flag; (void)f;
    return remove(p);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static void test_hotplug(void)
{
    char dir[] = "/tmp/hwev-XXXXXX", sub[600];
    hctx h;
    CHECK(mkdtemp(dir) != NULL);
    static const char *const dirs[] = { "sys", "sys/devices", "sys/devices/system",
                                        "sys/devices/system/cpu" };
    for (size_t i = 0; i < 4; i++) {
        snprintf(sub, sizeof sub, "%s/%s", dir, dirs[i]);
        CHECK(mkdir(sub, 0700) == 0);
    }
    write_file(dir, "sys/devices/system/cpu/online", "0-1\n");

    CHECK(hc_open(&h, dir) == 0);
    fake_times(100);
    fk.count[0][E_CS] = 10;
    fk.count[1][E_CS] = 20;
    CHECK(hc_collect(&h, NULL) == 0);
    EXPECT(&h.snap, "_Total", C_CS, 30);
    CHECK_EQ_U64(fk.nopen, 18);

    /* cpu1 goes offline: its fds close, _Total keeps its last count */
    write_file(dir, "sys/devices/system/cpu/online", "0\n");
    fake_times(150);
    fk.count[0][E_CS] = 15;
    CHECK(hc_collect(&h, NULL) == 0);
    CHECK_EQ_U64(h.snap.ninst, 2);
    CHECK_EQ_U64(fk.nopen, 9);
    CHECK(inst_of(&h.snap, "1") < 0);
    EXPECT(&h.snap, "_Total", C_CS, 35);             /* 15 + 20 */

    /* back: new events count from 0, the accumulator goes on from 20 */
    write_file(dir, "sys/devices/system/cpu/online", "0-1\n");
    fk.count[1][E_CS] = 4;   /* the reopened event's own count */
    fake_times(50);          /* new groups' times start again (the fake shares them) */
    fk.en[0][E_CS] = fk.run[0][E_CS] = 200;
    fk.en[0][E_CYC] = fk.run[0][E_CYC] = 200;
    CHECK(hc_collect(&h, NULL) == 0);
    CHECK_EQ_U64(fk.nopen, 18);
    EXPECT(&h.snap, "1", C_CS, 24);                  /* 20 + 4 */
    EXPECT(&h.snap, "_Total", C_CS, 39);             /* 15 + 24 */
    EXPECT(&h.snap, "1", C_ACT, 1);                  /* (100 + 50) ns / 100, rounded down */
    EXPECT(&h.snap, "1", C_ACTB, 1);
    hc_close(&h);
    nftw(dir, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
}

/* ---- CPU enumeration on fixtures, through the registered set ---------------------------- */

static int enum_tree(const char *root, pl_snapshot *s)
{
    pl_env *env = pl_env_new(root);
    const pl_counterset_def *cs = pl_env_find(env, "Hardware Events");
    CHECK(cs != NULL && cs != &hwev_copy_def);
    pl_snap_init(s, cs);
    int e = pl_enum_instances(env, cs, s);
    pl_env_unref(env);
    return e;
}

static void test_enumeration(void)
{
    pl_snapshot s;
    CHECK(enum_tree(FX "hwev-basic", &s) == 0);
    CHECK_EQ_U64(s.ninst, 3);
    CHECK_STR(pl_snap_name(&s, 0), "0");
    CHECK_STR(pl_snap_name(&s, 2), "_Total");
    CHECK_EQ_U64(s.inst[2].id, 0xFFFFFFFEu);
    pl_snap_free(&s);

    CHECK(enum_tree(FX "hwev-sparse", &s) == 0);     /* 0,2-3 */
    CHECK_EQ_U64(s.ninst, 4);
    CHECK_STR(pl_snap_name(&s, 1), "2");
    CHECK_EQ_U64(s.inst[2].id, 3);
    pl_snap_free(&s);

    CHECK(enum_tree(FX "hwev-nosys", &s) == 0);      /* /proc/stat cpu0 cpu1 cpu3 */
    CHECK_EQ_U64(s.ninst, 4);
    CHECK_STR(pl_snap_name(&s, 2), "3");
    pl_snap_free(&s);

    static const struct { const char *tree; int err; const char *path; } bad[] = {
        { "hwev-garbage", EINVAL, "sys/devices/system/cpu/online" },
        { "hwev-empty", EINVAL, "sys/devices/system/cpu/online" },
        { "hwev-huge", EINVAL, "sys/devices/system/cpu/online" },
        { "hwev-stat-garbage", EINVAL, "proc/stat" },
        { "hwev-missing", ENOENT, "proc/stat" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char root[128];
        snprintf(root, sizeof root, FX "%s", bad[i].tree);
        CHECK(enum_tree(root, &s) == bad[i].err);
        CHECK_STR(s.err_path, bad[i].path);
        pl_snap_free(&s);
    }
}

static void test_metadata(void)
{
    pl_env *env = pl_env_new(NULL);
    const pl_counterset_def *cs = pl_env_find(env, "Hardware Events");
    CHECK(cs != NULL);
    if (!cs) {
        pl_env_unref(env);
        return;
    }
    CHECK(cs->costly == 1);
    CHECK_EQ_U64(cs->index, 27000);
    CHECK_EQ_U64(cs->instance_type, PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK(pl_env_find(env, "{2d397b95-60ba-5777-8d2d-5ed96c99ccc6}") == cs);
    for (uint32_t i = 0; i < cs->ncounters; i++) {
        const pl_counter_def *c = &cs->counters[i];
        CHECK_EQ_U64(c->id, i);
        CHECK(pl_type_known(c->type));
        if (c->base_id != PL_NO_ID) {                /* the base right after, hidden */
            CHECK_EQ_U64(c->base_id, i + 1);
            CHECK(pl_counter_hidden(&cs->counters[i + 1]));
        }
    }
    CHECK_EQ_U64(cs->counters[C_IPC].type, PERF_AVERAGE_BULK);
    CHECK_EQ_U64(cs->counters[C_IPCB].type, PERF_AVERAGE_BASE);
    CHECK_EQ_U64(cs->counters[C_CMR].type, PERF_SAMPLE_FRACTION);
    CHECK_EQ_U64(cs->counters[C_BMRB].type, PERF_SAMPLE_BASE);
    pl_env_unref(env);
}

/* ---- queries: a fixture root, and this machine ---------------------------------------- */

static void test_query_fixture(void)
{
    pl_env *env = pl_env_new(FX "hwev-basic");
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t i, j;
    pl_sample *s = NULL;
    CHECK(pl_query_add_path(q, "\\Hardware Events(*)\\*", &st, &i) == 0 && st == 0);
    CHECK(pl_query_add_path(q, "\\Processor Information(_Total)\\% Processor Time", &st, &j) == 0);
    CHECK(pl_query_collect(q, &s) == 0);
    if (s) {
        const pl_block *b = &s->blocks[i], *p = &s->blocks[j];
        CHECK_EQ_U64(b->shape, PERF_ERROR_RETURN);
        CHECK_EQ_U64(b->err, ENOTSUP);
        CHECK(p->shape != PERF_ERROR_RETURN);        /* the other set still works */
        CHECK_EQ_U64(p->ninst, 1);
        free(s);
    }
    pl_query_free(q);
    pl_env_unref(env);
}

static void test_query_live(void)
{
    pl_env *env = pl_env_new(NULL);
    pl_query *q = pl_query_new(env);
    pl_add_status st;
    uint32_t i;
    pl_sample *s0 = NULL, *s1 = NULL;
    CHECK(pl_query_add_path(q, "\\Hardware Events(*)\\*", &st, &i) == 0 && st == 0);
    CHECK(pl_query_collect(q, &s0) == 0);
    usleep(20000);
    CHECK(pl_query_collect(q, &s1) == 0);
    if (s0 && s1) {
        const pl_block *b = &s1->blocks[i];
        if (b->shape == PERF_ERROR_RETURN) {
            /* not allowed or nothing to count: one of the documented errnos */
            printf("  live: no events (%s)\n", strerror(b->err));
            CHECK(b->err == EACCES || b->err == EPERM || b->err == ENOENT ||
                  b->err == EOPNOTSUPP || b->err == ENODEV);
        } else {
            CHECK(b->ninst >= 2);
            CHECK_STR(pl_sample_inst_name(s1, b, b->ninst - 1), "_Total");
            double v;
            int cs = -1;
            for (uint32_t c = 0; c < b->ncounters; c++)
                if (strcmp(pl_sample_counter(s1, b, c)->name, "Context Switches/sec") == 0)
                    cs = (int)c;
            CHECK(cs >= 0);
            pl_status r = pl_sample_format(s1, b, b->ninst - 1, (uint32_t)cs, s0, NULL, &v);
            printf("  live: _Total Context Switches/sec %s %.1f\n", pl_status_name(r), v);
            CHECK(r == PL_VALID || r == PL_NO_DATA);
        }
    }
    free(s0);
    free(s1);
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    RUN(test_parse_group);
    RUN(test_scale);
    RUN(test_deltas);
    RUN(test_cpulist);
    RUN(test_lazy_open);
    RUN(test_values);
    RUN(test_failures);
    RUN(test_overflow_group);
    RUN(test_unscheduled);
    RUN(test_hotplug);
    RUN(test_enumeration);
    RUN(test_metadata);
    RUN(test_query_fixture);
    RUN(test_query_live);
    return CT_END();
}
