/* The C floor of GPU Engine and GPU Process Memory: the walk the provider
 * makes, with the same I/O and nothing else.  No perflib code.
 *
 *   floor_gpu_fdinfo [-t SECONDS] [-r ROUNDS] [GPU Engine|GPU Process Memory ...]
 *
 * Per collect: the /proc listing (kept open, lseek(0) and getdents64); per
 * process its fd/ directory opened, listed with getdents64 and closed; per
 * fd one readlinkat; an fd below /dev/dri/ has its fdinfo opened, read and
 * closed, and its "drm-driver", "drm-engine-*" and "drm-total-*" lines
 * summed.  Both sets walk alike (each its own walk, as the provider does).
 * Left out: names, start times, one count per client, samples, Lua. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FLOOR_NAME "floor_gpu_fdinfo"
#define FLOOR_USAGE "[\"GPU Engine\"|\"GPU Process Memory\" ...]"
#define FLOOR_BATCH 1        /* a walk over a thousand processes takes milliseconds */
#include "floor_common.h"

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static int procfd = -1;
static char dents[65536], fddents[65536], info[16384];

/* Each entry name of fd (rewound) to fn, one getdents64 buffer at a time. */
static void each(int fd, char *buf, size_t size, void (*fn)(void *ud, const char *name), void *ud)
{
    long n;
    if (lseek(fd, 0, SEEK_SET) < 0)
        return;
    while ((n = syscall(SYS_getdents64, fd, buf, size)) > 0)
        for (long off = 0; off < n;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            fn(ud, d->d_name);
        }
}

static uint32_t number(const char *s)
{
    uint32_t v = 0;
    if (*s < '0' || *s > '9')
        return UINT32_MAX;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (uint32_t)(*s - '0');
    return *s ? UINT32_MAX : v;
}

/* One fdinfo: the numbers of its drm- lines summed. */
static void read_info(const char *rel)
{
    int fd = openat(procfd, rel, O_RDONLY | O_CLOEXEC);
    ssize_t n;
    if (fd < 0)
        return;
    n = read(fd, info, sizeof info - 1);
    close(fd);
    if (n <= 0)
        return;
    info[n] = '\0';
    for (const char *p = info; p && *p; p = next_line(p)) {
        uint64_t v;
        const char *c;
        if (strncmp(p, "drm-", 4) != 0 || !(c = strchr(p, ':')))
            continue;
        c++;
        if (num(&c, &v))
            sink += v;
    }
}

typedef struct walk {
    int dfd;
    uint32_t pid;
} walk;

static void one_fd(void *ud, const char *name)
{
    const walk *w = ud;
    char rel[64], target[64];
    uint32_t fd = number(name);
    ssize_t k;
    if (fd == UINT32_MAX)
        return;
    k = readlinkat(w->dfd, name, target, sizeof target - 1);
    if (k < 9 || memcmp(target, "/dev/dri/", 9) != 0)
        return;
    snprintf(rel, sizeof rel, "%u/fdinfo/%u", w->pid, fd);
    read_info(rel);
}

static void one_process(void *ud, const char *name)
{
    char rel[64];
    walk w;
    (void)ud;
    if ((w.pid = number(name)) == UINT32_MAX)
        return;
    snprintf(rel, sizeof rel, "%u/fd", w.pid);
    if ((w.dfd = openat(procfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return;
    each(w.dfd, fddents, sizeof fddents, one_fd, &w);
    close(w.dfd);
    sink++;
}

static void collect_set(int set)
{
    (void)set;
    each(procfd, dents, sizeof dents, one_process, NULL);
}

static const char *const set_names[] = { "GPU Engine", "GPU Process Memory" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 2 };
    if (!floor_args(&b, argc, argv))
        b.want[0] = b.want[1] = 1;
    if ((procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        die("open", "/proc");
    printf("# floor_gpu_fdinfo: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
