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
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FLOOR_NAME "floor_hwevents"
#define FLOOR_USAGE "[\"Hardware Events\"]"
#include "floor_common.h"    /* rfile (rf_open, rf_read, rf_close), timing */

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
static rfile online;         /* /sys/devices/system/cpu/online */
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

static void collect(void)
{
    uint64_t buf[3 + NEV];
    rf_read(&online);
    sink += online.len;
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

enum { NSETS = 1 };
static const char *const set_names[NSETS] = { "Hardware Events" };

static void collect_set(int set)
{
    (void)set;
    collect();
}

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = NSETS };
    int ncpu = 0;
    const char *p;

    floor_args(&b, argc, argv);
    b.want[0] = 1;
    rf_open(&online, "/sys/devices/system/cpu/online", 1);
    for (p = rf_read(&online); *p >= '0' && *p <= '9';) {
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
           b.rounds, b.secs);
    floor_run(&b);
    /* an inactive event is read without an IPI to its CPU: far cheaper than
     * the provider's reads of active events, so the figure is not a floor */
    if (idle_reads)
        printf("# floor_hwevents: %ld reads of hardware groups that never ran: another user "
               "holds the PMU (a perflib query open during the floor?)\n", idle_reads);
    return 0;
}
