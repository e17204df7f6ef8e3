/* The C floor of a perflib collect: the same files the providers read for a
 * full `\Set(*)\*` query, kept open, pread at offset 0 until EOF (the I/O of
 * pl_file_read: one pread that returns the data, then one that returns 0
 * unless the file is made whole per read (rf_is_whole), with the same
 * 4096-byte first buffer doubled as needed), then
 * hand-parsed with the least work that yields the values the provider uses.
 * No perflib code: this is what any C program reading these counters pays.
 *
 *   floor [-t SECONDS] [-r ROUNDS] [set ...]
 *
 * Sets: proc_all proc_time memory system all (default: every one), and
 * proc_time_fmt and memory_fmt (only when named): the same collects with
 * every value formatted (floor_format in floor_common.h).  Each set
 * runs for about SECONDS (default 0.2) per round after a warm-up; the median
 * of ROUNDS (default 3) is printed, one line per set:
 *
 *   floor <set> <ns per collect> <iterations> <min ns> <max ns>
 *
 * Lines starting with '#' are comments.  Exit status 1 on a read error. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_NAME "floor"
#define FLOOR_USAGE "[proc_all|proc_time|memory|system|all|proc_time_fmt|memory_fmt ...]"
#include "floor_common.h"    /* die, xmalloc, rfile (rf_open, rf_read, rf_close), next_line, num, timing */

/* ---- parsing helpers ----------------------------------------------------------------- */

/* "123.45" -> 123 and 45 (the provider scales them; the floor only parses). */
static int fixed(const char **p, uint64_t *v)
{
    uint64_t ip, fr = 0;
    if (!num(p, &ip))
        return 0;
    if (**p == '.') {
        (*p)++;
        num(p, &fr);
    }
    *v = ip * 100 + fr;
    return 1;
}

static uint64_t single_number(rfile *f)
{
    const char *p = rf_read(f);
    uint64_t v = 0;
    num(&p, &v);
    return v;
}

/* ---- Processor Information --------------------------------------------------------- */

typedef struct proc_floor {
    rfile stat, intr, soft, cpuinfo;
    int ncpu;                /* max cpu number + 1 from /proc/stat */
    rfile (*idle_time)[8], (*idle_usage)[8];   /* cpuidle state0..7, as perflib reads them */
    rfile *curf, *maxf;
    rfile (*extra)[7];       /* cpufreq limits, thermal_throttle: where they exist */
    int cpufreq;             /* scaling_cur_freq of cpu0 exists */
    uint64_t acc[2][4096];   /* per-CPU sums of /proc/interrupts and /proc/softirqs */
} proc_floor;

/* /proc/stat for Processor Information: the cpu lines (up to 10 fields),
 * the first number of intr and softirq; everything else is skipped. */
static void proc_stat(proc_floor *pf)
{
    const char *p;
    for (p = rf_read(&pf->stat); p && *p; p = next_line(p)) {
        uint64_t v;
        if (p[0] == 'c' && p[1] == 'p' && p[2] == 'u') {
            const char *q = p + 3;
            if (*q != ' ' && num(&q, &v))
                sink += v;   /* cpu number */
            for (int n = 0; n < 10 && num(&q, &v); n++)
                floor_keep(v);
        } else if (strncmp(p, "intr ", 5) == 0 || strncmp(p, "softirq ", 8) == 0) {
            const char *q = p + (p[0] == 'i' ? 5 : 8);
            if (num(&q, &v))
                sink += v;
        }
    }
}

/* /proc/interrupts or /proc/softirqs: every cell added to its CPU's sum. */
static void proc_table(rfile *f, uint64_t *acc)
{
    int cols[4096], ncols = 0;
    const char *p = rf_read(f);
    while (*p && *p != '\n') {
        char *end;
        while (*p == ' ')
            p++;
        if (strncmp(p, "CPU", 3) != 0)
            break;
        cols[ncols] = (int)strtoul(p + 3, &end, 10);
        if (ncols < 4095 && cols[ncols] < 4096)
            ncols++;
        p = end;
    }
    for (p = next_line(p); p && *p; p = next_line(p)) {
        const char *q = strchr(p, ':'), *nl = strchr(p, '\n');
        uint64_t v;
        if (!q || (nl && q > nl))
            continue;
        q++;
        for (int c = 0; c < ncols && num(&q, &v); c++)
            acc[cols[c]] += (uint32_t)v;
    }
}

