/* Formatted values from a pair of samples: matches blocks by specification,
 * instances by id and name, and hands each pair of raw values to the
 * formula of its counter type. */
#include "perflib.h"
#include "formula_impl.h"

#include <stdlib.h>
#include <string.h>

const pl_block *pl_sample_find_block(const pl_sample *s, uint32_t uid)
{
    for (uint32_t i = 0; i < s->nblocks; i++)
        if (s->blocks[i].uid == uid)
            return &s->blocks[i];
    return NULL;
}

int pl_sample_find_inst(const pl_sample *s, const pl_block *b, uint32_t id, const char *name,
                        uint64_t key, uint32_t hint)
{
    /* A keyed instance (a process: pid + start time) is the same instance
     * even when its name moved, e.g. bash#1 became bash. */
    if (key != 0) {
        if (hint < b->ninst && pl_sample_inst_id(s, b, hint) == id && pl_sample_inst_key(s, b, hint) == key)
            return (int)hint;
        for (uint32_t i = 0; i < b->ninst; i++)
            if (pl_sample_inst_id(s, b, i) == id && pl_sample_inst_key(s, b, i) == key)
                return (int)i;
        return -1;
    }
    /* Instances mostly keep their positions between samples: try the hint. */
    if (hint < b->ninst && pl_sample_inst_id(s, b, hint) == id &&
        pl_sample_inst_key(s, b, hint) == key && strcmp(pl_sample_inst_name(s, b, hint), name) == 0)
        return (int)hint;
    for (uint32_t i = 0; i < b->ninst; i++)
        if (pl_sample_inst_id(s, b, i) == id && pl_sample_inst_key(s, b, i) == key &&
            strcmp(pl_sample_inst_name(s, b, i), name) == 0)
            return (int)i;
    return -1;
}

/* Where the second raw value of a counter comes from. */
enum { SRC_BASE, SRC_MULTI, SRC_OBJ, SRC_TS };

/* Everything about a counter that does not change from value to value:
 * worked out once per call, so the per-value loop is the formula alone. */
typedef struct cdesc {
    pl_kind kind;
    int two, cap, src;
    int hns;                 /* timestamps in 100 ns rather than ticks */
    int fast;                /* computed inline by the bulk path */
    uint32_t size;
    int64_t freq;
    double mult;
} cdesc;

/* A result's time in 100 ns: defined for any time and frequency a block
 * from outside may carry (a frequency of 0 or less gives 0, so no interval). */
static uint64_t ts_100ns(int64_t t, int64_t freq)
{
    double d;
    if (freq == 10000000)
        return (uint64_t)t;
    if (freq <= 0)
        return 0;
    d = (double)t * 1e7 / (double)freq;
    if (d >= 9223372036854775807.0)
        return (uint64_t)INT64_MAX;
    if (d <= -9223372036854775808.0)
        return (uint64_t)INT64_MIN;
    return (uint64_t)(int64_t)d;
}

static void describe(const pl_block *b, const pl_counter_def *d, const pl_fmt *fmt,
                     int64_t perf_freq, cdesc *cd)
{
    uint32_t tb = d->type & 0x300000u;
    cd->kind = pl_kind_of(d->type);
    cd->two = pl_kind_needs_two(cd->kind);
    cd->cap = pl_cap_of(d->type, fmt->flags);
    cd->mult = pl_mult_of(fmt->flags, fmt->scale_set ? fmt->scale : d->scale);
    cd->size = d->size == 4 ? 4 : 8;
    cd->freq = perf_freq;
    cd->hns = 0;
    if (d->type & PERF_MULTI_COUNTER) {
        cd->src = SRC_MULTI;             /* the base is an instance count, time is the clock */
    } else if (d->base_id != PL_NO_ID) {
        cd->src = SRC_BASE;
        if (d->type == PERF_AVERAGE_TIMER)
            cd->freq = 10000000;         /* perflib keeps all times in 100 ns */
        return;
    } else {
        cd->src = SRC_TS;
    }
    if (tb == PERF_OBJECT_TIMER) {
        cd->src = cd->src == SRC_MULTI ? SRC_MULTI : SRC_OBJ;
        cd->freq = b->obj_freq;
    } else if (tb == PERF_TIMER_100NS) {
        cd->freq = 10000000;             /* a monotonic 100 ns clock, never the wall clock */
        cd->hns = 1;
    }
}

