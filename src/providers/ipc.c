/* IPC (single instance, costly): System V IPC in use and its limits, PCP's
 * ipc.shm, ipc.msg and ipc.sem: shared memory segments with their bytes,
 * resident and swapped bytes; message queues with their messages and
 * bytes; semaphore sets and semaphores; the limits of ipc/ipc_sysctl.c and
 * how much of each is used.  A set made only of rows (pl_rowset_ops): each
 * file is read only when a wanted counter needs it.
 *
 * Costly: the three /proc/sysvipc tables are a line per object, up to the
 * 32000 queues or semaphore sets the default msgmni and semmni allow.  The
 * tables and the limits are the reader's IPC namespace's.  Without
 * CONFIG_SYSVIPC the files do not exist: the set fails with ENOENT. */
#include "providers.h"
#include "pl_provider.h"
#include "pl_rowset.h"
#include "sysvipc.h"
#include "sysnum.h"

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define FRAC PERF_LARGE_RAW_FRACTION
#define BASE PERF_LARGE_RAW_BASE
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

enum { S_SHM, S_MSG, S_SEM, S_SHMMAX, S_SHMALL, S_SHMMNI, S_MSGMAX, S_MSGMNB, S_MSGMNI, S_SEMLIM,
       NSRC };

/* shmall (pages) in bytes: unknown past 2^64 - 1, as the default
 * ULONG_MAX - 2^24 pages is (no limit). */
static int shmall_bytes(pl_feed_in *in, uint64_t *v)
{
    uint64_t n;
    return pl_feed_field(in, S_SHMALL, 0, &n) && pl_mul_ok(n, (uint64_t)pl_env_page_size(in->ctx), v);
}

#define TAB(R, id, name, what, s, f, det, kind) \
    R(id, name, what, LRAW, PL_NO_ID, det, 0, PL_U(kind, 1, GAUGE), PL_FIELD(s, f))
#define PCT(R, id, name, what, s, f) \
    R(id, name, what, FRAC, (id) + 1, NOV, 0, PL_U(NONE, 1, GAUGE), PL_FIELD(s, f))

