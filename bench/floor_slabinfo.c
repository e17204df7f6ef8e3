/* The C floor of Slab Caches: /proc/slabinfo (root only) kept open, pread
 * from 0 until 0, the two header lines skipped, each cache's seven numbers
 * parsed and its bytes worked out, a _Total summed: what the provider does
 * for `\Slab Caches(*)\*`, with nothing else.  Prints
 * "floor Slab Caches <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>

#define FLOOR_NAME "floor_slabinfo"
#define FLOOR_USAGE "[\"Slab Caches\"]"
#define FLOOR_BATCH 4
#include "floor_common.h"

static rfile f;
static uint64_t page;

static void collect_set(int set)
{
    const char *p = rf_read(&f);
    uint64_t tot = 0;
    (void)set;
    p = next_line(next_line(p));             /* version, "# name" */
    for (; p && *p; p = next_line(p)) {
        uint64_t v[5], s[3], t;
        const char *q = p;
        int ok = 1;
        while (*q && *q != ' ')
            q++;
        for (int i = 0; i < 5 && ok; i++)
            ok = num(&q, &v[i]);
        q = ok ? strstr(q, "slabdata") : NULL;
        if (!q)
            continue;
        q += 8;
        for (int i = 0; i < 3 && ok; i++)
            ok = num(&q, &s[i]);
        if (!ok)
            continue;
        t = s[1] * v[4] * page;
        floor_keep(t);
        floor_keep(v[0] * v[2]);
        tot += t;
    }
    sink += tot;
}

static const char *const set_names[] = { "Slab Caches" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (!rf_open(&f, "/proc/slabinfo", 0)) {
        printf("# floor_slabinfo: /proc/slabinfo not readable\n");
        return 0;
    }
    printf("# floor_slabinfo: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
