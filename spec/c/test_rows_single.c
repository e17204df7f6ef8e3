/* The generic row walk (pl_rowset.h) on the single-instance and file-table
 * sets written as rows: Memory, System, the protocol sets, Paging File.
 * A set reads only the sources its wanted counters need (pl_ksrc_reads),
 * the counters of a source that was read come along (bases included), a
 * derive that cannot compute leaves its counter unset (never 0), and a
 * source that is missing leaves only its own rows unset.  Also the pure
 * parsers of the sources added with them (zoneinfo, the /proc/sys number
 * files).  Against temporary trees rewritten between collects. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "meminfo.h"
#include "netmib.h"
#include "procstat.h"
#include "proc_misc.h"
#include "sysnum.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define KIB 1024ull
#define MAX_WANT 128     /* Memory has 90 counters since issue 17 */

static char dir[] = "/tmp/pl-rows1-XXXXXX";

static const char *path_of(const char *rel)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return p;
}

/* A query-less provider on dir, with readers of the sources to count. */
typedef struct run {
    pctx p;
    pl_snapshot s;
} run;

static int open_run(run *r, const char *set)
{
    memset(&r->s, 0, sizeof r->s);
    return pc_open_set(&r->p, dir, set, 100, 4096);
}

static void close_run(run *r)
{
    pl_snap_free(&r->s);
    pc_close(&r->p);
}

/* One collect wanting only the counters named (NULL: every counter). */
static int collect_only(run *r, const char *const *names)
{
    uint8_t w[MAX_WANT] = { 0 };
    CHECK(r->p.cs->ncounters <= MAX_WANT);
    for (; names && *names; names++) {
        int i = pl_counter_index_by_name(r->p.cs, *names);
        CHECK(i >= 0);
        if (i >= 0)
            w[i] = 1;
    }
    return pc_collect(&r->p, names ? w : NULL, &r->s);
}

static uint64_t reads(run *r, const pl_ksrc_def *def)
{
    return pl_ksrc_reads(pl_ksrc_attach(r->p.env, def));
}

#define ONLY(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- Memory --------------------------------------------------------------------- */

static const char meminfo_avail[] =
    "MemTotal:        8000000 kB\n"
    "MemFree:         1000000 kB\n"
    "MemAvailable:    3000000 kB\n"
    "Cached:           500000 kB\n"
    "Active(file):     400000 kB\n"
    "Inactive(file):   600000 kB\n"
    "SReclaimable:     100000 kB\n"
    "CommitLimit:     4000000 kB\n"
    "Committed_AS:    2000000 kB\n"
    "HugePages_Total:       4\n"
    "HugePages_Free:        2\n";

/* No MemAvailable (before 3.14); Committed_AS x 1024 passes 2^64. */
static const char meminfo_old[] =
    "MemTotal:        8000000 kB\n"
    "MemFree:         1000000 kB\n"
    "Cached:           500000 kB\n"
    "Active(file):     400000 kB\n"
    "Inactive(file):   600000 kB\n"
    "SReclaimable:     100000 kB\n"
    "CommitLimit:     4000000 kB\n"
    "Committed_AS:    18014398509481984 kB\n";

