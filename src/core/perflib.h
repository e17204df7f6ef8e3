/* perflib counter core: countersets, query handles, samples and formulas.
 *
 * This header is the whole core API.  It has no Lua dependency: a C program
 * links libperflib-core.a (src/core) and nothing else; its registry is then
 * empty until the program registers countersets (pl_register_counterset), and
 * libperflib-providers.a adds the built-in families (pl_register_builtin in
 * src/providers/providers.h).
 * Every function returns 0 or a positive errno unless documented otherwise. */
#ifndef PERFLIB_H
#define PERFLIB_H

#include <stddef.h>
#include <stdint.h>
#include "pl_winperf.h"

#define PL_VERSION "0.1.0"
#define PL_NO_ID 0xFFFFFFFFu          /* "none" for ids, "any" for filters */

/* ===================================================================== */
/* GUIDs                                                                   */
/* ===================================================================== */
typedef struct pl_guid {
    uint32_t d1;
    uint16_t d2, d3;
    uint8_t d4[8];
} pl_guid;

#define PL_GUID_STRLEN 36             /* without braces and NUL */
int pl_guid_parse(const char *s, pl_guid *out);     /* 0 or EINVAL; braces optional */
void pl_guid_format(const pl_guid *g, char out[PL_GUID_STRLEN + 1]);
int pl_guid_equal(const pl_guid *a, const pl_guid *b);
/* A UUIDv8 (RFC 9562, vendor defined) of "<kind>:<name>", from two FNV-1a-64
 * hashes passed through MurmurHash3's finalizer: the same on every machine and
 * in every run, so sets made at run time (plug-in objects, textfile families,
 * published, defined and derived sets) keep their GUID and title index. */
pl_guid pl_name_guid(const char *kind, const char *name);

/* ===================================================================== */
/* Counter and counterset definitions (static metadata)                   */
/* ===================================================================== */
typedef struct pl_counter_def {
    uint32_t id;             /* stable; never renumbered */
    const char *name;
    const char *help;
    uint32_t type;           /* winperf.h counter type */
    uint32_t base_id;        /* id of the base counter, PL_NO_ID if none */
    uint32_t detail;         /* PERF_DETAIL_* */
    int32_t scale;           /* default scale: formatted value x 10^scale */
    uint32_t size;           /* data size in bytes: 4 or 8 (0 means 8) */
    /* Units and semantics (src/core/units.c): 0 means "not declared", and
     * pl_counter_units derives them from the type.  PL_U(BYTES, 1024, GAUGE). */
    uint8_t unit;            /* pl_unit_kind of the raw value */
    uint8_t semantics;       /* pl_semantics */
    double unit_scale;       /* raw x unit_scale = base units; 0 means 1 */
} pl_counter_def;

typedef struct pl_env pl_env;
typedef struct pl_snapshot pl_snapshot;
typedef struct pl_counterset_def pl_counterset_def;

/* A provider fills snapshots of one counterset.  State is per query, so
 * files stay open between collections. */
/* Text facts about an instance that are not numbers (a disk's model and
 * serial, a CPU's frequency governor, the CPU vulnerabilities): key/value
 * pairs, given to emit one at a time (keys are lower_snake_case, values
 * printable UTF-8 with control characters escaped by the provider).  emit
 * returns nonzero to stop the walk. */
typedef int (*pl_info_fn)(void *ud, const char *key, const char *value);
/* The same with the instance's name, for walks over every instance. */
typedef int (*pl_info_inst_fn)(void *ud, const char *instance, const char *key, const char *value);

typedef struct pl_provider_ops {
    int (*open)(pl_env *env, void **state);
    void (*close)(void *state);
    /* Instance names and ids only: no values, as cheap as possible. */
    int (*instances)(void *state, pl_snapshot *snap);
    /* wanted[i] != 0 when counter index i is needed (NULL = all). */
    int (*collect)(void *state, const uint8_t *wanted, pl_snapshot *snap);
    /* Instead of open (then NULL), when set: for providers whose sets are
     * made at run time (plug-ins, textfiles, applications, defined and
     * derived sets), which must know the set they open. */
    int (*open_set)(pl_env *env, const pl_counterset_def *cs, void **state);
    /* Text facts of one instance (by name; NULL for a single-instance set),
     * when the set has any (NULL otherwise): 0, ENOENT when there is no such
     * instance, or the errno of a source that failed.  Not on the sampling
     * path: it may read files it does not keep open. */
    int (*info)(void *state, const char *instance, pl_info_fn emit, void *ud);
} pl_provider_ops;

struct pl_counterset_def {
    pl_guid guid;
    const char *name;
    const char *help;
    uint32_t instance_type;  /* PERF_COUNTERSET_SINGLE_INSTANCE / _MULTI_INSTANCES */
    int costly;              /* left out of "Global" collections */
    uint32_t ncounters;
    const pl_counter_def *counters;
    const pl_provider_ops *ops;
    uint32_t index;          /* stable title index (the "Counter 009" number), even */
    void *provider_data;     /* the provider's own (a plug-in's object), for open_set */
};

