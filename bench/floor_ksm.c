/* The C floor of KSM: the eight attributes of /sys/kernel/mm/ksm the set
 * shows, kept open, one pread each (sysfs: whole per read), each decimal
 * parsed and the page counts made bytes: what the provider does for
 * `\KSM\*`, with nothing else.  Prints "floor KSM <ns> ..." for
 * bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>

#define FLOOR_NAME "floor_ksm"
#define FLOOR_USAGE "[KSM]"
#include "floor_common.h"

#define NK 8
static const char *const files[NK] = {
    "pages_sharing", "pages_shared", "pages_unshared", "pages_volatile", "ksm_zero_pages",
    "full_scans", "pages_scanned", "run",
};
static rfile f[NK];
static uint64_t page;

static void collect_set(int set)
{
    (void)set;
    for (int k = 0; k < NK; k++) {
        const char *p;
        uint64_t v;
        if (f[k].fd < 0)
            continue;
        p = rf_read(&f[k]);
        if (num(&p, &v)) {
            v = k < 5 ? v * page : v;
            floor_keep(v);
            sink += v;
        }
    }
}

static const char *const set_names[] = { "KSM" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    int n = 0;
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (int k = 0; k < NK; k++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/kernel/mm/ksm/%s", files[k]);
        n += rf_open(&f[k], path, 0);
    }
    if (n == 0) {
        printf("# floor_ksm: no /sys/kernel/mm/ksm\n");
        return 0;
    }
    printf("# floor_ksm: %d files, %d round(s) of %.2f s\n", n, b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
