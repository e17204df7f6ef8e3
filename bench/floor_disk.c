/* The C floor of the disk family's collects: the files PhysicalDisk,
 * LogicalDisk and Paging File read for a full `\Set(*)\*` query, kept open,
 * pread at offset 0 until EOF (as pl_file_read), parsed with the least work
 * that yields the values the providers use.  No perflib code.
 *
 *   floor_disk [-t SECONDS] [-r ROUNDS] [set ...]
 *
 * Sets: PhysicalDisk, LogicalDisk, "Paging File", "Disk Partition" (default: all), and
 * PhysicalDisk_fmt (only when named): PhysicalDisk with every value
 * formatted (floor_format in floor_common.h).  Output as
 * bench/floor.c:  floor <set> <ns per collect> <iterations> <min ns> <max ns>
 *
 * PhysicalDisk and Disk Partition: /proc/diskstats (which lines are disks,
 * volumes or partitions is decided once, with fstatat below /sys/block, as
 * the provider caches it).
 * LogicalDisk: /proc/self/mountinfo, statvfs of each real local mount,
 * /proc/diskstats.  Paging File: /proc/swaps. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define FLOOR_NAME "floor_disk"
#define FLOOR_USAGE "[PhysicalDisk|LogicalDisk|'Paging File'|'Disk Partition'|PhysicalDisk_fmt ...]"
#include "floor_common.h"    /* die, rfile (rf_open, rf_read, rf_close), next_line, num, timing */

/* ---- /proc/diskstats ------------------------------------------------------------ */

#define MAXDEV 4096
static char dev_name[MAXDEV][40];
static int dev_phys[MAXDEV], ndev;
static int blockfd = -1;

static int there(const char *a, size_t n, const char *b, size_t m, const char *suffix)
{
    char rel[160];
    struct stat st;
    size_t k = strlen(suffix);
    if (n + m + k + 2 > sizeof rel)
        return 0;
    memcpy(rel, a, n);
    if (b) {
        rel[n] = '/';
        memcpy(rel + n + 1, b, m);
        n += m + 1;
    }
    memcpy(rel + n, suffix, k + 1);
    return fstatat(blockfd, rel, &st, 0) == 0;
}

enum { K_DISK = 1, K_PART = 2 };

/* The providers' rules, decided once per device name: PhysicalDisk lists
 * whole disks (a device link) and dm/md volumes, Disk Partition the
 * <disk>/<name>/partition entries; loop, ram and zram neither. */
static int kind(const char *name, size_t n)
{
    int k = 0;
    for (int i = 0; i < ndev; i++)
        if (strlen(dev_name[i]) == n && memcmp(dev_name[i], name, n) == 0)
            return dev_phys[i];
    if (n >= 40 || ndev == MAXDEV)
        return 0;
    if (strncmp(name, "loop", 4) != 0 && strncmp(name, "ram", 3) != 0 && strncmp(name, "zram", 4) != 0) {
        if (there(name, n, NULL, 0, "/device") ||
            (strncmp(name, "dm-", 3) == 0 && there(name, n, NULL, 0, "/dm")) ||
            (strncmp(name, "md", 2) == 0 && there(name, n, NULL, 0, "/md")))
            k = K_DISK;
        for (size_t j = n - 1; j > 0 && !k; j--)
            if (there(name, j, name, n, "/partition"))
                k = K_PART;
    }
    memcpy(dev_name[ndev], name, n);
    dev_name[ndev][n] = '\0';
    dev_phys[ndev++] = k;
    return k;
}

/* Every line's numbers; only: the lines of that kind (0: all). */
static void diskstats(rfile *f, int only)
{
    for (const char *p = rf_read(f); p && *p; p = next_line(p)) {
        uint64_t maj, min, v;
        const char *q = p, *name;
        if (!num(&q, &maj) || !num(&q, &min))
            continue;
        while (*q == ' ')
            q++;
        name = q;
        while (*q && *q != ' ' && *q != '\n')
            q++;
        if (only && kind(name, (size_t)(q - name)) != only)
            continue;
        sink += maj << 20 | min;
        while (num(&q, &v))
            floor_keep(v);
    }
}

/* ---- sets ----------------------------------------------------------------------- */

static rfile pd_stats, ld_stats, ld_mounts, pf_swaps, dp_stats;

static void pd_collect(void)
{
    diskstats(&pd_stats, K_DISK);
}

static void dp_collect(void)
{
    diskstats(&dp_stats, K_PART);
}

