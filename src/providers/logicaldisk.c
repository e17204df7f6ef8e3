/* LogicalDisk: one instance per visible storage mount of
 * /proc/self/mountinfo (id = mount ID, name = the octal-unescaped mount
 * point, made unique as Process names are: the first keeps the bare name,
 * later ones in mount order get #1, #2 ...), plus _Total.
 *
 * Storage means a filesystem that holds data with a size: ext4, xfs, btrfs,
 * vfat, zfs, nfs ... and tmpfs (memory, but it fills up: /tmp, /dev/shm,
 * /run).  Left out: filesystems without storage (proc, sysfs, cgroup,
 * devtmpfs, debugfs, ramfs, ...), read-only images that are always full
 * (iso9660, squashfs, erofs), overlay except as the root (a container's
 * root; elsewhere it shows its upper layer's filesystem again), and every
 * mount inside a proc or sysfs tree (the tmpfs on /sys/fs/cgroup holding
 * cgroup v1 hierarchies).  A mount is hidden when a later mount sits on its
 * mount point or on a directory above it (statvfs of the path would see the
 * upper one).  Space and inode counts come from statvfs, which
 * runs in collect only, and only when the root is "/"; below any other root
 * it reads a fixture file instead:
 *
 *   <root>/statvfs/<mount ID>:  "frsize blocks bfree bavail files ffree\n"
 *
 * Remote filesystems (nfs, nfs4, cifs, smb3, fuse.sshfs, ceph, glusterfs) are
 * not statvfs'd, since a dead server hangs the call, unless the environment
 * variable PERFLIB_STATVFS_REMOTE is set to 1 when the query opens; their
 * space counters are then unset and not in _Total.  I/O counters are those
 * of the /proc/diskstats line whose major:minor is mountinfo field 3 (none
 * for tmpfs, NFS, overlay or btrfs, whose devices are 0:N). */
#include "disk.h"
#include "pl_names.h"
#include "providers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum {
    L_FREE, L_FREE_BASE, L_FREE_MB, L_IO,
    L_TOTAL_MB = L_IO + PL_DISK_NIO, L_FREE_B, L_TOTAL_B, L_USED_B, L_INO, L_INO_BASE,
    L_FREE_INO, L_TOTAL_INO, L_RO, L_N
};

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
/* Space and inode rows are the collect's own (statvfs); the I/O rows are
 * fed by the mount's device's values (disk.h). */
#define LD_ROWS(R) \
    R(64, "% Free Space", "Space available to unprivileged users as a share of the " \
        "filesystem's size, as df's Avail (statvfs f_bavail over f_blocks, times f_frsize).", \
        PERF_LARGE_RAW_FRACTION, 65, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(65, "% Free Space Base", "Size of the filesystem in bytes (statvfs f_blocks x " \
        "f_frsize), the base of % Free Space.", PERF_LARGE_RAW_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1, DISCRETE), PL_BY_HAND()) \
    R(66, "Free Megabytes", "Space available to unprivileged users in MiB (statvfs " \
        "f_bavail x f_frsize / 2^20).", LRAW, PL_NO_ID, PERF_DETAIL_NOVICE, 0, PL_U(BYTES, 1048576, GAUGE), PL_BY_HAND()) \
    PL_DISK_IO_ROWS(R, "the mount's device line of /proc/diskstats,") \
    R(67, "Total Megabytes", "Size of the filesystem in MiB (statvfs f_blocks x " \
        "f_frsize / 2^20).", LRAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(BYTES, 1048576, DISCRETE), PL_BY_HAND()) \
    R(68, "Free Bytes", "Space available to unprivileged users in bytes (statvfs " \
        "f_bavail x f_frsize).", LRAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(69, "Total Bytes", "Size of the filesystem in bytes (statvfs f_blocks x " \
        "f_frsize).", LRAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(BYTES, 1, DISCRETE), PL_BY_HAND()) \
    R(70, "Used Bytes", "Space in use in bytes, as df's Used (statvfs (f_blocks - " \
        "f_bfree) x f_frsize).", LRAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(BYTES, 1, GAUGE), PL_BY_HAND()) \
    R(71, "% Free Inodes", "Free inodes as a share of all inodes (statvfs f_ffree over " \
        "f_files); unset on filesystems without an inode limit (f_files 0, as btrfs).", \
        PERF_LARGE_RAW_FRACTION, 72, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(72, "% Free Inodes Base", "Inodes of the filesystem (statvfs f_files), the base of " \
        "% Free Inodes.", PERF_LARGE_RAW_BASE, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, DISCRETE), PL_BY_HAND()) \
    R(73, "Free Inodes", "Free inodes (statvfs f_ffree); unset when f_files is 0.", \
        LRAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, GAUGE), PL_BY_HAND()) \
    R(74, "Total Inodes", "Inodes of the filesystem (statvfs f_files); unset when it is 0.", \
        LRAW, PL_NO_ID, PERF_DETAIL_ADVANCED, 0, PL_U(COUNT, 1, DISCRETE), PL_BY_HAND()) \
    R(75, "Read Only", "1 when the mount or its superblock is read-only (the ro option " \
        "in /proc/self/mountinfo fields 6 or 11), else 0.", PERF_COUNTER_RAWCOUNT, PL_NO_ID, \
        PERF_DETAIL_ADVANCED, 0, PL_U(NONE, 1, DISCRETE), PL_BY_HAND())

