/* Bcache and Bcache Device: the pure parsers of bcache's sysfs texts
 * (bch_hprint sizes of both printings, priority_stats, state, set UUIDs),
 * then the sets on spec/fixtures/bcache, laid out as Linux makes
 * /sys/fs/bcache/<uuid> (drivers/md/bcache/super.c: the set's kobject with
 * internal/ and stats_total/, relative links bdev<N> and cache<N> to the
 * devices' /sys/block/<dev>/bcache, a backing device's dev link to its
 * bcache<K> disk in /sys/devices/virtual/block; sysfs.c and stats.c: the
 * attributes; bcache.rst; written from the Linux 5.x and 6.x sources,
 * not copied from a machine).  The devices' links back to their set
 * (cache, set) are left out: with bdev<N> and cache<N> they make a cycle
 * that tree walkers (luacheck's and busted's spec glob, two stars deep) follow without
 * end, and the sets do not read them.  Set
 * 5f3c... prints as Linux >= 4.14 does ("0.5k"), set c0ff... as earlier
 * kernels did ("512", "135M", "1.10k"), without cache_readaheads, with a
 * malformed btree_nodes, a backing device that is not running (no dev
 * link) and a priority_stats without Clean and Dirty.  Then rates on a copy
 * of the fixture (cp -a keeps its links), the wanted mask, no bcache, and
 * this machine.  Expected values are worked out beside each check. */
#include "perflib.h"
#include "pl_provider.h"
#include "pl_ksrc.h"
#include "bcache.h"
#include "bcache_list.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FX "spec/fixtures/bcache"
#define A "5f3c1a2e-8b47-4d0e-9c61-0a7e3b2d4f18"
#define B "c0ffee00-1234-4abc-8def-00112233aabb"
#define KI 1024ull
#define MI (1024ull * 1024)
#define GI (1024ull * 1024 * 1024)

static uint64_t hs(const char *s, uint8_t st_want)
{
    pl_bch_size z = pl_bch_size_parse(s, strlen(s));
    CHECK_EQ_U64(z.st, st_want);
    return z.v;
}

static void test_hsize(void)
{
    /* Linux >= 4.14: always a unit, one digit of tenths (floored) */
    CHECK_EQ_U64(hs("0.5k\n", PL_NS_OK), 512);                       /* 5 x 1024 / 10 = 512 */
    CHECK_EQ_U64(hs("0.0k\n", PL_NS_OK), 0);
    CHECK_EQ_U64(hs("1.2M\n", PL_NS_OK), MI + 209715);               /* 2 x 1048576 / 10 = 209715.2 */
    CHECK_EQ_U64(hs("512.0k", PL_NS_OK), 512 * KI);                  /* no '\n' */
    CHECK_EQ_U64(hs("999.9E\n", PL_NS_BAD), 0);                      /* past 2^64 */
    CHECK_EQ_U64(hs("15.9E\n", PL_NS_OK),
                 15 * (1ull << 60) + 9 * ((1ull << 60) / 10) + 9 * ((1ull << 60) % 10) / 10);
    /* earlier kernels: a bare decimal under 1024 (exact), no digit from 100 up, ".10" */
    {
        pl_bch_size z = pl_bch_size_parse("512\n", strlen("512\n"));
        CHECK(z.st == PL_NS_OK && z.v == 512 && z.exact);
        z = pl_bch_size_parse("0.5k\n", strlen("0.5k\n"));
        CHECK(z.st == PL_NS_OK && !z.exact);
    }
    CHECK_EQ_U64(hs("135M\n", PL_NS_OK), 135 * MI);
    CHECK_EQ_U64(hs("1.10k\n", PL_NS_OK), KI + 10 * KI / 10);         /* t / 100 = 10: 2048 */
    CHECK_EQ_U64(hs("1023k\n", PL_NS_OK), 1023 * KI);
    /* not a size */
    hs("", PL_NS_ABSENT);
    hs("\n", PL_NS_ABSENT);
    hs("-1.5k\n", PL_NS_BAD);                                         /* never a size we read */
    hs("1.11k\n", PL_NS_BAD);                                         /* two digits: only 10 */
    hs("1.123k\n", PL_NS_BAD);
    hs("1.k\n", PL_NS_BAD);
    hs("1.5\n", PL_NS_BAD);                                           /* a point needs a unit */
    hs("1.5Z\n", PL_NS_BAD);                                          /* Z, Y: past 64 bits */
    hs("1.5K\n", PL_NS_BAD);                                          /* the kernel writes 'k' */
    hs("1.5k\n\n", PL_NS_BAD);
    hs("1.5k x\n", PL_NS_BAD);
    hs("k\n", PL_NS_BAD);
    hs("18446744073709551616\n", PL_NS_BAD);                          /* 2^64 */
    CHECK_EQ_U64(hs("18446744073709551615\n", PL_NS_OK), UINT64_MAX);
    {
        const char cut[] = "1.5k\n";                                  /* len stops the parse */
        pl_bch_size z = pl_bch_size_parse(cut, 3);                    /* "1.5" */
        CHECK(z.st == PL_NS_BAD);
        z = pl_bch_size_parse(cut, 1);                                /* "1" */
        CHECK(z.st == PL_NS_OK && z.v == 1);
        z = pl_bch_size_parse("1\0k", 3);
        CHECK(z.st == PL_NS_BAD);
    }
}