/* Opens cs's provider state for env: open, or open_set when the ops have it. */
static inline int pl_provider_open(const pl_counterset_def *cs, pl_env *env, void **state)
{
    return cs->ops->open_set ? cs->ops->open_set(env, cs, state) : cs->ops->open(env, state);
}

int pl_counter_index(const pl_counterset_def *cs, uint32_t id);        /* -1 if unknown */
int pl_counter_index_by_name(const pl_counterset_def *cs, const char *name);
/* A counter whose type has PERF_DISPLAY_NOSHOW: a base, left out of "*". */
int pl_counter_hidden(const pl_counter_def *c);

/* ===================================================================== */
/* Units and semantics (units.c), in Prometheus' base units                */
/* ===================================================================== */
typedef enum pl_unit_kind {
    PL_UNIT_UNDECLARED = 0,
    PL_UNIT_NONE,            /* dimensionless: states, flags, ids, mixed sources */
    PL_UNIT_COUNT,           /* events, objects, pages, packets ... */
    PL_UNIT_BYTES,
    PL_UNIT_SECONDS,
    PL_UNIT_PERCENT,
    PL_UNIT_RATIO,
    PL_UNIT_HERTZ,
    PL_UNIT_CELSIUS,
    PL_UNIT_WATTS,
    PL_UNIT_JOULES,
    PL_UNIT_VOLTS,
    PL_UNIT_AMPERES,
    PL_UNIT_RPM,
    PL_UNIT_AMPERE_HOURS,    /* battery charge, as node_exporter names it */
    PL_UNIT_KELVIN,          /* Windows' thermal zones; celsius is kelvin - 273.15, no scale */
    PL_UNIT_BYTES_PER_SECOND,/* a link's speed (node_exporter's speed_bytes) */
    PL_UNIT_KIND_COUNT
} pl_unit_kind;

typedef enum pl_semantics {
    PL_SEM_UNDECLARED = 0,
    PL_SEM_COUNTER,          /* cumulative: only its increase means something */
    PL_SEM_GAUGE,            /* instantaneous: goes up and down */
    PL_SEM_DISCRETE,         /* rarely changes: totals, sizes, ids, start times */
    PL_SEM_COUNT
} pl_semantics;

/* What the formatted value is per: nothing, a second (rates), an operation
 * (averages over a base count). */
typedef enum pl_per { PL_PER_NONE = 0, PL_PER_SECOND, PL_PER_OP } pl_per;

/* The three unit fields of a counter definition, after size. */
#define PL_U(kind, scale, sem) PL_UNIT_##kind, PL_SEM_##sem, (scale)

typedef struct pl_units {
    pl_unit_kind kind;       /* of the raw value */
    double scale;            /* raw x scale = base units */
    pl_semantics semantics;
    int declared;            /* 1: from the definition; 0: derived from the type */
    pl_unit_kind fkind;      /* of the formatted value (PL_UNIT_NONE: no number) */
    double fscale;           /* formatted value x fscale = base units (per fper), at the
                                counter's default scale */
    pl_per fper;
} pl_units;

/* A type's own units: the derivation used when a definition declares none.
 * Timer ticks are perflib's 100 ns (scale 1e-7). */
void pl_type_units(uint32_t type, pl_units *out);
/* A counter's units: declared fields, else derived from its type. */
void pl_counter_units(const pl_counter_def *c, pl_units *out);
const char *pl_unit_name(pl_unit_kind k);          /* "bytes", "seconds", "" for none */
const char *pl_semantics_name(pl_semantics s);     /* "counter", "gauge", "discrete" */
/* From a name ("bytes", "seconds", "none" or "" ...): 0 or EINVAL. */
int pl_unit_parse(const char *s, pl_unit_kind *out);
int pl_semantics_parse(const char *s, pl_semantics *out);
/* The same, or a symbol with an SI or IEC prefix ("KiB", "ms", "MHz", "uW",
 * "B", "s"): the kind and the scale to base units.  0 or EINVAL. */
int pl_unit_parse_scaled(const char *s, pl_unit_kind *out, double *scale);
/* Fills the fields c leaves undeclared from its type (pl_type_units), so that
 * pl_units_check judges what it declares. */
void pl_units_complete(pl_counter_def *c);
/* The formatted value's unit as text: "bytes/s", "percent", "seconds/op",
 * "MHz", "KiB" ...; "" when dimensionless.  Returns strlen of the whole text. */
size_t pl_units_format(const pl_units *u, char *buf, size_t size);
/* A counter's units on one line, as the V1 "Units" table gives them:
 * "unit=bytes scale=1024 semantics=gauge formatted=KiB type=gauge factor=1024
 * metric=perflib_memory_available_bytes" (keys in this order; formatted= is
 * empty for counts).  Returns strlen of the whole text, as snprintf. */
