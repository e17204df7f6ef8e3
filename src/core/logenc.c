/* The records a sample adds to a log, and the definitions that make a log
 * read back anywhere (pl_logenc.h). */
#include "pl_logenc.h"
#include "pl_wr.h"
#include "pl_logutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing definitions ---------------------------------------------- */

static void put_str16(wr *w, const char *s)
{
    size_t n = s ? strnlen(s, PL_DEFS_MAX_NAME) : 0;
    put16(w, (uint16_t)n);
    put_bytes(w, s, n);
}

static void put_str32(wr *w, const char *s)
{
    size_t n = s ? strnlen(s, PL_DEFS_MAX_HELP) : 0;
    put32(w, (uint32_t)n);
    put_bytes(w, s, n);
}

static void put_counter(wr *w, const pl_counter_def *c)
{
    uint64_t scale;
    double us = c->unit_scale;
    memcpy(&scale, &us, 8);
    put32(w, c->id);
    put32(w, c->type);
    put32(w, c->base_id);
    put32(w, c->detail);
    put32(w, (uint32_t)c->scale);
    put32(w, c->size);
    uint8_t u[4] = { c->unit, c->semantics, 0, 0 };
    put_bytes(w, u, 4);
    put64(w, scale);
    put_str16(w, c->name);
    put_str32(w, c->help);
}

size_t pl_defs_write(const pl_counterset_def *const *sets, uint32_t n, void *buf, size_t cap)
{
    wr w = { buf, 0, buf ? cap : 0 };
    put32(&w, PL_DEFS_MAGIC);
    put32(&w, n);
    for (uint32_t i = 0; i < n; i++) {
        const pl_counterset_def *cs = sets[i];
        uint8_t g[16];
        pl_guid_put(g, &cs->guid);
        put_bytes(&w, g, 16);
        put32(&w, cs->instance_type);
        put32(&w, cs->index);
        put32(&w, cs->ncounters);
        put_str16(&w, cs->name);
        put_str32(&w, cs->help);
        for (uint32_t c = 0; c < cs->ncounters; c++)
            put_counter(&w, &cs->counters[c]);
    }
    return w.off;
}

/* ---- reading definitions ---------------------------------------------- */

/* The parse state: pass 1 checks and counts (out NULL), pass 2 fills. */
typedef struct dparse {
    rd r;
    size_t off;
    pl_defs *out;
    pl_counter_def *next_counter;
    char *strings;
    size_t ncounters, nbytes;            /* pass 1: what pass 2 needs */
} dparse;

static int need(dparse *p, size_t n, const char *rule)
{
    return n <= p->r.len - p->off ? 0 : fail(&p->r, p->off, rule);
}

static uint32_t get32(dparse *p)
{
    uint32_t v = pl_r32(p->r.p + p->off);
    p->off += 4;
    return v;
}

/* A string of up to max bytes, its length in lenbytes (2 or 4) bytes. */
static int get_str(dparse *p, int lenbytes, size_t max, const char **out, const char *rule)
{
    if (need(p, (size_t)lenbytes, rule))
        return EINVAL;
    size_t n = lenbytes == 2 ? pl_r16(p->r.p + p->off) : pl_r32(p->r.p + p->off);
    if (n > max)
        return fail(&p->r, p->off, rule);
    p->off += (size_t)lenbytes;
    if (need(p, n, rule) || memchr(p->r.p + p->off, 0, n))
        return fail(&p->r, p->off, rule);
    if (p->out) {
        memcpy(p->strings, p->r.p + p->off, n);
        p->strings[n] = '\0';
        *out = p->strings;
        p->strings += n + 1;
    }
    p->nbytes += n + 1;
    p->off += n;
    return 0;
}

static int get_counter(dparse *p, pl_counter_def *c)
{
    pl_counter_def tmp;
    if (!c)
        c = &tmp;
    memset(c, 0, sizeof *c);
    if (need(p, 36, "a counter definition runs past the end"))
        return EINVAL;
    size_t at = p->off;
    c->id = get32(p);
    c->type = get32(p);
    c->base_id = get32(p);
    c->detail = get32(p);
    c->scale = (int32_t)get32(p);
    c->size = get32(p);
    c->unit = p->r.p[p->off];
    c->semantics = p->r.p[p->off + 1];
    if (p->r.p[p->off + 2] || p->r.p[p->off + 3])
        return fail(&p->r, p->off + 2, "reserved bytes of a counter that are not 0");
    p->off += 4;
    uint64_t bits = pl_r64(p->r.p + p->off);
    memcpy(&c->unit_scale, &bits, 8);
    p->off += 8;
    if (!pl_type_known(c->type))
        return fail(&p->r, at + 4, "a counter type winperf.h does not define");
    if (c->size != 0 && c->size != 4 && c->size != 8)
        return fail(&p->r, at + 20, "a counter size that is not 4 or 8");
    if (c->scale < -10 || c->scale > 10)
        return fail(&p->r, at + 16, "a default scale outside -10..10");
    if (c->unit >= PL_UNIT_KIND_COUNT || c->semantics >= PL_SEM_COUNT)
        return fail(&p->r, at + 24, "an unknown unit or semantics");
    if (!(c->unit_scale >= 0 && c->unit_scale < 1e30))
        return fail(&p->r, at + 28, "a unit scale that is not a number in [0, 1e30)");
    if (get_str(p, 2, PL_DEFS_MAX_NAME, &c->name, "a counter name past its bound or the end")
        || get_str(p, 4, PL_DEFS_MAX_HELP, &c->help, "a counter help text past its bound or the end"))
        return EINVAL;
    if (!p->out && c->name == NULL)
        c->name = "";
    return 0;
}

