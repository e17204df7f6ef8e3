/* The memory, disk and network kernel sources (meminfo.h, diskstats.h,
 * netdev.h, sockstat.h, swaps.h): one read per collect across the sets and
 * queries that share a file, one instant for the blocks it feeds, the pure
 * parsers on bytes (absent, zero and malformed told apart), files that
 * change layout between collects or get shorter than their first read, and
 * never a value from another line.  Against the fixture trees (run from the
 * repository root) and temporary trees rewritten between collects. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "meminfo.h"
#include "diskstats.h"
#include "netdev.h"
#include "sockstat.h"
#include "swaps.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define KIB 1024ull

/* Value of instance inst (NULL: the first) of block b's counter c; *have
 * its presence flag (0 when there is no such instance). */
static uint64_t val(const pl_sample *s, uint32_t b, const char *inst, uint32_t c, int *have)
{
    const pl_block *bl = &s->blocks[b];
    *have = 0;
    for (uint32_t i = 0; i < bl->ninst; i++) {
        size_t k = bl->vals_off + (size_t)i * bl->ncounters + c;
        if (inst && strcmp(pl_sample_inst_name(s, bl, i), inst) != 0)
            continue;
        *have = s->have[k];
        return s->vals[k].v;
    }
    return 0;
}

#define EXPECT_VAL(s, b, inst, c, want) do { int h_; uint64_t v_ = val(s, b, inst, c, &h_); \
    CHECK(h_ == 1); CHECK_EQ_U64(v_, want); } while (0)
#define EXPECT_UNSET(s, b, inst, c) do { int h_; (void)val(s, b, inst, c, &h_); CHECK(h_ == 0); } \
    while (0)

/* ---- one read per collect ------------------------------------------------------ */

/* PhysicalDisk and LogicalDisk read /proc/diskstats once per collect, at one
 * instant; two queries share the reader. */
static void test_diskstats_shared(void)
{
    pl_env *env = pl_env_new("spec/fixtures/disk-vm");
    pl_query *q = pl_query_new(env), *q2 = pl_query_new(env);
    pl_sample *s = NULL, *s2 = NULL;
    pl_ksrc *ds = pl_ksrc_attach(env, &pl_ksrc_diskstats);
    qadd(q, "\\PhysicalDisk(*)\\Disk Reads/sec");
    qadd(q, "\\LogicalDisk(*)\\Disk Reads/sec");
    qadd(q2, "\\PhysicalDisk(*)\\Disk Writes/sec");
    CHECK(ds != NULL);
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(ds), 1);
    CHECK(s->blocks[0].time == s->blocks[1].time && s->blocks[0].time == pl_ksrc_time(ds));
    EXPECT_VAL(s, 0, "vda", 0, 93914);      /* field 4 of the vda line */
    EXPECT_VAL(s, 0, "vdb", 0, 5000);
    EXPECT_VAL(s, 1, "/", 0, 93914);        /* mount 27 is 254:0, vda */
    EXPECT_VAL(s, 1, "/boot", 0, 4000);     /* mount 40 is 254:17, vdb1 */
    free(s);
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(ds), 2);     /* a new collect reads afresh */
    free(s);
    pl_env_begin(env);
    CHECK(pl_query_collect(q, &s) == 0 && pl_query_collect(q2, &s2) == 0);
    pl_env_end(env);
    CHECK_EQ_U64(pl_ksrc_reads(ds), 3);     /* one read for both queries */
    CHECK(s->blocks[0].time == s2->blocks[0].time);
    EXPECT_VAL(s2, 0, "vda", 0, 19084);     /* field 8 */
    free(s);
    free(s2);
    pl_query_free(q);
    pl_query_free(q2);
    pl_env_unref(env);
}

/* Memory reads meminfo and vmstat once each, and only the one its wanted
 * counters need; two Memory queries in one generation share both reads. */