size_t pl_units_describe(const pl_counterset_def *cs, const pl_counter_def *c, char *buf, size_t size);
/* Whether c's declared units agree with its type (a rate must be
 * cumulative, a timer counts seconds, ...): 0, or EINVAL with a sentence. */
int pl_units_check(const pl_counter_def *c, char *msg, size_t size);

/* Prometheus metric of a counter: perflib_<set>_<counter> normalised, with
 * the base-unit suffix and _total for counters; unique within the set (a
 * clash takes _<counter id>).  The raw value x factor is the sample. */
typedef struct pl_metric {
    const char *type;        /* "counter" or "gauge" */
    double factor;
    int duplicate;           /* 1: a coarser copy of another counter of the set (Free
                                Megabytes of Free Bytes), named with its id */
} pl_metric;
#define PL_METRIC_NAME_MAX 256
/* 0, or ENAMETOOLONG (name cut), EINVAL (c not of cs). */
int pl_metric_name(const pl_counterset_def *cs, const pl_counter_def *c, char *buf,
                   size_t size, pl_metric *out);

/* ===================================================================== */
/* Environment: a view of one machine below a root directory              */
/* ===================================================================== */
pl_env *pl_env_new(const char *root);     /* NULL root = "/"; NULL + errno on failure */
pl_env *pl_env_ref(pl_env *env);
void pl_env_unref(pl_env *env);
const char *pl_env_root(const pl_env *env);
long pl_env_user_hz(const pl_env *env);
long pl_env_page_size(const pl_env *env);
void pl_env_set_user_hz(pl_env *env, long hz);       /* for fixtures from other machines */
void pl_env_set_page_size(pl_env *env, long size);
/* A set for this environment only (tests, fixtures), after the registered
 * ones it started with: cs must outlive the environment and every sample of
 * it, and take a fixed index (the rules of pl_register_counterset).  0,
 * EINVAL, EEXIST for a taken name, GUID or index span, ENOMEM.  Not
 * thread-safe against other users of env. */
int pl_env_register(pl_env *env, const pl_counterset_def *cs);
/* An environment that holds only the sets given to it (another machine's
 * definitions): the process registry is never added to it. */
pl_env *pl_env_new_empty(const char *root);
/* Adds another machine's set cs to env as it is: its name and GUID must be
 * free in env; with index NULL its own title index must be free (any value,
 * assigned range included), else *index receives a free span in the assigned
 * range that cs must take before it is used (cs->index is not written).  The
 * rules of pl_env_register otherwise.  0, EINVAL, EEXIST, ENOSPC, ENOMEM. */
int pl_env_mirror(pl_env *env, const pl_counterset_def *cs, uint32_t *index);
uint32_t pl_env_counterset_count(const pl_env *env);
const pl_counterset_def *pl_env_counterset(const pl_env *env, uint32_t i);
/* By name (case-insensitive) or GUID string with or without braces. */
const pl_counterset_def *pl_env_find(const pl_env *env, const char *name_or_guid);
const pl_counterset_def *pl_env_find_guid(const pl_env *env, const pl_guid *g);

/* A source of recorded samples behind an environment (a log opened with
 * perflib.open_log): a query on it reads the source's next record at each
 * collect instead of calling its sets' providers, and its samples carry the
 * record's clocks.  Every query has a cursor of its own. */
typedef struct pl_source_ops {
    int (*open)(void *src, void **cursor);               /* a cursor at the start: 0 or an errno */
    void (*close)(void *cursor);
    /* On to the next record: its clocks.  0; ENODATA past the last; another
     * errno (EINVAL: a record that fails its checks) with error() saying why. */
    int (*next)(void *cursor, int64_t *perf_time, int64_t *perf_freq, int64_t *time100ns);
    /* Set cs's instances and wanted values (NULL: all) of the record: 0;
     * ENOENT when the record does not hold cs; the errno the set failed with
     * when it was recorded (snap->err_msg may say more). */
    int (*fill)(void *cursor, const pl_counterset_def *cs, const uint8_t *wanted, pl_snapshot *snap);
    const char *(*error)(void *cursor);                  /* the last failure, or NULL */
    void (*free)(void *src);                             /* when the environment goes */
} pl_source_ops;
/* Puts src behind env (once, before any query of it): env frees it. */
void pl_env_set_source(pl_env *env, const pl_source_ops *ops, void *src);
/* env's source, or NULL (*src too). */
const pl_source_ops *pl_env_source(const pl_env *env, void **src);

/* ===================================================================== */
/* Snapshots: what a provider produced for one counterset                 */
/* ===================================================================== */
typedef struct pl_snap_inst {
    uint32_t id;
    uint32_t name_off;       /* into names */
    uint64_t key;            /* more identity, e.g. a process's start time (0 if none) */
} pl_snap_inst;

