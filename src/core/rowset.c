/* Countersets written as rows (pl_rowset.h): the generic walk from a row's
 * feed to its counter, and the provider of sets made only of feeds. */
#include "pl_rowset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pl_feed_begin(pl_feed_in *in, const pl_feed_src *srcs, unsigned nsrc, pl_ksrc *const *k,
                   pl_snapshot *snap, void *ctx)
{
    in->srcs = srcs;
    in->nsrc = nsrc < PL_FEED_MAXSRC ? nsrc : PL_FEED_MAXSRC;
    in->k = k;
    in->tried = 0;           /* data[s] is written when bit s is set: no memset */
    pl_sources_init(&in->files);
    in->snap = snap;
    in->timed = 0;
    in->ctx = ctx;
}

const void *pl_feed_get(pl_feed_in *in, unsigned s)
{
    pl_ksrc *k;
    if (s >= in->nsrc)
        return NULL;
    if (in->tried & PL_BIT(s))
        return in->data[s];
    in->tried |= PL_BIT(s);
    in->data[s] = NULL;
    k = in->k ? in->k[s] : NULL;
    if (!k)                  /* the collect's own: pl_feed_put, or nothing */
        return NULL;
    if (!pl_source_done(&in->files, pl_ksrc_get(k), pl_ksrc_path(k)))
        return NULL;
    if (!in->timed)
        in->snap->time = pl_ksrc_time(k);   /* the instant of the read it shares */
    in->timed = 1;
    in->data[s] = pl_ksrc_data(k);
    return in->data[s];
}

void pl_feed_put(pl_feed_in *in, unsigned s, const void *data)
{
    if (s >= in->nsrc)
        return;
    in->tried |= PL_BIT(s);
    in->data[s] = data;
}

/* Field f of the source at base (NULL: not read). */
static inline int field_at(const pl_feed_src *src, const unsigned char *base, unsigned f,
                           uint64_t *v)
{
    if (!base)
        return 0;
    if (src->st != PL_FEED_NO_ST) {
        if (base[src->st + f] != PL_NS_OK)
            return 0;
    } else if (src->n != PL_FEED_NO_ST) {
        int n;
        memcpy(&n, base + src->n, sizeof n);
        if (n < 0 || f >= (unsigned)n)
            return 0;
    }
    memcpy(v, base + src->v + (size_t)f * sizeof *v, sizeof *v);
    return 1;
}

int pl_feed_field(pl_feed_in *in, unsigned s, unsigned f, uint64_t *v)
{
    const unsigned char *base = pl_feed_get(in, s);
    return base ? field_at(&in->srcs[s], base, f, v) : 0;
}

uint32_t pl_feed_need(const pl_feed *rows, uint32_t n, const uint8_t *wanted)
{
    uint32_t need = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!wanted || wanted[i])
            need |= rows[i].need;
    return need;
}

void pl_feed_read(pl_feed_in *in, uint32_t need)
{
    for (unsigned s = 0; s < in->nsrc; s++)
        if (need & PL_BIT(s))
            (void)pl_feed_get(in, s);
}

/* The value of one row: 1 with *v, 0 when unknown. */
static int feed_value(pl_feed_in *in, const pl_feed *r, uint64_t *v)
{
    uint64_t a, b;
    switch (r->op) {
    case PL_FEED_FIELD:
        /* the common row: its source is usually read already */
        if (r->src < in->nsrc && (in->tried & PL_BIT(r->src)))
            return field_at(&in->srcs[r->src], in->data[r->src], r->a, v);
        return pl_feed_field(in, r->src, r->a, v);
    case PL_FEED_SUM:
        return pl_feed_field(in, r->src, r->a, &a) && pl_feed_field(in, r->src, r->b, &b) &&
               pl_add_ok(a, b, v);
    case PL_FEED_KIB:
        return pl_feed_field(in, r->src, r->a, &a) && pl_mul_ok(a, 1024, v);
    case PL_FEED_SUM_KIB:
        return pl_feed_field(in, r->src, r->a, &a) && pl_feed_field(in, r->src, r->b, &b) &&
               pl_add_ok(a, b, &a) && pl_mul_ok(a, 1024, v);
    case PL_FEED_DERIVE:
        return r->derive(in, v);
    default:
        return 0;
    }
}

void pl_feed_walk(pl_feed_in *in, uint32_t inst, const pl_feed *rows, uint32_t n,
                  const uint8_t *wanted)
{
    for (uint32_t i = 0; i < n; i++) {
        const pl_feed *r = &rows[i];
        uint64_t v;
        if (r->op == PL_FEED_HAND)
            continue;
        /* an unwanted row only when its sources are here already */
        if (wanted && !wanted[i] && (r->need & ~in->tried) != 0)
            continue;
        if (feed_value(in, r, &v))
            pl_snap_set(in->snap, inst, i, v);
    }
}

int pl_feed_rows_source(pl_ksrc *k, pl_snapshot *snap, const void **data)
{
    int e = pl_ksrc_get(k);
    *data = NULL;
    if (e == EINVAL)
        return 0;            /* empty or not this file: no rows */
    if (e) {
        snap->err_path = pl_ksrc_path(k);
        return e;
    }
    snap->time = pl_ksrc_time(k);
    *data = pl_ksrc_data(k);
    return 0;
}

int pl_feed_end(pl_feed_in *in)
{
    return pl_sources_end(&in->files, in->snap);
}

/* ---- the provider of a set made of feeds --------------------------------------- */

typedef struct rowset_state {
    pl_env *env;
    const pl_rowset *rs;
    uint32_t n;
    pl_ksrc *k[PL_FEED_MAXSRC];   /* the machine's readers */
} rowset_state;

static void rowset_close(void *state)
{
    rowset_state *s = state;
    if (!s)
        return;
    pl_env_unref(s->env);    /* the readers are the environment's */
    free(s);
}

static int rowset_open(pl_env *env, const pl_counterset_def *cs, void **state)
{
    const pl_rowset *rs = cs->provider_data;
    rowset_state *s;
    if (!rs || rs->nsrc > PL_FEED_MAXSRC)
        return EINVAL;
    if (!(s = calloc(1, sizeof *s)))
        return ENOMEM;
    s->env = pl_env_ref(env);
    s->rs = rs;
    s->n = cs->ncounters;
    for (unsigned i = 0; i < rs->nsrc; i++)
        if (rs->srcs[i].def && !(s->k[i] = pl_ksrc_attach(env, rs->srcs[i].def))) {
            rowset_close(s);
            return ENOMEM;
        }
    *state = s;
    return 0;
}

static int rowset_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    rowset_state *s = state;
    pl_feed_in in;
    int e;
    if ((e = pl_single_instance(state, snap)) != 0)
        return e;
    pl_feed_begin(&in, s->rs->srcs, s->rs->nsrc, s->k, snap, s->env);
    pl_feed_read(&in, pl_feed_need(s->rs->rows, s->n, wanted));
    if ((e = pl_feed_end(&in)) != 0)
        return e;
    pl_feed_walk(&in, 0, s->rs->rows, s->n, wanted);
    return 0;
}

const pl_provider_ops pl_rowset_ops = {
    NULL, rowset_close, pl_single_instance, rowset_collect, rowset_open, NULL,
};
