/* Memory's /proc/meminfo counters of issue 17 (ids 55 and up): every field
 * by name, against fixture trees whose layouts follow fs/proc/meminfo.c
 * (meminfo_proc_show, then hugetlb_report_meminfo and x86's
 * arch_report_meminfo): mem-full is a 6.18 x86-64 kernel with CONFIG_CMA,
 * CONFIG_UNACCEPTED_MEMORY, CONFIG_MEMORY_FAILURE and a balloon; mem-highmem
 * a 32-bit kernel with CONFIG_HIGHMEM and no PAE (DirectMap4M, 4 MiB huge
 * pages); old-kernel a 3.10 one.  kB lines are x 1024, the products beside
 * each check; HugePages_ lines are counts.  Fields a kernel lacks are unset,
 * never 0; the parser is checked on bytes too. */
#include "perflib.h"
#include "meminfo.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <string.h>

#define FX "spec/fixtures/"
#define KB 1024ull

static int mem(const char *tree, pl_snapshot *s)
{
    return pc_collect_tree(tree, "Memory", 100, 4096, NULL, s);
}

#define E(s, ctr, want) EXPECT(s, "", ctr, want)
#define U(s, ctr) UNSET(s, "", ctr)

static void test_full(void)
{
    pl_snapshot s;
    CHECK(mem(FX "mem-full", &s) == 0);
    E(&s, "Dirty Bytes", 7172 * KB);                     /* 7344128 */
    E(&s, "Writeback Bytes", 1028 * KB);                 /* 1052672 */
    E(&s, "Modified Page List Bytes", (7172 + 1028) * KB);  /* 8200 kB = 8396800 */
    E(&s, "Writeback Temp Bytes", 20 * KB);              /* 20480 */
    E(&s, "NFS Unstable Bytes", 0);                      /* a real 0 */
    E(&s, "Bounce Bytes", 12 * KB);                      /* 12288 */
    E(&s, "Kernel Reclaimable Bytes", 921604 * KB);      /* 943722496 */
    E(&s, "Secondary Page Table Bytes", 2052 * KB);      /* 2101248 */
    E(&s, "Vmalloc Total Bytes", 34359738367ull * KB);   /* 35184372087808 = 2^45 - 1024 */
    E(&s, "Vmalloc Used Bytes", 143364 * KB);            /* 146804736 */
    E(&s, "Vmalloc Chunk Bytes", 0);
    E(&s, "Hardware Corrupted Bytes", 8 * KB);           /* 8192: two 4 KiB pages */
    E(&s, "Shmem Huge Pages Bytes", 40960 * KB);         /* 41943040 */
    E(&s, "Shmem Pmd Mapped Bytes", 20480 * KB);         /* 20971520 */
    E(&s, "File Huge Pages Bytes", 10240 * KB);          /* 10485760 */
    E(&s, "File Pmd Mapped Bytes", 4096 * KB);           /* 4194304 */
    E(&s, "CMA Total Bytes", 262144 * KB);               /* 268435456 = 256 MiB */
    E(&s, "CMA Free Bytes", 258052 * KB);                /* 264245248 */
    E(&s, "Unaccepted Bytes", 65536 * KB);               /* 67108864 */
    E(&s, "Balloon Bytes", 131072 * KB);                 /* 134217728 */
    E(&s, "Total Huge Pages", 512);                      /* counts, not kB */
    E(&s, "Free Huge Pages", 384);
    E(&s, "Reserved Huge Pages", 64);
    E(&s, "Surplus Huge Pages", 8);
    E(&s, "Huge Page Size Bytes", 2048 * KB);            /* 2097152 */
    E(&s, "Hugetlb Bytes", 3145728 * KB);                /* 3 GiB: 1536 x 2 MiB */
    E(&s, "Huge Pages Total Bytes", 512 * 2048 * KB);    /* 1073741824: the pool of 2 MiB pages */
    E(&s, "Huge Pages Free Bytes", 384 * 2048 * KB);     /* 805306368 */
    E(&s, "Direct Map 4k Bytes", 458624 * KB);           /* 469630976 */
    E(&s, "Direct Map 2M Bytes", 15269888 * KB);         /* 15636365312 */
    E(&s, "Direct Map 1G Bytes", 18874368 * KB);         /* 19327352832 = 18 GiB */
    /* the older ids read the same file */
    E(&s, "Active Anon Bytes", 3072004 * KB);
    E(&s, "Commit Limit", 24685608 * KB);
    /* an x86-64 kernel has no highmem, MMU-less or 4 MiB lines */
    U(&s, "High Total Bytes");
    U(&s, "High Free Bytes");
    U(&s, "Low Total Bytes");
    U(&s, "Low Free Bytes");
    U(&s, "Mmap Copy Bytes");
    U(&s, "Direct Map 4M Bytes");
    U(&s, "Shadow Call Stack Bytes");                    /* arm64 CONFIG_SHADOW_CALL_STACK */
    /* no vmstat in this tree: its counters alone are unset */
    U(&s, "Page Faults/sec");
    pl_snap_free(&s);
}