#define PL_HAVE_NO_ACCESS 3  /* value absent: its source was not readable (status no_access) */

struct pl_snapshot {
    const pl_counterset_def *cs;
    uint32_t ninst, cap;
    pl_snap_inst *inst;
    char *names;
    size_t names_len, names_cap;
    uint64_t *values;        /* ninst x ncounters */
    uint8_t *have;           /* 1 where the source had the value, PL_HAVE_NO_ACCESS where
                                its file was not readable by this user (pl_snap_deny) */
    int64_t obj_time;        /* PERF_OBJECT_TIMER clock for this set, if any */
    int64_t obj_freq;
    const char *err_path;    /* file that failed, for messages */
    const char *err_msg;     /* or a sentence saying what failed (a plug-in's), NULL if none;
                                the provider keeps it until its next collect */
    uint64_t stamp;          /* changes with every instance added and every init: see pl_snap_restore */
    int64_t time;            /* when the source read the values, in perflib ticks of its own
                                clock (a remote machine's); 0: the collect's own instant */
    int time_foreign;        /* 1: time is another machine's clock, not this process's */
};

void pl_snap_init(pl_snapshot *s, const pl_counterset_def *cs);
void pl_snap_free(pl_snapshot *s);
void pl_snap_clear(pl_snapshot *s);      /* keeps buffers */
/* Appends an instance with all values absent; returns its index or -1 (ENOMEM). */
int pl_snap_add(pl_snapshot *s, const char *name, uint32_t id);
/* The same with a key that is part of the instance's identity: samples pair
 * instances only when id, name and key all match (pid reuse is a new process). */
int pl_snap_add_key(pl_snapshot *s, const char *name, uint32_t id, uint64_t key);
static inline void pl_snap_set(pl_snapshot *s, uint32_t inst, uint32_t counter, uint64_t v)
{
    size_t k = (size_t)inst * s->cs->ncounters + counter;
    s->values[k] = v;
    s->have[k] = 1;
}
/* The value is absent because its source (a file of another user's process,
 * a perf event the paranoia level forbids) was not readable: status no_access. */
static inline void pl_snap_deny(pl_snapshot *s, uint32_t inst, uint32_t counter)
{
    s->have[(size_t)inst * s->cs->ncounters + counter] = PL_HAVE_NO_ACCESS;
}
/* Takes back the last instance added (a provider that found it changing). */
void pl_snap_drop_last(pl_snapshot *s);
/* After pl_snap_clear, which keeps the buffers: brings back the ninst
 * instances (names_len bytes of names) the snapshot held when its stamp was
 * stamp -- for a provider whose instance list has not changed since.  Their
 * values and have flags are the old ones: the provider rewrites each.
 * 0, or -1 when instances were added since (or the snapshot is another). */
int pl_snap_restore(pl_snapshot *s, uint32_t ninst, size_t names_len, uint64_t stamp);
static inline const char *pl_snap_name(const pl_snapshot *s, uint32_t inst)
{
    return s->names + s->inst[inst].name_off;
}
/* Current instances of a counterset (names and ids) without values. */
int pl_enum_instances(pl_env *env, const pl_counterset_def *cs, pl_snapshot *out);
/* Text facts (info.c): opens cs's provider on env, gives emit the facts of
 * one instance (NULL for a single-instance set) and closes it.  0; EINVAL
 * when env, cs or emit is NULL or instance is NULL for a multi-instance set
 * (or given for a single-instance one); ENOTSUP when the set has no info op;
 * ENOENT for an unknown instance; else the provider's errno. */
int pl_counterset_info(pl_env *env, const pl_counterset_def *cs, const char *instance,
                       pl_info_fn emit, void *ud);
/* Every instance's facts, in the provider's instance order (an instance
 * gone between the listing and its facts is skipped); a single-instance set
 * gives its facts with instance "".  The same errors. */
int pl_counterset_info_all(pl_env *env, const pl_counterset_def *cs, pl_info_inst_fn emit, void *ud);

/* ===================================================================== */
/* Statuses of formatted values                                           */
/* ===================================================================== */
typedef enum pl_status {
    PL_VALID = 0,            /* a real number */
    PL_FIRST_SAMPLE,         /* two-sample type without an older sample */
    PL_NEGATIVE_DELTA,       /* counter went backwards: reset, not a spike */
    PL_ZERO_INTERVAL,        /* no time (or time base) passed */
    PL_NEGATIVE_INTERVAL,    /* time base went backwards: samples out of order */
    PL_ZERO_BASE,            /* fraction/average with a zero denominator */
    PL_NO_INSTANCE,          /* instance absent in one of the samples */
    PL_NO_DATA,              /* the source had no value */
    PL_INVALID_DATA,         /* malformed input */
    PL_UNSUPPORTED_TYPE,     /* type that formats to no number (text, nodata, base) */
    PL_NO_ACCESS,            /* the source was there but not readable by this user */
    PL_STATUS_COUNT
} pl_status;