#define PRIO(text, p) pl_bch_prio_parse(text, strlen(text), p)
#define STATE(text) pl_bch_state(text, strlen(text))

static void test_prio(void)
{
    static const char full[] = "Unused:\t\t12%\nClean:\t\t80%\nDirty:\t\t3%\nMetadata:\t1%\n"
                               "Average:\t5120\nSectors per Q:\t2359296\nQuantiles:\t[1 2 3]\n";
    pl_bch_prio p;
    pl_bch_prio_parse(full, strlen(full), &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_OK && p.v[PL_BCHP_UNUSED] == 12);
    CHECK(p.st[PL_BCHP_CLEAN] == PL_NS_OK && p.v[PL_BCHP_CLEAN] == 80);
    CHECK(p.st[PL_BCHP_DIRTY] == PL_NS_OK && p.v[PL_BCHP_DIRTY] == 3);
    CHECK(p.st[PL_BCHP_METADATA] == PL_NS_OK && p.v[PL_BCHP_METADATA] == 1);
    CHECK(p.st[PL_BCHP_AVERAGE] == PL_NS_OK && p.v[PL_BCHP_AVERAGE] == 5120);
    /* older: no Clean, Dirty; a bad line leaves only its own field */
    PRIO("Unused:\t\t4x%\nMetadata:\t0%\nAverage:\t97%\n", &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_BAD);
    CHECK(p.st[PL_BCHP_CLEAN] == PL_NS_ABSENT && p.st[PL_BCHP_DIRTY] == PL_NS_ABSENT);
    CHECK(p.st[PL_BCHP_METADATA] == PL_NS_OK && p.v[PL_BCHP_METADATA] == 0);
    CHECK(p.st[PL_BCHP_AVERAGE] == PL_NS_BAD);                         /* no '%' after Average */
    PRIO("Unused:12%\nMetadata:\t5\nUnusedX:\t1%\n", &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_BAD);                          /* no blank after ':' */
    CHECK(p.st[PL_BCHP_METADATA] == PL_NS_BAD);                        /* no '%' */
    pl_bch_prio_parse(full, 10, &p);                                   /* cut: "Unused:\t\t1" */
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_BAD);
    PRIO("", &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_ABSENT);
}

static void test_state_uuid(void)
{
    CHECK_EQ_U64(STATE("no cache\n"), 0);
    CHECK_EQ_U64(STATE("clean\n"), 1);
    CHECK_EQ_U64(STATE("dirty"), 2);
    CHECK_EQ_U64(STATE("inconsistent\n"), 3);
    CHECK(STATE("dirty\n\n") < 0);
    CHECK(STATE("clea") < 0);
    CHECK(STATE("") < 0);
    CHECK(pl_bch_is_uuid(A) && pl_bch_is_uuid(B));
    CHECK(!pl_bch_is_uuid("register") && !pl_bch_is_uuid("pendings_cleanup"));
    CHECK(!pl_bch_is_uuid("5F3C1A2E-8B47-4D0E-9C61-0A7E3B2D4F18"));   /* %pU is lower case */
    CHECK(!pl_bch_is_uuid(A "0") && !pl_bch_is_uuid("5f3c1a2e-8b47-4d0e-9c61-0a7e3b2d4f1"));
}

