/* Samples as PerfLib V2 data blocks and back (pl_datablock.h).  One walk
 * writes and sizes a block; one walk validates, and the reader only trusts
 * what the validator passed. */
#include "pl_wr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRAILER_HEAD 72u                /* fixed part of a block trailer */
#define TRAILER_TAIL 8u                 /* u32 size, u32 magic at the very end */
#define TRAILER_TIME 8u                 /* the result's own time, before the tail (absent in older blocks) */
#define SAMPLE_TRAILER 24u
#define MAX_COUNTERS 65536u             /* per block: far more than any counterset has */
#define MAX_INSTANCES (1u << 24)

/* ---------------------------------------------------------------- writing */

/* The shape a result has on the wire: single-instance shapes need exactly one instance. */
static uint32_t shape_on_wire(uint32_t shape, uint32_t ninst)
{
    if (shape == PERF_SINGLE_COUNTER || shape == PERF_MULTIPLE_COUNTERS) {
        if (ninst == 0)
            return PERF_ERROR_RETURN;
        if (ninst > 1)
            return shape == PERF_SINGLE_COUNTER ? PERF_MULTIPLE_INSTANCES : PERF_COUNTERSET;
    }
    return shape;
}

static uint32_t wire_shape(const pl_block *b)
{
    return shape_on_wire(b->shape, b->ninst);
}

static uint32_t wire_status(const pl_block *b, uint32_t shape)
{
    if (shape != PERF_ERROR_RETURN)
        return 0;
    if (b->shape != PERF_ERROR_RETURN || b->status == PL_NO_INSTANCE)
        return PL_WIN_ERROR_WMI_INSTANCE_NOT_FOUND;
    switch (b->err) {
    case ENOENT: return PL_WIN_ERROR_FILE_NOT_FOUND;
    case EACCES: case EPERM: return PL_WIN_ERROR_ACCESS_DENIED;
    case ENOMEM: return PL_WIN_ERROR_NOT_ENOUGH_MEMORY;
    default: return PL_WIN_ERROR_INVALID_DATA;
    }
}

static void counter_data(wr *w, const pl_sample *s, const pl_block *b, uint32_t i, uint32_t c)
{
    size_t k = b->vals_off + (size_t)i * b->ncounters + c;
    uint32_t size = pl_sample_counter(s, b, c)->size == 4 ? 4 : 8;
    int have = PL_HAVE_VALUE(s->have[k]);
    put32(w, have ? size : 0);
    put32(w, PL_DB_COUNTER_DATA + 8);
    uint64_t v = have ? s->vals[k].v : 0;
    put64(w, size == 4 ? (v & 0xFFFFFFFFu) : v);
}

static void multi_counters(wr *w, const pl_sample *s, const pl_block *b)
{
    put32(w, (uint32_t)ALIGN8(PL_DB_MULTI + 4u * b->ncounters));
    put32(w, b->ncounters);
    for (uint32_t c = 0; c < b->ncounters; c++)
        put32(w, pl_sample_counter(s, b, c)->id);
    pad8(w);
}

size_t pl_db_instance_name(const char *utf8, uint16_t name[PL_DB_MAX_INSTANCE_NAME])
{
    size_t n = pl_utf8_to_utf16(utf8, name, PL_DB_MAX_INSTANCE_NAME);
    if (n >= PL_DB_MAX_INSTANCE_NAME)          /* cut at PERF_MAX_INSTANCE_NAME: as far as it went */
        for (n = 0; name[n]; n++)
            ;
    return n;
}

static void instance_header_of(wr *w, uint32_t id, const char *utf8)
{
    uint16_t name[PL_DB_MAX_INSTANCE_NAME];
    size_t n = pl_db_instance_name(utf8, name);
    uint32_t size = (uint32_t)ALIGN8(PL_DB_INSTANCE_HEADER + 2 * (n + 1));
    put32(w, size);
    put32(w, id);
    for (size_t k = 0; k <= n; k++) {
        uint8_t *p = at(w, w->off, 2);
        if (p)
            pl_w16(p, name[k]);
        w->off += 2;
    }
    pad8(w);
}