static void test_memory_reads(void)
{
    run r;
    CHECK(put(dir, "proc/meminfo", meminfo_avail) && put(dir, "proc/vmstat", "pgfault 12345\npgmajfault 7\n"));
    CHECK(put(dir, "proc/zoneinfo", "Node 0, zone   Normal\n  pages free 1\n        low      100\n"
                                    "Node 0, zone  Movable\n        low      156\n"));
    CHECK(open_run(&r, "Memory") == 0);
    /* vmstat only: meminfo and zoneinfo stay unread, their counters unset */
    CHECK(collect_only(&r, ONLY("Page Faults/sec")) == 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_vmstat), 1);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_meminfo), 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_zoneinfo), 0);
    EXPECT(&r.s, "", "Page Faults/sec", 12345);
    EXPECT(&r.s, "", "Page Reads/sec", 7);               /* read anyway: comes along */
    UNSET(&r.s, "", "Total Bytes");
    UNSET(&r.s, "", "Available Bytes");
    /* MemAvailable is there: the estimate, and zoneinfo, are never asked */
    CHECK(collect_only(&r, ONLY("Available Bytes")) == 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_meminfo), 1);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_vmstat), 1);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_zoneinfo), 0);
    EXPECT(&r.s, "", "Available Bytes", 3000000 * KIB);
    EXPECT(&r.s, "", "Available KBytes", 3000000);       /* its twins come along */
    EXPECT(&r.s, "", "Available MBytes", 2929);          /* 3000000 / 1024 = 2929.7 */
    UNSET(&r.s, "", "Page Faults/sec");
    /* a base that was not asked for comes with its fraction */
    CHECK(collect_only(&r, ONLY("% Committed Bytes In Use")) == 0);
    EXPECT(&r.s, "", "% Committed Bytes In Use", 2000000 * KIB);
    EXPECT(&r.s, "", "% Committed Bytes In Use Base", 4000000 * KIB);
    EXPECT(&r.s, "", "Free & Zero Page List Bytes", 1000000 * KIB);
    /* HugePages_ counts without Hugepagesize: the derive cannot compute */
    UNSET(&r.s, "", "Huge Pages Total Bytes");
    UNSET(&r.s, "", "Huge Pages Free Bytes");
    UNSET(&r.s, "", "Zswap Bytes");                      /* not in the file */
    close_run(&r);
}

static void test_memory_estimate(void)
{
    run r;
    CHECK(put(dir, "proc/meminfo", meminfo_old));
    CHECK(open_run(&r, "Memory") == 0);
    CHECK(collect_only(&r, ONLY("Available Bytes")) == 0);
    /* zoneinfo read once for the three Available rows; low = 100 + 156 =
     * 256 pages x 4096 = 1048576 B = 1024 kB.  In kB:
     *   free 1000000
     *   file LRU 400000 + 600000 = 1000000, less min(500000, 1024) = 998976
     *   SReclaimable 100000, less min(50000, 1024)              = 98976
     *   1000000 + 998976 + 98976 - 1024 = 2096928 kB = 2147254272 B */
    CHECK_EQ_U64(reads(&r, &pl_ksrc_zoneinfo), 1);
    EXPECT(&r.s, "", "Available Bytes", 2096928 * KIB);
    EXPECT(&r.s, "", "Available KBytes", 2096928);
    EXPECT(&r.s, "", "Available MBytes", 2047);          /* 2096928 / 1024 = 2047.8 */
    /* 2^54 kB x 1024 = 2^64: unknown, not a wrapped 0; the base is fine */
    UNSET(&r.s, "", "Committed Bytes");
    UNSET(&r.s, "", "% Committed Bytes In Use");
    EXPECT(&r.s, "", "% Committed Bytes In Use Base", 4000000 * KIB);
    /* a malformed low watermark: the estimate is unknown, never 0 */
    CHECK(put(dir, "proc/zoneinfo", "Node 0, zone   Normal\n        low      1x0\n"));
    CHECK(collect_only(&r, ONLY("Available Bytes")) == 0);
    UNSET(&r.s, "", "Available Bytes");
    UNSET(&r.s, "", "Available MBytes");
    EXPECT(&r.s, "", "Total Bytes", 8000000 * KIB);
    close_run(&r);
    /* no zoneinfo (a kept descriptor would still see a removed file: a new
     * machine) and no vmstat */
    CHECK(remove(path_of("proc/zoneinfo")) == 0 && remove(path_of("proc/vmstat")) == 0);
    CHECK(open_run(&r, "Memory") == 0);
    CHECK(collect_only(&r, ONLY("Available Bytes")) == 0);
    EXPECT(&r.s, "", "Available Bytes", 1500000 * KIB);  /* psutil's MemFree + Cached */
    CHECK_EQ_U64(reads(&r, &pl_ksrc_zoneinfo), 1);
    /* vmstat missing: only its rows are unset, the set does not fail */
    CHECK(collect_only(&r, NULL) == 0);
    UNSET(&r.s, "", "Page Faults/sec");
    EXPECT(&r.s, "", "Commit Limit", 4000000 * KIB);
    /* the Available rows come along whenever meminfo is read: on a kernel
     * without MemAvailable that asks zoneinfo too (the generic walk) */
    CHECK(put(dir, "proc/zoneinfo", "        low      256\n"));
    CHECK(collect_only(&r, ONLY("Total Bytes")) == 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_zoneinfo), 3);
    EXPECT(&r.s, "", "Available KBytes", 2096928);
    close_run(&r);
}

