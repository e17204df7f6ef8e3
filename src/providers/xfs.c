/* XFS (one instance per mounted XFS filesystem, and _Total): node_exporter's
 * xfs collector.  The kernel (fs/xfs/xfs_mount.c, xfs_mountfs) makes
 * /sys/fs/xfs/<s_id> for each mount, named by its super block's s_id (the
 * block device: sda1, dm-0, loop0), with stats/stats (Linux 4.4+) holding
 * that filesystem's counts since it was mounted.  _Total is the global
 * /sys/fs/xfs/stats/stats, the same file as /proc/fs/xfs/stat: every
 * XFS_STATS_INC (fs/xfs/xfs_stats.h) adds to it and to the filesystem's, but
 * it keeps the counts of filesystems since unmounted and is cleared apart
 * (/proc/sys/fs/xfs/stats_clear), so it is the kernel's own total since
 * the module loaded, not the sum of the instances; it is there while the
 * xfs module is (the "stats" entry), even with nothing mounted.  The
 * directory also has "debug" on DEBUG kernels: an entry without
 * stats/stats is no filesystem.
 *
 * /sys/fs/xfs is listed at each collect (rewinddir and readdir of a kept
 * directory: mounts come and go, and nothing cheaper tells); each stats
 * file is kept open and read with one pread, only when a wanted counter
 * needs it.  No /sys/fs/xfs (no xfs module): zero instances, tried again
 * at the next collect, as mounting loads the module.  A filesystem's id is
 * given on first sight and kept while it stays mounted. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "xfs_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR_REL "sys/fs/xfs"
#define NAME_CAP 64              /* s_id is 32 bytes (include/linux/fs.h) */
#define TOTAL_ID 0xFFFFFFFEu
#define NO_ID 0xFFFFFFFFu
#define PAGE_CAP 8192            /* the kernel writes at most one page */

enum { S_XS, NSRC };

static const pl_counter_def counters[] = { XFS_ROWS(PL_ROW_COUNTER, PL_ROW_COUNTER4) };
static const pl_feed feeds[] = { XFS_ROWS(PL_ROW_FEED, PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, pl_xfsstat) };
#define NC ((uint32_t)(sizeof counters / sizeof counters[0]))
_Static_assert(sizeof counters / sizeof counters[0] == PL_XS_FIELDS, "one row per field");

typedef struct xfs_fs {
    char dir[NAME_CAP];          /* the entry's name */
    char name[NAME_CAP];         /* the instance name (sanitized) */
    uint32_t id;
    int fd;                      /* <dir>/stats/stats, kept open */
    int notfs;                   /* no stats/stats: not a filesystem */
    int opened;                  /* its stats file was open once */
    uint64_t seen;               /* the listing that last saw it */
} xfs_fs;

typedef struct xfs_state {
    pl_env *env;
    DIR *dir;
    xfs_fs *fs;
    uint32_t n, cap, next_id;
    uint64_t gen;
    int total;                   /* the listing saw "stats" */
    int total_fd;
    pl_xfsstat row;
    char buf[PAGE_CAP];
} xfs_state;

static int xfs_open(pl_env *env, void **state)
{
    xfs_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->total_fd = -1;
    *state = s;
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void xfs_close(void *state)
{
    xfs_state *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        close_fd(&s->fs[i].fd);
    free(s->fs);
    close_fd(&s->total_fd);
    if (s->dir)
        closedir(s->dir);
    pl_env_unref(s->env);
    free(s);
}

/* One pread of the stats file of entry dir ("stats": the global one), fd
 * kept in *fd: 0 with s->buf and *len, or errno. */
static int read_stats(xfs_state *s, const char *dir, int *fd, size_t *len)
{
    char rel[NAME_CAP + 32] = "";
    int e;
    if (*fd < 0)
        snprintf(rel, sizeof rel, strcmp(dir, "stats") ? DIR_REL "/%s/stats/stats" : DIR_REL "/%s/stats",
                 dir);
    if ((e = pl_read_once(fd, s->env, rel, s->buf, sizeof s->buf)) != 0)
        return e;
    *len = strlen(s->buf);
    return 0;
}

/* Opens f's stats file: notfs when there is none (yet: the kernel adds the
 * stats kobject just after the mount's own directory). */
static void probe(xfs_state *s, xfs_fs *f)
{
    char rel[NAME_CAP + 32];
    snprintf(rel, sizeof rel, DIR_REL "/%s/stats/stats", f->dir);
    f->fd = pl_open_rel(s->env, rel);
    f->notfs = f->fd < 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* A new entry's record. */
static int add_fs(xfs_state *s, const char *dir)
{
    xfs_fs *f;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 8;
        xfs_fs *nf = realloc(s->fs, cap * sizeof *nf);
        if (!nf)
            return ENOMEM;
        s->fs = nf;
        s->cap = cap;
    }
    f = &s->fs[s->n++];
    memset(f, 0, sizeof *f);
    memcpy(f->dir, dir, strlen(dir) + 1);
    memcpy(f->name, dir, strlen(dir) + 1);
    pl_name_sanitize(f->name);
    f->id = NO_ID;               /* given in name order once listed */
    f->seen = s->gen;
    probe(s, f);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const xfs_fs *)a)->name, ((const xfs_fs *)b)->name);
}

