/* The C floor of UDP Queues: /proc/net/udp and udp6 kept open, pread from 0
 * until 0 (seq_files), the header skipped, each socket line's tx:rx queue
 * pair (hex) and drops (decimal, the last field) parsed and summed, the
 * largest receive queue kept, a _Total made: what the provider does for
 * `\UDP Queues(*)\*`, with nothing else.  The set is costly: make bench
 * measures it with 1,000 extra UDP sockets open (bench/udp_hold.py around
 * bench/collect.lua).  Prints "floor UDP Queues <ns> ..." for
 * bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>

#define FLOOR_NAME "floor_udpq"
#define FLOOR_USAGE "[\"UDP Queues\"]"
#define FLOOR_BATCH 4
#include "floor_common.h"

static rfile f[2];

static int hx(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void collect_set(int set)
{
    uint64_t tot[4] = { 0, 0, 0, 0 };
    (void)set;
    for (int k = 0; k < 2; k++) {
        const char *p;
        uint64_t v[4] = { 0, 0, 0, 0 };
        if (f[k].fd < 0)
            continue;
        p = next_line(rf_read(&f[k]));       /* past the header */
        for (; p && *p; p = next_line(p)) {
            const char *q = p;
            uint64_t tx = 0, rx = 0, d = 0;
            for (int t = 0; t < 4; t++) {    /* sl: local rem st */
                while (*q == ' ')
                    q++;
                while (*q && *q != ' ' && *q != '\n')
                    q++;
            }
            while (*q == ' ')
                q++;
            for (int i = 0; i < 8; i++)
                tx = tx * 16 + (uint64_t)hx(q[i]);
            for (int i = 9; i < 17; i++)
                rx = rx * 16 + (uint64_t)hx(q[i]);
            for (int t = 0; t < 8; t++) {    /* to the last field, drops */
                while (*q == ' ')
                    q++;
                while (*q && *q != ' ' && *q != '\n')
                    q++;
            }
            num(&q, &d);
            v[0] += rx;
            v[1] += tx;
            v[2] = rx > v[2] ? rx : v[2];
            v[3] += d;
        }
        for (int i = 0; i < 4; i++) {
            floor_keep(v[i]);
            tot[i] = i == 2 ? (v[i] > tot[i] ? v[i] : tot[i]) : tot[i] + v[i];
        }
    }
    for (int i = 0; i < 4; i++)
        sink += tot[i];
}

static const char *const set_names[] = { "UDP Queues" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    int n;
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    n = rf_open(&f[0], "/proc/net/udp", 0) + rf_open(&f[1], "/proc/net/udp6", 0);
    if (n == 0) {
        printf("# floor_udpq: no /proc/net/udp\n");
        return 0;
    }
    printf("# floor_udpq: %d tables, %d round(s) of %.2f s\n", n, b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
