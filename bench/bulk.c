/* make bench: the cost of formatting every value of one result in one C call,
 * pl_sample_format_block, in ns per formatted value against a 2 ns target.
 *
 *   build/bench/bulk [-t SECONDS] [-r ROUNDS] [-n CPUS] [-p block|single|hand]
 *
 * The sample pair comes from a synthetic machine built at run time in a
 * temporary directory (removed at the end): proc/stat with CPUS cpuN lines
 * (default 1000) and no sys/ tree, so every CPU lands on node 0 and the
 * instances are "0,0" .. "0,999", "0,_Total" and "_Total".  The query is
 * `\Processor Information(*)\% ???* Time`: the ten PERF_PRECISION_100NS_TIMER
 * counters and Windows' % Processor Time and % Priority Time,
 * PERF_100NSEC_TIMER_INV (the thermal_throttle ones are "Throttled"; the three
 * "% Cn Time" ones have two-character names).  proc/stat
 * is collected, rewritten in place with ticks advanced by different amounts
 * per CPU, and collected again, so every value is valid and they differ.
 *
 * Each round calls pl_sample_format_block back to back for about SECONDS
 * (default 0.1); the median of ROUNDS (default 9) is reported.  Every call's
 * count of valid values is checked, and the values go into a checksum, so
 * the loop cannot be optimised away.  Two reference lines that are not
 * targets: pl_sample_format one value at a time (instance lookup per value),
 * and a hand-written loop of the same formula straight over the raw pairs,
 * with no type dispatch (what the formula costs in C at best).  -p times one
 * pass only (for perf record / callgrind).
 * Benchmarks report, tests assert: the exit status is 0 even on a MISS, and
 * 1 only when the fixture or the query cannot be set up. */
#include "bench_clock.h"
#include "perflib.h"
#include "providers.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TARGET_NS 2.0
#define PATH "\\Processor Information(*)\\% ???* Time"
#define NCOUNTERS 12u
#define HZ 100


/* the temporary machine, removed at exit whatever happens */
static char root[] = "/tmp/perflib-bulk-XXXXXX", dir[64], stat_path[96];
static int made;

static void cleanup(void)
{
    if (made >= 3 && unlink(stat_path) != 0 && errno != ENOENT)
        fprintf(stderr, "bulk: cannot remove %s: %s\n", stat_path, strerror(errno));
    if (made >= 2 && rmdir(dir) != 0)
        fprintf(stderr, "bulk: cannot remove %s: %s\n", dir, strerror(errno));
    if (made >= 1 && rmdir(root) != 0)
        fprintf(stderr, "bulk: cannot remove %s: %s\n", root, strerror(errno));
    made = 0;
}

