/* Btrfs Device (one instance per /sys/fs/btrfs/<fsid>/devinfo/<devid>,
 * named "<filesystem> <devid>", the filesystem named as in the Btrfs set;
 * id: the fsid's first 16 bits << 16 | the devid's low 16 bits): the device
 * error counters node_exporter reports per device (node_btrfs_device_
 * errors_total, which it takes from the BTRFS_IOC_GET_DEV_STATS ioctl; here
 * from sysfs).  fs/btrfs/sysfs.c's devid_attrs, versions after btrfs-progs'
 * ch-sysfs.rst:
 *   error_stats (Linux 5.14): write_errs, read_errs, flush_errs,
 *   corruption_errs, generation_errs (btrfs.h); "invalid" (statistics not
 *   loaded, e.g. a missing device): no values;
 *   missing, writeable, replace_target (5.6): 0 or 1;
 *   scrub_speed_max (5.14): the scrub limit in bytes per second, 0 none.
 * devinfo/ came with 5.6: an older kernel has no instances.  The size of a
 * device is not here: devinfo/<devid> does not say which block device of
 * devices/ it is (the Btrfs set sums their sizes).  A file the kernel lacks
 * leaves its counters unset; EACCES is no_access.  Files are kept open and
 * read with one pread each, only those a wanted counter needs. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "btrfs.h"
#include "btrfs_fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* The kept files of a devinfo entry; the one-number ones are also the
 * fields after the error counters. */
enum { K_ERRS, K_MISSING, K_WRITEABLE, K_REPLACE, K_SCRUB, NK };
_Static_assert(NK <= PL_BT_SUBFD, "btrfs_fs.h keeps this many files");
static const char *const files[NK] = { "error_stats", "missing", "writeable",
                                       "replace_target", "scrub_speed_max" };
enum { F_ERR, F_MISSING = F_ERR + PL_BTE_N, F_WRITEABLE, F_REPLACE, F_SCRUB, NF };
#define FIELD_OF(k) (F_MISSING + (k) - K_MISSING)
typedef struct drow {
    uint64_t v[NF];
    uint8_t st[NF];
} drow;
enum { S_ROW, NSRC };

