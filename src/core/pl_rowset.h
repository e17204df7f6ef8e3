/* Countersets written as rows.  A counter is one row of an X-macro list:
 * its definition (id, name, help, type, base, detail, scale, units) and its
 * feed, where its value comes from: a field of a kernel source (pl_ksrc.h),
 * a sum or a KiB-to-bytes of fields, a small derive function, or PL_BY_HAND()
 * for the counters an irregular set's own collect fills (Process, Thread,
 * cgroup, Hardware Events, Processor's idle logic ...).
 *
 *   #define MEM_ROWS(R) \
 *       R(3, "Committed Bytes", "Virtual memory committed (/proc/meminfo Committed_AS).", \
 *         LRAW, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_KIB(S_MI, PL_MI_COMMITTED)) \
 *       ...
 *   static const pl_counter_def mem_counters[] = { MEM_ROWS(PL_ROW_COUNTER) };
 *   static const pl_feed mem_feeds[] = { MEM_ROWS(PL_ROW_FEED) };
 *
 * The one list is the only place a counter is said; the README's tables,
 * the generated counter reference and the title indexes come from the
 * definitions it makes.  Part of the core; no Lua. */
#ifndef PL_ROWSET_H
#define PL_ROWSET_H

#include "perflib.h"
#include "pl_provider.h"
#include "pl_ksrc.h"

#include <stddef.h>

/* ---- the row ----------------------------------------------------------------- */
#define PL_ROW_COUNTER(id, name, help, type, base, detail, scale, units, feed) \
    { (id), name, help, (type), (base), (detail), (scale), 8, units },
/* A 4-byte counter (PERF_SIZE_DWORD types kept 32-bit on the wire). */
#define PL_ROW_COUNTER4(id, name, help, type, base, detail, scale, units, feed) \
    { (id), name, help, (type), (base), (detail), (scale), 4, units },
#define PL_ROW_FEED(id, name, help, type, base, detail, scale, units, feed) feed,

/* ---- feeds ------------------------------------------------------------------- */
typedef struct pl_feed_in pl_feed_in;
/* A derive: 1 with *v, 0 when the value is unknown (never a made-up 0). */
typedef int pl_derive_fn(pl_feed_in *in, uint64_t *v);

enum {
    PL_FEED_HAND,            /* the set's own collect fills it */
    PL_FEED_FIELD,           /* field a of source src */
    PL_FEED_SUM,             /* a + b */
    PL_FEED_KIB,             /* a x 1024 */
    PL_FEED_SUM_KIB,         /* (a + b) x 1024 */
    PL_FEED_DERIVE           /* derive(in) */
};

typedef struct pl_feed {
    uint8_t op;              /* PL_FEED_* */
    uint8_t src;             /* index in the set's source table */
    uint16_t a, b;           /* fields of that source */
    uint32_t need;           /* bit s: reads source s (derives may read several) */
    pl_derive_fn *derive;
} pl_feed;

#define PL_BIT(s) (1u << (s))
/* Function-like, as every feed: cppcheck's preprocessor expands an
 * object-like macro inside a row's arguments too early. */
#define PL_BY_HAND() { PL_FEED_HAND, 0, 0, 0, 0, NULL }
#define PL_FIELD(s, f) { PL_FEED_FIELD, (s), (f), 0, PL_BIT(s), NULL }
#define PL_SUM(s, f, g) { PL_FEED_SUM, (s), (f), (g), PL_BIT(s), NULL }
#define PL_KIB(s, f) { PL_FEED_KIB, (s), (f), 0, PL_BIT(s), NULL }
#define PL_SUM_KIB(s, f, g) { PL_FEED_SUM_KIB, (s), (f), (g), PL_BIT(s), NULL }
/* need: PL_BIT of every source fn reads through pl_feed_get. */
#define PL_DERIVE(need, fn) { PL_FEED_DERIVE, 0, 0, 0, (need), (fn) }

/* ---- sources of a set ------------------------------------------------------------ */
/* Where a source's values are: in the parsed struct of a kernel source, or
 * in a row of one (diskstats, net/dev: the collect hands the row).  Field
 * k's value is ((uint64_t *)(base + v))[k]; it is present when st[k] is
 * PL_NS_OK (st != PL_FEED_NO_ST), or when k < the int at base + n (n !=
 * PL_FEED_NO_ST), or always. */