static void instance_header(wr *w, const pl_sample *s, const pl_block *b, uint32_t i)
{
    instance_header_of(w, pl_sample_inst_id(s, b, i), pl_sample_inst_name(s, b, i));
}

size_t pl_db_put_instance(void *buf, uint32_t id, const char *name)
{
    wr w = { buf, 0, buf ? SIZE_MAX : 0 };     /* the caller sized it */
    instance_header_of(&w, id, name);
    return w.off;
}

/* perflib's trailer: what the standard part leaves out. */
static void trailer(wr *w, const pl_sample *s, const pl_block *b)
{
    size_t start = w->off, nvals = (size_t)b->ninst * b->ncounters;
    const char *filter = s->names + b->filter_off, *errp = b->err_path ? b->err_path : "";
    size_t names_len = 0;
    for (uint32_t i = 0; i < b->ninst; i++)
        names_len += strlen(pl_sample_inst_name(s, b, i)) + 1;
    uint8_t *g = at(w, w->off, 16);
    if (g)
        pl_guid_put(g, &b->cs->guid);
    w->off += 16;
    put32(w, b->uid);
    put32(w, b->index);
    put32(w, b->shape);
    put32(w, (uint32_t)b->status);
    put32(w, (uint32_t)b->err);
    put32(w, b->ncounters);
    put32(w, b->ninst);
    put32(w, (uint32_t)strlen(filter));
    put64(w, (uint64_t)b->obj_time);
    put64(w, (uint64_t)b->obj_freq);
    put32(w, (uint32_t)strlen(errp));
    put32(w, (uint32_t)names_len);
    for (uint32_t c = 0; c < b->ncounters; c++)
        put32(w, pl_sample_counter(s, b, c)->id);
    pad8(w);
    for (uint32_t i = 0; i < b->ninst; i++) {
        put32(w, pl_sample_inst_id(s, b, i));
        put32(w, 0);
        put64(w, pl_sample_inst_key(s, b, i));
    }
    for (size_t k = 0; k < nvals; k++)
        put64(w, s->vals[b->vals_off + k].b);
    put_bytes(w, s->have + b->vals_off, nvals);
    put_bytes(w, filter, strlen(filter));
    put_bytes(w, errp, strlen(errp));
    for (uint32_t i = 0; i < b->ninst; i++) {
        const char *n = pl_sample_inst_name(s, b, i);
        put_bytes(w, n, strlen(n) + 1);
    }
    pad8(w);
    put64(w, (uint64_t)b->time);
    put32(w, (uint32_t)(w->off + TRAILER_TAIL - start));
    put32(w, PL_DB_EXT);
}

static void counter_block(wr *w, const pl_sample *s, const pl_block *b, int ext)
{
    size_t start = w->off;
    uint32_t shape = wire_shape(b);
    put32(w, wire_status(b, shape));
    put32(w, shape);
    put32(w, 0);                          /* dwSize, set below */
    put32(w, ext ? PL_DB_EXT : 0);
    if (shape == PERF_SINGLE_COUNTER) {
        counter_data(w, s, b, 0, 0);
    } else if (shape == PERF_MULTIPLE_COUNTERS) {
        multi_counters(w, s, b);
        for (uint32_t c = 0; c < b->ncounters; c++)
            counter_data(w, s, b, 0, c);
    } else if (shape == PERF_MULTIPLE_INSTANCES || shape == PERF_COUNTERSET) {
        if (shape == PERF_COUNTERSET)
            multi_counters(w, s, b);
        size_t mi = w->off;
        put32(w, 0);                      /* dwTotalSize, set below */
        put32(w, b->ninst);
        for (uint32_t i = 0; i < b->ninst; i++) {
            instance_header(w, s, b, i);
            for (uint32_t c = 0; c < (shape == PERF_COUNTERSET ? b->ncounters : 1u); c++)
                counter_data(w, s, b, i, c);
        }
        patch32(w, mi, (uint32_t)(w->off - mi));
    }
    if (ext)
        trailer(w, s, b);
    patch32(w, start + 8, (uint32_t)(w->off - start));
}

