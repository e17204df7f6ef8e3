/* PhysicalDisk, LogicalDisk and Paging File through their ops and through
 * queries, against the spec/fixtures/disk-* trees (run from the repository
 * root) and against temporary trees rewritten between collections (32-bit
 * wrap of the ms fields, re-registered devices, devices coming and going,
 * swap peaks).  Expected values are worked out by hand; the arithmetic is in
 * the expressions and comments.
 *
 * Units: diskstats ms x 10000 = 100 ns; sectors x 512 = bytes; /proc/swaps
 * KiB x 1024 = bytes.  Fields of a diskstats line after the name:
 * rd rdm rds rdms wr wrm wrs wrms infl ioms wms | dc dcm dcs dcms | fl flms. */
#include "disk_helpers.h"

/* ======================================================================== */

typedef struct cdef { uint32_t id; const char *name; uint32_t type; uint32_t base; } cdef;

static void check_def(const char *set, const char *guid, uint32_t index, const cdef *want, size_t n)
{
    pl_env *env = pl_env_new(FX "disk-vm");
    const pl_counterset_def *cs = env ? pl_env_find(env, set) : NULL;
    pl_guid g;
    CHECK(cs != NULL);
    if (!cs) {
        pl_env_unref(env);
        return;
    }
    CHECK(pl_guid_parse(guid, &g) == 0);
    CHECK(pl_guid_equal(&cs->guid, &g));
    CHECK_STR(cs->name, set);
    CHECK_EQ_U64(cs->index, index);
    CHECK(cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES);
    CHECK(cs->costly == 0);
    CHECK(cs->help && cs->help[strlen(cs->help) - 1] == '.');
    CHECK_EQ_U64(cs->ncounters, n);
    for (uint32_t i = 0; i < cs->ncounters && i < n; i++) {
        const pl_counter_def *c = &cs->counters[i];
        CHECK_EQ_U64(c->id, want[i].id);
        CHECK_STR(c->name, want[i].name);
        CHECK_EQ_U64(c->type, want[i].type);
        CHECK_EQ_U64(c->base_id, want[i].base);
        CHECK(pl_type_known(c->type));
        CHECK(c->help && strlen(c->help) > 20 && c->help[strlen(c->help) - 1] == '.');
        CHECK_EQ_U64(c->size, 8);
        /* a base sits right after its numerator and is hidden */
        if (c->base_id != PL_NO_ID) {
            CHECK(i + 1 < cs->ncounters && cs->counters[i + 1].id == c->base_id);
            CHECK(pl_counter_hidden(&cs->counters[i + 1]));
        }
        if (!pl_counter_hidden(c))
            CHECK(i == 0 || cs->counters[i - 1].base_id != c->id);
    }
    pl_env_unref(env);
}

#define T100 PERF_100NSEC_TIMER
#define Q100 PERF_COUNTER_100NS_QUEUELEN_TYPE
#define AVGT PERF_AVERAGE_TIMER
#define AVGB PERF_AVERAGE_BULK
#define ABASE PERF_AVERAGE_BASE
#define BULK PERF_COUNTER_BULK_COUNT
#define N PL_NO_ID
#define IO_DEFS \
    { 0, "% Disk Time", T100, N }, { 1, "Avg. Disk Queue Length", Q100, N }, \
    { 2, "% Disk Read Time", T100, N }, { 3, "Avg. Disk Read Queue Length", Q100, N }, \
    { 4, "% Disk Write Time", T100, N }, { 5, "Avg. Disk Write Queue Length", Q100, N }, \
    { 6, "Avg. Disk sec/Transfer", AVGT, 7 }, { 7, "Avg. Disk sec/Transfer Base", ABASE, N }, \
    { 8, "Avg. Disk sec/Read", AVGT, 9 }, { 9, "Avg. Disk sec/Read Base", ABASE, N }, \
    { 10, "Avg. Disk sec/Write", AVGT, 11 }, { 11, "Avg. Disk sec/Write Base", ABASE, N }, \
    { 12, "Disk Transfers/sec", BULK, N }, { 13, "Disk Reads/sec", BULK, N }, \
    { 14, "Disk Writes/sec", BULK, N }, { 15, "Disk Bytes/sec", BULK, N }, \
    { 16, "Disk Read Bytes/sec", BULK, N }, { 17, "Disk Write Bytes/sec", BULK, N }, \
    { 18, "Avg. Disk Bytes/Transfer", AVGB, 19 }, { 19, "Avg. Disk Bytes/Transfer Base", ABASE, N }, \
    { 20, "Avg. Disk Bytes/Read", AVGB, 21 }, { 21, "Avg. Disk Bytes/Read Base", ABASE, N }, \
    { 22, "Avg. Disk Bytes/Write", AVGB, 23 }, { 23, "Avg. Disk Bytes/Write Base", ABASE, N }, \
    { 24, "% Idle Time", PERF_100NSEC_TIMER_INV, N }, \
    { 25, "Current Disk Queue Length", PERF_COUNTER_RAWCOUNT, N }, \
    { 32, "% Disk Utilization", T100, N }, { 33, "Merged Reads/sec", BULK, N }, \
    { 34, "Merged Writes/sec", BULK, N }, { 35, "Discards/sec", BULK, N }, \
    { 36, "Discard Bytes/sec", BULK, N }, { 37, "Avg. Disk sec/Discard", AVGT, 38 }, \
    { 38, "Avg. Disk sec/Discard Base", ABASE, N }, { 39, "Flushes/sec", BULK, N }, \
    { 40, "Avg. Disk sec/Flush", AVGT, 41 }, { 41, "Avg. Disk sec/Flush Base", ABASE, N }

