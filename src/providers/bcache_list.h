/* What Bcache and Bcache Device share: the cache sets of /sys/fs/bcache
 * (one directory per set, named by its UUID; Documentation/admin-guide/
 * bcache.rst "SYSFS - CACHE SET"), provider records kept by a string key
 * across listings (their files stay open while the key stays), and the
 * reading of a record's files: one pread each of the wanted ones, the
 * values parsed as the kernel prints them (bcache.h). */
#ifndef PL_BCACHE_LIST_H
#define PL_BCACHE_LIST_H

#include "pl_provider.h"
#include "pl_rowset.h"

#define PL_BCH_SETS "sys/fs/bcache"
#define PL_BCH_KEY 96        /* "<uuid>/cache<N>" and more */

/* Records of `size` bytes, each starting with its key (char[PL_BCH_KEY]),
 * in key order; keys[] is one listing's scratch. */
typedef struct pl_bch_keyed {
    void *v;
    uint32_t n, cap;
    size_t size;
    char (*keys)[PL_BCH_KEY];
    uint32_t nkeys, keycap;
} pl_bch_keyed;

void pl_bch_keyed_init(pl_bch_keyed *t, size_t size);
void pl_bch_keyed_free(pl_bch_keyed *t, void (*drop)(void *rec));
/* Adds a key to this listing (cut keys are refused: 0).  0 or ENOMEM. */
int pl_bch_key_add(pl_bch_keyed *t, const char *key);
/* Brings the records in line with the listed keys (sorted first): a
 * record whose key went is dropped; a new key gets a zeroed record with
 * its key, passed to init(rec, ctx).  The scratch is emptied.  0 or ENOMEM
 * (records untouched). */
int pl_bch_keyed_sync(pl_bch_keyed *t, void (*init)(void *rec, void *ctx), void *ctx,
                      void (*drop)(void *rec));

/* The UUIDs of the cache sets, added as keys to t.  /sys/fs/bcache comes
 * with the bcache module, which may load later: a missing directory is
 * tried again at each listing (one failed open); it is zero sets. */
int pl_bch_list_sets(pl_bch_keyed *t, pl_classdir *top, const pl_env *env);

/* How a file's text is read. */
enum { PL_BCH_DEC, PL_BCH_HSIZE, PL_BCH_STATE, PL_BCH_PRIO };
typedef struct pl_bch_file {
    const char *rel;         /* below the record's directory */
    uint8_t how;             /* PL_BCH_* */
    uint8_t field;           /* the row field it fills (PRIO: the first of PL_BCHP_N) */
    uint64_t mul;            /* x this (sectors to bytes), else 1 */
} pl_bch_file;

/* A row of up to 32 fields: values and PL_NS_* statuses. */
typedef struct pl_bch_row {
    uint64_t v[32];
    uint8_t st[32];
} pl_bch_row;

/* Bit f when a wanted counter (NULL: all) feeds from row field f (its
 * PL_FIELD, both of a PL_SUM; a fraction's base row comes along). */
uint32_t pl_bch_fields(const pl_counter_def *defs, const pl_feed *feeds, uint32_t n,
                       const uint8_t *wanted);
/* Reads files[0, nf) of the directory dir (below the root) whose fields
 * are in need, with fd[k] kept open (-1: not yet), into r.  An EACCES
 * file's counters are denied for instance inst.  A file that is not there
 * (an attribute this kernel lacks: cache_readaheads, a backing device's
 * io_errors) is not looked for again while the record lives (pl_read_attr;
 * a set or device that comes back is a new record). */
void pl_bch_read(const pl_env *env, const char *dir, const pl_bch_file *files, int nf, int *fd,
                 uint32_t need, const pl_feed *feeds, uint32_t nc, uint32_t inst,
                 pl_bch_row *r, pl_snapshot *snap);
/* FNV-1a of a name, the id of an instance without a number of its own. */
uint32_t pl_bch_name_id(const char *s);

#endif
