/* Derived countersets (derived.h): definitions built from formulas, and
 * their provider, which keeps an inner query over the paths the formulas
 * name and evaluates each formula per instance at every collect.  The
 * buffers of a state grow to the largest collect seen and are reused. */
#include "pl_provider.h"
#include "derived.h"
#include "expr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PERF_DOUBLE_RAW 0x00012000u
#define DV_MAX_PATHS 256                 /* distinct paths of one set */
#define DV_INDEX_BASE 900000000u         /* title indexes of sets made at run time */

struct pl_derived {
    pl_counterset_def def;
    pl_counter_def *counters;
    pl_expr **exprs;
    uint8_t **refpath;                   /* per counter, per formula ref: index into paths */
    char *paths[DV_MAX_PATHS];           /* distinct, as written */
    uint8_t joined[DV_MAX_PATHS];        /* the path's instance has a wildcard */
    uint32_t npaths;
    int join;                            /* the path that gives the instances, -1: single */
    char *strings[2];                    /* the set's name and help */
    uint32_t nopen;                      /* provider states open on it */
    int released;                        /* by pl_derived_free: freed when nopen is 0 */
};

/* ---- names, GUIDs and indexes ------------------------------------------------------- */

uint32_t pl_env_free_index(const pl_env *env)
{
    for (uint32_t idx = DV_INDEX_BASE; idx < PL_INDEX_ASSIGNED_BASE; idx += PL_INDEX_SPAN) {
        uint32_t i, n = pl_env_counterset_count(env);
        for (i = 0; i < n && pl_env_counterset(env, i)->index != idx; i++)
            ;
        if (i == n)
            return idx;
    }
    return 0;
}

/* ---- definitions ----------------------------------------------------------------------- */

static void destroy(pl_derived *d)
{
    if (!d)
        return;
    for (uint32_t c = 0; c < d->def.ncounters; c++) {
        pl_expr_free(d->exprs[c]);
        free(d->refpath[c]);
        free((char *)(uintptr_t)d->counters[c].name);
        free((char *)(uintptr_t)d->counters[c].help);
    }
    for (uint32_t i = 0; i < d->npaths; i++)
        free(d->paths[i]);
    free(d->exprs);
    free(d->refpath);
    free(d->counters);
    free(d->strings[0]);
    free(d->strings[1]);
    free(d);
}

/* The owner's release: a query still open on the set (one its finalizer
 * has not freed yet, a nested set's inner query) keeps it until it closes. */
void pl_derived_free(pl_derived *d)
{
    if (!d)
        return;
    d->released = 1;
    if (!d->nopen)
        destroy(d);
}

const pl_counterset_def *pl_derived_def(const pl_derived *d)
{
    return &d->def;
}

/* Checks one path against env: one counter, named; 0, ENOENT or EINVAL. */
static int check_path(pl_env *env, pl_query *q, const char *path, int *joined, char *msg, size_t size)
{
    size_t n = strlen(path) + 1;
    char *buf = malloc(n);
    pl_spec_in in;
    pl_add_status st = PL_ADD_OK;
    uint32_t idx;
    int e;
    if (!buf)
        return ENOMEM;
    e = pl_path_parse(path, buf, n, &in);
    if (!e && (!in.counter || pl_has_wildcard(in.counter)))
        e = pl_say(EINVAL, msg, size, "path '%s' must name one counter (no wildcard)", path);
    else if (e)
        e = pl_say(EINVAL, msg, size, "'%s' is not a counter path", path);
    *joined = !e && in.instance && pl_has_wildcard(in.instance);
    free(buf);
    (void)env;
    if (!e && (e = pl_query_add_path(q, path, &st, &idx)) == 0 && st != PL_ADD_OK &&
        st != PL_ADD_DUPLICATE)
        e = pl_say(ENOENT, msg, size, "path '%s' names no counter of this machine (%s)", path,
                st == PL_ADD_NO_SET ? "no such counterset"
                : st == PL_ADD_NO_COUNTER ? "no such counter" : "instance rules broken");
    return e;
}

