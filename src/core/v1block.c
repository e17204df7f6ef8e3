/* Samples as PerfLib V1 PERF_DATA_BLOCKs (pl_v1.h): the writer and the
 * validator and the reader.  One walk sizes and writes; one walk validates,
 * and the reader only trusts what the validator passed. */
#include "pl_v1.h"
#include "pl_wr.h"

#include <stdlib.h>

#define EXT_TAIL 24u                    /* values, instances, time, size, mark */
#define MAX_NAME_BYTES (2u * PL_DB_MAX_INSTANCE_NAME)

/* ---------------------------------------------------------------- writing */

static uint32_t vsize(const pl_counter_def *d)
{
    return d->size == 4 ? 4 : 8;
}

/* Index in its counterset of the base counter d's values are divided by, or -1. */
static int base_index(const pl_counterset_def *cs, const pl_counter_def *d)
{
    if (d->base_id == PL_NO_ID)
        return -1;
    size_t i = (size_t)(d - cs->counters) + 1;   /* a base is nearly always defined right after */
    if (i < cs->ncounters && cs->counters[i].id == d->base_id)
        return (int)i;
    return pl_counter_index(cs, d->base_id);
}

/* Where a value of this size goes in a PERF_COUNTER_BLOCK whose values so
 * far end at *end: its natural alignment, so 8-byte values are 8-aligned. */
static uint32_t place(uint32_t *end, uint32_t size)
{
    uint32_t off = (*end + size - 1) & ~(size - 1);
    *end = off + size;
    return off;
}

static void definition(wr *w, const pl_counterset_def *cs, const pl_counter_def *d, uint32_t off)
{
    uint32_t title = pl_counter_title_index(cs, d);
    put32(w, PL_V1_COUNTER_DEF);
    put32(w, title);
    put32(w, 0);                          /* CounterNameTitle: no pointer on the wire */
    put32(w, title + 1);
    put32(w, 0);
    put32(w, (uint32_t)d->scale);
    put32(w, d->detail);
    put32(w, d->type);
    put32(w, vsize(d));
    put32(w, off);
}

/* Where result counter c's value (and its base's, if it has one) sit in a
 * PERF_COUNTER_BLOCK: worked out once per object, read once per instance. */
typedef struct slot {
    uint32_t off, boff;                 /* boff 0: no base definition */
    uint8_t size, bsize;
} slot;
#define MAX_SLOTS 512u                  /* more counters than that: worked out again per instance */

static inline slot slot_of(const pl_sample *s, const pl_block *b, uint32_t c, uint32_t *end)
{
    const pl_counter_def *d = pl_sample_counter(s, b, c);
    int bx = base_index(b->cs, d);
    slot l = { 0, 0, (uint8_t)vsize(d), 0 };
    l.off = place(end, l.size);
    if (bx >= 0) {
        l.bsize = (uint8_t)vsize(&b->cs->counters[bx]);
        l.boff = place(end, l.bsize);
    }
    return l;
}

/* The counter definitions of result b, each base right after its counter,
 * and the slots of the first MAX_SLOTS; returns how many definitions and
 * the PERF_COUNTER_BLOCK length they make. */
static uint32_t definitions(wr *w, const pl_sample *s, const pl_block *b, slot *slots, uint32_t *blen)
{
    uint32_t end = PL_V1_COUNTER_BLOCK, n = 0;
    for (uint32_t c = 0; c < b->ncounters; c++) {
        const pl_counter_def *d = pl_sample_counter(s, b, c);
        slot l = slot_of(s, b, c, &end);
        if (c < MAX_SLOTS)
            slots[c] = l;
        definition(w, b->cs, d, l.off);
        n++;
        if (l.bsize) {
            definition(w, b->cs, &b->cs->counters[base_index(b->cs, d)], l.boff);
            n++;
        }
    }
    *blen = (uint32_t)ALIGN8(end);
    return n;
}

static void put_value(uint8_t *p, uint32_t size, uint64_t v)
{
    if (size == 4)
        pl_w32(p, (uint32_t)v);
    else
        pl_w64(p, v);
}

/* Instance i's PERF_COUNTER_BLOCK: values where definitions() put them, zero
 * padding (sizing, or a block that does not fit whole: only its length counts). */
