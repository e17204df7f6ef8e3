/* Units and semantics (src/core/units.c): the derivation from every counter
 * type, declared units, the formatted unit's text, the consistency check,
 * metric names, and every built-in counter of the registry declaring units
 * that agree with its type under a unique metric name. */
#include "perflib.h"
#include "ctest.h"

#include <errno.h>

#define TICK 1e-7

typedef struct want {
    uint32_t type;
    pl_unit_kind kind;
    double scale;
    pl_semantics sem;
    pl_unit_kind fkind;
    double fscale;
    pl_per fper;
} want;

#define N_ PL_UNIT_NONE
#define C_ PL_UNIT_COUNT
#define S_ PL_UNIT_SECONDS
#define P_ PL_UNIT_PERCENT
#define CTR PL_SEM_COUNTER
#define GAU PL_SEM_GAUGE
#define DIS PL_SEM_DISCRETE

/* Every counter type perflib formats (formula.c's names, the two
 * PERF_NUMBER_DEC_1000 compositions and PERF_DOUBLE_RAW): 41 values, as
 * PERF_PRECISION_TIMESTAMP is PERF_LARGE_RAW_BASE's value. */
static const want types[] = {
    { PERF_COUNTER_COUNTER, C_, 1, CTR, C_, 1, PL_PER_SECOND },
    { PERF_COUNTER_BULK_COUNT, C_, 1, CTR, C_, 1, PL_PER_SECOND },
    { PERF_SAMPLE_COUNTER, C_, 1, CTR, C_, 1, PL_PER_SECOND },
    { PERF_COUNTER_QUEUELEN_TYPE, C_, 1, CTR, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_LARGE_QUEUELEN_TYPE, C_, 1, CTR, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_100NS_QUEUELEN_TYPE, S_, TICK, CTR, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, S_, TICK, CTR, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_COUNTER_TIMER_INV, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_100NSEC_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_100NSEC_TIMER_INV, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_OBJ_TIME_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_COUNTER_MULTI_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_COUNTER_MULTI_TIMER_INV, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_100NSEC_MULTI_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_100NSEC_MULTI_TIMER_INV, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_COUNTER_MULTI_BASE, C_, 1, GAU, N_, 1, PL_PER_NONE },
    { PERF_SAMPLE_FRACTION, C_, 1, CTR, P_, 1, PL_PER_NONE },
    { PERF_SAMPLE_BASE, C_, 1, CTR, N_, 1, PL_PER_NONE },
    { PERF_RAW_FRACTION, C_, 1, GAU, P_, 1, PL_PER_NONE },
    { PERF_LARGE_RAW_FRACTION, C_, 1, GAU, P_, 1, PL_PER_NONE },
    { PERF_RAW_BASE, C_, 1, GAU, N_, 1, PL_PER_NONE },
    { PERF_LARGE_RAW_BASE, C_, 1, GAU, N_, 1, PL_PER_NONE },
    { PERF_AVERAGE_TIMER, S_, TICK, CTR, S_, 1, PL_PER_OP },
    { PERF_AVERAGE_BULK, C_, 1, CTR, C_, 1, PL_PER_OP },
    { PERF_AVERAGE_BASE, C_, 1, CTR, N_, 1, PL_PER_NONE },
    { PERF_PRECISION_SYSTEM_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_PRECISION_100NS_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_PRECISION_OBJECT_TIMER, S_, TICK, CTR, P_, 1, PL_PER_NONE },
    { PERF_ELAPSED_TIME, S_, TICK, DIS, S_, 1, PL_PER_NONE },
    { PERF_COUNTER_DELTA, C_, 1, CTR, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_LARGE_DELTA, C_, 1, CTR, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_RAWCOUNT, C_, 1, GAU, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_LARGE_RAWCOUNT, C_, 1, GAU, C_, 1, PL_PER_NONE },
    { PERF_COUNTER_RAWCOUNT_HEX, N_, 1, DIS, N_, 1, PL_PER_NONE },
    { PERF_COUNTER_LARGE_RAWCOUNT_HEX, N_, 1, DIS, N_, 1, PL_PER_NONE },
    { PERF_COUNTER_TEXT, N_, 1, DIS, N_, 1, PL_PER_NONE },
    { PERF_COUNTER_NODATA, N_, 1, DIS, N_, 1, PL_PER_NONE },
    { PERF_COUNTER_HISTOGRAM_TYPE, N_, 1, DIS, N_, 1, PL_PER_NONE },
    { PERF_SIZE_DWORD | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000, C_, 1, GAU, C_, 1000, PL_PER_NONE },
    { PERF_SIZE_LARGE | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000, C_, 1, GAU, C_, 1000, PL_PER_NONE },
    { 0x00012000u /* PERF_DOUBLE_RAW */, N_, 1, GAU, N_, 1, PL_PER_NONE },
};
#define NTYPES (sizeof types / sizeof types[0])