/* The raw value a formula takes: value plus base, count or timestamp. */
static inline void make_raw(const cdesc *cd, const pl_pair *p, uint64_t tick, uint64_t hns,
                            pl_raw *r)
{
    r->first = p->v;
    r->size = cd->size;
    r->multi = 0;
    if (cd->src == SRC_BASE || cd->src == SRC_OBJ) {
        r->second = p->b;    /* a base, or the object clock stored with the value */
        return;
    }
    if (cd->src == SRC_MULTI)
        r->multi = (uint32_t)p->b;
    r->second = cd->hns ? hns : tick;
}

static pl_status have_status(uint8_t h)
{
    return h == PL_HAVE_NO_BASE ? PL_INVALID_DATA : h == PL_HAVE_NO_ACCESS ? PL_NO_ACCESS : PL_NO_DATA;
}

/* The same counterset and the same counters in the same order: then value
 * k of one block is value k of the other, and nothing is read past either. */
static int same_def(const pl_sample *s1, const pl_block *b1, const pl_sample *s0, const pl_block *b0)
{
    return b0->cs == b1->cs && b0->ncounters == b1->ncounters &&
           memcmp(s0->cidx + b0->counters_off, s1->cidx + b1->counters_off,
                  (size_t)b1->ncounters * sizeof *s1->cidx) == 0;
}

const pl_block *pl_sample_pair(const pl_sample *s1, const pl_block *b1, const pl_sample *s0)
{
    const pl_block *b0;
    int foreign;
    if (!s0 || s0->perf_freq != s1->perf_freq)
        return NULL;
    foreign = s0->foreign || s1->foreign;
    if (!foreign && s0->query_id != s1->query_id)
        return NULL;
    /* results mostly keep their index: try it before the search by id */
    b0 = b1->index < s0->nblocks && s0->blocks[b1->index].uid == b1->uid ? &s0->blocks[b1->index]
                                                                          : pl_sample_find_block(s0, b1->uid);
    if (b0 && same_def(s1, b1, s0, b0))
        return b0;
    if (!foreign)
        return NULL;
    for (uint32_t k = 0; k < s0->nblocks; k++) {
        b0 = &s0->blocks[k];
        if (same_def(s1, b1, s0, b0) && strcmp(s0->names + b0->filter_off, s1->names + b1->filter_off) == 0)
            return b0;
    }
    return NULL;
}

static const pl_block *older_block(const pl_sample *s1, const pl_block *b1, const pl_sample *s0)
{
    const pl_block *b0 = pl_sample_pair(s1, b1, s0);
    return b0 && b0->shape != PERF_ERROR_RETURN ? b0 : NULL;
}

static const pl_fmt default_fmt = { 0, 0, 0 };

/* One value, its counter described by cd. */
static inline pl_status format_value(const pl_sample *s1, const pl_block *b1, size_t k1,
                                     const pl_sample *s0, size_t k0, int has0, const cdesc *cd,
                                     uint64_t tick1, uint64_t hns1, uint64_t tick0, uint64_t hns0,
                                     double *out)
{
    pl_raw r1, r0;
    *out = 0;
    if (s1->have[k1] != 1)
        return have_status(s1->have[k1]);
    make_raw(cd, &s1->vals[k1], tick1, hns1, &r1);
    if (!cd->two)
        return pl_compute(cd->kind, &r1, &r1, cd->freq, cd->cap, cd->mult, out);
    if (!has0)
        return PL_FIRST_SAMPLE;          /* no older sample, or a new instance */
    if (s0->have[k0] != 1)
        return have_status(s0->have[k0]);
    make_raw(cd, &s0->vals[k0], tick0, hns0, &r0);
    (void)b1;
    return pl_compute(cd->kind, &r1, &r0, cd->freq, cd->cap, cd->mult, out);
}

