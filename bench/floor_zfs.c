/* The C floor of ZFS, ZFS Pool and ZFS Dataset: what the providers do for
 * `\ZFS\*`, `\ZFS Pool(*)\*` and `\ZFS Dataset(*)\*`, with nothing else.
 *   ZFS       arcstats, zil, dmu_tx, zfetchstats and abdstats of
 *             /proc/spl/kstat/zfs kept open and read to their end (seq_files),
 *             each wanted entry found at its line of the last collect (else
 *             by its "\n<name> ") and its value parsed;
 *   ZFS Pool  /proc/spl/kstat/zfs and each pool's directory kept open and
 *             listed (rewinddir, readdir), each pool's state and objset-0x*
 *             files kept open and read, four values of each objset parsed,
 *             and <pool>/io when there is one;
 *   ZFS Dataset the same listings and files, six values and the dataset's
 *             name of each objset.
 * FLOOR_ZFS_ROOT, when set, is put before every path (a fixture tree: this
 * VM has no ZFS).  Prints "floor ZFS <ns> ..." for bench/collect.lua. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOOR_NAME "floor_zfs"
#define FLOOR_USAGE "[ZFS|ZFS Pool|ZFS Dataset]"
#include "floor_common.h"

#define NKS 5
#define MAXPOOL 8
#define MAXOBJ 64

static const char *const kfile[NKS] = { "arcstats", "zil", "dmu_tx", "zfetchstats", "abdstats" };
static const char *const knames[NKS][40] = {
    { "size", "c", "c_min", "c_max", "hits", "iohits", "misses", "demand_data_hits",
      "demand_data_misses", "demand_metadata_hits", "demand_metadata_misses",
      "prefetch_data_hits", "prefetch_data_misses", "prefetch_metadata_hits",
      "prefetch_metadata_misses", "mru_hits", "mfu_hits", "mru_ghost_hits", "mfu_ghost_hits",
      "l2_hits", "l2_misses", "l2_size", "l2_asize", "l2_read_bytes", "l2_write_bytes",
      "memory_throttle_count", "arc_meta_used", "arc_meta_limit", "data_size", "metadata_size",
      "hdr_size", "compressed_size", "uncompressed_size", "deleted", "evict_skip", "mutex_miss",
      NULL },
    { "zil_commit_count", "zil_commit_writer_count", "zil_itx_count",
      "zil_itx_metaslab_normal_count", "zil_itx_metaslab_normal_bytes",
      "zil_itx_metaslab_slog_count", "zil_itx_metaslab_slog_bytes", NULL },
    { "dmu_tx_assigned", "dmu_tx_delay", "dmu_tx_error", "dmu_tx_dirty_throttle",
      "dmu_tx_dirty_delay", "dmu_tx_dirty_over_max", "dmu_tx_quota", NULL },
    { "hits", "misses", NULL },
    { "struct_size", "linear_cnt", "linear_data_size", "scatter_cnt", "scatter_data_size",
      "scatter_chunk_waste", NULL },
};
static const char *const onames[] = { "reads", "writes", "nread", "nwritten", "nunlinks",
                                      "nunlinked", NULL };

static const char *root = "";
static rfile ks[NKS];
static size_t kat[NKS][40];
static int have[NKS];

typedef struct pool {
    char name[256];
    DIR *dir;
    rfile state, io;
    int has_io;
    char oname[MAXOBJ][32];
    rfile obj[MAXOBJ];
    size_t oat[MAXOBJ][6];
    int nobj;
} pool;
static pool pools[MAXPOOL];
static int npool;
static DIR *top;

/* The value of the entry name in a named kstat's text; *at is where its
 * line was last time, tried first (the order is fixed within a version). */
static void take(const char *text, size_t len, const char *name, size_t *at)
{
    size_t l = strlen(name);
    const char *p = text + *at;
    if (*at + l >= len || strncmp(p, name, l) || p[l] != ' ') {
        for (p = strchr(text, '\n'); p; p = strchr(p + 1, '\n'))
            if (!strncmp(p + 1, name, l) && p[1 + l] == ' ')
                break;
        if (!p)
            return;
        *at = (size_t)(++p - text);
    }
    p += l;
    while (*p == ' ')
        p++;
    while (*p >= '0' && *p <= '9')
        p++;                     /* the type */
    floor_keep(strtoull(p, NULL, 10));
}