static void test_memory_sources(void)
{
    pl_env *env = pl_env_new("spec/fixtures/basic");
    pl_query *q = pl_query_new(env), *q2 = pl_query_new(env), *qv = pl_query_new(env);
    pl_sample *s = NULL, *s2 = NULL;
    pl_ksrc *mi = pl_ksrc_attach(env, &pl_ksrc_meminfo), *vm = pl_ksrc_attach(env, &pl_ksrc_vmstat);
    qadd(q, "\\Memory\\Total Bytes");
    qadd(q, "\\Memory\\Page Faults/sec");
    qadd(q2, "\\Memory\\Cache Bytes");
    qadd(qv, "\\Memory\\Page Faults/sec");
    CHECK(pl_query_collect(qv, &s) == 0);
    CHECK_EQ_U64(pl_ksrc_reads(mi), 0);     /* no meminfo counter wanted */
    CHECK_EQ_U64(pl_ksrc_reads(vm), 1);
    EXPECT_VAL(s, 0, NULL, 0, 4567890);     /* vmstat pgfault */
    CHECK(s->blocks[0].time == pl_ksrc_time(vm));
    free(s);
    pl_env_begin(env);
    CHECK(pl_query_collect(q, &s) == 0 && pl_query_collect(q2, &s2) == 0);
    pl_env_end(env);
    CHECK_EQ_U64(pl_ksrc_reads(mi), 1);
    CHECK_EQ_U64(pl_ksrc_reads(vm), 2);
    CHECK(s->blocks[0].time == s2->blocks[0].time && s->blocks[0].time == pl_ksrc_time(mi));
    EXPECT_VAL(s, 0, NULL, 0, 24684092 * KIB);   /* MemTotal 24684092 kB */
    EXPECT_VAL(s2, 0, NULL, 0, 601852 * KIB);    /* Cached 601852 kB */
    free(s);
    free(s2);
    pl_query_free(q);
    pl_query_free(q2);
    pl_query_free(qv);
    pl_env_unref(env);
}

/* Sockets and Network Interface, each from its own sources, once a collect. */
static void test_net_sources(void)
{
    pl_env *env = pl_env_new("spec/fixtures/net-basic");
    pl_query *q = pl_query_new(env), *q2 = pl_query_new(env);
    pl_sample *s = NULL, *s2 = NULL;
    pl_ksrc *ss = pl_ksrc_attach(env, &pl_ksrc_sockstat), *ss6 = pl_ksrc_attach(env, &pl_ksrc_sockstat6);
    pl_ksrc *nd = pl_ksrc_attach(env, &pl_ksrc_netdev);
    uint64_t page = (uint64_t)pl_env_page_size(env);
    qadd(q, "\\Sockets\\TCP Memory Bytes");
    qadd(q, "\\Network Interface(*)\\Bytes Received/sec");
    qadd(q2, "\\Sockets\\TCP In Use");
    qadd(q2, "\\Network Interface(eth0)\\Packets Sent/sec");
    pl_env_begin(env);
    CHECK(pl_query_collect(q, &s) == 0 && pl_query_collect(q2, &s2) == 0);
    pl_env_end(env);
    CHECK_EQ_U64(pl_ksrc_reads(ss), 1);
    CHECK_EQ_U64(pl_ksrc_reads(ss6), 0);    /* no IPv6 counter wanted */
    CHECK_EQ_U64(pl_ksrc_reads(nd), 1);
    CHECK(s->blocks[0].time == s2->blocks[0].time && s->blocks[1].time == s2->blocks[1].time);
    CHECK(s->blocks[1].time == pl_ksrc_time(nd));
    EXPECT_VAL(s, 0, NULL, 0, 95 * page);   /* TCP mem 95 pages */
    EXPECT_VAL(s2, 0, NULL, 0, 2);          /* TCP inuse 2 */
    EXPECT_VAL(s, 1, "enp3s0", 0, 9876543210ull);
    EXPECT_VAL(s, 1, "old:alias", 0, 100);  /* split at the last ':' */
    EXPECT_VAL(s2, 1, "eth0", 0, 719);      /* transmit packets */
    free(s);
    free(s2);
    pl_query_free(q);
    pl_query_free(q2);
    pl_env_unref(env);
}

