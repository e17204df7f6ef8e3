/* What the C floors in bench/ share: the kept-open file reader, the timing
 * harness and the command line.  Static functions only and no perflib code:
 * each floor stays one standalone .c file built on its own (see the
 * Makefile's build/bench/floor_% rule), with its own parsing on top of the
 * two line scanners below.
 *
 * A floor defines, before including this header:
 *
 *   #define FLOOR_NAME  "floor_disk"                      prefix of its messages
 *   #define FLOOR_USAGE "[PhysicalDisk|LogicalDisk ...]"  its sets, for usage()
 *   #define FLOOR_BATCH 1     optional: collects between two clock reads (16);
 *                             1 when one collect takes milliseconds, and then
 *                             the warm-up also stops after -t seconds
 *
 * and after it `static void collect_set(int set)`, one collect of a set (a
 * direct call, as the timing loop had it before it moved here), and in main:
 *
 *   floor_bench b = { .names = set_names, .nsets = NSETS };
 *   if (!floor_args(&b, argc, argv))      -t, -r and set names; 0: none named
 *       ... its default sets into b.want ...
 *   ... opens its files, prints its '#' lines ...
 *   floor_run(&b);                        rounds, "floor <set> ..." lines, checksum
 *
 * Output, one line per wanted set, then the checksum of everything parsed:
 *
 *   floor <set> <median ns per collect> <iterations> <min ns> <max ns>
 *   # checksum <sink>
 *
 * Note: the Makefile's floor rules depend on the .c alone; after editing
 * this header, rebuild the floors with make -B or remove build/bench/floor*. */
#ifndef FLOOR_COMMON_H
#define FLOOR_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FLOOR_NAME
#error "define FLOOR_NAME (the program's name) before including floor_common.h"
#endif
#ifndef FLOOR_USAGE
#error "define FLOOR_USAGE (the set names for usage) before including floor_common.h"
#endif
#ifndef FLOOR_BATCH
#define FLOOR_BATCH 16
#endif

/* Not every floor uses every helper: no -Wunused-function for those. */
#define FLOOR_UNUSED __attribute__((unused))

static uint64_t sink;        /* everything parsed ends here, so nothing is optimised away */

/* The formatted-value floors (the "..._fmt" sets): every value a collect
 * parses is also kept (floor_keep), and floor_format turns each into a
 * double against the previous collect's value over the seconds between the
 * two, as a rate formula does: the formulas' share of getting formatted
 * values, as an upper bound (perflib's % Processor Time computes one value
 * per CPU line, this one per field).  Off (fmt_on 0) for the other sets. */
#define FLOOR_MAXVALS 65536
static int fmt_on;
static uint64_t fmt_cur[FLOOR_MAXVALS], fmt_prev[FLOOR_MAXVALS];
static size_t fmt_n;
static double fmt_t;

static inline void floor_keep(uint64_t v)
{
    sink += v;
    if (fmt_on && fmt_n < FLOOR_MAXVALS)
        fmt_cur[fmt_n++] = v;
}

/* "floor_disk: pread /proc/swaps: No such file" (path may be ""); exit 1. */
static FLOOR_UNUSED void die(const char *what, const char *path)
{
    fprintf(stderr, "%s: %s%s%s: %s\n", FLOOR_NAME, what, *path ? " " : "", path, strerror(errno));
    exit(1);
}

static FLOOR_UNUSED void *xmalloc(size_t n)
{
    void *p = calloc(1, n);
    if (!p)
        die("malloc", "");
    return p;
}

/* ---- kept-open files ------------------------------------------------------------ */

typedef struct rfile {
    int fd;                  /* -1: absent */
    char *buf;
    size_t cap, len;
    int whole;               /* the kernel makes it whole per read: a short read is its end */
} rfile;

/* Files the kernel writes whole into each read (single_open files, sysfs
 * attributes, sysctls): one pread that returns less than asked is the whole
 * file, as perflib's kernel sources read them (PL_KSRC_WHOLE).  Files made
 * record by record (diskstats, net/dev, vmstat, interrupts ...) are read
 * until a pread returns 0. */
