/* The C floor of Bcache and Bcache Device: what the providers do for
 * `\Bcache(*)\*` and `\Bcache Device(*)\*`, with nothing else.  Each collect
 * lists /sys/fs/bcache (rewinddir and readdir of a kept directory: sets are
 * registered and stopped at any time); Bcache then preads its 20 kept files
 * per set and parses each (a decimal, or a bch_hprint size: digits, a
 * tenth, a unit); Bcache Device reads each set's directory for its bdevN
 * and cacheN links (kept open and rewound, as the provider does) and preads
 * a backing device's 10 files or a cache device's 4 (priority_stats' five
 * lines parsed too).  BENCH_ROOT (default "/") is the root, so that the
 * floor and bench/collect.lua can run on spec/fixtures/bcache where a
 * machine has no bcache.  Prints "floor Bcache <ns> ..." for
 * bench/collect.lua; nothing without /sys/fs/bcache. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_NAME "floor_bcache"
#define FLOOR_USAGE "[Bcache|Bcache Device]"
#include "floor_common.h"

#define MAXSET 8
#define MAXDEV 32
#define NSETF 20

static const char *const setfiles[NSETF] = {
    "average_key_size", "btree_cache_size", "cache_available_percent", "congested",
    "root_usage_percent", "tree_depth", "bucket_size", "block_size",
    "internal/active_journal_entries", "internal/btree_nodes", "internal/btree_used_percent",
    "internal/btree_read_average_duration_us", "internal/cache_read_races",
    "stats_total/cache_hits", "stats_total/cache_misses", "stats_total/cache_bypass_hits",
    "stats_total/cache_bypass_misses", "stats_total/cache_miss_collisions",
    "stats_total/cache_readaheads", "stats_total/bypassed",
};
static const char *const bfiles[] = {
    "state", "dirty_data", "writeback_rate", "sequential_cutoff", "io_errors",
    "stats_total/cache_hits", "stats_total/cache_misses", "stats_total/cache_bypass_hits",
    "stats_total/cache_bypass_misses", "stats_total/bypassed",
};
static const char *const cfiles[] = { "io_errors", "written", "metadata_written", "priority_stats" };

static char root[512] = "/", setdir[MAXSET][1024];
static rfile sf[MAXSET][NSETF], df[MAXDEV][10];
static int nset, ndev, devn[MAXDEV];
static DIR *top, *setd[MAXSET];

/* A decimal, or digits[.d]unit as bch_hprint writes them. */
static uint64_t size_of(const char *p)
{
    static const char units[] = "kMGTPE";
    char *e;
    uint64_t q = strtoull(p, &e, 10), d = 0, unit = 1;
    const char *u;
    if (*e == '.')
        d = strtoull(e + 1, &e, 10);
    if (*e && *e != '\n' && (u = strchr(units, *e)))
        for (long k = u - units; k >= 0; k--)
            unit <<= 10;
    return q * unit + d * (unit / 10);
}

/* bdev<N> or cache<N>: 1 backing, 2 cache, 0 neither. */
static int link_kind(const char *name)
{
    int k = !strncmp(name, "bdev", 4) ? 1 : !strncmp(name, "cache", 5) ? 2 : 0;
    const char *p = name + (k == 1 ? 4 : 5);
    if (!k || !*p)
        return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return k;
}

static void keep_file(rfile *f, int prio)
{
    const char *p = rf_read(f);
    if (!prio) {
        floor_keep(size_of(p));
        return;
    }
    for (int i = 0; i < 5 && p; i++) {              /* Unused .. Average */
        const char *c = strchr(p, ':');
        if (!c)
            break;
        floor_keep(strtoull(c + 1, NULL, 10));
        p = strchr(c, '\n');
        p = p ? p + 1 : NULL;
    }
}

static void collect_set(int set)
{
    struct dirent *de;
    uint64_t listed = 0;
    rewinddir(top);
    while ((de = readdir(top)) != NULL)
        listed += strlen(de->d_name) == 36 && de->d_name[8] == '-';
    floor_keep(listed);
    if (set == 0) {
        for (int s = 0; s < nset; s++)
            for (int k = 0; k < NSETF; k++)
                if (sf[s][k].fd >= 0)
                    keep_file(&sf[s][k], 0);
        return;
    }
    for (int s = 0; s < nset; s++) {
        if (!setd[s])
            continue;
        rewinddir(setd[s]);
        while ((de = readdir(setd[s])) != NULL)
            listed += link_kind(de->d_name) != 0;
    }
    floor_keep(listed);
    for (int i = 0; i < ndev; i++)
        for (int k = 0; k < devn[i]; k++)
            if (df[i][k].fd >= 0)
                keep_file(&df[i][k], devn[i] == 4 && k == 3);
}

static int open_file(rfile *f, const char *dir, const char *name)
{
    char path[1600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rf_open(f, path, 0);
    f->whole = 1;            /* sysfs attributes, or a fixture's regular files: one pread */
    return f->fd >= 0;
}

/* The sets and their devices, opened once (the provider keeps its files). */
static void open_all(void)
{
    char path[700];
    struct dirent *de;
    snprintf(path, sizeof path, "%s/sys/fs/bcache", root);
    if (!(top = opendir(path)))
        return;
    while ((de = readdir(top)) != NULL && nset < MAXSET) {
        DIR *d;
        if (strlen(de->d_name) != 36 || de->d_name[8] != '-')
            continue;
        snprintf(setdir[nset], sizeof setdir[nset], "%s/%s", path, de->d_name);
        for (int k = 0; k < NSETF; k++)
            open_file(&sf[nset][k], setdir[nset], setfiles[k]);
        if ((d = opendir(setdir[nset])) != NULL) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL && ndev < MAXDEV) {
                int cache = link_kind(e->d_name) == 2;
                char dir[1400];
                if (!link_kind(e->d_name))
                    continue;
                snprintf(dir, sizeof dir, "%s/%s", setdir[nset], e->d_name);
                devn[ndev] = cache ? 4 : 10;
                for (int k = 0; k < devn[ndev]; k++)
                    open_file(&df[ndev][k], dir, cache ? cfiles[k] : bfiles[k]);
                ndev++;
            }
            setd[nset] = d;
        }
        nset++;
    }
}

static const char *const set_names[] = { "Bcache", "Bcache Device" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 2 };
    const char *r = getenv("BENCH_ROOT");
    if (r && *r)
        snprintf(root, sizeof root, "%s", r);
    if (!floor_args(&b, argc, argv))
        b.want[0] = b.want[1] = 1;
    open_all();
    if (!nset) {
        printf("# floor_bcache: no %s/sys/fs/bcache sets\n", root);
        return 0;
    }
    printf("# floor_bcache: %d set(s), %d device(s) below %s; %d round(s) of %.2f s\n", nset, ndev,
           root, b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