static void counter_block(wr *w, const pl_sample *s, const pl_block *b, uint32_t i, const slot *slots,
                          uint32_t blen)
{
    uint8_t *p = at(w, w->off, blen);
    w->off += blen;
    if (!p)
        return;
    memset(p, 0, blen);
    pl_w32(p, blen);
    uint32_t end = PL_V1_COUNTER_BLOCK;
    int cached = b->ncounters <= MAX_SLOTS;
    const pl_pair *v = s->vals + b->vals_off + (size_t)i * b->ncounters;
    const uint8_t *h = s->have + b->vals_off + (size_t)i * b->ncounters;
    for (uint32_t c = 0; c < b->ncounters; c++) {
        slot l = cached ? slots[c] : slot_of(s, b, c, &end);
        put_value(p + l.off, l.size, PL_HAVE_VALUE(h[c]) ? v[c].v : 0);
        if (l.bsize)
            put_value(p + l.boff, l.bsize, h[c] == 1 ? v[c].b : 0);
    }
}

/* Windows' parent references (PERF_INSTANCE_DEFINITION.ParentObjectTitleIndex
 * and ParentObjectInstance): a child set, its counter that holds the parent
 * instance's id, and the parent set.  A Thread names its Process by pid. */
static const struct {
    const char *child, *counter, *parent;
} parents[] = {
    { "Thread", "ID Process", "Process" },
};

/* Where result b's instances find their parents: the parent object written
 * in the same block and b's counter holding the parent id; pb NULL: none. */
typedef struct parent_ref {
    const pl_block *pb;
    uint32_t c, hint;
} parent_ref;

static parent_ref parent_of(const pl_sample *s, const pl_block *b)
{
    parent_ref r = { NULL, 0, 0 };
    for (size_t k = 0; k < sizeof parents / sizeof parents[0]; k++) {
        if (strcmp(b->cs->name, parents[k].child) != 0)
            continue;
        for (r.c = 0; r.c < b->ncounters && strcmp(pl_sample_counter(s, b, r.c)->name, parents[k].counter); r.c++)
            ;
        for (uint32_t j = 0; r.c < b->ncounters && !r.pb && j < s->nblocks; j++)
            if (s->blocks[j].shape != PERF_ERROR_RETURN && !strcmp(s->blocks[j].cs->name, parents[k].parent))
                r.pb = &s->blocks[j];
    }
    return r;
}

/* Instance i's parent: its index in the parent object (children come grouped
 * by parent, so the last match is tried first), or -1 when it has none there. */
static int64_t parent_index(const pl_sample *s, const pl_block *b, uint32_t i, parent_ref *r)
{
    size_t x = b->vals_off + (size_t)i * b->ncounters + r->c;
    if (!r->pb || !PL_HAVE_VALUE(s->have[x]))
        return -1;
    uint64_t id = s->vals[x].v;
    for (uint32_t k = 0, n = r->pb->ninst; k < n; k++) {
        uint32_t j = (r->hint + k) % n;
        if (pl_sample_inst_id(s, r->pb, j) == id) {
            r->hint = j;
            return j;
        }
    }
    return -1;
}

static void instance_def(wr *w, const pl_sample *s, const pl_block *b, uint32_t i, parent_ref *pr)
{
    uint16_t name[PL_DB_MAX_INSTANCE_NAME];
    size_t n = pl_db_instance_name(pl_sample_inst_name(s, b, i), name);
    uint32_t nbytes = (uint32_t)(2 * (n + 1));
    int64_t p = parent_index(s, b, i, pr);
    put32(w, (uint32_t)ALIGN8(PL_V1_INSTANCE_DEF + nbytes));
    put32(w, p < 0 ? 0 : pr->pb->cs->index); /* ParentObjectTitleIndex: 0, no parent here */
    put32(w, p < 0 ? 0 : (uint32_t)p);     /* ParentObjectInstance: its 0-based instance */
    put32(w, pl_sample_inst_id(s, b, i)); /* PL_NO_ID is PERF_NO_UNIQUE_ID */
    put32(w, PL_V1_INSTANCE_DEF);
    put32(w, nbytes);
    uint8_t *p8 = at(w, w->off, nbytes);
    for (size_t k = 0; p8 && k <= n; k++)
        pl_w16(p8 + 2 * k, name[k]);
    w->off += nbytes;
    pad8(w);
}

/* perflib's extension: instance keys (part of an instance's identity: a
 * process that changes its name is still the same one), presence flags and
 * the result's own time. */
static void extension(wr *w, const pl_sample *s, const pl_block *b, uint32_t ninst)
{
    size_t start = w->off, n = (size_t)ninst * b->ncounters;
    for (uint32_t i = 0; i < ninst; i++)
        put64(w, pl_sample_inst_key(s, b, i));
    put_bytes(w, s->have + b->vals_off, n);
    pad8(w);
    put32(w, (uint32_t)n);
    put32(w, ninst);
    put64(w, (uint64_t)b->time);
    put32(w, (uint32_t)(w->off + 8 - start));
    put32(w, PL_V1_EXT);
}