/* The keyed records: in key order whatever the listing's order, a kept
 * record keeps its contents, a gone one is dropped, a new one is inited. */
typedef struct krec {
    char key[PL_BCH_KEY];
    int v;
} krec;
static int inits, drops;
static void k_init(void *rec, void *ctx)
{
    ((krec *)rec)->v = ++inits + *(int *)ctx;
}
static void k_drop(void *rec)
{
    drops += ((krec *)rec)->v;
}

static void test_keyed(void)
{
    static const char *const first[] = { "d", "b", "a", "c" }, *const second[] = { "e", "c", "a" };
    pl_bch_keyed t;
    int base = 100;
    krec *r;
    pl_bch_keyed_init(&t, sizeof(krec));
    for (int i = 0; i < 4; i++)
        CHECK(pl_bch_key_add(&t, first[i]) == 0);
    CHECK(pl_bch_key_add(&t, "a" "0123456789012345678901234567890123456789012345678901234567890123"
                             "45678901234567890123456789012345") == 0);   /* 97 bytes: refused */
    CHECK(pl_bch_keyed_sync(&t, k_init, &base, k_drop) == 0);
    r = t.v;
    CHECK_EQ_U64(t.n, 4);
    CHECK_STR(r[0].key, "a");
    CHECK_STR(r[3].key, "d");
    /* new records are inited from the end of the key order: d 101, c 102, b 103, a 104 */
    CHECK_EQ_U64(r[0].v, 104);
    CHECK_EQ_U64(r[2].v, 102);
    for (int i = 0; i < 3; i++)
        CHECK(pl_bch_key_add(&t, second[i]) == 0);
    CHECK(pl_bch_keyed_sync(&t, k_init, &base, k_drop) == 0);
    r = t.v;
    CHECK_EQ_U64(t.n, 3);
    CHECK_STR(r[0].key, "a");
    CHECK_STR(r[1].key, "c");
    CHECK_STR(r[2].key, "e");
    CHECK_EQ_U64(r[0].v, 104);                           /* kept */
    CHECK_EQ_U64(r[1].v, 102);
    CHECK_EQ_U64(r[2].v, 105);                           /* new: the fifth */
    CHECK_EQ_U64(drops, 103 + 101);                      /* "b" and "d" went */
    CHECK(pl_bch_keyed_sync(&t, k_init, &base, k_drop) == 0);   /* an empty listing */
    CHECK_EQ_U64(t.n, 0);
    CHECK_EQ_U64(drops, 204 + 104 + 102 + 105);
    pl_bch_keyed_free(&t, k_drop);
}

static void test_set(void)
{
    pl_snapshot s;
    double v;
    CHECK(pc_collect_tree(FX, "Bcache", 0, 0, NULL, &s) == 0);
    NAMES(&s, A, B);                                                   /* register etc. are not sets */
    EXPECT(&s, A, "Average Key Size Bytes", (2 * KI / 10) * 512);      /* "0.2k" sectors: 204 x 512 */
    EXPECT(&s, A, "Btree Cache Bytes", 135 * MI + 2 * MI / 10);        /* 141557760 + 209715 */
    EXPECT(&s, A, "% Cache Available", 97);
    EXPECT(&s, A, "Congested Threshold Bytes", 0);
    EXPECT(&s, A, "% Root Usage", 4);
    EXPECT(&s, A, "Tree Depth", 1);
    EXPECT(&s, A, "Bucket Size Bytes", 512 * KI);
    EXPECT(&s, A, "Block Size Bytes", 512);                            /* "0.5k" */
    EXPECT(&s, A, "Active Journal Entries", 3);
    EXPECT(&s, A, "Btree Nodes", 124);
    EXPECT(&s, A, "% Btree Used", 21);
    EXPECT(&s, A, "Btree Read Average Duration", 1250);
    EXPECT(&s, A, "Cache Read Races/sec", 7);
    EXPECT(&s, A, "Cache Hits", 29001);
    EXPECT(&s, A, "Cache Hits/sec", 29001);
    EXPECT(&s, A, "Cache Misses", 971);
    EXPECT(&s, A, "Cache Bypass Hits", 12);
    EXPECT(&s, A, "Cache Bypass Misses/sec", 3400);
    EXPECT(&s, A, "Cache Miss Collisions", 2);
    EXPECT(&s, A, "Cache Readaheads", 0);
    EXPECT(&s, A, "Bypassed Bytes", GI + 5 * GI / 10);                 /* "1.5G": 1610612736 */
    EXPECT(&s, A, "% Cache Hit Ratio Base", 29001 + 971);              /* 29972 */
    /* 29001 / 29972 = 96.76 %: the kernel's own cache_hit_ratio says 96 */
    CHECK(fmt2(&s, &s, A, "% Cache Hit Ratio", &v) == PL_VALID);
    CHECK(fabs(v - 100.0 * 29001 / 29972) < 1e-9);

    EXPECT(&s, B, "Average Key Size Bytes", 230 * 512);                /* bare "230": exact, 117760 */
    EXPECT(&s, B, "Btree Cache Bytes", 135 * MI);                      /* "135M" */
    EXPECT(&s, B, "Congested Threshold Bytes", 0);                     /* "0" */
    EXPECT(&s, B, "Bucket Size Bytes", MI);                            /* "1.0M" */
    EXPECT(&s, B, "Block Size Bytes", 512);                            /* "512" */
    UNSET(&s, B, "Btree Nodes");                                       /* "12x" */
    EXPECT(&s, B, "% Btree Used", 2);                                  /* its neighbours still read */
    UNSET(&s, B, "Cache Readaheads");                                  /* no file */
    UNSET(&s, B, "Cache Readaheads/sec");
    EXPECT(&s, B, "Bypassed Bytes", 2 * KI);                           /* "1.10k": 1024 + 10 x 1024 / 10 */
    EXPECT(&s, B, "% Cache Hit Ratio Base", 0);                        /* 0 + 0 */
    CHECK(fmt2(&s, &s, B, "% Cache Hit Ratio", &v) != PL_VALID);       /* no I/O: no ratio */
    pl_snap_free(&s);
}