/* "valid", "first_sample", ...; the PDH_CSTATUS_* / PDH_CALC_* code of each
 * is the C APIs' business (pl_status_pdh, src/capi/pl_codes.h). */
const char *pl_status_name(pl_status st);

/* ===================================================================== */
/* Formula evaluation (PdhFormatFromRawValue analog)                      */
/* ===================================================================== */
typedef struct pl_raw {
    uint64_t first;          /* the counter's value */
    uint64_t second;         /* base value, or the timestamp for timer types */
    uint32_t multi;          /* instance count for MULTI timers */
    uint32_t size;           /* data size in bytes: 4 or 8 */
} pl_raw;

#define PL_FMT_NOCAP100 0x8000u   /* same bit as PDH_FMT_NOCAP100 */
#define PL_FMT_1000     0x2000u   /* PDH_FMT_1000: multiply by 1000 */
#define PL_FMT_NOSCALE  0x1000u   /* PDH_FMT_NOSCALE: ignore the scale */

/* newer/older as in PdhCalculateCounterFromRawValue; older may be NULL for
 * one-sample types.  freq: ticks per second of the timestamps in .second
 * (ignored where the type fixes it).  scale: power of ten applied unless
 * PL_FMT_NOSCALE. */
pl_status pl_format_raw(uint32_t type, const pl_raw *newer, const pl_raw *older,
                        int64_t freq, unsigned flags, int scale, double *out);
int pl_type_needs_two(uint32_t type);   /* 1 if two samples are needed */
int pl_type_known(uint32_t type);
const char *pl_type_name(uint32_t type); /* "PERF_COUNTER_BULK_COUNT" or NULL */

/* ===================================================================== */
/* Queries and samples                                                    */
/* ===================================================================== */
typedef struct pl_query pl_query;

typedef struct pl_spec_in {
    const char *counterset;  /* name or GUID string */
    const char *instance;    /* filter with * and ?; "" or NULL for single-instance sets */
    uint32_t instance_id;    /* PL_NO_ID = any */
    const char *counter;     /* name or wildcard; NULL = use counter_id */
    uint32_t counter_id;     /* id, or PERF_WILDCARD_COUNTER */
    uint32_t detail;         /* the highest PERF_DETAIL_* a wildcard takes in; 0 = EXPERT, so
                                WIZARD counters (dear to read) are only read when named */
} pl_spec_in;

typedef struct pl_spec {
    uint32_t uid;            /* unique in the query, survives deletes */
    const pl_counterset_def *cs;
    char *instance;          /* filter as given ("" for single-instance) */
    uint32_t instance_id;
    uint32_t counter_id;     /* as asked: id, or PERF_WILDCARD_COUNTER */
    char *counter;           /* name or pattern as asked, or NULL */
    uint32_t ncounters;
    uint32_t *counters;      /* resolved counter indexes into cs->counters */
    uint32_t shape;          /* PERF_SINGLE_COUNTER ... PERF_COUNTERSET */
    char *path;              /* \Counterset(instance)\Counter */
} pl_spec;

pl_query *pl_query_new(pl_env *env);          /* NULL + errno */
void pl_query_free(pl_query *q);
pl_env *pl_query_env(const pl_query *q);
/* What the last collect's failure was when the query reads a source (a
 * corrupt record's offset and rule), or NULL. */
const char *pl_query_source_error(const pl_query *q);
uint64_t pl_query_id(const pl_query *q);
/* The outcome of one specification given to pl_query_add, _add_path or
 * _find: the core's own statuses.  The Win32 code PerfAddCounters writes
 * for each (and the Lua binding's `code`) is mapped at the API edge,
 * src/capi/pl_codes.h. */
typedef enum pl_add_status {
    PL_ADD_OK = 0,           /* added; find: found */
    PL_ADD_NO_SET,           /* no counterset of that name or GUID */
    PL_ADD_NO_COUNTER,       /* no counter of that name or id; a pattern that matches none */
    PL_ADD_BAD_INSTANCE,     /* an instance on a single-instance set, none on a multi-instance
                                one, or one of PERF_MAX_INSTANCE_NAME bytes or more */
    PL_ADD_DUPLICATE,        /* add: the query already has this specification */
    PL_ADD_BAD_PATH,         /* add_path: not \Counterset(instance)\Counter */
    PL_ADD_NOT_IN_QUERY,     /* find: a valid specification the query does not hold */
    PL_ADD_STATUS_COUNT
} pl_add_status;

/* "ok", "no_counterset", "no_counter", "bad_instance", "duplicate",
 * "bad_path", "not_in_query" (the Lua statuses); "invalid" for a value out
 * of range. */
