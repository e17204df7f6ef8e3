/* Container: the reader's own cgroup re-basing CPU and memory percentages
 * on its limits, against temporary trees with the layouts of a v2
 * container with its own cgroup namespace ("0::/" and cgroup2 mounted on
 * /sys/fs/cgroup, as docker and podman make it), a v2 host group with a
 * limit on its parent, a v1 container without a namespace (the mount's
 * root is the group's path), a v1 group whose directory is not there, and
 * no cgroup at all; live last.  The arithmetic is in the comments. */
#include "perflib.h"
#include "pl_provider.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024ull * 1024)

/* % Processor Time-like MULTI timer between two snapshots 10 s apart. */
static double multi(const pl_snapshot *a, const pl_snapshot *b, const char *ctr)
{
    uint64_t n0 = 0, n1 = 0, m = 0;
    double out = -1;
    CHECK(get(a, "", ctr, &n0) && get(b, "", ctr, &n1) && get(b, "", "% Processor Time Base", &m));
    pl_raw r0 = { n0, 10000000ull, (uint32_t)m, 8 }, r1 = { n1, 110000000ull, (uint32_t)m, 8 };
    CHECK(pl_format_raw(PERF_100NSEC_MULTI_TIMER, &r1, &r0, 10000000, PL_FMT_NOCAP100, 0, &out) ==
          PL_VALID);
    return out;
}

static void v2_tree(const char *d)
{
    CHECK(put(d, "proc/self/cgroup", "0::/\n"));
    CHECK(put(d, "proc/self/mountinfo",
              "25 1 0:23 / / rw,relatime - overlay overlay rw\n"
              "30 25 0:26 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw,nsdelegate\n"));
    CHECK(put(d, "proc/meminfo", "MemTotal:       16384000 kB\nMemFree:  1000 kB\n"));
    CHECK(put(d, "sys/devices/system/cpu/online", "0-7\n"));
    CHECK(put(d, "sys/fs/cgroup/cpuset.cpus.effective", "0-3\n"));
    CHECK(put(d, "sys/fs/cgroup/cpu.max", "150000 100000\n"));
    CHECK(put(d, "sys/fs/cgroup/cpu.stat", "usage_usec 3000000\nuser_usec 2000000\nsystem_usec 1000000\n"
              "nr_periods 50\nnr_throttled 5\nthrottled_usec 250000\n"));
    CHECK(put(d, "sys/fs/cgroup/memory.current", "536870912\n"));
    CHECK(put(d, "sys/fs/cgroup/memory.max", "1073741824\n"));
    CHECK(put(d, "sys/fs/cgroup/memory.stat", "anon 300000000\nfile 236870912\nactive_file 100000000\n"
              "inactive_file 136870912\n"));
    CHECK(put(d, "sys/fs/cgroup/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n"));
    CHECK(put(d, "sys/fs/cgroup/memory.swap.current", "4096\n"));
    CHECK(put(d, "sys/fs/cgroup/pids.current", "12\n"));
    CHECK(put(d, "sys/fs/cgroup/pids.max", "max\n"));
}