/* Ids unique, bases that name a counter of the set (checked on pass 2's
 * filled counters; pass 1 checks the same from a scratch copy). */
static int check_ids(dparse *p, const pl_counter_def *cs, uint32_t n, size_t at)
{
    for (uint32_t i = 0; i < n; i++) {
        int base_found = cs[i].base_id == PL_NO_ID;
        for (uint32_t j = 0; j < n; j++) {
            if (j != i && cs[j].id == cs[i].id)
                return fail(&p->r, at, "two counters of a set with one id");
            base_found |= cs[j].id == cs[i].base_id && j != i;
        }
        if (!base_found)
            return fail(&p->r, at, "a base id that names no counter of the set");
    }
    return 0;
}

static int get_set(dparse *p, pl_counterset_def *cs, pl_counter_def *scratch)
{
    size_t at = p->off;
    if (need(p, 28, "a set definition runs past the end"))
        return EINVAL;
    pl_counterset_def tmp;
    if (!cs)
        cs = &tmp;
    memset(cs, 0, sizeof *cs);
    pl_guid_get(p->r.p + p->off, &cs->guid);
    p->off += 16;
    cs->instance_type = get32(p);
    cs->index = get32(p);
    cs->ncounters = get32(p);
    if (cs->instance_type != PERF_COUNTERSET_SINGLE_INSTANCE && cs->instance_type != PERF_COUNTERSET_MULTI_INSTANCES)
        return fail(&p->r, at + 16, "an unknown instance type");
    if (cs->ncounters == 0 || cs->ncounters > PL_DEFS_MAX_COUNTERS)
        return fail(&p->r, at + 24, "a set with no counters or more than 4096");
    if (get_str(p, 2, PL_DEFS_MAX_NAME, &cs->name, "a set name past its bound or the end")
        || get_str(p, 4, PL_DEFS_MAX_HELP, &cs->help, "a set help text past its bound or the end"))
        return EINVAL;
    if (p->out && cs->name[0] == '\0')
        return fail(&p->r, at + 28, "a set without a name");
    pl_counter_def *cd = p->out ? p->next_counter : scratch;
    for (uint32_t c = 0; c < cs->ncounters; c++) {
        if (get_counter(p, &cd[c]))
            return EINVAL;
        if (p->out && cd[c].name[0] == '\0')
            return fail(&p->r, p->off, "a counter without a name");
    }
    if (check_ids(p, cd, cs->ncounters, at))
        return EINVAL;
    cs->counters = cd;
    if (p->out)
        p->next_counter += cs->ncounters;
    p->ncounters += cs->ncounters;
    return 0;
}

static int parse(dparse *p, pl_counter_def *scratch)
{
    if (need(p, 8, "definitions shorter than their head"))
        return EINVAL;
    if (get32(p) != PL_DEFS_MAGIC)
        return fail(&p->r, 0, "not perflib definitions (magic)");
    uint32_t n = get32(p);
    if (n > PL_DEFS_MAX_SETS)
        return fail(&p->r, 4, "more than 4096 sets");
    for (uint32_t i = 0; i < n; i++) {
        if (get_set(p, p->out ? &p->out->sets[i] : NULL, scratch))
            return EINVAL;
        for (uint32_t j = 0; p->out && j < i; j++)
            if (pl_guid_equal(&p->out->sets[j].guid, &p->out->sets[i].guid))
                return fail(&p->r, p->off, "one set defined twice");
    }
    if (p->off != p->r.len)
        return fail(&p->r, p->off, "bytes after the last set");
    if (p->out)
        p->out->nsets = n;
    return 0;
}

int pl_defs_read(const void *buf, size_t len, pl_defs **out, pl_db_error *err)
{
    *out = NULL;
    pl_counter_def *scratch = malloc(PL_DEFS_MAX_COUNTERS * sizeof *scratch);
    if (!scratch)
        return ENOMEM;
    dparse p = { { buf, len, err, 0 }, 0, NULL, NULL, NULL, 0, 0 };
    int e = parse(&p, scratch);                 /* pass 1: checks, sizes */
    free(scratch);
    if (e)
        return e;
    uint32_t nsets = pl_r32((const uint8_t *)buf + 4);
    size_t size = sizeof(pl_defs) + nsets * sizeof(pl_counterset_def) + p.ncounters * sizeof(pl_counter_def)
                  + p.nbytes;
    pl_defs *d = calloc(1, size);
    if (!d)
        return ENOMEM;
    d->sets = (pl_counterset_def *)(void *)(d + 1);
    dparse q = { { buf, len, err, 0 }, 0, d, (pl_counter_def *)(void *)(d->sets + nsets), NULL, 0, 0 };
    q.strings = (char *)(q.next_counter + p.ncounters);
    e = parse(&q, NULL);                        /* pass 2: fills (and checks names) */
    if (e) {
        free(d);
        return e;
    }
    *out = d;
    return 0;
}

