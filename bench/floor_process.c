/* The C floor of the Process and Thread collects: the same /proc files the
 * providers read, with the same I/O, and nothing else.  No perflib code.
 *
 *   floor_process [-t SECONDS] [-r ROUNDS] [Process|Thread|process_stat|process_statm ...]
 *
 * Sets (default: Process and Thread, what \Set(*)\* reads):
 *   Process       /proc/uptime; the /proc listing; per process stat, status,
 *                 io, the fd/ listing and smaps_rollup (not for kernel
 *                 threads, whose smaps_rollup is ESRCH)
 *   process_stat  /proc/uptime, the listing and stat alone: the counters that
 *                 come from stat (what a query of them reads)
 *   process_statm the listing, and per process statm and comm: what a query
 *                 of sizes only (Virtual Bytes, Working Set, ID Process) reads
 *   Thread        /proc/uptime; the /proc listing; per process its task/
 *                 listing; per thread task stat and task status
 * Same I/O as the providers: every file and directory kept open (one fd per
 * file per process, indexed by pid: no lookup cost at all), files read with
 * one pread at offset 0 into a 4096-byte buffer (procfs seq_files return all
 * in one read; a full buffer grows and reads on), directories listed with
 * lseek(0) and getdents64 into a 32 KiB buffer.  A kept fd of a process that
 * exited (ESRCH) is closed and the path opened again.  Parsing: the fields
 * the providers use, by hand.  Left out: names, duplicate numbering, start
 * time identity, samples, _Total, Lua.
 *
 * Output, one line per set, as bench/floor.c:
 *   floor <set> <median ns per collect> <iterations> <min ns> <max ns> */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define FLOOR_NAME "floor_process"
#define FLOOR_USAGE "[Process|process_stat|process_statm|Thread ...]"
#define FLOOR_BATCH 1        /* a collect over a thousand processes takes milliseconds */
#include "floor_common.h"    /* die, timing */

/* ---- buffers and reads --------------------------------------------------------------- */

static char *rbuf;
static size_t rcap = 4096;
static char dbuf[32768];

/* Whole file through the kept fd *fd (or opened from rel); length or -1.  A
 * kept fd that fails is closed (ESRCH: the process exited) and reopened by
 * the next collect. */
static long emfile;          /* opens refused for want of descriptors */

static ssize_t read_kept(int *fd, int dirfd, const char *rel)
{
    size_t len = 0;
    if (*fd < 0 && (*fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC)) < 0) {
        emfile += errno == EMFILE;
        return -1;
    }
    for (;;) {
        size_t want = rcap - 1 - len;
        ssize_t r = pread(*fd, rbuf + len, want, (off_t)len);
        if (r < 0)
            break;
        len += (size_t)r;
        if ((size_t)r < want) {
            rbuf[len] = '\0';
            return (ssize_t)len;
        }
        char *nb = realloc(rbuf, rcap * 2);
        if (!nb)
            die("realloc", "");
        rbuf = nb;
        rcap *= 2;
    }
    if (errno != EACCES) {
        close(*fd);
        *fd = -1;
    }
    return -1;
}

