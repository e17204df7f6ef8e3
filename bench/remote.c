/* make bench: a remote query of one counterset against a local collect and
 * one loopback round trip (issue 13: the remote query costs less than 2x a
 * local collect plus one round trip).
 *
 *   build/bench/remote [-r ROUNDS] [-n PER_ROUND]
 *
 * Starts build/perflua serve on a free loopback port, then in each round
 * times PER_ROUND (default 200) of each, taking turns so that a slow moment
 * falls on all alike: a local collect of \Memory\* (pl_query on this
 * machine), two loopback round trips (a GET /healthz, on a new connection
 * each time as the server closes it, and a remote query of the one value
 * \Memory\Available Bytes on the kept connection; the cheaper is the target's),
 * and a collect of \Memory\* on the remote machine (one POST of its
 * paths, the daemon's own collect, the data block read back).  The
 * median of ROUNDS (default 9) is reported in µs, and the remote cost
 * against the target.  Benchmarks report, tests assert: the exit status is
 * 0 even on a MISS, 1 only when the daemon or the queries cannot be set up. */
#include "perflib.h"
#include "providers.h"
#include "remote.h"

#include "bench_clock.h"
#include "serve_daemon.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_ROUNDS 101

static pl_query *path_query(pl_env *env, const char *path)
{
    pl_add_status st = PL_ADD_NO_SET;
    uint32_t idx;
    pl_query *q = env ? pl_query_new(env) : NULL;
    if (q && (pl_query_add_path(q, path, &st, &idx) != 0 || st != 0)) {
        pl_query_free(q);
        q = NULL;
    }
    return q;
}

/* Seconds per collect of q over n collects; -1 when one fails. */
static double time_collects(pl_query *q, int n)
{
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        pl_sample *s = NULL;
        int e = pl_query_collect(q, &s);
        int bad = e || s->nblocks != 1 || s->blocks[0].status != PL_VALID;
        free(s);
        if (bad)
            return -1;
    }
    return (bench_now() - t0) / n;
}

static double time_pings(pl_remote *r, int n)
{
    char msg[256];
    double t0 = bench_now();
    for (int i = 0; i < n; i++)
        if (pl_remote_ping(r, "/healthz", msg, sizeof msg) != 0) {
            fprintf(stderr, "remote bench: %s\n", msg);
            return -1;
        }
    return (bench_now() - t0) / n;
}

int main(int argc, char **argv)
{
    int rounds = 9, per = 200, opt, rc = 1;
    char msg[256], host[64];
    double loc[MAX_ROUNDS], rtt[MAX_ROUNDS], one[MAX_ROUNDS], rem[MAX_ROUNDS];
    serve_daemon d = { 0, 0, NULL };
    while ((opt = getopt(argc, argv, "r:n:")) != -1) {
        if (opt == 'r')
            rounds = atoi(optarg);
        else if (opt == 'n')
            per = atoi(optarg);
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || per < 1)
        return fprintf(stderr, "usage: remote [-r 1..%d] [-n N]\n", MAX_ROUNDS), 1;
    if (pl_register_builtin(msg, sizeof msg) != 0 || serve_daemon_start(&d, NULL) != 0) {
        fprintf(stderr, "remote bench: cannot start build/perflua serve\n");
        goto out;
    }
    snprintf(host, sizeof host, "127.0.0.1:%u", d.port);
    pl_remote_opts o = { .host = host };
    pl_remote *r = pl_remote_get(&o, msg, sizeof msg);
    pl_env *lenv = pl_env_new(NULL), *renv = r ? pl_remote_env(r) : NULL;
    pl_query *lq = path_query(lenv, "\\Memory\\*"), *rq = path_query(renv, "\\Memory\\*");
    pl_query *oq = path_query(renv, "\\Memory\\Available Bytes");
    if (!lq || !rq || !oq) {
        fprintf(stderr, "remote bench: %s\n", r ? "cannot query \\Memory\\*" : msg);
        goto out;
    }
    time_collects(lq, 10);                   /* warm: files opened, connection made */
    time_collects(rq, 10);
    time_collects(oq, 10);
    for (int k = 0; k < rounds; k++) {
        loc[k] = time_collects(lq, per);
        rtt[k] = time_pings(r, per);
        one[k] = time_collects(oq, per);
        rem[k] = time_collects(rq, per);
        if (loc[k] < 0 || rtt[k] < 0 || one[k] < 0 || rem[k] < 0) {
            fprintf(stderr, "remote bench: a collect failed\n");
            goto out;
        }
    }
    double l = bench_median(loc, (size_t)rounds) * 1e6, t = bench_median(rtt, (size_t)rounds) * 1e6;
    double o1 = bench_median(one, (size_t)rounds) * 1e6, m = bench_median(rem, (size_t)rounds) * 1e6;
    /* the round trip of the target: the cheaper of the two, a GET /healthz (the server closes
     * that connection: a TCP connect each time) and a one-value query on the kept connection */
    double rt = t < o1 ? t : o1, goal = 2 * l + rt;
    printf("remote \\Memory\\*: local collect %.1f us; loopback round trip: GET /healthz %.1f us "
           "(new connection each), remote \\Memory\\Available Bytes %.1f us (kept alive); remote collect %.1f us; "
           "target < 2 x local + round trip = %.1f us: %s (%.2fx of it)\n",
           l, t, o1, m, goal, m < goal ? "ok" : "MISS", m / goal);
    rc = 0;
    pl_query_free(lq);
    pl_query_free(rq);
    pl_query_free(oq);
    pl_env_unref(lenv);
    pl_env_unref(renv);
out:
    serve_daemon_kill(&d);
    return rc;
}