/* ---- files that change between collects ------------------------------------------ */

static void mk_tree(void)
{
    char cmd[200];
    ct_tmp_init("test_ksrc_memnet");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/proc/net %s/sys/block", ct_dir, ct_dir);
    CHECK(system(cmd) == 0);
}

static void write_file(const char *rel, const char *text)
{
    CHECK(put(ct_dir, rel, text));
}

/* meminfo gains a key before a known one and loses one; the values follow
 * their names, a removed key is absent, and a shorter file leaves the rest
 * absent: never the value of the line that now stands where a key was. */
static void test_meminfo_layout(void)
{
    pl_env *env;
    pl_query *q;
    pl_sample *s = NULL;
    mk_tree();
    write_file("proc/meminfo", "MemTotal: 1000 kB\nMemFree: 200 kB\nCached: 300 kB\n");
    env = pl_env_new(ct_dir);
    q = pl_query_new(env);
    qadd(q, "\\Memory\\Total Bytes");
    qadd(q, "\\Memory\\Free & Zero Page List Bytes");
    qadd(q, "\\Memory\\Cache Bytes");
    CHECK(pl_query_collect(q, &s) == 0);
    EXPECT_VAL(s, 0, NULL, 0, 1000 * KIB);
    EXPECT_VAL(s, 1, NULL, 0, 200 * KIB);
    EXPECT_VAL(s, 2, NULL, 0, 300 * KIB);
    free(s);
    /* line 2 is now a new key, MemFree is gone, Cached moved down */
    write_file("proc/meminfo", "MemTotal: 1001 kB\nNewKey: 5 kB\nOther: 6 kB\nCached: 301 kB\n");
    CHECK(pl_query_collect(q, &s) == 0);
    EXPECT_VAL(s, 0, NULL, 0, 1001 * KIB);
    EXPECT_UNSET(s, 1, NULL, 0);            /* not NewKey's 5 kB */
    EXPECT_VAL(s, 2, NULL, 0, 301 * KIB);
    free(s);
    /* shorter than the first read; the keys swapped places */
    write_file("proc/meminfo", "Cached: 7 kB\nMemTotal: 8 kB\n");
    CHECK(pl_query_collect(q, &s) == 0);
    EXPECT_VAL(s, 0, NULL, 0, 8 * KIB);
    EXPECT_UNSET(s, 1, NULL, 0);
    EXPECT_VAL(s, 2, NULL, 0, 7 * KIB);
    free(s);
    /* a malformed value is unset, its neighbours are not */
    write_file("proc/meminfo", "MemTotal: 9x kB\nMemFree: 0 kB\n");
    CHECK(pl_query_collect(q, &s) == 0);
    EXPECT_UNSET(s, 0, NULL, 0);
    EXPECT_VAL(s, 1, NULL, 0, 0);           /* zero is a value, not absence */
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    ct_tmp_remove();
}

