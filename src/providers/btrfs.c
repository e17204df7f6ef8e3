/* Btrfs (one instance per /sys/fs/btrfs/<fsid>, a mounted filesystem):
 * node_exporter's btrfs collector.  The layout is fs/btrfs/sysfs.c's and
 * Documentation/ABI/testing/sysfs-fs-btrfs's, with btrfs-progs' ch-sysfs.rst
 * for the versions:
 *   label, allocation/global_rsv_size, global_rsv_reserved and
 *   allocation/{data,metadata,system}/{total_bytes,bytes_used,disk_total,
 *   disk_used,bytes_may_use,bytes_pinned,bytes_readonly,bytes_reserved}:
 *   Linux 3.14 (a filesystem made with mixed block groups has allocation/
 *   mixed instead of data and metadata: the Data rows read it, the Metadata
 *   rows have no value);
 *   devices/<blockdev> (3.14), links to the block devices, whose size is in
 *   512-byte sectors;
 *   devinfo/<devid>/missing (5.6) and devinfo/<devid>/error_stats (5.14),
 *   summed over the devices (a device whose statistics the kernel has not
 *   loaded, "invalid", adds nothing);
 *   commit_stats (6.0).
 * A file the kernel lacks leaves its counters unset (no_data); EACCES is
 * no_access.
 *
 * Instances: the filesystem's label, or its fsid (the directory's name) when
 * it has none.  Labels that several mounted filesystems share are told apart
 * by the fsid: "label <fsid>" for each of them, so that neither depends on
 * which one the directory lists first; the id is the fsid's first 32 bits.
 * No /sys/fs/btrfs (no module) or no filesystem: zero instances.  Files are
 * kept open and read with one pread each, only those a wanted counter needs;
 * /sys/fs/btrfs is re-read each listing (readdir of a kept directory), and a
 * directory whose inode changed (unmounted and mounted again) is opened
 * afresh. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"
#include "btrfs.h"
#include "btrfs_fs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* The space info types and their files (allocation/<type>/<file>). */
enum { T_DATA, T_META, T_SYS, NT };
enum { A_TOTAL, A_USED, A_DISK_TOTAL, A_DISK_USED, A_MAY_USE, A_PINNED, A_READONLY, A_RESERVED,
       NA };
static const char *const tdirs[NT] = { "data", "metadata", "system" };
static const char *const afiles[NA] = { "total_bytes", "bytes_used", "disk_total", "disk_used",
                                        "bytes_may_use", "bytes_pinned", "bytes_readonly",
                                        "bytes_reserved" };

/* Fields of a filesystem's row: the one-number files first (field f is
 * file f), then the device sums and commit_stats. */
#define FA(t, a) ((t) * NA + (a))
enum { F_RSV_SIZE = NT * NA, F_RSV_RES, F_NDEV, F_DEVBYTES, F_MISSING, F_ERR,
       F_COMMIT = F_ERR + PL_BTE_N, NF = F_COMMIT + PL_BTC_N };
enum { FD_COMMIT = F_NDEV };   /* files: the one-number ones, then commit_stats */
_Static_assert(FD_COMMIT + 1 == PL_BT_FD_LABEL, "btrfs_fs.h counts these files");
typedef struct brow {
    uint64_t v[NF];
    uint8_t st[NF];
} brow;
enum { S_ROW, NSRC };
#define AF(t, a) PL_FIELD(S_ROW, FA(t, a))

/* Counters of each type, then the filesystem's. */
enum { K_TOTAL, K_USED, K_PCT, K_PCT_BASE, K_DTOTAL, K_DUSED, K_RATIO, K_RATIO_BASE, K_MAY_USE,
       K_PINNED, K_READONLY, K_RESERVED, NK };
#define CT(t, k) ((t) * NK + (k))
enum { C_RSV_SIZE = NT * NK, C_RSV_RES, C_NDEV, C_DEVBYTES, C_MISSING, C_WERR, C_RERR, C_FERR,
       C_CERR, C_GERR, C_COMMITS, C_LAST_MS, C_MAX_MS, C_AVG_MS, C_AVG_BASE, C_TOTAL_MS, NC };