static int facts(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 512 - l, "%s=%s;", key, value);
    return 0;
}

static void test_devices(void)
{
    pctx p;
    pl_snapshot s;
    char out[512];
    double v;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, FX, "Bcache Device", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    /* set A: bdev0 (its dev link: bcache0), cache0 (nvme0n1); set B: bdev1 (no dev
     * link: the link's name), cache0 (sdd2); in key order within each set */
    NAMES(&s, "bcache0", "nvme0n1", B "/bdev1", "sdd2");
    CHECK_EQ_U64(s.inst[0].id, 0);                                     /* bcache0 */
    EXPECT(&s, "bcache0", "State", 2);                                 /* dirty */
    EXPECT(&s, "bcache0", "Dirty Data Bytes", MI + 2 * MI / 10);       /* "1.2M": 1258291 */
    EXPECT(&s, "bcache0", "Writeback Rate", 12 * MI + 7 * MI / 10);    /* "12.7M": 12582912 + 734003 */
    EXPECT(&s, "bcache0", "Sequential Cutoff Bytes", 4 * MI);
    EXPECT(&s, "bcache0", "IO Errors", 0);
    EXPECT(&s, "bcache0", "Cache Hits/sec", 28000);
    EXPECT(&s, "bcache0", "Cache Misses/sec", 900);
    EXPECT(&s, "bcache0", "Cache Bypass Hits/sec", 12);
    EXPECT(&s, "bcache0", "Cache Bypass Misses/sec", 3000);
    EXPECT(&s, "bcache0", "Bypassed Bytes/sec", GI + 4 * GI / 10);     /* "1.4G": 1503238553 */
    CHECK(fmt2(&s, &s, "bcache0", "% Cache Hit Ratio", &v) == PL_VALID);
    CHECK(fabs(v - 100.0 * 28000 / 28900) < 1e-9);                     /* 96.89 % */
    UNSET(&s, "bcache0", "Written Bytes/sec");                         /* a cache device's */
    UNSET(&s, "bcache0", "% Unused Buckets");

    EXPECT(&s, "nvme0n1", "IO Errors", 0);
    EXPECT(&s, "nvme0n1", "Written Bytes/sec", 35 * GI + 7 * GI / 10); /* "35.7G": 37580963840 + 751619276 */
    EXPECT(&s, "nvme0n1", "Metadata Written Bytes/sec", GI + GI / 10); /* "1.1G": 1181116006 */
    EXPECT(&s, "nvme0n1", "% Unused Buckets", 12);
    EXPECT(&s, "nvme0n1", "% Clean Buckets", 80);
    EXPECT(&s, "nvme0n1", "% Dirty Buckets", 3);
    EXPECT(&s, "nvme0n1", "% Metadata Buckets", 1);
    EXPECT(&s, "nvme0n1", "Average Priority", 5120);
    UNSET(&s, "nvme0n1", "State");                                     /* a backing device's */
    UNSET(&s, "nvme0n1", "Cache Hits/sec");

    EXPECT(&s, B "/bdev1", "State", 1);                                /* clean */
    EXPECT(&s, B "/bdev1", "Dirty Data Bytes", 0);                     /* bare "0" */
    EXPECT(&s, B "/bdev1", "Writeback Rate", 512);                     /* bare "512" */
    UNSET(&s, B "/bdev1", "IO Errors");                                /* no io_errors file */
    CHECK(fmt2(&s, &s, B "/bdev1", "% Cache Hit Ratio", &v) == PL_VALID);
    CHECK(fabs(v - 25.0) < 1e-9);                                      /* 10 / (10 + 30) */

    EXPECT(&s, "sdd2", "IO Errors", 2);
    EXPECT(&s, "sdd2", "Written Bytes/sec", 2 * GI + 5 * GI / 10);     /* "2.5G": 2684354560 */
    EXPECT(&s, "sdd2", "Metadata Written Bytes/sec", 980 * MI);        /* "980M": 1027604480 */
    EXPECT(&s, "sdd2", "% Unused Buckets", 40);
    UNSET(&s, "sdd2", "% Clean Buckets");                              /* no Clean line */
    UNSET(&s, "sdd2", "% Dirty Buckets");
    EXPECT(&s, "sdd2", "% Metadata Buckets", 0);
    EXPECT(&s, "sdd2", "Average Priority", 97);

    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "bcache0", facts, out), 0);
    CHECK_STR(out, "kind=backing;cache_set=" A ";link=bdev0;cache_mode=writeback;");
    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "sdd2", facts, out), 0);
    CHECK_STR(out, "kind=cache;cache_set=" B ";link=cache0;cache_replacement_policy=fifo;");
    CHECK_EQ_U64(p.cs->ops->info(p.st, "sdb", facts, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, facts, out), ENOENT);
    pl_snap_free(&s);
    pc_close(&p);
}