/* Counter c: its formula compiled, its paths checked and numbered. */
static int add_counter(pl_derived *d, pl_env *env, pl_query *q, const pl_derived_counter *in, uint32_t c,
                       char *msg, size_t size)
{
    char why[192];
    size_t pos;
    int e = pl_expr_compile(in->formula, &d->exprs[c], why, sizeof why, &pos);
    if (e)
        return e == ENOMEM ? e : pl_say(EINVAL, msg, size, "counter '%s': formula %s", in->name, why);
    uint32_t nr = pl_expr_nrefs(d->exprs[c]);
    if (!(d->refpath[c] = calloc(nr ? nr : 1, 1)))
        return ENOMEM;
    for (uint32_t r = 0; r < nr; r++) {
        const char *p = pl_expr_ref(d->exprs[c], r);
        uint32_t k;
        for (k = 0; k < d->npaths && strcmp(d->paths[k], p) != 0; k++)
            ;
        if (k == d->npaths) {
            int joined;
            if (k == DV_MAX_PATHS)
                return pl_say(EINVAL, msg, size, "more than %d distinct paths", DV_MAX_PATHS);
            if ((e = check_path(env, q, p, &joined, msg, size)))
                return e;
            if (!(d->paths[k] = strdup(p)))
                return ENOMEM;
            d->joined[k] = (uint8_t)joined;
            if (joined && d->join < 0)
                d->join = (int)k;
            d->npaths++;
        }
        d->refpath[c][r] = (uint8_t)k;
    }
    return 0;
}

static char *help_text(const pl_derived_counter *in)
{
    const char *h = in->help ? in->help : in->formula, *u = in->unit && *in->unit ? in->unit : NULL;
    size_t n = strlen(h) + (u ? strlen(u) : 0) + 16;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, u ? "%s (unit: %s)" : "%s", h, u);
    return s;
}

static const pl_provider_ops dv_ops;

/* A derived counter's declared unit (its unit text, when it names one) and
 * semantics; a unit text perflib does not know stays in the help alone. */
static int counter_units(pl_counter_def *k, const pl_derived_counter *c, char *msg, size_t size)
{
    pl_unit_kind u;
    pl_semantics sem;
    double scale;
    if (c->unit && pl_unit_parse_scaled(c->unit, &u, &scale) == 0) {
        k->unit = (uint8_t)u;
        k->unit_scale = scale;
    }
    if (!c->semantics)
        return 0;
    if (pl_semantics_parse(c->semantics, &sem))
        return pl_say(EINVAL, msg, size, "counter '%s' has semantics '%s', not counter, gauge or discrete",
                      c->name, c->semantics);
    k->semantics = (uint8_t)sem;
    return 0;
}

static int build(pl_derived *d, pl_env *env, const pl_derived_counter *cs, uint32_t n, char *msg, size_t size)
{
    pl_query *q = pl_query_new(env);
    int e = 0;
    if (!q)
        return ENOMEM;
    for (uint32_t c = 0; !e && c < n; c++) {
        pl_counter_def *k = &d->counters[c];
        for (uint32_t j = 0; j < c; j++)
            if (strcasecmp(d->counters[j].name, cs[c].name) == 0)
                e = pl_say(EINVAL, msg, size, "counter '%s' is defined twice", cs[c].name);
        *k = (pl_counter_def){ c, strdup(cs[c].name), help_text(&cs[c]), PERF_DOUBLE_RAW, PL_NO_ID,
                               PERF_DETAIL_NOVICE, 0, 8, PL_U(NONE, 1, GAUGE) };
        d->def.ncounters = c + 1;
        if (!e)
            e = counter_units(k, &cs[c], msg, size);
        if (!e && (!k->name || !k->help))
            e = ENOMEM;
        if (!e)
            e = add_counter(d, env, q, &cs[c], c, msg, size);
    }
    pl_query_free(q);
    return e;
}

int pl_derived_new(pl_env *env, const char *name, const char *help, const pl_guid *guid,
                   const pl_derived_counter *cs, uint32_t n, pl_derived **out, char *msg, size_t size)
{
    pl_derived *d;
    int e;
    *out = NULL;
    pl_say(0, msg, size, "%s", "");
    if (!name || !*name || !n || n > PL_MAX_COUNTER_ID + 1)
        return pl_say(EINVAL, msg, size, "a derived set needs a name and 1 to %d counters", PL_MAX_COUNTER_ID + 1);
    for (uint32_t c = 0; c < n; c++)
        if (!cs[c].name || !*cs[c].name || !cs[c].formula)
            return pl_say(EINVAL, msg, size, "each derived counter needs a name and a formula");
    if (!(d = calloc(1, sizeof *d)) || !(d->counters = calloc(n, sizeof *d->counters)) ||
        !(d->exprs = calloc(n, sizeof *d->exprs)) || !(d->refpath = calloc(n, sizeof *d->refpath)) ||
        !(d->strings[0] = strdup(name)) || !(d->strings[1] = strdup(help ? help : "Derived counters."))) {
        destroy(d);
        return ENOMEM;
    }
    d->join = -1;
    e = build(d, env, cs, n, msg, size);
    if (!e) {
        d->def = (pl_counterset_def){ guid ? *guid : pl_name_guid("perflib.derive", name), d->strings[0],
                                      d->strings[1], d->join < 0 ? PERF_COUNTERSET_SINGLE_INSTANCE
                                                                 : PERF_COUNTERSET_MULTI_INSTANCES,
                                      0, n, d->counters, &dv_ops, pl_env_free_index(env), d };
        if (pl_env_find(env, name) || pl_env_find_guid(env, &d->def.guid))
            e = pl_say(EEXIST, msg, size, "counterset name or GUID of '%s' is taken on this machine", name);
        else if (!d->def.index)
            e = pl_say(ENOSPC, msg, size, "no title index left for '%s'", name);
        else if ((e = pl_env_register(env, &d->def)))
            pl_say(e, msg, size, "'%s': %s", name, strerror(e));
    }
    if (e) {
        destroy(d);
        return e;
    }
    *out = d;
    return 0;
}

