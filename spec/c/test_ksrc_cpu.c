/* The CPU family's kernel sources (procstat.h, cputab.h, proc_misc.h):
 * /proc/stat read once per collect for Processor Information, Processor
 * and System; /proc/interrupts and /proc/softirqs once for Processor
 * Information's per-CPU sums and the Interrupts and SoftIRQ sets;
 * /proc/cpuinfo once for both Processor objects' frequencies; one
 * instant for the sets a read feeds; the pure parsers on bytes (absent,
 * zero and malformed told apart, every prefix of a file parsed safely);
 * files that change layout between collects or shrink.  Against the
 * cpu-full fixture tree (run from the repository root) and temporary trees.
 *
 * cpu-full by hand: /proc/interrupts CPU0 = 10 + 0 + 100 + 1 (NMI) + 5000
 * (LOC) + 300 (RES) + 70 (CAL) + 5 (TLB) = 5486, CPU1 = 0 + 9 + 200 + 2 +
 * 6000 + 400 + 80 + 6 = 6697, ERR (7) and MIS (3) machine-wide;
 * /proc/softirqs CPU0 = 1 + 1000 + 3 + 500 + 50 + 0 + 7 + 900 + 0 + 1200 =
 * 3661, CPU1 = 2 + 2000 + 4 + 600 + 60 + 0 + 8 + 800 + 1 + 1300 = 4775. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "sources.h"
#include "procstat.h"
#include "cputab.h"
#include "proc_misc.h"
#include "cpuinfo.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FX "spec/fixtures/cpu-full"

static const pl_block *block(const pl_sample *s, uint32_t idx)
{
    for (uint32_t b = 0; b < s->nblocks; b++)
        if (s->blocks[b].index == idx)
            return &s->blocks[b];
    CHECK(!"no such block");
    return &s->blocks[0];
}

/* The one value of a block of one instance and one counter; 1 when present. */
static int one(const pl_sample *s, uint32_t idx, uint64_t *v)
{
    const pl_block *b = block(s, idx);
    if (b->shape == PERF_ERROR_RETURN || b->ninst != 1 || b->ncounters != 1)
        return 0;
    *v = s->vals[b->vals_off].v;
    return PL_HAVE_VALUE(s->have[b->vals_off]);
}

static void want_v(const pl_sample *s, uint32_t idx, uint64_t want)
{
    uint64_t v = 0;
    CHECK(one(s, idx, &v));
    CHECK_EQ_U64(v, want);
}

static void want_absent(const pl_sample *s, uint32_t idx)
{
    uint64_t v;
    CHECK(!one(s, idx, &v));
}

/* Four sets of one machine, three files: each file read once, the sets it
 * feeds at its instant, the values from the right lines. */
static void test_one_read_per_collect(void)
{
    pl_env *env = pl_env_new(FX);
    pl_query *q = pl_query_new(env);
    pl_sample *s = NULL;
    pl_ksrc *stat = pl_ksrc_attach(env, &pl_ksrc_stat);
    pl_ksrc *intr = pl_ksrc_attach(env, &pl_ksrc_interrupts);
    pl_ksrc *soft = pl_ksrc_attach(env, &pl_ksrc_softirqs);
    uint32_t pi0 = qadd(q, "\\Processor Information(0,0)\\Interrupts/sec");
    uint32_t pi1 = qadd(q, "\\Processor Information(0,1)\\DPCs Queued/sec");
    uint32_t pit = qadd(q, "\\Processor Information(_Total)\\Interrupts/sec");
    uint32_t pv1 = qadd(q, "\\Processor(1)\\Interrupts/sec");
    uint32_t ctx = qadd(q, "\\System\\Context Switches/sec");
    uint32_t blk = qadd(q, "\\System\\Processes Blocked");
    uint32_t it = qadd(q, "\\Interrupts(_Total)\\Interrupts/sec");
    uint32_t err = qadd(q, "\\Interrupts(ERR)\\Interrupts/sec");
    uint32_t st = qadd(q, "\\SoftIRQ(_Total)\\Softirqs/sec");
    CHECK(stat && intr && soft);
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 1);
    CHECK_EQ_U64(pl_ksrc_reads(intr), 1);
    CHECK_EQ_U64(pl_ksrc_reads(soft), 1);
    want_v(s, pi0, 5486);
    want_v(s, pi1, 4775);
    want_v(s, pit, 123456);                  /* the intr line of /proc/stat */
    want_v(s, pv1, 6697);                    /* Processor: the same sums */
    want_v(s, ctx, 99999);
    want_v(s, blk, 0);                       /* procs_blocked 0: present, zero */
    want_v(s, it, 5486 + 6697);              /* 12183: ERR and MIS left out */
    want_v(s, err, 7);
    want_v(s, st, 3661 + 4775);              /* 8436 */
    /* one instant per read */
    CHECK(block(s, pi0)->time == pl_ksrc_time(stat));
    CHECK(block(s, pv1)->time == pl_ksrc_time(stat));
    CHECK(block(s, ctx)->time == pl_ksrc_time(stat));
    CHECK(block(s, it)->time == pl_ksrc_time(intr));
    CHECK(block(s, st)->time == pl_ksrc_time(soft));
    free(s);
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 2);    /* a new collect reads afresh */
    CHECK_EQ_U64(pl_ksrc_reads(intr), 2);
    CHECK_EQ_U64(pl_ksrc_reads(soft), 2);
    want_v(s, pi0, 5486);                    /* nothing changed: no double count */
    want_v(s, it, 12183);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
}

