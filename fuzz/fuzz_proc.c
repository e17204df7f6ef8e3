/* libFuzzer target: the /proc and /sys parsers of the providers.
 *
 * Once per process, two fixture roots are made under /tmp (mkdtemp): a full
 * machine (cgroup v2) and a legacy cgroup v1 tree, with every file below
 * holding plausible content, so that a counterset never fails before it
 * reaches the file under test.  Per input:
 *
 *   byte 0, bits 0-6  selects a file of the table below (modulo its size);
 *   byte 0, bit 7     the second collection sees the baseline content again,
 *                     so deltas between a fuzzed and a sane sample are
 *                     formatted too (resets, counters going backwards);
 *   bytes 1..         the file's content.
 *
 * The content replaces the file in place (pwrite + ftruncate of the same
 * inode: providers keep files open and pread them), then the countersets
 * that read it go through the real core API: pl_enum_instances, a query of
 * \Set(*)\* (or \Set\*) at the WIZARD detail level so that every counter is
 * read, two collections and pl_sample_format_block on the pair.  The format
 * results are cross-checked value by value against pl_sample_format.
 * Afterwards the file gets its baseline back, so one input never changes
 * what the next one sees, and a new query per input keeps provider state
 * from carrying over: a crash reproduces from its input alone. */
#include "perflib.h"
#include "providers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { R_MAIN, R_V1, NROOTS };

/* counterset names */
#define S_CPU "Processor Information"
#define S_MEM "Memory"
#define S_SYS "System"
#define S_PDISK "PhysicalDisk"
#define S_LDISK "LogicalDisk"
#define S_NETIF "Network Interface"
#define S_IPV4 "IPv4"
#define S_IPV6 "IPv6"
#define S_TCP4 "TCPv4"
#define S_TCP6 "TCPv6"
#define S_UDP4 "UDPv4"
#define S_UDP6 "UDPv6"
#define S_ICMP "ICMP"
#define S_ICMP6 "ICMPv6"
#define S_PROC "Process"
#define S_THREAD "Thread"
#define S_PAGE "Paging File"
#define S_THERM "Thermal Zone Information"
#define S_NUMA "NUMA Node Memory"
#define S_PSI "Pressure Stall Information"
#define S_CG "Control Group"
#define S_HWMON "Hardware Sensors"
#define S_BAT "Battery"
#define S_SOFT "SoftIRQ"
#define S_INTR "Interrupts"
#define S_NFS "NFS Client"
#define S_SOCK "Sockets"
#define S_HWEV "Hardware Events"

#define MAX_SETS 4

typedef struct fxfile {
    unsigned char root;
    const char *rel;
    const char *text;                 /* baseline content */
    const char *sets[MAX_SETS];       /* the countersets that read it */
} fxfile;

#define CG2 "sys/fs/cgroup/a/"
#define CPU0 "sys/devices/system/cpu/cpu0/"
#define HWMON "sys/class/hwmon/hwmon0/"
#define PSU "sys/class/power_supply/"
#define NET "sys/class/net/eth0/"

/* The index of an entry is the selector byte of its seeds in
 * fuzz/corpus/proc: append new entries, do not reorder. */
