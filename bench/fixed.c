/* make bench: perflib's fixed cost per collect, in C, when the sample is
 * refilled: pl_query_collect_with into one kept pl_membuf, of a query whose
 * set has nothing to read, so that only the query's own work is timed
 * (clocks, the generation of the kernel sources, sizing and filling the
 * sample).  Target: <= 100 ns per collect.
 *
 *   build/bench/fixed [-t SECONDS] [-r ROUNDS] [-p]
 *
 * The set is Hardware Sensors of an empty machine: a temporary directory
 * (removed at the end) with sys/class but no hwmon class, as on a VM, so
 * the set has no instance whatever hwmon this machine has.  A second line
 * times a one-instance set (\System\Threads of a proc/loadavg fixture) for
 * the cost of one value, and a third one clock read, the part of the fixed
 * cost that is the machine's (a VM's clock can cost 30-60 ns); neither is a
 * target.  Each round collects back to back for about SECONDS (default 0.1);
 * the median of ROUNDS (default 9) is reported.  -p times one long pass only
 * (for perf record).  Benchmarks report, tests assert: the exit status is 0
 * even on a MISS, 1 when the setup fails. */
#include "bench_clock.h"
#include "perflib.h"
#include "providers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TARGET_NS 100.0

static char root[] = "/tmp/perflib-fixed-XXXXXX";
static const char *const dirs[] = { "sys", "sys/class", "proc" };
#define NDIRS (sizeof dirs / sizeof *dirs)
static unsigned made;        /* directories made, in order; +1 for the file */

static void path_of(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", root, rel);
}

static void cleanup(void)
{
    char p[128];
    if (made > NDIRS) {
        path_of(p, sizeof p, "proc/loadavg");
        unlink(p);
        made = NDIRS;
    }
    while (made > 0) {
        path_of(p, sizeof p, dirs[--made]);
        if (rmdir(p) != 0)
            fprintf(stderr, "fixed: cannot remove %s: %s\n", p, strerror(errno));
    }
    if (rmdir(root) != 0 && errno != ENOENT)
        fprintf(stderr, "fixed: cannot remove %s: %s\n", root, strerror(errno));
}

static int make_machine(void)
{
    char p[128];
    FILE *f;
    if (!mkdtemp(root))
        return -1;
    atexit(cleanup);
    for (unsigned i = 0; i < NDIRS; i++, made++) {
        path_of(p, sizeof p, dirs[i]);
        if (mkdir(p, 0700) != 0)
            return -1;
    }
    path_of(p, sizeof p, "proc/loadavg");
    if (!(f = fopen(p, "w")))
        return -1;
    made++;
    fputs("0.50 0.40 0.30 2/345 6789\n", f);
    return fclose(f);
}

static pl_query *path_query(pl_env *env, const char *path)
{
    pl_add_status st;
    uint32_t idx;
    pl_query *q = pl_query_new(env);
    if (q && (pl_query_add_path(q, path, &st, &idx) != 0 || st != PL_ADD_OK)) {
        fprintf(stderr, "fixed: %s: %s\n", path, pl_add_status_name(st));
        pl_query_free(q);
        return NULL;
    }
    return q;
}

/* ns per refilled collect over about `secs`; -1 when a collect fails. */
static double time_round(pl_query *q, pl_membuf *mb, double secs, uint64_t *check)
{
    unsigned long n = 0;
    double t0 = bench_now(), t;
    do {
        for (int i = 0; i < 1000; i++) {
            pl_sample *s;
            if (pl_query_collect_with(q, pl_membuf_alloc, mb, &s) != 0)
                return -1;
            *check += s->seq + s->blocks[0].ninst;
        }
        n += 1000;
        t = bench_now() - t0;
    } while (t < secs);
    return t * 1e9 / (double)n;
}

/* ns per clock_gettime(CLOCK_MONOTONIC): the one clock read a collect keeps. */
static double clock_cost(double secs)
{
    struct timespec ts;
    int64_t sum = 0;
    unsigned long n = 0;
    double t0 = bench_now(), t;
    do {
        for (int i = 0; i < 1000; i++) {
            clock_gettime(CLOCK_MONOTONIC, &ts);
            sum += ts.tv_nsec;
        }
        n += 1000;
        t = bench_now() - t0;
    } while (t < secs);
    return sum == -1 ? 0 : t * 1e9 / (double)n;
}

static int report(const char *label, pl_query *q, double secs, int rounds, double target)
{
    pl_membuf mb = { 0 };
    double v[64];
    uint64_t check = 0;
    for (int r = 0; r < rounds; r++)
        if ((v[r] = time_round(q, &mb, secs, &check)) < 0) {
            fprintf(stderr, "fixed: %s: a collect failed\n", label);
            free(mb.mem);
            return 1;
        }
    double med = bench_median(v, (size_t)rounds);
    if (target > 0)
        printf("%-44s %7.1f ns/collect  target <= %.0f ns  %s\n", label, med, target,
               med <= target ? "ok" : "MISS");
    else
        printf("%-44s %7.1f ns/collect  (reference)\n", label, med);
    free(mb.mem);
    return check == 0;       /* never true: keeps the loop */
}

int main(int argc, char **argv)
{
    double secs = 0.1;
    int rounds = 9, profile = 0, rc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "-p") == 0)
            profile = 1;
        else {
            fprintf(stderr, "usage: %s [-t SECONDS] [-r ROUNDS] [-p]\n", argv[0]);
            return 1;
        }
    }
    if (rounds < 1 || rounds > 64)
        rounds = 9;
    if (pl_register_builtin(NULL, 0) != 0 || make_machine() != 0) {
        fprintf(stderr, "fixed: setup: %s\n", strerror(errno));
        return 1;
    }
    pl_env *env = pl_env_new(root);
    pl_query *empty = env ? path_query(env, "\\Hardware Sensors(*)\\*") : NULL;
    pl_query *one = env ? path_query(env, "\\System\\Threads") : NULL;
    if (!empty || !one) {
        fprintf(stderr, "fixed: cannot set up the queries\n");
        return 1;
    }
    if (profile) {
        rc = report("refilled collect, empty set (profile)", empty, 5.0, 1, TARGET_NS);
    } else {
        rc = report("refilled collect, empty set (C)", empty, secs, rounds, TARGET_NS);
        rc |= report("refilled collect, one value (C)", one, secs, rounds, 0);
        double v[64];
        for (int r = 0; r < rounds; r++)
            v[r] = clock_cost(secs);
        printf("%-44s %7.1f ns/read     (reference: one of them per collect)\n",
               "clock_gettime(CLOCK_MONOTONIC)", bench_median(v, (size_t)rounds));
    }
    pl_query_free(empty);
    pl_query_free(one);
    pl_env_unref(env);
    return rc;
}
