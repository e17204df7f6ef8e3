/* Processor Information through its ops and through queries, against the
 * fixture trees in spec/fixtures (run from the repository root) and against
 * temporary trees rewritten between collections.  Expected values are worked
 * out by hand from the fixture files; the arithmetic is in comments.
 *
 * Units: /proc/stat ticks at USER_HZ 100 are 10^7/100 = 100000 hns each, so
 * "N ticks" below means N x 100000 in the raw value.  Field order of a cpu
 * line: us ni sy id wa hi si st gu gn. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "cpufreq.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define FX "spec/fixtures/"
#define T100 100000ull                 /* hns per tick at USER_HZ 100 */
#define NODE_ID(n) (0xFFFF0000u | (n))
#define TOTAL_ID 0xFFFFFFFEu

static const char *const PCT[] = {     /* the PT100 counters against the base */
    "% Busy Time", "% User Time", "% Privileged Time", "% DPC Time", "% Interrupt Time",
    "% Idle Time", "% Nice Time", "% IO Wait Time", "% Steal Time", "% Guest Time", NULL
};

/* ---- a provider state kept across collections -------------------------- */

static int pc_open(pctx *p, const char *root, long hz)
{
    return pc_open_set(p, root, "Processor Information", hz, 0);
}

/* One collection of a whole tree. */
static int collect_tree(const char *root, long hz, const uint8_t *wanted, pl_snapshot *s)
{
    return pc_collect_tree(root, "Processor Information", hz, 0, wanted, s);
}

/* ---- snapshot accessors ------------------------------------------------ */


/* One-sample value (frequency, % of maximum). */
static double fmt1(const pl_snapshot *s, const char *inst, const char *ctr)
{
    return val2(s, s, inst, ctr);
}

/* ---- temporary trees --------------------------------------------------- */

/* ======================================================================== */

