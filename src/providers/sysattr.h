/* Shared by Fibre Channel, SCSI Tape, ZRAM, NVMe Controller and Watchdog:
 * the state of a set whose instances are the prefix<N> entries of one class
 * directory, each with its files kept open. */
#ifndef PL_SYSATTR_H
#define PL_SYSATTR_H

#include "pl_provider.h"

#define PL_NUMDEV_FILES 24

typedef struct pl_numdev {
    unsigned num;                /* first: a pl_numbered record */
    int fd[PL_NUMDEV_FILES];     /* the set's files, by its own index */
    char name[24];               /* "<prefix><N>" */
} pl_numdev;

typedef struct pl_numclass {
    pl_env *env;
    pl_numbered devs;            /* of pl_numdev */
    const char *cls, *prefix;
} pl_numclass;

/* The open op's work for class directory cls (below the root) and prefix. */
int pl_numclass_open(pl_env *env, const char *cls, const char *prefix, void **state);
/* close op (idempotent on NULL). */
void pl_numclass_close(void *state);
/* instances op, and the start of a collect: lists the entries into snap
 * (name "<prefix><N>", id N).  0 or ENOMEM. */
int pl_numclass_list(void *state, pl_snapshot *snap);
/* One pread of <cls>/<prefix><N>/<file> (fd k of d, kept open): 0 or errno. */
int pl_numdev_read(const pl_numclass *c, pl_numdev *d, int k, const char *file, char *buf,
                   size_t size);

#endif
