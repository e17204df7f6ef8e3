/* Query handles: specifications with their own statuses, and collection of
 * samples.  Provider states (open files) live here, one per counterset used,
 * so repeated collection re-reads kept fds instead of reopening. */
#include "perflib.h"
#include "pl_ksrc.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct qset {
    const pl_counterset_def *cs;
    void *state;             /* provider state; NULL until first collect */
    pl_snapshot snap;
    uint8_t *wanted;         /* counters needed by the specs (with their bases) */
    uint32_t refs;
    int err;                 /* last collect error */
    size_t mlen;             /* this collection: bytes of the names its specs matched */
    size_t noff;             /* where the set's names start in the sample, when shared */
    int share;               /* copy the set's names once for all its specs */
    int64_t time;            /* this collection: the middle of the set's own read */
} qset;

typedef struct qspec {
    pl_spec pub;             /* first: pl_query_spec returns &pub */
    uint32_t *bases;         /* per resolved counter: base index or PL_NO_ID */
    int plain;               /* no counter has a base or the object timer: values alone */
    int wild, all;           /* the instance is a pattern; it selects every instance */
    size_t ilen;             /* strlen(pub.instance) + 1, copied into every sample */
    qset *set;
    size_t moff;             /* this collection's matches: q->match[moff..] */
    uint32_t nmatch;
} qspec;

struct pl_query {
    pl_env *env;
    uint64_t id, seq;
    uint32_t next_uid;
    uint32_t nspecs, speccap;
    qspec **specs;
    uint32_t nsets, setcap;
    qset **sets;
    uint32_t *match;         /* scratch: matched instance indexes */
    size_t matchcap;
    void *cursor;            /* its place in the environment's source (a log), once it reads one */
};

static uint64_t next_query_id = 1;

void pl_now(int64_t *perf_time, int64_t *perf_freq, int64_t *time100ns)
{
    struct timespec ts;
    if (perf_time) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        /* 100 ns ticks at 10 MHz, the usual QueryPerformanceFrequency */
        *perf_time = (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
    }
    if (perf_freq)
        *perf_freq = 10000000;
    if (time100ns) {
        clock_gettime(CLOCK_REALTIME, &ts);
        /* 11644473600 s from 1601-01-01 to 1970-01-01 */
        *time100ns = ((int64_t)ts.tv_sec + 11644473600LL) * 10000000 + ts.tv_nsec / 100;
    }
}

pl_query *pl_query_new(pl_env *env)
{
    pl_query *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->env = pl_env_ref(env);
    q->id = __atomic_fetch_add(&next_query_id, 1, __ATOMIC_RELAXED);
    return q;
}

static void spec_free(qspec *s)
{
    if (!s)
        return;
    free(s->pub.instance);
    free(s->pub.counter);
    free(s->pub.counters);
    free(s->pub.path);
    free(s->bases);
    free(s);
}

static void set_free(qset *t)
{
    if (t->state)
        t->cs->ops->close(t->state);
    pl_snap_free(&t->snap);
    free(t->wanted);
    free(t);
}

void pl_query_free(pl_query *q)
{
    if (!q)
        return;
    for (uint32_t i = 0; i < q->nspecs; i++)
        spec_free(q->specs[i]);
    for (uint32_t i = 0; i < q->nsets; i++)
        set_free(q->sets[i]);
    free(q->specs);
    free(q->sets);
    free(q->match);
    void *src;
    const pl_source_ops *so = pl_env_source(q->env, &src);
    if (so && q->cursor)
        so->close(q->cursor);
    pl_env_unref(q->env);
    free(q);
}

const char *pl_query_source_error(const pl_query *q)
{
    void *src;
    const pl_source_ops *so = pl_env_source(q->env, &src);
    return so && q->cursor ? so->error(q->cursor) : NULL;
}

/* Reads the source's next record into every set's snapshot (the query of
 * an environment with a source): 0, or the errno that ends the collect. */
static int collect_source(pl_query *q, const pl_source_ops *so, void *src, int64_t *t0, int64_t *freq,
                          int64_t *t100)
{
    int e = q->cursor ? 0 : so->open(src, &q->cursor);
    if (e || (e = so->next(q->cursor, t0, freq, t100)) != 0)
        return e;
    for (uint32_t k = 0; k < q->nsets; k++) {
        qset *t = q->sets[k];
        pl_snap_clear(&t->snap);
        t->err = so->fill(q->cursor, t->cs, t->wanted, &t->snap);
        if (t->err == ENOMEM)
            return ENOMEM;
        t->time = !t->err && t->snap.time ? t->snap.time : *t0;
    }
    return 0;
}

