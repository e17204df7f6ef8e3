/* /proc/locks and the VFS sysctls as kernel sources (pl_ksrc.h).
 *
 * /proc/locks (fs/locks.c locks_show / lock_get_status) has a line per
 * lock held and, after it, a line per request blocked on it:
 *
 *   1: POSIX  ADVISORY  WRITE 1234 08:01:123456 0 EOF
 *   1: -> POSIX  ADVISORY  WRITE 1240 08:01:123456 0 EOF
 *   2: FLOCK  ADVISORY  READ 5678 00:17:1234 0 EOF
 *   3: OFDLCK ADVISORY  READ -1 08:01:12 0 EOF
 *   4: LEASE  ACTIVE    READ 999 08:01:99 0 EOF
 *
 * "%lld: " and the class (POSIX, OFDLCK, ACCESS, FLOCK, LEASE, DELEG,
 * UNKNOWN), a mode (ADVISORY, *NOINODE*; MANDATORY and FLOCK's MSNFS before
 * 5.15; a lease's ACTIVE, BREAKING, BREAKER), then READ, WRITE or UNLCK (RW
 * and NONE for the LOCK_MAND flocks before 5.15).  A blocked request has
 * "->" after the id ("%lld:%s " with " ->" before 5.12; indented by its
 * depth after).  Locks are counted by class and type; DELEG (an NFS
 * delegation) counts as a lease; ACCESS and UNKNOWN count only in all.  A
 * line whose id is not "N:", with fewer than the three fields, or cut off
 * (no '\n') makes every count PL_NS_BAD: a count with a line left out would
 * be wrong.  An empty file (no locks) is every count 0 (PL_KSRC_EMPTY).
 * Only the reader's mount and pid namespaces' files show. */
#ifndef PL_LOCKS_H
#define PL_LOCKS_H

#include "pl_ksrc.h"

enum {
    PL_LK_HELD, PL_LK_READ, PL_LK_WRITE, PL_LK_BLOCKED,
    PL_LK_POSIX, PL_LK_POSIX_R, PL_LK_POSIX_W,
    PL_LK_FLOCK, PL_LK_FLOCK_R, PL_LK_FLOCK_W,
    PL_LK_OFD, PL_LK_OFD_R, PL_LK_OFD_W,
    PL_LK_LEASE, PL_LK_LEASE_R, PL_LK_LEASE_W,
    PL_LK_N
};

typedef struct pl_locks {
    uint64_t v[PL_LK_N];
    uint8_t st[PL_LK_N];     /* PL_NS_* */
} pl_locks;

extern const pl_ksrc_def pl_ksrc_locks;
/* The VFS sysctls, pl_sysnum sources (sysnum.h): /proc/sys/fs/inode-nr,
 * dentry-state, aio-nr, aio-max-nr (file-nr is pl_ksrc_filenr). */
extern const pl_ksrc_def pl_ksrc_inodenr, pl_ksrc_dentry, pl_ksrc_aionr, pl_ksrc_aiomax;
enum { PL_DENTRY_NR, PL_DENTRY_UNUSED, PL_DENTRY_AGE, PL_DENTRY_WANT, PL_DENTRY_NEGATIVE };

/* The pure parser (buf[len] is '\0'; safe on any bytes).  Always 0. */
int pl_parse_locks(const char *buf, size_t len, void *out);

#endif