pl_status pl_sample_format(const pl_sample *s1, const pl_block *b1, uint32_t i, uint32_t c,
                           const pl_sample *s0, const pl_fmt *fmt, double *out)
{
    const pl_block *b0;
    size_t k0 = 0;
    uint64_t tick0 = 0, hns0 = 0;
    int has0 = 0;
    cdesc cd;
    *out = 0;
    if (b1->shape == PERF_ERROR_RETURN)
        return b1->status;
    if (i >= b1->ninst || c >= b1->ncounters)
        return PL_NO_INSTANCE;
    b0 = older_block(s1, b1, s0);
    if (b0) {
        int i0 = pl_sample_find_inst(s0, b0, pl_sample_inst_id(s1, b1, i),
                                     pl_sample_inst_name(s1, b1, i), pl_sample_inst_key(s1, b1, i), i);
        has0 = i0 >= 0;
        k0 = has0 ? b0->vals_off + (size_t)i0 * b0->ncounters + c : 0;
        tick0 = (uint64_t)b0->time;
        hns0 = ts_100ns(b0->time, s0->perf_freq);
    }
    describe(b1, pl_sample_counter(s1, b1, c), fmt ? fmt : &default_fmt, s1->perf_freq, &cd);
    return format_value(s1, b1, b1->vals_off + (size_t)i * b1->ncounters + c, s0, k0, has0, &cd,
                        (uint64_t)b1->time, ts_100ns(b1->time, s1->perf_freq), tick0, hns0, out);
}

pl_status pl_sample_raw(const pl_sample *s, const pl_block *b, uint32_t i, uint32_t c, pl_raw *r,
                        int64_t *freq)
{
    cdesc cd;
    size_t k;
    if (b->shape == PERF_ERROR_RETURN)
        return b->status;
    if (i >= b->ninst || c >= b->ncounters)
        return PL_NO_INSTANCE;
    k = b->vals_off + (size_t)i * b->ncounters + c;
    if (s->have[k] != 1)
        return have_status(s->have[k]);
    describe(b, pl_sample_counter(s, b, c), &default_fmt, s->perf_freq, &cd);
    make_raw(&cd, &s->vals[k], (uint64_t)b->time, ts_100ns(b->time, s->perf_freq), r);
    *freq = cd.freq;
    return PL_VALID;
}

/* Do both blocks list the same instances in the same order?  Then every
 * instance pairs with its own position, without a name lookup each.  A
 * block's names lie in order in the sample (a set's names may be shared by
 * its blocks, with other names between): the same ids, the same offsets from
 * the first name and the same bytes over the span mean the same names. */
static int same_layout(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                       const pl_block *b0)
{
    const pl_inst *i1 = s1->inst + b1->inst_off, *i0 = s0->inst + b0->inst_off;
    const char *n1, *n0, *e1, *e0;
    if (b1->ninst != b0->ninst)
        return 0;
    if (b1->ninst == 0)
        return 1;
    for (uint32_t i = 0; i < b1->ninst; i++)
        if (i1[i].id != i0[i].id || i1[i].key != i0[i].key ||
            i1[i].name_off - i1[0].name_off != i0[i].name_off - i0[0].name_off)
            return 0;
    n1 = s1->names + i1[0].name_off;
    n0 = s0->names + i0[0].name_off;
    e1 = s1->names + i1[b1->ninst - 1].name_off;
    e0 = s0->names + i0[b0->ninst - 1].name_off;
    e1 += strlen(e1);
    e0 += strlen(e0);
    return e1 - n1 == e0 - n0 && memcmp(n1, n0, (size_t)(e1 - n1)) == 0;
}

/* One value of a time-based kind whose raw pair is at hand: the formula
 * inlined, with the same arithmetic and the same order of checks as
 * pl_compute. */
static inline pl_status fast_value(const cdesc *cd, uint8_t h1, uint8_t h0, uint64_t a1,
                                   uint64_t a0, uint64_t t1, uint64_t t0, double *out)
{
    double v, dn, dt;
    *out = 0;
    if (h1 != 1 || h0 != 1)
        return h1 != 1 ? have_status(h1) : have_status(h0);
    if (a1 < a0)
        return PL_NEGATIVE_DELTA;
    pl_status is = pl_interval(t1, t0, &dt);
    if (is != PL_VALID)
        return is;
    dn = (double)(a1 - a0);
    switch (cd->kind) {
    case K_RATE: v = dn / (dt / (double)cd->freq); break;
    case K_QUEUE: v = dn / dt; break;
    case K_TIMER_INV: v = 100.0 * (1.0 - dn / dt); break;
    default: v = 100.0 * dn / dt; break;             /* K_TIMER, K_PRECISION */
    }
    if (cd->cap) {
        if (v > 100.0)
            v = 100.0;
        if (v < 0.0)
            v = 0.0;
    }
    *out = v * cd->mult;
    return PL_VALID;
}