static void test_def(void)
{
    static const struct { uint32_t id; const char *name; uint32_t type; uint32_t base; } want[] = {
        { 0, "% Processor Time", PERF_100NSEC_TIMER_INV, PL_NO_ID },
        { 1, "% User Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 2, "% Privileged Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 3, "Interrupts/sec", PERF_COUNTER_BULK_COUNT, PL_NO_ID },
        { 4, "% DPC Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 5, "% Interrupt Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 6, "DPCs Queued/sec", PERF_COUNTER_BULK_COUNT, PL_NO_ID },
        { 7, "DPC Rate", PERF_COUNTER_RAWCOUNT, PL_NO_ID },
        { 8, "% Idle Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 9, "% C1 Time", PERF_100NSEC_TIMER, PL_NO_ID },
        { 10, "% C2 Time", PERF_100NSEC_TIMER, PL_NO_ID },
        { 11, "% C3 Time", PERF_100NSEC_TIMER, PL_NO_ID },
        { 12, "C1 Transitions/sec", PERF_COUNTER_BULK_COUNT, PL_NO_ID },
        { 13, "C2 Transitions/sec", PERF_COUNTER_BULK_COUNT, PL_NO_ID },
        { 14, "C3 Transitions/sec", PERF_COUNTER_BULK_COUNT, PL_NO_ID },
        { 15, "% Priority Time", PERF_100NSEC_TIMER_INV, PL_NO_ID },
        { 17, "Processor Frequency", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 18, "% of Maximum Frequency", PERF_LARGE_RAW_FRACTION, 37 },
        { 20, "Clock Interrupts/sec", PERF_COUNTER_BULK_COUNT, PL_NO_ID },
        { 21, "Average Idle Time", PERF_PRECISION_100NS_TIMER, 22 },
        { 22, "Average Idle Time Base", PERF_PRECISION_TIMESTAMP, PL_NO_ID },
        { 23, "Idle Break Events/sec", PERF_COUNTER_BULK_COUNT, PL_NO_ID },
        { 24, "% Processor Performance", PERF_AVERAGE_BULK, 25 },
        { 25, "% Processor Performance Base", PERF_AVERAGE_BASE, PL_NO_ID },
        { 26, "% Processor Utility", PERF_AVERAGE_BULK, 27 },    /* Windows' ids and types */
        { 27, "% Utility Base", PERF_AVERAGE_BASE, PL_NO_ID },
        { 28, "% Privileged Utility", PERF_AVERAGE_BULK, 27 },
        { 30, "% Performance Limit", PERF_COUNTER_RAWCOUNT, PL_NO_ID },
        { 31, "Performance Limit Flags", PERF_COUNTER_RAWCOUNT, PL_NO_ID },
        { 32, "Processor Time Base", PERF_PRECISION_TIMESTAMP, PL_NO_ID },
        { 33, "% Nice Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 34, "% IO Wait Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 35, "% Steal Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 36, "% Guest Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 37, "Maximum Frequency", PERF_LARGE_RAW_BASE, PL_NO_ID },
        { 38, "% Busy Time", PERF_PRECISION_100NS_TIMER, 32 },
        { 39, "Scaling Minimum Frequency", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },   /* Linux's */
        { 40, "Scaling Maximum Frequency", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 41, "Hardware Minimum Frequency", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 42, "Hardware Maximum Frequency", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 43, "Isolated", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 44, "Vulnerable", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 45, "Core Throttle Count", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 46, "Package Throttle Count", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID },
        { 47, "% Core Throttled", PERF_100NSEC_TIMER, PL_NO_ID },
        { 48, "% Package Throttled", PERF_100NSEC_TIMER, PL_NO_ID },
    };
    pl_env *env = pl_env_new(FX "basic");
    const pl_counterset_def *cs = env ? pl_env_find(env, "processor information") : NULL;
    pl_guid g;
    CHECK(cs != NULL);
    if (!cs) {
        pl_env_unref(env);
        return;
    }
    CHECK(pl_env_find(env, "{b4fc721a-0378-476f-89ba-a5a79f810b36}") == cs);
    CHECK(pl_guid_parse("b4fc721a-0378-476f-89ba-a5a79f810b36", &g) == 0);
    CHECK(pl_guid_equal(&cs->guid, &g));
    CHECK_STR(cs->name, "Processor Information");
    CHECK(cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK(cs->costly == 0);
    CHECK_EQ_U64(cs->ncounters, sizeof want / sizeof want[0]);
    for (uint32_t i = 0; i < cs->ncounters && i < sizeof want / sizeof want[0]; i++) {
        const pl_counter_def *c = &cs->counters[i];
        CHECK_EQ_U64(c->id, want[i].id);
        CHECK_STR(c->name, want[i].name);
        CHECK_EQ_U64(c->type, want[i].type);
        CHECK_EQ_U64(c->base_id, want[i].base);
        CHECK(pl_type_known(c->type));
        CHECK(c->help && strlen(c->help) > 20 && c->help[strlen(c->help) - 1] == '.');
        /* only the five bases are hidden */
        CHECK_EQ_U64(pl_counter_hidden(c), c->id == 22 || c->id == 25 || c->id == 27 || c->id == 32 ||
                     c->id == 37);
        if (c->base_id != PL_NO_ID)
            CHECK(pl_counter_index(cs, c->base_id) >= 0);
    }
    pl_env_unref(env);
}

/* cpu-full: 2 CPUs on node 0 with every source present. */
static void test_full_instances(void)
{
    static const uint32_t ids[] = { 0, 1, NODE_ID(0), TOTAL_ID };
    pctx p;
    pl_snapshot s = {0};
    CHECK(pc_open(&p, FX "cpu-full", 100) == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    pl_snap_init(&s, p.cs);
    CHECK(p.cs->ops->instances(p.st, &s) == 0);
    INSTS(&s, ids, "0,0", "0,1", "0,_Total", "_Total");
    /* the same state and snapshot, collected again and again, give the
     * same instances (the provider starts each snapshot afresh) */
    for (int r = 0; r < 3; r++) {
        CHECK(pc_collect(&p, NULL, &s) == 0);
        INSTS(&s, ids, "0,0", "0,1", "0,_Total", "_Total");
        EXPECT(&s, "0,1", "% User Time", 1970 * T100);
    }
    CHECK(p.cs->ops->instances(p.st, &s) == 0);
    CHECK_EQ_U64(s.ninst, 4);
    pl_snap_free(&s);
    CHECK(pl_enum_instances(p.env, p.cs, &s) == 0);
    INSTS(&s, ids, "0,0", "0,1", "0,_Total", "_Total");
    pl_snap_free(&s);
    pc_close(&p);
}

static void test_full_values(void)
{
    pl_snapshot s;
    CHECK(collect_tree(FX "cpu-full", 100, NULL, &s) == 0);
    /* cpu0 1000 20 300 5000 40 6 14 10 100 5
     *   base us+ni+sy+id+wa+hi+si+st = 1000+20+300+5000+40+6+14+10 = 6390
     *   idle id+wa = 5040, processor = 6390-5040 = 1350 = us+ni+sy+hi+si+st
     *   user (us-gu)+(ni-gn) = 900+15 = 915, nice 15, privileged sy+hi+si = 320
     *   guest gu+gn = 105 */
    EXPECT(&s, "0,0", "Processor Time Base", 6390 * T100);   /* 639000000 */
    EXPECT(&s, "0,0", "% Busy Time", 1350 * T100);
    EXPECT(&s, "0,0", "% User Time", 915 * T100);
    EXPECT(&s, "0,0", "% Privileged Time", 320 * T100);
    EXPECT(&s, "0,0", "% DPC Time", 14 * T100);
    EXPECT(&s, "0,0", "% Interrupt Time", 6 * T100);
    EXPECT(&s, "0,0", "% Idle Time", 5040 * T100);
    EXPECT(&s, "0,0", "% Nice Time", 15 * T100);
    EXPECT(&s, "0,0", "% IO Wait Time", 40 * T100);
    EXPECT(&s, "0,0", "% Steal Time", 10 * T100);
    EXPECT(&s, "0,0", "% Guest Time", 105 * T100);
    /* /proc/interrupts column CPU0: 10+0+100+1(NMI)+5000+300+70+5 = 5486;
     * ERR 7 and MIS 3 are machine-wide counts, not CPU0's */
    EXPECT(&s, "0,0", "Interrupts/sec", 5486);
    /* /proc/softirqs CPU0: 1+1000+3+500+50+0+7+900+0+1200 = 3661 */
    EXPECT(&s, "0,0", "DPCs Queued/sec", 3661);
    /* cpuidle state1..3 time in us x 10 (state0 POLL is not C1) */
    EXPECT(&s, "0,0", "% C1 Time", 10000000);
    EXPECT(&s, "0,0", "% C2 Time", 20000000);
    EXPECT(&s, "0,0", "% C3 Time", 30000000);
    EXPECT(&s, "0,0", "C1 Transitions/sec", 100);
    EXPECT(&s, "0,0", "C2 Transitions/sec", 200);
    EXPECT(&s, "0,0", "C3 Transitions/sec", 300);
    /* cpufreq 2400000 / 3000000 kHz; /proc/cpuinfo's 999 MHz is not used */
    EXPECT(&s, "0,0", "Processor Frequency", 2400);
    EXPECT(&s, "0,0", "% of Maximum Frequency", 2400);
    EXPECT(&s, "0,0", "Maximum Frequency", 3000);
    CHECK_NEAR(fmt1(&s, "0,0", "% of Maximum Frequency"), 80.0, 1e-12);
    CHECK_NEAR(fmt1(&s, "0,0", "Processor Frequency"), 2400.0, 0);

    /* cpu1 2000 30 400 4000 60 4 16 20 50 10
     *   base 2000+30+400+4000+60+4+16+20 = 6530, idle 4060, processor 2470
     *   user 1950+20 = 1970, nice 20, privileged 420, guest 60 */
    EXPECT(&s, "0,1", "Processor Time Base", 6530 * T100);
    EXPECT(&s, "0,1", "% Busy Time", 2470 * T100);
    EXPECT(&s, "0,1", "% User Time", 1970 * T100);
    EXPECT(&s, "0,1", "% Privileged Time", 420 * T100);
    EXPECT(&s, "0,1", "% DPC Time", 16 * T100);
    EXPECT(&s, "0,1", "% Interrupt Time", 4 * T100);
    EXPECT(&s, "0,1", "% Idle Time", 4060 * T100);
    EXPECT(&s, "0,1", "% Nice Time", 20 * T100);
    EXPECT(&s, "0,1", "% IO Wait Time", 60 * T100);
    EXPECT(&s, "0,1", "% Steal Time", 20 * T100);
    EXPECT(&s, "0,1", "% Guest Time", 60 * T100);
    EXPECT(&s, "0,1", "Interrupts/sec", 6697);     /* 0+9+200+2+6000+400+80+6 */
    EXPECT(&s, "0,1", "DPCs Queued/sec", 4775);    /* 2+2000+4+600+60+0+8+800+1+1300 */
    EXPECT(&s, "0,1", "% C1 Time", 15000000);      /* 1500000 us */
    EXPECT(&s, "0,1", "% C2 Time", 25000010);      /* 2500001 us */
    EXPECT(&s, "0,1", "% C3 Time", 35000030);      /* 3500003 us */
    EXPECT(&s, "0,1", "C1 Transitions/sec", 150);
    EXPECT(&s, "0,1", "C2 Transitions/sec", 251);
    EXPECT(&s, "0,1", "C3 Transitions/sec", 353);
    EXPECT(&s, "0,1", "Processor Frequency", 1200);   /* 1200500 kHz, truncated */
    EXPECT(&s, "0,1", "% of Maximum Frequency", 1200);
    EXPECT(&s, "0,1", "Maximum Frequency", 3000);
    CHECK_NEAR(fmt1(&s, "0,1", "% of Maximum Frequency"), 40.0, 1e-12);

    /* node 0 = cpu0 + cpu1 field by field:
     *   3000 50 700 9000 100 10 30 30 150 15: base 12920, idle 9100,
     *   processor 3820, user 2850+35 = 2885, nice 35, privileged 740, guest 165 */
    EXPECT(&s, "0,_Total", "Processor Time Base", 12920 * T100);
    EXPECT(&s, "0,_Total", "% Busy Time", 3820 * T100);
    EXPECT(&s, "0,_Total", "% User Time", 2885 * T100);
    EXPECT(&s, "0,_Total", "% Privileged Time", 740 * T100);
    EXPECT(&s, "0,_Total", "% DPC Time", 30 * T100);
    EXPECT(&s, "0,_Total", "% Interrupt Time", 10 * T100);
    EXPECT(&s, "0,_Total", "% Idle Time", 9100 * T100);
    EXPECT(&s, "0,_Total", "% Nice Time", 35 * T100);
    EXPECT(&s, "0,_Total", "% IO Wait Time", 100 * T100);
    EXPECT(&s, "0,_Total", "% Steal Time", 30 * T100);
    EXPECT(&s, "0,_Total", "% Guest Time", 165 * T100);
    EXPECT(&s, "0,_Total", "Interrupts/sec", 5486 + 6697);      /* 12183 */
    EXPECT(&s, "0,_Total", "DPCs Queued/sec", 3661 + 4775);     /* 8436 */
    /* idle states and frequency as _Total has them, over the node's CPUs
     * (issue 10 #17): times and frequencies the mean, transitions the sum */
    EXPECT(&s, "0,_Total", "% C1 Time", (10000000 + 15000000) / 2);
    EXPECT(&s, "0,_Total", "% C2 Time", (20000000 + 25000010) / 2);     /* 22500005 */
    EXPECT(&s, "0,_Total", "% C3 Time", (30000000 + 35000030) / 2);     /* 32500015 */
    EXPECT(&s, "0,_Total", "C1 Transitions/sec", 100 + 150);
    EXPECT(&s, "0,_Total", "C2 Transitions/sec", 200 + 251);
    EXPECT(&s, "0,_Total", "C3 Transitions/sec", 300 + 353);
    EXPECT(&s, "0,_Total", "Processor Frequency", (2400 + 1200) / 2);
    EXPECT(&s, "0,_Total", "% of Maximum Frequency", (2400 + 1200) / 2);
    EXPECT(&s, "0,_Total", "Maximum Frequency", (3000 + 3000) / 2);
    CHECK_NEAR(fmt1(&s, "0,_Total", "% of Maximum Frequency"), 60.0, 1e-12);

    /* _Total: the aggregate line 3100 50 720 9500 100 10 30 30 150 15, which
     * also counts an offline CPU, so it is not the node sum:
     *   base 3100+50+720+9500+100+10+30+30 = 13540, idle 9600, processor 3940
     *   user 2950+35 = 2985, privileged 720+10+30 = 760 */
    EXPECT(&s, "_Total", "Processor Time Base", 13540 * T100);
    EXPECT(&s, "_Total", "% Busy Time", 3940 * T100);
    EXPECT(&s, "_Total", "% User Time", 2985 * T100);
    EXPECT(&s, "_Total", "% Privileged Time", 760 * T100);
    EXPECT(&s, "_Total", "% DPC Time", 30 * T100);
    EXPECT(&s, "_Total", "% Interrupt Time", 10 * T100);
    EXPECT(&s, "_Total", "% Idle Time", 9600 * T100);
    EXPECT(&s, "_Total", "% Nice Time", 35 * T100);
    EXPECT(&s, "_Total", "% IO Wait Time", 100 * T100);
    EXPECT(&s, "_Total", "% Steal Time", 30 * T100);
    EXPECT(&s, "_Total", "% Guest Time", 165 * T100);
    EXPECT(&s, "_Total", "Interrupts/sec", 123456);     /* /proc/stat intr */
    EXPECT(&s, "_Total", "DPCs Queued/sec", 65432);     /* /proc/stat softirq */
    EXPECT(&s, "_Total", "% C1 Time", 12500000);        /* (10000000 + 15000000) / 2 */
    EXPECT(&s, "_Total", "% C2 Time", 22500005);        /* (20000000 + 25000010) / 2 */
    EXPECT(&s, "_Total", "% C3 Time", 32500015);        /* (30000000 + 35000030) / 2 */
    EXPECT(&s, "_Total", "C1 Transitions/sec", 250);    /* transitions add up */
    EXPECT(&s, "_Total", "C2 Transitions/sec", 451);
    EXPECT(&s, "_Total", "C3 Transitions/sec", 653);
    EXPECT(&s, "_Total", "Processor Frequency", 1800);  /* (2400 + 1200) / 2 */
    EXPECT(&s, "_Total", "% of Maximum Frequency", 1800);
    EXPECT(&s, "_Total", "Maximum Frequency", 3000);
    CHECK_NEAR(fmt1(&s, "_Total", "% of Maximum Frequency"), 60.0, 1e-12);

    /* every counter of every CPU instance is there (Vulnerable, the
     * machine's count, on _Total alone) */
    for (uint32_t i = 0; i < s.ninst; i++)
        if (s.inst[i].id < 2 || s.inst[i].id == TOTAL_ID)
            for (uint32_t c = 0; c < s.cs->ncounters; c++)
                CHECK(s.have[i * s.cs->ncounters + c] || (s.inst[i].id < 2 && s.cs->counters[c].id == 44));
    pl_snap_free(&s);
}

/* Only the sources a collection asks for are read. */
static void test_full_wanted(void)
{
    pl_env *env = pl_env_new(FX "cpu-full");
    const pl_counterset_def *cs = env ? pl_env_find(env, "Processor Information") : NULL;
    const char *proc[] = { "% Busy Time", NULL };
    const char *intr[] = { "Interrupts/sec", NULL };
    const char *freq[] = { "% of Maximum Frequency", "Maximum Frequency", NULL };
    uint8_t *w1, *w2, *w3;
    pl_snapshot s;
    pl_env_unref(env);
    CHECK(cs != NULL);
    if (!cs)
        return;
    w1 = want_only(cs, proc);
    w2 = want_only(cs, intr);
    w3 = want_only(cs, freq);
    CHECK(collect_tree(FX "cpu-full", 100, w1, &s) == 0);
    EXPECT(&s, "0,0", "% Busy Time", 1350 * T100);
    EXPECT(&s, "0,0", "Processor Time Base", 6390 * T100);   /* times come together */
    UNSET(&s, "0,0", "Interrupts/sec");
    UNSET(&s, "_Total", "Interrupts/sec");
    UNSET(&s, "0,0", "% C1 Time");
    UNSET(&s, "0,0", "Processor Frequency");
    pl_snap_free(&s);
    CHECK(collect_tree(FX "cpu-full", 100, w2, &s) == 0);
    EXPECT(&s, "0,1", "Interrupts/sec", 6697);
    EXPECT(&s, "_Total", "Interrupts/sec", 123456);
    UNSET(&s, "0,1", "DPCs Queued/sec");
    UNSET(&s, "_Total", "DPCs Queued/sec");
    UNSET(&s, "0,1", "C1 Transitions/sec");
    pl_snap_free(&s);
    CHECK(collect_tree(FX "cpu-full", 100, w3, &s) == 0);
    EXPECT(&s, "0,0", "% of Maximum Frequency", 2400);
    EXPECT(&s, "0,0", "Maximum Frequency", 3000);
    UNSET(&s, "0,0", "% C2 Time");
    pl_snap_free(&s);
    free(w1);
    free(w2);
    free(w3);
}

/* The same tree through a query, as a user sees it. */
static void test_full_query(void)
{
    pl_env *env = pl_env_new(FX "cpu-full");
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_add_status st = PL_ADD_STATUS_COUNT;
    uint32_t i0 = 99, i1 = 99;
    pl_sample *smp = NULL;
    CHECK(q != NULL);
    if (!q) {
        pl_env_unref(env);
        return;
    }
    pl_env_set_user_hz(env, 100);
    CHECK(pl_query_add_path(q, "\\Processor Information(*)\\*", &st, &i0) == 0);
    CHECK_EQ_U64(st, PL_ADD_OK);
    CHECK(pl_query_add_path(q, "\\Processor Information(0,1)\\% User Time", &st, &i1) == 0);
    CHECK_EQ_U64(st, PL_ADD_OK);
    CHECK(pl_query_collect(q, &smp) == 0);
    if (smp && smp->nblocks == 2) {
        const pl_block *b = &smp->blocks[i0], *b1 = &smp->blocks[i1];
        CHECK_EQ_U64(b->ninst, 4);
        CHECK_EQ_U64(b->ncounters, 41);          /* 46 less the five hidden bases */
        CHECK_STR(pl_sample_inst_name(smp, b, 2), "0,_Total");
        CHECK_EQ_U64(pl_sample_inst_id(smp, b, 2), NODE_ID(0));
        for (uint32_t c = 0; c < b->ncounters; c++) {
            const pl_counter_def *d = pl_sample_counter(smp, b, c);
            const pl_pair *p = &smp->vals[b->vals_off + 1 * b->ncounters + c];  /* "0,1" */
            double v;
            CHECK(!pl_counter_hidden(d));
            CHECK(smp->have[b->vals_off + 1 * b->ncounters + c] || d->id == 44);   /* _Total's alone */
            if (strcmp(d->name, "% Busy Time") == 0) {
                CHECK_EQ_U64(p->v, 2470 * T100);
                CHECK_EQ_U64(p->b, 6530 * T100);      /* the base rides along */
            } else if (strcmp(d->name, "% of Maximum Frequency") == 0) {
                CHECK_EQ_U64(p->v, 1200);
                CHECK_EQ_U64(p->b, 3000);
                CHECK(pl_sample_format(smp, b, 1, c, NULL, 0, &v) == PL_VALID);
                CHECK_NEAR(v, 40.0, 1e-12);
            } else if (strcmp(d->name, "% Idle Time") == 0) {
                CHECK(pl_sample_format(smp, b, 1, c, NULL, 0, &v) == PL_FIRST_SAMPLE);
            }
        }
        CHECK_EQ_U64(b1->ninst, 1);
        CHECK_EQ_U64(b1->ncounters, 1);
        CHECK_EQ_U64(smp->vals[b1->vals_off].v, 1970 * T100);
        CHECK_EQ_U64(smp->vals[b1->vals_off].b, 6530 * T100);
    }
    free(smp);
    pl_query_free(q);
    pl_env_unref(env);
}

/* basic -> basic2: the reference VM 10 s apart.
 *   cpu0 4556 0 5246 59211 101 0 68 7 -> 4856 0 5396 59711 121 0 78 27
 *     deltas us 300 ni 0 sy 150 id 500 wa 20 hi 0 si 10 st 20: base 1000
 *   cpu1 9217 1 5112 54375 472 0 103 9 -> 9617 11 5312 54725 482 0 123 19
 *     deltas 400 10 200 350 10 0 20 10: base 1000
 *   cpu  13773 1 10358 113586 573 0 172 16 -> 14473 11 10708 114436 603 0 202 46
 *     deltas 700 10 350 850 30 0 30 30: base 2000 */
static void test_basic_rates(void)
{
    pl_snapshot s0, s1;
    CHECK(collect_tree(FX "basic", 100, NULL, &s0) == 0);
    CHECK(collect_tree(FX "basic2", 100, NULL, &s1) == 0);
    /* raw, cpu0: base 4556+0+5246+59211+101+0+68+7 = 69189, idle 59312 */
    EXPECT(&s0, "0,0", "Processor Time Base", 69189 * T100);
    EXPECT(&s0, "0,0", "% Busy Time", 9877 * T100);
    EXPECT(&s0, "0,0", "% Idle Time", 59312 * T100);
    /* node 0 is the sum of the CPU lines: softirq 68+103 = 171, while the
     * aggregate line says 172, so the bases differ by one tick */
    EXPECT(&s0, "0,_Total", "Processor Time Base", 138478 * T100);
    EXPECT(&s0, "_Total", "Processor Time Base", 138479 * T100);
    EXPECT(&s0, "0,_Total", "% DPC Time", 171 * T100);
    EXPECT(&s0, "_Total", "% DPC Time", 172 * T100);

    CHECK_NEAR(val2(&s0, &s1, "0,0", "% Busy Time"), 48.0, 1e-9);  /* (1000-500-20)/1000 */
    CHECK_NEAR(val2(&s0, &s1, "0,0", "% Idle Time"), 52.0, 1e-9);       /* 520/1000 */
    CHECK_NEAR(val2(&s0, &s1, "0,0", "% User Time"), 30.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "0,0", "% Privileged Time"), 16.0, 1e-9); /* 150+0+10 */
    CHECK_NEAR(val2(&s0, &s1, "0,0", "% IO Wait Time"), 2.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "0,0", "% Steal Time"), 2.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "0,0", "% DPC Time"), 1.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "0,0", "% Interrupt Time"), 0.0, 0);
    CHECK_NEAR(val2(&s0, &s1, "0,1", "% Busy Time"), 64.0, 1e-9);  /* (1000-350-10)/1000 */
    CHECK_NEAR(val2(&s0, &s1, "0,1", "% User Time"), 41.0, 1e-9);       /* 400+10 */
    CHECK_NEAR(val2(&s0, &s1, "0,1", "% Nice Time"), 1.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "0,1", "% Privileged Time"), 22.0, 1e-9); /* 200+0+20 */
    CHECK_NEAR(val2(&s0, &s1, "_Total", "% Busy Time"), 56.0, 1e-9); /* (2000-880)/2000 */
    CHECK_NEAR(val2(&s0, &s1, "_Total", "% User Time"), 35.5, 1e-9);      /* 710/2000 */
    CHECK_NEAR(val2(&s0, &s1, "0,_Total", "% Busy Time"), 56.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "0,_Total", "% Idle Time"), 44.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "_Total", "% Guest Time"), 0.0, 0);
    /* the % counters add up: processor + idle = 100, user + privileged +
     * steal = processor */
    for (uint32_t i = 0; i < s1.ninst; i++) {
        const char *n = pl_snap_name(&s1, i);
        CHECK_NEAR(val2(&s0, &s1, n, "% Busy Time") + val2(&s0, &s1, n, "% Idle Time"), 100.0, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, n, "% User Time") + val2(&s0, &s1, n, "% Privileged Time") +
                   val2(&s0, &s1, n, "% Steal Time"), val2(&s0, &s1, n, "% Busy Time"), 1e-9);
    }
    /* no /proc/interrupts or /proc/softirqs in basic: per-CPU counts absent,
     * machine totals from /proc/stat */
    UNSET(&s0, "0,0", "Interrupts/sec");
    UNSET(&s0, "0,_Total", "Interrupts/sec");
    UNSET(&s0, "0,1", "DPCs Queued/sec");
    EXPECT(&s0, "_Total", "Interrupts/sec", 773324);
    EXPECT(&s0, "_Total", "DPCs Queued/sec", 403483);
    CHECK_NEAR(val2(&s0, &s1, "_Total", "Interrupts/sec"), 1200.0, 1e-9);  /* 12000 / 10 s */
    CHECK_NEAR(val2(&s0, &s1, "_Total", "DPCs Queued/sec"), 600.0, 1e-9);  /* 6000 / 10 s */
    /* no cpuidle, cpufreq or cpuinfo either */
    UNSET(&s0, "0,0", "% C1 Time");
    UNSET(&s0, "_Total", "% C1 Time");
    UNSET(&s0, "0,0", "Processor Frequency");
    UNSET(&s0, "_Total", "Processor Frequency");
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