pl_env *pl_query_env(const pl_query *q) { return q->env; }
uint64_t pl_query_id(const pl_query *q) { return q->id; }
uint32_t pl_query_count(const pl_query *q) { return q->nspecs; }

const pl_spec *pl_query_spec(const pl_query *q, uint32_t index)
{
    return index < q->nspecs ? &q->specs[index]->pub : NULL;
}

/* The union of what the specs of a set need, bases included. */
static void set_update_wanted(pl_query *q, qset *t)
{
    memset(t->wanted, 0, t->cs->ncounters ? t->cs->ncounters : 1);
    for (uint32_t i = 0; i < q->nspecs; i++) {
        qspec *s = q->specs[i];
        if (s->set != t)
            continue;
        for (uint32_t c = 0; c < s->pub.ncounters; c++) {
            t->wanted[s->pub.counters[c]] = 1;
            if (s->bases[c] != PL_NO_ID)
                t->wanted[s->bases[c]] = 1;
        }
    }
}

static qset *set_get(pl_query *q, const pl_counterset_def *cs)
{
    qset *t;
    for (uint32_t i = 0; i < q->nsets; i++)
        if (q->sets[i]->cs == cs)
            return q->sets[i];
    if (q->nsets == q->setcap) {
        uint32_t cap = q->setcap ? q->setcap * 2 : 4;
        qset **n = realloc(q->sets, cap * sizeof *n);
        if (!n)
            return NULL;
        q->sets = n;
        q->setcap = cap;
    }
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cs = cs;
    t->wanted = calloc(cs->ncounters ? cs->ncounters : 1, 1);
    if (!t->wanted) {
        free(t);
        return NULL;
    }
    pl_snap_init(&t->snap, cs);
    q->sets[q->nsets++] = t;
    return t;
}

/* Counters a wildcard selects: not the hidden bases, and not the ones of
 * PERF_DETAIL_WIZARD level, whose reading is dear (a readdir of every
 * process's fd/, smaps_rollup): those are read only when named. */
static int in_wildcard(const pl_counter_def *c, uint32_t detail)
{
    return !pl_counter_hidden(c) && c->detail <= (detail ? detail : PERF_DETAIL_EXPERT);
}

/* Resolves the counter part of a spec into counter indexes. */
static pl_add_status resolve_counters(const pl_counterset_def *cs, const pl_spec_in *in,
                                      uint32_t *out, uint32_t *n, int *wild)
{
    *n = 0;
    *wild = 0;
    if (in->counter && *in->counter && !(in->counter[0] == '*' && in->counter[1] == '\0')) {
        if (pl_has_wildcard(in->counter)) {
            *wild = 1;
            for (uint32_t i = 0; i < cs->ncounters; i++)
                if (in_wildcard(&cs->counters[i], in->detail) &&
                    pl_wildcard_match(in->counter, cs->counters[i].name))
                    out[(*n)++] = i;
        } else {
            int i = pl_counter_index_by_name(cs, in->counter);
            if (i >= 0)
                out[(*n)++] = (uint32_t)i;
        }
    } else if (in->counter || in->counter_id == PERF_WILDCARD_COUNTER) {
        *wild = 1;
        for (uint32_t i = 0; i < cs->ncounters; i++)
            if (in_wildcard(&cs->counters[i], in->detail))
                out[(*n)++] = i;
    } else {
        int i = pl_counter_index(cs, in->counter_id);
        if (i >= 0)
            out[(*n)++] = (uint32_t)i;
    }
    return *n ? PL_ADD_OK : PL_ADD_NO_COUNTER;
}

static int same_spec(const qspec *a, const pl_counterset_def *cs, const char *inst,
                     uint32_t inst_id, const uint32_t *ctr, uint32_t n)
{
    return a->pub.cs == cs && strcasecmp(a->pub.instance, inst) == 0 &&
           a->pub.instance_id == inst_id && a->pub.ncounters == n &&
           memcmp(a->pub.counters, ctr, n * sizeof *ctr) == 0;
}

