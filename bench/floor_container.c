/* The C floor of Container: the files the provider reads for `\Container\*`
 * on this machine, kept open, one read each, every number parsed: the
 * reader's proc/self/cgroup, the online CPUs, the cpuset, the CPU quota of
 * the group and its ancestors, its CPU times, memory usage, limits of every
 * level, memory.stat, swap, OOM kills, tasks and MemTotal.  The groups are
 * found as on common layouts (cgroup2 on /sys/fs/cgroup, or the hybrid's
 * unified/ and v1 controllers at /sys/fs/cgroup/<controller>, mounted at
 * their roots); files that are not there are left out, as the provider
 * stops trying them.  Prints "floor Container <ns> ..." for
 * bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FLOOR_NAME "floor_container"
#define FLOOR_USAGE "[Container]"
#include "floor_common.h"

#define NMAX 64
static rfile f[NMAX];
static int nf;

static void add(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (nf < NMAX && rf_open(&f[nf], path, 0))
        nf++;
}

/* dir and each ancestor down to top: name in each. */
static void add_levels(const char *dir, size_t top, const char *name)
{
    char d[4096];
    snprintf(d, sizeof d, "%s", dir);
    for (size_t len = strlen(d);;) {
        d[len] = '\0';
        add(d, name);
        if (len <= top)
            break;
        while (len > top && d[len - 1] != '/')
            len--;
        if (len > top)
            len--;
    }
}

/* The group's directory in the hierarchy of the cgroup line matching ctl. */
static int group_dir(const char *cg, const char *ctl, const char *mnt, char *out, size_t size)
{
    char pat[64];
    const char *p;
    snprintf(pat, sizeof pat, ctl ? ":%s:" : "0::", ctl);
    for (p = cg; (p = strstr(p, pat)) != NULL; p++) {
        if (ctl && p != cg && p[-1] != '\n' && !(p[-1] >= '0' && p[-1] <= '9'))
            continue;
        const char *path = p + strlen(pat), *nl = strchr(path, '\n');
        int n = nl ? (int)(nl - path) : (int)strlen(path);
        snprintf(out, size, "%s%.*s", mnt, strcmp(path, "/\n") && n > 1 ? n : 0, path);
        if (access(out, F_OK) != 0)
            snprintf(out, size, "%s", mnt);
        return 1;
    }
    return 0;
}

static void collect_set(int set)
{
    (void)set;
    for (int k = 0; k < nf; k++) {
        const char *p = rf_read(&f[k]);
        for (; p && *p; p = next_line(p)) {
            uint64_t v;
            const char *q = p;
            while (*q && *q != ' ' && *q != '\n' && (*q < '0' || *q > '9'))
                q++;             /* past a key: "usage_usec 7" */
            if (*q == ' ')
                q++;
            if (num(&q, &v)) {
                floor_keep(v);
                sink += v;
            }
        }
    }
}

static const char *const set_names[] = { "Container" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    rfile self;
    char cg[8192], d[4096];
    const char *v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ? "/sys/fs/cgroup"
                                                                             : "/sys/fs/cgroup/unified";
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!rf_open(&self, "/proc/self/cgroup", 0)) {
        printf("# floor_container: no /proc/self/cgroup\n");
        return 0;
    }
    snprintf(cg, sizeof cg, "%s", rf_read(&self));
    rf_close(&self);
    add("/proc/self", "cgroup");
    add("/sys/devices/system/cpu", "online");
    if (group_dir(cg, NULL, v2, d, sizeof d)) {
        add(d, "cpuset.cpus.effective");
        add_levels(d, strlen(v2), "cpu.max");
        add(d, "cpu.stat");
        add(d, "memory.current");
        add_levels(d, strlen(v2), "memory.max");
        add(d, "memory.stat");
        add(d, "memory.swap.current");
        add(d, "memory.events");
        add(d, "pids.current");
        add_levels(d, strlen(v2), "pids.max");
    }
    if (group_dir(cg, "cpuset", "/sys/fs/cgroup/cpuset", d, sizeof d))
        add(d, "cpuset.effective_cpus");
    if (group_dir(cg, "cpu", "/sys/fs/cgroup/cpu", d, sizeof d)) {
        add_levels(d, strlen("/sys/fs/cgroup/cpu"), "cpu.cfs_quota_us");
        add_levels(d, strlen("/sys/fs/cgroup/cpu"), "cpu.cfs_period_us");
    }
    if (group_dir(cg, "memory", "/sys/fs/cgroup/memory", d, sizeof d)) {
        add_levels(d, strlen("/sys/fs/cgroup/memory"), "memory.limit_in_bytes");
        add(d, "memory.stat");
        add(d, "memory.oom_control");
        add(d, "memory.usage_in_bytes");
    }
    add("/proc", "meminfo");
    printf("# floor_container: %d files, %d round(s) of %.2f s\n", nf, b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