static void object(wr *w, const pl_sample *s, const pl_block *b, unsigned flags)
{
    size_t start = w->off;
    int single = b->cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE && b->ninst == 1;
    int32_t ninst = flags & PL_V1_METADATA ? (single ? PERF_METADATA_NO_INSTANCES : PERF_METADATA_MULTIPLE_INSTANCES)
                    : single ? PERF_NO_INSTANCES : (int32_t)b->ninst;
    uint32_t blen;
    slot slots[MAX_SLOTS];
    w->off += PL_V1_OBJECT_TYPE;
    uint32_t ndefs = definitions(w, s, b, slots, &blen);
    size_t deflen = w->off - start;
    if (!(flags & PL_V1_METADATA)) {
        parent_ref pr = parent_of(s, b);
        for (uint32_t i = 0; i < b->ninst; i++) {
            if (!single)
                instance_def(w, s, b, i, &pr);
            counter_block(w, s, b, i, slots, blen);
        }
        if (!(flags & PL_V1_PLAIN))
            extension(w, s, b, b->ninst);
    }
    /* an object clock when the set keeps one, else the result's own read time */
    int obj = b->obj_freq != 0;
    wr h = { w->buf, start, w->cap };
    put32(&h, (uint32_t)(w->off - start));
    put32(&h, (uint32_t)deflen);
    put32(&h, PL_V1_OBJECT_TYPE);
    put32(&h, b->cs->index);
    put32(&h, 0);
    put32(&h, b->cs->index + 1);
    put32(&h, 0);
    put32(&h, PERF_DETAIL_NOVICE);
    put32(&h, ndefs);
    put32(&h, 0);                         /* DefaultCounter */
    put32(&h, (uint32_t)ninst);
    put32(&h, 0);                         /* CodePage 0: names are UTF-16 */
    put64(&h, (uint64_t)(obj ? b->obj_time : b->time));
    put64(&h, (uint64_t)(obj ? b->obj_freq : s->perf_freq));
}

/* The system name after the PERF_DATA_BLOCK; returns HeaderLength. */
static size_t begin(wr *w, const char *sysname, size_t *name)
{
    *name = sysname ? pl_db_put_utf16(NULL, sysname) : 0;
    if (*name && at(w, w->off, *name))
        pl_db_put_utf16(w->buf + w->off, sysname);
    w->off += *name;
    pad8(w);
    return w->off;
}

/* The PERF_DATA_BLOCK, its times s's; returns the block's size. */
static size_t finish(wr *w, const pl_sample *s, size_t name, size_t hlen, uint32_t nobj, uint32_t first)
{
    if (at(w, 0, PL_V1_DATA_BLOCK)) {
        static const uint16_t sig[4] = { 'P', 'E', 'R', 'F' };
        for (int k = 0; k < 4; k++)
            pl_w16(w->buf + 2 * k, sig[k]);
        pl_w32(w->buf + 8, 1);            /* LittleEndian */
        pl_w32(w->buf + 12, PERF_DATA_VERSION);
        pl_w32(w->buf + 16, PERF_DATA_REVISION);
        pl_w32(w->buf + 20, (uint32_t)w->off);
        pl_w32(w->buf + 24, (uint32_t)hlen);
        pl_w32(w->buf + 28, nobj);
        pl_w32(w->buf + 32, first);       /* DefaultObject */
        pl_db_system_time(w->buf + 36, s->time100ns);
        pl_w32(w->buf + 52, 0);
        pl_w64(w->buf + 56, (uint64_t)s->perf_time);
        pl_w64(w->buf + 64, (uint64_t)s->perf_freq);
        pl_w64(w->buf + 72, (uint64_t)s->time100ns);
        pl_w32(w->buf + 80, (uint32_t)name);
        pl_w32(w->buf + 84, name ? PL_V1_DATA_BLOCK : 0);
    }
    return w->off;
}

size_t pl_v1_write(const pl_sample *s, const char *sysname, unsigned flags, void *buf, size_t cap)
{
    wr w = { buf, PL_V1_DATA_BLOCK, cap };
    uint32_t nobj = 0, first = 0;
    size_t name, hlen = begin(&w, sysname, &name);
    for (uint32_t k = 0; k < s->nblocks; k++) {
        const pl_block *b = &s->blocks[k];
        if (b->shape == PERF_ERROR_RETURN)
            continue;                     /* a failed provider returns no object */
        if (!nobj++)
            first = b->cs->index;
        object(&w, s, b, flags);
    }
    return finish(&w, s, name, hlen, nobj, first);
}