void pl_db_system_time(uint8_t *p, int64_t t100)
{
    /* FILETIME (100 ns since 1601) to SYSTEMTIME in UTC */
    /* the time may come from an untrusted block: no overflow whatever it says */
    int64_t unix100 = t100 < INT64_MIN + 116444736000000000LL ? INT64_MIN : t100 - 116444736000000000LL;
    time_t sec = (time_t)(unix100 / 10000000);
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!gmtime_r(&sec, &tm))
        memset(&tm, 0, sizeof tm);       /* a year gmtime cannot hold: all zero */
    uint16_t f[8] = { (uint16_t)(tm.tm_year + 1900), (uint16_t)(tm.tm_mon + 1), (uint16_t)tm.tm_wday,
                      (uint16_t)tm.tm_mday, (uint16_t)tm.tm_hour, (uint16_t)tm.tm_min, (uint16_t)tm.tm_sec,
                      (uint16_t)((unix100 % 10000000) / 10000) };
    for (int k = 0; k < 8; k++)
        pl_w16(p + 2 * k, f[k]);
}

static size_t emit(const pl_sample *s, int ext, uint8_t *buf, size_t cap)
{
    wr w = { buf, PL_DB_DATA_HEADER, cap };
    for (uint32_t k = 0; k < s->nblocks; k++)
        counter_block(&w, s, &s->blocks[k], ext);
    if (ext) {
        put32(&w, PL_DB_SAMPLE);
        put32(&w, SAMPLE_TRAILER);
        put64(&w, s->query_id);
        put64(&w, s->seq);
    }
    if (at(&w, 0, PL_DB_DATA_HEADER)) {
        pl_w32(buf, (uint32_t)w.off);
        pl_w32(buf + 4, s->nblocks);
        pl_w64(buf + 8, (uint64_t)s->perf_time);
        pl_w64(buf + 16, (uint64_t)s->time100ns);
        pl_w64(buf + 24, (uint64_t)s->perf_freq);
        pl_db_system_time(buf + 32, s->time100ns);
    }
    return w.off;
}

size_t pl_db_size(const pl_sample *s, int ext)
{
    return emit(s, ext, NULL, 0);
}

size_t pl_db_write(const pl_sample *s, int ext, void *buf, size_t cap)
{
    return emit(s, ext, buf, cap);
}

/* ---------------------------------------------------------------- validating */

/* A PERF_COUNTER_DATA at *o inside [.., end): checks and steps over it. */
static int check_counter_data(rd *r, size_t *o, size_t end)
{
    if (end - *o < PL_DB_COUNTER_DATA)
        return fail(r, *o, "PERF_COUNTER_DATA does not fit in its block");
    uint32_t data = pl_r32(r->p + *o), size = pl_r32(r->p + *o + 4);
    if (size < PL_DB_COUNTER_DATA + 8 || size % 8)
        return fail(r, *o + 4, "PERF_COUNTER_DATA dwSize below 16 or not a multiple of 8");
    if (size > end - *o)
        return fail(r, *o + 4, "PERF_COUNTER_DATA dwSize runs past its block");
    if (data != 0 && data != 4 && data != 8)
        return fail(r, *o, "PERF_COUNTER_DATA dwDataSize is not 0, 4 or 8");
    if (data > size - PL_DB_COUNTER_DATA)
        return fail(r, *o, "PERF_COUNTER_DATA dwDataSize larger than its block");
    *o += size;
    return 0;
}

static int check_multi_counters(rd *r, size_t *o, size_t end, uint32_t *n)
{
    if (end - *o < PL_DB_MULTI)
        return fail(r, *o, "PERF_MULTI_COUNTERS does not fit in its block");
    uint32_t size = pl_r32(r->p + *o);
    *n = pl_r32(r->p + *o + 4);
    if (size < PL_DB_MULTI || size % 8 || size > end - *o)
        return fail(r, *o, "PERF_MULTI_COUNTERS dwSize below 8, not a multiple of 8 or past its block");
    if (*n == 0 || *n > MAX_COUNTERS || (size - PL_DB_MULTI) / 4 < *n)
        return fail(r, *o + 4, "PERF_MULTI_COUNTERS dwCounters is 0 or more than its ids hold");
    *o += size;
    return 0;
}