#define PL_FEED_NO_ST 0xFFFFu
typedef struct pl_feed_src {
    const pl_ksrc_def *def;  /* NULL: given by the collect (a row, a file of its own) */
    uint16_t v, st, n;
} pl_feed_src;

#define PL_FEED_SRC_ST(def, type) { (def), offsetof(type, v), offsetof(type, st), PL_FEED_NO_ST }
#define PL_FEED_SRC_N(def, type, vals, count) \
    { (def), offsetof(type, vals), PL_FEED_NO_ST, offsetof(type, count) }
#define PL_FEED_SRC_ALL(def, type, vals) { (def), offsetof(type, vals), PL_FEED_NO_ST, PL_FEED_NO_ST }

#define PL_FEED_MAXSRC 16

/* One collect's view of a set's sources: the readers, what was read, and
 * the collect's outcome (pl_sources). */
struct pl_feed_in {
    const pl_feed_src *srcs;
    unsigned nsrc;
    pl_ksrc *const *k;        /* the machine's readers, NULL where def is NULL */
    const void *data[PL_FEED_MAXSRC];  /* where tried has bit s: its struct or row, or NULL */
    uint32_t tried;           /* bit s: a read of s was attempted */
    pl_sources files;
    pl_snapshot *snap;
    int timed;                /* snap->time is a read's instant */
    void *ctx;                /* for derives: the set's state; pl_rowset_ops: the pl_env */
};

/* Starts a collect over srcs (readers k) for snap: nothing read yet. */
void pl_feed_begin(pl_feed_in *in, const pl_feed_src *srcs, unsigned nsrc, pl_ksrc *const *k,
                   pl_snapshot *snap, void *ctx);
/* The parsed struct of source s, read on first use in this collect (once
 * per generation across sets: pl_ksrc_get); NULL when it cannot be read
 * (recorded in in->files).  The first read's instant becomes snap->time. */
const void *pl_feed_get(pl_feed_in *in, unsigned s);
/* Hands source s a value the collect got itself (a row; NULL: none). */
void pl_feed_put(pl_feed_in *in, unsigned s, const void *data);
/* Field f of source s: 1 with *v when the source was read and has it. */
int pl_feed_field(pl_feed_in *in, unsigned s, unsigned f, uint64_t *v);
/* The sources the wanted rows need (NULL wanted: all). */
uint32_t pl_feed_need(const pl_feed *rows, uint32_t n, const uint8_t *wanted);
/* Reads every source in need, in index order. */
void pl_feed_read(pl_feed_in *in, uint32_t need);
/* Sets counter i of instance inst for every row i that is wanted, or
 * whose sources were read anyway (bases come along), and known. */
void pl_feed_walk(pl_feed_in *in, uint32_t inst, const pl_feed *rows, uint32_t n,
                  const uint8_t *wanted);
/* The parsed struct of the source whose rows are a set's instances: 0
 * with *data, NULL for an empty or foreign file (no instances, no values);
 * or the read's errno, with snap->err_path.  The read's instant becomes
 * snap->time. */
int pl_feed_rows_source(pl_ksrc *k, pl_snapshot *snap, const void **data);
/* pl_sources_end of the collect: 0, or the set's failure. */
int pl_feed_end(pl_feed_in *in);

/* The ops of a set whose read(state, wanted, snap, values) lists its
 * instances (values 0) or fills them too (values 1): NAME_ops. */
#define PL_READ_OPS(name, open, close, read) \
    static int name##_instances(void *state, pl_snapshot *snap) \
    { \
        return read(state, NULL, snap, 0); \
    } \
    static int name##_collect(void *state, const uint8_t *wanted, pl_snapshot *snap) \
    { \
        return read(state, wanted, snap, 1); \
    } \
    static const pl_provider_ops name##_ops = { open, close, name##_instances, name##_collect, NULL, NULL }

/* ---- a whole single-instance set from rows ---------------------------------------- */
/* For sets whose every counter is a feed of kernel sources: its def's
 * provider_data points here (a non-const static) and its ops are
 * pl_rowset_ops; a derive's in->ctx is then the pl_env. */
typedef struct pl_rowset {
    const pl_feed_src *srcs;
    unsigned nsrc;
    const pl_feed *rows;     /* def->ncounters of them */
} pl_rowset;

extern const pl_provider_ops pl_rowset_ops;

#endif
