/* Shared by the Process and Thread providers: descriptors kept open under a
 * process-wide budget, whole-file reads of procfs files with one pread,
 * numeric directory listings, the /proc/[pid]/stat parser and a table of
 * per-id entries kept in id order across collections.  Internal to the
 * providers (hidden symbols), not part of the core API. */
#ifndef PL_PROCTABLE_H
#define PL_PROCTABLE_H

#include "pl_provider.h"
#include "pl_names.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* ---- descriptor budget -------------------------------------------------- */
/* Every kept per-process descriptor of every Process and Thread state counts
 * against one budget: half the RLIMIT_NOFILE soft limit less a margin.  Past
 * it, files are opened, read and closed each time. */
void pl_pt_budget_refresh(void);
int pl_pt_budget_take(void);          /* 1: one more may be kept (taken) */
void pl_pt_close(int *fd);            /* closes a kept fd, gives it back; sets -1 */
long pl_pt_kept(void);                /* kept descriptors now (for tests) */
long pl_pt_budget_left(void);         /* more that may be kept now */

/* ---- what a failed read means ------------------------------------------- */
/* Only ENOENT and ESRCH can say that a process or thread is gone; EACCES and
 * EPERM say that a file is not ours to read (another user's io or fd/,
 * hidepid); any other errno (EMFILE, ENFILE, ENOMEM, EIO ...) fails the
 * whole collection: running out of descriptors is never a process exiting. */
enum { PL_PT_READ, PL_PT_GONE, PL_PT_DENIED, PL_PT_FAILED };
static inline int pl_pt_outcome(int e)
{
    if (e == 0)
        return PL_PT_READ;
    if (e == ENOENT || e == ESRCH)
        return PL_PT_GONE;
    return e == EACCES || e == EPERM ? PL_PT_DENIED : PL_PT_FAILED;
}

/* ---- reads -------------------------------------------------------------- */
typedef struct pl_rbuf {
    char *buf;
    size_t cap, len;
} pl_rbuf;

void pl_rbuf_free(pl_rbuf *b);
/* Whole file into b (NUL-terminated): through the kept *fd, or by opening rel
 * below dirfd (kept when the budget allows).  procfs files are seq_files that
 * return everything in one read when the buffer is larger, so one pread
 * suffices; a full buffer grows and reads on.  0 or errno.  The kept fd stays
 * open on EACCES (denied now, maybe not later) and ESRCH (a zombie or kernel
 * thread without mm, or an exit that the next stat read finds and closes),
 * and is closed on any other error. */
int pl_pt_read(int dirfd, const char *rel, int *fd, pl_rbuf *b);
/* Entries of a directory other than "." and "..": kept O_DIRECTORY fd
 * rewound with lseek, or opened from rel below dirfd.  0 or errno. */
int pl_pt_count(int dirfd, const char *rel, int *fd, pl_rbuf *scratch, uint32_t *n);

/* ids of the all-digit entries of the directory fd (rewound first), in
 * ascending order (sorted only when the directory was not: procfs already
 * is).  *ids grows and is kept. */
int pl_pt_list_ids(int fd, pl_rbuf *scratch, uint32_t **ids, uint32_t *n, uint32_t *cap);


/* ---- /proc/[pid]/stat --------------------------------------------------- */
enum {
    PS_PPID, PS_FLAGS, PS_MINFLT, PS_MAJFLT, PS_UTIME, PS_STIME, PS_PRIO, PS_NICE,
    PS_THREADS, PS_START, PS_VSIZE, PS_RSS, PS_CPU, PS_RTPRIO, PS_POLICY, PS_BLKIO, PS_N
};
#define PS_BIT(f) (1u << (f))
#define PL_PF_KTHREAD 0x00200000u     /* stat field 9: a kernel thread, no mm */
#define PL_COMM_MAX 64                /* proc_task_name's buffer: kworker/u8:1-events... */

typedef struct pl_pstat {
    const char *comm;        /* into the buffer: between the first '(' and the last ')' */
    uint32_t comm_len;       /* capped at PL_COMM_MAX - 1 */
    char state;              /* field 3, 0 if malformed */
    uint32_t have;           /* PS_BIT of each field parsed whole */
    uint64_t v[PS_N];        /* PS_PRIO and PS_NICE hold int64 values */
} pl_pstat;