static int check_instance_header(rd *r, size_t *o, size_t end)
{
    if (end - *o < PL_DB_INSTANCE_HEADER)
        return fail(r, *o, "PERF_INSTANCE_HEADER does not fit in its block");
    uint32_t size = pl_r32(r->p + *o);
    if (size < PL_DB_INSTANCE_HEADER + 8 || size % 8 || size > end - *o)
        return fail(r, *o, "PERF_INSTANCE_HEADER Size below 16, not a multiple of 8 or past its block");
    size_t units = (size - PL_DB_INSTANCE_HEADER) / 2, k;
    for (k = 0; k < units; k++)
        if (pl_r16(r->p + *o + PL_DB_INSTANCE_HEADER + 2 * k) == 0)
            break;
    if (k == units)
        return fail(r, *o + PL_DB_INSTANCE_HEADER, "instance name not terminated inside its block");
    if (k >= PL_DB_MAX_INSTANCE_NAME)
        return fail(r, *o + PL_DB_INSTANCE_HEADER, "instance name longer than PERF_MAX_INSTANCE_NAME");
    *o += size;
    return 0;
}

/* What the standard part of a counter block holds. */
typedef struct view {
    uint32_t shape, ncounters, ninst;
    size_t ids;                         /* offset of the counter ids (multi counters), or 0 */
    size_t body, end;                   /* the standard part */
    size_t trailer;                     /* offset of perflib's trailer, or 0 */
    size_t tsize;
    size_t time;                        /* offset of the result's own time, or 0 (the header's) */
} view;

static int check_body(rd *r, view *v)
{
    size_t o = v->body, end = v->end;
    uint32_t n;
    int e;
    v->ncounters = 1;
    v->ninst = v->shape == PERF_ERROR_RETURN ? 0 : 1;
    switch (v->shape) {
    case PERF_ERROR_RETURN:
        v->ncounters = 0;
        break;
    case PERF_SINGLE_COUNTER:
        if ((e = check_counter_data(r, &o, end)))
            return e;
        break;
    case PERF_MULTIPLE_COUNTERS:
        v->ids = o + PL_DB_MULTI;
        if ((e = check_multi_counters(r, &o, end, &n)))
            return e;
        v->ncounters = n;
        for (uint32_t c = 0; c < n; c++)
            if ((e = check_counter_data(r, &o, end)))
                return e;
        break;
    case PERF_MULTIPLE_INSTANCES:
    case PERF_COUNTERSET: {
        if (v->shape == PERF_COUNTERSET) {
            v->ids = o + PL_DB_MULTI;
            if ((e = check_multi_counters(r, &o, end, &n)))
                return e;
            v->ncounters = n;
        }
        if (end - o < PL_DB_MULTI)
            return fail(r, o, "PERF_MULTI_INSTANCES does not fit in its block");
        uint32_t total = pl_r32(r->p + o);
        v->ninst = pl_r32(r->p + o + 4);
        if (total < PL_DB_MULTI || total % 8 || total > end - o)
            return fail(r, o, "PERF_MULTI_INSTANCES dwTotalSize below 8, not a multiple of 8 or past its block");
        size_t mend = o + total;
        if (v->ninst > MAX_INSTANCES || v->ninst > (total - PL_DB_MULTI) / 32)
            return fail(r, o + 4, "PERF_MULTI_INSTANCES dwInstances more than dwTotalSize holds");
        o += PL_DB_MULTI;
        for (uint32_t i = 0; i < v->ninst; i++) {
            if ((e = check_instance_header(r, &o, mend)))
                return e;
            for (uint32_t c = 0; c < v->ncounters; c++)
                if ((e = check_counter_data(r, &o, mend)))
                    return e;
        }
        if (o != mend)
            return fail(r, o, "PERF_MULTI_INSTANCES dwTotalSize does not match its instances");
        break;
    }
    default:
        return fail(r, v->body - 12, "PERF_COUNTER_HEADER dwType is not a result shape (0, 1, 2, 4, 6)");
    }
    if (o != end)
        return fail(r, o, "counter block dwSize does not match its contents");
    return 0;
}