size_t pl_v1_write_metadata(const pl_query *q, const char *sysname, void *buf, size_t cap)
{
    wr w = { buf, PL_V1_DATA_BLOCK, cap };
    pl_sample s = { 0 };
    uint32_t nobj = pl_query_count(q), first = 0;
    size_t name, hlen = begin(&w, sysname, &name);
    pl_now(&s.perf_time, &s.perf_freq, &s.time100ns);
    for (uint32_t k = 0; k < nobj; k++) {
        /* a result of the definitions alone: its set, its counters, no values */
        const pl_spec *sp = pl_query_spec(q, k);
        int single = sp->cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE;
        pl_block b = { .cs = sp->cs, .ncounters = sp->ncounters, .ninst = single ? 1u : 0u, .time = s.perf_time };
        s.cidx = sp->counters;
        if (!k)
            first = sp->cs->index;
        object(&w, &s, &b, PL_V1_METADATA);
    }
    return finish(&w, &s, name, hlen, nobj, first);
}

/* ---------------------------------------------------------------- validating */

int pl_v1_is_block(const void *buf, size_t len)
{
    return buf && len >= 8 && memcmp(buf, "P\0E\0R\0F\0", 8) == 0;
}

static int check_header(rd *r, uint32_t *total_, uint32_t *hlen_, uint32_t *nobj_)
{
    const uint8_t *p = r->p;
    if (!p || r->len < PL_V1_DATA_BLOCK)
        return fail(r, 0, "buffer smaller than PERF_DATA_BLOCK");
    if (!pl_v1_is_block(p, r->len))
        return fail(r, 0, "Signature is not \"PERF\" in UTF-16");
    if (pl_r32(p + 8) != 1)
        return fail(r, 8, "LittleEndian is not 1");
    if (pl_r32(p + 12) != PERF_DATA_VERSION)
        return fail(r, 12, "Version is not PERF_DATA_VERSION (1)");
    uint32_t total = pl_r32(p + 20), hlen = pl_r32(p + 24), nobj = pl_r32(p + 28);
    uint32_t nlen = pl_r32(p + 80), noff = pl_r32(p + 84);
    if (total % 8 || total > r->len)
        return fail(r, 20, "TotalByteLength not a multiple of 8 or larger than the buffer");
    if (hlen < PL_V1_DATA_BLOCK || hlen % 8 || hlen > total)
        return fail(r, 24, "HeaderLength below 88, not a multiple of 8 or past TotalByteLength");
    if (nlen && (nlen % 2 || noff < PL_V1_DATA_BLOCK || (uint64_t)noff + nlen > hlen))
        return fail(r, 80, "system name outside the header or of an odd length");
    if (nobj > (total - hlen) / PL_V1_OBJECT_TYPE)
        return fail(r, 28, "NumObjectTypes more than TotalByteLength holds");
    *total_ = total;
    *hlen_ = hlen;
    *nobj_ = nobj;
    return 0;
}

/* The counter definitions of the object at o: their walk ends at DefinitionLength. */
static int check_defs(rd *r, size_t o, uint32_t hlen, uint32_t deflen, uint32_t ndefs)
{
    size_t d = o + hlen, end = o + deflen;
    if (ndefs > (deflen - hlen) / PL_V1_COUNTER_DEF)
        return fail(r, o + 32, "NumCounters more than DefinitionLength holds");
    for (uint32_t j = 0; j < ndefs; j++) {
        /* room first: an earlier long definition can leave d at the end */
        uint32_t bl = end - d < PL_V1_COUNTER_DEF ? 0 : pl_r32(r->p + d);
        if (bl < PL_V1_COUNTER_DEF || bl % 4 || bl > end - d)
            return fail(r, d, "PERF_COUNTER_DEFINITION ByteLength below 40, unaligned or past DefinitionLength");
        d += bl;
    }
    if (d != end)
        return fail(r, d, "DefinitionLength does not end at the last PERF_COUNTER_DEFINITION");
    return 0;
}

/* A PERF_COUNTER_BLOCK at *o: every counter of the object inside it. */
static int check_block(rd *r, size_t *o, size_t end, size_t defs, uint32_t ndefs)
{
    if (end - *o < 8)
        return fail(r, *o, "PERF_COUNTER_BLOCK does not fit in its object");
    uint32_t bl = pl_r32(r->p + *o);
    if (bl < 4 || (bl % 8 && !r->lax_align) || bl > end - *o)
        return fail(r, *o, "PERF_COUNTER_BLOCK ByteLength below 4, not a multiple of 8 or past its object");
    for (uint32_t j = 0; j < ndefs; j++) {
        uint64_t off = pl_r32(r->p + defs + 36), size = pl_r32(r->p + defs + 32);
        if (off + size > bl)
            return fail(r, defs + 36, "CounterOffset + CounterSize past its PERF_COUNTER_BLOCK");
        defs += pl_r32(r->p + defs);
    }
    *o += bl;
    return 0;
}