/* ---- System ----------------------------------------------------------------------- */

static void test_system_reads(void)
{
    run r;
    CHECK(put(dir, "proc/stat", "cpu  1 2 3 4\nctxt 100\nprocesses 50\nprocs_blocked 2\n"));
    CHECK(put(dir, "proc/loadavg", "0.50 0.25 0.10 abc/300 999\n"));
    CHECK(put(dir, "proc/sys/fs/file-nr", "1184\t0\t9000\n"));
    CHECK(put(dir, "proc/sys/kernel/pid_max", "4194304\n"));
    CHECK(put(dir, "proc/sys/kernel/random/entropy_avail", "256 1\n"));
    CHECK(put(dir, "proc/42/stat", "x\n"));
    CHECK(open_run(&r, "System") == 0);
    CHECK(collect_only(&r, ONLY("Context Switches/sec")) == 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_stat), 1);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_loadavg), 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_filenr), 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_pidmax), 0);
    EXPECT(&r.s, "", "Context Switches/sec", 100);
    EXPECT(&r.s, "", "Processes Blocked", 2);            /* /proc/stat was read */
    UNSET(&r.s, "", "Processes");                        /* /proc not walked */
    UNSET(&r.s, "", "File Handles Allocated");
    /* the fraction alone brings its base along */
    CHECK(collect_only(&r, ONLY("% File Handles In Use")) == 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_filenr), 1);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_stat), 1);
    EXPECT(&r.s, "", "% File Handles In Use", 1184);
    EXPECT(&r.s, "", "% File Handles In Use Base", 9000);
    UNSET(&r.s, "", "Context Switches/sec");
    /* everything: a malformed running count leaves only the queue length
     * (a derive) unset; the two-number entropy_avail and the missing
     * threads-max and uptime leave only their own rows unset */
    CHECK(collect_only(&r, NULL) == 0);
    UNSET(&r.s, "", "Processor Queue Length");
    EXPECT(&r.s, "", "Threads", 300);
    EXPECT(&r.s, "", "Load Average 1 min", 50);
    UNSET(&r.s, "", "Entropy Available Bits");
    UNSET(&r.s, "", "Max Threads");
    UNSET(&r.s, "", "System Up Time");
    EXPECT(&r.s, "", "Max Processes", 4194304);
    EXPECT(&r.s, "", "Processes", 1);                    /* the one numeric entry */
    /* one bad number of file-nr: its own row and the fraction are unset */
    CHECK(put(dir, "proc/sys/fs/file-nr", "1184\t0\tx\n"));
    CHECK(collect_only(&r, NULL) == 0);
    EXPECT(&r.s, "", "File Handles Allocated", 1184);
    UNSET(&r.s, "", "File Handles Max");
    UNSET(&r.s, "", "% File Handles In Use");
    UNSET(&r.s, "", "% File Handles In Use Base");
    close_run(&r);
}

/* Every source of the wanted rows missing: the set fails, naming the first. */
static void test_system_all_missing(void)
{
    run r;
    CHECK(open_run(&r, "System") == 0);
    CHECK_EQ_U64(collect_only(&r, ONLY("Max Threads")), ENOENT);
    CHECK(r.s.err_path != NULL && strcmp(r.s.err_path, "proc/sys/kernel/threads-max") == 0);
    CHECK(put(dir, "proc/sys/kernel/threads-max", "62834\n"));
    CHECK(collect_only(&r, ONLY("Max Threads")) == 0);
    EXPECT(&r.s, "", "Max Threads", 62834);
    close_run(&r);
}

/* ---- the protocol sets ------------------------------------------------------------ */

