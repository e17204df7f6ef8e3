/* The machine's process table, shared by the Process states of every query
 * of an environment, its listing and base also by Thread states (kept by
 * the environment as a kernel source without a file, pl_ksrc.h): one
 * listing of /proc, one read of each /proc/[pid] file per collect
 * generation, and one set of kept descriptors within the budget of
 * proctable.c.  Each file is parsed once into query-independent values
 * (every stat field any query of the machine asked for, every key of
 * status, io and smaps_rollup); each Process state keeps only what is its
 * own: the identities it published and _Total's sums.  Outside a generation
 * (a provider called directly) every read is afresh. */
#ifndef PL_PTSHARE_H
#define PL_PTSHARE_H

#include "proctable.h"

enum { F_STAT, F_STATUS, F_IO, F_FD, F_SMAPS, F_STATM, F_COMM, NFD };
#define PL_PTSH_KEYS 6       /* keys of status and io; smaps_rollup has 3 */
/* Where each key's value is in kv[k], in the order of ptshare.c's key tables. */
enum { K_VMPEAK, K_VMHWM, K_RSSANON, K_VMSWAP, K_VCSW, K_NVCSW };           /* status */
enum { K_RCHAR, K_WCHAR, K_SYSCR, K_SYSCW, K_RBYTES, K_WBYTES };            /* io */
enum { K_PRIV_CLEAN, K_PRIV_DIRTY, K_PRIV_HUGETLB };                         /* smaps_rollup */

/* One pid of the listing. */
typedef struct pl_ptproc {
    uint32_t pid;            /* first: the table's id */
    int fd[NFD];             /* kept descriptors, -1 when not open */
    uint64_t fdstart;        /* start time of the process the descriptors belong to, 0: none yet */
    uint64_t memstart;       /* fdstart when statm and comm are kept fds of that process, else 0 */
    uint64_t gen[NFD];       /* the generation file k was read in (0: not this one) */
    int err[NFD];            /* its outcome then */
    uint32_t need;           /* stat fields parsed (PS_BIT) */
    pl_pstat ps;             /* stat; ps.comm points into comm */
    char comm[PL_COMM_MAX];
    uint64_t kv[NFD][PL_PTSH_KEYS];   /* status, io, smaps_rollup values */
    uint32_t kh[NFD];        /* which keys were found */
    uint32_t nfd;            /* entries of fd/ */
    uint64_t name_gen;       /* generation the leading Process state named p in */
    uint32_t name_clen;      /* the length of the comm that name was made of */
    char name[PL_COMM_MAX + PL_NAMES_EXTRA];
} pl_ptproc;

typedef struct pl_ptshare pl_ptshare;

/* The environment's table, made on first use.  NULL on ENOMEM. */
pl_ptshare *pl_ptshare_attach(pl_env *env);
/* The clock, buffers and ids of the listing (procfd, per_tick, hz, uptime). */
pl_ptbase *pl_ptshare_base(pl_ptshare *t);
/* Lists /proc (once per generation) and brings the table in line: 0, or the
 * errno with snap->err_path.  Then entry i is of pid base->ids[i]. */
int pl_ptshare_list(pl_ptshare *t, pl_snapshot *snap);
uint32_t pl_ptshare_count(const pl_ptshare *t);
/* Listings of /proc so far: one per generation for Process and Thread (tests). */
uint64_t pl_ptshare_lists(const pl_ptshare *t);
pl_ptproc *pl_ptshare_proc(pl_ptshare *t, uint32_t i);
/* stat of p with at least the fields need parsed: 0 (p->ps), EINVAL for a
 * malformed stat, or the errno of the read.  A kept descriptor that fails
 * (its process exited) is closed with the others, and the path is read
 * afresh; a new process on the pid closes the other files' descriptors.
 * fresh: read again even when this generation did (a file of p failed). */
int pl_ptshare_stat(pl_ptshare *t, pl_ptproc *p, uint32_t need, int fresh);
/* File k (status, io, fd/, smaps_rollup) of p, read and parsed once per
 * generation: 0 (p->kv[k], p->kh[k]; p->nfd for fd/), or the errno. */
int pl_ptshare_file(pl_ptshare *t, pl_ptproc *p, int k);
/* Which Process state names first in this generation (*gen): 1 for the
 * first to ask, which records each name it gives in p->name, p->name_gen
 * and p->name_clen; 0 for later ones, which may take those names while
 * they list the same processes with the same comms; -1 outside a
 * generation (each names its own). */
int pl_ptshare_lead(pl_ptshare *t, uint64_t *gen);
/* Name, identity and memory sizes of p for a query that wants nothing
 * else: p->ps with comm, PS_START, PS_VSIZE (bytes) and PS_RSS (pages), and
 * nothing more unless this generation read stat anyway.  Once statm and
 * comm are kept descriptors proven to be the process of p->fdstart (opened
 * before a stat read named it), they are read instead of stat: two cheap
 * files for one costly one, and comm follows exec at once.  A kept one that
 * fails (an exit: a reused pid is another struct pid) falls back to stat by
 * path.  Returns as pl_ptshare_stat. */
int pl_ptshare_mem(pl_ptshare *t, pl_ptproc *p);
/* statm's size and resident pages ("size resident shared text lib data dt"):
 * 0, or EINVAL unless both are whole numbers. */
int pl_pt_parse_statm(const char *buf, size_t len, uint64_t *size, uint64_t *resident);

#endif