/* A file is read only when a wanted counter needs it; two queries of a
 * machine share the readers and, inside one generation, the read. */
static void test_only_needed_and_shared(void)
{
    pl_env *env = pl_env_new(FX);
    pl_query *a = pl_query_new(env), *b = pl_query_new(env);
    pl_sample *sa = NULL, *sb = NULL;
    pl_ksrc *stat = pl_ksrc_attach(env, &pl_ksrc_stat);
    pl_ksrc *intr = pl_ksrc_attach(env, &pl_ksrc_interrupts);
    pl_ksrc *up = pl_ksrc_attach(env, &pl_ksrc_uptime);
    qadd(a, "\\Processor Information(*)\\% Processor Time");
    qadd(b, "\\System\\Forks/sec");
    CHECK(pl_query_collect(a, &sa) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(intr), 0);    /* no interrupt counter wanted */
    CHECK_EQ_U64(pl_ksrc_reads(up), 0);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 1);
    free(sa);
    pl_env_begin(env);
    CHECK(pl_query_collect(a, &sa) == 0 && pl_query_collect(b, &sb) == 0);
    pl_env_end(env);
    CHECK_EQ_U64(pl_ksrc_reads(stat), 2);    /* one read for both queries */
    CHECK(sa->blocks[0].time == sb->blocks[0].time);
    want_v(sb, 0, 4242);                     /* processes 4242 */
    free(sa);
    free(sb);
    pl_query_free(a);
    pl_query_free(b);
    pl_env_unref(env);
}

/* Without cpufreq, Processor Frequency comes from /proc/cpuinfo: read once
 * for both Processor objects (2394.456 -> 2394, 2394.500 -> 2395), and not
 * at all for a query without frequency counters. */
static void test_cpuinfo_shared(void)
{
    pl_env *env = pl_env_new("spec/fixtures/cpu-cpuinfo");
    pl_query *q = pl_query_new(env), *q2 = pl_query_new(env);
    pl_sample *s = NULL;
    pl_ksrc *ci = pl_ksrc_attach(env, &pl_ksrc_cpuinfo);
    uint32_t a = qadd(q, "\\Processor Information(0,0)\\Processor Frequency");
    uint32_t b = qadd(q, "\\Processor(1)\\Processor Frequency");
    qadd(q2, "\\Processor Information(*)\\% Busy Time");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(ci), 1);
    want_v(s, a, 2394);
    want_v(s, b, 2395);
    free(s);
    CHECK(pl_query_collect(q2, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(ci), 1);
    free(s);
    pl_query_free(q);
    pl_query_free(q2);
    pl_env_unref(env);
}

/* ---- the parsers on bytes ------------------------------------------------------ */

static int parse_text(int (*parse)(const char *, size_t, void *), const char *text, void *out)
{
    static char buf[4096];
    size_t n = strlen(text);
    memcpy(buf, text, n + 1);
    return parse(buf, n, out);
}