/* perflib's trailer of the block at [start, start + size). */
static int check_trailer(rd *r, size_t start, size_t size, view *v)
{
    size_t end = start + size;
    if (size - PL_DB_COUNTER_HEADER < TRAILER_HEAD + TRAILER_TAIL)
        return fail(r, start + 12, "PLX1 block too small for its trailer");
    uint32_t ts = pl_r32(r->p + end - 8);
    if (pl_r32(r->p + end - 4) != PL_DB_EXT)
        return fail(r, end - 4, "PLX1 block does not end in the PLX1 mark");
    if (ts < TRAILER_HEAD + TRAILER_TAIL || ts % 8 || ts > size - PL_DB_COUNTER_HEADER)
        return fail(r, end - 8, "PLX1 trailer size below its head, not a multiple of 8 or past its block");
    size_t t = end - ts;
    uint32_t shape = pl_r32(r->p + t + 24), status = pl_r32(r->p + t + 28);
    uint32_t nc = pl_r32(r->p + t + 36), ni = pl_r32(r->p + t + 40), flen = pl_r32(r->p + t + 44);
    uint32_t elen = pl_r32(r->p + t + 64), nlen = pl_r32(r->p + t + 68);
    if (shape != PERF_ERROR_RETURN && shape != PERF_SINGLE_COUNTER && shape != PERF_MULTIPLE_COUNTERS
        && shape != PERF_MULTIPLE_INSTANCES && shape != PERF_COUNTERSET)
        return fail(r, t + 24, "trailer shape is not a result shape");
    if (status >= PL_STATUS_COUNT)
        return fail(r, t + 28, "trailer status out of range");
    if (nc > MAX_COUNTERS || ni > MAX_INSTANCES)
        return fail(r, t + 36, "trailer counts out of range");
    /* every part in 64 bits: counts are bounded above, so nothing overflows */
    uint64_t nvals = (uint64_t)nc * ni;
    uint64_t need = TRAILER_HEAD + ALIGN8(4ull * nc) + 16ull * ni + 8 * nvals
                  + ALIGN8(nvals + (uint64_t)flen + elen + nlen) + TRAILER_TAIL;
    /* a block written before results carried their own time lacks it */
    if (need != ts && need + TRAILER_TIME != ts)
        return fail(r, t, "trailer size does not match its counts");
    v->time = need == ts ? 0 : end - TRAILER_TAIL - TRAILER_TIME;
    v->trailer = t;
    v->tsize = ts;
    v->end = t;
    /* the standard part must say the same */
    v->body = start + PL_DB_COUNTER_HEADER;
    int e = check_body(r, v);
    if (e)
        return e;
    if (v->shape == PERF_ERROR_RETURN && ni != 0)
        return fail(r, t + 40, "trailer has instances for a PERF_ERROR_RETURN block");
    /* the trailer's shape must be the one that goes on the wire as this block's */
    if (shape_on_wire(shape, ni) != v->shape)
        return fail(r, t + 24, "trailer shape does not go with the block's dwType");
    if ((shape == PERF_SINGLE_COUNTER || shape == PERF_MULTIPLE_INSTANCES) && nc != 1)
        return fail(r, t + 36, "a one-counter shape with more than one counter");
    if (v->shape != PERF_ERROR_RETURN) {
        if (ni != v->ninst || (v->ids && nc != v->ncounters) || (!v->ids && nc != 1))
            return fail(r, t + 36, "trailer counts differ from the block's");
        if (v->ids)
            for (uint32_t c = 0; c < nc; c++)
                if (pl_r32(r->p + v->ids + 4 * c) != pl_r32(r->p + t + TRAILER_HEAD + 4 * c))
                    return fail(r, v->ids + 4 * c, "counter id differs from the trailer's");
        if (v->shape == PERF_MULTIPLE_INSTANCES || v->shape == PERF_COUNTERSET) {
            /* the instance ids of the headers are the trailer's */
            size_t o = v->body + (v->ids ? pl_r32(r->p + v->body) : 0) + PL_DB_MULTI;
            const uint8_t *ip = r->p + t + TRAILER_HEAD + ALIGN8(4ull * nc);
            for (uint32_t i = 0; i < ni; i++) {
                if (pl_r32(r->p + o + 4) != pl_r32(ip + 16u * i))
                    return fail(r, o + 4, "instance id differs from the trailer's");
                o += pl_r32(r->p + o);
                for (uint32_t c = 0; c < v->ncounters; c++)
                    o += pl_r32(r->p + o + 4);
            }
        }
    }
    size_t have = t + TRAILER_HEAD + ALIGN8(4ull * nc) + 16ull * ni + 8 * nvals;
    for (uint64_t k = 0; k < nvals; k++)
        if (r->p[have + k] > PL_HAVE_NO_ACCESS)
            return fail(r, have + k, "presence flag out of range");
    /* the names: exactly ni NUL-terminated strings */
    size_t names = have + nvals + flen + elen, nul = 0;
    for (size_t k = 0; k < nlen; k++)
        nul += r->p[names + k] == 0;
    if (nul != ni || (nlen && r->p[names + nlen - 1] != 0))
        return fail(r, names, "trailer names are not one NUL-terminated string per instance");
    return 0;
}

