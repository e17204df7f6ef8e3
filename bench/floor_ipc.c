/* The C floor of IPC: /proc/sysvipc/shm, msg and sem kept open and read
 * until 0 (seq_files), the header skipped and each line's summed columns
 * taken at their places in today's layout (shm: size 4th, nattch 7th, rss
 * 15th, swap 16th; msg: cbytes 4th, qnum 5th; sem: nsems 4th), and the
 * seven limit sysctls of /proc/sys/kernel read whole and parsed, shmall
 * made bytes: what the provider does for `\IPC\*`, with nothing else.
 * Prints "floor IPC <ns> ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FLOOR_NAME "floor_ipc"
#define FLOOR_USAGE "[IPC]"
#include "floor_common.h"

enum { F_SHM, F_MSG, F_SEM, NT };
#define NL 7
static const char *const tabs[NT] = { "/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem" };
static const char *const lims[NL] = { "shmmax", "shmall", "shmmni", "msgmax", "msgmnb", "msgmni",
                                      "sem" };
/* per table, the 1-based columns summed (0: none) */
static const int cols[NT][4] = { { 4, 7, 15, 16 }, { 4, 5, 0, 0 }, { 4, 0, 0, 0 } };
static rfile t[NT], l[NL];
static uint64_t page;

static void table(int k)
{
    const char *p = next_line(rf_read(&t[k]));
    uint64_t sum[4] = { 0 }, n = 0;
    while (p && *p) {
        int col = 1, c = 0;
        while (*p && *p != '\n') {
            uint64_t v;
            if (c < 4 && col == cols[k][c] && num(&p, &v)) {
                sum[c] += k == F_SHM && c == 1 ? v == 0 : v;   /* nattch: unattached */
                c++;
            } else {
                while (*p == ' ')
                    p++;
                while (*p && *p != ' ' && *p != '\n')
                    p++;
            }
            while (*p == ' ')
                p++;
            col++;
        }
        n++;
        p = *p ? p + 1 : NULL;
    }
    floor_keep(n);
    for (int c = 0; c < 4; c++)
        floor_keep(sum[c]);
}

static void collect_set(int set)
{
    (void)set;
    for (int k = 0; k < NT; k++)
        if (t[k].fd >= 0)
            table(k);
    for (int k = 0; k < NL; k++) {
        const char *p;
        uint64_t v;
        if (l[k].fd < 0)
            continue;
        p = rf_read(&l[k]);
        while (num(&p, &v))
            floor_keep(k == 1 ? v * page : v);
    }
}

static const char *const set_names[] = { "IPC" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    int n = 0;
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (int k = 0; k < NT; k++)
        n += rf_open(&t[k], tabs[k], 0);
    for (int k = 0; k < NL; k++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/sys/kernel/%s", lims[k]);
        rf_open(&l[k], path, 0);
    }
    if (n == 0) {
        printf("# floor_ipc: no /proc/sysvipc\n");
        return 0;
    }
    printf("# floor_ipc: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
