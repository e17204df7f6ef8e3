/* /proc/mdstat as a kernel source (pl_ksrc.h): one row per md array, parsed
 * once per collect (drivers/md/md.c md_seq_show and status_resync; the
 * layout Documentation/admin-guide/md.rst shows, the same since 2.6.x):
 *
 *   Personalities : [raid1] [raid6] [raid5] [raid4]
 *   md0 : active raid5 sdd1[4] sdc1[2] sdb1[1] sda1[0](F)
 *         1953260544 blocks super 1.2 level 5, 512k chunk, algorithm 2 [4/3] [_UUU]
 *         [=>...................]  recovery =  8.5% (55456768/651086848) finish=61.1min speed=162452K/sec
 *         bitmap: 1/5 pages [4KB], 65536KB chunk
 *
 *   md1 : inactive sdf1[1](S) sde1[0](S)
 *         1953260976 blocks super 1.2
 *
 *   unused devices: <none>
 *
 * A header "<name> : active|inactive [(read-only)|(auto-read-only)] [level]
 * member[n][(F|S|W|J|R)] ..." starts a row; the lines below it, up to a
 * blank line, add the size ("<n> blocks", 1 KiB each), "[raid disks/in
 * sync]" (md.c prints raid_disks and raid_disks - degraded), and a
 * progress line ("<action> = p% (done/total)", or "resync=DELAYED" /
 * "resync=PENDING").  A value the lines do not give is PL_NS_ABSENT; a
 * number that is not one, PL_NS_BAD. */
#ifndef PL_MDSTAT_H
#define PL_MDSTAT_H

#include "pl_ksrc.h"
#include "rows.h"

/* State codes (PL_MD_STATE) */
enum { PL_MD_INACTIVE, PL_MD_ACTIVE, PL_MD_READONLY, PL_MD_AUTO_READONLY };
/* Sync action codes (PL_MD_ACTION): what the progress line names */
enum { PL_MD_IDLE, PL_MD_RESYNC, PL_MD_RECOVERY, PL_MD_RESHAPE, PL_MD_CHECK,
       PL_MD_RESYNC_DELAYED, PL_MD_RESYNC_PENDING };

enum {
    PL_MD_STATE, PL_MD_RAID_DISKS, PL_MD_IN_SYNC, PL_MD_DEGRADED, PL_MD_MEMBERS,
    PL_MD_FAILED, PL_MD_SPARE, PL_MD_ACTION, PL_MD_DONE, PL_MD_TOTAL, PL_MD_SIZE,
    PL_MD_SPEED, PL_MD_N
};

typedef struct pl_mdrow {
    char name[32];           /* "md0", control bytes and '\' as '_' */
    uint64_t v[PL_MD_N];     /* PL_MD_SIZE in bytes, PL_MD_SPEED in bytes/s */
    uint8_t st[PL_MD_N];
} pl_mdrow;

/* The parsed file: a pl_rows of pl_mdrow. */
typedef pl_rows pl_mdtab;

/* A seq_file iterator: read until 0. */
extern const pl_ksrc_def pl_ksrc_mdstat;

/* The pure parser (buf[len] is '\0'; safe on any bytes): 0 or ENOMEM. */
int pl_parse_mdstat(const char *buf, size_t len, void *out);

#endif