static const fxfile files[] = {
    /* 0 */
    { R_MAIN, "proc/stat",
      "cpu  13773 1 10358 113586 573 0 172 16 0 0\n"
      "cpu0 4556 0 5246 59211 101 0 68 7 0 0\n"
      "cpu1 9217 1 5112 54375 472 0 103 9 0 0\n"
      "intr 773324 0 139 65 0 23\n"
      "ctxt 2472631\n"
      "btime 1795303633\n"
      "processes 25420\n"
      "procs_running 2\n"
      "procs_blocked 0\n"
      "softirq 403483 0 32352 4 131496 79686 0 2 78490 0 81453\n",
      { S_CPU, S_SYS, S_HWEV } },
    { R_MAIN, "proc/meminfo",
      "MemTotal:       24684092 kB\n"
      "MemFree:        23340156 kB\n"
      "MemAvailable:   23781276 kB\n"
      "Buffers:           21480 kB\n"
      "Cached:           601852 kB\n"
      "SwapCached:         1840 kB\n"
      "Active:           253180 kB\n"
      "Inactive:         512404 kB\n"
      "Active(file):     112068 kB\n"
      "Inactive(file):   502932 kB\n"
      "SwapTotal:       2097148 kB\n"
      "SwapFree:        2031612 kB\n"
      "Dirty:               124 kB\n"
      "Writeback:            16 kB\n"
      "AnonPages:        142396 kB\n"
      "Mapped:           118944 kB\n"
      "Shmem:              4964 kB\n"
      "Slab:             102648 kB\n"
      "SReclaimable:      48932 kB\n"
      "SUnreclaim:        53716 kB\n"
      "KernelStack:        3296 kB\n"
      "PageTables:         3512 kB\n"
      "CommitLimit:    14422810 kB\n"
      "Committed_AS:     612936 kB\n"
      "VmallocTotal:  34359738367 kB\n"
      "VmallocUsed:       12876 kB\n"
      "HugePages_Total:      16\n"
      "HugePages_Free:       12\n"
      "Hugepagesize:       2048 kB\n",
      { S_MEM } },
    { R_MAIN, "proc/vmstat",
      "nr_free_pages 5835039\n"
      "nr_inactive_file 125733\n"
      "nr_active_file 28017\n"
      "nr_slab_reclaimable 12233\n"
      "workingset_refault_anon 150\n"
      "workingset_refault_file 2300\n"
      "pgpgin 2356457\n"
      "pgpgout 1893080\n"
      "pswpin 1200\n"
      "pswpout 16384\n"
      "pgfault 9876543\n"
      "pgmajfault 1234\n"
      "pgfree 8123456\n"
      "pgscan_kswapd 100\n"
      "pgscan_direct 10\n"
      "pgsteal_kswapd 90\n"
      "pgsteal_direct 9\n"
      "allocstall_normal 2\n"
      "allocstall_movable 1\n"
      "oom_kill 0\n",
      { S_MEM } },
    { R_MAIN, "proc/zoneinfo",
      "Node 0, zone      DMA\n"
      "  pages free     3975\n"
      "        min      5\n"
      "        low      8\n"
      "        high     10\n"
      "Node 0, zone   Normal\n"
      "  pages free     576889\n"
      "        min      2006\n"
      "        low      2507\n"
      "        high     3009\n",
      { S_MEM } },
    { R_MAIN, "proc/loadavg", "0.38 0.44 0.24 3/102 25424\n", { S_SYS } },
    /* 5 */
    { R_MAIN, "proc/uptime", "699.22 1135.87\n", { S_SYS, S_PROC, S_THREAD } },
    { R_MAIN, "proc/sys/fs/file-nr", "677\t0\t2466177\n", { S_SYS } },
    { R_MAIN, "proc/sys/kernel/random/entropy_avail", "256\n", { S_SYS } },
    { R_MAIN, "proc/sys/kernel/pid_max", "4194304\n", { S_SYS } },
    { R_MAIN, "proc/sys/kernel/threads-max", "192730\n", { S_SYS } },
    /* 10 */
    { R_MAIN, "proc/cpuinfo",
      "processor\t: 0\n"
      "model name\t: Fixture CPU\n"
      "cpu MHz\t\t: 2400.000\n"
      "\n"
      "processor\t: 1\n"
      "model name\t: Fixture CPU\n"
      "cpu MHz\t\t: 1800.500\n",
      { S_CPU } },
    { R_MAIN, "proc/interrupts",
      "           CPU0       CPU1       \n"
      "  0:         10          0   IO-APIC   2-edge      timer\n"
      " 24:        100        200   PCI-MSI 512000-edge      ahci[0000:00:1f.2]\n"
      "NMI:          1          2   Non-maskable interrupts\n"
      "LOC:       5000       6000   Local timer interrupts\n"
      "ERR:          7\n"
      "MIS:          3\n",
      { S_INTR, S_CPU } },
    { R_MAIN, "proc/softirqs",
      "                    CPU0       CPU1       \n"
      "          HI:          1          2\n"
      "       TIMER:       1000       2000\n"
      "      NET_TX:          3          4\n"
      "      NET_RX:        500        600\n"
      "       BLOCK:         50         60\n"
      "    IRQ_POLL:          0          0\n"
      "     TASKLET:          7          8\n"
      "       SCHED:        900        800\n"
      "     HRTIMER:          0          1\n"
      "         RCU:       1200       1300\n",
      { S_SOFT, S_CPU } },
    { R_MAIN, "proc/diskstats",
      "   8       0 sda 1000 10 20000 3000 500 5 8000 4000 0 2500 7000 50 1 4000 100 20 30\n"
      "   8       1 sda1 900 9 18000 2700 400 4 6000 3000 0 2000 5700 40 1 3000 80\n"
      "   7       0 loop0 10 0 80 1 0 0 0 0 0 1 1\n",
      { S_PDISK, S_LDISK } },
    { R_MAIN, "proc/self/mountinfo",
      "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
      "27 1 8:0 / / rw,relatime - ext4 /dev/sda rw,discard\n"
      "40 27 8:1 / /mnt/my\\040disk ro,relatime shared:6 master:2 - ext4 /dev/sda1 rw\n"
      "43 27 0:50 / /mnt/nfs rw,relatime - nfs4 server:/export rw,vers=4.2\n",
      { S_LDISK } },
    /* 15 */
    { R_MAIN, "statvfs/27", "4096 66053016 20978800 20901464 16777216 16362008\n", { S_LDISK } },
    { R_MAIN, "proc/swaps",
      "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
      "/swapfile                               file\t\t2097148\t\t65536\t\t-2\n"
      "/dev/sda2                               partition\t1048572\t\t0\t\t-3\n",
      { S_PAGE } },
    { R_MAIN, "proc/net/dev",
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
      "errs drop fifo colls carrier compressed\n"
      "    lo:    1000      10    0    0    0     0          0         0     1000      10"
      "    0    0    0     0       0          0\n"
      "  eth0:  500000    4000    1    2    0     0          0         3   200000    3000"
      "    0    0    0     0       0          0\n",
      { S_NETIF } },
    { R_MAIN, "proc/net/snmp",
      "Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams "
      "InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout "
      "ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates\n"
      "Ip: 1 64 130000 1 2 3 4 5 129000 128000 6 7 0 8 9 10 11 12 13\n"
      "Icmp: InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs "
      "InRedirects InEchos InEchoReps OutMsgs OutErrors OutDestUnreachs OutTimeExcds OutEchos "
      "OutEchoReps\n"
      "Icmp: 45 1 0 20 3 0 0 0 12 10 40 2 15 0 11 12\n"
      "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
      "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
      "Tcp: 1 200 120000 -1 88 69 1 22 3 129026 128604 5 4 23 2\n"
      "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors "
      "IgnoredMulti MemErrors\n"
      "Udp: 67 2400 6 2468 7 8 9 10 11\n",
      { S_IPV4, S_TCP4, S_UDP4, S_ICMP } },
    { R_MAIN, "proc/net/netstat",
      "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPTimeouts TCPSynRetrans\n"
      "TcpExt: 0 31 32 33 34\n"
      "IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts "
      "InOctets OutOctets\n"
      "IpExt: 0 0 10 20 0 0 640000 512000\n",
      { S_IPV4, S_TCP4 } },
    /* 20 */
    { R_MAIN, "proc/net/snmp6",
      "Ip6InReceives                   \t5000\n"
      "Ip6InHdrErrors                  \t1\n"
      "Ip6InAddrErrors                 \t2\n"
      "Ip6InUnknownProtos              \t3\n"
      "Ip6InDiscards                   \t4\n"
      "Ip6InDelivers                   \t4900\n"
      "Ip6OutForwDatagrams             \t5\n"
      "Ip6OutRequests                  \t4000\n"
      "Ip6OutDiscards                  \t6\n"
      "Ip6OutNoRoutes                  \t7\n"
      "Ip6ReasmReqds                   \t8\n"
      "Ip6ReasmOKs                     \t9\n"
      "Ip6ReasmFails                   \t10\n"
      "Ip6FragOKs                      \t11\n"
      "Ip6FragFails                    \t12\n"
      "Ip6FragCreates                  \t13\n"
      "Ip6InOctets                     \t640000\n"
      "Ip6OutOctets                    \t512000\n"
      "Icmp6InMsgs                     \t50\n"
      "Icmp6InErrors                   \t1\n"
      "Icmp6OutMsgs                    \t60\n"
      "Icmp6OutErrors                  \t2\n"
      "Icmp6InDestUnreachs             \t3\n"
      "Icmp6InPktTooBigs               \t4\n"
      "Icmp6InTimeExcds                \t5\n"
      "Icmp6InEchos                    \t6\n"
      "Icmp6InEchoReplies              \t7\n"
      "Icmp6OutDestUnreachs            \t8\n"
      "Icmp6OutPktTooBigs              \t9\n"
      "Icmp6OutEchos                   \t10\n"
      "Icmp6OutEchoReplies             \t11\n"
      "Udp6InDatagrams                 \t300\n"
      "Udp6NoPorts                     \t4\n"
      "Udp6InErrors                    \t1\n"
      "Udp6OutDatagrams                \t310\n"
      "Udp6RcvbufErrors                \t0\n"
      "Udp6SndbufErrors                \t0\n"
      "Udp6InCsumErrors                \t0\n"
      "Udp6IgnoredMulti                \t2\n"
      "Udp6MemErrors                   \t0\n"
      "UdpLite6InDatagrams             \t0\n",
      { S_IPV6, S_UDP6, S_ICMP6 } },
    { R_MAIN, "proc/net/tcp6",
      "  sl  local_address                         remote_address                        st "
      "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
      "   0: 00000000000000000000000000000000:1F40 00000000000000000000000000000000:0000 0A "
      "00000000:00000000 00:00000000 00000000     0        0 14000 1 0000000000000000 100 0 0 10 0\n"
      "   1: 00000000000000000000000000000000:1F41 00000000000000000000000000000000:0000 01 "
      "00000000:00000000 00:00000000 00000000     0        0 14001 1 0000000000000000 100 0 0 10 0\n"
      "   2: 00000000000000000000000000000000:1F42 00000000000000000000000000000000:0000 06 "
      "00000000:00000000 00:00000000 00000000     0        0 14002 1 0000000000000000 100 0 0 10 0\n",
      { S_TCP6 } },
    { R_MAIN, "proc/net/sockstat",
      "sockets: used 27\n"
      "TCP: inuse 2 orphan 1 tw 32 alloc 3 mem 95\n"
      "UDP: inuse 4 mem 5\n"
      "UDPLITE: inuse 0\n"
      "RAW: inuse 1\n"
      "FRAG: inuse 2 memory 4096\n",
      { S_SOCK } },
    { R_MAIN, "proc/net/sockstat6",
      "TCP6: inuse 3\n"
      "UDP6: inuse 2\n"
      "UDPLITE6: inuse 0\n"
      "RAW6: inuse 1\n"
      "FRAG6: inuse 1 memory 1152\n",
      { S_SOCK } },
    { R_MAIN, "proc/pressure/cpu",
      "some avg10=0.41 avg60=2.33 avg300=2.67 total=21798863\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
      { S_PSI } },
    /* 25 */
    { R_MAIN, "proc/pressure/io",
      "some avg10=0.10 avg60=0.20 avg300=0.30 total=1234567\n"
      "full avg10=0.05 avg60=0.10 avg300=0.15 total=654321\n",
      { S_PSI } },
    { R_MAIN, "proc/pressure/memory",
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=4242\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=2121\n",
      { S_PSI } },
    { R_MAIN, "proc/pressure/irq",
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=777\n",
      { S_PSI } },
    { R_MAIN, "proc/self/mountstats",
      "device proc mounted on /proc with fstype proc\n"
      "device nfs.example.com:/export/home mounted on /home/shared\\040data with fstype nfs4 "
      "statvers=1.1\n"
      "\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp,timeo=600,retrans=2\n"
      "\tage:\t3600\n"
      "\tevents:\t1200 35000 10 20 600 150 36000 512 0 40 256 30 0 80 0 10 0 0 0 0 0 0 0 0 0 0 0\n"
      "\tbytes:\t10485760 2097152 1048576 0 11534336 2097152 2816 512\n"
      "\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
      "\txprt:\ttcp 0 1 2 0 12 4510 4508 1 9860 0 1024 25 110\n"
      "\tper-op statistics\n"
      "\t        NULL: 1 1 0 44 24 0 0 0 0\n"
      "\t        READ: 2800 2803 1 481600 11892736 140 8400 8820 0\n"
      "\t       WRITE: 512 512 0 2183168 81920 60 3072 3200 2\n"
      "\t     GETATTR: 900 901 0 151200 216000 9 540 560 0\n"
      "\n",
      { S_NFS } },
    { R_MAIN, "proc/1/stat",
      "1 (init) S 0 1 1 0 -1 4194560 79978 0 12 0 940 1210 0 0 20 0 3 0 7 44343296 3998 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 5 0 0 0 0 0 0 0 0 0\n",
      { S_PROC } },
    /* 30 */
    { R_MAIN, "proc/1/status",
      "Name:\tinit\n"
      "State:\tS (sleeping)\n"
      "Tgid:\t1\n"
      "Pid:\t1\n"
      "PPid:\t0\n"
      "VmPeak:\t   45616 kB\n"
      "VmSize:\t   45616 kB\n"
      "VmHWM:\t   16792 kB\n"
      "VmRSS:\t   16792 kB\n"
      "RssAnon:\t   10560 kB\n"
      "VmSwap:\t       0 kB\n"
      "Threads:\t1\n"
      "voluntary_ctxt_switches:\t400\n"
      "nonvoluntary_ctxt_switches:\t83\n",
      { S_PROC } },
    { R_MAIN, "proc/1/io",
      "rchar: 4096000\n"
      "wchar: 1024000\n"
      "syscr: 5000\n"
      "syscw: 2000\n"
      "read_bytes: 409600\n"
      "write_bytes: 8192\n"
      "cancelled_write_bytes: 0\n",
      { S_PROC } },
    { R_MAIN, "proc/1/smaps_rollup",
      "55eec5817000-7ffd20bc4000 ---p 00000000 00:00 0                          [rollup]\n"
      "Rss:                1708 kB\n"
      "Pss:                 374 kB\n"
      "Private_Clean:        68 kB\n"
      "Private_Dirty:       112 kB\n"
      "Private_Hugetlb:       0 kB\n"
      "Swap:                  0 kB\n",
      { S_PROC } },
    { R_MAIN, "proc/1/comm", "init\n", { S_PROC, S_THREAD } },
    { R_MAIN, "proc/1/task/1/stat",
      "1 (init) S 0 1 1 0 -1 4194560 101 0 0 0 500 700 0 0 20 0 1 0 7 44343296 3998 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 3 0 0 0 0 0 0 0 0 0\n",
      { S_THREAD } },
    /* 35 */
    { R_MAIN, "proc/1/task/1/status",
      "Name:\tinit\n"
      "State:\tS (sleeping)\n"
      "Pid:\t1\n"
      "voluntary_ctxt_switches:\t100\n"
      "nonvoluntary_ctxt_switches:\t10\n",
      { S_THREAD } },
    { R_MAIN, "sys/devices/system/cpu/online", "0-1\n", { S_HWEV, S_CPU } },
    { R_MAIN, CPU0 "cpufreq/scaling_cur_freq", "2400000\n", { S_CPU } },
    { R_MAIN, CPU0 "cpufreq/cpuinfo_max_freq", "3600000\n", { S_CPU } },
    { R_MAIN, CPU0 "cpuidle/state1/time", "123456789\n", { S_CPU } },
    /* 40 */
    { R_MAIN, CPU0 "cpuidle/state1/usage", "4567\n", { S_CPU } },
    { R_MAIN, CPU0 "cpuidle/state2/time", "23456789\n", { S_CPU } },
    { R_MAIN, CPU0 "cpuidle/state2/usage", "567\n", { S_CPU } },
    { R_MAIN, "sys/devices/system/node/online", "0\n", { S_NUMA } },
    { R_MAIN, "sys/devices/system/node/node0/meminfo",
      "Node 0 MemTotal:       65700012 kB\n"
      "Node 0 MemFree:        61200340 kB\n"
      "Node 0 MemUsed:         4499672 kB\n"
      "Node 0 Active:          1200000 kB\n"
      "Node 0 Inactive:        1500000 kB\n"
      "Node 0 Inactive(file):  1500000 kB\n"
      "Node 0 Dirty:                10 kB\n"
      "Node 0 FilePages:       2500000 kB\n"
      "Node 0 AnonPages:       1000000 kB\n"
      "Node 0 Slab:             400000 kB\n"
      "Node 0 SReclaimable:     300012 kB\n"
      "Node 0 HugePages_Total:     0\n"
      "Node 0 HugePages_Free:     0\n",
      { S_NUMA } },
    /* 45 */
    { R_MAIN, "sys/devices/system/node/node0/numastat",
      "numa_hit 5000\n"
      "numa_miss 0\n"
      "numa_foreign 0\n"
      "interleave_hit 100\n"
      "local_node 5000\n"
      "other_node 7\n",
      { S_NUMA } },
    { R_MAIN, "sys/class/thermal/thermal_zone0/type", "x86_pkg_temp\n", { S_THERM } },
    { R_MAIN, "sys/class/thermal/thermal_zone0/temp", "45000\n", { S_THERM } },
    { R_MAIN, "sys/class/thermal/thermal_zone1/type", "acpitz\n", { S_THERM } },
    { R_MAIN, "sys/class/thermal/thermal_zone1/temp", "-5000\n", { S_THERM } },
    /* 50 */
    { R_MAIN, HWMON "name", "coretemp\n", { S_HWMON } },
    { R_MAIN, HWMON "temp1_input", "45000\n", { S_HWMON } },
    { R_MAIN, HWMON "temp1_label", "Package id 0\n", { S_HWMON } },
    { R_MAIN, HWMON "temp2_input", "43000\n", { S_HWMON } },
    { R_MAIN, HWMON "fan1_input", "1200\n", { S_HWMON } },
    /* 55 */
    { R_MAIN, HWMON "in0_input", "1100\n", { S_HWMON } },
    { R_MAIN, HWMON "power1_average", "15000000\n", { S_HWMON } },
    { R_MAIN, HWMON "energy1_input", "123456789\n", { S_HWMON } },
    { R_MAIN, PSU "AC/type", "Mains\n", { S_BAT } },
    { R_MAIN, PSU "AC/online", "1\n", { S_BAT } },
    /* 60 */
    { R_MAIN, PSU "BAT0/type", "Battery\n", { S_BAT } },
    { R_MAIN, PSU "BAT0/status", "Discharging\n", { S_BAT } },
    { R_MAIN, PSU "BAT0/capacity", "80\n", { S_BAT } },
    { R_MAIN, PSU "BAT0/energy_now", "40000000\n", { S_BAT } },
    { R_MAIN, PSU "BAT0/energy_full", "50000000\n", { S_BAT } },
    /* 65 */
    { R_MAIN, PSU "BAT0/energy_full_design", "57000000\n", { S_BAT } },
    { R_MAIN, PSU "BAT0/power_now", "9500000\n", { S_BAT } },
    { R_MAIN, PSU "BAT0/voltage_now", "12100000\n", { S_BAT } },
    { R_MAIN, PSU "BAT0/cycle_count", "321\n", { S_BAT } },
    { R_MAIN, PSU "BAT1/type", "Battery\n", { S_BAT } },
    /* 70 */
    { R_MAIN, PSU "BAT1/status", "Charging\n", { S_BAT } },
    { R_MAIN, PSU "BAT1/charge_now", "2000000\n", { S_BAT } },
    { R_MAIN, PSU "BAT1/charge_full", "4000000\n", { S_BAT } },
    { R_MAIN, PSU "BAT1/charge_full_design", "4400000\n", { S_BAT } },
    { R_MAIN, PSU "BAT1/current_now", "-1500000\n", { S_BAT } },
    /* 75 */
    { R_MAIN, PSU "BAT1/voltage_now", "11800000\n", { S_BAT } },
    { R_MAIN, NET "type", "1\n", { S_NETIF } },
    { R_MAIN, NET "ifindex", "2\n", { S_NETIF } },
    { R_MAIN, NET "speed", "1000\n", { S_NETIF } },
    { R_MAIN, NET "mtu", "1500\n", { S_NETIF } },
    /* 80 */
    { R_MAIN, NET "operstate", "up\n", { S_NETIF } },
    { R_MAIN, NET "carrier_changes", "2\n", { S_NETIF } },
    { R_MAIN, NET "statistics/rx_nohandler", "0\n", { S_NETIF } },
    { R_MAIN, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n", { S_CG } },
    { R_MAIN, CG2 "cpu.stat",
      "usage_usec 30000000\n"
      "user_usec 18000000\n"
      "system_usec 12000000\n"
      "nr_periods 1000\n"
      "nr_throttled 40\n"
      "throttled_usec 2500000\n",
      { S_CG } },
    /* 85 */
    { R_MAIN, CG2 "cpu.max", "50000 100000\n", { S_CG } },
    { R_MAIN, CG2 "memory.current", "5242880\n", { S_CG } },
    { R_MAIN, CG2 "memory.max", "268435456\n", { S_CG } },
    { R_MAIN, CG2 "memory.stat",
      "anon 3145728\n"
      "file 2097152\n"
      "kernel 524288\n"
      "pgfault 15000\n"
      "pgmajfault 12\n",
      { S_CG } },
    { R_MAIN, CG2 "memory.swap.current", "4096\n", { S_CG } },
    /* 90 */
    { R_MAIN, CG2 "memory.events",
      "low 0\n"
      "high 0\n"
      "max 5\n"
      "oom 1\n"
      "oom_kill 1\n",
      { S_CG } },
    { R_MAIN, CG2 "io.stat",
      "8:0 rbytes=1048576 wbytes=8192 rios=256 wios=2 dbytes=0 dios=0\n"
      "253:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n",
      { S_CG } },
    { R_MAIN, CG2 "pids.current", "7\n", { S_CG } },
    { R_MAIN, CG2 "pids.max", "max\n", { S_CG } },
    { R_MAIN, CG2 "cpu.pressure",
      "some avg10=0.41 avg60=2.33 avg300=2.67 total=100000\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=50000\n",
      { S_CG } },
    /* 95 */
    { R_MAIN, CG2 "memory.pressure",
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=300\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=200\n",
      { S_CG } },
    { R_MAIN, CG2 "io.pressure",
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=3000\n"
      "full avg10=0.00 avg60=0.00 avg300=0.00 total=2000\n",
      { S_CG } },
    { R_V1, "sys/fs/cgroup/cpuacct/a/cpuacct.usage", "50000000000\n", { S_CG } },
    { R_V1, "sys/fs/cgroup/cpuacct/a/cpuacct.stat", "user 3000\nsystem 2000\n", { S_CG } },
    { R_V1, "sys/fs/cgroup/memory/a/memory.usage_in_bytes", "5242880\n", { S_CG } },
    /* 100 */
    { R_V1, "sys/fs/cgroup/memory/a/memory.limit_in_bytes", "9223372036854771712\n", { S_CG } },
    { R_V1, "sys/fs/cgroup/memory/a/memory.stat",
      "cache 2097152\n"
      "rss 3145728\n"
      "pgfault 15000\n"
      "pgmajfault 12\n"
      "total_cache 2097152\n"
      "total_rss 3145728\n"
      "total_pgfault 15000\n"
      "total_pgmajfault 12\n",
      { S_CG } },
    { R_V1, "sys/fs/cgroup/memory/a/memory.oom_control",
      "oom_kill_disable 0\n"
      "under_oom 0\n"
      "oom_kill 2\n",
      { S_CG } },
    { R_V1, "sys/fs/cgroup/blkio/a/blkio.throttle.io_service_bytes_recursive",
      "8:0 Read 1048576\n"
      "8:0 Write 8192\n"
      "8:0 Sync 1056768\n"
      "8:0 Async 0\n"
      "8:0 Discard 0\n"
      "8:0 Total 1056768\n"
      "Total 1056768\n",
      { S_CG } },
    { R_V1, "sys/fs/cgroup/blkio/a/blkio.throttle.io_serviced_recursive",
      "8:0 Read 256\n"
      "8:0 Write 2\n"
      "8:0 Sync 258\n"
      "8:0 Async 0\n"
      "8:0 Discard 0\n"
      "8:0 Total 258\n"
      "Total 258\n",
      { S_CG } },
    /* 105 */
    { R_V1, "sys/fs/cgroup/pids/a/pids.current", "3\n", { S_CG } },
    { R_V1, "sys/fs/cgroup/pids/a/pids.max", "64\n", { S_CG } },
};

#define NFILES (sizeof files / sizeof files[0])
_Static_assert(NFILES <= 128, "the selector has 7 bits");

/* Directories the providers look for that hold no file of the table. */
static const struct { unsigned char root; const char *rel; } dirs[] = {
    { R_MAIN, "sys/block/sda/device" },   /* a whole disk (PhysicalDisk) */
    { R_MAIN, "sys/block/loop0" },
    { R_MAIN, CPU0 "node0" },             /* the CPU's NUMA node link */
    { R_MAIN, "proc/1/fd/0" },            /* one open file (Handle Count) */
};

#define ROOT_PREFIX "perflib-fuzz-"
static char roots[NROOTS][64];
static pl_env *envs[NROOTS];
static int fds[NFILES];

static void die(const char *what, const char *path)
{
    fprintf(stderr, "fuzz_proc: %s %s: %s\n", what, path ? path : "", strerror(errno));
    abort();
}

/* mkdir -p of the directories in path (and path itself when whole). */
static void mkdirs(const char *path, int whole)
{
    char buf[512];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        abort();
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && !(whole && buf[i] == '\0'))
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            die("mkdir", buf);
        buf[i] = c;
    }
}

