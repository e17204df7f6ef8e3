/* make bench: the cost of a V1 PERF_DATA_BLOCK against the V2 data block of
 * the same sample (issue 11: V1 Global costs no more than 1.1x V2).
 *
 *   build/bench/v1 [-t SECONDS] [-r ROUNDS] [-R ROOT]
 *
 * One "Global" collection of the machine below ROOT (default /), as
 * RegQueryValueEx(HKEY_PERFORMANCE_DATA, "Global") would collect it, is
 * written back to back into a buffer allocated once, for about SECONDS
 * (default 0.1) per round: pl_db_write standard (what the C API returns),
 * pl_db_write with perflib's trailers (what s:block() returns), pl_v1_write
 * plain (winperf.h's layout alone) and with perflib's extension (what
 * RegQueryValueEx and s:block{v1 = true} return).  Like is compared with
 * like: V1 plain against V2 standard, V1 + extension against V2 + trailers.
 * The kinds take turns within each round, so that a slow moment of a noisy
 * machine falls on all of them alike; the median of ROUNDS (default 15) is
 * reported in µs per block, and the median of the per-round ratios V1 / V2
 * against the 1.1 target, for both V2 forms.  A checksum of the bytes keeps
 * the loop honest.  Benchmarks report, tests assert: the
 * exit status is 0 even on a MISS, 1 only when the query cannot be set up. */
#include "perflib.h"
#include "providers.h"
#include "pl_datablock.h"
#include "pl_v1.h"

#include "bench_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TARGET 1.1

enum { V2_STD, V2_EXT, V1_STD, V1, NKINDS };
static const char *const kind_name[NKINDS] = { "V2 standard", "V2 + trailers", "V1 standard", "V1 + extension" };

static size_t write_one(int kind, const pl_sample *s, uint8_t *buf, size_t cap)
{
    if (kind == V1 || kind == V1_STD)
        return pl_v1_write(s, "bench", kind == V1 ? 0 : PL_V1_PLAIN, buf, cap);
    return pl_db_write(s, kind == V2_EXT, buf, cap);
}

/* Microseconds per block of one turn: back-to-back writes for secs. */
static double one_turn(int kind, const pl_sample *s, uint8_t *buf, size_t cap, double secs, unsigned *sum)
{
    long n = 0;
    double t0 = bench_now(), t;
    do {
        for (int k = 0; k < 16; k++, n++)
            *sum += buf[write_one(kind, s, buf, cap) / 2];
        t = bench_now();
    } while (t - t0 < secs);
    return (t - t0) / (double)n * 1e6;
}

int main(int argc, char **argv)
{
    double secs = 0.1;
    int rounds = 15, opt;
    const char *root = NULL;
    while ((opt = getopt(argc, argv, "t:r:R:")) != -1) {
        if (opt == 't')
            secs = atof(optarg);
        else if (opt == 'r')
            rounds = atoi(optarg) > 0 ? atoi(optarg) : 1;
        else if (opt == 'R')
            root = optarg;
        else
            return fprintf(stderr, "usage: %s [-t SECONDS] [-r ROUNDS] [-R ROOT]\n", argv[0]), 1;
    }
    pl_env *env = pl_register_builtin(NULL, 0) == 0 ? pl_env_new(root) : NULL;
    pl_query *q = env ? pl_query_new(env) : NULL;
    pl_registry_sel sel;
    uint32_t first, count;
    pl_sample *s = NULL;
    if (!q || pl_registry_parse(env, "Global", &sel) || pl_query_add_sets(q, &sel, &first, &count)
        || pl_query_collect(q, &s)) {
        fprintf(stderr, "v1: cannot collect Global\n");
        return 1;
    }
    size_t cap = 0;
    for (int k = 0; k < NKINDS; k++) {
        size_t n = write_one(k, s, NULL, 0);
        cap = n > cap ? n : cap;
    }
    uint8_t *buf = malloc(cap);
    if (!buf)
        return 1;
    unsigned sum = 0;
    double *per = malloc((size_t)rounds * NKINDS * sizeof *per), *ratio = malloc((size_t)rounds * sizeof *ratio);
    if (!per || !ratio)
        return 1;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < NKINDS; k++)
            per[k * rounds + r] = one_turn(k, s, buf, cap, secs, &sum);
    printf("V1 block bench: Global, %u results, %s\n", s->nblocks, root ? root : "/");
    /* like for like: the standard forms, and each with perflib's additions */
    static const int pairs[2][2] = { { V1_STD, V2_STD }, { V1, V2_EXT } };
    for (int k = 0; k < 2; k++) {
        for (int r = 0; r < rounds; r++)
            ratio[r] = per[pairs[k][0] * rounds + r] / per[pairs[k][1] * rounds + r];
        double med = bench_median(ratio, (size_t)rounds);
        printf("  %-14s / %-13s %6.2fx (median of %d rounds; target <= %.1fx) %s\n", kind_name[pairs[k][0]],
               kind_name[pairs[k][1]], med, rounds, TARGET, med <= TARGET ? "ok" : "MISS");
    }
    for (int k = 0; k < NKINDS; k++)
        printf("  %-16s %8zu bytes %9.2f us/block\n", kind_name[k], write_one(k, s, NULL, 0),
               bench_median(per + k * rounds, (size_t)rounds));
    free(per);
    free(ratio);
    printf("  (checksum %u)\n", sum);
    free(buf);
    free(s);
    pl_query_free(q);
    pl_env_unref(env);
    return 0;
}