/* ---- the provider ---------------------------------------------------------------------- */

typedef struct dv_path {
    const pl_block *b;                   /* in the newer sample, NULL if it failed */
    pl_status bad;                       /* its status when it has no values */
    size_t off;                          /* into vals / st */
} dv_path;

typedef struct dv_state {
    pl_derived *d;
    pl_query *q;
    pl_sample *s0, *s1;
    size_t cap0, cap1, capn;             /* bytes of each sample's block, of the newest */
    uint32_t uid[DV_MAX_PATHS];          /* each path's spec uid in q */
    dv_path p[DV_MAX_PATHS];
    double *vals;
    uint8_t *st;
    size_t cap;
    char msg[512];
} dv_state;

static void dv_close(void *state)
{
    dv_state *s = state;
    if (!s)
        return;
    pl_derived *d = s->d;
    pl_query_free(s->q);
    free(s->s0);
    free(s->s1);
    free(s->vals);
    free(s->st);
    free(s);
    if (--d->nopen == 0 && d->released)
        destroy(d);
}

/* The uid of path in q, added now or there already (another spelling). */
static int add_spec(pl_query *q, const char *path, uint32_t *uid)
{
    pl_add_status st = PL_ADD_OK;
    uint32_t idx = 0;
    int e = pl_query_add_path(q, path, &st, &idx);
    if (!e && st == PL_ADD_DUPLICATE) {
        size_t n = strlen(path) + 1;
        char *buf = malloc(n);
        pl_spec_in in;
        if (!buf)
            return ENOMEM;
        if (!(e = pl_path_parse(path, buf, n, &in)))
            e = pl_query_find(q, &in, &st, &idx);
        free(buf);
    }
    if (!e && st != PL_ADD_OK)
        e = ENOENT;                      /* a set gone from the machine since */
    if (!e)
        *uid = pl_query_spec(q, idx)->uid;
    return e;
}

static int dv_open_set(pl_env *env, const pl_counterset_def *cs, void **state)
{
    dv_state *s = calloc(1, sizeof *s);
    int e = 0;
    if (!s || !(s->q = pl_query_new(env))) {
        free(s);
        return ENOMEM;
    }
    s->d = cs->provider_data;
    s->d->nopen++;
    for (uint32_t i = 0; !e && i < s->d->npaths; i++)
        e = add_spec(s->q, s->d->paths[i], &s->uid[i]);
    if (e) {
        dv_close(s);
        return e;
    }
    *state = s;
    return 0;
}

/* Each path's formatted values in the newer sample, against the older. */
static int format_paths(dv_state *s)
{
    size_t need = 0;
    for (uint32_t i = 0; i < s->d->npaths; i++) {
        const pl_block *b = pl_sample_find_block(s->s1, s->uid[i]);
        dv_path *p = &s->p[i];
        p->b = b && b->shape != PERF_ERROR_RETURN && b->ninst ? b : NULL;
        p->bad = !b ? PL_NO_DATA : b->status != PL_VALID ? b->status : PL_NO_INSTANCE;
        p->off = need;
        if (p->b)
            need += (size_t)b->ninst * b->ncounters;
    }
    if (need > s->cap) {
        double *v = realloc(s->vals, need * sizeof *v);
        if (v)
            s->vals = v;
        uint8_t *t = v ? realloc(s->st, need) : NULL;
        if (!t)
            return ENOMEM;
        s->st = t;
        s->cap = need;
    }
    for (uint32_t i = 0; i < s->d->npaths; i++)
        if (s->p[i].b)
            pl_sample_format_block(s->s1, s->p[i].b, s->s0, NULL, s->vals + s->p[i].off, s->st + s->p[i].off);
    return 0;
}