static const char snmp_tcp[] =
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
    "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
    "Tcp: 1 200 120000 -1 10 20 3 4 5 1000 2000 6 7 8 9\n";

static void test_tcp_rows(void)
{
    run r;
    CHECK(put(dir, "proc/net/snmp", snmp_tcp));
    CHECK(open_run(&r, "TCPv4") == 0);
    /* a TcpExt counter alone: netstat is missing, snmp (the set's main
     * file) is read whenever anything is wanted, so the set succeeds and
     * the Tcp rows come along */
    CHECK(collect_only(&r, ONLY("Listen Overflows")) == 0);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_snmp), 1);
    CHECK_EQ_U64(reads(&r, &pl_ksrc_netstat), 1);
    UNSET(&r.s, "", "Listen Overflows");
    EXPECT(&r.s, "", "Connections Established", 5);
    EXPECT(&r.s, "", "Segments/sec", 1000 + 2000);       /* InSegs + OutSegs */
    EXPECT(&r.s, "", "Checksum Errors", 9);
    /* a sum whose part is malformed is unset, the other part's row is not */
    CHECK(put(dir, "proc/net/snmp", "Tcp: ActiveOpens InSegs OutSegs\nTcp: 10 -5 2000\n"));
    CHECK(put(dir, "proc/net/netstat", "TcpExt: ListenOverflows ListenDrops\nTcpExt: 11 12\n"));
    CHECK(collect_only(&r, NULL) == 0);
    UNSET(&r.s, "", "Segments/sec");
    UNSET(&r.s, "", "Segments Received/sec");
    EXPECT(&r.s, "", "Segments Sent/sec", 2000);
    EXPECT(&r.s, "", "Connections Active", 10);
    EXPECT(&r.s, "", "Listen Overflows", 11);
    EXPECT(&r.s, "", "Listen Drops", 12);
    UNSET(&r.s, "", "Connections Established");          /* not in this snmp */
    close_run(&r);
}

static void test_udp6_missing(void)
{
    run r;
    CHECK(open_run(&r, "UDPv6") == 0);
    CHECK_EQ_U64(collect_only(&r, NULL), ENOENT);        /* IPv6 off: no snmp6 */
    CHECK(r.s.err_path != NULL && strcmp(r.s.err_path, "proc/net/snmp6") == 0);
    CHECK(put(dir, "proc/net/snmp6", "Udp6InDatagrams 40\nUdp6OutDatagrams 2\n"));
    CHECK(collect_only(&r, ONLY("Datagrams/sec")) == 0);
    EXPECT(&r.s, "", "Datagrams/sec", 42);
    EXPECT(&r.s, "", "Datagrams Sent/sec", 2);
    UNSET(&r.s, "", "Memory Errors");
    close_run(&r);
}

/* ---- Paging File: one row per area ---------------------------------------------- */

static void test_paging_rows(void)
{
    run r;
    double d;
    uint64_t v = 0;
    CHECK(put(dir, "proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                 "/dev/sda2 partition 1000 100 -2\n"
                                 "/swapfile file 2000 300 -3\n"));
    CHECK(open_run(&r, "Paging File") == 0);
    CHECK(collect_only(&r, ONLY("Used Bytes")) == 0);
    EXPECT(&r.s, "/dev/sda2", "Used Bytes", 100 * KIB);
    EXPECT(&r.s, "/dev/sda2", "% Usage Base", 1000 * KIB);  /* the row came whole */
    EXPECT(&r.s, "/swapfile", "% Usage Peak", 300 * KIB);
    EXPECT(&r.s, "_Total", "Size Bytes", 3000 * KIB);
    EXPECT(&r.s, "_Total", "Used Bytes", 400 * KIB);
    UNSET(&r.s, "_Total", "Priority");                   /* _Total has none */
    CHECK(get(&r.s, "/swapfile", "Priority", &v));
    memcpy(&d, &v, sizeof d);
    CHECK(d == -3.0);
    /* a malformed area: its row is not handed over, so only its counters
     * and _Total's are unset; the peak of the good one stays */
    CHECK(put(dir, "proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                 "/dev/sda2 partition 1000 50 -2\n"
                                 "/swapfile file 2000 x -3\n"));
    CHECK(collect_only(&r, NULL) == 0);
    EXPECT(&r.s, "/dev/sda2", "Used Bytes", 50 * KIB);
    EXPECT(&r.s, "/dev/sda2", "% Usage Peak", 100 * KIB);
    UNSET(&r.s, "/swapfile", "Used Bytes");
    UNSET(&r.s, "/swapfile", "Priority");
    UNSET(&r.s, "_Total", "Size Bytes");
    close_run(&r);
}