/* Validates the whole buffer; views (may be NULL) receives one view per block. */
/* PERF_DATA_HEADER: its total size and block count, checked against the buffer. */
static int check_header(rd *r, uint32_t *total_, uint32_t *n_)
{
    if (!r->p && r->len)
        return fail(r, 0, "NULL buffer");
    if (r->len < PL_DB_DATA_HEADER)
        return fail(r, 0, "buffer smaller than PERF_DATA_HEADER");
    uint32_t total = pl_r32(r->p), n = pl_r32(r->p + 4);
    if (total < PL_DB_DATA_HEADER || total % 8)
        return fail(r, 0, "dwTotalSize below 48 or not a multiple of 8");
    if (total > r->len)
        return fail(r, 0, "dwTotalSize larger than the buffer");
    if (n > (total - PL_DB_DATA_HEADER) / PL_DB_COUNTER_HEADER)
        return fail(r, 4, "dwNumCounters more than dwTotalSize holds");
    *total_ = total;
    *n_ = n;
    return 0;
}

static int check_all(rd *r, view *views, int *all_ext, int *has_sample)
{
    uint32_t total, n;
    int e = check_header(r, &total, &n);
    if (e)
        return e;
    size_t o = PL_DB_DATA_HEADER;
    int ext = 1;
    for (uint32_t k = 0; k < n; k++) {
        view v;
        memset(&v, 0, sizeof v);
        if (total - o < PL_DB_COUNTER_HEADER)
            return fail(r, o, "PERF_COUNTER_HEADER does not fit in dwTotalSize");
        uint32_t size = pl_r32(r->p + o + 8);
        if (size < PL_DB_COUNTER_HEADER || size % 8)
            return fail(r, o + 8, "PERF_COUNTER_HEADER dwSize below 16 or not a multiple of 8");
        if (size > total - o)
            return fail(r, o + 8, "PERF_COUNTER_HEADER dwSize runs past dwTotalSize");
        v.shape = pl_r32(r->p + o + 4);
        if (pl_r32(r->p + o + 12) == PL_DB_EXT) {
            e = check_trailer(r, o, size, &v);
        } else {
            ext = 0;
            v.body = o + PL_DB_COUNTER_HEADER;
            v.end = o + size;
            e = check_body(r, &v);
        }
        if (e)
            return e;
        if (views)
            views[k] = v;
        o += size;
    }
    *has_sample = 0;
    if (o != total) {
        if (!ext || total - o != SAMPLE_TRAILER || pl_r32(r->p + o) != PL_DB_SAMPLE
            || pl_r32(r->p + o + 4) != SAMPLE_TRAILER)
            return fail(r, o, "bytes after the last counter block that are not a PLS1 sample trailer");
        *has_sample = 1;
    }
    *all_ext = ext && (n > 0 || *has_sample);   /* an empty query's block: its sample trailer */
    return 0;
}

int pl_db_validate(const void *buf, size_t len, pl_db_error *err)
{
    rd r = { buf, len, err, 0 };
    int ext, smp;
    return check_all(&r, NULL, &ext, &smp);
}

/* ---------------------------------------------------------------- reading */