#define IPC_ROWS(R) \
    TAB(R, 0, "Shared Memory Segments", "System V shared memory segments (lines of " \
        "/proc/sysvipc/shm).", S_SHM, PL_SHM_SEGS, NOV, COUNT) \
    TAB(R, 1, "Shared Memory Bytes", "Their sizes added up (size column of " \
        "/proc/sysvipc/shm).", S_SHM, PL_SHM_BYTES, NOV, BYTES) \
    TAB(R, 2, "Shared Memory Resident Bytes", "Their pages in memory, in bytes (rss column " \
        "of /proc/sysvipc/shm).", S_SHM, PL_SHM_RSS, NOV, BYTES) \
    TAB(R, 3, "Shared Memory Swapped Bytes", "Their pages in swap, in bytes (swap column of " \
        "/proc/sysvipc/shm).", S_SHM, PL_SHM_SWAP, NOV, BYTES) \
    TAB(R, 4, "Unattached Shared Memory Segments", "Segments no process has attached " \
        "(nattch 0 in /proc/sysvipc/shm): kept until removed, often left behind.", S_SHM, \
        PL_SHM_UNATTACHED, ADV, COUNT) \
    TAB(R, 5, "Message Queues", "System V message queues (lines of /proc/sysvipc/msg).", \
        S_MSG, PL_MSG_QUEUES, NOV, COUNT) \
    TAB(R, 6, "Queued Messages", "Messages waiting in all queues (qnum column of " \
        "/proc/sysvipc/msg).", S_MSG, PL_MSG_MSGS, NOV, COUNT) \
    TAB(R, 7, "Queued Message Bytes", "Their bytes (cbytes column of /proc/sysvipc/msg).", \
        S_MSG, PL_MSG_BYTES, NOV, BYTES) \
    TAB(R, 8, "Semaphore Sets", "System V semaphore sets (lines of /proc/sysvipc/sem).", \
        S_SEM, PL_SEM_SETS, NOV, COUNT) \
    TAB(R, 9, "Semaphores", "Semaphores in all sets (nsems column of /proc/sysvipc/sem).", \
        S_SEM, PL_SEM_SEMS, NOV, COUNT) \
    TAB(R, 10, "Max Segment Bytes", "The largest shared memory segment allowed " \
        "(/proc/sys/kernel/shmmax).", S_SHMMAX, 0, ADV, BYTES) \
    TAB(R, 11, "Shared Memory Limit Pages", "Pages all segments may take together " \
        "(/proc/sys/kernel/shmall).", S_SHMALL, 0, ADV, COUNT) \
    TAB(R, 12, "Max Segments", "Segments allowed (/proc/sys/kernel/shmmni).", S_SHMMNI, 0, ADV, \
        COUNT) \
    TAB(R, 13, "Max Message Bytes", "The largest message allowed (/proc/sys/kernel/msgmax).", \
        S_MSGMAX, 0, ADV, BYTES) \
    TAB(R, 14, "Max Queue Bytes", "The bytes one queue may hold (/proc/sys/kernel/msgmnb).", \
        S_MSGMNB, 0, ADV, BYTES) \
    TAB(R, 15, "Max Message Queues", "Queues allowed (/proc/sys/kernel/msgmni).", S_MSGMNI, 0, \
        ADV, COUNT) \
    TAB(R, 16, "Max Semaphores Per Set", "SEMMSL, the first field of /proc/sys/kernel/sem.", \
        S_SEMLIM, PL_SEM_MSL, ADV, COUNT) \
    TAB(R, 17, "Max Semaphores", "SEMMNS, semaphores allowed in all sets (the second field " \
        "of /proc/sys/kernel/sem).", S_SEMLIM, PL_SEM_MNS, ADV, COUNT) \
    TAB(R, 18, "Max Operations Per Call", "SEMOPM, operations one semop call may make (the " \
        "third field of /proc/sys/kernel/sem).", S_SEMLIM, PL_SEM_OPM, ADV, \
        COUNT) \
    TAB(R, 19, "Max Semaphore Sets", "SEMMNI, sets allowed (the fourth field of " \
        "/proc/sys/kernel/sem).", S_SEMLIM, PL_SEM_MNI, ADV, COUNT) \
    PCT(R, 20, "% Shared Memory Segments Used", "Segments as a percentage of shmmni.", S_SHM, \
        PL_SHM_SEGS) \
    R(21, "% Shared Memory Segments Used Base", "shmmni, the base of % Shared Memory Segments " \
      "Used (/proc/sys/kernel/shmmni).", BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_SHMMNI, 0)) \
    PCT(R, 22, "% Shared Memory Used", "Shared Memory Bytes as a percentage of shmall in " \
        "bytes (the kernel counts each segment in whole pages: this may read a page per " \
        "segment low); no value while shmall x the page size passes 2^64 - 1, the default.", \
        S_SHM, PL_SHM_BYTES) \
    R(23, "% Shared Memory Used Base", "shmall x the page size, the base of % Shared Memory " \
      "Used (/proc/sys/kernel/shmall).", BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), \
      PL_DERIVE(PL_BIT(S_SHMALL), shmall_bytes)) \
    PCT(R, 24, "% Message Queues Used", "Message queues as a percentage of msgmni.", S_MSG, \
        PL_MSG_QUEUES) \
    R(25, "% Message Queues Used Base", "msgmni, the base of % Message Queues Used " \
      "(/proc/sys/kernel/msgmni).", BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_MSGMNI, 0)) \
    PCT(R, 26, "% Semaphore Sets Used", "Semaphore sets as a percentage of SEMMNI.", S_SEM, \
        PL_SEM_SETS) \
    R(27, "% Semaphore Sets Used Base", "SEMMNI, the base of % Semaphore Sets Used " \
      "(/proc/sys/kernel/sem).", BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_SEMLIM, PL_SEM_MNI)) \
    PCT(R, 28, "% Semaphores Used", "Semaphores as a percentage of SEMMNS.", S_SEM, \
        PL_SEM_SEMS) \
    R(29, "% Semaphores Used Base", "SEMMNS, the base of % Semaphores Used " \
      "(/proc/sys/kernel/sem).", BASE, PL_NO_ID, NOV, 0, PL_U(COUNT, 1, GAUGE), \
      PL_FIELD(S_SEMLIM, PL_SEM_MNS))

static const pl_counter_def counters[] = { IPC_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { IPC_ROWS(PL_ROW_FEED) };

static const pl_feed_src srcs[NSRC] = {
    PL_FEED_SRC_ST(&pl_ksrc_ipc_shm, pl_ipc_tab),
    PL_FEED_SRC_ST(&pl_ksrc_ipc_msg, pl_ipc_tab),
    PL_FEED_SRC_ST(&pl_ksrc_ipc_sem, pl_ipc_tab),
    PL_FEED_SRC_ST(&pl_ksrc_shmmax, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_shmall, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_shmmni, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_msgmax, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_msgmnb, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_msgmni, pl_sysnum),
    PL_FEED_SRC_ST(&pl_ksrc_semlim, pl_sysnum),
};

static pl_rowset rowset = { srcs, NSRC, feeds };

const pl_counterset_def pl_ipc_def = {
    /* UUIDv5(perflib namespace, "IPC") */
    { 0xccee2aaf, 0xf882, 0x5dce, { 0xab, 0x9d, 0xc5, 0x8f, 0x64, 0xbc, 0x2e, 0x50 } },
    "IPC",
    "System V IPC of this IPC namespace, from /proc/sysvipc and /proc/sys/kernel: shared "
    "memory segments and their bytes, message queues and their messages, semaphore sets and "
    "semaphores, the limits and the share of each in use.",
    PERF_COUNTERSET_SINGLE_INSTANCE, 1, sizeof counters / sizeof counters[0], counters,
    &pl_rowset_ops, 71000, &rowset,
};