const char *pl_add_status_name(pl_add_status st);
/* Adds one specification.  Returns 0 or ENOMEM; the spec's own outcome is in
 * *status: PL_ADD_OK, _NO_SET, _NO_COUNTER, _BAD_INSTANCE or _DUPLICATE.
 * *index receives the result index on success. */
int pl_query_add(pl_query *q, const pl_spec_in *in, pl_add_status *status, uint32_t *index);
/* \Counterset(instance)\Counter or \Counterset\Counter, wildcards allowed;
 * a path that does not parse is PL_ADD_BAD_PATH. */
int pl_query_add_path(pl_query *q, const char *path, pl_add_status *status, uint32_t *index);
/* The result index of the spec already in the query that in names, as
 * pl_query_add would check it: *status PL_ADD_OK and *index, or the status
 * add would give, or PL_ADD_NOT_IN_QUERY when it is not there.  0 or ENOMEM. */
int pl_query_find(pl_query *q, const pl_spec_in *in, pl_add_status *status, uint32_t *index);
int pl_query_delete(pl_query *q, uint32_t index);     /* 0 or ENOENT */
uint32_t pl_query_count(const pl_query *q);
const pl_spec *pl_query_spec(const pl_query *q, uint32_t index);
/* Parses a counter path; fields point into buf (size >= strlen(path)+1). */
int pl_path_parse(const char *path, char *buf, size_t bufsize, pl_spec_in *out);
/* The machine a path names (\\host:port\Set...) into host: its length, or 0 when the
 * path names none (or the name is empty or does not fit in size). */
size_t pl_path_machine(const char *path, char *host, size_t size);
int pl_wildcard_match(const char *pattern, const char *s);   /* case-insensitive */
int pl_has_wildcard(const char *s);

typedef struct pl_inst {
    uint32_t id;
    uint32_t name_off;
    uint64_t key;
} pl_inst;

typedef struct pl_pair {
    uint64_t v;              /* the counter's raw value */
    uint64_t b;              /* its base value, or object time, else 0 */
} pl_pair;

typedef struct pl_block {
    uint32_t uid;            /* spec uid */
    uint32_t index;          /* result index at collection time */
    uint32_t shape;          /* PERF_ERROR_RETURN when the whole block failed */
    pl_status status;        /* PL_VALID, PL_NO_INSTANCE or PL_NO_DATA */
    int err;                 /* errno behind PL_NO_DATA, or 0 */
    const pl_counterset_def *cs;
    uint32_t ncounters;
    uint32_t counters_off;   /* into sample->cidx */
    uint32_t ninst;
    uint32_t inst_off;       /* into sample->inst */
    size_t vals_off;         /* into sample->vals / have: ninst x ncounters */
    int64_t obj_time, obj_freq;
    const char *err_path;
    const char *err_msg;     /* the snapshot's err_msg, copied into the sample */
    uint32_t filter_off;     /* the spec's instance filter, into sample->names */
    int64_t time;            /* when this result's counterset was read (the middle of its
                                collect), in the sample's ticks: its formulas' clock */
} pl_block;

typedef struct pl_sample {
    uint64_t query_id;
    uint64_t seq;            /* 1, 2, ... per query */
    int64_t perf_time;       /* CLOCK_MONOTONIC in ticks: the middle of all its reads */
    int64_t perf_freq;       /* ticks per second */
    int64_t time100ns;       /* 100 ns units since 1601-01-01 UTC */
    uint32_t nblocks;
    pl_block *blocks;
    uint32_t *cidx;
    pl_inst *inst;
    pl_pair *vals;
    uint8_t *have;           /* 1: value present, 0: absent, PL_HAVE_NO_BASE, PL_HAVE_NO_ACCESS */
    char *names;
    int foreign;             /* read from a data block: its query id and result ids are
                                another process's, so its results pair by definition */
} pl_sample;

#define PL_HAVE_NO_BASE 2    /* value present, its base counter is not defined */
/* Whether a presence flag holds a value (present, with or without its base). */
#define PL_HAVE_VALUE(h) ((h) == 1 || (h) == PL_HAVE_NO_BASE)

/* Collects every specification.  *out is one allocation: free with free().
 * A query of an environment with a source (a log) takes its next record:
 * ENODATA past the last, EINVAL for a record that fails its checks
 * (pl_query_source_error says which). */
int pl_query_collect(pl_query *q, pl_sample **out);
/* The same with the caller's allocator for that one block (e.g. memory a
 * garbage collector accounts for); alloc returns NULL for ENOMEM. */
typedef void *(*pl_alloc_fn)(void *ud, size_t size);
int pl_query_collect_with(pl_query *q, pl_alloc_fn alloc, void *ud, pl_sample **out);
/* The allocator of a caller that keeps one sample at a time: the buffer of
 * the pl_membuf ud, grown when too small, never allocated per call (free
 * its mem when done). */