static void test_defs(void)
{
    static const cdef pd[] = { IO_DEFS, { 42, "Rotational", PERF_COUNTER_LARGE_RAWCOUNT, N } };
    static const cdef ld[] = {
        { 64, "% Free Space", PERF_LARGE_RAW_FRACTION, 65 },
        { 65, "% Free Space Base", PERF_LARGE_RAW_BASE, N },
        { 66, "Free Megabytes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        IO_DEFS,
        { 67, "Total Megabytes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        { 68, "Free Bytes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        { 69, "Total Bytes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        { 70, "Used Bytes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        { 71, "% Free Inodes", PERF_LARGE_RAW_FRACTION, 72 },
        { 72, "% Free Inodes Base", PERF_LARGE_RAW_BASE, N },
        { 73, "Free Inodes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        { 74, "Total Inodes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        { 75, "Read Only", PERF_COUNTER_RAWCOUNT, N },
    };
    static const cdef pf[] = {
        { 0, "% Usage", PERF_LARGE_RAW_FRACTION, 1 }, { 1, "% Usage Base", PERF_LARGE_RAW_BASE, N },
        { 2, "% Usage Peak", PERF_LARGE_RAW_FRACTION, 3 },
        { 3, "% Usage Peak Base", PERF_LARGE_RAW_BASE, N },
        { 32, "Size Bytes", PERF_COUNTER_LARGE_RAWCOUNT, N },
        { 33, "Used Bytes", PERF_COUNTER_LARGE_RAWCOUNT, N }, { 34, "Priority", 0x00012000u, N },
    };
    check_def("PhysicalDisk", "b10a5961-b496-5a61-bff6-389c222afe60", 4000, pd, sizeof pd / sizeof pd[0]);
    check_def("LogicalDisk", "dc4b383f-62a8-55d0-a4b4-fb2fd11a869e", 5000, ld, sizeof ld / sizeof ld[0]);
    check_def("Paging File", "9e441b41-b88a-5a29-9e70-12f4e27bb05f", 16000, pf, sizeof pf / sizeof pf[0]);
}

/* disk-vm lines (fields 4..20) */
static const dsl VDA = VDA_F, VDB = VDB_F;
/* 253 0 dm-0 100 0 800 50 10 0 80 5 0 40 55 0 0 0 0 0 0 */
static const dsl DM0 = { 100, 0, 800, 50, 10, 0, 80, 5, 0, 40, 55, 0, 0, 0, 0, 0, 0 };

/* disk-vm: vda and vdb are physical; vdb1/vdb2 are partitions; dm-0 (no
 * device link, a dm/ directory) is a volume named with its dm/name and
 * left out of _Total; zram0 and loop0 (which has a device link here) are
 * left out by name. */
static void test_pd_vm(void)
{
    static const uint32_t ids[] = { ID(254, 0), ID(254, 16), ID(253, 0), TOTAL_ID };
    pctx p;
    pl_snapshot s = {0};
    CHECK(pc_open(&p, FX "disk-vm", "PhysicalDisk") == 0);
    if (!p.st) {
        pc_close(&p);
        return;
    }
    pl_snap_init(&s, p.cs);
    CHECK(p.cs->ops->instances(p.st, &s) == 0);
    INSTS(&s, ids, "vda", "vdb", "dm-0 vg0-data", "_Total");
    for (uint32_t i = 0; i < s.ninst * s.cs->ncounters; i++)
        CHECK(!s.have[i]);               /* names only */
    for (int r = 0; r < 2; r++) {        /* the same state again: same figures */
        CHECK(pc_collect(&p, NULL, &s) == 0);
        INSTS(&s, ids, "vda", "vdb", "dm-0 vg0-data", "_Total");
        EXPECT_IO(&s, "vda", &VDA, 20);
        EXPECT_IO(&s, "vdb", &VDB, 20);
        EXPECT_IO(&s, "dm-0 vg0-data", &DM0, 20);
        /* dm-0's I/O is vda's or vdb's too: not added again */
        dsl t = dsl_sum(&VDA, &VDB);     /* rd 98914, rdms 76881, ... */
        EXPECT_IO(&s, "_Total", &t, 20);
    }
    /* spot checks of the arithmetic the helper does */
    EXPECT(&s, "vda", "% Disk Time", 855430000);             /* (72881 + 12662) x 10^4 */
    EXPECT(&s, "vda", "Disk Bytes/sec", 4351525888);         /* (4712914 + 3786160) x 512 */
    EXPECT(&s, "_Total", "Avg. Disk Queue Length", 969470000); /* (86447 + 10500) x 10^4 */
    pl_snap_free(&s);
    CHECK(pl_enum_instances(p.env, p.cs, &s) == 0);
    INSTS(&s, ids, "vda", "vdb", "dm-0 vg0-data", "_Total");
    pl_snap_free(&s);
    pc_close(&p);
}

/* disk-vm -> disk-vm2, 10 s: vda did rd +1000 rdm +100 rds +80000 rdms +500
 * wr +500 wrm +50 wrs +40000 wrms +1500 ioms +1000 wms +2000 dc +10
 * dcs +2000 dcms +30 fl +20 flms +40; in flight 3; vdb did nothing. */
static void test_pd_rates(void)
{
    pl_snapshot s0, s1;
    double v;
    CHECK(collect_tree(FX "disk-vm", "PhysicalDisk", NULL, &s0) == 0);
    CHECK(collect_tree(FX "disk-vm2", "PhysicalDisk", NULL, &s1) == 0);
    static const char *const insts[] = { "vda", "_Total" };
    for (int k = 0; k < 2; k++) {
        const char *i = insts[k];
        CHECK_NEAR(val2(&s0, &s1, i, "Disk Reads/sec"), 100, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Disk Writes/sec"), 50, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Disk Transfers/sec"), 150, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Disk Read Bytes/sec"), 4096000, 1e-6);   /* 80000 x 512 / 10 */
        CHECK_NEAR(val2(&s0, &s1, i, "Disk Write Bytes/sec"), 2048000, 1e-6);
        CHECK_NEAR(val2(&s0, &s1, i, "Disk Bytes/sec"), 6144000, 1e-6);
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk Bytes/Read"), 40960, 1e-9);    /* 80000 x 512 / 1000 */
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk Bytes/Write"), 40960, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk Bytes/Transfer"), 40960, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk sec/Read"), 0.0005, 1e-12);    /* 500 ms / 1000 */
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk sec/Write"), 0.003, 1e-12);    /* 1500 ms / 500 */
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk sec/Transfer"), 2.0 / 1500, 1e-12);
        CHECK_NEAR(val2(&s0, &s1, i, "% Disk Read Time"), 5, 1e-9);           /* 500 ms in 10 s */
        CHECK_NEAR(val2(&s0, &s1, i, "% Disk Write Time"), 15, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "% Disk Time"), 20, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk Read Queue Length"), 0.05, 1e-12);
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk Write Queue Length"), 0.15, 1e-12);
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk Queue Length"), 0.2, 1e-12);   /* 2000 ms / 10 s */
        CHECK_NEAR(val2(&s0, &s1, i, "% Idle Time"), 90, 1e-9);                /* 1000 ms busy */
        CHECK_NEAR(val2(&s0, &s1, i, "% Disk Utilization"), 10, 1e-9);
        CHECK_NEAR(val2(&s1, &s1, i, "Current Disk Queue Length"), 3, 0);
        CHECK_NEAR(val2(&s0, &s1, i, "Merged Reads/sec"), 10, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Merged Writes/sec"), 5, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Discards/sec"), 1, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Discard Bytes/sec"), 102400, 1e-6);      /* 2000 x 512 / 10 */
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk sec/Discard"), 0.003, 1e-12);  /* 30 ms / 10 */
        CHECK_NEAR(val2(&s0, &s1, i, "Flushes/sec"), 2, 1e-9);
        CHECK_NEAR(val2(&s0, &s1, i, "Avg. Disk sec/Flush"), 0.002, 1e-12);    /* 40 ms / 20 */
    }
    CHECK_NEAR(val2(&s0, &s1, "vdb", "% Idle Time"), 100, 1e-9);
    CHECK(status2(&s0, &s1, "vdb", "Avg. Disk sec/Read") == PL_ZERO_BASE);
    CHECK(fmt2(&s0, &s1, "vdb", "Disk Reads/sec", &v) == PL_VALID && v == 0);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

/* 14 fields (4.17 and before): no discard or flush counters; the 7-field
 * partition line of 2.6.0-2.6.24 is skipped.  18 fields: discards only. */
static void test_pd_formats(void)
{
    static const uint32_t ids[] = { ID(8, 0), TOTAL_ID };
    static const dsl SDA = { 1000, 10, 20000, 3000, 500, 5, 8000, 4000, 0, 2500, 7000,
                             50, 1, 4000, 100, 0, 0 };
    pl_snapshot s;
    CHECK(collect_tree(FX "disk-k414", "PhysicalDisk", NULL, &s) == 0);
    INSTS(&s, ids, "sda", "_Total");
    EXPECT_IO(&s, "sda", &SDA, 14);
    EXPECT_IO(&s, "_Total", &SDA, 14);
    pl_snap_free(&s);
    CHECK(collect_tree(FX "disk-k418", "PhysicalDisk", NULL, &s) == 0);
    INSTS(&s, ids, "sda", "_Total");
    EXPECT_IO(&s, "sda", &SDA, 18);
    EXPECT_IO(&s, "_Total", &SDA, 18);
    pl_snap_free(&s);
}

/* Garbage in vda's line, a bogus in-flight count on vdb, a cut-off vdc. */
static void test_pd_broken(void)
{
    static const uint32_t ids[] = { ID(254, 0), ID(254, 16), ID(254, 32), TOTAL_ID };
    pl_snapshot s;
    CHECK(collect_tree(FX "disk-broken", "PhysicalDisk", NULL, &s) == 0);
    INSTS(&s, ids, "vda", "vdb", "vdc", "_Total");
    for (uint32_t c = 0; c < s.cs->ncounters; c++) {
        CHECK(!s.have[0 * s.cs->ncounters + c]);     /* vda: nothing */
        CHECK(!s.have[2 * s.cs->ncounters + c]);     /* vdc: nothing */
        CHECK(!s.have[3 * s.cs->ncounters + c]);     /* _Total would miss two disks */
    }
    EXPECT(&s, "vdb", "Current Disk Queue Length", 0);   /* 4294967295 > 2^31 */
    EXPECT(&s, "vdb", "Disk Reads/sec", 5000);
    pl_snap_free(&s);
    /* no sys/block (basic) or no diskstats (k414 renamed away): the set fails */
    pctx p;
    CHECK(pc_open(&p, FX "basic", "PhysicalDisk") == 0);
    memset(&s, 0, sizeof s);
    CHECK(pc_collect(&p, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "sys/block");
    pl_snap_free(&s);
    pc_close(&p);
}

/* The ms fields are 32-bit: unwrapped per device.  Then vda is removed and
 * added again (every count fell): a reset, published as it is, while _Total
 * keeps what the old vda counted.  Then vda leaves and vdb arrives. */
static void test_pd_wrap_reset(void)
{
    char dir[] = "/tmp/pl-disk-XXXXXX", line[512];
    pctx p;
    pl_snapshot s = {0};
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    CHECK(put(dir, "sys/block/vda/device/vendor", "0x1af4\n"));
    CHECK(put(dir, "sys/block/vdb/device/vendor", "0x1af4\n"));
    dsl a = { 1000, 10, 8000, 4294967000u, 500, 5, 4000, 4294960000u, 1, 4294967295u, 4294967290u,
              10, 0, 80, 4294967200u, 20, 4294967100u };
    vda_line(line, sizeof line, &a, "vda", 0);
    CHECK(put(dir, "proc/diskstats", line));
    CHECK(pc_open(&p, dir, "PhysicalDisk") == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT_IO(&s, "vda", &a, 20);          /* the first read is published as it is */
    /* every ms field but dcms wraps: the new value is the distance past 2^32 */
    dsl b = { 1100, 10, 8800, 200, 600, 5, 4800, 5000, 0, 99, 10, 11, 0, 88, 4294967250u, 21, 4 };
    vda_line(line, sizeof line, &b, "vda", 0);
    CHECK(put(dir, "proc/diskstats", line));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    dsl u = b;
    u.rdms = 4294967000ull + 296 + 200;    /* 2^32 - 4294967000 = 296, then 200 more */
    u.wrms = 4294960000ull + 7296 + 5000;  /* 2^32 - 4294960000 = 7296 */
    u.ioms = 4294967295ull + 1 + 99;
    u.wms = 4294967290ull + 6 + 10;
    u.dcms = 4294967250ull;                /* no wrap: +50 */
    u.flms = 4294967100ull + 196 + 4;
    EXPECT_IO(&s, "vda", &u, 20);
    EXPECT_IO(&s, "_Total", &u, 20);
    EXPECT(&s, "vda", "% Disk Read Time", 42949674960000ull);   /* 4294967496 x 10^4 */
    /* re-registered: every count fell; the new figures are published raw */
    dsl c = { 10, 0, 80, 7, 5, 0, 40, 3, 0, 9, 12, 0, 0, 0, 0, 1, 2 };
    vda_line(line, sizeof line, &c, "vda", 0);
    CHECK(put(dir, "proc/diskstats", line));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT_IO(&s, "vda", &c, 20);
    dsl t = dsl_sum(&u, &c);               /* _Total = old vda + new vda */
    t.infl = 0;
    EXPECT_IO(&s, "_Total", &t, 20);
    /* two counts fell, two grew: not a re-registration, and not hidden */
    dsl d = c;
    d.rd = 9;
    d.rds = 70;
    d.wr = 6;
    d.wrs = 48;
    vda_line(line, sizeof line, &d, "vda", 0);
    CHECK(put(dir, "proc/diskstats", line));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "vda", "Disk Reads/sec", 9);
    EXPECT(&s, "vda", "% Disk Read Time", 7 * MS);
    /* vda goes, vdb (254:16) comes with its history: _Total keeps vda's last
     * counts and adds vdb's whole history, all of it new since the last read */
    dsl e = { 1000, 0, 2000, 300, 0, 0, 0, 0, 0, 300, 300, 0, 0, 0, 0, 0, 0 };
    vda_line(line, sizeof line, &e, "vdb", 16);
    CHECK(put(dir, "proc/diskstats", line));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    static const uint32_t ids[] = { ID(254, 16), TOTAL_ID };
    INSTS(&s, ids, "vdb", "_Total");
    EXPECT(&s, "_Total", "Disk Reads/sec", 1100 + 9 + 1000);   /* old vda, last vda, vdb */
    EXPECT(&s, "_Total", "% Disk Read Time", (u.rdms + 7 + 300) * MS);
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* Through a query: paths, instance filters and ids. */
static void test_pd_query(void)
{
    pl_env *env = pl_env_new(FX "disk-vm");
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_sample *smp = NULL;
    pl_add_status st;
    uint32_t ix;
    CHECK(q != NULL);
    if (!q) {
        pl_env_unref(env);
        return;
    }
    CHECK(pl_query_add_path(q, "\\PhysicalDisk(*)\\Disk Reads/sec", &st, &ix) == 0 && st == 0);
    CHECK(pl_query_add_path(q, "\\PhysicalDisk(vdb)\\Avg. Disk sec/Read", &st, &ix) == 0 && st == 0);
    CHECK(pl_query_collect(q, &smp) == 0);
    if (smp) {
        const pl_block *b = &smp->blocks[0];
        CHECK_EQ_U64(b->ninst, 4);
        CHECK_STR(pl_sample_inst_name(smp, b, 0), "vda");
        CHECK_EQ_U64(pl_sample_inst_id(smp, b, 1), ID(254, 16));
        CHECK_STR(pl_sample_inst_name(smp, b, 2), "dm-0 vg0-data");
        CHECK_EQ_U64(smp->vals[b->vals_off + 0].v, 93914);
        CHECK_EQ_U64(smp->vals[b->vals_off + 2].v, 100);            /* dm-0 */
        CHECK_EQ_U64(smp->vals[b->vals_off + 3].v, 98914);          /* _Total: vda + vdb */
        b = &smp->blocks[1];
        CHECK_EQ_U64(b->ninst, 1);
        CHECK_EQ_U64(smp->vals[b->vals_off].v, 4000 * MS);           /* vdb rdms */
        CHECK_EQ_U64(smp->vals[b->vals_off].b, 5000);                /* its base: reads */
        free(smp);
    }
    pl_query_free(q);
    pl_env_unref(env);
}

int main(void)
{
    RUN(test_defs);
    RUN(test_pd_vm);
    RUN(test_pd_rates);
    RUN(test_pd_formats);
    RUN(test_pd_broken);
    RUN(test_pd_wrap_reset);
    RUN(test_pd_query);
    return CT_END();
}
