/* The C floor of Conntrack: the two sysctls (one read each: whole files) and
 * /proc/net/stat/nf_conntrack (read until 0), kept open; the table's header
 * skipped, each CPU line's hex cells unwrapped into 64-bit sums: what the
 * provider does for `\Conntrack\*`, with nothing else.  Prints
 * "floor Conntrack <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>

#define FLOOR_NAME "floor_conntrack"
#define FLOOR_USAGE "[Conntrack]"
#include "floor_common.h"

#define MAXLINE 4096
#define NCELL 17

static rfile count, max, stat;
static uint32_t last[MAXLINE][NCELL];
static uint64_t acc[MAXLINE][NCELL];

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void collect_set(int set)
{
    const char *p;
    uint64_t v, sum[NCELL] = { 0 };
    (void)set;
    p = rf_read(&count);
    if (num(&p, &v))
        floor_keep(v), sink += v;
    p = rf_read(&max);
    if (num(&p, &v))
        floor_keep(v), sink += v;
    p = next_line(rf_read(&stat));           /* the header */
    for (int line = 0; p && *p && line < MAXLINE; line++) {
        int n = 0, d;
        while (*p && *p != '\n') {
            uint32_t x = 0;
            while ((d = hex(*p)) >= 0)
                x = x << 4 | (uint32_t)d, p++;
            if (n < NCELL) {
                acc[line][n] += (uint32_t)(x - last[line][n]);
                last[line][n] = x;
                sum[n] += acc[line][n];
            }
            n++;
            while (*p == ' ')
                p++;
        }
        if (*p == '\n')
            p++;
    }
    for (int k = 1; k < NCELL; k++)
        floor_keep(sum[k]), sink += sum[k];
}

static const char *const set_names[] = { "Conntrack" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!rf_open(&count, "/proc/sys/net/netfilter/nf_conntrack_count", 0) ||
        !rf_open(&max, "/proc/sys/net/netfilter/nf_conntrack_max", 0) ||
        !rf_open(&stat, "/proc/net/stat/nf_conntrack", 0)) {
        printf("# floor_conntrack: no nf_conntrack module\n");
        return 0;
    }
    printf("# floor_conntrack: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
