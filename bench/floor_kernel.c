/* The C floor of SoftIRQ, Interrupts, NFS Client and Control Group: the
 * files those providers read for a full `\Set(*)\*` collect, kept open and
 * pread at offset 0 until EOF (as pl_file_read does), parsed minimally.  No
 * perflib code.  Timing and file reader: floor_common.h.
 *
 *   floor_kernel [-t SECONDS] [-r ROUNDS] [softirq|interrupts|nfs|cgroup ...]
 *
 * Output, one line per set:  floor <set> <ns per collect> <iterations> <min> <max>
 * (softirq = SoftIRQ, interrupts = Interrupts, nfs = NFS Client,
 * cgroup = Control Group).
 *
 * cgroup: every collect walks the hierarchies as the provider does (openat,
 * fstat, readdir of each directory, 8 levels, 4096 directories), then reads
 * each group's source files: per counter the v2 file when it exists, else
 * the v1 one, as the provider falls back. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define FLOOR_NAME "floor_kernel"
#define FLOOR_USAGE "[softirq|interrupts|nfs|cgroup ...]"
#include "floor_common.h"    /* die, rfile (rf_open, rf_read_or_drop, rf_close), next_line, num, timing */

/* every number of the file, summed: the least parse of a small value file */
static void all_numbers(rfile *f)
{
    const char *p;
    if (f->fd < 0)
        return;
    p = rf_read_or_drop(f);
    while (*p) {
        uint64_t v;
        if (*p >= '0' && *p <= '9' && num(&p, &v))
            sink += v;
        else
            p++;
    }
}

/* ---- SoftIRQ and Interrupts: each row's cells summed (32-bit each) ------------------- */

static rfile soft, intr;

static void cpu_table(rfile *f)
{
    int ncols = 0;
    const char *p = rf_read_or_drop(f);
    while (*p && *p != '\n') {
        while (*p == ' ')
            p++;
        if (strncmp(p, "CPU", 3) != 0)
            break;
        while (*p && *p != ' ' && *p != '\n')
            p++;
        ncols++;
    }
    for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        const char *q = strchr(p + 1, ':'), *nl = strchr(p + 1, '\n');
        uint64_t v, row = 0;
        if (!q || (nl && q > nl))
            continue;
        q++;
        for (int c = 0; c < ncols && num(&q, &v); c++)
            row += (uint32_t)v;
        sink += row;
    }
}

/* ---- NFS Client ------------------------------------------------------------------------- */

static rfile mstats;

static void nfs_collect(void)
{
    int nfs = 0;
    for (const char *p = rf_read_or_drop(&mstats); p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (p[0] == 'd' && strncmp(p, "device ", 7) == 0) {
            const char *nl = strchr(p, '\n'), *t = strstr(p, " with fstype nfs");
            nfs = t && (!nl || t < nl);
            continue;
        }
        if (!nfs)
            continue;
        const char *q = p, *c;
        uint64_t v;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "bytes:", 6) == 0 || ((c = strchr(q, ':')) && c[1] == ' ' &&
                                             strncmp(q, "RPC", 3) != 0)) {
            q = strchr(q, ':') + 1;
            while (num(&q, &v))
                sink += v;
        }
    }
}

/* ---- Control Group ------------------------------------------------------------------------ */

enum { H_V2, H_CPUACCT, H_MEMORY, H_BLKIO, H_PIDS, NH };
static char hbase[NH][64];

typedef struct chain { const char *v2[2]; int h1; const char *v1[2]; } chain;
static const chain chains[] = {
    { { "cpu.stat", NULL }, H_CPUACCT, { "cpuacct.usage", "cpuacct.stat" } },
    { { "cpu.max", NULL }, -1, { NULL, NULL } },
    { { "memory.current", NULL }, H_MEMORY, { "memory.usage_in_bytes", NULL } },
    { { "memory.max", NULL }, H_MEMORY, { "memory.limit_in_bytes", NULL } },
    { { "memory.swap.current", NULL }, -1, { NULL, NULL } },
    { { "memory.stat", NULL }, H_MEMORY, { "memory.stat", NULL } },
    { { "memory.events", NULL }, H_MEMORY, { "memory.oom_control", NULL } },
    { { "io.stat", NULL }, H_BLKIO, { "blkio.throttle.io_service_bytes_recursive",
                                      "blkio.throttle.io_serviced_recursive" } },
    { { "pids.current", NULL }, H_PIDS, { "pids.current", NULL } },
    { { "pids.max", NULL }, H_PIDS, { "pids.max", NULL } },
    { { "cpu.pressure", NULL }, -1, { NULL, NULL } },
    { { "memory.pressure", NULL }, -1, { NULL, NULL } },
    { { "io.pressure", NULL }, -1, { NULL, NULL } },
};
#define NCHAIN (sizeof chains / sizeof chains[0])

static char (*paths)[PATH_MAX];
static int npaths, pcap;
static rfile *cgf;           /* the files every group reads, kept open */
static int ncgf, cgcap;

