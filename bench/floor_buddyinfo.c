/* The C floor of Buddy Allocator: /proc/buddyinfo kept open, pread
 * from 0 until 0 (a seq_file), each zone line's decimal blocks parsed, its
 * free bytes and largest block worked out and a _Total summed: what the
 * provider does for `\Buddy Allocator(*)\*`, with nothing else.
 * Prints "floor Buddy Allocator <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>

#define FLOOR_NAME "floor_buddyinfo"
#define FLOOR_USAGE "[\"Buddy Allocator\"]"
#include "floor_common.h"

#define NORD 16

static rfile f;
static uint64_t page;

static void collect_set(int set)
{
    const char *p = rf_read(&f);
    uint64_t tot[NORD] = { 0 };
    (void)set;
    for (; p && *p; p = next_line(p)) {
        uint64_t v, bytes = 0, largest = 0;
        int k = 0;
        const char *q = strstr(p, "zone");
        if (!q)
            continue;
        q += 4;
        while (*q == ' ')
            q++;
        while (*q && *q != ' ' && *q != '\n')
            q++;             /* the zone's name */
        while (k < NORD && num(&q, &v)) {
            floor_keep(v);
            tot[k] += v;
            bytes += v << k;
            if (v)
                largest = (uint64_t)1 << k;
            k++;
        }
        sink += bytes * page + largest * page;
    }
    for (int k = 0; k < NORD; k++)
        sink += tot[k];
}

static const char *const set_names[] = { "Buddy Allocator" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    page = (uint64_t)sysconf(_SC_PAGESIZE);
    rf_open(&f, "/proc/buddyinfo", 1);
    printf("# floor_buddyinfo: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