/* cpu-numa-idle: cpu-numa with cpufreq and cpuidle state1 files.
 *   scaling_cur_freq kHz 1000000 2000000 3000000 3500500; cpuinfo_max_freq
 *   4000000 on cpu0-2, none on cpu3; state1 time us / usage 100/10, 300/30,
 *   500/50 on cpu0-2, no cpuidle on cpu3.
 * A node total has what all its CPUs have, by _Total's rule (issue 10 #17). */
static void test_numa_idle_freq(void)
{
    pl_snapshot s;
    CHECK(collect_tree(FX "cpu-numa-idle", 100, NULL, &s) == 0);
    EXPECT(&s, "1,3", "Processor Frequency", 3500);                 /* 3500500 kHz, truncated */
    /* node 0 = cpu0 + cpu1 */
    EXPECT(&s, "0,_Total", "% C1 Time", (1000 + 3000) / 2);          /* us x 10, the mean */
    EXPECT(&s, "0,_Total", "C1 Transitions/sec", 10 + 30);
    EXPECT(&s, "0,_Total", "Processor Frequency", (1000 + 2000) / 2);
    EXPECT(&s, "0,_Total", "% of Maximum Frequency", 1500);
    EXPECT(&s, "0,_Total", "Maximum Frequency", 4000);
    CHECK_NEAR(fmt1(&s, "0,_Total", "% of Maximum Frequency"), 37.5, 1e-12);
    /* node 1 = cpu2 + cpu3: cpu3 has no idle state and no maximum */
    UNSET(&s, "1,_Total", "% C1 Time");
    UNSET(&s, "1,_Total", "C1 Transitions/sec");
    EXPECT(&s, "1,_Total", "Processor Frequency", (3000 + 3500) / 2);
    UNSET(&s, "1,_Total", "% of Maximum Frequency");
    UNSET(&s, "1,_Total", "Maximum Frequency");
    /* _Total over the four CPUs */
    UNSET(&s, "_Total", "% C1 Time");
    EXPECT(&s, "_Total", "Processor Frequency", (1000 + 2000 + 3000 + 3500) / 4);   /* 2375 */
    UNSET(&s, "_Total", "Maximum Frequency");
    pl_snap_free(&s);
}

