/* Kernel files that hold numbers on one line, as kernel sources
 * (pl_ksrc.h), one pure parser for them all:
 *   /proc/sys/fs/file-nr                "1184\t0\t9223372036854775807\n"
 *   /proc/sys/kernel/random/entropy_avail, pid_max, threads-max   "256\n"
 *   the nf_conntrack sysctls, the attributes of /sys/kernel/mm/ksm (their
 *   own modules, with PL_SYSNUM_SRC)
 *   /proc/sys/kernel/sem                 "32000\t1024000000\t500\t32000\n"
 *   (SEMMSL, SEMMNS, SEMOPM, SEMMNI; ipc/ipc_sysctl.c, sysvipc.h's module)
 * A file's line must hold exactly the count of numbers its source expects
 *   /proc/sys/fs/inode-nr                "85021\t0\n" (nr_inodes, nr_unused)
 *   /proc/sys/fs/dentry-state            "154998\t153290\t45\t0\t69799\t0\n"
 *   (fs/dcache.c dentry_stat_t: nr_dentry, nr_unused, age_limit, want_pages,
 *   nr_negative since 5.0 (a 0 of padding before), dummy; the VFS set's)
 * (3 for file-nr, 4 for sem, 2 for inode-nr, 6 for dentry-state, 1 for the
 * others): otherwise every field is PL_NS_BAD, as
 * is a token that is not a whole unsigned number; a line cut off (no '\n')
 * leaves every field PL_NS_ABSENT. */
#ifndef PL_SYSNUM_H
#define PL_SYSNUM_H

#include "pl_ksrc.h"

#define PL_SYSNUM_MAX 6

enum { PL_FILENR_ALLOC, PL_FILENR_FREE, PL_FILENR_MAX };

typedef struct pl_sysnum {
    uint64_t v[PL_SYSNUM_MAX];
    uint8_t st[PL_SYSNUM_MAX];   /* PL_NS_* */
} pl_sysnum;

extern const pl_ksrc_def pl_ksrc_filenr, pl_ksrc_entropy, pl_ksrc_pidmax, pl_ksrc_threadsmax;

/* The pure parsers (buf[len] is '\0'; safe on any bytes): a line of one
 * number, of three, of four, of two, of six.  Always 0. */
int pl_parse_sysnum1(const char *buf, size_t len, void *out);
int pl_parse_sysnum3(const char *buf, size_t len, void *out);
int pl_parse_sysnum4(const char *buf, size_t len, void *out);
int pl_parse_sysnum2(const char *buf, size_t len, void *out);
int pl_parse_sysnum6(const char *buf, size_t len, void *out);

/* A source of one such file below the root holding one number: proc_sys
 * handlers and sysfs attributes format the whole value per read. */
#define PL_SYSNUM_SRC(path) { path, sizeof(pl_sysnum), PL_KSRC_WHOLE, pl_parse_sysnum1, NULL }

#endif
