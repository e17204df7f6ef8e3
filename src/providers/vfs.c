/* VFS (single instance, costly): PCP's vfs metrics: file handles, inodes,
 * dentries and AIO events from /proc/sys/fs, and the file locks of
 * /proc/locks by class and type.  A set made only of rows (pl_rowset_ops):
 * each file is read only when a wanted counter needs it, and file-nr is
 * the kernel source the System set reads too (one read per collect for
 * both).
 *
 * Costly: /proc/locks is a walk of every lock held (a line each; NFS and
 * database servers hold thousands).  dentry-state's want_pages is left out:
 * the kernel never sets it. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "locks.h"
#include "sysnum.h"

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { S_FILENR, S_INODENR, S_DENTRY, S_AIONR, S_AIOMAX, S_LOCKS, NSRC };

#define NUM(R, id, name, what, s, f, det, kind) \
    R(id, name, what, LRAW, PL_NO_ID, det, 0, PL_U(kind, 1, GAUGE), PL_FIELD(s, f))
#define LOCKS(R, id, name, what, f, det) \
    R(id, name, what " (/proc/locks).", LRAW, PL_NO_ID, det, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_LOCKS, f))
/* a class's locks, its READ ones and its WRITE ones */
#define CLASS(R, id, name, what, f) \
    LOCKS(R, id, name, what, f, NOV) \
    LOCKS(R, (id) + 1, "Read " name, what " of type READ", (f) + 1, ADV) \
    LOCKS(R, (id) + 2, "Write " name, what " of type WRITE", (f) + 2, ADV)

#define VFS_ROWS(R) \
    NUM(R, 0, "File Handles Allocated", "File handles the kernel has allocated " \
        "(/proc/sys/fs/file-nr field 1).", S_FILENR, PL_FILENR_ALLOC, NOV, COUNT) \
    NUM(R, 1, "File Handles Free", "Allocated file handles not in use (/proc/sys/fs/file-nr " \
        "field 2; always 0 since 2.6, which frees them at once).", S_FILENR, PL_FILENR_FREE, \
        ADV, COUNT) \
    NUM(R, 2, "File Handles Max", "Most file handles the kernel will allocate " \
        "(/proc/sys/fs/file-nr field 3, fs.file-max).", S_FILENR, PL_FILENR_MAX, ADV, COUNT) \
    NUM(R, 3, "Inodes", "Inodes in memory (/proc/sys/fs/inode-nr nr_inodes).", S_INODENR, 0, \
        NOV, COUNT) \
    NUM(R, 4, "Unused Inodes", "Inodes in memory that nothing uses, on the LRU to be " \
        "reclaimed (/proc/sys/fs/inode-nr nr_free_inodes).", S_INODENR, 1, NOV, COUNT) \
    NUM(R, 5, "Dentries", "Directory entries in the dentry cache (/proc/sys/fs/dentry-state " \
        "nr_dentry).", S_DENTRY, PL_DENTRY_NR, NOV, COUNT) \
    NUM(R, 6, "Unused Dentries", "Cached directory entries nothing uses, reclaimable " \
        "(/proc/sys/fs/dentry-state nr_unused).", S_DENTRY, PL_DENTRY_UNUSED, NOV, COUNT) \
    NUM(R, 7, "Negative Dentries", "Cached lookups of names that do not exist " \
        "(/proc/sys/fs/dentry-state nr_negative; 5.0 and later, a padding 0 before).", \
        S_DENTRY, PL_DENTRY_NEGATIVE, NOV, COUNT) \
    NUM(R, 8, "Dentry Age Limit Seconds", "Age after which unused dentries may be reclaimed " \
        "(/proc/sys/fs/dentry-state age_limit).", S_DENTRY, PL_DENTRY_AGE, ADV, SECONDS) \
    NUM(R, 9, "AIO Events", "Events reserved by the io_setup contexts of all processes " \
        "(/proc/sys/fs/aio-nr).", S_AIONR, 0, NOV, COUNT) \
    NUM(R, 10, "AIO Events Max", "Most such events the kernel allows " \
        "(/proc/sys/fs/aio-max-nr).", S_AIOMAX, 0, ADV, COUNT) \
    R(11, "% AIO Events Used", "AIO Events as a percentage of AIO Events Max.", \
      PERF_LARGE_RAW_FRACTION, 12, NOV, 0, PL_U(NONE, 1, GAUGE), PL_FIELD(S_AIONR, 0)) \
    R(12, "% AIO Events Used Base", "aio-max-nr, the base of % AIO Events Used " \
      "(/proc/sys/fs/aio-max-nr).", PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, \
      PL_U(COUNT, 1, GAUGE), PL_FIELD(S_AIOMAX, 0)) \
    LOCKS(R, 13, "Locks Held", "File locks and leases held, of every class", PL_LK_HELD, NOV) \
    LOCKS(R, 14, "Read Locks Held", "Those of type READ (shared)", PL_LK_READ, NOV) \
    LOCKS(R, 15, "Write Locks Held", "Those of type WRITE (exclusive)", PL_LK_WRITE, NOV) \
    LOCKS(R, 16, "Blocked Lock Requests", "Requests waiting for a lock held (the \"->\" " \
          "lines)", PL_LK_BLOCKED, NOV) \
    CLASS(R, 17, "POSIX Locks", "Process-owned record locks (fcntl F_SETLK, lockf; POSIX)", \
          PL_LK_POSIX) \
    CLASS(R, 20, "FLOCK Locks", "Whole-file locks of flock() (FLOCK)", PL_LK_FLOCK) \
    CLASS(R, 23, "OFD Locks", "Open file description locks (fcntl F_OFD_SETLK; OFDLCK)", \
          PL_LK_OFD) \
    CLASS(R, 26, "Leases", "Leases (fcntl F_SETLEASE) and NFS delegations (LEASE, DELEG)", \
          PL_LK_LEASE)

static const pl_counter_def counters[] = { VFS_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { VFS_ROWS(PL_ROW_FEED) };

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_filenr, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_inodenr, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_dentry, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_aionr, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_aiomax, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_locks, pl_locks),
};

static pl_rowset rowset = { srcs, NSRC, feeds };

const pl_counterset_def pl_vfs_def = {
    /* UUIDv5(perflib namespace, "VFS") */
    { 0xa46e1145, 0xd59a, 0x5932, { 0x8f, 0x64, 0xef, 0x17, 0xef, 0x58, 0x0b, 0xcb } },
    "VFS",
    "The virtual file system's tables, from /proc/sys/fs and /proc/locks: file handles, "
    "inodes, dentries, AIO events, and the file locks and leases held and waited for.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 1, sizeof counters / sizeof counters[0], counters,
    &pl_rowset_ops, 72000, &rowset,
};