static char *make_path(const pl_counterset_def *cs, const char *inst, const char *ctr)
{
    size_t n = strlen(cs->name) + strlen(inst) + strlen(ctr) + 6;
    char *p = malloc(n);
    if (!p)
        return NULL;
    if (*inst)
        snprintf(p, n, "\\%s(%s)\\%s", cs->name, inst, ctr);
    else
        snprintf(p, n, "\\%s\\%s", cs->name, ctr);
    return p;
}

static const char *const add_status_names[PL_ADD_STATUS_COUNT] = {
    [PL_ADD_OK] = "ok",
    [PL_ADD_NO_SET] = "no_counterset",
    [PL_ADD_NO_COUNTER] = "no_counter",
    [PL_ADD_BAD_INSTANCE] = "bad_instance",
    [PL_ADD_DUPLICATE] = "duplicate",
    [PL_ADD_BAD_PATH] = "bad_path",
    [PL_ADD_NOT_IN_QUERY] = "not_in_query",
};

const char *pl_add_status_name(pl_add_status st)
{
    return (unsigned)st < PL_ADD_STATUS_COUNT ? add_status_names[st] : "invalid";
}

/* The set a spec names and whether its instance part fits it. */
static pl_add_status spec_set(const pl_query *q, const pl_spec_in *in, const pl_counterset_def **cs, const char **inst)
{
    *cs = pl_env_find(q->env, in->counterset);
    if (!*cs && pl_env_sync(q->env) != ENOMEM)   /* one published since the environment synced */
        *cs = pl_env_find(q->env, in->counterset);
    *inst = in->instance ? in->instance : "";
    if (!*cs)
        return PL_ADD_NO_SET;
    /* single-instance sets take no instance name; multi-instance sets need one */
    if (((*cs)->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE) != (**inst == '\0') ||
        strlen(*inst) >= PERF_MAX_INSTANCE_NAME)
        return PL_ADD_BAD_INSTANCE;
    return PL_ADD_OK;
}

int pl_query_find(pl_query *q, const pl_spec_in *in, pl_add_status *status, uint32_t *index)
{
    const pl_counterset_def *cs;
    const char *inst;
    uint32_t n;
    int wild;
    if ((*status = spec_set(q, in, &cs, &inst)) != PL_ADD_OK)
        return 0;
    uint32_t *ctr = malloc((cs->ncounters ? cs->ncounters : 1) * sizeof *ctr);
    if (!ctr)
        return ENOMEM;
    *status = resolve_counters(cs, in, ctr, &n, &wild);
    if (*status == PL_ADD_OK) {
        *status = PL_ADD_NOT_IN_QUERY;
        for (uint32_t i = 0; i < q->nspecs; i++)
            if (same_spec(q->specs[i], cs, inst, in->instance_id, ctr, n)) {
                *status = PL_ADD_OK;
                *index = i;
                break;
            }
    }
    free(ctr);
    return 0;
}