static void proc_open(proc_floor *pf, int all)
{
    const char *p;
    char path[128];
    rf_open(&pf->stat, "/proc/stat", 1);
    pf->ncpu = 0;
    for (p = rf_read(&pf->stat); p && *p; p = next_line(p)) {
        const char *q = p + 3;
        uint64_t cpu;
        if (strncmp(p, "cpu", 3) == 0 && *q != ' ' && num(&q, &cpu) && cpu < 4096 &&
            (int)cpu + 1 > pf->ncpu)
            pf->ncpu = (int)cpu + 1;
    }
    if (!all)
        return;
    rf_open(&pf->intr, "/proc/interrupts", 0);
    rf_open(&pf->soft, "/proc/softirqs", 0);
    pf->idle_time = xmalloc((size_t)pf->ncpu * sizeof *pf->idle_time);
    pf->idle_usage = xmalloc((size_t)pf->ncpu * sizeof *pf->idle_usage);
    pf->curf = xmalloc((size_t)pf->ncpu * sizeof *pf->curf);
    pf->maxf = xmalloc((size_t)pf->ncpu * sizeof *pf->maxf);
    pf->extra = xmalloc((size_t)pf->ncpu * sizeof *pf->extra);
    for (int c = 0; c < pf->ncpu; c++) {
        static const char *const extra[7] = {
            "cpufreq/scaling_min_freq", "cpufreq/scaling_max_freq", "cpufreq/cpuinfo_min_freq",
            "thermal_throttle/core_throttle_count", "thermal_throttle/package_throttle_count",
            "thermal_throttle/core_throttle_total_time_ms", "thermal_throttle/package_throttle_total_time_ms",
        };
        for (int k = 0; k < 8; k++) {
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time", c, k);
            rf_open(&pf->idle_time[c][k], path, 0);
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage", c, k);
            rf_open(&pf->idle_usage[c][k], path, 0);
        }
        for (int k = 0; k < 7; k++) {
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/%s", c, extra[k]);
            rf_open(&pf->extra[c][k], path, 0);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
        rf_open(&pf->curf[c], path, 0);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", c);
        rf_open(&pf->maxf[c], path, 0);
    }
    pf->cpufreq = pf->ncpu > 0 && pf->curf[0].fd >= 0;
    if (!pf->cpufreq)
        rf_open(&pf->cpuinfo, "/proc/cpuinfo", 1);
}

static void proc_close(proc_floor *pf, int all)
{
    rf_close(&pf->stat);
    if (!all)
        return;
    rf_close(&pf->intr);
    rf_close(&pf->soft);
    rf_close(&pf->cpuinfo);
    for (int c = 0; c < pf->ncpu; c++) {
        for (int k = 0; k < 8; k++) {
            rf_close(&pf->idle_time[c][k]);
            rf_close(&pf->idle_usage[c][k]);
        }
        for (int k = 0; k < 7; k++)
            rf_close(&pf->extra[c][k]);
        rf_close(&pf->curf[c]);
        rf_close(&pf->maxf[c]);
    }
    free(pf->extra);
    free(pf->idle_time);
    free(pf->idle_usage);
    free(pf->curf);
    free(pf->maxf);
}

/* "cpu MHz : 3295.048" of each processor, one pass over /proc/cpuinfo. */
static void proc_cpuinfo(proc_floor *pf)
{
    const char *p;
    for (p = rf_read(&pf->cpuinfo); p && *p; p = next_line(p)) {
        const char *q;
        uint64_t v;
        if (p[0] != 'p' && p[0] != 'c')
            continue;
        if (strncmp(p, "processor", 9) != 0 && strncmp(p, "cpu MHz", 7) != 0)
            continue;
        if ((q = strchr(p, ':')) != NULL && (q++, fixed(&q, &v)))
            sink += v;
    }
}

static void proc_collect(proc_floor *pf, int all)
{
    proc_stat(pf);
    if (!all)
        return;
    if (pf->intr.fd >= 0)
        proc_table(&pf->intr, pf->acc[0]);
    if (pf->soft.fd >= 0)
        proc_table(&pf->soft, pf->acc[1]);
    for (int c = 0; c < pf->ncpu; c++) {
        for (int k = 0; k < 8; k++)
            if (pf->idle_time[c][k].fd >= 0 && pf->idle_usage[c][k].fd >= 0)
                sink += single_number(&pf->idle_time[c][k]) + single_number(&pf->idle_usage[c][k]);
        for (int k = 0; k < 7; k++)
            if (pf->extra[c][k].fd >= 0)
                sink += single_number(&pf->extra[c][k]);
        if (pf->cpufreq && pf->curf[c].fd >= 0) {
            sink += single_number(&pf->curf[c]);
            if (pf->maxf[c].fd >= 0)
                sink += single_number(&pf->maxf[c]);
        }
    }
    if (!pf->cpufreq)
        proc_cpuinfo(pf);
    sink += pf->acc[0][0] + pf->acc[1][0];
}

/* ---- Memory ------------------------------------------------------------------------------ */

typedef struct mem_floor {
    rfile meminfo, vmstat, zoneinfo;
} mem_floor;

/* The /proc/vmstat keys Memory uses; zoned ones also match <key>_<zone>. */
static const struct { const char *key; size_t len; int zoned; } vm_keys[] = {
    {"pgpgin", 6, 0}, {"pgpgout", 7, 0}, {"pswpin", 6, 0}, {"pswpout", 7, 0},
    {"pgfault", 7, 0}, {"pgmajfault", 10, 0}, {"pgfree", 6, 0},
    {"pgscan_kswapd", 13, 1}, {"pgscan_direct", 13, 1},
    {"pgsteal_kswapd", 14, 1}, {"pgsteal_direct", 14, 1}, {"allocstall", 10, 1},
    {"workingset_refault", 18, 0}, {"workingset_refault_anon", 23, 0},
    {"workingset_refault_file", 23, 0}, {"oom_kill", 8, 0},
};

static void mem_open(mem_floor *mf)
{
    rf_open(&mf->meminfo, "/proc/meminfo", 1);
    rf_open(&mf->vmstat, "/proc/vmstat", 1);
    rf_open(&mf->zoneinfo, "/proc/zoneinfo", 0);
}

static void mem_close(mem_floor *mf)
{
    rf_close(&mf->meminfo);
    rf_close(&mf->vmstat);
    rf_close(&mf->zoneinfo);
}

static void mem_collect(mem_floor *mf)
{
    const char *p;
    uint64_t avail = 0;
    /* meminfo: every "Key: value kB" line (the provider uses 35 of them) */
    for (p = rf_read(&mf->meminfo); p && *p; p = next_line(p)) {
        const char *q = strchr(p, ':');
        uint64_t v;
        if (q && (q++, num(&q, &v))) {
            floor_keep(v);
            if (p[0] == 'M' && strncmp(p, "MemAvailable:", 13) == 0)
                avail = v;
        }
    }
    /* no MemAvailable (before 3.14) or 0: the provider estimates it from zoneinfo */
    if (avail == 0 && mf->zoneinfo.fd >= 0) {
        for (p = rf_read(&mf->zoneinfo); p && *p; p = next_line(p)) {
            uint64_t v;
            while (*p == ' ')
                p++;
            if (strncmp(p, "low ", 4) == 0 && (p += 4, num(&p, &v)))
                sink += v;
        }
    }
    /* vmstat: only lines whose key is one of ours */
    for (p = rf_read(&mf->vmstat); p && *p; p = next_line(p)) {
        const char *sp;
        size_t klen;
        uint64_t v;
        if (*p != 'p' && *p != 'a' && *p != 'w' && *p != 'o')
            continue;
        if (!(sp = strchr(p, ' ')))
            break;
        klen = (size_t)(sp - p);
        for (size_t k = 0; k < sizeof vm_keys / sizeof vm_keys[0]; k++) {
            size_t n = vm_keys[k].len;
            if (klen != n && !(vm_keys[k].zoned && klen > n + 1 && p[n] == '_'))
                continue;
            if (memcmp(p, vm_keys[k].key, n) != 0)
                continue;
            if (num(&sp, &v))
                floor_keep(v);
            break;
        }
    }
}

/* ---- System ------------------------------------------------------------------------------ */

typedef struct sys_floor {
    rfile stat, loadavg, uptime, filenr, entropy, pidmax, threadsmax;
    DIR *proc;
} sys_floor;

static void sys_open(sys_floor *sf)
{
    rf_open(&sf->stat, "/proc/stat", 1);
    rf_open(&sf->loadavg, "/proc/loadavg", 1);
    rf_open(&sf->uptime, "/proc/uptime", 1);
    rf_open(&sf->filenr, "/proc/sys/fs/file-nr", 0);
    rf_open(&sf->entropy, "/proc/sys/kernel/random/entropy_avail", 0);
    rf_open(&sf->pidmax, "/proc/sys/kernel/pid_max", 0);
    rf_open(&sf->threadsmax, "/proc/sys/kernel/threads-max", 0);
    sf->proc = opendir("/proc");
    if (!sf->proc)
        die("opendir", "/proc");
}

static void sys_close(sys_floor *sf)
{
    rf_close(&sf->stat);
    rf_close(&sf->loadavg);
    rf_close(&sf->uptime);
    rf_close(&sf->filenr);
    rf_close(&sf->entropy);
    rf_close(&sf->pidmax);
    rf_close(&sf->threadsmax);
    closedir(sf->proc);
}

static void sys_collect(sys_floor *sf)
{
    const char *p;
    struct dirent *d;
    uint64_t v, n = 0;
    /* /proc/stat: ctxt, processes, procs_blocked */
    for (p = rf_read(&sf->stat); p && *p; p = next_line(p)) {
        const char *q;
        if (*p != 'c' && *p != 'p')
            continue;
        if (strncmp(p, "ctxt ", 5) == 0)
            q = p + 5;
        else if (strncmp(p, "processes ", 10) == 0)
            q = p + 10;
        else if (strncmp(p, "procs_blocked ", 14) == 0)
            q = p + 14;
        else
            continue;
        if (num(&q, &v))
            sink += v;
    }
    /* /proc/loadavg: "0.40 0.72 0.48 1/79 10528" */
    p = rf_read(&sf->loadavg);
    for (int i = 0; i < 3 && fixed(&p, &v); i++)
        sink += v;
    if (num(&p, &v) && *p == '/' && (p++, num(&p, &n)))
        sink += v + n;
    /* /proc/uptime: "1313.82 1964.74" */
    p = rf_read(&sf->uptime);
    if (fixed(&p, &v))
        sink += v;
    /* the Processes count: numeric entries of /proc */
    rewinddir(sf->proc);
    n = 0;
    while ((d = readdir(sf->proc)) != NULL) {
        const char *s = d->d_name;
        if (*s < '1' || *s > '9')
            continue;
        while (*s >= '0' && *s <= '9')
            s++;
        n += *s == '\0';
    }
    sink += n;
    if (sf->filenr.fd >= 0) {
        p = rf_read(&sf->filenr);
        while (num(&p, &v))
            sink += v;
    }
    if (sf->entropy.fd >= 0)
        sink += single_number(&sf->entropy);
    if (sf->pidmax.fd >= 0)
        sink += single_number(&sf->pidmax);
    if (sf->threadsmax.fd >= 0)
        sink += single_number(&sf->threadsmax);
}

/* ---- sets and main ------------------------------------------------------------------------- */

enum { PROC_ALL, PROC_TIME, MEMORY, SYSTEM, ALL, PROC_TIME_FMT, MEMORY_FMT, NSETS };
static const char *const set_names[NSETS] = { "proc_all", "proc_time", "memory", "system", "all",
                                              "proc_time_fmt", "memory_fmt" };

static proc_floor pf;
static mem_floor mf;
static sys_floor sf;

static void collect_set(int set)
{
    switch (set) {
    case PROC_ALL: proc_collect(&pf, 1); break;
    case PROC_TIME: proc_collect(&pf, 0); break;
    case MEMORY: mem_collect(&mf); break;
    case SYSTEM: sys_collect(&sf); break;
    case PROC_TIME_FMT: FLOOR_FORMATTED(proc_collect(&pf, 0)); break;
    case MEMORY_FMT: FLOOR_FORMATTED(mem_collect(&mf)); break;
    default:
        proc_collect(&pf, 1);
        mem_collect(&mf);
        sys_collect(&sf);
        break;
    }
}

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = NSETS };

    if (!floor_args(&b, argc, argv))
        for (int k = 0; k < PROC_TIME_FMT; k++)
            b.want[k] = 1;

    /* one state per set, as one perflib query per set would have */
    proc_open(&pf, 1);
    mem_open(&mf);
    sys_open(&sf);
    printf("# floor: %d CPUs, cpufreq %s, %d round(s) of %.2f s per set\n", pf.ncpu,
           pf.cpufreq ? "yes" : "no (/proc/cpuinfo)", b.rounds, b.secs);
    floor_run(&b);
    proc_close(&pf, 1);
    mem_close(&mf);
    sys_close(&sf);
    return 0;
}