/* Calls fn for each entry of the directory (kept fd, rewound). */
static int list_dir(int *fd, int dirfd, const char *rel, void (*fn)(const char *, void *), void *ud)
{
    if (*fd < 0 && (*fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        emfile += errno == EMFILE;
        return -1;
    }
    if (lseek(*fd, 0, SEEK_SET) < 0)
        return -1;
    for (;;) {
        ssize_t r = getdents64(*fd, dbuf, sizeof dbuf);
        if (r < 0) {
            close(*fd);
            *fd = -1;
            return -1;
        }
        if (r == 0)
            return 0;
        for (ssize_t o = 0; o < r;) {
            const struct dirent64 *d = (const struct dirent64 *)(const void *)(dbuf + o);
            fn(d->d_name, ud);
            o += d->d_reclen;
        }
    }
}

/* ---- ids ------------------------------------------------------------------------------ */

typedef struct ids {
    uint32_t *v;
    uint32_t n, cap;
} ids;

static void add_id(const char *name, void *ud)
{
    ids *l = ud;
    uint32_t v = 0;
    if (*name < '1' || *name > '9')
        return;
    for (; *name; name++) {
        if (*name < '0' || *name > '9')
            return;
        v = v * 10 + (uint32_t)(*name - '0');
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        if (!(l->v = realloc(l->v, l->cap * sizeof *l->v)))
            die("realloc", "");
    }
    l->v[l->n++] = v;
}

static void count_entry(const char *name, void *ud)
{
    if (name[0] != '.')
        ++*(uint64_t *)ud;
}

static char *utoa(char *p, uint32_t v)
{
    char t[10];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = t[--n];
    return p;
}

/* ---- parsing -------------------------------------------------------------------------- */

/* Fields 3 (state) to maxf of a stat line, those in `want` summed into sink;
 * returns field 9 (flags). */
static uint64_t parse_stat(const char *buf, size_t len, int maxf)
{
    static const uint8_t want[43] = { [4] = 1, [9] = 1, [10] = 1, [12] = 1, [14] = 1, [15] = 1,
        [18] = 1, [19] = 1, [20] = 1, [22] = 1, [23] = 1, [24] = 1, [39] = 1, [40] = 1,
        [41] = 1, [42] = 1 };
    const char *p = memrchr(buf, ')', len), *end = buf + len;
    uint64_t flags = 0;
    if (!p || end - p < 4)
        return 0;
    sink += (unsigned char)p[2];
    p += 3;
    for (int f = 4; f <= maxf && p < end && *p == ' '; f++) {
        p++;
        if (want[f]) {
            uint64_t x = 0;
            if (*p == '-')
                p++;
            while (*p >= '0' && *p <= '9')
                x = x * 10 + (uint64_t)(*p++ - '0');
            sink += x;
            if (f == 9)
                flags = x;
        }
        while (p < end && *p != ' ' && *p != '\n')
            p++;
    }
    return flags;
}

/* The values of the lines that start with one of keys ("Key:" then a number). */
static void parse_keys(const char *p, const char *const *keys, int nkeys)
{
    int found = 0;
    while (*p && found < nkeys) {
        for (int k = 0; k < nkeys; k++) {
            size_t kl;
            if (p[0] != keys[k][0])
                continue;
            kl = strlen(keys[k]);
            if (strncmp(p, keys[k], kl) == 0 && p[kl] == ':') {
                const char *q = p + kl + 1;
                uint64_t x = 0;
                while (*q == ' ' || *q == '\t')
                    q++;
                while (*q >= '0' && *q <= '9')
                    x = x * 10 + (uint64_t)(*q++ - '0');
                sink += x;
                found++;
                break;
            }
        }
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
}

static const char *const status_keys[] = { "VmPeak", "VmHWM", "RssAnon", "VmSwap",
                                           "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches" };
static const char *const io_keys[] = { "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes" };
static const char *const smaps_keys[] = { "Private_Clean", "Private_Dirty", "Private_Hugetlb" };
static const char *const ctxsw_keys[] = { "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches" };

/* ---- the floors --------------------------------------------------------------------- */

enum { F_STAT, F_STATUS, F_IO, F_FD, F_SMAPS, F_TASK, F_STATM, F_COMM, NF };
static const char *const leaf[NF] = { "/stat", "/status", "/io", "/fd", "/smaps_rollup", "/task",
                                      "/statm", "/comm" };

typedef struct state {
    int procfd, listfd, uptimefd;
    int (*fd)[NF];           /* by pid (tids index it too, for task files) */
    uint32_t nfd;
    ids pids, tids;
} state;

static void grow_fds(state *s, uint32_t id)
{
    if (id < s->nfd)
        return;
    uint32_t n = s->nfd ? s->nfd : 1024;
    while (n <= id)
        n *= 2;
    if (!(s->fd = realloc(s->fd, n * sizeof *s->fd)))
        die("realloc", "");
    for (uint32_t i = s->nfd; i < n; i++)
        for (int k = 0; k < NF; k++)
            s->fd[i][k] = -1;
    s->nfd = n;
}

static void uptime(state *s)
{
    if (read_kept(&s->uptimefd, s->procfd, "uptime") > 0) {
        const char *p = rbuf;
        uint64_t x = 0;
        while ((*p >= '0' && *p <= '9') || *p == '.')
            x = *p == '.' ? x : x * 10 + (uint64_t)(*p - '0'), p++;
        sink += x;
    }
}

static void list_pids(state *s)
{
    s->pids.n = 0;
    if (list_dir(&s->listfd, s->procfd, ".", add_id, &s->pids) < 0)
        die("getdents /proc", "");
}

/* rel = "<pid><leaf>" */
static const char *rel_of(char *rel, uint32_t pid, int k)
{
    strcpy(utoa(rel, pid), leaf[k]);
    return rel;
}

static void process_collect(state *s, int all)
{
    char rel[48];
    uptime(s);
    list_pids(s);
    for (uint32_t i = 0; i < s->pids.n; i++) {
        uint32_t pid = s->pids.v[i];
        int *fd;
        ssize_t n;
        uint64_t flags;
        grow_fds(s, pid);
        fd = s->fd[pid];
        n = read_kept(&fd[F_STAT], s->procfd, fd[F_STAT] < 0 ? rel_of(rel, pid, F_STAT) : "");
        if (n <= 0)
            continue;
        flags = parse_stat(rbuf, (size_t)n, all ? 42 : 24);
        if (!all)
            continue;
        if (read_kept(&fd[F_STATUS], s->procfd, fd[F_STATUS] < 0 ? rel_of(rel, pid, F_STATUS) : "") > 0)
            parse_keys(rbuf, status_keys, 6);
        if (read_kept(&fd[F_IO], s->procfd, fd[F_IO] < 0 ? rel_of(rel, pid, F_IO) : "") > 0)
            parse_keys(rbuf, io_keys, 6);
        uint64_t nfd = 0;
        if (list_dir(&fd[F_FD], s->procfd, fd[F_FD] < 0 ? rel_of(rel, pid, F_FD) : "", count_entry, &nfd) == 0)
            sink += nfd;
        if (!(flags & 0x00200000u) &&
            read_kept(&fd[F_SMAPS], s->procfd, fd[F_SMAPS] < 0 ? rel_of(rel, pid, F_SMAPS) : "") > 0)
            parse_keys(rbuf, smaps_keys, 3);
    }
}

/* Sizes only: statm's size and resident pages, and the name from comm. */
static void statm_collect(state *s)
{
    char rel[48];
    list_pids(s);
    for (uint32_t i = 0; i < s->pids.n; i++) {
        uint32_t pid = s->pids.v[i];
        int *fd;
        ssize_t n;
        grow_fds(s, pid);
        fd = s->fd[pid];
        n = read_kept(&fd[F_STATM], s->procfd, fd[F_STATM] < 0 ? rel_of(rel, pid, F_STATM) : "");
        if (n <= 0)
            continue;
        const char *p = rbuf;
        for (int k = 0; k < 2; k++, p++) {
            uint64_t x = 0;
            while (*p >= '0' && *p <= '9')
                x = x * 10 + (uint64_t)(*p++ - '0');
            sink += x;
        }
        n = read_kept(&fd[F_COMM], s->procfd, fd[F_COMM] < 0 ? rel_of(rel, pid, F_COMM) : "");
        if (n > 0)
            sink += (unsigned char)rbuf[n - 1];
    }
}

/* Thread files are indexed by tid: F_STAT and F_STATUS of s->fd[tid] hold the
 * task files; F_TASK of s->fd[pid] the task/ directory. */
static void thread_collect(state *s)
{
    char rel[64] = "";
    uptime(s);
    list_pids(s);
    for (uint32_t i = 0; i < s->pids.n; i++) {
        uint32_t pid = s->pids.v[i];
        grow_fds(s, pid);
        s->tids.n = 0;
        if (list_dir(&s->fd[pid][F_TASK], s->procfd, s->fd[pid][F_TASK] < 0 ? rel_of(rel, pid, F_TASK) : "",
                     add_id, &s->tids) < 0)
            continue;
        for (uint32_t k = 0; k < s->tids.n; k++) {
            uint32_t tid = s->tids.v[k];
            int *fd;
            ssize_t n;
            grow_fds(s, tid);
            fd = s->fd[tid];
            if (fd[F_STAT] < 0 || fd[F_STATUS] < 0) {
                char *q = utoa(rel, pid);
                memcpy(q, "/task/", 6);
                q = utoa(q + 6, tid);
                strcpy(q, "/stat");
            }
            n = read_kept(&fd[F_STAT], s->procfd, rel);
            if (n <= 0)
                continue;
            parse_stat(rbuf, (size_t)n, 41);
            if (fd[F_STATUS] < 0)
                strcat(rel, "us");
            if (read_kept(&fd[F_STATUS], s->procfd, rel) > 0)
                parse_keys(rbuf, ctxsw_keys, 2);
        }
    }
}

/* ---- sets and main ---------------------------------------------------------------- */

enum { PROCESS, PROCESS_STAT, THREAD, PROCESS_STATM, NSETS };
static const char *const set_names[NSETS] = { "Process", "process_stat", "Thread", "process_statm" };
static state st[NSETS];

static void collect_set(int set)
{
    if (set == THREAD)
        thread_collect(&st[set]);
    else if (set == PROCESS_STATM)
        statm_collect(&st[set]);
    else
        process_collect(&st[set], set == PROCESS);
}

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = NSETS };

    if (!floor_args(&b, argc, argv))
        b.want[PROCESS] = b.want[THREAD] = 1;
    /* one fd per file per process: as many as the hard limit allows */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (!(rbuf = malloc(rcap)))
        die("malloc", "");
    /* one state per set, as one perflib query per set would have */
    for (int k = 0; k < NSETS; k++) {
        st[k].procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        st[k].listfd = st[k].uptimefd = -1;
        if (st[k].procfd < 0)
            die("/proc", "");
    }
    list_pids(&st[0]);
    printf("# floor: %u processes, %d round(s) of %.2f s per set\n", st[0].pids.n, b.rounds, b.secs);
    floor_run(&b);
    if (emfile)
        printf("# warning: %ld opens failed with EMFILE: raise ulimit -n, the floor skipped files\n",
               emfile);
    return 0;
}