static void test_v2_namespace(void)
{
    char dir[] = "/tmp/pl-ct-XXXXXX";
    pl_snapshot a, b;
    pctx p;
    CHECK(mkdtemp(dir) != NULL);
    v2_tree(dir);
    CHECK(pc_open_set(&p, dir, "Container", 100, 4096) == 0);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    CHECK(pc_collect(&p, NULL, &a) == 0);
    /* the limit: online 8 CPUs, cpuset 0-3 = 4, quota 150000 / 100000 = 1.5 -> 1500 */
    EXPECT(&a, "", "Processor Limit", 1500);
    EXPECT(&a, "", "% Processor Time Base", 1500);
    EXPECT(&a, "", "Processor Limit Source", 2);
    EXPECT(&a, "", "% Processor Time", 3000000ull * 10000);   /* usec x 10 x 1000 */
    EXPECT(&a, "", "% Throttled Time", 2500000);                /* 250000 usec x 10 */
    EXPECT(&a, "", "Throttled Periods/sec", 5);
    /* memory: working set 536870912 - 136870912 = 400000000 of 1073741824 */
    EXPECT(&a, "", "Memory Usage Bytes", 536870912);
    EXPECT(&a, "", "Working Set Bytes", 400000000);
    EXPECT(&a, "", "Memory Limit Bytes", 1073741824);
    EXPECT(&a, "", "Memory Limit Source", 1);
    EXPECT(&a, "", "% Memory Used", 400000000);
    EXPECT(&a, "", "% Memory Used Base", 1073741824);
    EXPECT(&a, "", "Available Bytes", 1073741824 - 400000000);  /* 673741824 */
    EXPECT(&a, "", "Swap Usage Bytes", 4096);
    EXPECT(&a, "", "OOM Kills", 1);
    EXPECT(&a, "", "Tasks", 12);
    UNSET(&a, "", "Tasks Limit");                               /* "max" everywhere */
    /* 10 s later: 0.75 s more CPU, 0.5 s user, 0.25 s system */
    CHECK(put(dir, "sys/fs/cgroup/cpu.stat", "usage_usec 3750000\nuser_usec 2500000\n"
              "system_usec 1250000\nnr_periods 60\nnr_throttled 9\nthrottled_usec 1250000\n"));
    CHECK(pc_collect(&p, NULL, &b) == 0);
    /* 100 x 0.75 s / (10 s x 1.5 CPUs) = 5 %; user 100 x 0.5 / 15 = 3.333..; system 1.666.. */
    CHECK_NEAR(multi(&a, &b, "% Processor Time"), 5.0, 1e-9);
    CHECK_NEAR(multi(&a, &b, "% User Time"), 100.0 * 0.5 / 15, 1e-9);
    CHECK_NEAR(multi(&a, &b, "% Privileged Time"), 100.0 * 0.25 / 15, 1e-9);
    /* throttled 1 s of 10 s: 10 % */
    CHECK_NEAR(val2(&a, &b, "", "% Throttled Time"), 10.0, 1e-9);
    /* the working set over the limit: 100 x 400000000 / 1073741824 = 37.2529.. % */
    CHECK_NEAR(val2(&a, &b, "", "% Memory Used"), 100.0 * 400000000 / 1073741824, 1e-9);
    /* no quota: the cpuset's 4 CPUs; no memory.max: MemTotal 16384000 kB */
    CHECK(put(dir, "sys/fs/cgroup/cpu.max", "max 100000\n"));
    CHECK(put(dir, "sys/fs/cgroup/memory.max", "max\n"));
    pl_snap_free(&a);
    memset(&a, 0, sizeof a);
    CHECK(pc_collect(&p, NULL, &a) == 0);
    EXPECT(&a, "", "Processor Limit", 4000);
    EXPECT(&a, "", "Processor Limit Source", 1);
    EXPECT(&a, "", "Memory Limit Bytes", 16384000ull * 1024);  /* 16777216000 */
    EXPECT(&a, "", "Memory Limit Source", 0);
    EXPECT(&a, "", "Available Bytes", 16384000ull * 1024 - 400000000);
    pl_snap_free(&a);
    pl_snap_free(&b);
    pc_close(&p);
    rm_tree(dir);
}

/* A v2 group on the host: the parent's limits bind it; the root's are not read as limits. */
static void test_v2_ancestors(void)
{
    char dir[] = "/tmp/pl-ct-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/self/cgroup", "0::/app.slice/web.service\n"));
    CHECK(put(dir, "proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"));
    CHECK(put(dir, "proc/meminfo", "MemTotal:       16384000 kB\n"));
    CHECK(put(dir, "sys/devices/system/cpu/online", "0-1\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu.stat", "usage_usec 5\n"));
    CHECK(put(dir, "sys/fs/cgroup/app.slice/cpu.max", "50000 100000\n"));          /* 0.5 CPU */
    CHECK(put(dir, "sys/fs/cgroup/app.slice/memory.max", "268435456\n"));          /* 256 MiB */
    CHECK(put(dir, "sys/fs/cgroup/app.slice/pids.max", "100\n"));
    CHECK(put(dir, "sys/fs/cgroup/app.slice/web.service/cpu.max", "max 100000\n"));
    CHECK(put(dir, "sys/fs/cgroup/app.slice/web.service/cpu.stat", "usage_usec 7\nuser_usec 4\n"
              "system_usec 3\n"));
    CHECK(put(dir, "sys/fs/cgroup/app.slice/web.service/memory.max", "536870912\n"));  /* 512 MiB */
    CHECK(put(dir, "sys/fs/cgroup/app.slice/web.service/memory.current", "1048576\n"));
    CHECK(put(dir, "sys/fs/cgroup/app.slice/web.service/pids.max", "max\n"));
    CHECK(pc_collect_tree(dir, "Container", 100, 4096, NULL, &s) == 0);
    EXPECT(&s, "", "Processor Limit", 500);         /* the parent's 50000 / 100000 x 1000 */
    EXPECT(&s, "", "% Processor Time", 70000);      /* the group's 7 usec x 10^4, not the root's */
    EXPECT(&s, "", "Memory Limit Bytes", 256 * MIB);
    EXPECT(&s, "", "Tasks Limit", 100);
    EXPECT(&s, "", "Memory Usage Bytes", MIB);
    UNSET(&s, "", "Working Set Bytes");             /* no memory.stat */
    UNSET(&s, "", "% Memory Used");
    UNSET(&s, "", "OOM Kills");
    pl_snap_free(&s);
    rm_tree(dir);
}