typedef struct pl_membuf {
    void *mem;
    size_t cap;
} pl_membuf;
void *pl_membuf_alloc(void *ud, size_t size);
static inline const char *pl_sample_inst_name(const pl_sample *s, const pl_block *b, uint32_t i)
{
    return s->names + s->inst[b->inst_off + i].name_off;
}
static inline uint32_t pl_sample_inst_id(const pl_sample *s, const pl_block *b, uint32_t i)
{
    return s->inst[b->inst_off + i].id;
}
static inline uint64_t pl_sample_inst_key(const pl_sample *s, const pl_block *b, uint32_t i)
{
    return s->inst[b->inst_off + i].key;
}
static inline const pl_counter_def *pl_sample_counter(const pl_sample *s, const pl_block *b, uint32_t c)
{
    return &b->cs->counters[s->cidx[b->counters_off + c]];
}
const pl_block *pl_sample_find_block(const pl_sample *s, uint32_t uid);
/* The result of s0 that result b1 of s1 is formatted against, or NULL: one
 * with the same counterset and counter list, from samples whose clocks run
 * at the same frequency.  Samples of one query pair by result id; a foreign
 * sample (from a data block) is never trusted by id alone: its result with
 * b1's id, else the first with b1's definition and instance filter. */
const pl_block *pl_sample_pair(const pl_sample *s1, const pl_block *b1, const pl_sample *s0);
/* Index of the instance with this id, name and key in block b, or -1; an
 * instance with a key other than 0 is found by id and key alone.  hint: likely index. */
int pl_sample_find_inst(const pl_sample *s, const pl_block *b, uint32_t id, const char *name,
                        uint64_t key, uint32_t hint);

/* How to format: PL_FMT_* flags, and optionally one scale for every counter
 * instead of each counter's default (PdhSetCounterScaleFactor). */
typedef struct pl_fmt {
    unsigned flags;
    int scale_set;
    int scale;
} pl_fmt;

/* Formatted value of one value: block b1 of s1 (newer), instance i, counter c,
 * against s0 (older, may be NULL) and its result pl_sample_pair gives; a
 * two-sample value without one is PL_FIRST_SAMPLE.  Clocks are the results'
 * own times.  fmt may be NULL for the defaults. */
pl_status pl_sample_format(const pl_sample *s1, const pl_block *b1, uint32_t i, uint32_t c,
                           const pl_sample *s0, const pl_fmt *fmt, double *out);
/* The raw value of value i, c of block b as pl_sample_format takes it (the
 * value with its base, instance count or time stamp; PdhGetRawCounterValue's)
 * and the frequency its formula counts time in: PL_VALID, or the status of a
 * value the sample does not hold.  With pl_format_raw, what a log that keeps
 * raw values formats with. */
pl_status pl_sample_raw(const pl_sample *s, const pl_block *b, uint32_t i, uint32_t c, pl_raw *r,
                        int64_t *freq);
/* All values of block b1 at once; out and st hold ninst x ncounters, by
 * instance then counter.  Returns the number of valid values. */
size_t pl_sample_format_block(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                              const pl_fmt *fmt, double *out, uint8_t *st);

/* PdhComputeCounterStatistics: raws is a ring buffer of n raw values of one
 * counter, raws[first] the oldest.  Two-sample types are formatted from each
 * consecutive pair, others from each value; values whose status is not valid
 * are left out.  mean is the arithmetic mean of the values counted. */
typedef struct pl_stats {
    size_t count;
    double min, max, mean;
} pl_stats;
pl_status pl_statistics(uint32_t type, const pl_raw *raws, size_t n, size_t first,
                        int64_t freq, unsigned flags, int scale, pl_stats *out);

/* Several queries of one environment at one instant: between pl_env_begin
 * and pl_env_end every kernel file is read once for all the collects
 * (pl_query_collect makes such a generation of its own; pairs nest, the
 * outermost counts).  begin takes the environment's lock (recursive), so
 * other threads collecting on it wait until end: keep the pair short. */
void pl_env_begin(pl_env *env);
void pl_env_end(pl_env *env);

/* Clocks, as stored in samples. */
void pl_now(int64_t *perf_time, int64_t *perf_freq, int64_t *time100ns);

/* ===================================================================== */
/* Registry interface: title indexes and query strings (PerfLib V1)       */
/* ===================================================================== */
/* Each counterset owns PL_INDEX_SPAN title indexes from cs->index: its name
 * is cs->index, counter id n is cs->index + 2 + 2n, and every help text is
 * its name's index + 1 (as in Windows' "Counter 009" / "Help 009" tables). */
#define PL_INDEX_SPAN 1000u
#define PL_MAX_COUNTER_ID ((PL_INDEX_SPAN - 2) / 2 - 1)
uint32_t pl_counter_title_index(const pl_counterset_def *cs, const pl_counter_def *c);
/* What a title index names: *cs always, *c for counters; *help for odd indexes. */
int pl_env_lookup_index(const pl_env *env, uint32_t index, const pl_counterset_def **cs,
                        const pl_counter_def **c, int *help);