static void test_parse_stat(void)
{
    static pl_procstat ps;
    const pl_stat_cpu *rows;
    CHECK(parse_text(pl_parse_stat, "cpu  1 2 3 4\ncpu0 1 2 3 4 5 6 7 8 9 10 11\ncpu3 5 6 7 8\n"
                     "ctxtx 5\nctxt 0\nprocesses 12x\nprocs_blocked 3 4\nintr_x 9\nintr 77 1 2\n"
                     "ctxt 8\nsoftirq 5", &ps) == 0);
    CHECK_EQ_U64(ps.total.nf, 4);
    CHECK(ps.total.f[PL_STAT_US] == 1 && ps.total.f[PL_STAT_ID] == 4 && ps.total.f[PL_STAT_WA] == 0);
    CHECK_EQ_U64(ps.ncpu, 2);
    CHECK_EQ_U64(ps.maxcpu, 4);              /* cpu3: ids up to 3 */
    CHECK(ps.cpu[0].id == 0 && ps.cpu[0].nf == 10 && ps.cpu[0].f[PL_STAT_GN] == 10);   /* the 11th ignored */
    CHECK(ps.cpu[1].id == 3 && ps.cpu[1].nf == 4 && ps.cpu[1].f[PL_STAT_SY] == 7);
    CHECK(!ps.bad_cpu);
    CHECK(ps.st[PL_STAT_CTXT] == PL_NS_OK && ps.v[PL_STAT_CTXT] == 0);   /* zero, not ctxtx's 5 nor the later 8 */
    CHECK(ps.st[PL_STAT_PROCESSES] == PL_NS_BAD);                       /* "12x" */
    CHECK(ps.st[PL_STAT_BLOCKED] == PL_NS_BAD);                         /* two numbers */
    CHECK(ps.st[PL_STAT_INTR] == PL_NS_OK && ps.v[PL_STAT_INTR] == 77); /* not intr_x's */
    CHECK(ps.st[PL_STAT_SOFTIRQ] == PL_NS_ABSENT);                      /* cut: no '\n' */
    CHECK(ps.st[PL_STAT_BTIME] == PL_NS_ABSENT && ps.st[PL_STAT_RUNNING] == PL_NS_ABSENT);
    rows = ps.cpu;
    /* parsed again: what the new bytes lack is absent; the rows array is kept */
    CHECK(parse_text(pl_parse_stat, "cpu0 1 2 3\nprocs_running 2\n", &ps) == 0);
    CHECK(ps.bad_cpu);                       /* three numbers */
    CHECK(ps.total.nf == 0 && ps.ncpu == 0 && ps.maxcpu == 0);
    CHECK(ps.st[PL_STAT_CTXT] == PL_NS_ABSENT && ps.st[PL_STAT_INTR] == PL_NS_ABSENT);
    CHECK(ps.st[PL_STAT_RUNNING] == PL_NS_OK && ps.v[PL_STAT_RUNNING] == 2);
    CHECK(parse_text(pl_parse_stat, "cpu  1 2 3 4\ncpu1 1 2 3 4\n", &ps) == 0);
    CHECK(ps.cpu == rows && !ps.bad_cpu && ps.ncpu == 1 && ps.maxcpu == 2);
    CHECK(parse_text(pl_parse_stat, "cpu70000 1 2 3 4\nctxt 18446744073709551616\n", &ps) == 0);
    CHECK(ps.bad_cpu && ps.ncpu == 0);       /* beyond any NR_CPUS */
    CHECK(ps.st[PL_STAT_CTXT] == PL_NS_BAD); /* 2^64 */
    CHECK(parse_text(pl_parse_stat, "cpuX 1 2 3 4\nctxt 18446744073709551615\n", &ps) == 0);
    CHECK(ps.bad_cpu && ps.v[PL_STAT_CTXT] == UINT64_MAX);
    pl_release_stat(&ps);
}