/* diskstats and net/dev lose rows between collects; swaps loses an area. */
static void test_rows_shrink(void)
{
    pl_env *env;
    pl_query *q;
    pl_sample *s = NULL;
    mk_tree();
    CHECK(mkdir(tmp("sys/block/sda"), 0755) == 0 && mkdir(tmp("sys/block/sda/device"), 0755) == 0);
    CHECK(mkdir(tmp("sys/block/sdb"), 0755) == 0 && mkdir(tmp("sys/block/sdb/device"), 0755) == 0);
    write_file("proc/diskstats", "8 0 sda 10 0 0 0 20 0 0 0 0 0 0\n8 16 sdb 30 0 0 0 40 0 0 0 0 0 0\n");
    write_file("proc/net/dev", "h1\nh2|\n eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
                               " eth1: 100 0 0 0 0 0 0 0 200 0 0 0 0 0 0 0\n");
    write_file("proc/swaps", "Filename Type Size Used Priority\n/dev/a partition 8 4 -2\n"
                             "/dev/b partition 16 2 -3\n");
    env = pl_env_new(ct_dir);
    q = pl_query_new(env);
    qadd(q, "\\PhysicalDisk(*)\\Disk Reads/sec");
    qadd(q, "\\Network Interface(*)\\Bytes Received/sec");
    qadd(q, "\\Paging File(*)\\Used Bytes");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(s->blocks[0].ninst, 3);    /* sda, sdb, _Total */
    EXPECT_VAL(s, 0, "sdb", 0, 30);
    EXPECT_VAL(s, 0, "_Total", 0, 40);      /* 10 + 30 */
    EXPECT_VAL(s, 1, "eth1", 0, 100);
    EXPECT_VAL(s, 2, "/dev/b", 0, 2 * KIB);
    EXPECT_VAL(s, 2, "_Total", 0, 6 * KIB); /* (4 + 2) KiB */
    free(s);
    write_file("proc/diskstats", "8 16 sdb 31 0 0 0 41 0 0 0 0 0 0\n");
    write_file("proc/net/dev", "h1\nh2|\n eth1: 101 0 0 0 0 0 0 0 201 0 0 0 0 0 0 0\n");
    write_file("proc/swaps", "Filename Type Size Used Priority\n/dev/b partition 16 3 -3\n");
    CHECK(pl_query_collect(q, &s) == 0);
    CHECK_EQ_U64(s->blocks[0].ninst, 2);    /* sdb, _Total */
    EXPECT_VAL(s, 0, "sdb", 0, 31);
    EXPECT_VAL(s, 0, "_Total", 0, 41);      /* sda's 10 stays: 10 + 31 */
    CHECK_EQ_U64(s->blocks[1].ninst, 2);    /* eth1, _Total */
    EXPECT_VAL(s, 1, "eth1", 0, 101);
    CHECK_EQ_U64(s->blocks[2].ninst, 2);
    EXPECT_VAL(s, 2, "/dev/b", 0, 3 * KIB);
    EXPECT_VAL(s, 2, "_Total", 0, 3 * KIB);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    ct_tmp_remove();
}

/* ---- the pure parsers on bytes ------------------------------------------------------ */

static int parse(const pl_ksrc_def *def, const char *text, void *out)
{
    static char buf[1024];
    size_t n = strlen(text);
    memcpy(buf, text, n + 1);
    return def->parse(buf, n, out);
}

static void test_meminfo_bytes(void)
{
    static pl_meminfo m;
    CHECK(parse(&pl_ksrc_meminfo, "MemTotal: 5 kB\nA: 1 kB\nMemFree: 2 kB\n", &m) == 0);
    CHECK(m.st[PL_MI_TOTAL] == PL_NS_OK && m.v[PL_MI_TOTAL] == 5);
    CHECK(m.st[PL_MI_FREE] == PL_NS_OK && m.v[PL_MI_FREE] == 2);
    CHECK(m.st[PL_MI_CACHED] == PL_NS_ABSENT);
    /* line 1 now holds MemFree: its remembered key is checked, then searched */
    CHECK(parse(&pl_ksrc_meminfo, "A: 1 kB\nMemFree: 3 kB\nMemTotal: x kB\nMemTotal: 4 kB\n", &m) == 0);
    CHECK(m.st[PL_MI_FREE] == PL_NS_OK && m.v[PL_MI_FREE] == 3);
    CHECK(m.st[PL_MI_TOTAL] == PL_NS_BAD);  /* the first line of a key counts */
    /* cut: a last line without '\n' is no line; HugePages_ counts have no kB */
    CHECK(parse(&pl_ksrc_meminfo, "HugePages_Total: 0\nHugepagesize: 2048 kB\nMemFree: 9", &m) == 0);
    CHECK(m.st[PL_MI_HP_TOTAL] == PL_NS_OK && m.v[PL_MI_HP_TOTAL] == 0);
    CHECK(m.st[PL_MI_HP_SIZE] == PL_NS_OK && m.v[PL_MI_HP_SIZE] == 2048);
    CHECK(m.st[PL_MI_FREE] == PL_NS_ABSENT);
    CHECK(parse(&pl_ksrc_meminfo, "MemFree 3 kB\n:\n\n", &m) == 0);
    CHECK(m.st[PL_MI_FREE] == PL_NS_ABSENT);      /* no ':' after the key */
}

