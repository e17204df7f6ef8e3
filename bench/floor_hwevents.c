/* The C floor of a `\Hardware Events(*)\*` collect: the same perf events the
 * provider opens (per online CPU, pid -1: a hardware group led by cycles with
 * instructions, cache references and misses, branches and branch misses, an
 * event that does not fit starting a second group; a software group of
 * context switches, migrations and page faults), read with one read() per
 * group (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING) and
 * scaled by enabled / running, plus the pread of
 * /sys/devices/system/cpu/online the provider does on each collect.  No
 * perflib code.
 *
 *   floor_hwevents [-t SECONDS] [-r ROUNDS] ["Hardware Events"]
 *
 * Prints, like bench/floor.c:
 *
 *   floor Hardware Events <ns per collect> <iterations> <min ns> <max ns>
 *
 * When no event can be opened (perf_event_paranoid, no PMU and no software
 * events) it prints only a '#' line saying why, and exits 0.  Run it while
 * nothing else holds the PMU: a hardware group that cannot get on the PMU is
 * read without an IPI to its CPU, several times cheaper (it says so). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NEV 9
#define MAXCPU 4096
static const struct { uint32_t type; uint64_t config; } events[NEV] = {
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

typedef struct group {
    int leader, n, sw;
} group;

static group groups[MAXCPU * NEV];
static int ngroups, first_err;
static int online_fd = -1;
static char online_buf[4096];
static uint64_t sink;
static long idle_reads;      /* reads of a hardware group that never got the PMU */
__extension__ typedef unsigned __int128 u128;

static int perf_open(int e, int cpu, int group_fd)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = events[e].type;
    a.size = sizeof a;
    a.config = events[e].config;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* The provider's grouping: join the first group of the same kind that takes
 * the event, else lead a new one. */
static void open_cpu(int cpu)
{
    int first = ngroups;
    for (int e = 0; e < NEV; e++) {
        int sw = events[e].type == PERF_TYPE_SOFTWARE, fd = -1, g;
        for (g = first; g < ngroups; g++) {
            if (groups[g].sw != sw)
                continue;
            fd = perf_open(e, cpu, groups[g].leader);
            if (fd >= 0 || (errno != EINVAL && errno != ENOSPC))
                break;
        }
        if (fd >= 0) {
            groups[g].n++;
            continue;
        }
        if (g < ngroups) {   /* failed for another reason than fitting */
            if (!first_err)
                first_err = errno;
            continue;
        }
        fd = perf_open(e, cpu, -1);
        if (fd < 0) {
            if (!first_err)
                first_err = errno;
            continue;
        }
        groups[ngroups].leader = fd;
        groups[ngroups].n = 1;
        groups[ngroups].sw = sw;
        ngroups++;
    }
}

/* pread until 0, as pl_file_read does. */
static size_t read_online(void)
{
    size_t len = 0;
    ssize_t r;
    while ((r = pread(online_fd, online_buf + len, sizeof online_buf - 1 - len, (off_t)len)) > 0)
        len += (size_t)r;
    online_buf[len] = '\0';
    return len;
}

static void collect(void)
{
    uint64_t buf[3 + NEV];
    sink += read_online();
    for (int g = 0; g < ngroups; g++) {
        ssize_t r = read(groups[g].leader, buf, sizeof buf);
        if (r < 24 || buf[0] != (uint64_t)groups[g].n)
            continue;
        idle_reads += !groups[g].sw && buf[2] == 0;
        for (uint64_t k = 0; k < buf[0]; k++)
            sink += buf[2] && buf[2] < buf[1]
                ? (uint64_t)((u128)buf[3 + k] * buf[1] / buf[2]) : buf[3 + k];
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Mean ns per collect over about `secs` seconds, as bench/floor.c. */
static double time_set(double secs, long *iters)
{
    long n = 0;
    double t0, t;
    for (int i = 0; i < 20; i++)
        collect();
    t0 = now();
    do {
        for (int i = 0; i < 16; i++)
            collect();
        n += 16;
        t = now();
    } while (t - t0 < secs);
    *iters = n;
    return (t - t0) * 1e9 / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(void)
{
    fprintf(stderr, "usage: floor_hwevents [-t SECONDS] [-r ROUNDS] [\"Hardware Events\"]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double secs = 0.2, ns[64];
    int rounds = 3, opt, ncpu = 0;
    long iters = 0;
    const char *p;

    while ((opt = getopt(argc, argv, "t:r:")) != -1) {
        if (opt == 't')
            secs = atof(optarg);
        else if (opt == 'r')
            rounds = atoi(optarg);
        else
            usage();
    }
    if (secs <= 0 || rounds < 1 || rounds > 64)
        usage();
    for (int i = optind; i < argc; i++)
        if (strcmp(argv[i], "Hardware Events") != 0)
            usage();

    online_fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
    if (online_fd < 0) {
        fprintf(stderr, "floor_hwevents: /sys/devices/system/cpu/online: %s\n", strerror(errno));
        return 1;
    }
    read_online();
    for (p = online_buf; *p >= '0' && *p <= '9';) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        for (long c = lo; c <= hi && c < MAXCPU; c++, ncpu++)
            open_cpu((int)c);
        p = *end == ',' ? end + 1 : end;
    }
    if (ngroups == 0) {
        printf("# floor_hwevents: no event opens: %s\n", strerror(first_err ? first_err : ENODEV));
        return 0;
    }
    printf("# floor_hwevents: %d CPUs, %d groups, %d round(s) of %.2f s\n", ncpu, ngroups,
           rounds, secs);
    for (int r = 0; r < rounds; r++)
        ns[r] = time_set(secs, &iters);
    qsort(ns, (size_t)rounds, sizeof ns[0], cmp_double);
    printf("floor Hardware Events %.0f %ld %.0f %.0f\n", ns[rounds / 2], iters, ns[0],
           ns[rounds - 1]);
    printf("# checksum %llu\n", (unsigned long long)sink);
    /* an inactive event is read without an IPI to its CPU: far cheaper than
     * the provider's reads of active events, so the figure is not a floor */
    if (idle_reads)
        printf("# floor_hwevents: %ld reads of hardware groups that never ran: another user "
               "holds the PMU (a perflib query open during the floor?)\n", idle_reads);
    return 0;
}