#define ERR_ROW(R, f, N, what, file) \
    R(F_ERR + (f), N, "Errors " what " on this device since they were counted " \
      "(devinfo/<devid>/error_stats " file "; Linux 5.14).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, F_ERR + (f)))

#define D_ROWS(R) \
    ERR_ROW(R, PL_BTE_WRITE, "Write Errors", "writing", "write_errs") \
    ERR_ROW(R, PL_BTE_READ, "Read Errors", "reading", "read_errs") \
    ERR_ROW(R, PL_BTE_FLUSH, "Flush Errors", "flushing", "flush_errs") \
    ERR_ROW(R, PL_BTE_CORRUPTION, "Corruption Errors", "of checksums", "corruption_errs") \
    ERR_ROW(R, PL_BTE_GENERATION, "Generation Errors", "of generations", "generation_errs") \
    R(F_MISSING, "Missing", "1 when the filesystem cannot find the device, else 0 " \
      "(devinfo/<devid>/missing; Linux 5.6).", RAW, PL_NO_ID, NOV, 0, PL_U(NONE, 1, GAUGE), \
      PL_FIELD(S_ROW, F_MISSING)) \
    R(F_WRITEABLE, "Writeable", "1 when the filesystem may write to the device, else 0 " \
      "(devinfo/<devid>/writeable; Linux 5.6).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(NONE, 1, GAUGE), PL_FIELD(S_ROW, F_WRITEABLE)) \
    R(F_REPLACE, "Replace Target", "1 while the device is the target of a device replace, " \
      "else 0 (devinfo/<devid>/replace_target; Linux 5.6).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(NONE, 1, GAUGE), PL_FIELD(S_ROW, F_REPLACE)) \
    R(F_SCRUB, "Scrub Speed Limit", "Most bytes per second a scrub reads from the device, " \
      "0 for no limit (devinfo/<devid>/scrub_speed_max; Linux 5.14).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES_PER_SECOND, 1, DISCRETE), PL_FIELD(S_ROW, F_SCRUB))

static const pl_counter_def counters[] = { D_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { D_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, drow) };
_Static_assert(sizeof counters / sizeof counters[0] == NF, "one row per field");

/* Lists the filesystems and their devinfo entries (devid order) as the
 * instances.  0 or ENOMEM. */
static int list_devs(pl_bt_state *s, pl_snapshot *snap)
{
    char dir[80], name[sizeof s->v->name + NAME_MAX + 2];
    int e;
    pl_snap_clear(snap);
    if ((e = pl_bt_name_fs(s)) != 0)
        return e;
    for (uint32_t i = 0; i < s->n; i++) {
        pl_bt_fs *f = &s->v[i];
        snprintf(dir, sizeof dir, PL_BT_ROOT "/%s/devinfo", f->fsid);
        if ((e = pl_bt_subs_sync(s->env, &f->info, dir)) == ENOMEM)
            return e;
        if (e)                        /* before 5.6, or not readable: no devices */
            continue;
        pl_bt_subs_sort_num(&f->info);
        for (uint32_t d = 0; d < f->info.n; d++) {
            uint32_t devid = (uint32_t)strtoul(f->info.v[d].name, NULL, 10);
            snprintf(name, sizeof name, "%s %s", f->name, f->info.v[d].name);
            if (pl_snap_add(snap, name, (f->id & 0xffff0000u) | (devid & 0xffffu)) < 0)
                return ENOMEM;
        }
    }
    return 0;
}

static int d_instances(void *state, pl_snapshot *snap)
{
    return list_devs(state, snap);
}

/* File k of entry b: its value(s) into r; EACCES marks its fields in denied. */
static void read_file(pl_bt_state *s, const pl_bt_fs *f, pl_bt_sub *b, int k, drow *r,
                      uint8_t *denied)
{
    char rel[NAME_MAX + 128] = "", buf[256];
    int e;
    if (b->fd[k] < 0)
        snprintf(rel, sizeof rel, PL_BT_ROOT "/%s/devinfo/%s/%s", f->fsid, b->name, files[k]);
    if ((e = pl_read_once(&b->fd[k], s->env, rel, buf, sizeof buf)) != 0) {
        if (e == EACCES) {
            if (k == K_ERRS)
                memset(denied + F_ERR, 1, PL_BTE_N);
            else
                denied[FIELD_OF(k)] = 1;
        }
        return;
    }
    if (k == K_ERRS) {
        pl_btrfs_errs x;
        pl_btrfs_errs_parse(buf, strlen(buf), &x);
        for (int j = 0; j < PL_BTE_N && !x.invalid; j++) {
            r->v[F_ERR + j] = x.v[j];
            r->st[F_ERR + j] = x.st[j];
        }
    } else if (pl_bt_whole_u64(buf, &r->v[FIELD_OF(k)])) {
        r->st[FIELD_OF(k)] = PL_NS_OK;
    } else {
        r->st[FIELD_OF(k)] = PL_NS_BAD;
    }
}

static int d_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_bt_state *s = state;
    uint8_t need[NK] = { 0 }, denied[NF];
    uint32_t inst = 0;
    pl_feed_in in;
    drow r;
    int e;
    if ((e = list_devs(s, snap)) != 0)
        return e;
    for (int c = 0; c < NF; c++)
        if (!wanted || wanted[c])
            need[c < F_MISSING ? K_ERRS : K_MISSING + c - F_MISSING] = 1;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t d = 0; d < s->v[i].info.n; d++, inst++) {
            memset(r.st, PL_NS_ABSENT, sizeof r.st);
            memset(denied, 0, sizeof denied);
            for (int k = 0; k < NK; k++)
                if (need[k])
                    read_file(s, &s->v[i], &s->v[i].info.v[d], k, &r, denied);
            pl_feed_put(&in, S_ROW, &r);
            pl_feed_walk(&in, inst, feeds, NF, wanted);
            for (uint32_t c = 0; c < NF; c++)
                if ((!wanted || wanted[c]) && denied[c])
                    pl_snap_deny(snap, inst, c);
        }
    return 0;
}

static const pl_provider_ops d_ops = { pl_bt_open, pl_bt_close, d_instances, d_collect, NULL,
                                       NULL };

const pl_counterset_def pl_btrfs_dev_def = {
    /* UUIDv5(perflib namespace, "Btrfs Device") */
    { 0x0ff4c0d6, 0x2296, 0x5ce0, { 0xb2, 0xd4, 0x3a, 0xf5, 0xbc, 0x4e, 0x32, 0x25 } },
    "Btrfs Device",
    "Devices of mounted btrfs filesystems (/sys/fs/btrfs/<fsid>/devinfo/<devid>, Linux 5.6+): "
    "write, read, flush, corruption and generation error counters, missing, writeable, "
    "replace target, scrub speed limit; no instances without btrfs.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NF, counters, &d_ops, 73000, NULL,
};
