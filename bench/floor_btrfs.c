/* The C floor of Btrfs: /sys/fs/btrfs listed (rewinddir and readdir of a
 * kept directory: filesystems come and go with mounts, and nothing cheaper
 * tells), each filesystem's label, its allocation/{data,metadata,system}
 * number files and global_rsv_*, devices/ and devinfo/ listed the same way
 * with each device's size, missing and error_stats, and commit_stats, all
 * kept open and read with one pread each, their decimals parsed: what the
 * provider does for `\Btrfs(*)\*`, with nothing else.  The device files are
 * opened once (the devices of a mounted filesystem rarely change).
 * Btrfs Device: the same listing and labels, devinfo/ listed, and each
 * device's error_stats, missing, writeable, replace_target and
 * scrub_speed_max.  Prints "floor Btrfs <ns> ..." and "floor Btrfs Device
 * <ns> ..." for bench/collect.lua. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_NAME "floor_btrfs"
#define FLOOR_USAGE "[Btrfs|Btrfs Device]"
#include "floor_common.h"

#define MAXFS 8
#define MAXDEV 8
#define NNUM 26                  /* 3 types x 8 files, global_rsv_size, _reserved */

typedef struct fsf {
    rfile label, num[NNUM], commits, size[MAXDEV], missing[MAXDEV], errs[MAXDEV];
    rfile writeable[MAXDEV], replace[MAXDEV], scrub[MAXDEV];
    int nsize, ninfo;
    DIR *devs, *info;
} fsf;

static fsf fs[MAXFS];
static int nfs;
static DIR *top;

/* Every decimal of p (the values of "name value" lines too). */
static void keep_numbers(const char *p)
{
    while (*p) {
        char *e;
        if (*p >= '0' && *p <= '9') {
            floor_keep(strtoull(p, &e, 10));
            p = e;
        } else {
            p++;
        }
    }
}

static uint64_t count_entries(DIR *d)
{
    struct dirent *de;
    uint64_t n = 0;
    rewinddir(d);
    while ((de = readdir(d)) != NULL)
        n += de->d_name[0] != '.';
    return n;
}

/* Btrfs Device: the listing and labels, then each devinfo entry's files. */
static void collect_devices(void)
{
    floor_keep(count_entries(top));
    for (int i = 0; i < nfs; i++) {
        fsf *f = &fs[i];
        floor_keep((uint64_t)rf_read(&f->label)[0]);
        floor_keep(count_entries(f->info));
        for (int d = 0; d < f->ninfo; d++) {
            keep_numbers(rf_read(&f->errs[d]));
            floor_keep(strtoull(rf_read(&f->missing[d]), NULL, 10));
            floor_keep(strtoull(rf_read(&f->writeable[d]), NULL, 10));
            floor_keep(strtoull(rf_read(&f->replace[d]), NULL, 10));
            floor_keep(strtoull(rf_read(&f->scrub[d]), NULL, 10));
        }
    }
}

static void collect_set(int set)
{
    if (set == 1) {
        collect_devices();
        return;
    }
    floor_keep(count_entries(top));
    for (int i = 0; i < nfs; i++) {
        fsf *f = &fs[i];
        floor_keep((uint64_t)rf_read(&f->label)[0]);
        for (int k = 0; k < NNUM; k++)
            floor_keep(strtoull(rf_read(&f->num[k]), NULL, 10));
        floor_keep(count_entries(f->devs));
        for (int d = 0; d < f->nsize; d++)
            floor_keep(strtoull(rf_read(&f->size[d]), NULL, 10) * 512);
        floor_keep(count_entries(f->info));
        for (int d = 0; d < f->ninfo; d++) {
            floor_keep(strtoull(rf_read(&f->missing[d]), NULL, 10));
            keep_numbers(rf_read(&f->errs[d]));
        }
        keep_numbers(rf_read(&f->commits));
    }
}

/* Opens dir/<entry>/file for each entry of d into r; their count. */
static int open_each(DIR *d, const char *dir, const char *file, rfile *r)
{
    struct dirent *de;
    char path[512];
    int n = 0;
    while ((de = readdir(d)) != NULL && n < MAXDEV) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", dir, de->d_name, file);
        n += rf_open(&r[n], path, 1);
    }
    return n;
}

static void open_fs(const char *fsid)
{
    static const char *const types[3] = { "data", "metadata", "system" };
    static const char *const files[8] = { "total_bytes", "bytes_used", "disk_total",
                                          "disk_used", "bytes_may_use", "bytes_pinned",
                                          "bytes_readonly", "bytes_reserved" };
    fsf *f = &fs[nfs++];
    char dir[128], path[512];
    snprintf(dir, sizeof dir, "/sys/fs/btrfs/%s", fsid);
    snprintf(path, sizeof path, "%s/label", dir);
    rf_open(&f->label, path, 1);
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 8; k++) {
            snprintf(path, sizeof path, "%s/allocation/%s/%s", dir, types[t], files[k]);
            rf_open(&f->num[t * 8 + k], path, 1);
        }
    snprintf(path, sizeof path, "%s/allocation/global_rsv_size", dir);
    rf_open(&f->num[24], path, 1);
    snprintf(path, sizeof path, "%s/allocation/global_rsv_reserved", dir);
    rf_open(&f->num[25], path, 1);
    snprintf(path, sizeof path, "%s/commit_stats", dir);
    rf_open(&f->commits, path, 1);
    snprintf(path, sizeof path, "%s/devices", dir);
    if (!(f->devs = opendir(path)))
        die("opendir", path);
    f->nsize = open_each(f->devs, path, "size", f->size);
    snprintf(path, sizeof path, "%s/devinfo", dir);
    if (!(f->info = opendir(path)))
        die("opendir", path);
    f->ninfo = open_each(f->info, path, "missing", f->missing);
    rewinddir(f->info);
    open_each(f->info, path, "error_stats", f->errs);
    rewinddir(f->info);
    open_each(f->info, path, "writeable", f->writeable);
    rewinddir(f->info);
    open_each(f->info, path, "replace_target", f->replace);
    rewinddir(f->info);
    open_each(f->info, path, "scrub_speed_max", f->scrub);
}

static const char *const set_names[] = { "Btrfs", "Btrfs Device" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 2 };
    struct dirent *de;
    if (!floor_args(&b, argc, argv))
        b.want[0] = b.want[1] = 1;
    if ((top = opendir("/sys/fs/btrfs")) != NULL)
        while ((de = readdir(top)) != NULL && nfs < MAXFS)
            if (strlen(de->d_name) == 36 && strchr(de->d_name, '-'))
                open_fs(de->d_name);
    if (!nfs) {
        printf("# floor_btrfs: no btrfs mounted\n");
        return 0;
    }
    printf("# floor_btrfs: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
