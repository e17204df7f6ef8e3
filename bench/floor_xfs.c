/* The C floor of XFS: /sys/fs/xfs listed (rewinddir and readdir of a kept
 * directory: mounts come and go, and nothing cheaper tells), then each
 * filesystem's stats/stats and the global stats/stats kept open and read
 * with one pread each, the fields of the lines the set takes (by name)
 * parsed: what the provider does for `\XFS(*)\*`, with nothing else.
 * Prints "floor XFS <ns> ..." for bench/collect.lua. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_NAME "floor_xfs"
#define FLOOR_USAGE "[XFS]"
#include "floor_common.h"

#define MAXFS 32

static const char *const lines[] = {
    "extent_alloc", "abt", "blk_map", "bmbt", "dir", "trans", "ig", "log", "push_ail", "xstrat",
    "rw", "attr", "icluster", "vnodes", "buf", "qm", "xpc", "defer_relog",
};
static int fds[MAXFS + 1];
static int nfd;
static DIR *top;
static char buf[8192];

static int known(const char *p, size_t n)
{
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (strlen(lines[i]) == n && memcmp(lines[i], p, n) == 0)
            return 1;
    return 0;
}

static void parse(const char *p)
{
    while (*p) {
        const char *sp = strchr(p, ' '), *nl = strchr(p, '\n');
        char *e;
        if (!nl)
            return;
        if (sp && sp < nl && known(p, (size_t)(sp - p)))
            for (p = sp; p < nl; p = e) {
                uint64_t v = strtoull(p, &e, 10);
                if (e == p)
                    break;
                floor_keep(v);
            }
        p = nl + 1;
    }
}

static void collect_set(int set)
{
    struct dirent *de;
    uint64_t listed = 0;
    (void)set;
    rewinddir(top);
    while ((de = readdir(top)) != NULL)
        listed += de->d_name[0] != '.';
    floor_keep(listed);
    for (int k = 0; k < nfd; k++) {
        ssize_t r = pread(fds[k], buf, sizeof buf - 1, 0);
        if (r < 0)
            die("pread", "");
        buf[r] = '\0';
        parse(buf);
    }
}

static const char *const set_names[] = { "XFS" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 1 };
    struct dirent *de;
    char path[320];
    floor_args(&b, argc, argv);
    b.want[0] = 1;
    if (!(top = opendir("/sys/fs/xfs"))) {
        printf("# floor_xfs: no /sys/fs/xfs\n");
        return 0;
    }
    while ((de = readdir(top)) != NULL && nfd < MAXFS + 1) {
        int fd;
        if (de->d_name[0] == '.')
            continue;
        if (strcmp(de->d_name, "stats") == 0)
            snprintf(path, sizeof path, "/sys/fs/xfs/stats/stats");
        else
            snprintf(path, sizeof path, "/sys/fs/xfs/%s/stats/stats", de->d_name);
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
            fds[nfd++] = fd;
    }
    printf("# floor_xfs: %d stats file(s), %d round(s) of %.2f s\n", nfd, b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