/* Index in p's block of the instance called name, or -1; hint first. */
static int find_name(const dv_state *s, const dv_path *p, const char *name, uint32_t hint)
{
    if (hint < p->b->ninst && strcmp(pl_sample_inst_name(s->s1, p->b, hint), name) == 0)
        return (int)hint;
    for (uint32_t i = 0; i < p->b->ninst; i++)
        if (strcmp(pl_sample_inst_name(s->s1, p->b, i), name) == 0)
            return (int)i;
    return -1;
}

/* Counter c of the instance named name (index mi of the joining path). */
static void eval_counter(dv_state *s, pl_snapshot *snap, uint32_t inst, uint32_t c, const char *name, uint32_t mi)
{
    const pl_derived *d = s->d;
    double v[PL_EXPR_MAX_REFS], out;
    uint8_t st[PL_EXPR_MAX_REFS];
    uint32_t nr = pl_expr_nrefs(d->exprs[c]);
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t k = d->refpath[c][r];
        const dv_path *p = &s->p[k];
        int i = !p->b ? -1 : !d->joined[k] ? 0 : (int)k == d->join ? (int)mi : find_name(s, p, name, mi);
        if (i < 0) {
            st[r] = p->b ? PL_NO_INSTANCE : p->bad;
            v[r] = 0;
            continue;
        }
        st[r] = s->st[p->off + (size_t)i];
        v[r] = s->vals[p->off + (size_t)i];
    }
    if (pl_expr_eval(d->exprs[c], v, st, &out) == PL_VALID) {
        uint64_t u;
        memcpy(&u, &out, sizeof u);
        pl_snap_set(snap, inst, c, u);
    }
}

/* The next sample goes into the older one's block when it fits: once the
 * sizes settle, a collect allocates nothing. */
static void *dv_alloc(void *ud, size_t size)
{
    dv_state *s = ud;
    void *p;
    if (s->s0 && s->cap0 >= size) {
        p = s->s0;
        s->capn = s->cap0;
        s->s0 = NULL;
        return p;
    }
    free(s->s0);
    s->s0 = NULL;
    s->capn = size;
    return malloc(size);
}

static int dv_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    dv_state *s = state;
    const pl_derived *d = s->d;
    pl_sample *n = NULL;
    int e;
    pl_snap_clear(snap);
    if ((e = pl_query_collect_with(s->q, dv_alloc, s, &n))) {
        free(n);
        snprintf(s->msg, sizeof s->msg, "the counters of '%s' could not be read: %s", d->def.name, strerror(e));
        snap->err_msg = s->msg;
        return e;
    }
    free(s->s0);                         /* NULL when its block was reused */
    s->s0 = s->s1;
    s->cap0 = s->cap1;
    s->s1 = n;
    s->cap1 = s->capn;
    if ((e = format_paths(s)))
        return e;
    const dv_path *jp = d->join >= 0 ? &s->p[d->join] : NULL;
    const pl_block *jb = jp ? pl_sample_find_block(s->s1, s->uid[d->join]) : NULL;
    if (jp && (!jb || jb->shape == PERF_ERROR_RETURN)) {
        /* the instances come from that path: without it there are none to give */
        snprintf(s->msg, sizeof s->msg, "'%s' takes its instances from %s, which failed: %s", d->def.name,
                 d->paths[d->join], jb && jb->err_msg ? jb->err_msg : jb && jb->err ? strerror(jb->err)
                                                                            : "no data");
        snap->err_msg = s->msg;
        return EIO;
    }
    uint32_t ninst = !jp ? 1 : jp->b ? jp->b->ninst : 0;
    for (uint32_t i = 0; i < ninst; i++) {
        const char *name = jp ? pl_sample_inst_name(s->s1, jp->b, i) : "";
        int k = jp ? pl_snap_add_key(snap, name, pl_sample_inst_id(s->s1, jp->b, i),
                                     pl_sample_inst_key(s->s1, jp->b, i))
                   : pl_snap_add(snap, "", 0);
        if (k < 0)
            return ENOMEM;
        for (uint32_t c = 0; c < d->def.ncounters; c++)
            if (!wanted || wanted[c])
                eval_counter(s, snap, (uint32_t)k, c, name, i);
    }
    return 0;
}

static int dv_instances(void *state, pl_snapshot *snap)
{
    return dv_collect(state, NULL, snap);
}

static const pl_provider_ops dv_ops = { NULL, dv_close, dv_instances, dv_collect, dv_open_set, NULL };