static void test_every_type(void)
{
    CHECK_EQ_U64(NTYPES, 42);   /* 41 distinct values and PERF_PRECISION_TIMESTAMP's alias */
    for (size_t i = 0; i < NTYPES; i++) {
        const want *w = &types[i];
        pl_units u;
        pl_counter_def c = { 1, "X", "", w->type, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 };
        CHECK(pl_type_known(w->type));
        pl_type_units(w->type, &u);
        if (u.kind != w->kind || u.semantics != w->sem || u.fkind != w->fkind || u.fper != w->fper ||
            fabs(u.scale - w->scale) > 1e-20 || fabs(u.fscale - w->fscale) > 1e-12 || u.declared)
            fprintf(stderr, "  type 0x%08x (%s): derived %s x%g %s, formatted %s x%g per %d\n",
                    (unsigned)w->type, pl_type_name(w->type) ? pl_type_name(w->type) : "?",
                    pl_unit_name(u.kind), u.scale, pl_semantics_name(u.semantics),
                    pl_unit_name(u.fkind), u.fscale, (int)u.fper);
        CHECK_EQ_U64(u.kind, w->kind);
        CHECK_NEAR(u.scale, w->scale, 1e-20);
        CHECK_EQ_U64(u.semantics, w->sem);
        CHECK_EQ_U64(u.fkind, w->fkind);
        CHECK_NEAR(u.fscale, w->fscale, 1e-12);
        CHECK_EQ_U64(u.fper, w->fper);
        CHECK(!u.declared);
        /* an undeclared counter gets the type's units */
        pl_units cu;
        pl_counter_units(&c, &cu);
        CHECK_EQ_U64(cu.kind, w->kind);
        CHECK_EQ_U64(cu.semantics, w->sem);
        /* the derivation passes the type's own check, once declared */
        c.unit = (uint8_t)u.kind;
        c.semantics = (uint8_t)u.semantics;
        c.unit_scale = u.scale;
        char msg[200] = "";
        CHECK_EQ_U64(pl_units_check(&c, msg, sizeof msg), 0);
        if (msg[0])
            fprintf(stderr, "  %s\n", msg);
    }
}

static void test_declared(void)
{
    pl_units u;
    char txt[64];
    /* Available KBytes: raw KiB, bytes x 1024, formatted the same */
    pl_counter_def kb = { 1, "Available KBytes", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8,
                          PL_U(BYTES, 1024, GAUGE) };
    pl_counter_units(&kb, &u);
    CHECK(u.declared);
    CHECK_EQ_U64(u.kind, PL_UNIT_BYTES);
    CHECK_NEAR(u.scale, 1024, 0);
    CHECK_EQ_U64(u.fkind, PL_UNIT_BYTES);
    CHECK_NEAR(u.fscale, 1024, 0);
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "KiB");
    /* a rate of bytes: bytes/s */
    pl_counter_def rb = { 2, "Disk Read Bytes/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8,
                          PL_U(BYTES, 1, COUNTER) };
    pl_counter_units(&rb, &u);
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "bytes/s");
    /* a rate of counts: /s */
    pl_counter_def rc = { 3, "Interrupts/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8,
                          PL_U(COUNT, 1, COUNTER) };
    pl_counter_units(&rc, &u);
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "/s");
    /* battery: raw microwatts, default scale -3: formatted milliwatts */
    pl_counter_def mw = { 4, "Discharge Rate (mW)", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, -3, 8,
                          PL_U(WATTS, 1e-6, GAUGE) };
    pl_counter_units(&mw, &u);
    CHECK_NEAR(u.scale, 1e-6, 1e-20);
    CHECK_NEAR(u.fscale, 1e-3, 1e-15);          /* 1e-6 x 10^3 */
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "mW");
    /* MHz */
    pl_counter_def mhz = { 5, "Processor Frequency", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8,
                           PL_U(HERTZ, 1e6, GAUGE) };
    pl_counter_units(&mhz, &u);
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "MHz");
    /* an average timer: seconds per operation whatever the raw scale */
    pl_counter_def avg = { 6, "Avg. Disk sec/Read", "", PERF_AVERAGE_TIMER, 7, 100, 0, 8,
                           PL_U(SECONDS, 1e-7, COUNTER) };
    pl_counter_units(&avg, &u);
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "seconds/op");
    /* % types: percent */
    pl_counter_def pct = { 8, "% Processor Time", "", PERF_100NSEC_TIMER_INV, PL_NO_ID, 100, 0, 8,
                           PL_U(SECONDS, 1e-7, COUNTER) };
    pl_counter_units(&pct, &u);
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "percent");
    /* bytes per operation, and an odd scale */
    pl_counter_def bpo = { 9, "Avg. Disk Bytes/Read", "", PERF_AVERAGE_BULK, 7, 100, 0, 8,
                           PL_U(BYTES, 512, COUNTER) };
    pl_counter_units(&bpo, &u);
    pl_units_format(&u, txt, sizeof txt);
    CHECK_STR(txt, "x512 bytes/op");
    /* a small buffer: the length of the whole text */
    CHECK_EQ_U64(pl_units_format(&u, txt, 4), 13);
    CHECK_STR(txt, "x51");
}