static void test_vmstat_bytes(void)
{
    static pl_vmstat m;
    CHECK(parse(&pl_ksrc_vmstat, "nr_free_pages 1\npgscan_kswapd_normal 5\npgscan_kswapd_dma32 7\n"
                                 "pgscan_direct_throttle 9\npgfault 0\noom_kill 3\n", &m) == 0);
    CHECK(m.st[PL_VM_SCAN_KSWAPD] == PL_NS_OK && m.v[PL_VM_SCAN_KSWAPD] == 12);   /* 5 + 7 */
    CHECK(m.st[PL_VM_SCAN_DIRECT] == PL_NS_ABSENT);   /* _throttle is another counter */
    CHECK(m.st[PL_VM_PGFAULT] == PL_NS_OK && m.v[PL_VM_PGFAULT] == 0);
    CHECK(m.st[PL_VM_OOM_KILL] == PL_NS_OK && m.v[PL_VM_OOM_KILL] == 3);
    CHECK(m.st[PL_VM_PGMAJFAULT] == PL_NS_ABSENT);
    /* a line inserted first: every remembered key moves, values follow names */
    CHECK(parse(&pl_ksrc_vmstat, "pgmajfault 2\nnr_free_pages 1\npgscan_kswapd_normal 6\n"
                                 "pgscan_kswapd_dma32 x\npgfault 11\n", &m) == 0);
    CHECK(m.st[PL_VM_PGMAJFAULT] == PL_NS_OK && m.v[PL_VM_PGMAJFAULT] == 2);
    CHECK(m.st[PL_VM_SCAN_KSWAPD] == PL_NS_BAD);      /* one bad part spoils the sum */
    CHECK(m.st[PL_VM_PGFAULT] == PL_NS_OK && m.v[PL_VM_PGFAULT] == 11);
    CHECK(m.st[PL_VM_OOM_KILL] == PL_NS_ABSENT);      /* removed */
    CHECK(parse(&pl_ksrc_vmstat, " 5\npgfault\npgfault 18446744073709551616\n", &m) == 0);
    CHECK(m.st[PL_VM_PGFAULT] == PL_NS_BAD);          /* above 2^64 - 1 */
}

/* A line that was none of ours is skipped while it keeps its key; when a
 * key of ours takes its place, it is found. */
static void test_vmstat_not_ours(void)
{
    static pl_vmstat m;
    CHECK(parse(&pl_ksrc_vmstat, "nr_x 1\npgfoo 2\npgfault 3\n", &m) == 0);
    CHECK(m.st[PL_VM_PGFAULT] == PL_NS_OK && m.v[PL_VM_PGFAULT] == 3);
    CHECK(parse(&pl_ksrc_vmstat, "nr_x 1\npgfoo 2\npgfault 5\n", &m) == 0);
    CHECK(m.st[PL_VM_PGFAULT] == PL_NS_OK && m.v[PL_VM_PGFAULT] == 5);
    /* pgfault moves onto pgfoo's line, pgmajfault onto nr_x's */
    CHECK(parse(&pl_ksrc_vmstat, "pgmajfault 4\npgfault 7\npgfoo 2\n", &m) == 0);
    CHECK(m.st[PL_VM_PGFAULT] == PL_NS_OK && m.v[PL_VM_PGFAULT] == 7);
    CHECK(m.st[PL_VM_PGMAJFAULT] == PL_NS_OK && m.v[PL_VM_PGMAJFAULT] == 4);
    /* and back: a line of ours that became another key is no longer taken */
    CHECK(parse(&pl_ksrc_vmstat, "nr_x 1\npgfoo 9\npgbar 8\n", &m) == 0);
    CHECK(m.st[PL_VM_PGFAULT] == PL_NS_ABSENT && m.st[PL_VM_PGMAJFAULT] == PL_NS_ABSENT);
}