static void test_parse_cputab(void)
{
    static pl_cputab t;
    const pl_cputab_row *r;
    CHECK(parse_text(pl_parse_interrupts,
                     "   CPU0   CPU2\n  0:   5   6  IO-APIC 2-edge timer\nERR:   9\nLOC:  1  x\n"
                     "BIG: 4294967296 1\nno colon here\n  : 3 4\n"
                     "a_label_of_thirty_two_characters: 1 2\nRE S: 1 2\nRES: 7 8", &t) == 0);
    CHECK(t.ncols == 2 && t.cols[0] == 0 && t.cols[1] == 2 && t.maxcpu == 3);
    CHECK_EQ_U64(t.nrows, 4);                /* 0, ERR, LOC, BIG; the rest are no rows */
    r = &t.rows[0];
    CHECK(strcmp(r->label, "0") == 0 && pl_cputab_full(&t, r));
    CHECK(t.cells[r->first] == 5 && t.cells[r->first + 1] == 6);   /* "2-edge" is not a cell */
    r = &t.rows[1];
    CHECK(strcmp(r->label, "ERR") == 0 && r->wide && r->ncells == 1 && t.cells[r->first] == 9);
    CHECK(!pl_cputab_full(&t, r));
    r = &t.rows[2];
    CHECK(strcmp(r->label, "LOC") == 0 && r->ncells == 1 && !pl_cputab_full(&t, r));
    r = &t.rows[3];
    CHECK(strcmp(r->label, "BIG") == 0 && r->bad && !pl_cputab_full(&t, r));
    /* the same label in /proc/softirqs is no machine-wide row */
    CHECK(parse_text(pl_parse_softirqs, " CPU0\n ERR: 1\n", &t) == 0);
    CHECK(t.nrows == 1 && !t.rows[0].wide && pl_cputab_full(&t, &t.rows[0]));
    /* headers that are no CPU list */
    CHECK_EQ_U64(parse_text(pl_parse_softirqs, " CPU0 foo\n TIMER: 1\n", &t), EINVAL);
    CHECK_EQ_U64(t.nrows, 0);
    CHECK_EQ_U64(parse_text(pl_parse_softirqs, "\n", &t), EINVAL);
    CHECK_EQ_U64(parse_text(pl_parse_softirqs, " CPU0", &t), EINVAL);
    CHECK_EQ_U64(parse_text(pl_parse_interrupts, " CPU65536\n", &t), EINVAL);
    pl_release_cputab(&t);
}

static void test_parse_misc(void)
{
    static pl_uptime u;
    static pl_loadavg l;
    CHECK(parse_text(pl_parse_uptime, "699.22 1135.87\n", &u) == 0);
    CHECK(u.st[PL_UPTIME_UP] == PL_NS_OK && u.v[PL_UPTIME_UP] == 6992200000ull);    /* x 10^7 */
    CHECK(u.st[PL_UPTIME_IDLE] == PL_NS_OK && u.v[PL_UPTIME_IDLE] == 11358700000ull);
    CHECK(parse_text(pl_parse_uptime, "12.5x 0.00000005\n", &u) == 0);
    CHECK(u.st[PL_UPTIME_UP] == PL_NS_BAD);
    CHECK(u.st[PL_UPTIME_IDLE] == PL_NS_OK && u.v[PL_UPTIME_IDLE] == 1);   /* 0.5 hns rounds up */
    CHECK(parse_text(pl_parse_uptime, "5 6", &u) == 0);   /* cut off */
    CHECK(u.st[PL_UPTIME_UP] == PL_NS_ABSENT && u.st[PL_UPTIME_IDLE] == PL_NS_ABSENT);
    /* 922337203686 s is 9223372036860000000 hns > INT64_MAX */
    CHECK(parse_text(pl_parse_uptime, "922337203686 0\n", &u) == 0);
    CHECK(u.st[PL_UPTIME_UP] == PL_NS_BAD && u.st[PL_UPTIME_IDLE] == PL_NS_OK && u.v[PL_UPTIME_IDLE] == 0);

    CHECK(parse_text(pl_parse_loadavg, "0.38 0.44 0.24 3/102 25424\n", &l) == 0);
    CHECK(l.v[PL_LOAD_1] == 38 && l.v[PL_LOAD_5] == 44 && l.v[PL_LOAD_15] == 24);
    CHECK(l.v[PL_LOAD_RUNNING] == 3 && l.v[PL_LOAD_THREADS] == 102 && l.v[PL_LOAD_LASTPID] == 25424);
    for (int k = 0; k < PL_LOAD_N; k++)
        CHECK(l.st[k] == PL_NS_OK);
    CHECK(parse_text(pl_parse_loadavg, "0.005 0.44\n", &l) == 0);
    CHECK(l.st[PL_LOAD_1] == PL_NS_OK && l.v[PL_LOAD_1] == 1);   /* rounded half up */
    CHECK(l.st[PL_LOAD_15] == PL_NS_ABSENT && l.st[PL_LOAD_RUNNING] == PL_NS_ABSENT);
    CHECK(parse_text(pl_parse_loadavg, "1 2 -3 4 x\n", &l) == 0);
    CHECK(l.v[PL_LOAD_1] == 100 && l.st[PL_LOAD_15] == PL_NS_BAD);
    CHECK(l.st[PL_LOAD_RUNNING] == PL_NS_BAD && l.st[PL_LOAD_THREADS] == PL_NS_BAD);   /* no slash */
    CHECK(l.st[PL_LOAD_LASTPID] == PL_NS_BAD);
    CHECK(parse_text(pl_parse_loadavg, "0 0 0 /7 1\n", &l) == 0);
    CHECK(l.st[PL_LOAD_RUNNING] == PL_NS_BAD && l.st[PL_LOAD_THREADS] == PL_NS_OK && l.v[PL_LOAD_THREADS] == 7);
}