static int fast_kind(const cdesc *cd)
{
    return cd->size == 8 && cd->two && cd->src != SRC_MULTI &&
           (cd->kind == K_RATE || cd->kind == K_QUEUE || cd->kind == K_TIMER ||
            cd->kind == K_TIMER_INV || cd->kind == K_PRECISION) &&
           (cd->kind != K_RATE || cd->freq > 0);
}

/* One column of the percent-of-a-clock kinds (K_TIMER, K_PRECISION,
 * K_TIMER_INV): whether it is the inverse, whether its clock is the value's
 * own base (else the result's time, whose interval is the same for every
 * instance: taken once), and its cap. */
typedef struct tcol {
    uint8_t inv, base, cap;
    pl_status ist;           /* the result's interval, when !base */
    double dt;
} tcol;

/* Whether every counter is of those kinds, unscaled: then tc[] describes
 * them (at most 64). */
static int timer_cols(const cdesc *cd, uint32_t nc, uint64_t tick1, uint64_t hns1, uint64_t tick0,
                      uint64_t hns0, tcol *tc)
{
    if (nc == 0 || nc > 64)
        return 0;
    for (uint32_t c = 0; c < nc; c++) {
        const cdesc *d = &cd[c];
        if (!d->fast || d->mult != 1.0 ||
            (d->kind != K_TIMER && d->kind != K_PRECISION && d->kind != K_TIMER_INV))
            return 0;
        tc[c].inv = d->kind == K_TIMER_INV;
        tc[c].base = d->src == SRC_BASE || d->src == SRC_OBJ;
        tc[c].cap = (uint8_t)(d->cap != 0);
        tc[c].dt = 0;
        tc[c].ist = tc[c].base ? PL_VALID
                               : pl_interval(d->hns ? hns1 : tick1, d->hns ? hns0 : tick0, &tc[c].dt);
    }
    return 1;
}

/* One value of a column timer_cols described: its status, *out its value. */
static inline pl_status timer_value(const tcol *t, const pl_pair *p1, const pl_pair *p0, uint8_t h1, uint8_t h0,
                                    double *out)
{
    double dt = t->dt, dn, v;
    pl_status is = t->ist;
    if ((h1 ^ 1) | (h0 ^ 1))                     /* either is not 1: one branch */
        return h1 != 1 ? have_status(h1) : have_status(h0);
    if (t->base)
        is = pl_interval(p1->b, p0->b, &dt);
    if (p1->v < p0->v)
        return PL_NEGATIVE_DELTA;
    if (is != PL_VALID)
        return is;
    uint64_t d = p1->v - p0->v;
    dn = d <= (uint64_t)INT64_MAX ? (double)(int64_t)d : (double)d;   /* cvtsi2sd when it fits */
    v = t->inv ? 100.0 * (1.0 - dn / dt) : 100.0 * dn / dt;
    if (t->cap)
        v = v > 100.0 ? 100.0 : v < 0.0 ? 0.0 : v;
    *out = v;
    return PL_VALID;
}

/* Every value of a block whose counters timer_cols described, instance by
 * instance: fast_value's checks in its order, and pl_compute's arithmetic. */
/* not inlined: alone, its loop keeps every variable in a register */
__attribute__((noinline)) static size_t timer_loop(const tcol *tc, uint32_t nc, size_t ninst, const pl_pair *v1,
                                                   const pl_pair *v0, const uint8_t *h1, const uint8_t *h0,
                                                   double *out, uint8_t *st)
{
    size_t valid = 0, k = 0;
    for (size_t i = 0; i < ninst; i++)
        for (uint32_t c = 0; c < nc; c++, k++) {
            double v = 0;
            pl_status r = timer_value(&tc[c], &v1[k], &v0[k], h1[k], h0[k], &v);
            out[k] = v;
            st[k] = (uint8_t)r;
            valid += r == PL_VALID;
        }
    return valid;
}