static void test_highmem(void)
{
    pl_snapshot s;
    CHECK(mem(FX "mem-highmem", &s) == 0);
    E(&s, "High Total Bytes", 2227784 * KB);             /* 2281250816 */
    E(&s, "High Free Bytes", 1433600 * KB);              /* 1468006400 */
    E(&s, "Low Total Bytes", 878764 * KB);               /* 899854336; + HighTotal = MemTotal 3106548 */
    E(&s, "Low Free Bytes", 409600 * KB);                /* 419430400; + HighFree = MemFree 1843200 */
    E(&s, "Vmalloc Total Bytes", 122880 * KB);           /* 125829120 = 120 MiB */
    E(&s, "Huge Page Size Bytes", 4096 * KB);            /* 4194304: 4 MiB pages without PAE */
    E(&s, "Direct Map 4k Bytes", 12280 * KB);
    E(&s, "Direct Map 4M Bytes", 897024 * KB);           /* 918552576 */
    E(&s, "Total Huge Pages", 0);
    U(&s, "Direct Map 2M Bytes");
    U(&s, "Direct Map 1G Bytes");
    U(&s, "CMA Total Bytes");
    U(&s, "Balloon Bytes");
    U(&s, "Unaccepted Bytes");
    U(&s, "Hardware Corrupted Bytes");                   /* no CONFIG_MEMORY_FAILURE */
    U(&s, "Zswap Bytes");
    pl_snap_free(&s);
}

static void test_old_kernel(void)
{
    pl_snapshot s;
    CHECK(mem(FX "old-kernel", &s) == 0);
    /* 3.10: VmallocChunk still measured, no KReclaimable (4.20) ... */
    E(&s, "Vmalloc Chunk Bytes", 34359400000ull * KB);   /* 35184025600000 */
    E(&s, "Vmalloc Used Bytes", 300000 * KB);            /* 307200000 */
    E(&s, "Dirty Bytes", 48 * KB);
    E(&s, "Writeback Bytes", 0);
    E(&s, "Reserved Huge Pages", 0);
    E(&s, "Direct Map 2M Bytes", 8300000 * KB);          /* 8499200000 */
    U(&s, "Kernel Reclaimable Bytes");
    U(&s, "Secondary Page Table Bytes");                 /* 6.1 */
    U(&s, "Shmem Huge Pages Bytes");                     /* 4.8 */
    U(&s, "File Huge Pages Bytes");                      /* 5.4 */
    U(&s, "Hugetlb Bytes");                              /* 4.16 */
    U(&s, "Direct Map 1G Bytes");
    pl_snap_free(&s);
}