void pl_defs_free(pl_defs *d) { free(d); }

static int same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

int pl_defs_same(const pl_counterset_def *a, const pl_counterset_def *b)
{
    if (a == b)
        return 1;
    if (!pl_guid_equal(&a->guid, &b->guid) || a->ncounters != b->ncounters || a->instance_type != b->instance_type
        || !same_str(a->name, b->name))
        return 0;
    for (uint32_t i = 0; i < a->ncounters; i++) {
        const pl_counter_def *x = &a->counters[i], *y = &b->counters[i];
        if (x->id != y->id || x->type != y->type || x->base_id != y->base_id || x->size != y->size
            || x->scale != y->scale || !same_str(x->name, y->name))
            return 0;
    }
    return 1;
}

/* ---- the encoder ------------------------------------------------------- */

struct pl_logenc {
    const pl_counterset_def **told;      /* the sets described (their definitions as given) */
    size_t ntold, captold;
    const pl_counterset_def **fresh;     /* the last encode's new ones, until commit */
    size_t nfresh, capfresh;
    uint8_t *buf;
    size_t cap;
};

pl_logenc *pl_logenc_new(void) { return calloc(1, sizeof(pl_logenc)); }

void pl_logenc_free(pl_logenc *e)
{
    if (!e)
        return;
    free(e->told);
    free(e->fresh);
    free(e->buf);
    free(e);
}

void pl_logenc_reset(pl_logenc *e)
{
    e->ntold = 0;
    e->nfresh = 0;
}


/* 1 when cs (this definition, or the same under its GUID) was described. */
static int told(const pl_logenc *e, const pl_counterset_def *cs)
{
    for (size_t i = e->ntold; i-- > 0;)
        if (e->told[i] == cs)
            return 1;
    for (size_t i = e->ntold; i-- > 0;)
        if (pl_guid_equal(&e->told[i]->guid, &cs->guid))
            return pl_defs_same(e->told[i], cs);
    return 0;
}

static int is_fresh(const pl_logenc *e, const pl_counterset_def *cs)
{
    for (size_t i = 0; i < e->nfresh; i++)
        if (pl_guid_equal(&e->fresh[i]->guid, &cs->guid))
            return 1;
    return 0;
}

int pl_logenc_encode(pl_logenc *e, const pl_sample *s, pl_log_rec recs[2], int *n)
{
    *n = 0;
    e->nfresh = 0;
    for (uint32_t i = 0; i < s->nblocks; i++) {
        const pl_counterset_def *cs = s->blocks[i].cs;
        if (!cs || told(e, cs) || is_fresh(e, cs))
            continue;
        if (pl_grow((void **)&e->fresh, &e->capfresh, e->nfresh + 1, sizeof *e->fresh))
            return ENOMEM;
        e->fresh[e->nfresh++] = cs;
    }
    size_t dn = e->nfresh ? pl_defs_write(e->fresh, (uint32_t)e->nfresh, NULL, 0) : 0;
    size_t bn = pl_db_size(s, 1);
    if (dn > PL_LOG_MAX_RECORD || bn > PL_LOG_MAX_RECORD)
        return EFBIG;
    if (pl_grow((void **)&e->buf, &e->cap, ALIGN8(dn) + bn, 1))
        return ENOMEM;
    if (dn) {
        pl_defs_write(e->fresh, (uint32_t)e->nfresh, e->buf, dn);
        recs[(*n)++] = (pl_log_rec){ PL_LOG_DEFS, e->buf, dn, 0 };
    }
    pl_db_write(s, 1, e->buf + ALIGN8(dn), bn);
    recs[(*n)++] = (pl_log_rec){ PL_LOG_DATA, e->buf + ALIGN8(dn), bn, s->time100ns };
    return 0;
}

int pl_logenc_commit(pl_logenc *e)
{
    for (size_t i = 0; i < e->nfresh; i++) {
        size_t k;
        for (k = 0; k < e->ntold; k++)           /* a changed set replaces its old definition */
            if (pl_guid_equal(&e->told[k]->guid, &e->fresh[i]->guid))
                break;
        if (k == e->ntold && pl_grow((void **)&e->told, &e->captold, e->ntold + 1, sizeof *e->told))
            return ENOMEM;
        e->told[k] = e->fresh[i];
        if (k == e->ntold)
            e->ntold++;
    }
    e->nfresh = 0;
    return 0;
}