/* ---- the pure parsers of the new sources ------------------------------------------ */

static void test_parse_zoneinfo(void)
{
    pl_zoneinfo z;
    const char ok[] = "Node 0, zone DMA\n  pages free 3975\n        min      8\n        low      11\n"
                      "  protection: (0, 1, 2)\n        low 4 kB\n  lowmem_reserve 9\n";
    const char big[] = "  low 18446744073709551615\n  low 1\n";
    CHECK(pl_parse_zoneinfo(ok, sizeof ok - 1, &z) == 0);
    CHECK(z.st[PL_ZI_LOW] == PL_NS_OK);
    CHECK_EQ_U64(z.v[PL_ZI_LOW], 11 + 4);                /* "lowmem_reserve" is not "low" */
    CHECK(pl_parse_zoneinfo("Node 0\n", 7, &z) == 0);
    CHECK(z.st[PL_ZI_LOW] == PL_NS_OK);                  /* no zone: a real 0 */
    CHECK_EQ_U64(z.v[PL_ZI_LOW], 0);
    CHECK(pl_parse_zoneinfo(big, sizeof big - 1, &z) == 0);
    CHECK(z.st[PL_ZI_LOW] == PL_NS_BAD);                 /* the sum passes 2^64-1 */
    CHECK(pl_parse_zoneinfo("  low -1\n", 9, &z) == 0);
    CHECK(z.st[PL_ZI_LOW] == PL_NS_BAD);
    CHECK(pl_parse_zoneinfo("  low 12 pages\n", 15, &z) == 0);
    CHECK(z.st[PL_ZI_LOW] == PL_NS_BAD);
}

static void test_parse_sysnum(void)
{
    pl_sysnum n;
    CHECK(pl_parse_sysnum3("1184\t0\t9223372036854775807\n", 27, &n) == 0);
    CHECK(n.st[0] == PL_NS_OK && n.st[1] == PL_NS_OK && n.st[2] == PL_NS_OK);
    CHECK_EQ_U64(n.v[PL_FILENR_ALLOC], 1184);
    CHECK_EQ_U64(n.v[PL_FILENR_MAX], 9223372036854775807ull);
    CHECK(pl_parse_sysnum3("1184 0\n", 7, &n) == 0);     /* two of three: none */
    CHECK(n.st[0] == PL_NS_BAD && n.st[1] == PL_NS_BAD && n.st[2] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("256\n", 4, &n) == 0);
    CHECK(n.st[0] == PL_NS_OK && n.st[1] == PL_NS_ABSENT);
    CHECK_EQ_U64(n.v[0], 256);
    CHECK(pl_parse_sysnum1("256 1\n", 6, &n) == 0);
    CHECK(n.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("-1\n", 3, &n) == 0);
    CHECK(n.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("18446744073709551616\n", 21, &n) == 0);   /* 2^64 */
    CHECK(n.st[0] == PL_NS_BAD);
    CHECK(pl_parse_sysnum1("4194304", 7, &n) == 0);      /* cut off: nothing */
    CHECK(n.st[0] == PL_NS_ABSENT);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_parse_zoneinfo);
    RUN(test_parse_sysnum);
    RUN(test_memory_reads);
    RUN(test_memory_estimate);
    RUN(test_system_reads);
    rm_tree(dir);
    CHECK(mkdir(dir, 0700) == 0);
    RUN(test_system_all_missing);
    RUN(test_udp6_missing);
    RUN(test_tcp_rows);
    RUN(test_paging_rows);
    rm_tree(dir);
    return CT_END();
}
