/* Formatted values from a pair of samples: matches blocks by specification,
 * instances by id and name, and hands each pair of raw values to the
 * formula of its counter type. */
#include "perflib.h"

#include <string.h>

const pl_block *pl_sample_find_block(const pl_sample *s, uint32_t uid)
{
    for (uint32_t i = 0; i < s->nblocks; i++)
        if (s->blocks[i].uid == uid)
            return &s->blocks[i];
    return NULL;
}

int pl_sample_find_inst(const pl_sample *s, const pl_block *b, uint32_t id, const char *name,
                        uint32_t hint)
{
    /* Instances mostly keep their positions between samples: try the hint. */
    if (hint < b->ninst && pl_sample_inst_id(s, b, hint) == id &&
        strcmp(pl_sample_inst_name(s, b, hint), name) == 0)
        return (int)hint;
    for (uint32_t i = 0; i < b->ninst; i++)
        if (pl_sample_inst_id(s, b, i) == id && strcmp(pl_sample_inst_name(s, b, i), name) == 0)
            return (int)i;
    return -1;
}

/* The raw pair a formula needs: value plus base or timestamp, by type. */
static void make_raw(const pl_sample *s, const pl_block *b, const pl_counter_def *d,
                     const pl_pair *p, pl_raw *r, int64_t *freq)
{
    r->first = p->v;
    r->multi = 0;
    r->size = 8;
    *freq = s->perf_freq;
    if (d->base_id != PL_NO_ID) {
        r->second = p->b;
        if (d->type == PERF_AVERAGE_TIMER)
            *freq = 10000000;          /* perflib keeps all times in 100 ns */
    } else if ((d->type & 0x300000u) == PERF_OBJECT_TIMER) {
        r->second = p->b;
        *freq = b->obj_freq;
    } else if ((d->type & 0x300000u) == PERF_TIMER_100NS) {
        /* a monotonic 100 ns clock: wall-clock steps must not bend rates */
        r->second = s->perf_freq == 10000000 ? (uint64_t)s->perf_time
                  : (uint64_t)((double)s->perf_time * 1e7 / (double)s->perf_freq);
        *freq = 10000000;
    } else {
        r->second = (uint64_t)s->perf_time;
    }
}

static pl_status format_one(const pl_sample *s1, const pl_block *b1, uint32_t i, uint32_t c,
                            const pl_sample *s0, const pl_block *b0, int i0, unsigned flags,
                            double *out)
{
    const pl_counter_def *d = pl_sample_counter(s1, b1, c);
    size_t k1 = b1->vals_off + (size_t)i * b1->ncounters + c;
    pl_raw r1, r0;
    int64_t f1, f0;
    *out = 0;
    if (!s1->have[k1])
        return PL_NO_DATA;
    make_raw(s1, b1, d, &s1->vals[k1], &r1, &f1);
    if (!pl_type_needs_two(d->type))
        return pl_format_raw(d->type, &r1, NULL, f1, flags, d->scale, out);
    if (!b0 || i0 < 0)
        return PL_FIRST_SAMPLE;        /* no older sample, or a new instance */
    size_t k0 = b0->vals_off + (size_t)i0 * b0->ncounters + c;
    if (!s0->have[k0])
        return PL_NO_DATA;
    make_raw(s0, b0, d, &s0->vals[k0], &r0, &f0);
    (void)f0;
    return pl_format_raw(d->type, &r1, &r0, f1, flags, d->scale, out);
}

static const pl_block *older_block(const pl_sample *s1, const pl_block *b1, const pl_sample *s0)
{
    const pl_block *b0;
    if (!s0 || s0->query_id != s1->query_id)
        return NULL;
    b0 = pl_sample_find_block(s0, b1->uid);
    return b0 && b0->shape != PERF_ERROR_RETURN ? b0 : NULL;
}

pl_status pl_sample_format(const pl_sample *s1, const pl_block *b1, uint32_t i, uint32_t c,
                           const pl_sample *s0, unsigned flags, double *out)
{
    const pl_block *b0;
    int i0 = -1;
    *out = 0;
    if (b1->shape == PERF_ERROR_RETURN)
        return b1->status;
    if (i >= b1->ninst || c >= b1->ncounters)
        return PL_NO_INSTANCE;
    b0 = older_block(s1, b1, s0);
    if (b0)
        i0 = pl_sample_find_inst(s0, b0, pl_sample_inst_id(s1, b1, i),
                                 pl_sample_inst_name(s1, b1, i), i);
    return format_one(s1, b1, i, c, s0, b0, i0, flags, out);
}

void pl_sample_format_block(const pl_sample *s1, const pl_block *b1, const pl_sample *s0,
                            unsigned flags, double *out, uint8_t *st)
{
    const pl_block *b0 = older_block(s1, b1, s0);
    size_t k = 0;
    if (b1->shape == PERF_ERROR_RETURN)
        return;
    for (uint32_t i = 0; i < b1->ninst; i++) {
        int i0 = b0 ? pl_sample_find_inst(s0, b0, pl_sample_inst_id(s1, b1, i),
                                          pl_sample_inst_name(s1, b1, i), i) : -1;
        for (uint32_t c = 0; c < b1->ncounters; c++, k++)
            st[k] = (uint8_t)format_one(s1, b1, i, c, s0, b0, i0, flags, &out[k]);
    }
}