int pl_query_add(pl_query *q, const pl_spec_in *in, pl_add_status *status, uint32_t *index)
{
    const pl_counterset_def *cs;
    const char *inst;
    uint32_t n = 0;
    pl_add_status st;
    int wild_ctr, wild_inst;
    qspec *s;
    if ((*status = spec_set(q, in, &cs, &inst)) != PL_ADD_OK)
        return 0;
    s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->pub.counters = malloc((cs->ncounters ? cs->ncounters : 1) * sizeof *s->pub.counters);
    s->bases = malloc((cs->ncounters ? cs->ncounters : 1) * sizeof *s->bases);
    if (!s->pub.counters || !s->bases) {
        spec_free(s);
        return ENOMEM;
    }
    st = resolve_counters(cs, in, s->pub.counters, &n, &wild_ctr);
    if (st != PL_ADD_OK) {
        *status = st;
        spec_free(s);
        return 0;
    }
    for (uint32_t i = 0; i < q->nspecs; i++)
        if (same_spec(q->specs[i], cs, inst, in->instance_id, s->pub.counters, n)) {
            *status = PL_ADD_DUPLICATE;
            spec_free(s);
            return 0;
        }
    for (uint32_t c = 0; c < n; c++) {
        const pl_counter_def *d = &cs->counters[s->pub.counters[c]];
        int b = d->base_id != PL_NO_ID ? pl_counter_index(cs, d->base_id) : -1;
        s->bases[c] = b >= 0 ? (uint32_t)b : PL_NO_ID;
    }
    s->plain = 1;
    for (uint32_t c = 0; c < n; c++) {
        const pl_counter_def *d = &cs->counters[s->pub.counters[c]];
        s->plain &= d->base_id == PL_NO_ID && (d->type & 0x300000u) != PERF_OBJECT_TIMER;
    }
    wild_inst = pl_has_wildcard(inst);
    s->wild = wild_inst;
    s->all = cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE || (inst[0] == '*' && inst[1] == '\0');
    s->pub.cs = cs;
    s->pub.ncounters = n;
    s->pub.instance_id = in->instance_id;
    s->pub.counter_id = in->counter ? (wild_ctr ? PERF_WILDCARD_COUNTER : cs->counters[s->pub.counters[0]].id)
                                    : in->counter_id;
    s->pub.shape = wild_inst ? (wild_ctr ? PERF_COUNTERSET : PERF_MULTIPLE_INSTANCES)
                             : (wild_ctr ? PERF_MULTIPLE_COUNTERS : PERF_SINGLE_COUNTER);
    s->pub.instance = strdup(inst);
    s->ilen = strlen(inst) + 1;
    s->pub.counter = in->counter ? strdup(in->counter) : NULL;
    s->pub.path = make_path(cs, inst, in->counter ? in->counter
                                     : wild_ctr ? "*" : cs->counters[s->pub.counters[0]].name);
    if (!s->pub.instance || (in->counter && !s->pub.counter) || !s->pub.path) {
        spec_free(s);
        return ENOMEM;
    }
    if (q->nspecs == q->speccap) {
        uint32_t cap = q->speccap ? q->speccap * 2 : 8;
        qspec **ns = realloc(q->specs, cap * sizeof *ns);
        if (!ns) {
            spec_free(s);
            return ENOMEM;
        }
        q->specs = ns;
        q->speccap = cap;
    }
    s->set = set_get(q, cs);
    if (!s->set) {
        spec_free(s);
        return ENOMEM;
    }
    s->set->refs++;
    s->pub.uid = ++q->next_uid;
    q->specs[q->nspecs] = s;
    if (index)
        *index = q->nspecs;
    q->nspecs++;
    set_update_wanted(q, s->set);
    return 0;
}

int pl_query_add_path(pl_query *q, const char *path, pl_add_status *status, uint32_t *index)
{
    char buf[2048];
    pl_spec_in in;
    int e = pl_path_parse(path, buf, sizeof buf, &in);
    if (e) {
        *status = PL_ADD_BAD_PATH;
        return 0;
    }
    return pl_query_add(q, &in, status, index);
}

int pl_query_delete(pl_query *q, uint32_t index)
{
    qspec *s;
    qset *t;
    if (index >= q->nspecs)
        return ENOENT;
    s = q->specs[index];
    t = s->set;
    memmove(q->specs + index, q->specs + index + 1, (q->nspecs - index - 1) * sizeof *q->specs);
    q->nspecs--;
    spec_free(s);
    if (--t->refs == 0) {
        /* nothing uses the set any more: close its files */
        for (uint32_t i = 0; i < q->nsets; i++)
            if (q->sets[i] == t) {
                q->sets[i] = q->sets[--q->nsets];
                break;
            }
        set_free(t);
    } else {
        set_update_wanted(q, t);
    }
    return 0;
}

/* ---- collection ------------------------------------------------------------ */

/* Instances of the set's snapshot that the spec selects, into q->match. */
static void match_instances(pl_query *q, qspec *s)
{
    const pl_snapshot *snap = &s->set->snap;
    const char *pat = s->pub.instance;
    int single = s->pub.cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE;
    int wild = s->wild, all = s->all;   /* known since the spec was added */
    /* no instances anywhere: match is still NULL, and NULL + 0 is undefined */
    uint32_t *m = q->match ? q->match + s->moff : NULL, n = 0;
    for (uint32_t i = 0; i < snap->ninst; i++) {
        if (s->pub.instance_id != PL_NO_ID && snap->inst[i].id != s->pub.instance_id)
            continue;
        if (!all && !pl_wildcard_match(pat, pl_snap_name(snap, i)))
            continue;
        m[n++] = i;
        if (!wild || single)
            break;           /* a named instance: the first match */
    }
    s->nmatch = n;
}

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