/* Brings the records in line with the directory: 0 or ENOMEM. */
static int list_fs(xfs_state *s)
{
    struct dirent *de;
    uint32_t j = 0, added = 0;
    s->gen++;
    s->total = 0;
    if (!s->dir) {
        int fd = pl_open_rel(s->env, DIR_REL);
        if (fd >= 0 && !(s->dir = fdopendir(fd)))
            close(fd);
    } else {
        rewinddir(s->dir);
    }
    while (s->dir && (de = readdir(s->dir)) != NULL) {
        const char *d = de->d_name;
        uint32_t i;
        if (d[0] == '.' || strlen(d) >= NAME_CAP)
            continue;
        if (!strcmp(d, "stats")) {
            s->total = 1;
            continue;
        }
        for (i = 0; i < s->n && strcmp(s->fs[i].dir, d) != 0; i++)
            ;
        if (i == s->n) {
            if (add_fs(s, d) != 0)
                return ENOMEM;
            added++;
        } else if (s->fs[i].notfs) {
            probe(s, &s->fs[i]);     /* its stats may have come since */
            added += !s->fs[i].notfs;
        }
        s->fs[i].seen = s->gen;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->fs[i].seen != s->gen) {
            close_fd(&s->fs[i].fd);
            continue;
        }
        s->fs[j++] = s->fs[i];
    }
    s->n = j;
    if (added && s->n > 1)
        qsort(s->fs, s->n, sizeof *s->fs, by_name);
    for (uint32_t i = 0; added && i < s->n; i++)
        if (s->fs[i].id == NO_ID && !s->fs[i].notfs)
            s->fs[i].id = s->next_id++;
    if (s->dir && !s->total && s->n == 0) {
        closedir(s->dir);        /* the module went away: open it anew next time */
        s->dir = NULL;
    }
    if (!s->total)
        close_fd(&s->total_fd);
    return 0;
}

/* The stats file of an instance into s->row when read is set (else
 * nothing): 1 when the file was opened anew after its old fd went stale,
 * as when the device was unmounted and mounted again between collects. */
static int read_row(xfs_state *s, const char *dir, int *fd, int read)
{
    int had = *fd >= 0;
    size_t len;
    memset(s->row.st, 0, sizeof s->row.st);
    if (!read || read_stats(s, dir, fd, &len) != 0)
        return 0;
    pl_xfsstat_parse(s->buf, len, &s->row);
    return !had;
}

static int put_inst(xfs_state *s, pl_feed_in *in, pl_snapshot *snap, const char *name,
                    uint32_t id, int values, const uint8_t *wanted)
{
    int k = pl_snap_add(snap, name, id);
    if (k < 0)
        return ENOMEM;
    if (values) {
        pl_feed_put(in, S_XS, &s->row);
        pl_feed_walk(in, (uint32_t)k, feeds, NC, wanted);
    }
    return 0;
}

static int xfs_read(xfs_state *s, const uint8_t *wanted, pl_snapshot *snap, int values)
{
    int read = values && pl_feed_need(feeds, NC, wanted) != 0, e;
    pl_feed_in in;
    pl_snap_clear(snap);
    if ((e = list_fs(s)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->n; i++) {
        xfs_fs *f = &s->fs[i];
        if (f->notfs)
            continue;
        /* counts start again from 0 in a new mount: a new instance id */
        if (read_row(s, f->dir, &f->fd, read) && f->opened)
            f->id = s->next_id++;
        f->opened |= f->fd >= 0;
        if ((e = put_inst(s, &in, snap, f->name, f->id, values, wanted)) != 0)
            return e;
    }
    if (!s->total)
        return 0;
    read_row(s, "stats", &s->total_fd, read);
    return put_inst(s, &in, snap, "_Total", TOTAL_ID, values, wanted);
}

PL_READ_OPS(xfs, xfs_open, xfs_close, xfs_read);

const pl_counterset_def pl_xfs_def = {
    /* UUIDv5(perflib namespace, "XFS") */
    { 0x0dd62cde, 0xd958, 0x5a00, { 0x92, 0xae, 0x43, 0x09, 0x7f, 0x0f, 0x8f, 0xce } },
    "XFS",
    "XFS filesystems (/sys/fs/xfs/<device>/stats/stats, Linux 4.4+) and _Total, the global "
    "/sys/fs/xfs/stats/stats (= /proc/fs/xfs/stat: counts since the module loaded, unmounted "
    "filesystems included): extent allocation, B-tree, block mapping, directory, transaction, "
    "inode, log, AIL, read/write, attribute, buffer and quota operations per second, bytes "
    "read and written; no instances without the xfs module.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &xfs_ops, 63000, NULL,
};