/* Parses fields up to the highest of `need` (PS_BIT mask).  A field counts
 * only when its token is complete (followed by a blank or the newline), so a
 * truncated file cannot yield a cut number.  0, or EINVAL when there is no
 * "(comm)" with a state after it. */
int pl_pt_parse_stat(const char *buf, size_t len, uint32_t need, pl_pstat *out);

/* ---- "Key: value [kB]" lines (status, io, smaps_rollup) ------------------ */
typedef struct pl_ptkey {
    const char *name;
    int len;
    int kb;                  /* the value carries " kB": bytes = value x 1024 */
} pl_ptkey;
#define PL_PTKEY(s, kb) { s, (int)sizeof s - 1, kb }

/* One pass over the lines, the last one with or without its newline: vals[k]
 * and bit k of *have for each key found with a whole number (and its kB unit
 * when kb).  Returns the keys seen. */
int pl_pt_scan_keys(const char *buf, size_t len, const pl_ptkey *keys, int nkeys,
                    uint64_t *vals, uint32_t *have);

/* ---- entries in id order ------------------------------------------------ */
/* Entries start with their uint32_t id.  After pl_etab_sync with the sorted
 * ids of one listing, v[i] is the entry of ids[i]; entries of ids no longer
 * listed are passed to retire and recycled (no allocation in steady state). */
typedef struct pl_etab {
    void **v, **nv;          /* live entries by id, merge scratch */
    uint32_t *id, *nid;      /* their ids: a listing is compared without touching entries */
    uint32_t n, cap;
    void **spare;            /* retired entries for reuse */
    uint32_t nspare, sparecap;
    size_t esize;
} pl_etab;

void pl_etab_init(pl_etab *t, size_t esize);
/* retire(ud, e) runs for every entry (closing its descriptors), then frees all. */
void pl_etab_free(pl_etab *t, void (*retire)(void *ud, void *e), void *ud);
/* A new entry arrives zeroed with its id, then goes to init (may be NULL). */
int pl_etab_sync(pl_etab *t, const uint32_t *ids, uint32_t n,
                 void (*init)(void *ud, void *e, uint32_t id),
                 void (*retire)(void *ud, void *e), void *ud);

/* ---- state shared by the Process and Thread sets ------------------------- */
typedef struct pl_ptbase {
    pl_env *env;
    int procfd;              /* <root>/proc, listed and opened below */
    uint64_t per_tick, hz;   /* USER_HZ, and 100 ns per tick when it divides 10^7 */
    pl_file uptime;
    pl_rbuf rb, db;          /* file contents, directory entries */
    uint32_t *ids, nids, idcap;   /* pids of the last listing */
} pl_ptbase;

void pl_pt_base_init(pl_ptbase *b, pl_env *env);
void pl_pt_base_free(pl_ptbase *b);
/* The same without a reference to env, for a base env itself owns (the
 * machine's process table, ptshare.c): a reference there would keep env
 * alive for ever. */
void pl_pt_base_setup(pl_ptbase *b, pl_env *env);
void pl_pt_base_release(pl_ptbase *b);
/* Opens <root>/proc once, refreshes the descriptor budget, then lists its
 * pids into b->ids.  0, or errno with snap->err_path "proc". */
int pl_pt_list_pids(pl_ptbase *b, pl_snapshot *snap);

/* ---- clocks -------------------------------------------------------------- */
/* ticks -> 100 ns: one multiply when USER_HZ divides 10^7. */
static inline uint64_t pl_pt_hns(uint64_t ticks, uint64_t per_tick, uint64_t hz)
{
    if (per_tick)
        return ticks * per_tick;
    return ticks / hz * 10000000u + ticks % hz * 10000000u / hz;
}
/* CLOCK_BOOTTIME in 100 ns from <root>/proc/uptime ("699.22 ..."). */
int pl_pt_uptime(pl_file *f, const pl_env *env, int64_t *hns);
/* The object clock of Elapsed Time (counter col, start times on the boot
 * clock), read once every start time of the collection has been: a process
 * or thread that started during the collection then started before the
 * clock, so clock - start is never negative.  Without /proc/uptime (absent,
 * denied, malformed) the column is unset: 0; any other errno is returned. */
int pl_pt_elapsed_clock(pl_ptbase *b, pl_snapshot *snap, uint32_t col);

#endif