static void test_names(void)
{
    pl_unit_kind k;
    pl_semantics s;
    CHECK_STR(pl_unit_name(PL_UNIT_BYTES), "bytes");
    CHECK_STR(pl_unit_name(PL_UNIT_AMPERE_HOURS), "ampere_hours");
    CHECK_STR(pl_unit_name((pl_unit_kind)99), "undeclared");
    CHECK_STR(pl_semantics_name(PL_SEM_DISCRETE), "discrete");
    CHECK_EQ_U64(pl_unit_parse("Seconds", &k), 0);
    CHECK_EQ_U64(k, PL_UNIT_SECONDS);
    CHECK_EQ_U64(pl_unit_parse("undeclared", &k), EINVAL);
    CHECK_EQ_U64(pl_unit_parse("furlongs", &k), EINVAL);
    CHECK_EQ_U64(pl_unit_parse(NULL, &k), EINVAL);
    CHECK_EQ_U64(pl_semantics_parse("gauge", &s), 0);
    CHECK_EQ_U64(s, PL_SEM_GAUGE);
    CHECK_EQ_U64(pl_semantics_parse("rate", &s), EINVAL);
    /* prefixed symbols: the scale to the base unit */
    static const struct { const char *s; pl_unit_kind k; double scale; } sym[] = {
        { "bytes", PL_UNIT_BYTES, 1 }, { "B", PL_UNIT_BYTES, 1 }, { "KiB", PL_UNIT_BYTES, 1024 },
        { "MiB", PL_UNIT_BYTES, 1048576 }, { "GiB", PL_UNIT_BYTES, 1073741824.0 }, { "kB", PL_UNIT_BYTES, 1000 },
        { "ms", PL_UNIT_SECONDS, 1e-3 }, { "us", PL_UNIT_SECONDS, 1e-6 }, { "ns", PL_UNIT_SECONDS, 1e-9 },
        { "s", PL_UNIT_SECONDS, 1 }, { "MHz", PL_UNIT_HERTZ, 1e6 }, { "mW", PL_UNIT_WATTS, 1e-3 },
        { "uAh", PL_UNIT_AMPERE_HOURS, 1e-6 }, { "mV", PL_UNIT_VOLTS, 1e-3 }, { "GB/s", PL_UNIT_BYTES_PER_SECOND, 1e9 },
        { "celsius", PL_UNIT_CELSIUS, 1 }, { "none", PL_UNIT_NONE, 1 },
    };
    for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
        double sc = 0;
        k = PL_UNIT_UNDECLARED;
        CHECK_EQ_U64(pl_unit_parse_scaled(sym[i].s, &k, &sc), 0);
        CHECK_EQ_U64(k, sym[i].k);
        CHECK_NEAR(sc, sym[i].scale, sym[i].scale * 1e-12);
    }
    static const char *const bad[] = { "", "KB", "xs", "kiB", "mmW", "bytes/s", " ms", "percent%" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double sc;
        if (pl_unit_parse_scaled(bad[i], &k, &sc) != EINVAL)
            fprintf(stderr, "  '%s' parsed\n", bad[i]);
        CHECK_EQ_U64(pl_unit_parse_scaled(bad[i], &k, &sc), EINVAL);
    }
    double sc;
    CHECK_EQ_U64(pl_unit_parse_scaled(NULL, &k, &sc), EINVAL);
}