/* cpu-numa: cpu0, cpu1 on node 0; cpu2, cpu3 on node 1. */
static void test_numa(void)
{
    static const uint32_t ids[] = { 0, 1, NODE_ID(0), 2, 3, NODE_ID(1), TOTAL_ID };
    pl_snapshot s;
    CHECK(collect_tree(FX "cpu-numa", 100, NULL, &s) == 0);
    INSTS(&s, ids, "0,0", "0,1", "0,_Total", "1,2", "1,3", "1,_Total", "_Total");
    /* cpu2 300 5 70 600 30 1 15: base 1021, processor 391 */
    EXPECT(&s, "1,2", "Processor Time Base", 1021 * T100);
    EXPECT(&s, "1,2", "% Busy Time", 391 * T100);
    /* node 0: 300 0 110 1500 30 0 15 0: base 1955, idle 1530, processor 425 */
    EXPECT(&s, "0,_Total", "Processor Time Base", 1955 * T100);
    EXPECT(&s, "0,_Total", "% Busy Time", 425 * T100);
    EXPECT(&s, "0,_Total", "% Idle Time", 1530 * T100);
    EXPECT(&s, "0,_Total", "% User Time", 300 * T100);
    /* node 1: 700 10 150 1100 70 3 35 0: base 2068, idle 1170, processor 898 */
    EXPECT(&s, "1,_Total", "Processor Time Base", 2068 * T100);
    EXPECT(&s, "1,_Total", "% Busy Time", 898 * T100);
    EXPECT(&s, "1,_Total", "% Idle Time", 1170 * T100);
    EXPECT(&s, "1,_Total", "% Privileged Time", (150 + 3 + 35) * T100);
    EXPECT(&s, "1,_Total", "% Nice Time", 10 * T100);
    /* _Total: aggregate 1000 10 260 2600 100 3 50 0: base 4023 = 1955 + 2068 */
    EXPECT(&s, "_Total", "Processor Time Base", 4023 * T100);
    EXPECT(&s, "_Total", "% Busy Time", 1323 * T100);
    /* interrupts by column: 1111 2200 3300 4400; softirqs 11 22 33 44 */
    EXPECT(&s, "0,0", "Interrupts/sec", 11 + 100 + 1000);
    EXPECT(&s, "0,1", "Interrupts/sec", 200 + 2000);
    EXPECT(&s, "1,2", "Interrupts/sec", 300 + 3000);
    EXPECT(&s, "1,3", "Interrupts/sec", 400 + 4000);
    EXPECT(&s, "0,_Total", "Interrupts/sec", 1111 + 2200);
    EXPECT(&s, "1,_Total", "Interrupts/sec", 3300 + 4400);
    EXPECT(&s, "_Total", "Interrupts/sec", 20000);
    EXPECT(&s, "0,_Total", "DPCs Queued/sec", 11 + 22);
    EXPECT(&s, "1,_Total", "DPCs Queued/sec", 33 + 44);
    EXPECT(&s, "_Total", "DPCs Queued/sec", 500);
    pl_snap_free(&s);
}