static int check_name(rd *r, size_t o, uint32_t bl)
{
    uint32_t noff = pl_r32(r->p + o + 16), nlen = pl_r32(r->p + o + 20);
    if (nlen == 0)
        return 0;                         /* an unnamed instance: UniqueID names it */
    if (nlen % 2 || noff < PL_V1_INSTANCE_DEF || noff > bl || nlen > bl - noff)
        return fail(r, o + 16, "instance name outside its PERF_INSTANCE_DEFINITION or of an odd length");
    uint16_t u[PL_DB_MAX_INSTANCE_NAME];
    size_t k, units = nlen / 2;
    for (k = 0; k < units && k < PL_DB_MAX_INSTANCE_NAME; k++)
        if ((u[k] = pl_r16(r->p + o + noff + 2 * k)) == 0)
            break;
    if (k == PL_DB_MAX_INSTANCE_NAME)
        return fail(r, o + noff, "instance name longer than PERF_MAX_INSTANCE_NAME");
    if (k == units)
        return fail(r, o + noff, "instance name not terminated within NameLength");
    if (pl_utf16_to_utf8(u, k, NULL, 0) < 0)
        return fail(r, o + noff, "instance name is not valid UTF-16 (an unpaired surrogate)");
    return 0;
}

static int check_instances(rd *r, size_t *o, size_t end, int32_t ninst, size_t defs, uint32_t ndefs)
{
    int e;
    if ((uint32_t)ninst > (end - *o) / (PL_V1_INSTANCE_DEF + 4))
        return fail(r, *o, "NumInstances more than the object holds");
    for (int32_t i = 0; i < ninst; i++) {
        if (end - *o < PL_V1_INSTANCE_DEF)
            return fail(r, *o, "PERF_INSTANCE_DEFINITION does not fit in its object");
        uint32_t bl = pl_r32(r->p + *o);
        if (bl < PL_V1_INSTANCE_DEF || (bl % 8 && !r->lax_align) || bl > end - *o)
            return fail(r, *o, "PERF_INSTANCE_DEFINITION ByteLength below 24, not a multiple of 8 or past its object");
        if ((e = check_name(r, *o, bl)))
            return e;
        *o += bl;
        if ((e = check_block(r, o, end, defs, ndefs)))
            return e;
    }
    return 0;
}

/* perflib's extension at the end of the object [.., end), if it has one: its offset or 0. */
static int check_ext(rd *r, size_t o, size_t end, size_t *ext)
{
    *ext = 0;
    if (end - o < EXT_TAIL || pl_r32(r->p + end - 4) != PL_V1_EXT)
        return 0;                         /* padding, or another writer's bytes */
    uint32_t size = pl_r32(r->p + end - 8), n = pl_r32(r->p + end - 24), ni = pl_r32(r->p + end - 20);
    if (size != end - o || 8ull * ni + ALIGN8((uint64_t)n) + EXT_TAIL != size)
        return fail(r, end - 8, "PLV1 extension size does not match the rest of its object");
    for (size_t k = o + 8ull * ni; k < o + 8ull * ni + n; k++)
        if (r->p[k] > PL_HAVE_NO_ACCESS)
            return fail(r, k, "PLV1 presence flag out of range");
    *ext = o;
    return 0;
}

static int check_object(rd *r, size_t o, size_t limit, size_t *ext)
{
    const uint8_t *p = r->p + o;
    if (limit - o < PL_V1_OBJECT_TYPE)
        return fail(r, o, "PERF_OBJECT_TYPE does not fit in TotalByteLength");
    uint32_t total = pl_r32(p), deflen = pl_r32(p + 4), hlen = pl_r32(p + 8), ndefs = pl_r32(p + 32);
    int32_t ninst = (int32_t)pl_r32(p + 40);
    int e;
    if (total < PL_V1_OBJECT_TYPE || (total % 8 && !r->lax_align) || total > limit - o)
        return fail(r, o, "PERF_OBJECT_TYPE TotalByteLength below 64, not a multiple of 8 or past the block");
    if (hlen < PL_V1_OBJECT_TYPE || hlen > total)
        return fail(r, o + 8, "PERF_OBJECT_TYPE HeaderLength below 64 or past its object");
    if (deflen < hlen || deflen > total || (deflen % 8 && !r->lax_align))
        return fail(r, o + 4, "DefinitionLength below HeaderLength, past its object or not a multiple of 8");
    if ((e = check_defs(r, o, hlen, deflen, ndefs)))
        return e;
    size_t q = o + deflen, end = o + total;
    if (ninst == PERF_NO_INSTANCES)
        e = check_block(r, &q, end, o + hlen, ndefs);
    else if (ninst >= 0)
        e = check_instances(r, &q, end, ninst, o + hlen, ndefs);
    else if (ninst != PERF_METADATA_MULTIPLE_INSTANCES && ninst != PERF_METADATA_NO_INSTANCES)
        return fail(r, o + 40, "NumInstances negative and not -1, -2 or -3");
    return e ? e : check_ext(r, q, end, ext);
}