static void *std_alloc(void *ud, size_t size)
{
    (void)ud;
    return malloc(size);
}

pl_sample *pl_db_sample_alloc(pl_alloc_fn alloc, void *ud, uint32_t nblocks, size_t ncidx, size_t ninst,
                              size_t nvals, size_t nnames)
{
    size_t o_blocks = ALIGN8(sizeof(pl_sample));
    size_t o_cidx = o_blocks + ALIGN8((size_t)nblocks * sizeof(pl_block));
    size_t o_inst = o_cidx + ALIGN8(ncidx * sizeof(uint32_t));
    size_t o_vals = o_inst + ALIGN8(ninst * sizeof(pl_inst));
    size_t o_have = o_vals + ALIGN8(nvals * sizeof(pl_pair));
    size_t o_names = o_have + ALIGN8(nvals);
    char *mem = (alloc ? alloc : std_alloc)(ud, o_names + nnames);
    if (!mem)
        return NULL;
    pl_sample *s = (pl_sample *)(void *)mem;
    memset(s, 0, sizeof *s);
    s->foreign = 1;                      /* its ids are not this process's: pair by definition */
    s->nblocks = nblocks;
    s->blocks = (pl_block *)(void *)(mem + o_blocks);
    s->cidx = (uint32_t *)(void *)(mem + o_cidx);
    s->inst = (pl_inst *)(void *)(mem + o_inst);
    s->vals = (pl_pair *)(void *)(mem + o_vals);
    s->have = (uint8_t *)(mem + o_have);
    s->names = mem + o_names;
    s->names[0] = '\0';
    return s;
}

/* The raw value of the PERF_COUNTER_DATA at o (validated), and the offset after it. */
static uint64_t take_data(const rd *r, size_t *o)
{
    uint32_t data = pl_r32(r->p + *o);
    uint64_t v = data == 8 ? pl_r64(r->p + *o + 8) : data == 4 ? pl_r32(r->p + *o + 8) : 0;
    *o += pl_r32(r->p + *o + 4);
    return v;
}

