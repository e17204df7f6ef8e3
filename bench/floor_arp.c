/* The C floor of ARP Cache: /proc/net/arp kept open, pread from 0 until 0
 * (a seq_file), the header skipped, each line's Flags (third column) and
 * Device (sixth) taken, entries counted per device by flags and a _Total
 * added up: what the provider does for `\ARP Cache(*)\*`, with nothing
 * else.  Prints "floor ARP Cache <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FLOOR_NAME "floor_arp"
#define FLOOR_USAGE "[ARP Cache]"
#include "floor_common.h"

#define MAXDEV 64

static rfile f;
static char dev[MAXDEV][16];
static uint64_t cnt[MAXDEV][4];
static int ndev;

static int slot(const char *s, size_t n)
{
    for (int i = 0; i < ndev; i++)
        if (strlen(dev[i]) == n && !memcmp(dev[i], s, n))
            return i;
    if (ndev == MAXDEV || n >= sizeof dev[0])
        return -1;
    memcpy(dev[ndev], s, n);
    dev[ndev][n] = 0;
    return ndev++;
}

static void collect_set(int set)
{
    const char *p = strchr(rf_read(&f), '\n');
    uint64_t total[4] = { 0 };
    (void)set;
    memset(cnt, 0, sizeof cnt);
    while (p && *++p) {
        const char *tok[6];
        size_t len[6];
        int n = 0;
        while (*p && *p != '\n') {
            const char *s = p;
            while (*p && *p != ' ' && *p != '\n')
                p++;
            if (n < 6)
                tok[n] = s, len[n] = (size_t)(p - s);
            n++;
            while (*p == ' ')
                p++;
        }
        if (n >= 6) {
            unsigned fl = (unsigned)strtoul(tok[2], NULL, 16);
            int d = slot(tok[5], len[5]);
            uint64_t c[4] = { 1, (fl & 2) != 0, (fl & 4) != 0, (fl & 2) == 0 };
            for (int k = 0; k < 4; k++) {
                if (d >= 0)
                    cnt[d][k] += c[k];
                total[k] += c[k];
            }
        }
        if (!*p)
            break;
    }
    for (int i = 0; i < ndev; i++)
        floor_keep(cnt[i][0]);
    for (int k = 0; k < 4; k++)
        sink += total[k];
}

static const char *const set_names[] = { "ARP Cache" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!rf_open(&f, "/proc/net/arp", 0)) {
        printf("# floor_arp: no /proc/net/arp\n");
        return 0;
    }
    printf("# floor_arp: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
