/* Reading a mapped application segment in place (appseg.h).  The provider
 * writes this memory while it is read, so nothing is trusted twice: each
 * field is loaded once and checked in a local, names are copied before they
 * are checked, and an instance counts only when its record's seq is the same
 * even number before and after its name and values were loaded. */
#include "pl_provider.h"
#include "appseg.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define GEN_OFF 16u              /* appseg_hdr.generation */
#define WALK_TRIES 3

/* Loads from the shared mapping: one access each, as the writer stores them
 * (aligned, so single-copy atomic). */
static inline uint64_t ld64(const uint8_t *p) { return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_RELAXED); }
static inline uint32_t ld32(const uint8_t *p) { return __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_RELAXED); }
static inline uint64_t ld64_acq(const uint8_t *p)
{
    return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_ACQUIRE);
}

void pl_appseg_cursor_free(pl_appseg_cursor *c)
{
    free(c->ent);
    memset(c, 0, sizeof *c);
}

/* One instance's values into vals/have; 1 when its record still had seq
 * after they were loaded (else they may be another instance's). */
static inline __attribute__((always_inline)) int live_values(const uint8_t *rec, uint64_t seq, const pl_appseg_def *d, const uint8_t *wanted,
                       uint64_t *vals, uint8_t *have)
{
    const uint8_t *area = rec + sizeof(appseg_rec) + APPSEG_INST_HDR;
    uint32_t nc = d->cs.ncounters;
    if (d->all8 && !wanted) {
        for (uint32_t c = 0; c < nc; c++)
            vals[c] = ld64(area + d->offset[c]);
    } else {
        for (uint32_t c = 0; c < nc; c++) {
            have[c] = !wanted || wanted[c];
            if (have[c])
                vals[c] = d->ref[c] || d->counters[c].size == 8 ? ld64(area + d->offset[c]) : ld32(area + d->offset[c]);
        }
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return ld64(rec) == seq;
}

static int cursor_add(pl_appseg_cursor *cur, uint32_t off, uint64_t seq)
{
    if (cur->ninst == cur->cap) {
        uint32_t cap = cur->cap ? cur->cap * 2 : 64;
        pl_appseg_ent *e = realloc(cur->ent, cap * sizeof *e);
        if (!e)
            return ENOMEM;
        cur->ent = e;
        cur->cap = cap;
    }
    cur->ent[cur->ninst++] = (pl_appseg_ent){ off, seq };
    return 0;
}

/* The instance record at off (rsize bytes, checked to fit) into snap. */
static int live_instance(const uint8_t *map, uint32_t off, uint32_t rsize, const pl_appseg_def *d,
                         const uint8_t *wanted, uint64_t key, pl_snapshot *snap, pl_appseg_cursor *cur, char *msg,
                         size_t size)
{
    const uint8_t *rec = map + off;
    char name[PERF_MAX_INSTANCE_NAME];
    uint64_t seq = ld64_acq(rec);
    if (seq % 2)
        return 0;                        /* changing: left out */
    uint32_t n8off = ld32(rec + 16), n8len = ld32(rec + 20), id = ld32(rec + sizeof(appseg_rec) + 20);
    int fits = rsize >= sizeof(appseg_rec) + APPSEG_INST_HDR + d->area + 8 &&
               n8off >= sizeof(appseg_rec) + APPSEG_INST_HDR + d->area && n8len < sizeof name &&
               n8off <= rsize - 8 && rsize - 8 - n8off >= n8len + 1;
    if (fits)
        memcpy(name, rec + n8off, n8len + 1);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (ld64(rec) != seq)
        return 0;                        /* changed while read: left out */
    if (!fits)
        return pl_say(EPROTO, msg, size, "set '%s': instance record at %u has its name outside it", d->cs.name,
                      (unsigned)off);
    int ok = name[n8len] == '\0' && (n8len || d->cs.instance_type == PERF_COUNTERSET_SINGLE_INSTANCE);
    for (uint32_t i = 0; ok && i < n8len; i++)
        ok = (unsigned char)name[i] >= 0x20 && name[i] != 0x7f;
    if (!ok)
        return pl_say(EPROTO, msg, size, "set '%s': instance record at %u has a bad name", d->cs.name, (unsigned)off);
    if (d->cs.instance_type == PERF_COUNTERSET_SINGLE_INSTANCE) {
        if (snap->ninst)
            return pl_say(EPROTO, msg, size, "single-instance set '%s' has more than one instance", d->cs.name);
        name[0] = '\0';
    }
    int k = pl_snap_add_key(snap, name, id, key);
    if (k < 0)
        return ENOMEM;
    size_t at = (size_t)k * d->cs.ncounters;
    if (!live_values(rec, seq, d, wanted, snap->values + at, snap->have + at)) {
        pl_snap_drop_last(snap);
        return 0;
    }
    return cursor_add(cur, off, seq);
}

/* Every record from the header on: snap and the cursor anew.  The header is
 * checked in a copy whose bytes-in-use is the one value the caller loaded
 * (the provider may append meanwhile; its new records wait for the next
 * read). */
static int walk(const uint8_t *map, size_t len, uint64_t in_use, const pl_appseg_def *d, const uint8_t *wanted,
                uint64_t key, pl_snapshot *snap, pl_appseg_cursor *cur, char *msg, size_t size)
{
    size_t used;
    uint32_t ordinal = APPSEG_KIND_FREE;
    uint8_t hdr[APPSEG_HDR_SIZE];
    memcpy(hdr, map, sizeof hdr);
    memcpy(hdr + offsetof(appseg_hdr, size), &in_use, sizeof in_use);
    int e = pl_appseg_check_header(hdr, len, &used, msg, size);
    cur->ninst = 0;
    for (size_t off = APPSEG_HDR_SIZE; !e && off < used;) {
        if (used - off < sizeof(appseg_rec) + 8)
            return pl_say(EPROTO, msg, size, "record at %zu is cut short", off);
        uint32_t kind = ld32(map + off + 8), rsize = ld32(map + off + 12);
        if (rsize % 8 || rsize < sizeof(appseg_rec) + 8 || rsize > used - off)
            return pl_say(EPROTO, msg, size, "record at %zu says it has %u bytes", off, (unsigned)rsize);
        if (kind == APPSEG_KIND_SET) {
            appseg_guid g;               /* set records never change once their size is in the header */
            if (used - off < sizeof(appseg_set) + 8)
                return pl_say(EPROTO, msg, size, "set record at %zu is cut short", off);
            memcpy(&g, map + off + offsetof(appseg_set, guid), sizeof g);
            if (memcmp(&g, &d->cs.guid, sizeof g) == 0) {
                if (!pl_appseg_same_set(map, used, off, d))
                    return pl_say(EPROTO, msg, size, "set '%s' in this segment is not the one registered", d->cs.name);
                ordinal = ld32(map + off + offsetof(appseg_set, ordinal));
            }
        } else if (kind == ordinal) {
            e = live_instance(map, (uint32_t)off, rsize, d, wanted, key, snap, cur, msg, size);
        }
        off += rsize;
    }
    if (!e && ordinal == APPSEG_KIND_FREE)
        return ENOENT;
    cur->used = used;
    return e;
}

/* reread's loop for the common layout (every counter 8 bytes, in id order,
 * all wanted): one copy of each instance's values, as pread would make it
 * (each value is one aligned 8-byte store of the writer's, whole in any
 * copy).  No record's seq is needed: the caller checks the header's
 * generation, which the writer makes odd before any record changes hands. */
static void reread_contig(const uint8_t *map, const pl_appseg_ent *ent, uint32_t ninst, uint32_t nc, uint64_t *vals)
{
    const size_t area = sizeof(appseg_rec) + APPSEG_INST_HDR;
    for (uint32_t i = 0; i < ninst; i++, vals += nc) {
        const uint8_t *src = map + ent[i].off + area;
        uint32_t c = 0;
        for (; c + 2 <= nc; c += 2)
            __builtin_memcpy(vals + c, src + 8 * c, 16);    /* fixed size: inline moves */
        if (c < nc)
            __builtin_memcpy(vals + c, src + 8 * c, 8);
    }
}

/* The instances of the last walk again, their values loaded anew: 0, or -1
 * when one of them changed (then snap is cleared). */
static int reread(const uint8_t *map, size_t len, const pl_appseg_def *d, const uint8_t *wanted, pl_snapshot *snap,
                  pl_appseg_cursor *cur)
{
    uint32_t nc = d->cs.ncounters;
    if (cur->used > len || pl_snap_restore(snap, cur->ninst, cur->names_len, cur->stamp) != 0)
        return -1;
    if (d->contig && !wanted) {
        reread_contig(map, cur->ent, cur->ninst, nc, snap->values);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (ld64(map + GEN_OFF) != cur->gen) {
            pl_snap_clear(snap);         /* an instance came or went meanwhile */
            return -1;
        }
        if (!cur->have_all && cur->ninst)   /* the kept flags are the last read's */
            memset(snap->have, 1, (size_t)cur->ninst * nc);
        cur->have_all = 1;
        return 0;
    }
    for (uint32_t i = 0; i < cur->ninst; i++) {
        const uint8_t *rec = map + cur->ent[i].off;
        size_t at = (size_t)i * nc;
        if (ld64_acq(rec) != cur->ent[i].seq ||
            !live_values(rec, cur->ent[i].seq, d, wanted, snap->values + at, snap->have + at)) {
            pl_snap_clear(snap);
            return -1;
        }
    }
    if (d->all8 && !wanted && cur->ninst)
        memset(snap->have, 1, (size_t)cur->ninst * nc);
    cur->have_all = d->all8 && !wanted;
    return 0;
}

int pl_appseg_take_live(const uint8_t *map, size_t len, const pl_appseg_def *d, const uint8_t *wanted,
                        uint64_t key, pl_snapshot *snap, pl_appseg_cursor *cur, char *msg, size_t size)
{
    int e = 0;
    if (wanted && !memchr(wanted, 0, d->cs.ncounters))
        wanted = NULL;                   /* every counter: the fast copy may serve */
    if (len < APPSEG_HDR_SIZE)
        return pl_appseg_check_header(map, len, &(size_t){ 0 }, msg, size);
    uint64_t g0 = ld64_acq(map + GEN_OFF);
    if (ld64_acq(map + offsetof(appseg_hdr, size)) > len)
        return EAGAIN;                   /* grown past the mapping (or lying): map it again */
    if (cur->valid && cur->snap == snap && cur->gen == g0 && reread(map, len, d, wanted, snap, cur) == 0)
        return 0;
    for (int t = 0; t < WALK_TRIES; t++) {
        uint64_t in_use = ld64_acq(map + offsetof(appseg_hdr, size));
        if (in_use > len)
            return EAGAIN;
        cur->valid = 0;
        pl_snap_clear(snap);
        e = walk(map, len, in_use, d, wanted, key, snap, cur, msg, size);
        if (d->all8 && !wanted && !e && snap->ninst)
            memset(snap->have, 1, (size_t)snap->ninst * d->cs.ncounters);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint64_t g1 = ld64(map + GEN_OFF);
        if (g1 == g0) {                  /* no instance came or went: the next read may reuse this walk */
            cur->valid = !e && g0 % 2 == 0;   /* a walk during a change is not kept */
            cur->have_all = d->all8 && !wanted;
            cur->snap = snap;
            cur->stamp = snap->stamp;
            cur->gen = g0;
            cur->names_len = snap->names_len;
            return e;
        }
        if (!e || e == ENOMEM)
            return e;                    /* each instance was whole; the walk just is not reusable */
        g0 = g1;                         /* an error while the provider changed things: look again */
    }
    return e;
}