static void test_diskstats_bytes(void)
{
    static pl_dstab t;
    const pl_dsrow *r;
    CHECK(parse(&pl_ksrc_diskstats, "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2 3 4\n"
                                    "8 2 sdb 1 2 x 4 5 6 7 8 9 10 11\n4096 0 big 1 2 3 4 5 6 7 8 9 10 11\n"
                                    "8 3 sdc 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"
                                    "8 4 sdd 1 2 3 4 5 6 7 8 9 10 11 12\n", &t) == 0);
    CHECK_EQ_U64(t.n, 4);                   /* sda1 (old 4-value layout) and major 4096 skipped */
    r = t.row;
    CHECK(r[0].major == 8 && r[0].minor == 0 && strcmp(r[0].name, "sda") == 0 && r[0].nf == 11);
    CHECK(r[0].raw[0] == 1 && r[0].raw[10] == 11 && r[0].raw[11] == 0);
    CHECK(strcmp(r[1].name, "sdb") == 0 && r[1].nf == 0);     /* garbage: malformed */
    CHECK(r[2].nf == 17 && r[2].raw[16] == 17);               /* a newer kernel's extra fields */
    CHECK(r[3].nf == 0);                                       /* 12 values: cut or damaged */
    CHECK(parse(&pl_ksrc_diskstats, "8 16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", &t) == 0);
    CHECK_EQ_U64(t.n, 1);                   /* shorter than before: one row */
    r = t.row;
    CHECK(r[0].minor == 16 && r[0].nf == 15 && r[0].raw[14] == 15);
    CHECK(parse(&pl_ksrc_diskstats, "\n\n8\n8 0\n", &t) == 0 && t.n == 0);
    pl_ksrc_diskstats.release(&t);
}

static void test_netdev_bytes(void)
{
    static pl_netdev t;
    const pl_ndrow *r;
    CHECK(parse(&pl_ksrc_netdev, "Inter-|\n face |bytes\n  lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
                                 "eth0:5 x\n   :1 2\na:b: 7\nwlan0: 3 4", &t) == 0);
    CHECK_EQ_U64(t.n, 4);                   /* the headers and the empty name are no rows */
    r = t.row;
    CHECK(strcmp(r[0].name, "lo") == 0 && r[0].len == 2 && r[0].ok[0] && r[0].v[0] == 1);
    CHECK(r[0].ok[15] && r[0].v[15] == 16);
    CHECK(strcmp(r[1].name, "eth0") == 0 && r[1].ok[0] && r[1].v[0] == 5 && !r[1].ok[1] && !r[1].ok[2]);
    CHECK(strcmp(r[2].name, "a:b") == 0 && r[2].v[0] == 7 && r[2].ok[0]);
    CHECK(strcmp(r[3].name, "wlan0") == 0 && r[3].ok[0] && !r[3].ok[1]);   /* 4 is cut off */
    CHECK(parse(&pl_ksrc_netdev, "x: 0\n", &t) == 0 && t.n == 1);
    r = t.row;
    CHECK(r[0].ok[0] && r[0].v[0] == 0 && !r[0].ok[1]);    /* zero is a value */
    pl_ksrc_netdev.release(&t);
}

