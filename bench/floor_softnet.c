/* The C floor of Softnet: /proc/net/softnet_stat kept open, pread from 0
 * until 0 (a seq_file), each line's hex fields parsed, the 32-bit counters
 * unwrapped per line into 64-bit sums and a _Total added up: what the
 * provider does for `\Softnet(*)\*`, with nothing else.  Prints
 * "floor Softnet <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>

#define FLOOR_NAME "floor_softnet"
#define FLOOR_USAGE "[Softnet]"
#include "floor_common.h"

#define MAXCPU 4096
#define NF 13                /* the fields a 5.10 line has */
#define NCTR 5               /* the unwrapped ones: processed dropped squeezed rps flow_limit */

static const int ctr_field[NCTR] = { 0, 1, 2, 9, 10 };
static rfile f;
static uint32_t last[MAXCPU][NCTR];
static uint64_t acc[MAXCPU][NCTR];

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void collect_set(int set)
{
    const char *p = rf_read(&f);
    uint64_t total[NCTR + 1] = { 0 };
    (void)set;
    for (int line = 0; *p && line < MAXCPU; line++) {
        uint32_t v[NF] = { 0 };
        int n = 0, d;
        while (*p && *p != '\n') {
            uint32_t x = 0;
            while ((d = hex(*p)) >= 0)
                x = x << 4 | (uint32_t)d, p++;
            if (n < NF)
                v[n] = x;
            n++;
            while (*p == ' ')
                p++;
        }
        if (*p == '\n')
            p++;
        uint32_t cpu = n >= NF ? v[12] % MAXCPU : (uint32_t)line;
        for (int k = 0; k < NCTR; k++) {
            acc[cpu][k] += (uint32_t)(v[ctr_field[k]] - last[cpu][k]);
            last[cpu][k] = v[ctr_field[k]];
            total[k] += acc[cpu][k];
            floor_keep(acc[cpu][k]);
        }
        total[NCTR] += v[11];
        floor_keep(v[11]);
    }
    for (int k = 0; k <= NCTR; k++)
        sink += total[k];
}

static const char *const set_names[] = { "Softnet" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!rf_open(&f, "/proc/net/softnet_stat", 0)) {
        printf("# floor_softnet: no /proc/net/softnet_stat\n");
        return 0;
    }
    printf("# floor_softnet: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