/* cpu-node-sparse: cpu0 on node 1, cpu1 on node 3; nodes 0 and 2 have no
 * CPU.  Node numbers above the CPU count must not overrun anything. */
static void test_node_sparse(void)
{
    static const uint32_t ids[] = { 0, NODE_ID(1), 1, NODE_ID(3), TOTAL_ID };
    pl_snapshot s;
    CHECK(collect_tree(FX "cpu-node-sparse", 100, NULL, &s) == 0);
    INSTS(&s, ids, "1,0", "1,_Total", "3,1", "3,_Total", "_Total");
    EXPECT(&s, "1,0", "Processor Time Base", 120 * T100);
    EXPECT(&s, "1,_Total", "Processor Time Base", 120 * T100);
    EXPECT(&s, "3,_Total", "Processor Time Base", 240 * T100);
    EXPECT(&s, "3,_Total", "% Busy Time", 40 * T100);
    EXPECT(&s, "_Total", "Processor Time Base", 360 * T100);
    pl_snap_free(&s);
}

/* cpu-cpuinfo: no cpufreq, MHz from /proc/cpuinfo. */
static void test_cpuinfo(void)
{
    pl_snapshot s;
    CHECK(collect_tree(FX "cpu-cpuinfo", 100, NULL, &s) == 0);
    EXPECT(&s, "0,0", "Processor Frequency", 2394);   /* 2394.456 */
    EXPECT(&s, "0,1", "Processor Frequency", 2395);   /* 2394.500 rounds half up */
    EXPECT(&s, "_Total", "Processor Frequency", 2394); /* (2394 + 2395) / 2 */
    EXPECT(&s, "0,_Total", "Processor Frequency", 2394); /* node 0 holds both CPUs */
    /* no maximum without cpufreq */
    UNSET(&s, "0,0", "% of Maximum Frequency");
    UNSET(&s, "0,0", "Maximum Frequency");
    UNSET(&s, "_Total", "% of Maximum Frequency");
    UNSET(&s, "0,0", "% C1 Time");
    pl_snap_free(&s);
}

static void test_user_hz(void)
{
    pl_snapshot s;
    /* USER_HZ 250: 10^7/250 = 40000 hns a tick */
    CHECK(collect_tree(FX "cpu-full", 250, NULL, &s) == 0);
    EXPECT(&s, "0,0", "Processor Time Base", 6390 * 40000ull);   /* 255600000 */
    EXPECT(&s, "0,0", "% Busy Time", 1350 * 40000ull);
    EXPECT(&s, "0,0", "% User Time", 915 * 40000ull);
    EXPECT(&s, "_Total", "% Idle Time", 9600 * 40000ull);
    /* sources in other units do not move */
    EXPECT(&s, "0,0", "% C1 Time", 10000000);
    EXPECT(&s, "0,0", "Processor Frequency", 2400);
    pl_snap_free(&s);
    /* USER_HZ 300 does not divide 10^7: 915 ticks = 3 s + 15 ticks
     * = 30000000 + 15 x 10^7 / 300 = 30500000; 6390 ticks = 21 s + 90 ticks
     * = 210000000 + 3000000 */
    CHECK(collect_tree(FX "cpu-full", 300, NULL, &s) == 0);
    EXPECT(&s, "0,0", "% User Time", 30500000);
    EXPECT(&s, "0,0", "Processor Time Base", 213000000);
    /* 1 tick = 33333.3: truncated per value (cpu1 % Interrupt Time, 4 ticks) */
    EXPECT(&s, "0,1", "% Interrupt Time", 133333);
    pl_snap_free(&s);
}

static void test_errors(void)
{
    pl_snapshot s;
    pctx p;
    /* a cpu line with 3 numbers fails the whole set */
    CHECK_EQ_U64(collect_tree(FX "cpu-bad-short", 100, NULL, &s), EINVAL);
    CHECK_STR(s.err_path, "proc/stat");
    pl_snap_free(&s);
    CHECK(pc_open(&p, FX "cpu-bad-short", 100) == 0);
    if (p.st) {
        pl_snap_init(&s, p.cs);
        CHECK_EQ_U64(p.cs->ops->instances(p.st, &s), EINVAL);
        CHECK_STR(s.err_path, "proc/stat");
        pl_snap_free(&s);
    }
    pc_close(&p);
    /* cpu70000 is beyond any kernel's NR_CPUS: rejected, nothing allocated for it */
    CHECK_EQ_U64(collect_tree(FX "cpu-huge", 100, NULL, &s), EINVAL);
    CHECK_STR(s.err_path, "proc/stat");
    pl_snap_free(&s);
    /* no /proc/stat at all */
    CHECK_EQ_U64(collect_tree(FX "no-such-tree", 100, NULL, &s), ENOENT);
    CHECK_STR(s.err_path, "proc/stat");
    pl_snap_free(&s);
    CHECK(pc_open(&p, FX "no-such-tree", 100) == 0);
    if (p.st) {
        pl_snap_init(&s, p.cs);
        CHECK_EQ_U64(p.cs->ops->instances(p.st, &s), ENOENT);
        CHECK_STR(s.err_path, "proc/stat");
        pl_snap_free(&s);
    }
    pc_close(&p);

    /* through a query: the block fails with the errno, other sets go on */
    {
        pl_env *env = pl_env_new(FX "cpu-bad-short");
        pl_query *q = env ? pl_query_new(env) : NULL;
        pl_add_status st = PL_ADD_STATUS_COUNT;
        uint32_t i = 99;
        pl_sample *smp = NULL;
        CHECK(q != NULL);
        if (q) {
            CHECK(pl_query_add_path(q, "\\Processor Information(*)\\% Busy Time", &st, &i) == 0);
            CHECK_EQ_U64(st, PL_ADD_OK);
            CHECK(pl_query_collect(q, &smp) == 0);
            if (smp) {
                CHECK_EQ_U64(smp->blocks[i].shape, PERF_ERROR_RETURN);
                CHECK_EQ_U64(smp->blocks[i].err, EINVAL);
                CHECK_STR(smp->blocks[i].err_path, "proc/stat");
            }
            free(smp);
            pl_query_free(q);
        }
        pl_env_unref(env);
    }
}

/* ---- mutated trees ----------------------------------------------------- */

/* Small drops are held, a 3 s drop of idle is a reset. */
static void test_hold_and_replug(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    pctx p;
    pl_snapshot s[6] = {{0}};
    double v;
    CHECK(mkdtemp(dir) != NULL);
#define STAT(line) put(dir, "proc/stat", "cpu  " line "\ncpu0 " line "\nintr 1\nsoftirq 1\n")
    CHECK(STAT("100 0 50 1000 40 0 0 0 0 0"));
    CHECK(pc_open(&p, dir, 100) == 0);
    if (!p.st) {
        pc_close(&p);
        rm_tree(dir);
        return;
    }
    CHECK(pc_collect(&p, NULL, &s[0]) == 0);
    EXPECT(&s[0], "0,0", "% IO Wait Time", 40 * T100);
    EXPECT(&s[0], "0,0", "Processor Time Base", 1190 * T100);

    /* iowait 40 -> 35 (NOHZ): held at 40, and the base uses the held value:
     * 110+55+1100+40 = 1305; idle 1100+40 = 1140 */
    CHECK(STAT("110 0 55 1100 35 0 0 0 0 0"));
    CHECK(pc_collect(&p, NULL, &s[1]) == 0);
    for (int k = 0; k < 2; k++) {
        const char *n = k ? "_Total" : "0,0";
        EXPECT(&s[1], n, "% IO Wait Time", 40 * T100);
        EXPECT(&s[1], n, "% Idle Time", 1140 * T100);
        EXPECT(&s[1], n, "Processor Time Base", 1305 * T100);
        EXPECT(&s[1], n, "% Busy Time", 165 * T100);
    }
    CHECK(fmt2(&s[0], &s[1], "0,0", "% IO Wait Time", &v) == PL_VALID);
    CHECK_NEAR(v, 0.0, 0);                          /* no spike, no negative value */
    CHECK(fmt2(&s[0], &s[1], "0,0", "% Idle Time", &v) == PL_VALID);
    CHECK_NEAR(v, 100.0 * 100 / 115, 1e-9);         /* idle +100 of base +115 */

    /* iowait back above the held value: published again */
    CHECK(STAT("120 0 60 1200 45 0 0 0 0 0"));
    CHECK(pc_collect(&p, NULL, &s[2]) == 0);
    EXPECT(&s[2], "0,0", "% IO Wait Time", 45 * T100);
    EXPECT(&s[2], "0,0", "Processor Time Base", 1425 * T100);   /* 120+60+1200+45 */

    /* idle 1200 -> 901: a fall of 299 ticks, under 3 s: held at 1200 */
    CHECK(STAT("130 0 65 901 45 0 0 0 0 0"));
    CHECK(pc_collect(&p, NULL, &s[3]) == 0);
    EXPECT(&s[3], "0,0", "% Idle Time", (1200 + 45) * T100);
    EXPECT(&s[3], "0,0", "Processor Time Base", (130 + 65 + 1200 + 45) * T100);
    EXPECT(&s[3], "0,0", "% User Time", 130 * T100);

    /* idle 1200 (held) -> 900: 300 ticks = 3 s at USER_HZ 100: a re-plug;
     * the new values are published as they are */
    CHECK(STAT("140 0 70 900 45 0 0 0 0 0"));
    CHECK(pc_collect(&p, NULL, &s[4]) == 0);
    EXPECT(&s[4], "0,0", "% Idle Time", (900 + 45) * T100);
    EXPECT(&s[4], "0,0", "Processor Time Base", (140 + 70 + 900 + 45) * T100);
    EXPECT(&s[4], "0,0", "% Busy Time", 210 * T100);
    /* idle went backwards: the interval is not reported.  % Processor Time
     * rose but its base fell, which the formula calls a negative interval */
    CHECK(fmt2(&s[3], &s[4], "0,0", "% Idle Time", &v) == PL_NEGATIVE_DELTA);
    CHECK(fmt2(&s[3], &s[4], "0,0", "% Busy Time", &v) == PL_NEGATIVE_INTERVAL);
    CHECK(fmt2(&s[3], &s[4], "_Total", "% Idle Time", &v) == PL_NEGATIVE_DELTA);

    /* after the reset the new baseline holds: idle 900 -> 1000, user +10 */
    CHECK(STAT("150 0 70 1000 45 0 0 0 0 0"));
    CHECK(pc_collect(&p, NULL, &s[5]) == 0);
    CHECK_NEAR(val2(&s[4], &s[5], "0,0", "% Idle Time"), 100.0 * 100 / 110, 1e-9);
    CHECK_NEAR(val2(&s[4], &s[5], "0,0", "% User Time"), 100.0 * 10 / 110, 1e-9);
#undef STAT
    for (int k = 0; k < 6; k++)
        pl_snap_free(&s[k]);
    pc_close(&p);
    rm_tree(dir);
}