#define TYPE_ROWS(R, t, T, dir) \
    R(CT(t, K_TOTAL), T " Total Bytes", "Size of the " dir " block groups, the space they " \
      "can hold (allocation/" dir "/total_bytes).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, GAUGE), AF(t, A_TOTAL)) \
    R(CT(t, K_USED), T " Used Bytes", "Bytes used in the " dir " block groups " \
      "(allocation/" dir "/bytes_used).", RAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), \
      AF(t, A_USED)) \
    R(CT(t, K_PCT), "% " T " Used", "bytes_used as a percentage of total_bytes " \
      "(allocation/" dir "/).", PERF_LARGE_RAW_FRACTION, CT(t, K_PCT_BASE), NOV, 0, \
      PL_U(NONE, 1, GAUGE), AF(t, A_USED)) \
    R(CT(t, K_PCT_BASE), "% " T " Used Base", "total_bytes, the base of % " T " Used " \
      "(allocation/" dir "/).", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), \
      AF(t, A_TOTAL)) \
    R(CT(t, K_DTOTAL), T " Disk Total Bytes", "Raw device space of the " dir " block groups, " \
      "copies and parity included (allocation/" dir "/disk_total).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), AF(t, A_DISK_TOTAL)) \
    R(CT(t, K_DUSED), T " Disk Used Bytes", "Raw device space used by " dir ", copies and " \
      "parity included (allocation/" dir "/disk_used).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), AF(t, A_DISK_USED)) \
    R(CT(t, K_RATIO), "% " T " Allocation Ratio", "disk_total over total_bytes as a " \
      "percentage: 100 single, 200 dup or raid1 (node_btrfs_allocation_ratio x 100; " \
      "allocation/" dir "/).", PERF_LARGE_RAW_FRACTION, CT(t, K_RATIO_BASE), ADV, 0, \
      PL_U(NONE, 1, GAUGE), AF(t, A_DISK_TOTAL)) \
    R(CT(t, K_RATIO_BASE), "% " T " Allocation Ratio Base", "total_bytes, the base of % " T \
      " Allocation Ratio (allocation/" dir "/).", PERF_LARGE_RAW_BASE, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), AF(t, A_TOTAL)) \
    R(CT(t, K_MAY_USE), T " May Use Bytes", "Bytes reserved for " dir " not yet written, " \
      "delayed allocation and the like (allocation/" dir "/bytes_may_use).", RAW, PL_NO_ID, \
      ADV, 0, PL_U(BYTES, 1, GAUGE), AF(t, A_MAY_USE)) \
    R(CT(t, K_PINNED), T " Pinned Bytes", "Bytes freed in the running transaction, free " \
      "once it commits (allocation/" dir "/bytes_pinned).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), AF(t, A_PINNED)) \
    R(CT(t, K_READONLY), T " Read-Only Bytes", "Bytes of " dir " block groups set read-only, " \
      "e.g. by balance or scrub (allocation/" dir "/bytes_readonly).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), AF(t, A_READONLY)) \
    R(CT(t, K_RESERVED), T " Reserved Bytes", "Bytes allocated for " dir " extents being " \
      "written, not yet in bytes_used (node_btrfs_reserved_bytes; allocation/" dir \
      "/bytes_reserved).", RAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), AF(t, A_RESERVED))

#define ERR_ROW(R, c, f, N, what, file) \
    R(c, N, "Errors " what " of every device since they were counted, summed " \
      "(devinfo/<devid>/error_stats " file "; Linux 5.14).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, F_ERR + (f)))

#define B_ROWS(R) \
    TYPE_ROWS(R, T_DATA, "Data", "data") \
    TYPE_ROWS(R, T_META, "Metadata", "metadata") \
    TYPE_ROWS(R, T_SYS, "System", "system") \
    R(C_RSV_SIZE, "Global Reserve Bytes", "Size of the global block reserve, metadata space " \
      "kept for emergencies (allocation/global_rsv_size).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ROW, F_RSV_SIZE)) \
    R(C_RSV_RES, "Global Reserve Reserved Bytes", "Bytes of the global block reserve " \
      "reserved now (allocation/global_rsv_reserved).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ROW, F_RSV_RES)) \
    R(C_NDEV, "Devices", "Block devices of the filesystem (entries of devices/).", RAW, \
      PL_NO_ID, NOV, 0, PL_U(COUNT, 1, DISCRETE), PL_FIELD(S_ROW, F_NDEV)) \
    R(C_DEVBYTES, "Devices Size Bytes", "Size of those block devices, summed " \
      "(devices/<dev>/size x 512; node_btrfs_device_size_bytes).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(BYTES, 1, DISCRETE), PL_FIELD(S_ROW, F_DEVBYTES)) \
    R(C_MISSING, "Missing Devices", "Devices the filesystem has but cannot find " \
      "(devinfo/<devid>/missing summed; Linux 5.6).", RAW, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_ROW, F_MISSING)) \
    ERR_ROW(R, C_WERR, PL_BTE_WRITE, "Write Errors", "writing", "write_errs") \
    ERR_ROW(R, C_RERR, PL_BTE_READ, "Read Errors", "reading", "read_errs") \
    ERR_ROW(R, C_FERR, PL_BTE_FLUSH, "Flush Errors", "flushing", "flush_errs") \
    ERR_ROW(R, C_CERR, PL_BTE_CORRUPTION, "Corruption Errors", "of checksums", \
            "corruption_errs") \
    ERR_ROW(R, C_GERR, PL_BTE_GENERATION, "Generation Errors", "of generations", \
            "generation_errs") \
    R(C_COMMITS, "Commits/sec", "Transaction commits per second (commit_stats commits; " \
      "Linux 6.0).", PERF_COUNTER_BULK_COUNT, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, COUNTER), \
      PL_FIELD(S_ROW, F_COMMIT + PL_BTC_COMMITS)) \
    R(C_LAST_MS, "Last Commit Milliseconds", "Duration of the last transaction commit " \
      "(commit_stats last_commit_ms).", RAW, PL_NO_ID, ADV, 0, PL_U(SECONDS, 1e-3, GAUGE), \
      PL_FIELD(S_ROW, F_COMMIT + PL_BTC_LAST_MS)) \
    R(C_MAX_MS, "Max Commit Milliseconds", "Longest transaction commit since the mount or " \
      "a reset (commit_stats max_commit_ms).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(SECONDS, 1e-3, GAUGE), PL_FIELD(S_ROW, F_COMMIT + PL_BTC_MAX_MS)) \
    R(C_AVG_MS, "Avg. Commit Milliseconds", "Mean duration of the commits between two " \
      "samples (commit_stats total_commit_ms over commits).", PERF_AVERAGE_BULK, C_AVG_BASE, \
      NOV, 0, PL_U(SECONDS, 1e-3, COUNTER), PL_FIELD(S_ROW, F_COMMIT + PL_BTC_TOTAL_MS)) \
    R(C_AVG_BASE, "Avg. Commit Milliseconds Base", "commits, the base of Avg. Commit " \
      "Milliseconds (commit_stats).", PERF_AVERAGE_BASE, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, COUNTER), PL_FIELD(S_ROW, F_COMMIT + PL_BTC_COMMITS)) \
    R(C_TOTAL_MS, "Commit Milliseconds Total", "Time spent in transaction commits since the " \
      "mount (commit_stats total_commit_ms).", RAW, PL_NO_ID, ADV, 0, \
      PL_U(SECONDS, 1e-3, COUNTER), PL_FIELD(S_ROW, F_COMMIT + PL_BTC_TOTAL_MS))