/* The file's whole content becomes p[0..n), in place. */
static void put(int fd, const void *p, size_t n, const char *rel)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = pwrite(fd, (const char *)p + off, n - off, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("pwrite", rel);
        off += (size_t)w;
    }
    if (ftruncate(fd, (off_t)n) != 0)
        die("ftruncate", rel);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void teardown(void)
{
    for (size_t i = 0; i < NFILES; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    for (int r = 0; r < NROOTS; r++) {
        pl_env_unref(envs[r]);
        envs[r] = NULL;
        if (roots[r][0])
            nftw(roots[r], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
}

/* A crash ends the process without atexit, leaving its roots: those of
 * fuzzer processes that no longer exist go now (the pid is in the name). */
static void sweep_stale(void)
{
    DIR *d = opendir("/tmp");
    struct dirent *de;
    char path[512];
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        char *end;
        long pid;
        if (strncmp(de->d_name, ROOT_PREFIX, sizeof ROOT_PREFIX - 1) != 0)
            continue;
        pid = strtol(de->d_name + sizeof ROOT_PREFIX - 1, &end, 10);
        if (pid <= 0 || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(path, sizeof path, "/tmp/%s", de->d_name);
        nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    closedir(d);
}

static void setup(void)
{
    char path[512];
    sweep_stale();
    for (int r = 0; r < NROOTS; r++) {
        snprintf(roots[r], sizeof roots[r], "/tmp/" ROOT_PREFIX "%ld-XXXXXX", (long)getpid());
        if (!mkdtemp(roots[r]))
            die("mkdtemp", roots[r]);
    }
    for (size_t i = 0; i < NFILES; i++)
        fds[i] = -1;
    atexit(teardown);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", roots[dirs[i].root], dirs[i].rel);
        mkdirs(path, 1);
    }
    for (size_t i = 0; i < NFILES; i++) {
        snprintf(path, sizeof path, "%s/%s", roots[files[i].root], files[i].rel);
        mkdirs(path, 0);
        fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fds[i] < 0)
            die("open", path);
        put(fds[i], files[i].text, strlen(files[i].text), files[i].rel);
    }
    if (pl_register_builtin(NULL, 0) != 0)     /* the core's registry starts empty */
        die("pl_register_builtin", "");
    for (int r = 0; r < NROOTS; r++) {
        if (!(envs[r] = pl_env_new(roots[r])))
            die("pl_env_new", roots[r]);
        /* the fixture's clock and page size, not this machine's */
        pl_env_set_user_hz(envs[r], 100);
        pl_env_set_page_size(envs[r], 4096);
    }
}

static void fail(const char *what, const pl_block *b, uint32_t i, uint32_t c, const char *detail)
{
    fprintf(stderr, "fuzz_proc: %s: set \"%s\", instance %u, counter %u: %s\n", what,
            b && b->cs ? b->cs->name : "?", (unsigned)i, (unsigned)c, detail ? detail : "");
    abort();
}

/* The instances of a snapshot are where the snapshot says. */
static void check_snapshot(const pl_snapshot *s)
{
    for (uint32_t i = 0; i < s->ninst; i++) {
        if (s->inst[i].name_off >= s->names_len)
            fail("instance name outside the snapshot's names", NULL, i, 0, NULL);
        (void)strlen(pl_snap_name(s, i));
    }
}

static int same_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == b)
        return 1;
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* Every block of s1 formatted against s0 (which may be NULL), all at once
 * and one by one: both ways must agree. */
static void check_sample(const pl_sample *s1, const pl_sample *s0)
{
    static const pl_fmt fmts[] = {
        { 0, 0, 0 },
        { PL_FMT_NOCAP100 | PL_FMT_1000, 1, -2 },
        { PL_FMT_NOSCALE, 0, 0 },
    };
    for (uint32_t k = 0; k < s1->nblocks; k++) {
        const pl_block *b = &s1->blocks[k];
        size_t n = (size_t)b->ninst * b->ncounters;
        double *out;
        uint8_t *st;
        if (b->shape == PERF_ERROR_RETURN)
            continue;
        for (uint32_t i = 0; i < b->ninst; i++)
            (void)strlen(pl_sample_inst_name(s1, b, i));
        out = malloc((n ? n : 1) * sizeof *out);
        st = malloc(n ? n : 1);
        if (!out || !st)
            abort();
        for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
            size_t valid = pl_sample_format_block(s1, b, s0, &fmts[f], out, st), nv = 0;
            for (uint32_t i = 0, x = 0; i < b->ninst; i++)
                for (uint32_t c = 0; c < b->ncounters; c++, x++) {
                    double v = NAN;
                    pl_status s = pl_sample_format(s1, b, i, c, s0, &fmts[f], &v);
                    char msg[160];
                    if (st[x] >= PL_STATUS_COUNT)
                        fail("format_block gave an unknown status", b, i, c, NULL);
                    nv += st[x] == PL_VALID;
                    if (s != (pl_status)st[x]) {
                        snprintf(msg, sizeof msg, "block %s, one by one %s",
                                 pl_status_name((pl_status)st[x]), pl_status_name(s));
                        fail("pl_sample_format_block and pl_sample_format disagree", b, i, c, msg);
                    }
                    if (s == PL_VALID && !same_double(v, out[x])) {
                        snprintf(msg, sizeof msg, "block %.17g, one by one %.17g (%s)", out[x], v,
                                 pl_sample_counter(s1, b, c)->name);
                        fail("pl_sample_format_block and pl_sample_format disagree", b, i, c, msg);
                    }
                }
            if (nv != valid)
                fail("format_block's count of valid values is wrong", b, 0, 0, NULL);
        }
        free(out);
        free(st);
    }
}

