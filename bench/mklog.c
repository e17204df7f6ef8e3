/* make bench: a long binary log made quickly, for the benches that read one
 * (bench/blog.lua, bench/backtest.lua).
 *
 *   mklog OUT N PATHS_FILE
 *
 * Collects 120 real samples of the counter paths in PATHS_FILE (one a line)
 * on this machine, 10 ms apart, then writes N samples to the binary log OUT:
 * those 120 again and again, each stamped one second after the one before
 * (the last one now), with every result's own time moved with it.  So the log
 * has this machine's instances and values on a 1 Hz clock (the rates are the
 * 10 ms deltas over a second, and a counter steps back where the cycle
 * starts again: a negative_delta there, as after a reset). */
#include "perflib.h"
#include "pl_blog.h"
#include "providers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REAL 120

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: mklog OUT N PATHS_FILE\n");
        return 2;
    }
    long n = atol(argv[2]);
    FILE *f = fopen(argv[3], "r");
    pl_env *env = pl_register_builtin(NULL, 0) == 0 ? pl_env_new(NULL) : NULL;
    pl_query *q = env ? pl_query_new(env) : NULL;
    if (!f || !q || n <= 0) {
        fprintf(stderr, "mklog: cannot start\n");
        return 1;
    }
    char line[4096];
    int paths = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        pl_add_status st;
        uint32_t ix;
        if (line[0] && pl_query_add_path(q, line, &st, &ix) == 0 && st == 0)
            paths++;
    }
    fclose(f);
    pl_sample *real[REAL];
    int64_t perf0[REAL], *blocks0[REAL];
    struct timespec ten = { 0, 10000000 };
    for (int i = 0; i < REAL; i++) {
        if (pl_query_collect(q, &real[i]) != 0)
            return 1;
        perf0[i] = real[i]->perf_time;
        blocks0[i] = malloc(real[i]->nblocks * sizeof(int64_t) + 1);
        for (uint32_t b = 0; b < real[i]->nblocks; b++)
            blocks0[i][b] = real[i]->blocks[b].time - perf0[i];
        nanosleep(&ten, NULL);
    }
    int64_t perf, freq, t100;
    pl_now(&perf, &freq, &t100);
    pl_blog_writer *w = NULL;
    char msg[512];
    remove(argv[1]);
    if (pl_blog_open(argv[1], NULL, &w, msg, sizeof msg) != 0) {
        fprintf(stderr, "mklog: %s\n", msg);
        return 1;
    }
    for (long k = 0; k < n; k++) {
        pl_sample *s = real[k % REAL];
        int64_t back = (int64_t)(n - 1 - k) * freq;             /* seconds before now, in ticks */
        s->perf_time = perf - back;
        s->time100ns = t100 - (int64_t)(n - 1 - k) * 10000000;
        for (uint32_t b = 0; b < s->nblocks; b++)
            s->blocks[b].time = s->perf_time + blocks0[k % REAL][b];
        if (pl_blog_write(w, s, msg, sizeof msg) != 0) {
            fprintf(stderr, "mklog: %s\n", msg);
            return 1;
        }
    }
    pl_blog_close(w);
    printf("mklog: %ld samples of %d paths to %s\n", n, paths, argv[1]);
    for (int i = 0; i < REAL; i++) {
        free(real[i]);
        free(blocks0[i]);
    }
    pl_query_free(q);
    pl_env_unref(env);
    return 0;
}