#define PL_REG_MAX 256
typedef enum pl_reg_kind {
    PL_REG_DATA,             /* "Global", "Costly", "2 4": collect these sets */
    PL_REG_METADATA,         /* "MetadataGlobal", "MetadataCostly": definitions only */
    PL_REG_NAMES,            /* "Counter 009" */
    PL_REG_HELP,             /* "Help 009" */
    PL_REG_UNITS             /* "Units 009": perflib's units table (perflib_v1.h) */
} pl_reg_kind;
typedef struct pl_registry_sel {
    pl_reg_kind kind;
    uint32_t nsets, nunknown;
    const pl_counterset_def *sets[PL_REG_MAX];
    uint32_t unknown[PL_REG_MAX];   /* indexes in a list that name no counterset */
} pl_registry_sel;
/* Parses a registry query string (case-insensitive keywords). 0, EINVAL
 * (not a query string).  "Counter <lang>" / "Help <lang>": any language id
 * (1-4 hex digits, or none) gives the English tables, the only ones. */
int pl_registry_parse(const pl_env *env, const char *query, pl_registry_sel *sel);
/* Adds \Set(*)\* (or \Set\*) for each selected set; the new results are
 * at indexes first .. first + count - 1. */
int pl_query_add_sets(pl_query *q, const pl_registry_sel *sel, uint32_t *first, uint32_t *count);

/* ===================================================================== */
/* The process-wide counterset registry: one door for every provider      */
/* ===================================================================== */
/* The core's registry starts empty.  Whoever bundles providers registers
 * them once per process: libperflib and the Lua module the built-in families
 * (pl_register_builtin), a plug-in loader its plug-ins' sets, an application
 * its own.  Each new environment starts with the sets registered before it
 * was created, and takes later ones with pl_env_sync.  Registered sets are
 * never removed: a definition must live as long as the process (static data,
 * or a library that is never unloaded).
 *
 * Title indexes.  cs->index is either fixed -- a multiple of PL_INDEX_SPAN
 * below PL_INDEX_ASSIGNED_BASE (the built-in sets hold 1000 .. 28000), refused
 * with EEXIST when another set holds that span -- or PL_INDEX_ASSIGN, and then
 * perflib assigns PL_INDEX_ASSIGNED_BASE + s x PL_INDEX_SPAN, s being the
 * first free slot from the GUID's home slot upwards (wrapping); the home slot
 * is the top 20 bits of FNV-1a-64 of the GUID's 16 bytes as written (d1 d2 d3
 * big-endian, d4) passed through MurmurHash3's fmix64.  The index thus depends on the GUID alone: the
 * same in every process and registration order, unless two assigned sets of
 * one process share a home slot (about k*k / 2^21 for k assigned sets); then
 * the one registered first keeps it and the other takes the next free slot,
 * so their order decides.  A set that needs a guaranteed index asks for a
 * fixed one.
 *
 * Thread-safe.  The same definition (pointer) again is a no-op.  0, EINVAL
 * (malformed, counter id above PL_MAX_COUNTER_ID, fixed index not allowed),
 * EEXIST (name -- case-insensitive --, GUID or index span taken), ENOSPC,
 * ENOMEM; msg (may be NULL) receives a sentence.  *out (may be NULL): the
 * definition environments will see, with its index. */
#define PL_INDEX_ASSIGN 0u
#define PL_INDEX_ASSIGNED_BASE 1000000000u
#define PL_INDEX_ASSIGNED_BITS 20
#define PL_INDEX_ASSIGNED_SLOTS (1u << PL_INDEX_ASSIGNED_BITS)   /* the last index < 2^31 */
int pl_register_counterset(const pl_counterset_def *cs, const pl_counterset_def **out,
                           char *msg, size_t msgsize);
/* Adds to env the sets registered since it was made or last synced, in
 * registration order (pl_env_new does this first).  0, ENOMEM, or EEXIST
 * when one clashed with a set of env's own (pl_env_register), which stays:
 * the others are added.  Not thread-safe against other users of env. */
int pl_env_sync(pl_env *env);
uint32_t pl_registered_count(void);
const pl_counterset_def *pl_registered(uint32_t i);       /* NULL past the end */

/* Discoverers: functions that look for countersets that appear while the
 * process runs (application providers) and register them through the door
 * above.  pl_env_sync -- so every environment made, every machine a binding
 * hands out and every query add of an unknown set -- runs them first, so a
 * set published before a collect is seen by it.  A discoverer must be cheap
 * when nothing changed (a stat of its directory) and must not call
 * pl_env_sync.  Idempotent per function; 0 or ENOSPC (at most 8). */
typedef void (*pl_discover_fn)(void);
int pl_register_discoverer(pl_discover_fn fn);
void pl_discover(void);

#endif