static void test_parse_cpuinfo(void)
{
    static pl_cpuinfo ci;
    CHECK(parse_text(pl_parse_cpuinfo, "processor\t: 0\ncpu MHz\t\t: 2394.456\ncpu MHz : 7\n\n"
                     "processor\t: 3\ncpu MHz\t\t: 2394.5\n\nprocessor : 1\nmodel : x\n"
                     "processor : 2\ncpu MHz : 12abc\nprocessor : 70000\ncpu MHz : 5\n", &ci) == 0);
    CHECK_EQ_U64(ci.n, 4);                   /* 0 .. 3; 70000 is no CPU number */
    CHECK(ci.mhz_st[0] == PL_NS_OK && ci.mhz[0] == 2394);   /* the first line counts */
    CHECK(ci.mhz_st[1] == PL_NS_ABSENT);     /* no cpu MHz line */
    CHECK(ci.mhz_st[2] == PL_NS_BAD);        /* garbage */
    CHECK(ci.mhz_st[3] == PL_NS_OK && ci.mhz[3] == 2395);   /* half up */
    CHECK(parse_text(pl_parse_cpuinfo, "cpu MHz : 5\nprocessor : 1\n", &ci) == 0);
    CHECK(ci.n == 2 && ci.mhz_st[0] == PL_NS_ABSENT && ci.mhz_st[1] == PL_NS_ABSENT);
    pl_release_cpuinfo(&ci);
}

/* Every source's parser on every prefix of the fixture files and on bytes
 * that are no text at all: no crash, no read past len (ASan), no error but
 * EINVAL or 0. */
static void test_parse_prefixes(void)
{
    static const char *const files[] = {
        FX "/proc/stat", FX "/proc/interrupts", FX "/proc/softirqs", "spec/fixtures/basic/proc/uptime",
        "spec/fixtures/basic/proc/loadavg", "spec/fixtures/cpu-cpuinfo/proc/cpuinfo",
    };
    static char text[8192], buf[8192];
    static const char junk[] = "cpu\0 1 2\ncpu0\t\t\t9\n:\n\n CPU\n CPU0 CPU1\nintr \xff\xfe 7\n";
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        FILE *fp = fopen(files[f], "rb");
        size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
        CHECK(n > 0);
        if (fp)
            fclose(fp);
        for (const pl_ksrc_def *const *d = pl_ksrc_all; *d; d++) {
            void *out = calloc(1, (*d)->size);
            CHECK(out != NULL);
            if (!out)
                continue;
            for (size_t len = 0; len <= n; len++) {
                memcpy(buf, text, len);
                buf[len] = '\0';
                int e = (*d)->parse(buf, len, out);
                CHECK(e == 0 || e == EINVAL);
            }
            memcpy(buf, junk, sizeof junk);  /* its '\0' and more */
            (void)(*d)->parse(buf, sizeof junk - 1, out);
            if ((*d)->release)
                (*d)->release(out);
            free(out);
        }
    }
}