/* Validates the whole block; objs (may be NULL, nobj long) receives each
 * object's offset and its extension's (0 if none). */
static int check_all(rd *r, size_t *objs, size_t *exts)
{
    uint32_t total, hlen, nobj;
    int e = check_header(r, &total, &hlen, &nobj);
    if (e)
        return e;
    size_t o = hlen;
    for (uint32_t k = 0; k < nobj; k++) {
        size_t ext;
        if ((e = check_object(r, o, total, &ext)))
            return e;
        if (objs) {
            objs[k] = o;
            exts[k] = ext;
        }
        o += pl_r32(r->p + o);
    }
    if (o != total)
        return fail(r, o, "TotalByteLength does not end at the last PERF_OBJECT_TYPE");
    return 0;
}

int pl_v1_validate(const void *buf, size_t len, pl_db_error *err)
{
    rd r = { buf, len, err, 0 };
    return check_all(&r, NULL, NULL);
}

int pl_v1_validate_objects(const void *buf, size_t len, uint32_t nobj, unsigned flags,
                           pl_db_error *err)
{
    rd r = { buf, len, err, (flags & PL_V1_LAX_ALIGN) != 0 };
    size_t o = 0, ext;
    int e;
    if (!buf && len)
        return fail(&r, 0, "no buffer");
    if (nobj > len / PL_V1_OBJECT_TYPE)
        return fail(&r, 0, "more objects returned than the bytes hold");
    for (uint32_t k = 0; k < nobj; k++) {
        if ((e = check_object(&r, o, len, &ext)))
            return e;
        o += pl_r32(r.p + o);
    }
    if (o != len)
        return fail(&r, o, "the returned length does not end at the last PERF_OBJECT_TYPE");
    return 0;
}

/* ---------------------------------------------------------------- reading */

/* What the reader makes of one object. */
typedef struct v1map {
    const pl_counterset_def *cs;
    size_t obj, ext;                    /* offsets of the object and of its extension (0: none) */
    uint32_t first;                     /* its first definition in the per-definition arrays */
    uint32_t ndefs, nres;               /* definitions; result counters (bases left out) */
    uint32_t ninst;                     /* instances as the sample has them */
    size_t names;                       /* UTF-8 bytes of its instance names with their NULs */
} v1map;

/* Definition j's role: its counter index, and base (1) of the result counter before it. */
typedef struct v1def {
    uint32_t cx;
    uint8_t base;
} v1def;

/* An instance's name at the PERF_INSTANCE_DEFINITION at o (validated) as
 * UTF-8 into out (cap bytes); returns the bytes it needs without the NUL. */
static size_t inst_name(const rd *r, size_t o, char *out, size_t cap)
{
    uint16_t u[PL_DB_MAX_INSTANCE_NAME];
    size_t n = 0, units = pl_r32(r->p + o + 20) / 2, noff = pl_r32(r->p + o + 16);
    while (n < units && (u[n] = pl_r16(r->p + o + noff + 2 * n)) != 0)
        n++;
    long l = pl_utf16_to_utf8(u, n, out, cap);
    return l < 0 ? 0 : (size_t)l;
}