static const pl_counter_def counters[] = { B_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { B_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, brow) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

static int list_fs(pl_bt_state *s, pl_snapshot *snap)
{
    int e;
    pl_snap_clear(snap);
    if ((e = pl_bt_name_fs(s)) != 0)
        return e;
    for (uint32_t i = 0; i < s->n; i++)
        if (pl_snap_add(snap, s->v[i].name, s->v[i].id) < 0)
            return ENOMEM;
    return 0;
}

static int b_instances(void *state, pl_snapshot *snap)
{
    return list_fs(state, snap);
}

/* A per-collect view of what to read: need[f] for the fields the wanted
 * counters (and their bases) take; denied[f] for the fields whose file said
 * EACCES. */
typedef struct bneed {
    uint8_t need[NF], denied[NF];
} bneed;

static void need_of(const uint8_t *wanted, bneed *n)
{
    memset(n, 0, sizeof *n);
    for (uint32_t c = 0; c < NC; c++) {
        if (wanted && !wanted[c])
            continue;
        n->need[feeds[c].a] = 1;
        if (counters[c].base_id != PL_NO_ID)
            n->need[feeds[counters[c].base_id].a] = 1;
    }
}

/* The path of one-number file k of f: allocation/<type>/<file> or
 * allocation/global_rsv_*; the Data rows take allocation/mixed when the
 * filesystem has no allocation/data. */
static void num_path(const pl_bt_fs *f, int k, int mixed, char *rel, size_t size)
{
    if (k == F_RSV_SIZE || k == F_RSV_RES)
        snprintf(rel, size, PL_BT_ROOT "/%s/allocation/%s", f->fsid,
                 k == F_RSV_SIZE ? "global_rsv_size" : "global_rsv_reserved");
    else
        snprintf(rel, size, PL_BT_ROOT "/%s/allocation/%s/%s", f->fsid,
                 mixed ? "mixed" : tdirs[k / NA], afiles[k % NA]);
}

static void read_num(pl_bt_state *s, pl_bt_fs *f, int k, brow *r, bneed *n)
{
    char rel[128] = "", buf[32];
    int e;
    if (f->fd[k] < 0)
        num_path(f, k, 0, rel, sizeof rel);
    e = pl_read_once(&f->fd[k], s->env, rel, buf, sizeof buf);
    if (e == ENOENT && k / NA == T_DATA && k < F_RSV_SIZE) {
        num_path(f, k, 1, rel, sizeof rel);
        e = pl_read_once(&f->fd[k], s->env, rel, buf, sizeof buf);
    }
    if (e == EACCES)
        n->denied[k] = 1;
    else if (e == 0)
        r->st[k] = pl_bt_whole_u64(buf, &r->v[k]) ? PL_NS_OK : PL_NS_BAD;
}

/* Adds file k of every entry of t (rel: the entry's dir, "%s" its name,
 * then the file) into field f, each value times mul: the sum is set only
 * when every entry's file was read and whole. */
static void sum_subs(pl_bt_state *s, pl_bt_subs *t, const char *dir, int k, const char *file,
                     uint64_t mul, brow *r, int f, bneed *n)
{
    uint64_t sum = 0, v;
    for (uint32_t i = 0; i < t->n; i++) {
        char rel[NAME_MAX + 128] = "", buf[32];
        int e;
        if (t->v[i].fd[k] < 0)
            snprintf(rel, sizeof rel, "%s/%s/%s", dir, t->v[i].name, file);
        e = pl_read_once(&t->v[i].fd[k], s->env, rel, buf, sizeof buf);
        if (e == EACCES)
            n->denied[f] = 1;
        if (e || !pl_bt_whole_u64(buf, &v) || !pl_mul_ok(v, mul, &v) || !pl_add_ok(sum, v, &sum))
            return;
    }
    r->v[f] = sum;
    r->st[f] = PL_NS_OK;
}

/* devices/: the count, and the sizes summed when wanted. */
static void read_devices(pl_bt_state *s, pl_bt_fs *f, brow *r, bneed *n)
{
    char dir[80];
    int e;
    snprintf(dir, sizeof dir, PL_BT_ROOT "/%s/devices", f->fsid);
    if ((e = pl_bt_subs_sync(s->env, &f->devs, dir)) != 0) {
        n->denied[F_NDEV] = n->denied[F_DEVBYTES] = e == EACCES;
        return;
    }
    r->v[F_NDEV] = f->devs.n;
    r->st[F_NDEV] = PL_NS_OK;
    if (n->need[F_DEVBYTES])
        sum_subs(s, &f->devs, dir, 0, "size", 512, r, F_DEVBYTES, n);
}

/* Every device's error_stats added up; a device without statistics
 * ("invalid") adds nothing, a field that is bad or missing in any device
 * leaves the sum unset. */
static void sum_errors(pl_bt_state *s, pl_bt_fs *f, const char *dir, brow *r, bneed *n)
{
    uint64_t sum[PL_BTE_N] = { 0 };
    uint8_t ok[PL_BTE_N];
    memset(ok, 1, sizeof ok);
    for (uint32_t i = 0; i < f->info.n; i++) {
        char rel[NAME_MAX + 128] = "", buf[256];
        pl_btrfs_errs x;
        int e;
        if (f->info.v[i].fd[1] < 0)
            snprintf(rel, sizeof rel, "%s/%s/error_stats", dir, f->info.v[i].name);
        e = pl_read_once(&f->info.v[i].fd[1], s->env, rel, buf, sizeof buf);
        if (e) {
            if (e == EACCES)
                memset(n->denied + F_ERR, 1, PL_BTE_N);
            return;
        }
        pl_btrfs_errs_parse(buf, strlen(buf), &x);
        if (x.invalid)
            continue;
        for (int k = 0; k < PL_BTE_N; k++)
            ok[k] &= x.st[k] == PL_NS_OK && pl_add_ok(sum[k], x.v[k], &sum[k]);
    }
    for (int k = 0; k < PL_BTE_N; k++)
        if (ok[k]) {
            r->v[F_ERR + k] = sum[k];
            r->st[F_ERR + k] = PL_NS_OK;
        }
}

/* devinfo/ (5.6): missing devices and the error counters. */
static void read_devinfo(pl_bt_state *s, pl_bt_fs *f, brow *r, bneed *n)
{
    char dir[80];
    int e, errs = 0;
    snprintf(dir, sizeof dir, PL_BT_ROOT "/%s/devinfo", f->fsid);
    if ((e = pl_bt_subs_sync(s->env, &f->info, dir)) != 0) {
        if (e == EACCES)
            memset(n->denied + F_MISSING, 1, 1 + PL_BTE_N);
        return;
    }
    if (n->need[F_MISSING])
        sum_subs(s, &f->info, dir, 0, "missing", 1, r, F_MISSING, n);
    for (int k = 0; k < PL_BTE_N; k++)
        errs |= n->need[F_ERR + k];
    if (errs)
        sum_errors(s, f, dir, r, n);
}

static void read_commits(pl_bt_state *s, pl_bt_fs *f, brow *r, bneed *n)
{
    char rel[80] = "", buf[512];
    pl_btrfs_commits c;
    int e;
    if (f->fd[FD_COMMIT] < 0)
        snprintf(rel, sizeof rel, PL_BT_ROOT "/%s/commit_stats", f->fsid);
    if ((e = pl_read_once(&f->fd[FD_COMMIT], s->env, rel, buf, sizeof buf)) != 0) {
        if (e == EACCES)
            memset(n->denied + F_COMMIT, 1, PL_BTC_N);
        return;
    }
    pl_btrfs_commits_parse(buf, strlen(buf), &c);
    for (int k = 0; k < PL_BTC_N; k++) {
        r->v[F_COMMIT + k] = c.v[k];
        r->st[F_COMMIT + k] = c.st[k];
    }
}

static void read_fs(pl_bt_state *s, pl_bt_fs *f, brow *r, bneed *n)
{
    int any = 0;
    memset(r->st, PL_NS_ABSENT, sizeof r->st);
    memset(n->denied, 0, sizeof n->denied);
    for (int k = 0; k < F_NDEV; k++)
        if (n->need[k])
            read_num(s, f, k, r, n);
    if (n->need[F_NDEV] || n->need[F_DEVBYTES])
        read_devices(s, f, r, n);
    for (int k = F_MISSING; k < F_COMMIT; k++)
        any |= n->need[k];
    if (any)
        read_devinfo(s, f, r, n);
    any = 0;
    for (int k = F_COMMIT; k < NF; k++)
        any |= n->need[k];
    if (any)
        read_commits(s, f, r, n);
}

static int b_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    pl_bt_state *s = state;
    pl_feed_in in;
    bneed n;
    brow r;
    int e;
    if ((e = list_fs(s, snap)) != 0)
        return e;
    need_of(wanted, &n);
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->n; i++) {
        read_fs(s, &s->v[i], &r, &n);
        pl_feed_put(&in, S_ROW, &r);
        pl_feed_walk(&in, i, feeds, NC, wanted);
        for (uint32_t c = 0; c < NC; c++)
            if ((!wanted || wanted[c]) && n.denied[feeds[c].a])
                pl_snap_deny(snap, i, c);
    }
    return 0;
}