#define CPY "sys/fs/bcache/" A "/"

/* Rates and a growing and shrinking listing on a copy of the fixture. */
static void test_rates(void)
{
    const char *root = tmp("copy");
    char cmd[256];
    pctx p, q;
    pl_snapshot s0, s1, d0, d1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    memset(&d0, 0, sizeof d0);
    memset(&d1, 0, sizeof d1);
    snprintf(cmd, sizeof cmd, "cp -a " FX " %s", root);
    CHECK(system(cmd) == 0);
    CHECK(pc_open_set(&p, root, "Bcache", 0, 0) == 0);
    CHECK(pc_open_set(&q, root, "Bcache Device", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0 && pc_collect(&q, NULL, &d0) == 0);
    NAMES(&d0, "bcache0", "nvme0n1", B "/bdev1", "sdd2");              /* the copy's links work */
    /* 10 s later: 500 more hits, 25 more misses, bypassed 1.5G -> 1.7G, the
     * cache device wrote 35.7G -> 36.2G */
    CHECK(put(root, CPY "stats_total/cache_hits", "29501\n") == 1);
    CHECK(put(root, CPY "stats_total/cache_misses", "996\n") == 1);
    CHECK(put(root, CPY "stats_total/bypassed", "1.7G\n") == 1);
    CHECK(put(root, CPY "cache0/written", "36.2G\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0 && pc_collect(&q, NULL, &d1) == 0);
    CHECK(fabs(val2(&s0, &s1, A, "Cache Hits/sec") - 50.0) < 1e-9);     /* 500 / 10 s */
    CHECK(fabs(val2(&s0, &s1, A, "Cache Misses/sec") - 2.5) < 1e-9);    /* 25 / 10 s */
    /* (1.7G - 1.5G) / 10 s: (1825361100 - 1610612736) / 10 = 21474836.4 */
    CHECK(fabs(val2(&s0, &s1, A, "Bypassed Bytes/sec") - 21474836.4) < 1e-6);
    /* 36.2G - 35.7G: 36 x 2^30 + 214748364 - 38332583116 = 536870912 / 10 s */
    CHECK(fabs(val2(&d0, &d1, "nvme0n1", "Written Bytes/sec") - 53687091.2) < 1e-6);
    /* the ratio is of the totals: 29501 / 30497 */
    CHECK(fabs(val2(&s1, &s1, A, "% Cache Hit Ratio") - 100.0 * 29501 / 30497) < 1e-9);
    /* a file that was not there is not looked for again while its set stays */
    CHECK(put(root, "sys/fs/bcache/" B "/stats_total/cache_readaheads", "4\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    UNSET(&s1, B, "Cache Readaheads");
    /* set B goes (unregistered), the cache0 link of A goes (its device failed) */
    snprintf(cmd, sizeof cmd, "rm -rf %s/sys/fs/bcache/" B " %s/" CPY "cache0", root, root);
    CHECK(system(cmd) == 0);
    CHECK(pc_collect(&p, NULL, &s1) == 0 && pc_collect(&q, NULL, &d1) == 0);
    NAMES(&s1, A);
    NAMES(&d1, "bcache0");
    EXPECT(&d1, "bcache0", "Cache Hits/sec", 28000);
    /* and back: the set and its links get new records */
    snprintf(cmd, sizeof cmd, "cp -a " FX "/sys/fs/bcache/" B " %s/sys/fs/bcache/", root);
    CHECK(system(cmd) == 0);
    CHECK(put(root, "sys/fs/bcache/" B "/stats_total/cache_readaheads", "4\n") == 1);
    CHECK(pc_collect(&q, NULL, &d1) == 0 && pc_collect(&p, NULL, &s1) == 0);
    NAMES(&d1, "bcache0", B "/bdev1", "sdd2");
    EXPECT(&d1, "sdd2", "IO Errors", 2);
    EXPECT(&s1, B, "Cache Readaheads", 4);                             /* a new record looks */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pl_snap_free(&d0);
    pl_snap_free(&d1);
    pc_close(&p);
    pc_close(&q);
}

/* Only the wanted files: without a priority_stats counter it is not read
 * (an unreadable one would deny them); with one, it is. */
static void test_wanted(void)
{
    static const char *const hits[] = { "Cache Hits/sec", NULL };
    static const char *const unused[] = { "% Unused Buckets", NULL };
    const char *root = tmp("wanted");
    char cmd[256];
    pctx p;
    pl_snapshot s;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    snprintf(cmd, sizeof cmd, "cp -a " FX " %s && chmod 000 %s/" CPY "cache0/priority_stats",
             root, root);
    CHECK(system(cmd) == 0);
    CHECK(pc_open_set(&p, root, "Bcache Device", 0, 0) == 0);
    w = want_only(p.cs, hits);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "bcache0", "Cache Hits/sec", 28000);
    UNSET(&s, "bcache0", "Dirty Data Bytes");
    UNSET(&s, "nvme0n1", "% Unused Buckets");
    free(w);
    w = want_only(p.cs, unused);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    if (geteuid() != 0)
        DENIED(&s, "nvme0n1", "% Unused Buckets");                     /* EACCES */
    EXPECT(&s, "sdd2", "% Unused Buckets", 40);
    UNSET(&s, "sdd2", "Written Bytes/sec");
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

static void test_absent(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(tmp("none"), "Bcache", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
    CHECK(pc_collect_tree(tmp("none"), "Bcache Device", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

/* Live: this VM has no bcache (no /sys/fs/bcache): zero instances. */
static void test_live(void)
{
    pl_snapshot s;
    int have = access("/sys/fs/bcache", F_OK) == 0;
    CHECK(pc_collect_tree("/", "Bcache", 0, 0, NULL, &s) == 0);
    if (!have)
        CHECK_EQ_U64(s.ninst, 0);
    else
        printf("# this machine has /sys/fs/bcache: %u set(s)\n", (unsigned)s.ninst);
    pl_snap_free(&s);
    CHECK(pc_collect_tree("/", "Bcache Device", 0, 0, NULL, &s) == 0);
    if (!have)
        CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_bcache");
    RUN(test_hsize);
    RUN(test_prio);
    RUN(test_state_uuid);
    RUN(test_keyed);
    RUN(test_set);
    RUN(test_devices);
    RUN(test_rates);
    RUN(test_wanted);
    RUN(test_absent);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