static const char *const pseudo[] = {
    "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts",
    "devtmpfs", "fusectl", "hugetlbfs", "iso9660", "mqueue", "nsfs", "overlay", "proc",
    "procfs", "pstore", "rpc_pipefs", "securityfs", "selinuxfs", "squashfs", "erofs",
    "sysfs", "tracefs", "nfs", "nfs4", "cifs", "smb3", "fuse.sshfs", "ceph", "glusterfs", NULL
};

static void ld_collect(void)
{
    char path[4096];
    for (const char *p = rf_read(&ld_mounts); p && *p; p = next_line(p)) {
        const char *q = p, *mp, *t;
        uint64_t id, parent, maj, min;
        size_t n = 0, tn;
        int skip = 0;
        if (!num(&q, &id) || !num(&q, &parent) || !num(&q, &maj) || *q++ != ':' || !num(&q, &min))
            continue;
        q = strchr(q + 1, ' ');              /* root */
        if (!q)
            continue;
        mp = q + 1;
        for (q = mp; *q && *q != ' ' && n + 1 < sizeof path; q++) {
            if (q[0] == '\\' && q[1] >= '0' && q[1] <= '3') {
                path[n++] = (char)((q[1] - '0') * 64 + (q[2] - '0') * 8 + (q[3] - '0'));
                q += 3;
            } else {
                path[n++] = *q;
            }
        }
        path[n] = '\0';
        t = strstr(q, " - ");
        if (!t)
            continue;
        t += 3;
        tn = strcspn(t, " \n");
        for (int k = 0; pseudo[k]; k++)
            if (strlen(pseudo[k]) == tn && memcmp(pseudo[k], t, tn) == 0)
                skip = 1;
        sink += id + maj + min;
        if (!skip) {                         /* local real filesystems: statvfs */
            struct statvfs v;
            if (statvfs(path, &v) == 0)
                sink += v.f_blocks + v.f_bavail + v.f_bfree + v.f_files + v.f_ffree + v.f_frsize;
        }
    }
    diskstats(&ld_stats, 0);
}

static void pf_collect(void)
{
    for (const char *p = rf_read(&pf_swaps); p && *p; p = next_line(p)) {
        const char *q = p;
        uint64_t v;
        if (*p == 'F')
            continue;
        while (*q && *q != ' ' && *q != '\t')
            q++;
        while (*q == ' ' || *q == '\t')
            q++;
        while (*q && *q != ' ' && *q != '\t')
            q++;
        while (num(&q, &v))
            sink += v;
        while (*q == ' ' || *q == '\t' || *q == '-')
            q++;
        if (num(&q, &v))
            sink += v;
    }
}

/* ---- main ------------------------------------------------------------------------ */

static void pd_fmt_collect(void)
{
    FLOOR_FORMATTED(diskstats(&pd_stats, K_DISK));
}

enum { PD, LD, PF, DP, PD_FMT, NSETS };
static const char *const set_names[NSETS] = { "PhysicalDisk", "LogicalDisk", "Paging File",
                                              "Disk Partition", "PhysicalDisk_fmt" };
static void (*const collect[NSETS])(void) = { pd_collect, ld_collect, pf_collect, dp_collect,
                                              pd_fmt_collect };

static void collect_set(int set)
{
    collect[set]();
}

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = NSETS };

    if (!floor_args(&b, argc, argv))
        for (int k = 0; k < PD_FMT; k++)
            b.want[k] = 1;

    blockfd = open("/sys/block", O_RDONLY | O_CLOEXEC | O_DIRECTORY);
    if (blockfd < 0)
        die("open", "/sys/block");
    rf_open(&pd_stats, "/proc/diskstats", 1);
    rf_open(&ld_stats, "/proc/diskstats", 1);
    rf_open(&dp_stats, "/proc/diskstats", 1);
    rf_open(&ld_mounts, "/proc/self/mountinfo", 1);
    rf_open(&pf_swaps, "/proc/swaps", 0);
    if (pf_swaps.fd < 0)
        b.want[PF] = 0;      /* no swap support: the provider reads nothing either */
    printf("# floor_disk: %d round(s) of %.2f s per set\n", b.rounds, b.secs);
    floor_run(&b);
    rf_close(&pd_stats);
    rf_close(&ld_stats);
    rf_close(&dp_stats);
    rf_close(&ld_mounts);
    rf_close(&pf_swaps);
    close(blockfd);
    return 0;
}
