/* The C floor of VFS: file-nr, inode-nr, dentry-state, aio-nr and
 * aio-max-nr of /proc/sys/fs kept open and read whole, their numbers
 * parsed; /proc/locks kept open and read until 0 (a seq_file), each line's
 * class and type counted and the "->" lines counted as blocked: what the
 * provider does for `\VFS\*`, with nothing else.  Prints "floor VFS <ns>
 * ..." for bench/collect.lua. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FLOOR_NAME "floor_vfs"
#define FLOOR_USAGE "[VFS]"
#include "floor_common.h"

#define NS 5
static const char *const sys[NS] = { "file-nr", "inode-nr", "dentry-state", "aio-nr",
                                     "aio-max-nr" };
static rfile s[NS], locks;

static void count_locks(void)
{
    const char *p = rf_read(&locks);
    uint64_t held = 0, blocked = 0, cls[5][3] = { { 0 } };
    for (; p && *p; p = next_line(p)) {
        const char *t;
        while (*p && *p != ' ')                      /* "N:" */
            p++;
        while (*p == ' ')
            p++;
        if (p[0] == '-' && p[1] == '>') {
            blocked++;
            continue;
        }
        held++;
        int c = p[0] == 'P' ? 0 : p[0] == 'F' ? 1 : p[0] == 'O' ? 2 : p[0] == 'L' ? 3 : 4;
        cls[c][0]++;
        t = p;
        for (int k = 0; k < 2; k++) {                /* past the class and the mode */
            while (*t && *t != ' ')
                t++;
            while (*t == ' ')
                t++;
        }
        cls[c][1] += t[0] == 'R';
        cls[c][2] += t[0] == 'W';
    }
    floor_keep(held);
    floor_keep(blocked);
    for (int k = 0; k < 5; k++)
        for (int j = 0; j < 3; j++)
            floor_keep(cls[k][j]);
}

static void collect_set(int set)
{
    (void)set;
    for (int k = 0; k < NS; k++) {
        const char *p;
        uint64_t v;
        if (s[k].fd < 0)
            continue;
        p = rf_read(&s[k]);
        while (num(&p, &v))
            floor_keep(v);
    }
    if (locks.fd >= 0)
        count_locks();
}

static const char *const set_names[] = { "VFS" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    for (int k = 0; k < NS; k++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/sys/fs/%s", sys[k]);
        rf_open(&s[k], path, 0);
    }
    rf_open(&locks, "/proc/locks", 0);
    printf("# floor_vfs: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