static void collect_zfs(void)
{
    for (int k = 0; k < NKS; k++) {
        const char *t;
        if (!have[k])
            continue;
        t = rf_read(&ks[k]);
        for (int i = 0; knames[k][i]; i++)
            take(t, ks[k].len, knames[k][i], &kat[k][i]);
    }
}

static pool *pool_of(const char *name)
{
    char path[512];
    pool *p;
    for (int i = 0; i < npool; i++)
        if (!strcmp(pools[i].name, name))
            return &pools[i];
    if (npool == MAXPOOL || strlen(name) >= sizeof p->name)
        return NULL;
    p = &pools[npool++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(path, sizeof path, "%s/proc/spl/kstat/zfs/%s", root, name);
    p->dir = opendir(path);
    snprintf(path, sizeof path, "%s/proc/spl/kstat/zfs/%s/state", root, name);
    rf_open(&p->state, path, 0);
    snprintf(path, sizeof path, "%s/proc/spl/kstat/zfs/%s/io", root, name);
    p->has_io = rf_open(&p->io, path, 0);
    return p;
}

static rfile *obj_of(pool *p, const char *name)
{
    char path[600];
    for (int i = 0; i < p->nobj; i++)
        if (!strcmp(p->oname[i], name))
            return &p->obj[i];
    if (p->nobj == MAXOBJ || strlen(name) >= sizeof p->oname[0])
        return NULL;
    snprintf(p->oname[p->nobj], sizeof p->oname[0], "%s", name);
    snprintf(path, sizeof path, "%s/proc/spl/kstat/zfs/%s/%s", root, p->name, name);
    rf_open(&p->obj[p->nobj], path, 0);
    return &p->obj[p->nobj++];
}

/* ZFS Pool (datasets 0) reads four values of each objset; ZFS Dataset
 * (datasets 1) six, and copies the dataset's name, its instance. */
static void collect_pools(int datasets)
{
    struct dirent *de, *oe;
    rewinddir(top);
    while ((de = readdir(top)) != NULL) {
        pool *p;
        if (de->d_type != DT_DIR || de->d_name[0] == '.' || !(p = pool_of(de->d_name)) || !p->dir)
            continue;
        floor_keep((uint64_t)(unsigned char)rf_read(&p->state)[0]);
        if (p->has_io) {
            const char *t = strchr(strchr(rf_read(&p->io), '\n') + 1, '\n');
            for (int i = 0; t && i < 12; i++) {
                char *e;
                floor_keep(strtoull(t, &e, 10));
                t = e;
            }
        }
        rewinddir(p->dir);
        while ((oe = readdir(p->dir)) != NULL) {
            rfile *o;
            if (strncmp(oe->d_name, "objset-0x", 9) || !(o = obj_of(p, oe->d_name)))
                continue;
            const char *t = rf_read(o), *n;
            for (int i = 0; i < (datasets ? 6 : 4); i++)
                take(t, o->len, onames[i], &p->oat[o - p->obj][i]);
            if (datasets && (n = strstr(t, "\ndataset_name "))) {
                char name[256];
                n = strchr(n + 14, '7');
                if (n && sscanf(n + 1, " %255[^\n]", name) == 1)
                    floor_keep(strlen(name));
            }
        }
    }
}

static void collect_set(int set)
{
    if (set == 0)
        collect_zfs();
    else
        collect_pools(set == 2);
}

static const char *const set_names[] = { "ZFS", "ZFS Pool", "ZFS Dataset" };

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = 3 };
    char path[512];
    int any = 0;
    if (getenv("FLOOR_ZFS_ROOT"))
        root = getenv("FLOOR_ZFS_ROOT");
    if (!floor_args(&b, argc, argv))
        b.want[0] = b.want[1] = b.want[2] = 1;
    for (int k = 0; k < NKS; k++) {
        snprintf(path, sizeof path, "%s/proc/spl/kstat/zfs/%s", root, kfile[k]);
        any |= have[k] = rf_open(&ks[k], path, 0);
    }
    snprintf(path, sizeof path, "%s/proc/spl/kstat/zfs", root);
    if (!any || !(top = opendir(path))) {
        printf("# floor_zfs: no /proc/spl/kstat/zfs\n");
        return 0;
    }
    printf("# floor_zfs: %d round(s) of %.2f s\n", b.rounds, b.secs);
    floor_run(&b);
    return 0;
}