/* Finds the object's counterset and each definition's counter. */
static int map_object(rd *r, const pl_env *env, v1map *m, v1def *defs)
{
    const uint8_t *p = r->p + m->obj;
    const pl_counter_def *c;
    int help;
    int32_t ni = (int32_t)pl_r32(p + 40);
    if (pl_env_lookup_index(env, pl_r32(p + 12), &m->cs, &c, &help) || !m->cs || c || help)
        return fail(r, m->obj + 12, "ObjectNameTitleIndex names no registered counterset");
    if (ni < PERF_NO_INSTANCES)
        return fail(r, m->obj + 40, "a metadata-only object has no values: it cannot become a sample");
    size_t d = m->obj + pl_r32(p + 8);
    int want_base = -1;                 /* the counter index the next definition may be the base of */
    m->nres = 0;
    for (uint32_t j = 0; j < m->ndefs; j++, d += pl_r32(r->p + d)) {
        const pl_counterset_def *cs;
        uint32_t size = pl_r32(r->p + d + 32);
        if (pl_env_lookup_index(env, pl_r32(r->p + d + 4), &cs, &c, &help) || cs != m->cs || !c || help)
            return fail(r, d + 4, "CounterNameTitleIndex names no counter of its object's counterset");
        if (size != 4 && size != 8)
            return fail(r, d + 32, "CounterSize of a perflib counter is not 4 or 8");
        defs[j].cx = (uint32_t)(c - cs->counters);
        defs[j].base = want_base >= 0 && c->id == cs->counters[want_base].base_id;
        want_base = -1;
        if (!defs[j].base) {
            m->nres++;
            if (c->base_id != PL_NO_ID)
                want_base = (int)defs[j].cx;
        }
    }
    m->ninst = ni == PERF_NO_INSTANCES ? 1 : (uint32_t)ni;
    size_t end = m->obj + pl_r32(p);
    if (m->ext && (pl_r32(r->p + end - EXT_TAIL) != (uint64_t)m->ninst * m->nres
                   || pl_r32(r->p + end - EXT_TAIL + 4) != m->ninst))
        return fail(r, end - EXT_TAIL, "PLV1 extension holds other than one key per instance and one flag per value");
    return 0;
}

/* The instances of object m: names sized, or (s set) stored from *ni on. */
static void walk_instances(const rd *r, v1map *m, pl_sample *s, size_t ii, size_t *ni)
{
    const uint8_t *p = r->p + m->obj;
    size_t o = m->obj + pl_r32(p + 4);
    int single = (int32_t)pl_r32(p + 40) == PERF_NO_INSTANCES;
    m->names = 0;
    for (uint32_t i = 0; i < m->ninst; i++) {
        size_t l = 0;
        if (!single) {
            l = inst_name(r, o, s ? s->names + *ni : NULL, s ? SIZE_MAX : 0);
            if (s) {
                s->inst[ii + i].id = pl_r32(r->p + o + 12);
                s->inst[ii + i].key = m->ext ? pl_r64(r->p + m->ext + 8u * i) : 0;
                s->inst[ii + i].name_off = (uint32_t)*ni;
            }
            o += pl_r32(r->p + o);
        } else if (s) {
            s->names[*ni] = '\0';
            s->inst[ii + i] = (pl_inst){ 0, (uint32_t)*ni, m->ext ? pl_r64(r->p + m->ext + 8u * i) : 0 };
        }
        if (s)
            *ni += l + 1;
        m->names += l + 1;
        o += pl_r32(r->p + o);                /* the PERF_COUNTER_BLOCK */
    }
}

/* The values of object m, instance by instance: a result counter's value,
 * and its base from the definition after it; object timers take the object clock. */
static void take_values(const rd *r, const v1map *m, const v1def *defs, pl_sample *s, pl_block *b)
{
    const uint8_t *p = r->p + m->obj;
    size_t o = m->obj + pl_r32(p + 4), vi = b->vals_off;
    int single = (int32_t)pl_r32(p + 40) == PERF_NO_INSTANCES;
    for (uint32_t i = 0; i < m->ninst; i++) {
        if (!single)
            o += pl_r32(r->p + o);
        size_t d = m->obj + pl_r32(p + 8), v = vi;
        for (uint32_t j = 0; j < m->ndefs; j++, d += pl_r32(r->p + d)) {
            const uint8_t *q = r->p + o + pl_r32(r->p + d + 36);
            uint64_t x = pl_r32(r->p + d + 32) == 8 ? pl_r64(q) : pl_r32(q);
            if (defs[j].base) {
                s->vals[v - 1].b = x;
                s->have[v - 1] = 1;
                continue;
            }
            const pl_counter_def *c = &m->cs->counters[defs[j].cx];
            s->vals[v].v = x;
            s->vals[v].b = (c->type & 0x300000u) == PERF_OBJECT_TIMER ? (uint64_t)b->obj_time : 0;
            /* a counter whose base did not come along has no base, as a collect marks it */
            s->have[v] = c->base_id != PL_NO_ID ? PL_HAVE_NO_BASE : 1;
            v++;
        }
        o += pl_r32(r->p + o);
        vi += m->nres;
    }
    if (m->ext)
        memcpy(s->have + b->vals_off, r->p + m->ext + 8u * m->ninst, (size_t)m->ninst * m->nres);
}