/* The brief's case: idle falls by 500 ticks at USER_HZ 100, and a user_hz
 * of 1000 makes the same fall only 0.5 s: held. */
static void test_replug_hz(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    pl_snapshot a = {0}, b = {0};
    pctx p;
    CHECK(mkdtemp(dir) != NULL);
    for (int k = 0; k < 2; k++) {
        long hz = k ? 1000 : 100;
        CHECK(put(dir, "proc/stat", "cpu  10 0 10 2000 0 0 0 0 0 0\ncpu0 10 0 10 2000 0 0 0 0 0 0\n"));
        CHECK(pc_open(&p, dir, hz) == 0);
        if (!p.st)
            break;
        CHECK(pc_collect(&p, NULL, &a) == 0);
        CHECK(put(dir, "proc/stat", "cpu  20 0 10 1500 0 0 0 0 0 0\ncpu0 20 0 10 1500 0 0 0 0 0 0\n"));
        CHECK(pc_collect(&p, NULL, &b) == 0);
        /* 1 tick is 10^7/hz hns */
        EXPECT(&b, "0,0", "% Idle Time", (k ? 2000 : 1500) * (10000000ull / (uint64_t)hz));
        EXPECT(&b, "0,0", "% User Time", 20 * (10000000ull / (uint64_t)hz));
        pc_close(&p);
    }
    pc_close(&p);
    pl_snap_free(&a);
    pl_snap_free(&b);
    rm_tree(dir);
}

/* CPU 1 goes offline and comes back: instances follow /proc/stat, ids stay
 * the CPU numbers, and /proc/interrupts columns are matched by header. */
static void test_hotplug(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    static const uint32_t all[] = { 0, 1, 2, NODE_ID(0), TOTAL_ID };
    static const uint32_t two[] = { 0, 2, NODE_ID(0), TOTAL_ID };
    pl_env *env;
    pl_query *q = NULL;
    pl_add_status st = PL_ADD_STATUS_COUNT;
    uint32_t idx = 99;
    pl_sample *smp[3] = { NULL, NULL, NULL };
    pctx p;
    pl_snapshot s[3] = {{0}};
    double v;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/stat",
              "cpu  6000 0 600 30000 0 0 0 0 0 0\n"
              "cpu0 1000 0 100 10000 0 0 0 0 0 0\n"
              "cpu1 2000 0 200 10000 0 0 0 0 0 0\n"
              "cpu2 3000 0 300 10000 0 0 0 0 0 0\n"
              "intr 1000\nsoftirq 10\n"));
    CHECK(put(dir, "proc/interrupts",
              "           CPU0       CPU1       CPU2\n"
              "LOC:        100        200        300   Local timer interrupts\n"));
    CHECK(pc_open(&p, dir, 100) == 0);
    env = pl_env_new(dir);
    if (env) {
        pl_env_set_user_hz(env, 100);
        q = pl_query_new(env);
    }
    CHECK(q != NULL);
    if (!p.st || !q)
        goto out;
    CHECK(pl_query_add_path(q, "\\Processor Information(*)\\*", &st, &idx) == 0);
    CHECK(pc_collect(&p, NULL, &s[0]) == 0);
    CHECK(pl_query_collect(q, &smp[0]) == 0);
    INSTS(&s[0], all, "0,0", "0,1", "0,2", "0,_Total", "_Total");
    EXPECT(&s[0], "0,2", "Interrupts/sec", 300);

    /* cpu1 offline: its line and its column are gone (kernel counts stay in
     * the aggregate line, which covers every possible CPU) */
    CHECK(put(dir, "proc/stat",
              "cpu  6300 0 630 30300 0 0 0 0 0 0\n"
              "cpu0 1100 0 110 10100 0 0 0 0 0 0\n"
              "cpu2 3200 0 320 10200 0 0 0 0 0 0\n"
              "intr 1100\nsoftirq 10\n"));
    CHECK(put(dir, "proc/interrupts",
              "           CPU0       CPU2\n"
              "LOC:        110        330   Local timer interrupts\n"));
    CHECK(pc_collect(&p, NULL, &s[1]) == 0);
    CHECK(pl_query_collect(q, &smp[1]) == 0);
    INSTS(&s[1], two, "0,0", "0,2", "0,_Total", "_Total");
    EXPECT(&s[1], "0,2", "Interrupts/sec", 330);    /* not CPU1's old column */
    EXPECT(&s[1], "0,0", "Interrupts/sec", 110);
    EXPECT(&s[1], "0,2", "% User Time", 3200 * T100);
    /* cpu2: us +200, sy +20, id +200 */
    CHECK_NEAR(val2(&s[0], &s[1], "0,2", "% Busy Time"), 100.0 * 220 / 420, 1e-9);
    /* node 0 keeps offline cpu1 at its last values, as the aggregate line
     * does: idle 10100 + 10000 + 10200, and the interval is valid */
    EXPECT(&s[1], "0,_Total", "% Idle Time", 30300 * T100);
    EXPECT(&s[1], "0,_Total", "Interrupts/sec", 110 + 200 + 330);
    CHECK_NEAR(val2(&s[0], &s[1], "0,_Total", "% Busy Time"), 100.0 * 330 / 630, 1e-9);
    CHECK_NEAR(val2(&s[0], &s[1], "_Total", "% Busy Time"), 100.0 * 330 / 630, 1e-9);
    CHECK_NEAR(val2(&s[0], &s[1], "0,_Total", "Interrupts/sec"), 4.0, 1e-12);   /* 40 / 10 s */

    /* cpu1 back: user and system resume, idle restarts from 0 (sysstat's
     * observation); it is a new instance against the previous sample */
    CHECK(put(dir, "proc/stat",
              "cpu  6700 0 670 30550 0 0 0 0 0 0\n"
              "cpu0 1200 0 120 10200 0 0 0 0 0 0\n"
              "cpu1 2050 0 205 50 0 0 0 0 0 0\n"
              "cpu2 3400 0 340 10300 0 0 0 0 0 0\n"
              "intr 1300\nsoftirq 10\n"));
    CHECK(put(dir, "proc/interrupts",
              "           CPU0       CPU1       CPU2\n"
              "LOC:        120        210        360   Local timer interrupts\n"));
    CHECK(pc_collect(&p, NULL, &s[2]) == 0);
    CHECK(pl_query_collect(q, &smp[2]) == 0);
    INSTS(&s[2], all, "0,0", "0,1", "0,2", "0,_Total", "_Total");
    /* idle 10000 -> 50 is a re-plug: cpu1 published as it is */
    EXPECT(&s[2], "0,1", "% Idle Time", 50 * T100);
    EXPECT(&s[2], "0,1", "Processor Time Base", 2305 * T100);
    EXPECT(&s[2], "0,1", "Interrupts/sec", 210);    /* its column resumes: 200 + 10 */
    CHECK(fmt2(&s[0], &s[2], "0,1", "% Idle Time", &v) == PL_NEGATIVE_DELTA);
    /* and the node: idle 30300 -> 10200 + 50 + 10300 = 20550 is a reset
     * too, not a spike of cpu1's whole user time */
    EXPECT(&s[2], "0,_Total", "% Idle Time", 20550 * T100);
    CHECK(fmt2(&s[1], &s[2], "0,_Total", "% Idle Time", &v) == PL_NEGATIVE_DELTA);
    EXPECT(&s[2], "0,_Total", "Interrupts/sec", 120 + 210 + 360);
    /* cpu2: us +200, sy +20, id +100 */
    CHECK_NEAR(val2(&s[1], &s[2], "0,2", "% Busy Time"), 100.0 * 220 / 320, 1e-9);
    if (smp[0] && smp[1] && smp[2]) {
        const pl_block *b1 = &smp[1]->blocks[idx], *b2 = &smp[2]->blocks[idx];
        int c = -1, i1;
        for (uint32_t k = 0; k < b2->ncounters; k++)
            if (strcmp(pl_sample_counter(smp[2], b2, k)->name, "% Busy Time") == 0)
                c = (int)k;
        CHECK(c >= 0);
        i1 = pl_sample_find_inst(smp[2], b2, 1, "0,1", 0, 0);
        CHECK_EQ_U64(i1, 1);
        /* instances are matched by id and name, not by position */
        CHECK_EQ_U64(pl_sample_find_inst(smp[1], b1, 2, "0,2", 0, 0), 1);
        CHECK_EQ_U64(pl_sample_find_inst(smp[2], b2, 2, "0,2", 0, 0), 2);
        if (c >= 0 && i1 >= 0) {
            /* cpu1 is new against sample 2: no value for that interval */
            CHECK(pl_sample_format(smp[2], b2, (uint32_t)i1, (uint32_t)c, smp[1], 0, &v) ==
                  PL_FIRST_SAMPLE);
            /* cpu2 at index 2 now, index 1 before: 64.6875 % = 220 / 320 */
            CHECK(pl_sample_format(smp[2], b2, 2, (uint32_t)c, smp[1], 0, &v) == PL_VALID);
            CHECK_NEAR(v, 100.0 * 220 / 320, 1e-9);
        }
    }
