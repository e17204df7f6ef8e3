/* The filesystems of /sys/fs/btrfs as the Btrfs and Btrfs Device sets
 * list them (btrfs_fs.c): one record per <fsid> directory in fsid order,
 * its instance name, its kept files and its devices/ and devinfo/ entries.
 * Part of the providers; no Lua. */
#ifndef PL_BTRFS_FS_H
#define PL_BTRFS_FS_H

#include "perflib.h"
#include "pl_names.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#define PL_BT_ROOT "sys/fs/btrfs"
/* Kept files of a filesystem: the Btrfs set's 26 one-number files and
 * commit_stats, then the label (read by every listing). */
enum { PL_BT_FD_LABEL = 27, PL_BT_NFD };
/* Kept files of a devices/ or devinfo/ entry. */
#define PL_BT_SUBFD 5

/* An entry of devices/ or devinfo/ with its kept files. */
typedef struct pl_bt_sub {
    char name[NAME_MAX + 1];
    ino_t ino;
    int fd[PL_BT_SUBFD];
    int seen;
} pl_bt_sub;

typedef struct pl_bt_subs {
    DIR *dir;
    pl_bt_sub *v;
    uint32_t n, cap;
} pl_bt_subs;

typedef struct pl_bt_fs {
    char fsid[40];
    ino_t ino;
    uint32_t id;
    int seen;
    int fd[PL_BT_NFD];
    pl_bt_subs devs, info;
    char label[256];         /* BTRFS_LABEL_SIZE: at most 255 bytes */
    char name[256 + 40 + PL_NAMES_EXTRA];
} pl_bt_fs;

typedef struct pl_bt_state {
    pl_env *env;
    DIR *dir;                /* PL_BT_ROOT, kept */
    pl_bt_fs *v;
    uint32_t n, cap;
    pl_names names;
} pl_bt_state;

/* The states of both sets. */
int pl_bt_open(pl_env *env, void **state);
void pl_bt_close(void *state);
/* Re-reads /sys/fs/btrfs, the labels and the names: the label; "label fsid"
 * where mounted filesystems share it; the fsid without one.  0 or ENOMEM. */
int pl_bt_name_fs(pl_bt_state *s);
/* Brings t in line with the entries of directory rel (opened on first use,
 * then rewound); a new or replaced entry (another inode) has its files
 * closed.  0, ENOMEM, or the errno of opening rel. */
int pl_bt_subs_sync(const pl_env *env, pl_bt_subs *t, const char *rel);
/* Sorts t's entries by their names as numbers (devinfo's devids). */
void pl_bt_subs_sort_num(pl_bt_subs *t);
/* A file that is one unsigned decimal and an optional newline: 1 with *v. */
int pl_bt_whole_u64(const char *p, uint64_t *v);

#endif