/* v1 without a cgroup namespace: the mount's root is the group's path
 * (docker's /docker/<id>), so the mount point is the group's directory. */
static void test_v1_docker(void)
{
    char dir[] = "/tmp/pl-ct-XXXXXX";
    pl_snapshot a, b;
    pctx p;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/self/cgroup", "12:memory:/docker/abc\n11:cpu,cpuacct:/docker/abc\n"
              "10:pids:/docker/abc\n1:name=systemd:/docker/abc\n0::/system.slice/containerd.service\n"));
    CHECK(put(dir, "proc/self/mountinfo",
              "40 31 0:37 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n"
              "41 31 0:38 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"
              "42 31 0:39 /docker/abc /sys/fs/cgroup/pids ro - cgroup cgroup rw,pids\n"));
    CHECK(put(dir, "proc/meminfo", "MemTotal:       16384000 kB\n"));
    CHECK(put(dir, "sys/devices/system/cpu/online", "0-3\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "200000\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu,cpuacct/cpuacct.usage", "1000000000\n"));       /* 1 s in ns */
    CHECK(put(dir, "sys/fs/cgroup/cpu,cpuacct/cpuacct.stat", "user 60\nsystem 40\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu,cpuacct/cpu.stat", "nr_periods 10\nnr_throttled 2\n"
              "throttled_time 300000000\n"));
    CHECK(put(dir, "sys/fs/cgroup/memory/memory.usage_in_bytes", "209715200\n"));    /* 200 MiB */
    CHECK(put(dir, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n"));
    CHECK(put(dir, "sys/fs/cgroup/memory/memory.stat", "cache 100\nrss 200\ninactive_file 9\n"
              "total_inactive_file 52428800\n"));
    CHECK(put(dir, "sys/fs/cgroup/memory/memory.memsw.usage_in_bytes", "212860928\n"));
    CHECK(put(dir, "sys/fs/cgroup/memory/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n"
              "oom_kill 2\n"));
    CHECK(put(dir, "sys/fs/cgroup/pids/pids.current", "3\n"));
    CHECK(put(dir, "sys/fs/cgroup/pids/pids.max", "max\n"));
    CHECK(pc_open_set(&p, dir, "Container", 100, 4096) == 0);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    CHECK(pc_collect(&p, NULL, &a) == 0);
    EXPECT(&a, "", "Processor Limit", 2000);              /* 200000 / 100000 x 1000 */
    EXPECT(&a, "", "% Processor Time", 10000000000ull);   /* 10^9 ns / 100 x 1000 */
    EXPECT(&a, "", "% User Time", 60ull * 100000 * 1000); /* 60 ticks x 100000 (100 ns) x 1000 */
    EXPECT(&a, "", "% Throttled Time", 3000000);          /* 0.3 s in 100 ns */
    EXPECT(&a, "", "Throttled Periods/sec", 2);
    EXPECT(&a, "", "Memory Usage Bytes", 200 * MIB);
    EXPECT(&a, "", "Working Set Bytes", 150 * MIB);       /* less total_inactive_file 50 MiB */
    EXPECT(&a, "", "Memory Limit Bytes", 16384000ull * 1024);   /* 2^63 - 4096: no limit */
    EXPECT(&a, "", "Memory Limit Source", 0);
    EXPECT(&a, "", "Swap Usage Bytes", 212860928 - 200 * MIB);  /* 3145728 */
    EXPECT(&a, "", "OOM Kills", 2);
    EXPECT(&a, "", "Tasks", 3);
    /* 10 s later 4 s more CPU on 2 CPUs: 100 x 4 / (10 x 2) = 20 % */
    CHECK(put(dir, "sys/fs/cgroup/cpu,cpuacct/cpuacct.usage", "5000000000\n"));
    CHECK(pc_collect(&p, NULL, &b) == 0);
    CHECK_NEAR(multi(&a, &b, "% Processor Time"), 20.0, 1e-9);
    pl_snap_free(&a);
    pl_snap_free(&b);
    pc_close(&p);
    rm_tree(dir);
}

/* The group's directory is not in the tree: the mount point stands for it;
 * a group moved to another cgroup is found again at the next collect. */
static void test_missing_dir_and_move(void)
{
    char dir[] = "/tmp/pl-ct-XXXXXX";
    pl_snapshot s;
    pctx p;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/self/cgroup", "0::/gone.scope\n"));
    CHECK(put(dir, "proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"));
    CHECK(put(dir, "sys/devices/system/cpu/online", "0\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu.stat", "usage_usec 11\n"));
    CHECK(put(dir, "sys/fs/cgroup/b.scope/cpu.stat", "usage_usec 22\n"));
    CHECK(pc_open_set(&p, dir, "Container", 100, 4096) == 0);
    memset(&s, 0, sizeof s);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "", "% Processor Time", 110000);
    EXPECT(&s, "", "Processor Limit", 1000);
    UNSET(&s, "", "Memory Limit Bytes");              /* no limit and no meminfo */
    CHECK(put(dir, "proc/self/cgroup", "0::/b.scope\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "", "% Processor Time", 220000);
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* No cgroup: ENOENT with the file; a mountinfo without cgroup mounts the same. */
static void test_no_cgroup(void)
{
    char dir[] = "/tmp/pl-ct-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(pc_collect_tree(dir, "Container", 100, 4096, NULL, &s) == ENOENT);
    CHECK(s.err_path && strcmp(s.err_path, "proc/self/cgroup") == 0);
    pl_snap_free(&s);
    CHECK(put(dir, "proc/self/cgroup", "0::/x\n"));
    CHECK(put(dir, "proc/self/mountinfo", "25 1 0:23 / / rw - ext4 /dev/vda1 rw\n"));
    CHECK(pc_collect_tree(dir, "Container", 100, 4096, NULL, &s) == ENOENT);
    pl_snap_free(&s);
    /* malformed lines and a cpu.max that is no number: no crash, no value */
    CHECK(put(dir, "proc/self/cgroup", "garbage\n0:\n0::/\n"));
    CHECK(put(dir, "proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup\n"
              "31 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu.max", "lots 100000\n"));
    CHECK(put(dir, "sys/fs/cgroup/cpu.stat", "usage_usec 1"));
    CHECK(pc_collect_tree(dir, "Container", 100, 4096, NULL, &s) == 0);
    UNSET(&s, "", "Processor Limit");                 /* no online list, no cpuset, no quota */
    EXPECT(&s, "", "% Processor Time", 10000);        /* a last line without '\n' is whole */
    pl_snap_free(&s);
    rm_tree(dir);
}

/* Live: the machine's own group; limits within the machine's. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t lim = 0, cpu = 0;
    int e = pc_collect_tree("/", "Container", 0, 0, NULL, &s);
    if (e == ENOENT) {
        printf("  (no cgroup here: skipped)\n");
        pl_snap_free(&s);
        return;
    }
    CHECK(e == 0);
    CHECK(get(&s, "", "Processor Limit", &cpu) && cpu >= 1);
    CHECK(get(&s, "", "Memory Limit Bytes", &lim) && lim > 0);
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_v2_namespace);
    RUN(test_v2_ancestors);
    RUN(test_v1_docker);
    RUN(test_missing_dir_and_move);
    RUN(test_no_cgroup);
    RUN(test_live);
    return CT_END();
}