/* Validates, maps every object and sizes the sample: 0 or EINVAL/ENOMEM. */
static int map_all(rd *r, const pl_env *env, uint32_t nobj, v1map *maps, v1def **defs_)
{
    size_t *objs = calloc(2 * (size_t)(nobj ? nobj : 1), sizeof *objs);
    size_t ndefs = 0;
    int e = objs ? check_all(r, objs, objs + nobj) : ENOMEM;
    for (uint32_t k = 0; !e && k < nobj; k++) {
        maps[k].obj = objs[k];
        maps[k].ext = objs[nobj + k];
        maps[k].first = (uint32_t)ndefs;
        maps[k].ndefs = pl_r32(r->p + objs[k] + 32);
        ndefs += maps[k].ndefs;
    }
    free(objs);
    v1def *defs = e ? NULL : calloc(ndefs ? ndefs : 1, sizeof *defs);
    if (!e && !defs)
        e = ENOMEM;
    for (uint32_t k = 0; !e && k < nobj; k++)
        if (!(e = map_object(r, env, &maps[k], defs + maps[k].first)))
            walk_instances(r, &maps[k], NULL, 0, NULL);
    if (e)
        free(defs);
    *defs_ = e ? NULL : defs;
    return e;
}

static void fill_block(const rd *r, const pl_sample *s, const v1map *m, pl_block *b, uint32_t k)
{
    const uint8_t *p = r->p + m->obj;
    int multi = m->cs->instance_type != PERF_COUNTERSET_SINGLE_INSTANCE;
    memset(b, 0, sizeof *b);
    b->uid = k;
    b->index = k;
    b->shape = multi ? (m->nres == 1 ? PERF_MULTIPLE_INSTANCES : PERF_COUNTERSET)
                     : (m->nres == 1 ? PERF_SINGLE_COUNTER : PERF_MULTIPLE_COUNTERS);
    b->status = PL_VALID;
    b->cs = m->cs;
    b->ncounters = m->nres;
    b->ninst = m->ninst;
    b->obj_time = (int64_t)pl_r64(p + 48);
    b->obj_freq = (int64_t)pl_r64(p + 56);
    /* the result's own time from perflib's extension, else the block's clock, as Windows has it */
    b->time = m->ext ? (int64_t)pl_r64(p + pl_r32(p) - 16) : s->perf_time;
}

int pl_v1_read(pl_env *env, const void *buf, size_t len, pl_alloc_fn alloc, void *ud, pl_sample **out,
               pl_db_error *err)
{
    rd r = { buf, len, err, 0 };
    uint32_t total, hlen, nobj;
    v1def *defs = NULL;
    *out = NULL;
    int e = check_header(&r, &total, &hlen, &nobj);
    if (e)
        return e;
    v1map *maps = calloc(nobj ? nobj : 1, sizeof *maps);
    if (!maps)
        return ENOMEM;
    if ((e = map_all(&r, env, nobj, maps, &defs))) {
        free(maps);
        return e;
    }
    size_t ncidx = 0, ninst = 0, nvals = 0, nnames = 0;
    for (uint32_t k = 0; k < nobj; k++) {
        ncidx += maps[k].nres;
        ninst += maps[k].ninst;
        nvals += (size_t)maps[k].nres * maps[k].ninst;
        nnames += maps[k].names + 2;      /* and the filter */
    }
    pl_sample *s = pl_db_sample_alloc(alloc, ud, nobj, ncidx, ninst, nvals, nnames + 1);
    if (!s) {
        free(maps);
        free(defs);
        return ENOMEM;
    }
    s->perf_time = (int64_t)pl_r64(r.p + 56);
    s->perf_freq = (int64_t)pl_r64(r.p + 64);
    s->time100ns = (int64_t)pl_r64(r.p + 72);
    size_t ci = 0, ii = 0, vi = 0, ni = 1;
    for (uint32_t k = 0; k < nobj; k++) {
        v1map *m = &maps[k];
        pl_block *b = &s->blocks[k];
        fill_block(&r, s, m, b, k);
        b->counters_off = (uint32_t)ci;
        b->inst_off = (uint32_t)ii;
        b->vals_off = vi;
        b->filter_off = (uint32_t)ni;
        const char *filter = m->cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE ? "" : "*";
        memcpy(s->names + ni, filter, strlen(filter) + 1);
        ni += strlen(filter) + 1;
        for (uint32_t j = 0; j < m->ndefs; j++)
            if (!defs[m->first + j].base)
                s->cidx[ci++] = defs[m->first + j].cx;
        walk_instances(&r, m, s, ii, &ni);
        take_values(&r, m, defs + m->first, s, b);
        ii += m->ninst;
        vi += (size_t)m->ninst * m->nres;
    }
    free(maps);
    free(defs);
    *out = s;
    return 0;
}