out:
    for (int k = 0; k < 3; k++) {
        free(smp[k]);
        pl_snap_free(&s[k]);
    }
    pl_query_free(q);
    pl_env_unref(env);
    pc_close(&p);
    rm_tree(dir);
}

/* % Processor Time is Windows' counter 0: PERF_100NSEC_TIMER_INV over idle
 * time.  A CPU's raw value is its idle + iowait time; a total's is the mean
 * over its online CPUs, grown by the summed growth, so that a CPU going
 * offline is neither a jump nor a reset. */
static void test_processor_time_inv(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    pctx p;
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    /* cpu0 idle 100 + iowait 10, cpu1 idle 300 + iowait 30: mean 220 ticks */
    CHECK(put(dir, "proc/stat", "cpu  20 0 20 400 40 0 0 0 0 0\n"
                                "cpu0 10 0 10 100 10 0 0 0 0 0\ncpu1 10 0 10 300 30 0 0 0 0 0\n"));
    CHECK(put(dir, "sys/devices/system/cpu/online", "0-1\n"));
    CHECK(pc_open(&p, dir, 100) == 0);
    pl_snap_init(&s, p.cs);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "0,0", "% Processor Time", 110 * T100);
    EXPECT(&s, "0,1", "% Processor Time", 330 * T100);
    EXPECT(&s, "0,_Total", "% Processor Time", 220 * T100);
    EXPECT(&s, "_Total", "% Processor Time", 220 * T100);
    /* 10 s later: cpu0 idled 6 s, cpu1 4 s: the totals grow by (600 + 400) / 2 */
    CHECK(put(dir, "proc/stat", "cpu  420 0 420 1400 40 0 0 0 0 0\n"
                                "cpu0 210 0 210 700 10 0 0 0 0 0\ncpu1 210 0 210 700 30 0 0 0 0 0\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "0,0", "% Processor Time", 710 * T100);
    EXPECT(&s, "0,_Total", "% Processor Time", 720 * T100);
    EXPECT(&s, "_Total", "% Processor Time", 720 * T100);
    /* over the 10 s the formula gives 100 - 500 / 1000 % = 50 % busy for the machine */
    pl_raw n1 = { 720 * T100, 10 * 10000000ull, 0, 8 }, n0 = { 220 * T100, 0, 0, 8 };
    double v;
    CHECK(pl_format_raw(PERF_100NSEC_TIMER_INV, &n1, &n0, 10000000, 0, 0, &v) == PL_VALID);
    CHECK_NEAR(v, 50.0, 1e-9);
    /* cpu1 goes offline: the mean follows cpu0 alone from now on, without a jump */
    CHECK(put(dir, "proc/stat", "cpu  620 0 620 1500 40 0 0 0 0 0\n"
                                "cpu0 410 0 410 800 10 0 0 0 0 0\n"));
    CHECK(put(dir, "sys/devices/system/cpu/online", "0\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "0,0", "% Processor Time", 810 * T100);
    EXPECT(&s, "_Total", "% Processor Time", 820 * T100);   /* + 100 / 1 CPU */
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* Guest time larger than user time (they are sampled separately). */
static void test_guest_clamp(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    /* us 5 ni 1 sy 10 id 100 wa 0 hi 0 si 0 st 0 gu 7 gn 3 */
    CHECK(put(dir, "proc/stat", "cpu  5 1 10 100 0 0 0 0 7 3\ncpu0 5 1 10 100 0 0 0 0 7 3\n"));
    CHECK(collect_tree(dir, 100, NULL, &s) == 0);
    EXPECT(&s, "0,0", "% User Time", 0);             /* (5-7)+(1-3), each clamped at 0 */
    EXPECT(&s, "0,0", "% Nice Time", 0);
    EXPECT(&s, "0,0", "% Guest Time", 10 * T100);
    EXPECT(&s, "0,0", "Processor Time Base", 116 * T100);   /* guest not added */
    EXPECT(&s, "0,0", "% Busy Time", 16 * T100);
    pl_snap_free(&s);
    /* an old kernel's 4-field line: what it lacks is absent, not 0 */
    CHECK(put(dir, "proc/stat", "cpu  5 1 10 100\ncpu0 5 1 10 100\n"));
    CHECK(collect_tree(dir, 100, NULL, &s) == 0);
    EXPECT(&s, "0,0", "Processor Time Base", 116 * T100);
    EXPECT(&s, "0,0", "% Idle Time", 100 * T100);
    EXPECT(&s, "0,0", "% User Time", 6 * T100);
    EXPECT(&s, "0,_Total", "% Busy Time", 16 * T100);
    UNSET(&s, "0,0", "% IO Wait Time");
    UNSET(&s, "0,0", "% Interrupt Time");
    UNSET(&s, "0,0", "% DPC Time");
    UNSET(&s, "0,0", "% Steal Time");
    UNSET(&s, "0,0", "% Guest Time");
    UNSET(&s, "_Total", "% Steal Time");
    pl_snap_free(&s);
    rm_tree(dir);
}

/* 32-bit cells of /proc/interrupts and /proc/softirqs unwrap per cell. */
static void test_intr_wrap(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    pctx p;
    pl_snapshot s0 = {0}, s1 = {0}, s2 = {0};
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/stat", "cpu  1 0 1 10 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\n"
              "cpu1 0 0 0 0 0 0 0 0 0 0\nintr 4294967390\nsoftirq 4294967295\n"));
    CHECK(put(dir, "proc/interrupts",
              "           CPU0       CPU1\n"
              "  0:        100          7   IO-APIC   2-edge      timer\n"
              "LOC: 4294967290         20   Local timer interrupts\n"
              "ERR:          0\n"));
    CHECK(put(dir, "proc/softirqs",
              "                    CPU0       CPU1\n"
              "       TIMER: 4294967295          1\n"));
    CHECK(pc_open(&p, dir, 100) == 0);
    if (!p.st)
        goto out;
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    EXPECT(&s0, "0,0", "Interrupts/sec", 4294967390ull);     /* 100 + 4294967290 */
    EXPECT(&s0, "0,1", "Interrupts/sec", 27);
    EXPECT(&s0, "0,_Total", "Interrupts/sec", 4294967417ull);
    EXPECT(&s0, "_Total", "Interrupts/sec", 4294967390ull);  /* /proc/stat is 64-bit */
    EXPECT(&s0, "0,0", "DPCs Queued/sec", 4294967295ull);

    /* LOC on CPU0 wraps: 4294967290 -> 5 is +11; TIMER 4294967295 -> 3 is +4;
     * a new IRQ row appears with its whole count */
    CHECK(put(dir, "proc/interrupts",
              "           CPU0       CPU1\n"
              "  0:        100          9   IO-APIC   2-edge      timer\n"
              " 30:          4          0   PCI-MSI   0-edge      eth0\n"
              "LOC:          5         25   Local timer interrupts\n"
              "ERR:          0\n"));
    CHECK(put(dir, "proc/softirqs",
              "                    CPU0       CPU1\n"
              "       TIMER:          3          1\n"));
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    EXPECT(&s1, "0,0", "Interrupts/sec", 4294967390ull + 11 + 4);
    EXPECT(&s1, "0,1", "Interrupts/sec", 27 + 2 + 5);
    EXPECT(&s1, "0,0", "DPCs Queued/sec", 4294967295ull + 4);
    /* 15 interrupts over 10 s, not -4294967275 */
    CHECK_NEAR(val2(&s0, &s1, "0,0", "Interrupts/sec"), 1.5, 1e-12);
    CHECK_NEAR(val2(&s0, &s1, "0,0", "DPCs Queued/sec"), 0.4, 1e-12);

    /* the row disappears (IRQ freed): what was counted stays counted */
    CHECK(put(dir, "proc/interrupts",
              "           CPU0       CPU1\n"
              "  0:        101          9   IO-APIC   2-edge      timer\n"
              "LOC:          6         25   Local timer interrupts\n"
              "ERR:          0\n"));
    CHECK(pc_collect(&p, NULL, &s2) == 0);
    EXPECT(&s2, "0,0", "Interrupts/sec", 4294967390ull + 15 + 2);
out:
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pl_snap_free(&s2);
    pc_close(&p);
    rm_tree(dir);
}

/* The per-CPU tables come from the shared kernel sources (cputab.h): a row
 * with a cell above 2^32-1 (the kernel prints 32-bit cells) is left out of
 * the per-CPU sums rather than cut to 32 bits, and a table whose header is
 * not a CPU list gives no per-CPU values; _Total still comes from /proc/stat. */
static void test_intr_bad_tables(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/stat", "cpu  2 0 2 20 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\n"
              "cpu1 1 0 1 10 0 0 0 0 0 0\nintr 99\nsoftirq 42\n"));
    CHECK(put(dir, "proc/interrupts", "           CPU0       CPU1\n"
              "  0:         10          1   IO-APIC   2-edge      timer\n"
              "BIG: 4294967296          2   a cell over 32 bits\n"
              "LOC:          5          7   Local timer interrupts\n"));
    CHECK(put(dir, "proc/softirqs", "      CPU0 TIMER\n   TIMER: 1 2\n"));
    CHECK(collect_tree(dir, 100, NULL, &s) == 0);
    EXPECT(&s, "0,0", "Interrupts/sec", 10 + 5);      /* BIG left out */
    EXPECT(&s, "0,1", "Interrupts/sec", 1 + 7);
    EXPECT(&s, "0,_Total", "Interrupts/sec", 15 + 8);
    EXPECT(&s, "_Total", "Interrupts/sec", 99);
    UNSET(&s, "0,0", "DPCs Queued/sec");               /* no CPU list */
    UNSET(&s, "0,_Total", "DPCs Queued/sec");
    EXPECT(&s, "_Total", "DPCs Queued/sec", 42);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* A large but legal CPU number: arrays grow to it. */
static void test_sparse_cpu(void)
{
    char dir[] = "/tmp/pl-proc-XXXXXX";
    static const uint32_t ids[] = { 0, 1000, NODE_ID(0), TOTAL_ID };
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/stat", "cpu  2 0 2 20 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\n"
              "cpu1000 1 0 1 10 0 0 0 0 0 0\nintr 5\nsoftirq 5\n"));
    CHECK(put(dir, "proc/interrupts", "           CPU0    CPU1000\nLOC:          3          4\n"));
    CHECK(collect_tree(dir, 100, NULL, &s) == 0);
    INSTS(&s, ids, "0,0", "0,1000", "0,_Total", "_Total");
    EXPECT(&s, "0,1000", "Interrupts/sec", 4);
    EXPECT(&s, "0,1000", "Processor Time Base", 12 * T100);
    pl_snap_free(&s);
    /* only the aggregate line: no CPU to show */
    CHECK(put(dir, "proc/stat", "cpu  2 0 2 20 0 0 0 0 0 0\n"));
    CHECK_EQ_U64(collect_tree(dir, 100, NULL, &s), EINVAL);
    CHECK_STR(s.err_path, "proc/stat");
    pl_snap_free(&s);
    rm_tree(dir);
}