static FLOOR_UNUSED int rf_is_whole(const char *path)
{
    static const char *const whole[] = {
        "/proc/stat", "/proc/meminfo", "/proc/uptime", "/proc/loadavg", "/proc/net/snmp",
        "/proc/net/netstat", "/proc/net/snmp6", "/proc/net/sockstat", "/proc/net/sockstat6", NULL,
    };
    if (strncmp(path, "/sys/", 5) == 0 || strncmp(path, "/proc/sys/", 10) == 0 ||
        strncmp(path, "/proc/pressure/", 15) == 0)
        return 1;
    for (int i = 0; whole[i]; i++)
        if (strcmp(path, whole[i]) == 0)
            return 1;
    return 0;
}

/* Opens path and keeps it open; a missing file leaves fd at -1 (the provider
 * stops looking too) unless required, which exits.  1: open. */
static FLOOR_UNUSED int rf_open(rfile *f, const char *path, int required)
{
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    f->cap = 4096;           /* pl_file_read's first size: the read size matters to */
    f->buf = xmalloc(f->cap); /* /proc/sys, which allocates count + 1 bytes per read */
    f->len = 0;
    f->whole = rf_is_whole(path);
    if (f->fd < 0 && required)
        die("open", path);
    return f->fd >= 0;
}

/* pread from offset 0 until it returns 0 (or, for a whole file, less than
 * asked), as pl_file_read does, the buffer doubled as needed.  0, or -1 on a pread error (errno set; f->len is what
 * was read before it). */