static void test_sockstat_bytes(void)
{
    static pl_sockstat m;
    CHECK(parse(&pl_ksrc_sockstat, "sockets: used 0\nTCP: inuse 3 orphan -1 tw x alloc 4\n"
                                   "TCP: inuse 99\nUDPLITE: inuse 8\nUDP: inuse 5 mem 6\nFRAG: inuse 1 memory", &m) == 0);
    CHECK(m.st[PL_SS_USED] == PL_NS_OK && m.v[PL_SS_USED] == 0);
    CHECK(m.st[PL_SS_TCP_INUSE] == PL_NS_OK && m.v[PL_SS_TCP_INUSE] == 3);    /* not 99 */
    CHECK(m.st[PL_SS_TCP_ORPHAN] == PL_NS_BAD && m.st[PL_SS_TCP_TW] == PL_NS_BAD);
    CHECK(m.st[PL_SS_TCP_MEM] == PL_NS_ABSENT);
    CHECK(m.st[PL_SS_UDP_INUSE] == PL_NS_OK && m.v[PL_SS_UDP_INUSE] == 5);    /* not UDPLITE's */
    CHECK(m.st[PL_SS_RAW_INUSE] == PL_NS_ABSENT);
    CHECK(m.st[PL_SS_FRAG_INUSE] == PL_NS_OK && m.st[PL_SS_FRAG_MEM] == PL_NS_ABSENT);
    CHECK(m.st[PL_SS_TCP6_INUSE] == PL_NS_ABSENT);
    CHECK(parse(&pl_ksrc_sockstat6, "TCP6: inuse 2\nTCP: inuse 7\nFRAG6: inuse 0 memory 0\n", &m) == 0);
    CHECK(m.st[PL_SS_TCP6_INUSE] == PL_NS_OK && m.v[PL_SS_TCP6_INUSE] == 2);
    CHECK(m.st[PL_SS_TCP_INUSE] == PL_NS_ABSENT);     /* sockstat6 fills only its own */
    CHECK(m.st[PL_SS_FRAG6_MEM] == PL_NS_OK && m.v[PL_SS_FRAG6_MEM] == 0);
}

static void test_swaps_bytes(void)
{
    static pl_swaps w;
    const pl_swaprow *r;
    CHECK(parse(&pl_ksrc_swaps, "Filename\tType\tSize\tUsed\tPriority\n/dev/sda2 partition 100 10 -2\n\n"
                                "/swap\\040file file 50 60 1\n/z file 4 1 2147483649\n/cut file 4 1", &w) == 0);
    CHECK_EQ_U64(w.rows.n, 4);
    r = w.rows.row;
    CHECK(strcmp(w.pool + r[0].name, "/dev/sda2") == 0 && r[0].ok);
    CHECK(r[0].size == 100 * KIB && r[0].used == 10 * KIB && r[0].prio == -2);
    CHECK(strcmp(w.pool + r[1].name, "/swap file") == 0 && !r[1].ok);     /* Used above Size */
    CHECK(!r[2].ok);                        /* priority beyond 2^31 */
    CHECK(strcmp(w.pool + r[3].name, "/cut") == 0 && !r[3].ok);           /* no '\n' */
    CHECK(parse(&pl_ksrc_swaps, "/b file 0 0 0\n", &w) == 0 && w.rows.n == 1);
    r = w.rows.row;
    CHECK(strcmp(w.pool + r[0].name, "/b") == 0 && r[0].ok && r[0].size == 0 && r[0].prio == 0);
    pl_ksrc_swaps.release(&w);
}

int main(void)
{
    RUN(test_diskstats_shared);
    RUN(test_memory_sources);
    RUN(test_net_sources);
    RUN(test_meminfo_layout);
    RUN(test_rows_shrink);
    RUN(test_meminfo_bytes);
    RUN(test_vmstat_bytes);
    RUN(test_vmstat_not_ours);
    RUN(test_diskstats_bytes);
    RUN(test_netdev_bytes);
    RUN(test_sockstat_bytes);
    RUN(test_swaps_bytes);
    return CT_END();
}
