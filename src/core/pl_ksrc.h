/* Kernel sources: one kernel file (/proc/stat, /proc/net/snmp ...) shared
 * by every set of a machine that reads it.
 *
 * A source is a file below the environment's root and a pure parser of its
 * bytes into a typed struct (src/sources/).  The environment keeps one
 * reader per source: its file descriptor stays open for every query of the
 * machine, and it is read at most once per collect generation.  A
 * generation is one pl_query_collect (with the collects it runs inside it,
 * such as a derived set's), one pl_enum_instances, or what a caller holds
 * between pl_env_begin and pl_env_end: every set that reads the source then
 * sees the same bytes and the same instant.  Outside a generation every get
 * reads afresh, so a value is never older than the call that asked for it.
 *
 * Absence is kept apart from zero inside the typed structs: a field the
 * file did not have is not "0".  Part of the core; no Lua. */
#ifndef PL_KSRC_H
#define PL_KSRC_H

#include "perflib.h"

typedef struct pl_ksrc_def {
    const char *path;        /* below the environment's root: "proc/net/snmp" */
    size_t size;             /* bytes of the parsed struct */
    unsigned flags;          /* PL_KSRC_WHOLE, PL_KSRC_EMPTY */
    /* Parses len bytes (buf[len] is '\0', the last line ends with '\n') into
     * out, which holds the previous parse: the parser resets what it fills
     * and keeps any arrays it grew.  0; ENOMEM; EINVAL when the bytes are not
     * this file at all (the values then read as absent). */
    int (*parse)(const char *buf, size_t len, void *out);
    void (*release)(void *out);       /* frees what parse grew; may be NULL */
} pl_ksrc_def;

/* The kernel writes the whole file into one buffer per read (single_open
 * files such as /proc/stat, meminfo, net/snmp; sysfs attributes): a read
 * that returns less than asked has reached its end, and no second read is
 * made to see 0.  Files made record by record (seq_file iterators:
 * diskstats, net/dev, vmstat, interrupts) stop a read where a record does
 * not fit the kernel's page, so only a read of 0 ends them. */
#define PL_KSRC_WHOLE 1u
/* An empty file is a value, parsed as any other: a list of records that may
 * have none (/proc/locks without locks).  Without it an empty file is no
 * source (EINVAL): its values are absent. */
#define PL_KSRC_EMPTY 2u

/* A parsed value's status, beside it in the source's struct (st[k]): the
 * file did not have it, it was read, or it was malformed (negative, cut
 * off, past 2^64-1). */
enum { PL_NS_ABSENT = 0, PL_NS_OK, PL_NS_BAD };

typedef struct pl_ksrc pl_ksrc;

/* The reader of def in env, made on first use and kept by env until it
 * goes: every provider state of the machine gets the same one.  NULL on
 * ENOMEM.  Call it when a provider opens, not per collect. */
pl_ksrc *pl_ksrc_attach(pl_env *env, const pl_ksrc_def *def);
/* Reads and parses the source unless the current generation already did:
 * 0, or the errno of the read (ENOENT, EACCES ...), EINVAL for an empty or
 * foreign file, ENOMEM. */
int pl_ksrc_get(pl_ksrc *k);
/* The parsed struct (after pl_ksrc_get returned 0). */
const void *pl_ksrc_data(const pl_ksrc *k);
/* When the source was read: perflib ticks (pl_now's clock), as its read
 * began.  A set that takes its values from one source uses it as its
 * snapshot's time, so sets fed by one read share one instant. */
int64_t pl_ksrc_time(const pl_ksrc *k);
/* The file below the root, for snap->err_path. */
const char *pl_ksrc_path(const pl_ksrc *k);
/* The struct of a source without a file (path NULL: state the sets of a
 * machine share, such as its process table), zeroed when attached; its
 * owner fills it, and def->release frees what it grew. */
void *pl_ksrc_state(pl_ksrc *k);
/* The current generation (0 outside one: then nothing may be reused). */
uint64_t pl_ksrc_generation(const pl_ksrc *k);
/* Reads so far (tests: one read per generation). */
uint64_t pl_ksrc_reads(const pl_ksrc *k);

/* pl_env_begin / pl_env_end (perflib.h) delimit a generation. */

/* ---- between env.c and ksrc.c ---------------------------------------------- */
/* The current generation, or 0 outside one (then every get reads). */
uint64_t pl_env_generation(const pl_env *env);
pl_ksrc **pl_env_ksrc_list(pl_env *env);
void pl_ksrc_free_all(pl_ksrc *head);

#endif