size_t pl_sample_format_block(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                              const pl_fmt *fmt, double *out, uint8_t *st)
{
    const pl_block *b0 = older_block(s1, b1, s0);
    cdesc local[64], *cd = local;
    size_t k = 0, valid = 0;
    uint64_t tick1 = (uint64_t)b1->time, hns1 = ts_100ns(b1->time, s1->perf_freq);
    uint64_t tick0 = b0 ? (uint64_t)b0->time : 0, hns0 = b0 ? ts_100ns(b0->time, s0->perf_freq) : 0;
    uint32_t nc = b1->ncounters;
    int same;
    if (!fmt)
        fmt = &default_fmt;
    if (b1->shape == PERF_ERROR_RETURN)
        return 0;
    if (nc > 64 && !(cd = malloc(nc * sizeof *cd))) {
        /* no memory for the fast path: the one-by-one path needs none */
        for (uint32_t i = 0; i < b1->ninst; i++)
            for (uint32_t c = 0; c < nc; c++, k++) {
                st[k] = (uint8_t)pl_sample_format(s1, b1, i, c, s0, fmt, &out[k]);
                valid += st[k] == PL_VALID;
            }
        return valid;
    }
    for (uint32_t c = 0; c < nc; c++)
        describe(b1, pl_sample_counter(s1, b1, c), fmt, s1->perf_freq, &cd[c]);
    same = b0 && same_layout(s1, b1, s0, b0);
    if (same) {
        /* instance i pairs with instance i: no lookups, and the common
         * time-based kinds are computed inline */
        const pl_pair *v1 = s1->vals + b1->vals_off, *v0 = s0->vals + b0->vals_off;
        const uint8_t *h1 = s1->have + b1->vals_off, *h0 = s0->have + b0->vals_off;
        tcol tc[64];
        for (uint32_t c = 0; c < nc; c++)
            cd[c].fast = fast_kind(&cd[c]);
        if (timer_cols(cd, nc, tick1, hns1, tick0, hns0, tc)) {
            valid = timer_loop(tc, nc, b1->ninst, v1, v0, h1, h0, out, st);
            if (cd != local)
                free(cd);
            return valid;
        }
        for (uint32_t i = 0; i < b1->ninst; i++)
            for (uint32_t c = 0; c < nc; c++, k++) {
                const cdesc *d = &cd[c];
                if (d->fast) {
                    int base = d->src == SRC_BASE || d->src == SRC_OBJ;
                    st[k] = (uint8_t)fast_value(d, h1[k], h0[k], v1[k].v, v0[k].v,
                                                base ? v1[k].b : d->hns ? hns1 : tick1,
                                                base ? v0[k].b : d->hns ? hns0 : tick0, &out[k]);
                } else {
                    st[k] = (uint8_t)format_value(s1, b1, b1->vals_off + k, s0, b0->vals_off + k,
                                                  1, d, tick1, hns1, tick0, hns0, &out[k]);
                }
                valid += st[k] == PL_VALID;
            }
        if (cd != local)
            free(cd);
        return valid;
    }
    for (uint32_t i = 0; i < b1->ninst; i++) {
        int i0 = same ? (int)i : b0 ? pl_sample_find_inst(s0, b0, pl_sample_inst_id(s1, b1, i),
                                                          pl_sample_inst_name(s1, b1, i),
                                                          pl_sample_inst_key(s1, b1, i), i) : -1;
        size_t k1 = b1->vals_off + (size_t)i * nc;
        size_t k0 = i0 >= 0 ? b0->vals_off + (size_t)i0 * nc : 0;
        for (uint32_t c = 0; c < nc; c++, k++) {
            st[k] = (uint8_t)format_value(s1, b1, k1 + c, s0, k0 + c, i0 >= 0, &cd[c],
                                          tick1, hns1, tick0, hns0, &out[k]);
            valid += st[k] == PL_VALID;
        }
    }
    if (cd != local)
        free(cd);
    return valid;
}