/* The sets that read file f: instances, then a query of everything. */
static void run(const fxfile *f, int fd, int baseline_second)
{
    pl_env *env = envs[f->root];
    pl_query *q = pl_query_new(env);
    pl_sample *s0 = NULL, *s1 = NULL;
    int e0, e1;
    if (!q)
        abort();
    for (int k = 0; k < MAX_SETS && f->sets[k]; k++) {
        const pl_counterset_def *cs = pl_env_find(env, f->sets[k]);
        int multi;
        pl_spec_in in;
        pl_snapshot snap;
        pl_add_status st;
        uint32_t idx;
        if (!cs) {
            fprintf(stderr, "fuzz_proc: no counterset \"%s\"\n", f->sets[k]);
            abort();
        }
        multi = cs->instance_type != PERF_COUNTERSET_SINGLE_INSTANCE;
        pl_snap_init(&snap, cs);
        if (pl_enum_instances(env, cs, &snap) == 0)
            check_snapshot(&snap);
        pl_snap_free(&snap);
        memset(&in, 0, sizeof in);
        in.counterset = f->sets[k];
        in.instance = multi ? "*" : "";
        in.instance_id = PL_NO_ID;
        in.counter = NULL;
        in.counter_id = PERF_WILDCARD_COUNTER;
        in.detail = PERF_DETAIL_WIZARD;  /* every counter, the dear ones too */
        if (pl_query_add(q, &in, &st, &idx) != 0)
            abort();
        if (st != PL_ADD_OK) {
            fprintf(stderr, "fuzz_proc: \\%s(*)\\* refused: %s\n", f->sets[k], pl_add_status_name(st));
            abort();
        }
    }
    e0 = pl_query_collect(q, &s0);
    if (baseline_second)
        put(fd, f->text, strlen(f->text), f->rel);
    e1 = pl_query_collect(q, &s1);
    if (e0 == 0) {
        check_sample(s0, NULL);
        if (e1 == 0)
            check_sample(s1, s0);
    }
    free(s0);
    free(s1);
    pl_query_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const fxfile *f;
    size_t i;
    if (size < 1)
        return 0;
    if (!envs[R_MAIN])
        setup();
    i = (size_t)(data[0] & 0x7f) % NFILES;
    f = &files[i];
    put(fds[i], data + 1, size - 1, f->rel);
    run(f, fds[i], (data[0] & 0x80) != 0);
    put(fds[i], f->text, strlen(f->text), f->rel);
    return 0;
}