/* basic (a 6.x x86-64 Debian): every field it has is set, the rest unset. */
static void test_basic_complete(void)
{
    static const char *const absent[] = {
        "High Total Bytes", "High Free Bytes", "Low Total Bytes", "Low Free Bytes",
        "Mmap Copy Bytes", "Shadow Call Stack Bytes", "CMA Total Bytes", "CMA Free Bytes",
        "Balloon Bytes", "Direct Map 4M Bytes", NULL,
    };
    pl_snapshot s;
    CHECK(mem(FX "basic", &s) == 0);
    for (uint32_t i = 0; i < s.cs->ncounters; i++) {
        const char *n = s.cs->counters[i].name;
        int missing = 0;
        for (const char *const *a = absent; *a; a++)
            missing |= strcmp(*a, n) == 0;
        if (s.have[i] == missing)
            fprintf(stderr, "  basic: \"%s\" %s\n", n, missing ? "set" : "unset");
        CHECK(s.have[i] != missing);
    }
    E(&s, "Dirty Bytes", 124 * KB);                      /* 126976 */
    E(&s, "Writeback Bytes", 16 * KB);                   /* 16384 */
    E(&s, "Hugetlb Bytes", 32768 * KB);                  /* 16 x 2048 kB = 32768 kB */
    E(&s, "Direct Map 1G Bytes", 19922944 * KB);         /* 19 GiB */
    pl_snap_free(&s);
}

/* The parser: any order (search by name), an unknown key takes nobody's
 * value, a malformed value is bad, a cut-off last line absent. */
static void test_parse(void)
{
    static pl_meminfo m;   /* at[] remembers the lines of the previous parse */
    const char *a = "Hugetlb:  4096 kB\nGPUActive:  7 kB\nDirectMap1G:  1048576 kB\n"
                    "HugePages_Rsvd:  x\nCmaFree:   12 kB\nBalloon:      3";
    const char *b = "CmaFree:   13 kB\nHugetlb:  2048 kB\nHugePages_Surp:  2\n";
    memset(&m, 0, sizeof m);
    CHECK(pl_parse_meminfo(a, strlen(a), &m) == 0);
    CHECK(m.st[PL_MI_HUGETLB] == PL_NS_OK && m.v[PL_MI_HUGETLB] == 4096);
    CHECK(m.st[PL_MI_DM1G] == PL_NS_OK && m.v[PL_MI_DM1G] == 1048576);
    CHECK(m.st[PL_MI_HP_RSVD] == PL_NS_BAD);
    CHECK(m.st[PL_MI_CMAFREE] == PL_NS_OK && m.v[PL_MI_CMAFREE] == 12);
    CHECK(m.st[PL_MI_BALLOON] == PL_NS_ABSENT);          /* no '\n': cut off */
    CHECK(m.st[PL_MI_DM2M] == PL_NS_ABSENT);
    /* the same buffer again, then lines that moved: found by name */
    CHECK(pl_parse_meminfo(b, strlen(b), &m) == 0);
    CHECK(m.st[PL_MI_CMAFREE] == PL_NS_OK && m.v[PL_MI_CMAFREE] == 13);
    CHECK(m.st[PL_MI_HUGETLB] == PL_NS_OK && m.v[PL_MI_HUGETLB] == 2048);
    CHECK(m.st[PL_MI_HP_SURP] == PL_NS_OK && m.v[PL_MI_HP_SURP] == 2);
    CHECK(m.st[PL_MI_DM1G] == PL_NS_ABSENT && m.st[PL_MI_HP_RSVD] == PL_NS_ABSENT);
}

/* This machine: the fields every x86-64 kernel since 4.16 has. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t vt = 0, hp = 0, total = 0, dm = 0, v;
    CHECK(mem("/", &s) == 0);
    CHECK(get(&s, "", "Vmalloc Total Bytes", &vt) && vt > 0);
    CHECK(get(&s, "", "Huge Page Size Bytes", &hp) && hp >= 4096 && (hp & (hp - 1)) == 0);
    CHECK(get(&s, "", "Total Bytes", &total) && total > 0);
    CHECK(get(&s, "", "Dirty Bytes", &v) && v <= total);
    if (get(&s, "", "Direct Map 4k Bytes", &v))
        dm += v;
    if (get(&s, "", "Direct Map 2M Bytes", &v))
        dm += v;
    if (get(&s, "", "Direct Map 1G Bytes", &v))
        dm += v;
    CHECK(dm == 0 || dm >= total);                       /* the direct map covers RAM */
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_full);
    RUN(test_highmem);
    RUN(test_old_kernel);
    RUN(test_basic_complete);
    RUN(test_parse);
    RUN(test_live);
    return CT_END();
}