static void *std_alloc(void *ud, size_t size)
{
    (void)ud;
    return malloc(size);
}

void *pl_membuf_alloc(void *ud, size_t size)
{
    pl_membuf *b = ud;
    if (size > b->cap) {
        void *m = realloc(b->mem, size);
        if (!m)
            return NULL;
        b->mem = m;
        b->cap = size;
    }
    return b->mem;
}

/* The clocks of a sample: CLOCK_MONOTONIC read now, and the wall clock as
 * CLOCK_MONOTONIC plus their difference, read again once 100 ms of the
 * monotonic clock have passed since it was last read (a step of the wall
 * clock shows within 100 ms, and a slew of at most 500 ppm moves it by 50 us
 * meanwhile).  One clock read per sample instead of two: the wall time labels
 * a sample; its rates count the monotonic clock. */
static void sample_clocks(int64_t *mono, int64_t *freq, int64_t *t100)
{
    /* shared by threads: each value alone is always a valid pair's, relaxed is enough */
    static _Atomic int64_t last_mono, offset;
    int64_t last, off;
    pl_now(mono, freq, NULL);
    last = atomic_load_explicit(&last_mono, memory_order_relaxed);
    off = atomic_load_explicit(&offset, memory_order_relaxed);
    if (last == 0 || *mono - last >= 1000000 || *mono < last) {
        int64_t real;
        pl_now(NULL, NULL, &real);
        off = real - *mono;
        atomic_store_explicit(&offset, off, memory_order_relaxed);
        atomic_store_explicit(&last_mono, *mono, memory_order_relaxed);
    }
    *t100 = *mono + off;
}

/* Every set's provider, each between two readings of the clock (*t1 is the
 * last): 0 or ENOMEM.  A one-set query reads the clock once, before its set:
 * the set's instant is its read's start, as a kernel source's is, unless the
 * set says when it read (a shared kernel source). */
static int collect_sets(pl_query *q, int64_t *t1)
{
    for (uint32_t k = 0; k < q->nsets; k++) {
        qset *t = q->sets[k];
        int64_t before = *t1;
        t->err = 0;
        if (!t->state) {
            t->err = pl_provider_open(t->cs, q->env, &t->state);
            if (t->err)
                t->state = NULL;
        }
        if (!t->err) {
            pl_snap_clear(&t->snap);
            t->err = t->cs->ops->collect(t->state, t->wanted, &t->snap);
            if (t->err == ENOMEM)
                return ENOMEM;
        }
        /* the instant this set was read: its rates use it, not the middle
         * of every set's reads, which moves with the other sets' cost; a set
         * fed by a shared kernel source says when that was read */
        if (q->nsets > 1)
            pl_now(t1, NULL, NULL);
        t->time = !t->err && t->snap.time ? t->snap.time : before + (*t1 - before) / 2;
    }
    return 0;
}

int pl_query_collect(pl_query *q, pl_sample **out)
{
    return pl_query_collect_with(q, std_alloc, NULL, out);
}