/* This machine: plausible, not exact. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t base = 0, proc = 0, idle = 0;
    CHECK(collect_tree("/", sysconf(_SC_CLK_TCK), NULL, &s) == 0);
    CHECK(s.ninst >= 3);
    CHECK_EQ_U64(s.inst[s.ninst - 1].id, TOTAL_ID);
    CHECK(get(&s, "_Total", "Processor Time Base", &base) && base > 0);
    CHECK(get(&s, "_Total", "% Busy Time", &proc));
    CHECK(get(&s, "_Total", "% Idle Time", &idle));
    CHECK_EQ_U64(proc + idle, base);
    for (const char *const *n = PCT; *n; n++) {
        uint64_t v = 0;
        if (get(&s, "_Total", *n, &v))
            CHECK(v <= base);
    }
    pl_snap_free(&s);
}

/* % Processor Utility's sums (cpufreq.c) through a gap and a reset: busy
 * ticks x 100 x 3000 / 2000 MHz per interval, over the interval's ticks. */
static void test_utility_sums(void)
{
    pl_cpufiles c;
    pl_cpufreq_mhz m = { 3000, 4000, 2000, 1, 1, 1 }, gap = { 3000, 0, 0, 1, 0, 0 };
    memset(&c, 0, sizeof c);
    CHECK(pl_cpufreq_utility(&c, 100, 1000, &m) == 1);          /* the start: sums 0 */
    CHECK_EQ_U64(c.util, 0);
    CHECK(pl_cpufreq_utility(&c, 200, 1200, &m) == 1);          /* 100 x 100 x 1.5 over 200 */
    CHECK_EQ_U64(c.util, 15000);
    CHECK_EQ_U64(c.util_base, 200);
    CHECK(pl_cpufreq_utility(&c, 300, 1400, &gap) == 0);        /* no nominal frequency: no value */
    CHECK(pl_cpufreq_utility(&c, 400, 1600, &m) == 1);          /* a restart counts neither interval */
    CHECK_EQ_U64(c.util, 15000);
    CHECK_EQ_U64(c.util_base, 200);
    CHECK(pl_cpufreq_utility(&c, 500, 1800, &m) == 1);          /* + 15000 over 200 */
    CHECK_EQ_U64(c.util, 30000);
    CHECK_EQ_U64(c.util_base, 400);
    CHECK(pl_cpufreq_utility(&c, 10, 100, &m) == 1);            /* ticks went back (re-plug): nothing added */
    CHECK_EQ_U64(c.util, 30000);
    CHECK(pl_cpufreq_utility(&c, 110, 300, &m) == 1);           /* + 15000 over 200 from there */
    CHECK_EQ_U64(c.util, 45000);
    CHECK_EQ_U64(c.util_base, 600);
}

int main(void)
{
    RUN(test_def);
    RUN(test_utility_sums);
    RUN(test_full_instances);
    RUN(test_full_values);
    RUN(test_full_wanted);
    RUN(test_full_query);
    RUN(test_basic_rates);
    RUN(test_numa);
    RUN(test_numa_idle_freq);
    RUN(test_node_sparse);
    RUN(test_cpuinfo);
    RUN(test_user_hz);
    RUN(test_errors);
    RUN(test_hold_and_replug);
    RUN(test_replug_hz);
    RUN(test_hotplug);
    RUN(test_processor_time_inv);
    RUN(test_guest_clamp);
    RUN(test_intr_wrap);
    RUN(test_intr_bad_tables);
    RUN(test_sparse_cpu);
    RUN(test_live);
    return CT_END();
}