/* The fsid and the label (control characters as '_', as in the name) of an
 * instance. */
static int b_info(void *state, const char *instance, pl_info_fn emit, void *ud)
{
    pl_bt_state *s = state;
    char val[600];
    int e;
    if (!instance)
        return ENOENT;
    if ((e = pl_bt_name_fs(s)) != 0)
        return e;
    for (uint32_t i = 0; i < s->n; i++) {
        pl_bt_fs *f = &s->v[i];
        if (strcmp(f->name, instance) != 0)
            continue;
        if (emit(ud, "fsid", f->fsid))
            return 0;
        pl_fact_escape(f->label, val, sizeof val);
        if (val[0])
            emit(ud, "label", val);
        return 0;
    }
    return ENOENT;
}

static const pl_provider_ops b_ops = { pl_bt_open, pl_bt_close, b_instances, b_collect, NULL, b_info };

const pl_counterset_def pl_btrfs_def = {
    /* UUIDv5(perflib namespace, "Btrfs") */
    { 0xe598523e, 0xb088, 0x5f33, { 0xbe, 0xfb, 0x30, 0x2e, 0x66, 0xef, 0x0f, 0xc6 } },
    "Btrfs",
    "Mounted btrfs filesystems (/sys/fs/btrfs/<fsid>): data, metadata and system space "
    "(size, used, raw disk, reserved, pinned, may use, read-only, % used, allocation "
    "ratio), the global reserve, devices and their size, missing devices, device error "
    "counters summed, transaction commits; fsid and label as text facts.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &b_ops, 64000, NULL,
};