static const pl_counter_def counters[] = { LD_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { LD_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[] = { PL_DS_SRC };

#define NC (sizeof counters / sizeof counters[0])
_Static_assert(NC == L_N, "counter layout");

/* Filesystem types without storage, or never worth a free-space figure. */
static const char *const pseudo[] = {
    "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts",
    "devtmpfs", "efivarfs", "fusectl", "fuse.gvfsd-fuse", "fuse.lxcfs", "fuse.portal",
    "hugetlbfs", "iso9660", "mqueue", "nsfs", "proc", "procfs", "pstore", "ramfs",
    "rpc_pipefs", "securityfs", "selinuxfs", "squashfs", "erofs", "sysfs", "tracefs", NULL
};
/* Kernel interface trees: nothing mounted inside them is a logical disk. */
static const char *const kernel_tree[] = { "proc", "sysfs", NULL };
static const char *const remote[] = {
    "nfs", "nfs4", "cifs", "smb3", "fuse.sshfs", "ceph", "glusterfs", NULL
};

static int in_list(const char *const *list, const char *s, size_t n)
{
    for (; *list; list++)
        if (strlen(*list) == n && memcmp(*list, s, n) == 0)
            return 1;
    return 0;
}

/* What a mountinfo line is for LogicalDisk. */
enum { MK_STORAGE, MK_PSEUDO, MK_KERNEL };

typedef struct mnt {
    uint32_t id, parent, major, minor;
    uint32_t up;             /* index of the parent mount, NO_UP for none (set by classify) */
    size_t name;             /* offset into the name pool */
    int ro, remote, kind;
    int visible;             /* a storage mount that nothing covers: an instance */
    /* statvfs */
    int have;
    uint64_t frsize, blocks, bfree, bavail, files, ffree;
} mnt;

typedef struct ldstate {
    pl_env *env;
    int real;                /* root is "/": statvfs; else fixture files */
    int remote_ok;           /* PERFLIB_STATVFS_REMOTE=1 */
    pl_file mountinfo, fx;
    pl_diskstats ds;
    mnt *m;
    uint32_t nm, cap;
    char *pool;
    size_t plen, pcap;
    pl_names names;          /* unique instance names (name, name#1 ...) */
    char *iname;             /* scratch: an instance name with its #N */
    size_t icap;
} ldstate;

static void ld_close(void *state)
{
    ldstate *s = state;
    if (!s)
        return;
    pl_file_close(&s->mountinfo);
    pl_file_close(&s->fx);
    pl_diskstats_free(&s->ds);
    free(s->m);
    free(s->pool);
    free(s->iname);
    pl_names_free(&s->names);
    pl_env_unref(s->env);
    free(s);
}

static int ld_open(pl_env *env, void **state)
{
    ldstate *s = calloc(1, sizeof *s);
    const char *opt = getenv("PERFLIB_STATVFS_REMOTE");
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->real = strcmp(pl_env_root_prefix(env), "/") == 0;
    s->remote_ok = opt && strcmp(opt, "1") == 0;
    pl_file_init(&s->mountinfo);
    pl_file_init(&s->fx);
    pl_names_init(&s->names);
    if (pl_diskstats_init(&s->ds, env, 0, 1)) {
        ld_close(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

/* Copies the field at p (up to a blank) into the pool, undoing the kernel's
 * \ooo escapes of space, tab, newline and backslash; returns its offset or
 * (size_t)-1 for ENOMEM. */
static size_t pool_unescape(ldstate *s, const char *p, size_t n)
{
    size_t off = s->plen;
    if (s->plen + n + 1 > s->pcap) {
        size_t cap = s->pcap ? s->pcap : 1024;
        while (cap < s->plen + n + 1)
            cap *= 2;
        char *np = realloc(s->pool, cap);
        if (!np)
            return (size_t)-1;
        s->pool = np;
        s->pcap = cap;
    }
    char *o = s->pool + s->plen;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\' && i + 3 < n && p[i + 1] >= '0' && p[i + 1] <= '3' &&
            p[i + 2] >= '0' && p[i + 2] <= '7' && p[i + 3] >= '0' && p[i + 3] <= '7') {
            char c = (char)((p[i + 1] - '0') * 64 + (p[i + 2] - '0') * 8 + (p[i + 3] - '0'));
            if (c != '\0') {
                *o++ = c;
                i += 3;
                continue;
            }
        }
        *o++ = p[i];
    }
    *o++ = '\0';
    s->plen = (size_t)(o - s->pool);
    return off;
}

/* Next blank-separated field of the line: *p advanced past it. */
static int field(const char **p, const char **f, size_t *n)
{
    const char *q = *p;
    while (*q == ' ')
        q++;
    *f = q;
    while (*q && *q != ' ' && *q != '\n')
        q++;
    *n = (size_t)(q - *f);
    *p = q;
    return *n > 0;
}

static int has_ro(const char *opts, size_t n)
{
    return (n == 2 || (n > 2 && opts[2] == ',')) && opts[0] == 'r' && opts[1] == 'o';
}

#define NO_UP UINT32_MAX

static const mnt *parent_of(const ldstate *s, const mnt *m)
{
    return m->up == NO_UP ? NULL : &s->m[m->up];
}

/* Each mount's parent as an index, found once per listing: the walks up the
 * tree below then cost one step a level instead of a search. */
static void link_parents(ldstate *s)
{
    for (uint32_t i = 0; i < s->nm; i++) {
        mnt *m = &s->m[i];
        m->up = NO_UP;
        for (uint32_t j = 0; m->parent != m->id && j < s->nm; j++)
            if (s->m[j].id == m->parent) {
                m->up = j;
                break;
            }
    }
}

/* 1 when mount a is b or one of b's ancestors in the mount tree (parent
 * chains are bounded: a hostile file may loop them). */
static int mount_above(const ldstate *s, const mnt *a, const mnt *b)
{
    for (uint32_t step = 0; b && step <= s->nm; step++) {
        if (b == a)
            return 1;
        b = parent_of(s, b);
    }
    return 0;
}

/* 1 when path `dir` is `path` or a directory above it. */
static int path_covers(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (strncmp(dir, path, n) != 0)
        return 0;
    return path[n] == '\0' || path[n] == '/' || (n > 0 && dir[n - 1] == '/');
}

/* Mount i is covered by a mount on its mount point or on a directory above
 * it, mounted later (after it in mountinfo, or on top of it), that is not
 * one of the mounts it sits on. */
static int covered(ldstate *s, uint32_t i)
{
    const mnt *m = &s->m[i];
    for (uint32_t j = 0; j < s->nm; j++) {
        const mnt *o = &s->m[j];
        if (j == i || !path_covers(s->pool + o->name, s->pool + m->name) ||
            mount_above(s, o, m))
            continue;
        if (j > i || mount_above(s, m, o))
            return 1;
    }
    return 0;
}

/* Kinds inherited from the mounts above, then visibility. */
static void classify(ldstate *s)
{
    link_parents(s);
    for (uint32_t i = 0; i < s->nm; i++) {
        const mnt *up = &s->m[i];
        for (uint32_t step = 0; s->m[i].kind != MK_KERNEL && step <= s->nm; step++) {
            if (!(up = parent_of(s, up)))
                break;
            if (up->kind == MK_KERNEL)
                s->m[i].kind = MK_KERNEL;
        }
    }
    for (uint32_t i = 0; i < s->nm; i++)
        s->m[i].visible = s->m[i].kind == MK_STORAGE && !covered(s, i);
}

static int mount_kind(const char *type, size_t n, const char *mp, size_t mpn)
{
    if (in_list(kernel_tree, type, n))
        return MK_KERNEL;
    if (in_list(pseudo, type, n))
        return MK_PSEUDO;
    /* overlay elsewhere repeats its upper layer's filesystem */
    if (n == 7 && memcmp(type, "overlay", 7) == 0 && !(mpn == 1 && mp[0] == '/'))
        return MK_PSEUDO;
    return MK_STORAGE;
}

/* Parses mountinfo into s->m: every mount, classified. */
static int parse_mounts(ldstate *s, const char **err_path)
{
    int e = pl_file_read(&s->mountinfo, s->env, "proc/self/mountinfo");
    if (e) {
        *err_path = "proc/self/mountinfo";
        return e;
    }
    s->nm = 0;
    s->plen = 0;
    for (const char *p = s->mountinfo.buf; p && *p; p = pl_next_line(p)) {
        const char *q = p, *f, *mp, *opts, *so;
        uint64_t id, parent, maj, min;
        size_t n, mpn, optn, son;
        int ro;
        if (pl_parse_u64(&q, &id) || pl_parse_u64(&q, &parent) || pl_parse_u64(&q, &maj) ||
            *q++ != ':' || pl_parse_u64(&q, &min) || id > UINT32_MAX - 2 || parent > UINT32_MAX ||
            maj > UINT32_MAX || min > UINT32_MAX)
            continue;
        if (!field(&q, &f, &n) || !field(&q, &mp, &mpn) || !field(&q, &opts, &optn))
            continue;
        ro = has_ro(opts, optn);
        /* optional fields up to the lone "-", then type, source, super options */
        while (field(&q, &f, &n) && !(n == 1 && f[0] == '-'))
            ;
        if (n != 1 || !field(&q, &f, &n))
            continue;
        if (field(&q, &so, &son) && field(&q, &so, &son))
            ro |= has_ro(so, son);
        if (s->nm == s->cap) {
            uint32_t cap = s->cap ? s->cap * 2 : 32;
            mnt *nmv = realloc(s->m, cap * sizeof *nmv);
            if (!nmv)
                return ENOMEM;
            s->m = nmv;
            s->cap = cap;
        }
        mnt *m = &s->m[s->nm];
        memset(m, 0, sizeof *m);
        if ((m->name = pool_unescape(s, mp, mpn)) == (size_t)-1)
            return ENOMEM;
        m->id = (uint32_t)id;
        m->parent = (uint32_t)parent;
        m->major = (uint32_t)maj;
        m->minor = (uint32_t)min;
        m->ro = ro;
        m->remote = in_list(remote, f, n);
        m->kind = mount_kind(f, n, mp, mpn);
        s->nm++;
    }
    classify(s);
    return 0;
}

/* Adds visible mount i under its unique name (pl_names: the bare mount point
 * first, "#1", "#2" ... for later visible mounts of the same name).  The
 * index, or -1 for ENOMEM. */
static int add_mount(ldstate *s, pl_snapshot *snap, uint32_t i)
{
    const char *name = s->pool + s->m[i].name;
    size_t len = strlen(name), need = len + PL_NAMES_EXTRA;
    if (need > s->icap) {
        char *nb = realloc(s->iname, need);
        if (!nb)
            return -1;
        s->iname = nb;
        s->icap = need;
    }
    if (!pl_names_next(&s->names, name, len, s->iname))
        return -1;
    return pl_snap_add(snap, s->iname, s->m[i].id);
}

/* Reads mountinfo and starts a naming round over its mounts. */
static int read_mounts(ldstate *s, const char **err_path)
{
    int e = parse_mounts(s, err_path);
    if (e)
        return e;
    return pl_names_begin(&s->names, s->nm) ? ENOMEM : 0;
}

static int ld_instances(void *state, pl_snapshot *snap)
{
    ldstate *s = state;
    int e;
    pl_snap_clear(snap);
    if ((e = read_mounts(s, &snap->err_path)))
        return e;
    for (uint32_t i = 0; i < s->nm; i++)
        if (s->m[i].visible && add_mount(s, snap, i) < 0)
            return ENOMEM;
    return pl_snap_add(snap, "_Total", PL_DISK_TOTAL_ID) < 0 ? ENOMEM : 0;
}

/* statvfs of the mount point, or below another root the fixture file. */
static void space(ldstate *s, mnt *m)
{
    if (m->remote && !s->remote_ok)
        return;
    if (s->real) {
        struct statvfs v;
        if (statvfs(s->pool + m->name, &v) != 0)
            return;
        m->frsize = v.f_frsize ? v.f_frsize : v.f_bsize;
        m->blocks = v.f_blocks;
        m->bfree = v.f_bfree;
        m->bavail = v.f_bavail;
        m->files = v.f_files;
        m->ffree = v.f_ffree;
        m->have = m->frsize != 0;
    } else {
        char rel[32];
        const char *p;
        uint64_t x[6];
        int k = 0;
        snprintf(rel, sizeof rel, "statvfs/%u", (unsigned)m->id);
        pl_file_close(&s->fx);       /* one file per mount: not kept open */
        if (pl_file_read(&s->fx, s->env, rel))
            return;
        for (p = s->fx.buf; k < 6 && pl_parse_u64(&p, &x[k]) == 0; k++)
            ;
        if (k < 6 || x[0] == 0 || (*p != '\n' && *p != ' '))
            return;
        m->frsize = x[0];
        m->blocks = x[1];
        m->bfree = x[2];
        m->bavail = x[3];
        m->files = x[4];
        m->ffree = x[5];
        m->have = 1;
    }
}

/* The space counters from frsize and counts; an overflow leaves them unset. */
static void set_space(pl_snapshot *snap, uint32_t i, uint64_t frsize, uint64_t blocks,
                      uint64_t bfree, uint64_t bavail)
{
    uint64_t total, avail, used;
    if (__builtin_mul_overflow(blocks, frsize, &total) ||
        __builtin_mul_overflow(bavail, frsize, &avail))
        return;
    pl_snap_set(snap, i, L_FREE, avail);
    pl_snap_set(snap, i, L_FREE_BASE, total);
    pl_snap_set(snap, i, L_FREE_MB, avail >> 20);
    pl_snap_set(snap, i, L_TOTAL_MB, total >> 20);
    pl_snap_set(snap, i, L_FREE_B, avail);
    pl_snap_set(snap, i, L_TOTAL_B, total);
    if (bfree <= blocks && !__builtin_mul_overflow(blocks - bfree, frsize, &used))
        pl_snap_set(snap, i, L_USED_B, used);
}

static void set_inodes(pl_snapshot *snap, uint32_t i, uint64_t files, uint64_t ffree)
{
    if (files == 0)
        return;              /* no inode limit (btrfs): no count to report */
    pl_snap_set(snap, i, L_INO, ffree);
    pl_snap_set(snap, i, L_INO_BASE, files);
    pl_snap_set(snap, i, L_FREE_INO, ffree);
    pl_snap_set(snap, i, L_TOTAL_INO, files);
}

static int ld_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    ldstate *s = state;
    int e, ti, need_vfs = 0, need_io = 0, space_ok = 1;
    pl_feed_in in;
    uint64_t blocks = 0, bfree = 0, bavail = 0, files = 0, ffree = 0;
    pl_snap_clear(snap);
    for (uint32_t c = 0; c < NC; c++) {
        if (wanted && !wanted[c])
            continue;
        if (c >= L_IO && c < L_IO + PL_DISK_NIO)
            need_io = 1;
        else if (c != L_RO)
            need_vfs = 1;
    }
    if ((e = read_mounts(s, &snap->err_path)))
        return e;
    /* no diskstats (a container without it) only leaves the I/O counters unset */
    if (need_io && pl_diskstats_update(&s->ds, s->env, 1, &snap->err_path) != 0) {
        need_io = 0;
        snap->err_path = NULL;
    } else if (need_io) {
        snap->time = pl_ksrc_time(s->ds.src);   /* the instant PhysicalDisk shares */
    }
    pl_feed_begin(&in, srcs, 1, NULL, snap, NULL);
    for (uint32_t i = 0; i < s->nm; i++) {
        mnt *m = &s->m[i];
        int k, first = 1;
        if (!m->visible)
            continue;
        if ((k = add_mount(s, snap, i)) < 0)
            return ENOMEM;
        pl_snap_set(snap, (uint32_t)k, L_RO, (uint64_t)m->ro);
        /* one filesystem mounted twice (bind mounts) counts once in _Total */
        for (uint32_t j = 0; j < i && first; j++)
            if (s->m[j].visible && s->m[j].major == m->major && s->m[j].minor == m->minor)
                first = 0;
        if (need_vfs) {
            space(s, m);
            if (m->have) {
                set_space(snap, (uint32_t)k, m->frsize, m->blocks, m->bfree, m->bavail);
                set_inodes(snap, (uint32_t)k, m->files, m->ffree);
            }
            if (first && m->have) {
                /* _Total in frsize-independent bytes: scale each to bytes first */
                uint64_t t, f, a;
                if (__builtin_mul_overflow(m->blocks, m->frsize, &t) ||
                    __builtin_mul_overflow(m->bfree, m->frsize, &f) ||
                    __builtin_mul_overflow(m->bavail, m->frsize, &a) ||
                    __builtin_add_overflow(blocks, t, &blocks) ||
                    __builtin_add_overflow(bfree, f, &bfree) ||
                    __builtin_add_overflow(bavail, a, &bavail))
                    space_ok = 0;
                if (m->files && (__builtin_add_overflow(files, m->files, &files) ||
                                 __builtin_add_overflow(ffree, m->ffree, &ffree)))
                    space_ok = 0;
            } else if (first && !(m->remote && !s->remote_ok)) {
                space_ok = 0;        /* a local filesystem without figures */
            }
        }
        if (need_io) {
            pl_dsdev *x = pl_diskstats_find(&s->ds, m->major, m->minor);
            if (x) {
                pl_feed_put(&in, PL_DS_ROW, &x->pub);
                pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
                x->want = 1;
            }
        }
    }
    if ((ti = pl_snap_add(snap, "_Total", PL_DISK_TOTAL_ID)) < 0)
        return ENOMEM;
    if (need_vfs && space_ok) {
        set_space(snap, (uint32_t)ti, 1, blocks, bfree, bavail);
        set_inodes(snap, (uint32_t)ti, files, ffree);
    }
    if (need_io) {
        pl_diskstats_total(&s->ds);
        pl_feed_put(&in, PL_DS_ROW, &s->ds.total);
        pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    }
    return 0;
}

static const pl_provider_ops ops = { ld_open, ld_close, ld_instances, ld_collect, NULL, NULL };

const pl_counterset_def pl_logicaldisk_def = {
    /* UUIDv5(perflib namespace, "LogicalDisk") */
    { 0xdc4b383f, 0x62a8, 0x55d0, { 0xa4, 0xb4, 0xfb, 0x2f, 0xd1, 0x1a, 0x86, 0x9e } },
    "LogicalDisk",
    "Space, inodes and I/O of each visible storage mount of /proc/self/mountinfo (pseudo "
    "filesystems and mounts inside /proc and /sys left out; remote ones without space figures unless PERFLIB_STATVFS_REMOTE=1), "
    "and of all of them; instances are keyed by mount ID.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 5000, NULL,
};