static void add_path(const char *p)
{
    for (int i = 0; i < npaths; i++)
        if (strcmp(paths[i], p) == 0)
            return;
    if (npaths == pcap) {
        pcap = pcap ? pcap * 2 : 64;
        paths = realloc(paths, (size_t)pcap * sizeof *paths);
        if (!paths)
            die("realloc", "");
    }
    snprintf(paths[npaths++], PATH_MAX, "%s", p);
}

static int walked;
static void walk(int dfd, char *path, size_t plen, int depth, int setup)
{
    struct stat st;
    struct dirent *de;
    DIR *d;
    if (fstat(dfd, &st) != 0) {
        close(dfd);
        return;
    }
    sink += (uint64_t)st.st_ino;
    walked++;
    if (setup)
        add_path(plen ? path : "/");
    if (depth >= 8 || !(d = fdopendir(dfd))) {
        close(dfd);
        return;
    }
    while (walked < 4096 && (de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        size_t nl = strlen(n);
        int cfd;
        if (n[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
            continue;
        if (plen + 1 + nl >= PATH_MAX)
            continue;
        cfd = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (cfd < 0)
            continue;
        path[plen] = '/';
        memcpy(path + plen + 1, n, nl + 1);
        walk(cfd, path, plen + 1 + nl, depth + 1, setup);
        path[plen] = '\0';
    }
    closedir(d);
}

static void cg_walk(int setup)
{
    char path[PATH_MAX];
    for (int h = 0; h < NH; h++) {
        int fd;
        if (!hbase[h][0] || (fd = open(hbase[h], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            continue;
        walked = 0;
        path[0] = '\0';
        walk(fd, path, 0, 0, setup);
    }
}

static int try_open(int h, const char *group, const char *name)
{
    char p[PATH_MAX + 256];
    if (!hbase[h][0])
        return 0;
    if (ncgf == cgcap) {
        cgcap = cgcap ? cgcap * 2 : 64;
        cgf = realloc(cgf, (size_t)cgcap * sizeof *cgf);
        if (!cgf)
            die("realloc", "");
    }
    snprintf(p, sizeof p, "%s%s/%s", hbase[h], strcmp(group, "/") ? group : "", name);
    if (access(p, R_OK) != 0)
        return 0;            /* not there: the next file of the chain */
    if (ncgf >= 1024)
        return 1;            /* the provider's kept-open budget: not kept */
    rf_open(&cgf[ncgf], p, 0);
    if (cgf[ncgf].fd < 0) {
        free(cgf[ncgf].buf);
        return 0;
    }
    ncgf++;
    return 1;
}

static void cg_open(void)
{
    struct statfs sf;
    int hybrid = statfs("/sys/fs/cgroup/unified", &sf) == 0 && sf.f_type == 0x63677270;
    if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == 0x63677270) {
        strcpy(hbase[H_V2], "/sys/fs/cgroup");
    } else {
        static const char *const v1[NH] = { NULL, "cpuacct", "memory", "blkio", "pids" };
        if (hybrid)
            strcpy(hbase[H_V2], "/sys/fs/cgroup/unified");
        for (int h = H_CPUACCT; h < NH; h++)
            snprintf(hbase[h], sizeof hbase[h], "/sys/fs/cgroup/%s", v1[h]);
    }
    cg_walk(1);
    for (int g = 0; g < npaths; g++)
        for (size_t c = 0; c < NCHAIN; c++) {
            if (try_open(H_V2, paths[g], chains[c].v2[0]))
                continue;
            if (chains[c].h1 < 0)
                continue;
            for (int k = 0; k < 2 && chains[c].v1[k]; k++)
                try_open(chains[c].h1, paths[g], chains[c].v1[k]);
        }
}

static void cg_collect(void)
{
    cg_walk(0);
    for (int i = 0; i < ncgf; i++)
        all_numbers(&cgf[i]);
}

/* ---- sets and main ------------------------------------------------------------------------ */

enum { SOFTIRQ, INTERRUPTS, NFS, CGROUP, NSETS };
static const char *const set_names[NSETS] = { "softirq", "interrupts", "nfs", "cgroup" };

static void collect_set(int set)
{
    switch (set) {
    case SOFTIRQ: cpu_table(&soft); break;
    case INTERRUPTS: cpu_table(&intr); break;
    case NFS: nfs_collect(); break;
    default: cg_collect(); break;
    }
}

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = NSETS };

    if (!floor_args(&b, argc, argv))
        for (int k = 0; k < NSETS; k++)
            b.want[k] = 1;
    rf_open(&soft, "/proc/softirqs", 1);
    rf_open(&intr, "/proc/interrupts", 1);
    rf_open(&mstats, "/proc/self/mountstats", 1);
    cg_open();
    printf("# floor_kernel: %d cgroup(s), %d cgroup file(s) kept open, %d round(s) of %.2f s per set\n",
           npaths, ncgf, b.rounds, b.secs);
    floor_run(&b);
    rf_close(&soft);
    rf_close(&intr);
    rf_close(&mstats);
    for (int i = 0; i < ncgf; i++)
        rf_close(&cgf[i]);
    free(cgf);
    free(paths);
    return 0;
}