int pl_db_read(pl_env *env, const void *buf, size_t len, pl_alloc_fn alloc, void *ud, pl_sample **out,
               pl_db_error *err)
{
    rd r = { buf, len, err, 0 };
    int ext, smp, e;
    *out = NULL;
    /* the header first, so that the count below is the buffer's own */
    uint32_t total, n;
    if ((e = check_header(&r, &total, &n)))
        return e;
    view *views = calloc(n ? n : 1, sizeof *views);
    const pl_counterset_def **sets = calloc(n ? n : 1, sizeof *sets);
    if (!views || !sets) {
        free(views);
        free(sets);
        return ENOMEM;
    }
    e = check_all(&r, views, &ext, &smp);
    if (!e && (!ext || !smp))
        e = fail(&r, PL_DB_DATA_HEADER + 12, "not a perflib block (no PLX1 trailers): it cannot become a sample");
    /* size everything, and find every counterset and counter */
    size_t ncidx = 0, ninst = 0, nvals = 0, nnames = 1;
    for (uint32_t k = 0; !e && k < n; k++) {
        const view *v = &views[k];
        size_t t = v->trailer;
        pl_guid g;
        pl_guid_get(r.p + t, &g);
        sets[k] = pl_env_find_guid(env, &g);
        if (!sets[k]) {
            e = fail(&r, t, "unknown counterset GUID");
            break;
        }
        uint32_t nc = pl_r32(r.p + t + 36), ni = pl_r32(r.p + t + 40);
        for (uint32_t c = 0; c < nc; c++)
            if (pl_counter_index(sets[k], pl_r32(r.p + t + TRAILER_HEAD + 4 * c)) < 0) {
                e = fail(&r, t + TRAILER_HEAD + 4 * c, "unknown counter id for its counterset");
                break;
            }
        if (pl_r32(r.p + t + 24) == PERF_ERROR_RETURN && ni != 0)
            e = fail(&r, t + 40, "an error block with instances");
        ncidx += nc;
        ninst += ni;
        nvals += (size_t)nc * ni;
        nnames += (size_t)pl_r32(r.p + t + 44) + 1 + pl_r32(r.p + t + 64) + 1 + pl_r32(r.p + t + 68);
    }
    if (e) {
        free(views);
        free(sets);
        return e;
    }
    pl_sample *s = pl_db_sample_alloc(alloc, ud, n, ncidx, ninst, nvals, nnames);
    if (!s) {
        free(views);
        free(sets);
        return ENOMEM;
    }
    size_t st = pl_r32(r.p) - SAMPLE_TRAILER;
    s->query_id = pl_r64(r.p + st + 8);
    s->seq = pl_r64(r.p + st + 16);
    s->perf_time = (int64_t)pl_r64(r.p + 8);
    s->time100ns = (int64_t)pl_r64(r.p + 16);
    s->perf_freq = (int64_t)pl_r64(r.p + 24);
    size_t ci = 0, ii = 0, vi = 0, ni = 1;
    for (uint32_t k = 0; k < n; k++) {
        const view *v = &views[k];
        const uint8_t *t = r.p + v->trailer;
        pl_block *b = &s->blocks[k];
        uint32_t nc = pl_r32(t + 36), nins = pl_r32(t + 40), flen = pl_r32(t + 44), elen = pl_r32(t + 64);
        memset(b, 0, sizeof *b);
        b->uid = pl_r32(t + 16);
        b->index = pl_r32(t + 20);
        b->shape = pl_r32(t + 24);
        b->status = (pl_status)pl_r32(t + 28);
        b->err = (int)pl_r32(t + 32);
        b->cs = sets[k];
        b->ncounters = nc;
        b->counters_off = (uint32_t)ci;
        b->ninst = nins;
        b->inst_off = (uint32_t)ii;
        b->vals_off = vi;
        b->obj_time = (int64_t)pl_r64(t + 48);
        b->obj_freq = (int64_t)pl_r64(t + 56);
        b->time = v->time ? (int64_t)pl_r64(r.p + v->time) : s->perf_time;
        for (uint32_t c = 0; c < nc; c++)
            s->cidx[ci++] = (uint32_t)pl_counter_index(sets[k], pl_r32(t + TRAILER_HEAD + 4 * c));
        const uint8_t *ip = t + TRAILER_HEAD + ALIGN8(4u * nc);
        const uint8_t *bp = ip + 16u * nins;
        const uint8_t *hp = bp + 8u * nc * nins;
        const char *sp = (const char *)hp + (size_t)nc * nins;
        b->filter_off = (uint32_t)ni;
        memcpy(s->names + ni, sp, flen);
        s->names[ni + flen] = '\0';
        ni += flen + 1;
        b->err_path = NULL;
        if (elen) {
            memcpy(s->names + ni, sp + flen, elen);
            s->names[ni + elen] = '\0';
            b->err_path = s->names + ni;
        }
        ni += elen + 1;
        const char *np = sp + flen + elen;
        for (uint32_t i = 0; i < nins; i++) {
            size_t l = strlen(np);               /* terminated: the validator counted the NULs */
            s->inst[ii].id = pl_r32(ip + 16u * i);
            s->inst[ii].key = pl_r64(ip + 16u * i + 8);
            s->inst[ii].name_off = (uint32_t)ni;
            memcpy(s->names + ni, np, l + 1);
            ni += l + 1;
            np += l + 1;
            ii++;
        }
        /* the values from the standard part, in one walk: instance by instance, counter by counter */
        int multi = v->shape == PERF_MULTIPLE_INSTANCES || v->shape == PERF_COUNTERSET;
        size_t o = v->body + (v->ids ? pl_r32(r.p + v->body) : 0) + (multi ? PL_DB_MULTI : 0);
        for (uint32_t i = 0; i < nins; i++) {
            if (multi)
                o += pl_r32(r.p + o);                   /* the instance header */
            for (uint32_t c = 0; c < nc; c++, vi++) {
                size_t q = (size_t)i * nc + c;
                s->have[vi] = hp[q];
                s->vals[vi].b = pl_r64(bp + 8 * q);
                s->vals[vi].v = take_data(&r, &o);
            }
        }
    }
    free(views);
    free(sets);
    *out = s;
    return 0;
}
