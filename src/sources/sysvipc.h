/* The System V IPC tables as kernel sources (pl_ksrc.h), each summed into
 * a few totals as it is parsed (one line per object; up to msgmni or
 * semmni, 32000 by default since 3.19, lines per file):
 *
 *   proc/sysvipc/shm   ipc/shm.c sysvipc_shm_proc_show: key shmid perms size
 *                      cpid lpid nattch uid gid cuid cgid atime dtime ctime
 *                      rss swap (size, rss and swap in bytes: rss and swap
 *                      are pages x PAGE_SIZE, in 3.0's layout and later)
 *   proc/sysvipc/msg   ipc/msg.c sysvipc_msg_proc_show: key msqid perms
 *                      cbytes qnum lspid lrpid uid gid cuid cgid stime rtime
 *                      ctime
 *   proc/sysvipc/sem   ipc/sem.c sysvipc_sem_proc_show: key semid perms nsems
 *                      uid gid cuid cgid otime ctime
 *
 * The first line names the columns (ipc/util.c ipc_init_proc_interface's
 * header, padded differently on 32- and 64-bit kernels); the summed ones
 * are found by name.  A header whose first name is not "key" is another
 * file: every total PL_NS_BAD.  A column the header lacks leaves its total
 * PL_NS_ABSENT (shm's rss and swap on an older kernel).  A line with another count
 * of fields than the header, a summed field that is not an unsigned
 * decimal, a line cut off (no '\n') or a sum past 2^64 - 1 make every total
 * PL_NS_BAD: a sum with a line left out would be a wrong value.  Only the
 * reader's IPC namespace is listed. */
#ifndef PL_SYSVIPC_H
#define PL_SYSVIPC_H

#include "pl_ksrc.h"

/* Field 0 of every table: its objects (lines). */
enum { PL_SHM_SEGS, PL_SHM_BYTES, PL_SHM_RSS, PL_SHM_SWAP, PL_SHM_UNATTACHED, PL_SHM_N };
enum { PL_MSG_QUEUES, PL_MSG_MSGS, PL_MSG_BYTES, PL_MSG_N };
enum { PL_SEM_SETS, PL_SEM_SEMS, PL_SEM_N };

#define PL_IPC_MAXF PL_SHM_N

typedef struct pl_ipc_tab {
    uint64_t v[PL_IPC_MAXF];
    uint8_t st[PL_IPC_MAXF];  /* PL_NS_* */
} pl_ipc_tab;

extern const pl_ksrc_def pl_ksrc_ipc_shm, pl_ksrc_ipc_msg, pl_ksrc_ipc_sem;

/* The limits (ipc/ipc_sysctl.c), pl_sysnum sources (sysnum.h): shmmax
 * (bytes), shmall (pages), shmmni, msgmax and msgmnb (bytes), msgmni, and
 * sem's four numbers SEMMSL, SEMMNS, SEMOPM, SEMMNI. */
enum { PL_SEM_MSL, PL_SEM_MNS, PL_SEM_OPM, PL_SEM_MNI };
extern const pl_ksrc_def pl_ksrc_shmmax, pl_ksrc_shmall, pl_ksrc_shmmni, pl_ksrc_msgmax,
    pl_ksrc_msgmnb, pl_ksrc_msgmni, pl_ksrc_semlim;

/* The pure parsers (buf[len] is '\0'; safe on any bytes).  Always 0. */
int pl_parse_ipc_shm(const char *buf, size_t len, void *out);
int pl_parse_ipc_msg(const char *buf, size_t len, void *out);
int pl_parse_ipc_sem(const char *buf, size_t len, void *out);

#endif