/* ---- files that change between collects ---------------------------------------- */

static void write_file(const char *rel, const char *text)
{
    CHECK(put(ct_dir, rel, text));
}

/* New keys and a changed order in /proc/stat, a key removed, an IRQ row
 * replaced at its old position, then files shorter than their first read:
 * values follow their names, a removed one is absent. */
static void test_layout_change(void)
{
    pl_env *env;
    pl_query *q;
    pl_sample *s = NULL;
    uint32_t ctx, frk, pi0, it, loc;
    ct_tmp_init("test_ksrc_cpu");
    write_file("proc/stat", "cpu  2 0 2 20 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\n"
                            "cpu1 1 0 1 10 0 0 0 0 0 0\nintr 50 1\nctxt 100\nprocesses 5\n");
    write_file("proc/interrupts", "   CPU0  CPU1\n 30: 4 0 PCI-MSI eth0\nLOC: 10 20 Local\nERR: 0\n");
    env = pl_env_new(ct_dir);
    q = pl_query_new(env);
    ctx = qadd(q, "\\System\\Context Switches/sec");
    frk = qadd(q, "\\System\\Forks/sec");
    pi0 = qadd(q, "\\Processor Information(0,0)\\Interrupts/sec");
    it = qadd(q, "\\Interrupts(_Total)\\Interrupts/sec");
    loc = qadd(q, "\\Interrupts(LOC)\\Interrupts/sec");
    CHECK(pl_query_collect(q, &s) == 0);
    want_v(s, ctx, 100);
    want_v(s, frk, 5);
    want_v(s, pi0, 14);                      /* 4 + 10 */
    want_v(s, it, 34);                       /* 4 + 10 + 0 + 20 */
    want_v(s, loc, 30);
    free(s);
    /* a new key first, processes before ctxt; IRQ 31 where 30 was */
    write_file("proc/stat", "cpu  2 0 2 20 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\n"
                            "cpu1 1 0 1 10 0 0 0 0 0 0\nnewkey 7\nprocesses 6\nctxt 130\nintr 60 1\n");
    write_file("proc/interrupts", "   CPU0  CPU1\n 31: 2 1 PCI-MSI eth1\nLOC: 15 20 Local\nERR: 0\n");
    CHECK(pl_query_collect(q, &s) == 0);
    want_v(s, ctx, 130);
    want_v(s, frk, 6);
    want_v(s, pi0, 4 + 2 + 15);              /* 30 keeps its 4; 31 from 2; LOC +5 */
    want_v(s, it, 4 + 3 + 35);               /* 42: rows that left still count */
    want_v(s, loc, 35);
    free(s);
    /* ctxt gone, shorter files: absent, never another line's value */
    write_file("proc/stat", "cpu  2 0 2 20 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\nprocesses 7\n");
    write_file("proc/interrupts", "   CPU0\nLOC: 16\n");
    CHECK(pl_query_collect(q, &s) == 0);
    want_absent(s, ctx);
    want_v(s, frk, 7);
    want_v(s, pi0, 4 + 2 + 16);              /* CPU1's column went offline */
    want_v(s, loc, 36);                      /* CPU1 keeps its 20 */
    free(s);
    /* a /proc/stat that is no such file: Processor Information fails, System has nothing */
    write_file("proc/stat", "hello\n");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK(block(s, pi0)->shape == PERF_ERROR_RETURN && block(s, pi0)->err == EINVAL);
    want_absent(s, ctx);
    want_absent(s, frk);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    ct_tmp_remove();
}

int main(void)
{
    RUN(test_one_read_per_collect);
    RUN(test_only_needed_and_shared);
    RUN(test_parse_stat);
    RUN(test_parse_cputab);
    RUN(test_cpuinfo_shared);
    RUN(test_parse_misc);
    RUN(test_parse_cpuinfo);
    RUN(test_parse_prefixes);
    RUN(test_layout_change);
    return CT_END();
}