static void die(const char *what)
{
    fprintf(stderr, "bulk: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* ---- the synthetic machine ---------------------------------------------------- */

enum { F_US, F_NI, F_SY, F_ID, F_WA, F_HI, F_SI, F_ST, F_GU, F_GN, NF };

/* Ticks of cpu n at step 0 (first sample) or 1 (second): each field moves by
 * a different amount per CPU; guest stays inside user, guest_nice inside nice. */
static void ticks(unsigned n, int step, unsigned long long f[NF])
{
    unsigned long long base[NF] = {
        100000u + n * 7u, 1000u + n, 50000u + n * 3u, 900000u + n * 11u, 200u + n % 13u,
        50u + n % 7u, 80u + n % 5u, n % 3u, n % 50u, n % 4u,
    };
    unsigned long long d[NF] = {
        30u + n % 17u, n % 5u, 10u + n % 11u, 50u + n % 23u, n % 3u,
        n % 2u, 1u + n % 4u, n % 2u, n % 7u, n % 2u,
    };
    if (d[F_GU] > d[F_US])
        d[F_GU] = d[F_US];
    if (d[F_GN] > d[F_NI])
        d[F_GN] = d[F_NI];
    for (int k = 0; k < NF; k++)
        f[k] = base[k] + (step ? d[k] : 0);
}

/* Rewrites proc/stat in place: the provider keeps the file open and preads
 * it from offset 0, so the inode must stay the same (no rename). */
static void write_stat(const char *path, unsigned ncpu, int step)
{
    unsigned long long tot[NF] = { 0 }, f[NF];
    FILE *fp;
    for (unsigned n = 0; n < ncpu; n++) {
        ticks(n, step, f);
        for (int k = 0; k < NF; k++)
            tot[k] += f[k];
    }
    if (!(fp = fopen(path, "w")))
        die(path);
    fprintf(fp, "cpu ");
    for (int k = 0; k < NF; k++)
        fprintf(fp, " %llu", tot[k]);
    fputc('\n', fp);
    for (unsigned n = 0; n < ncpu; n++) {
        ticks(n, step, f);
        fprintf(fp, "cpu%u", n);
        for (int k = 0; k < NF; k++)
            fprintf(fp, " %llu", f[k]);
        fputc('\n', fp);
    }
    fprintf(fp, "intr %u 0 0\nctxt %u\n", 1000u + (unsigned)step, 5000u + (unsigned)step);
    if (fclose(fp) != 0)
        die(path);
}

/* ---- timing ------------------------------------------------------------------------ */

static double sink;

typedef size_t (*pass_fn)(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                          double *out, uint8_t *st);

static size_t pass_block(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                         double *out, uint8_t *st)
{
    return pl_sample_format_block(s1, b1, s0, NULL, out, st);
}

static size_t pass_single(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                          double *out, uint8_t *st)
{
    size_t k = 0, valid = 0;
    for (uint32_t i = 0; i < b1->ninst; i++)
        for (uint32_t c = 0; c < b1->ncounters; c++, k++) {
            st[k] = (uint8_t)pl_sample_format(s1, b1, i, c, s0, NULL, &out[k]);
            valid += st[k] == PL_VALID;
        }
    return valid;
}

/* The same formula by hand: 100 * dv / db, capped to [0, 100], with the
 * statuses of pl_format_raw, instances assumed at the same positions (true
 * here, checked in main).  No lookup, no type dispatch beyond the one
 * columns that are PERF_100NSEC_TIMER_INV (100 * (1 - dv / dt) on the
 * sample clock, which is in 100 ns here). */
static size_t pass_hand(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                        double *out, uint8_t *st)
{
    const pl_block *b0 = &s0->blocks[b1->index];
    const pl_pair *p1 = s1->vals + b1->vals_off, *p0 = s0->vals + b0->vals_off;
    const uint8_t *h1 = s1->have + b1->vals_off, *h0 = s0->have + b0->vals_off;
    size_t n = (size_t)b1->ninst * b1->ncounters, valid = 0;
    uint32_t nc = b1->ncounters;
    uint8_t inv[NCOUNTERS] = { 0 };       /* % Processor Time, % Priority Time */
    for (uint32_t c = 0; c < nc && c < NCOUNTERS; c++)
        inv[c] = pl_sample_counter(s1, b1, c)->type == PERF_100NSEC_TIMER_INV;
    int64_t dt = b1->time - b0->time;     /* each result's own read time */
    for (size_t k = 0; k < n; k++) {
        int inverse = inv[k % nc];
        int64_t db = inverse ? dt : (int64_t)p1[k].b - (int64_t)p0[k].b;
        double v;
        out[k] = 0;
        if (h1[k] != 1 || h0[k] != 1) {
            st[k] = PL_NO_DATA;
            continue;
        }
        if (p1[k].v < p0[k].v) {
            st[k] = PL_NEGATIVE_DELTA;
            continue;
        }
        if (db <= 0) {
            st[k] = db == 0 ? PL_ZERO_INTERVAL : PL_NEGATIVE_INTERVAL;
            continue;
        }
        v = inverse ? 100.0 * (1.0 - (double)(p1[k].v - p0[k].v) / (double)db)
                    : 100.0 * (double)(p1[k].v - p0[k].v) / (double)db;
        out[k] = v > 100.0 ? 100.0 : v < 0.0 ? 0.0 : v;
        st[k] = PL_VALID;
        valid++;
    }
    return valid;
}

/* Median ns per value over `rounds` rounds of about `secs` each. */
static double time_pass(pass_fn fn, const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                        double *out, uint8_t *st, double secs, int rounds, double *ns,
                        long *iters)
{
    size_t n = (size_t)b1->ninst * b1->ncounters;
    for (int i = 0; i < 20; i++)     /* warm-up: caches, branch predictors */
        if (fn(s1, b1, s0, out, st) != n)
            goto bad;
    for (int r = 0; r < rounds; r++) {
        long it = 0;
        double t0 = bench_now(), t;
        do {
            for (int i = 0; i < 8; i++) {
                if (fn(s1, b1, s0, out, st) != n)
                    goto bad;
                sink += out[(size_t)(it + i) % n];
            }
            it += 8;
            t = bench_now();
        } while (t - t0 < secs);
        ns[r] = (t - t0) * 1e9 / ((double)it * (double)n);
        *iters = it;
    }
    qsort(ns, (size_t)rounds, sizeof ns[0], bench_cmp_double);
    return ns[rounds / 2];
bad:
    fprintf(stderr, "bulk: a formatting pass returned fewer than %zu valid values\n", n);
    exit(1);
}

static void usage(void)
{
    fprintf(stderr, "usage: bulk [-t SECONDS] [-r ROUNDS] [-n CPUS] [-p block|single|hand]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double secs = 0.1, ns[64];
    int rounds = 9, opt;
    long ncpu = 1000;
    const char *only = NULL;
    pl_add_status status = PL_ADD_OK;
    uint32_t index = 0;
    pl_env *env;
    pl_query *q;
    pl_sample *s0, *s1;

    while ((opt = getopt(argc, argv, "t:r:n:p:")) != -1) {
        if (opt == 't')
            secs = atof(optarg);
        else if (opt == 'r')
            rounds = atoi(optarg);
        else if (opt == 'n')
            ncpu = atol(optarg);
        else if (opt == 'p')
            only = optarg;
        else
            usage();
    }
    if (secs <= 0 || rounds < 1 || rounds > 64 || ncpu < 1 || ncpu > 65536 ||
        (only && strcmp(only, "block") != 0 && strcmp(only, "single") != 0 &&
         strcmp(only, "hand") != 0))
        usage();

    printf("# reproduce: make bench   (or, after make build/bench/bulk:)\n");
    printf("#   build/bench/bulk -t %g -r %d -n %ld%s%s\n", secs, rounds, ncpu, only ? " -p " : "",
           only ? only : "");

    /* the machine: <root>/proc/stat only */
    if (!mkdtemp(root))
        die("mkdtemp");
    made = 1;
    atexit(cleanup);
    snprintf(dir, sizeof dir, "%s/proc", root);
    snprintf(stat_path, sizeof stat_path, "%s/stat", dir);
    if (mkdir(dir, 0700) != 0)
        die(dir);
    made = 3;
    write_stat(stat_path, (unsigned)ncpu, 0);

    if (pl_register_builtin(NULL, 0) != 0 || !(env = pl_env_new(root)))
        die("pl_env_new");
    pl_env_set_user_hz(env, HZ);
    if (!(q = pl_query_new(env)))
        die("pl_query_new");
    if (pl_query_add_path(q, PATH, &status, &index) != 0 || status != 0) {
        fprintf(stderr, "bulk: cannot add %s (status 0x%x)\n", PATH, (unsigned)status);
        return 1;
    }
    errno = pl_query_collect(q, &s0);
    if (errno)
        die("collect s0");
    write_stat(stat_path, (unsigned)ncpu, 1);
    errno = pl_query_collect(q, &s1);
    if (errno)
        die("collect s1");

    const pl_block *b1 = &s1->blocks[index], *b0 = &s0->blocks[index];
    size_t n = (size_t)b1->ninst * b1->ncounters;
    if (b1->shape == PERF_ERROR_RETURN || b1->ncounters != NCOUNTERS ||
        b1->ninst != (uint32_t)ncpu + 2 || b0->ninst != b1->ninst) {
        fprintf(stderr, "bulk: expected %ld instances x %u counters, got %u x %u\n",
                ncpu + 2, NCOUNTERS, b1->ninst, b1->ncounters);
        return 1;
    }
    for (uint32_t i = 0; i < b1->ninst; i++)   /* pass_hand assumes same positions */
        if (pl_sample_inst_id(s1, b1, i) != pl_sample_inst_id(s0, b0, i)) {
            fprintf(stderr, "bulk: instance %u moved between the samples\n", (unsigned)i);
            return 1;
        }

    double *out = malloc(n * sizeof *out), *ref = malloc(n * sizeof *ref);
    uint8_t *st = malloc(n), *rst = malloc(n);
    if (!out || !ref || !st || !rst)
        die("malloc");

    /* correctness: the block equals value-at-a-time and the hand formula */
    size_t valid = pl_sample_format_block(s1, b1, s0, NULL, out, st);
    double vmin = 100, vmax = 0;
    if (valid != n) {
        fprintf(stderr, "bulk: %zu of %zu values valid\n", valid, n);
        return 1;
    }
    for (pass_fn check = pass_single;; check = pass_hand) {
        if (check(s1, b1, s0, ref, rst) != n)
            goto mismatch;
        for (size_t k = 0; k < n; k++)
            if (rst[k] != st[k] || fabs(ref[k] - out[k]) > 1e-9)
                goto mismatch;
        if (check == pass_hand)
            break;
    }
    for (size_t k = 0; k < n; k++) {
        vmin = out[k] < vmin ? out[k] : vmin;
        vmax = out[k] > vmax ? out[k] : vmax;
    }
    printf("# %u instances x %u counters = %zu values, all valid, %.3f .. %.3f; "
           "%d rounds x %.2f s, median\n", b1->ninst, b1->ncounters, n, vmin, vmax, rounds, secs);

    static const struct { const char *id, *label; pass_fn fn; int target; } passes[] = {
        { "block", "pl_sample_format_block (one call per result)", pass_block, 1 },
        { "single", "pl_sample_format (one call per value)", pass_single, 0 },
        { "hand", "hand-written formula loop (reference)", pass_hand, 0 },
    };
    double res[3] = { 0 };
    long its[3] = { 0 };
    for (int p = 0; p < 3; p++)
        if (!only || strcmp(only, passes[p].id) == 0)
            res[p] = time_pass(passes[p].fn, s1, b1, s0, out, st, secs, rounds, ns, &its[p]);

    printf("%-46s %10s %10s %9s  %s\n", "pass", "ns/value", "target", "calls", "result");
    for (int p = 0; p < 3; p++) {
        if (only && strcmp(only, passes[p].id) != 0)
            continue;
        if (passes[p].target)
            printf("%-46s %10.2f %10.1f %9ld  %s\n", passes[p].label, res[p], TARGET_NS, its[p],
                   res[p] <= TARGET_NS ? "PASS" : "MISS");
        else
            printf("%-46s %10.2f %10s %9ld  %s\n", passes[p].label, res[p], "-", its[p], "info");
    }
    if (res[0] > 0)
        printf("# block: %.1f us per call of %zu values; calls: in the last round\n",
               res[0] * (double)n / 1e3, n);
    printf("# checksum %.6g\n", sink);

    free(out);
    free(ref);
    free(st);
    free(rst);
    free(s0);
    free(s1);
    pl_query_free(q);
    pl_env_unref(env);
    return 0;

mismatch:
    fprintf(stderr, "bulk: pl_sample_format_block disagrees with a reference pass\n");
    return 1;
}