/* pl_units_complete fills only what a definition leaves out. */
static void test_complete(void)
{
    pl_counter_def c = { 1, "Sent/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, PL_U(BYTES, 1, UNDECLARED) };
    pl_units_complete(&c);
    CHECK_EQ_U64(c.unit, PL_UNIT_BYTES);
    CHECK_EQ_U64(c.semantics, PL_SEM_COUNTER);
    pl_counter_def t = { 2, "% Busy", "", PERF_100NSEC_TIMER, PL_NO_ID, 100, 0, 8, 0, PL_SEM_COUNTER, 0 };
    pl_units_complete(&t);
    CHECK_EQ_U64(t.unit, PL_UNIT_SECONDS);
    CHECK_NEAR(t.unit_scale, 1e-7, 1e-20);
    CHECK_EQ_U64(pl_units_check(&t, NULL, 0), 0);
}

static void test_check(void)
{
    char msg[200];
    pl_counter_def c = { 1, "Reads/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, 0, 0, 0 };
    CHECK_EQ_U64(pl_units_check(&c, msg, sizeof msg), EINVAL);
    CHECK_STR(msg, "counter 'Reads/sec' (PERF_COUNTER_BULK_COUNT) declares no unit");
    c.unit = PL_UNIT_COUNT;
    CHECK_EQ_U64(pl_units_check(&c, msg, sizeof msg), EINVAL);
    CHECK_STR(msg, "counter 'Reads/sec' (PERF_COUNTER_BULK_COUNT) declares no semantics");
    c.semantics = PL_SEM_GAUGE;
    CHECK_EQ_U64(pl_units_check(&c, msg, sizeof msg), EINVAL);
    CHECK(strstr(msg, "must be cumulative (counter)") != NULL);
    c.semantics = PL_SEM_COUNTER;
    CHECK_EQ_U64(pl_units_check(&c, msg, sizeof msg), 0);
    c.unit_scale = -1;
    CHECK_EQ_U64(pl_units_check(&c, msg, sizeof msg), EINVAL);
    c.unit_scale = NAN;
    CHECK_EQ_U64(pl_units_check(&c, NULL, 0), EINVAL);
    pl_counter_def t = { 2, "% Busy", "", PERF_100NSEC_TIMER, PL_NO_ID, 100, 0, 8, PL_U(BYTES, 1, COUNTER) };
    CHECK_EQ_U64(pl_units_check(&t, msg, sizeof msg), EINVAL);
    CHECK(strstr(msg, "is a timer") != NULL);
    pl_counter_def f = { 3, "% Used", "", PERF_LARGE_RAW_FRACTION, 4, 100, 0, 8, PL_U(BYTES, 1, COUNTER) };
    CHECK_EQ_U64(pl_units_check(&f, msg, sizeof msg), EINVAL);
    CHECK(strstr(msg, "not cumulative") != NULL);
    pl_counter_def b = { 4, "Base", "", PERF_AVERAGE_BASE, PL_NO_ID, 100, 0, 8, PL_U(COUNT, 1, GAUGE) };
    CHECK_EQ_U64(pl_units_check(&b, msg, sizeof msg), EINVAL);
    pl_counter_def x = { 5, "Name", "", PERF_COUNTER_TEXT, PL_NO_ID, 100, 0, 8, PL_U(COUNT, 1, DISCRETE) };
    CHECK_EQ_U64(pl_units_check(&x, msg, sizeof msg), EINVAL);
}

/* A made-up set with the shapes the naming rule meets. */
static const pl_counter_def demo_counters[] = {
    { 0, "% Processor Time", "", PERF_100NSEC_TIMER_INV, PL_NO_ID, 100, 0, 8, PL_U(SECONDS, 1e-7, COUNTER) },
    { 1, "Disk Read Bytes/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, PL_U(BYTES, 1, COUNTER) },
    { 2, "Available KBytes", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8, PL_U(BYTES, 1024, GAUGE) },
    { 3, "Total Bytes", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8, PL_U(BYTES, 1, DISCRETE) },
    { 4, "Packets Total", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, PL_U(COUNT, 1, COUNTER) },
    { 5, "Temp (C)", "", PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, 100, 0, 8, PL_U(CELSIUS, 1e-3, GAUGE) },
    { 6, "Read/sec", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, PL_U(COUNT, 1, COUNTER) },
    { 7, "Read", "", PERF_COUNTER_BULK_COUNT, PL_NO_ID, 100, 0, 8, PL_U(COUNT, 1, COUNTER) },
};
static const pl_counterset_def demo = {
    { 1, 2, 3, { 4, 5, 6, 7, 8, 9, 10, 11 } }, "Demo: Set 2", "", PERF_COUNTERSET_MULTI_INSTANCES, 0,
    sizeof demo_counters / sizeof demo_counters[0], demo_counters, NULL, 0, NULL
};

static void check_metric(uint32_t i, const char *name, const char *type, double factor)
{
    char buf[PL_METRIC_NAME_MAX];
    pl_metric m;
    CHECK_EQ_U64(pl_metric_name(&demo, &demo.counters[i], buf, sizeof buf, &m), 0);
    CHECK_STR(buf, name);
    CHECK_STR(m.type, type);
    CHECK_NEAR(m.factor, factor, factor * 1e-12);
}

static void test_metric_names(void)
{
    check_metric(0, "perflib_demo_set_2_percent_processor_time_inverse_seconds_total", "counter", 1e-7);
    check_metric(1, "perflib_demo_set_2_disk_read_bytes_total", "counter", 1);
    check_metric(2, "perflib_demo_set_2_available_kbytes_bytes", "gauge", 1024);
    check_metric(3, "perflib_demo_set_2_total_bytes", "gauge", 1);
    check_metric(4, "perflib_demo_set_2_packets_total", "counter", 1);
    check_metric(5, "perflib_demo_set_2_temp_c_celsius", "gauge", 1e-3);
    /* "Read/sec" and "Read" would both be ..._read_total: each takes its id */
    check_metric(6, "perflib_demo_set_2_read_total", "counter", 1);   /* the same quantity as Read: the lower id keeps the name */
    check_metric(7, "perflib_demo_set_2_read_7_total", "counter", 1);
    /* bad input */
    char buf[16];
    pl_counter_def other = demo_counters[0];
    CHECK_EQ_U64(pl_metric_name(&demo, &other, buf, sizeof buf, NULL), EINVAL);
    CHECK_EQ_U64(pl_metric_name(&demo, &demo.counters[0], buf, 0, NULL), EINVAL);
    CHECK_EQ_U64(pl_metric_name(&demo, &demo.counters[0], buf, sizeof buf, NULL), ENAMETOOLONG);
    CHECK_STR(buf, "perflib_demo_se");
}

/* Every built-in counter of the registry declares its units, they agree
 * with its type, and its metric name is valid and unique in its set. */
static void test_registry(void)
{
    uint32_t nsets = 0, ncounters = 0;
    for (uint32_t s = 0; pl_registered(s); s++) {
        const pl_counterset_def *cs = pl_registered(s);
        nsets++;
        for (uint32_t i = 0; i < cs->ncounters; i++) {
            const pl_counter_def *c = &cs->counters[i];
            char msg[256], name[PL_METRIC_NAME_MAX];
            ncounters++;
            if (pl_units_check(c, msg, sizeof msg) != 0) {
                fprintf(stderr, "  %s: %s\n", cs->name, msg);
                CHECK(0);
            }
            CHECK_EQ_U64(pl_metric_name(cs, c, name, sizeof name, NULL), 0);
            for (const char *p = name; *p; p++)
                CHECK((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_');
            CHECK(strstr(name, "__") == NULL);
            for (uint32_t j = 0; j < i; j++) {
                char other[PL_METRIC_NAME_MAX];
                pl_metric_name(cs, &cs->counters[j], other, sizeof other, NULL);
                if (strcmp(name, other) == 0) {
                    fprintf(stderr, "  %s: '%s' and '%s' are both %s\n", cs->name, c->name,
                            cs->counters[j].name, name);
                    CHECK(0);
                }
            }
        }
    }
    CHECK(nsets >= 28);
    CHECK(ncounters >= 491);
}

int main(void)
{
    RUN(test_every_type);
    RUN(test_declared);
    RUN(test_names);
    RUN(test_complete);
    RUN(test_check);
    RUN(test_metric_names);
    RUN(test_registry);
    return CT_END();
}
