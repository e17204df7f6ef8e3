/* The C floor of ZRAM: /sys/block listed (rewinddir and readdir of a kept
 * directory: zram-control's hot_add and hot_remove change the devices at any
 * time, and nothing cheaper tells), then each zramN's disksize, mm_stat,
 * io_stat and bd_stat kept open and read with one pread each, their decimals
 * parsed: what the provider does for `\ZRAM(*)\*`, with nothing else.
 * Prints "floor ZRAM <ns> ..." for bench/collect.lua. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_NAME "floor_zram"
#define FLOOR_USAGE "[ZRAM]"
#include "floor_common.h"

#define MAXDEV 16
#define NFILE 4

static const char *const files[NFILE] = { "disksize", "mm_stat", "io_stat", "bd_stat" };
static rfile f[MAXDEV][NFILE];
static int have[MAXDEV][NFILE];
static int ndev;
static DIR *blocks;

static void collect_set(int set)
{
    struct dirent *de;
    uint64_t listed = 0;
    (void)set;
    rewinddir(blocks);
    while ((de = readdir(blocks)) != NULL)
        listed += strncmp(de->d_name, "zram", 4) == 0;
    floor_keep(listed);
    for (int d = 0; d < ndev; d++)
        for (int k = 0; k < NFILE; k++) {
            const char *p;
            char *e;
            if (!have[d][k])
                continue;
            p = rf_read(&f[d][k]);
            for (;;) {
                uint64_t v = strtoull(p, &e, 10);
                if (e == p)
                    break;
                floor_keep(v);
                p = e;
            }
        }
}

static const char *const set_names[] = { "ZRAM" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    char path[64];
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    for (int d = 0; d < MAXDEV; d++) {
        int any = 0;
        for (int k = 0; k < NFILE; k++) {
            snprintf(path, sizeof path, "/sys/block/zram%d/%s", d, files[k]);
            any |= have[ndev][k] = rf_open(&f[ndev][k], path, 0);
        }
        ndev += any;
    }
    if (!ndev || !(blocks = opendir("/sys/block"))) {
        printf("# floor_zram: no /sys/block/zram*\n");
        return 0;
    }
    printf("# floor_zram: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
