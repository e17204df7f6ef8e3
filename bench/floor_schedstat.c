/* The C floor of Scheduler: /proc/schedstat kept open, pread from 0 until
 * 0 (a seq_file), each "cpuN" line's nine numbers parsed, the two
 * nanosecond times made 100 ns, and a _Total summed; the domain lines are
 * skipped: what the provider does for `\Scheduler(*)\*`, with nothing
 * else.  Without CONFIG_SCHEDSTATS (no file) it prints a comment only.
 * Prints "floor Scheduler <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FLOOR_NAME "floor_schedstat"
#define FLOOR_USAGE "[Scheduler]"
#include "floor_common.h"

#define NF 9
static rfile f;

static void collect_set(int set)
{
    uint64_t total[NF] = { 0 };
    (void)set;
    for (const char *p = rf_read(&f); p && *p; p = next_line(p)) {
        uint64_t v;
        if (strncmp(p, "cpu", 3) != 0)
            continue;
        p += 3;
        if (!num(&p, &v))
            continue;
        for (int k = 0; k < NF && *p == ' '; k++) {
            p++;
            if (!num(&p, &v))
                break;
            if (k == 6 || k == 7)
                v /= 100;    /* rq_cpu_time and run_delay: ns to 100 ns */
            total[k] += v;
            floor_keep(v);
        }
    }
    for (int k = 0; k < NF; k++)
        sink += total[k];
}

static const char *const set_names[] = { "Scheduler" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!rf_open(&f, "/proc/schedstat", 0)) {
        printf("# floor_schedstat: no /proc/schedstat (CONFIG_SCHEDSTATS)\n");
        return 0;
    }
    printf("# floor_schedstat: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