static FLOOR_UNUSED int rf_fill(rfile *f)
{
    size_t len = 0;
    int ret = 0;
    for (;;) {
        ssize_t r;
        if (len + 1 >= f->cap) {
            char *nb = realloc(f->buf, f->cap * 2);
            if (!nb)
                die("realloc", "");
            f->buf = nb;
            f->cap *= 2;
        }
        size_t want = f->cap - 1 - len;
        r = pread(f->fd, f->buf + len, want, (off_t)len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            ret = -1;
            break;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (f->whole && (size_t)r < want)
            break;
    }
    f->buf[len] = '\0';
    f->len = len;
    return ret;
}

/* The whole file, NUL-terminated; a read error exits. */
static FLOOR_UNUSED const char *rf_read(rfile *f)
{
    if (rf_fill(f) < 0)
        die("pread", "");
    return f->buf;
}

/* The whole file; a read error (a removed cgroup's file: ENODEV, as the
 * provider sees) closes the file, leaves fd at -1 and returns "". */
static FLOOR_UNUSED const char *rf_read_or_drop(rfile *f)
{
    if (rf_fill(f) < 0) {
        close(f->fd);
        f->fd = -1;
        f->buf[0] = '\0';
        f->len = 0;
    }
    return f->buf;
}

static FLOOR_UNUSED void rf_close(rfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    free(f->buf);
    f->fd = -1;
    f->buf = NULL;
}

/* ---- line scanners ------------------------------------------------------------------- */

static FLOOR_UNUSED const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

/* strtoull that stays on the current line: blanks only, never '\n'. */
static FLOOR_UNUSED int num(const char **p, uint64_t *v)
{
    const char *s = *p;
    char *end;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return 0;
    *v = strtoull(s, &end, 10);
    *p = end;
    return 1;
}

/* ---- timing ------------------------------------------------------------------------ */

#define FLOOR_MAXSETS 16
#define FLOOR_MAXROUNDS 64

typedef struct floor_bench {
    const char *const *names;  /* set names: printed, and accepted as arguments */
    int nsets;
    double secs;             /* -t: seconds per set and round (default 0.2) */
    int rounds;              /* -r: rounds, the median is printed (default 3) */
    int want[FLOOR_MAXSETS]; /* the sets to time */
} floor_bench;

/* One collect of set: the floor defines it. */
static void collect_set(int set);

static FLOOR_UNUSED double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Formats what floor_keep kept since the last call (see above). */
static FLOOR_UNUSED void floor_format(void)
{
    double t = now(), dt = t - fmt_t, acc = 0;
    for (size_t i = 0; i < fmt_n; i++) {
        acc += (double)(int64_t)(fmt_cur[i] - fmt_prev[i]) / dt;
        fmt_prev[i] = fmt_cur[i];
    }
    sink += (uint64_t)acc;
    fmt_t = t;
    fmt_n = 0;
}

/* One collect of a set with its values formatted. */
#define FLOOR_FORMATTED(collect) do { fmt_on = 1; collect; floor_format(); fmt_on = 0; } while (0)

/* Mean ns per collect of set over about secs seconds, after a warm-up
 * (caches, page faults, fds opened, buffers grown); *iters gets the count. */
static FLOOR_UNUSED double time_set(int set, double secs, long *iters)
{
    long n = 0;
    double t0, t;
#if FLOOR_BATCH > 1
    for (int i = 0; i < 20; i++)
        collect_set(set);
#else
    t0 = now();
    for (int i = 0; i < 20 && now() - t0 < secs; i++)
        collect_set(set);
#endif
    t0 = now();
    do {
        for (int i = 0; i < FLOOR_BATCH; i++)
            collect_set(set);
        n += FLOOR_BATCH;
        t = now();
    } while (t - t0 < secs);
    *iters = n;
    return (t - t0) * 1e9 / (double)n;
}

static FLOOR_UNUSED int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static FLOOR_UNUSED void usage(void)
{
    fprintf(stderr, "usage: %s [-t SECONDS] [-r ROUNDS] %s\n", FLOOR_NAME, FLOOR_USAGE);
    exit(2);
}

/* -t SECONDS, -r ROUNDS (1 to 64) and set names into b; anything else is
 * usage().  Returns 1 when sets were named (only they are wanted), 0 when
 * none were: b->want is all 0, the floor sets its defaults. */
static FLOOR_UNUSED int floor_args(floor_bench *b, int argc, char **argv)
{
    int opt, any = 0;
    if (b->nsets < 1 || b->nsets > FLOOR_MAXSETS)
        usage();
    b->secs = 0.2;
    b->rounds = 3;
    memset(b->want, 0, sizeof b->want);
    while ((opt = getopt(argc, argv, "t:r:")) != -1) {
        if (opt == 't')
            b->secs = atof(optarg);
        else if (opt == 'r')
            b->rounds = atoi(optarg);
        else
            usage();
    }
    if (b->secs <= 0 || b->rounds < 1 || b->rounds > FLOOR_MAXROUNDS)
        usage();
    for (int i = optind; i < argc; i++) {
        int k;
        for (k = 0; k < b->nsets && strcmp(argv[i], b->names[k]) != 0; k++)
            ;
        if (k == b->nsets)
            usage();
        b->want[k] = any = 1;
    }
    return any;
}

/* Times the wanted sets in turns, rounds times (drift hits every set alike),
 * then prints each set's median, min and max and the checksum. */
static FLOOR_UNUSED void floor_run(const floor_bench *b)
{
    static double ns[FLOOR_MAXSETS][FLOOR_MAXROUNDS];
    long iters[FLOOR_MAXSETS] = { 0 };
    for (int r = 0; r < b->rounds; r++)
        for (int k = 0; k < b->nsets; k++)
            if (b->want[k])
                ns[k][r] = time_set(k, b->secs, &iters[k]);
    for (int k = 0; k < b->nsets; k++) {
        if (!b->want[k])
            continue;
        qsort(ns[k], (size_t)b->rounds, sizeof ns[k][0], cmp_double);
        printf("floor %s %.0f %ld %.0f %.0f\n", b->names[k], ns[k][b->rounds / 2], iters[k],
               ns[k][0], ns[k][b->rounds - 1]);
    }
    printf("# checksum %llu\n", (unsigned long long)sink);
}

#endif