int pl_query_collect_with(pl_query *q, pl_alloc_fn alloc, void *ud, pl_sample **out)
{
    int64_t t0, t1, freq, t100;
    size_t ncidx = 0, ninst = 0, nvals = 0, nnames = 0, size;
    pl_sample *smp;
    char *mem;
    size_t o_blocks, o_cidx, o_inst, o_vals, o_have, o_names;
    uint32_t ci = 0, ii = 0;
    size_t vi = 0, ni = 0;

    *out = NULL;
    void *src;
    const pl_source_ops *so = pl_env_source(q->env, &src);
    if (so) {
        int e = collect_source(q, so, src, &t0, &freq, &t100);
        if (e)
            return e;
        t1 = t0;
    } else {
        sample_clocks(&t0, &freq, &t100);
        t1 = t0;
    }
    if (!so) {
        int e;
        pl_env_begin(q->env);            /* one read of each kernel source for all sets */
        e = collect_sets(q, &t1);
        pl_env_end(q->env);
        if (e)
            return e;
    }

    /* size everything first: one allocation per sample */
    size_t mtotal = 0;
    for (uint32_t k = 0; k < q->nspecs; k++) {
        qspec *s = q->specs[k];
        s->moff = mtotal;
        mtotal += s->set->err ? 0 : s->set->snap.ninst;
    }
    if (mtotal > q->matchcap) {
        uint32_t *m = realloc(q->match, mtotal * sizeof *m);
        if (!m)
            return ENOMEM;
        q->match = m;
        q->matchcap = mtotal;
    }
    for (uint32_t k = 0; k < q->nsets; k++)
        q->sets[k]->mlen = 0;
    for (uint32_t k = 0; k < q->nspecs; k++) {
        qspec *s = q->specs[k];
        ncidx += s->pub.ncounters;
        nnames += s->ilen;
        s->nmatch = 0;
        if (s->set->err) {
            if (s->set->snap.err_msg)
                nnames += strlen(s->set->snap.err_msg) + 1;
            continue;
        }
        match_instances(q, s);
        ninst += s->nmatch;
        nvals += (size_t)s->nmatch * s->pub.ncounters;
        if (s->nmatch == s->set->snap.ninst)
            s->set->mlen += s->set->snap.names_len;     /* every name: the whole pool */
        else
            for (uint32_t i = 0; i < s->nmatch; i++)
                s->set->mlen += strlen(pl_snap_name(&s->set->snap, q->match[s->moff + i])) + 1;
    }
    /* Names matched by several specs of one set (or by one wildcard) are
     * copied once, the set's whole name pool; a few named instances out of
     * many are copied one by one. */
    for (uint32_t k = 0; k < q->nsets; k++) {
        qset *t = q->sets[k];
        t->share = !t->err && t->snap.names_len && t->mlen >= t->snap.names_len;
        nnames += t->share ? t->snap.names_len : t->mlen;
    }
    o_blocks = ALIGN8(sizeof *smp);
    o_cidx = o_blocks + ALIGN8(q->nspecs * sizeof(pl_block));
    o_inst = o_cidx + ALIGN8(ncidx * sizeof(uint32_t));
    o_vals = o_inst + ALIGN8(ninst * sizeof(pl_inst));
    o_have = o_vals + ALIGN8(nvals * sizeof(pl_pair));
    o_names = o_have + ALIGN8(nvals);
    size = o_names + nnames + 1;
    mem = alloc(ud, size);
    if (!mem)
        return ENOMEM;
    smp = (pl_sample *)(void *)mem;
    /* every field is set below: no memset (its rep stos, with the
     * block's, was about a quarter of an empty set's collect) */
    smp->foreign = 0;
    smp->query_id = q->id;
    smp->seq = ++q->seq;
    smp->perf_time = t0 + (t1 - t0) / 2;      /* the middle of the reads */
    /* One set: its own instant (a shared kernel source's read) is the
     * middle of the reads, so that a V1 block's one clock (PerfTime) is the
     * time its values were read, as Windows programs assume; not a remote
     * machine's instant, which counts another clock. */
    if (q->nsets == 1 && !q->sets[0]->err && !so && !q->sets[0]->snap.time_foreign) {
        t100 += q->sets[0]->time - smp->perf_time;
        smp->perf_time = q->sets[0]->time;
    }
    smp->perf_freq = freq;
    smp->time100ns = t100;
    smp->nblocks = q->nspecs;
    smp->blocks = (pl_block *)(void *)(mem + o_blocks);
    smp->cidx = (uint32_t *)(void *)(mem + o_cidx);
    smp->inst = (pl_inst *)(void *)(mem + o_inst);
    smp->vals = (pl_pair *)(void *)(mem + o_vals);
    smp->have = (uint8_t *)(mem + o_have);
    smp->names = mem + o_names;
    smp->names[0] = '\0';

    for (uint32_t k = 0; k < q->nsets; k++) {
        qset *t = q->sets[k];
        if (!t->share)
            continue;
        t->noff = ni;
        memcpy(smp->names + ni, t->snap.names, t->snap.names_len);
        ni += t->snap.names_len;
    }
    for (uint32_t k = 0; k < q->nspecs; k++) {
        qspec *s = q->specs[k];
        pl_block *b = &smp->blocks[k];
        const pl_snapshot *snap = &s->set->snap;
        uint32_t nc = s->pub.ncounters, nm = s->nmatch, snc = s->pub.cs->ncounters;
        /* every field, no memset (see smp above) */
        b->uid = s->pub.uid;
        b->index = k;
        b->shape = s->pub.shape;
        b->status = PL_VALID;
        b->err = 0;
        b->cs = s->pub.cs;
        b->time = s->set->time;
        b->ninst = 0;
        b->obj_time = b->obj_freq = 0;
        b->err_path = b->err_msg = NULL;
        b->ncounters = nc;
        b->counters_off = ci;
        b->inst_off = ii;
        b->vals_off = vi;
        memcpy(smp->cidx + ci, s->pub.counters, nc * sizeof *s->pub.counters);
        b->filter_off = (uint32_t)ni;
        memcpy(smp->names + ni, s->pub.instance, s->ilen);
        ni += s->ilen;
        ci += nc;
        if (s->set->err) {
            b->shape = PERF_ERROR_RETURN;
            /* a source this user may not read says so: no_access, not no_data */
            b->status = s->set->err == EACCES || s->set->err == EPERM ? PL_NO_ACCESS : PL_NO_DATA;
            b->err = s->set->err;
            b->err_path = snap->err_path;
            if (snap->err_msg) {
                size_t l = strlen(snap->err_msg) + 1;
                memcpy(smp->names + ni, snap->err_msg, l);
                b->err_msg = smp->names + ni;
                ni += l;
            }
            continue;
        }
        if (nm == 0 && (b->shape == PERF_SINGLE_COUNTER || b->shape == PERF_MULTIPLE_COUNTERS)) {
            b->shape = PERF_ERROR_RETURN;
            b->status = PL_NO_INSTANCE;
            continue;
        }
        b->ninst = nm;
        b->obj_time = snap->obj_time;
        b->obj_freq = snap->obj_freq;
        for (uint32_t i = 0; i < nm; i++) {
            uint32_t si = q->match[s->moff + i];
            const uint64_t *row = snap->values + (size_t)si * snc;
            const uint8_t *hrow = snap->have + (size_t)si * snc;
            smp->inst[ii].id = snap->inst[si].id;
            smp->inst[ii].key = snap->inst[si].key;
            if (s->set->share) {
                smp->inst[ii].name_off = (uint32_t)(s->set->noff + snap->inst[si].name_off);
            } else {
                const char *name = pl_snap_name(snap, si);
                size_t len = strlen(name) + 1;
                smp->inst[ii].name_off = (uint32_t)ni;
                memcpy(smp->names + ni, name, len);
                ni += len;
            }
            ii++;
            if (s->plain) {              /* the common case: no branch, no reload per value */
                pl_pair *pv = smp->vals + vi;
                uint8_t *ph = smp->have + vi;
                const uint32_t *cx = s->pub.counters;
                for (uint32_t c = 0; c < nc; c++) {
                    pv[c].v = row[cx[c]];
                    pv[c].b = 0;
                    ph[c] = hrow[cx[c]];
                }
                vi += nc;
                continue;
            }
            for (uint32_t c = 0; c < nc; c++) {
                uint32_t x = s->pub.counters[c], bx = s->bases[c];
                pl_pair *p = &smp->vals[vi];
                p->v = row[x];
                smp->have[vi] = hrow[x];
                if (bx != PL_NO_ID) {
                    p->b = row[bx];
                    /* present when both are; else the reason of the one that is not */
                    smp->have[vi] = hrow[x] == 1 && hrow[bx] == 1 ? 1
                                    : hrow[x] == PL_HAVE_NO_ACCESS || hrow[bx] == PL_HAVE_NO_ACCESS ? PL_HAVE_NO_ACCESS
                                                                                                    : 0;
                } else if (s->pub.cs->counters[x].base_id != PL_NO_ID) {
                    p->b = 0;            /* the definition names a base it lacks */
                    smp->have[vi] = hrow[x] == 1 ? PL_HAVE_NO_BASE : hrow[x];
                } else if ((s->pub.cs->counters[x].type & 0x300000u) == PERF_OBJECT_TIMER) {
                    p->b = (uint64_t)snap->obj_time;
                } else {
                    p->b = 0;
                }
                vi++;
            }
        }
    }
    *out = smp;
    return 0;
}
