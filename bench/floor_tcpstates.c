/* The C floor of TCP States: /proc/net/tcp and tcp6 kept open, pread from
 * 0 until 0 (seq_files), each line's state and tx:rx queues parsed (hex)
 * and counted per state, with the queue sums and the listeners' accept
 * backlog, per family and a total: what the provider does for
 * `\TCP States(*)\*`, with nothing else.  Prints "floor TCP States <ns> ..."
 * for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FLOOR_NAME "floor_tcpstates"
#define FLOOR_USAGE "[TCP States]"
#include "floor_common.h"

static rfile f[2];

static int hexv(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static uint64_t hex8(const char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v * 16 + (uint64_t)hexv(p[i]);
    return v;
}

static void collect_set(int set)
{
    uint64_t total[16] = { 0 };
    (void)set;
    for (int t = 0; t < 2; t++) {
        uint64_t n[16] = { 0 };
        const char *p = f[t].fd >= 0 ? rf_read(&f[t]) : NULL;
        for (p = p ? next_line(p) : NULL; p && *p; p = next_line(p)) {
            const char *q = p;
            for (int field = 0; field < 4; field++) {     /* sl: local rem st */
                while (*q == ' ')
                    q++;
                if (field < 3)
                    while (*q && *q != ' ' && *q != '\n')
                        q++;
            }
            unsigned st = (unsigned)(hexv(q[0]) * 16 + hexv(q[1]));
            uint64_t tx = hex8(q + 3), rx = hex8(q + 12);
            n[0]++;
            n[st < 12 ? st : 12]++;
            if (st == 10)
                n[15] += rx;
            else
                n[13] += rx, n[14] += tx;
        }
        for (int k = 0; k < 16; k++) {
            floor_keep(n[k]);
            total[k] += n[k];
        }
    }
    for (int k = 0; k < 16; k++) {
        floor_keep(total[k]);
        sink += total[k];
    }
}

static const char *const set_names[] = { "TCP States" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!rf_open(&f[0], "/proc/net/tcp", 0) + !rf_open(&f[1], "/proc/net/tcp6", 0) == 2) {
        printf("# floor_tcpstates: no /proc/net/tcp\n");
        return 0;
    }
    printf("# floor_tcpstates: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
