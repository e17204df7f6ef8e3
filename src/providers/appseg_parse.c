/* Reading an application provider's segment (appseg.h): every header
 * field, record size, count, offset and name is checked against the bytes
 * actually read, since the segment is another program's memory. */
#include "pl_provider.h"
#include "appseg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

int pl_appseg_check_header(const uint8_t *buf, size_t len, size_t *used, char *msg, size_t size)
{
    appseg_hdr h;
    if (len < sizeof h)
        return pl_say(EPROTO, msg, size, "segment of %zu bytes is shorter than its header", len);
    memcpy(&h, buf, sizeof h);
    if (h.magic != APPSEG_MAGIC)
        return pl_say(EPROTO, msg, size, "not a perflib segment (magic %08x)", (unsigned)h.magic);
    if (h.version != APPSEG_VERSION || h.hdr_size != APPSEG_HDR_SIZE)
        return pl_say(EPROTO, msg, size, "segment version %u, header %u bytes: this reader knows version %u",
                   (unsigned)h.version, (unsigned)h.hdr_size, APPSEG_VERSION);
    if (h.size < APPSEG_HDR_SIZE || h.size > len || h.size % 8)
        return pl_say(EPROTO, msg, size, "segment says %llu bytes are used, %zu were read", (unsigned long long)h.size, len);
    if (h.nsets > APPSEG_MAX_SETS || h.pid == 0)
        return pl_say(EPROTO, msg, size, "segment header lies (%u sets, pid %u)", (unsigned)h.nsets, (unsigned)h.pid);
    *used = (size_t)h.size;
    return 0;
}

/* A name field: NUL inside it, no control character, none of the
 * characters counter paths give a meaning to (extra), not empty. */
static int name_ok(const char *s, size_t cap, const char *extra)
{
    size_t n = strnlen(s, cap);
    if (n == 0 || n == cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || strchr(extra, s[i]))
            return 0;
    return 1;
}

/* The unit and semantics a counter declares, into o (its type already
 * there), the undeclared ones from the type: 0, or EPROTO when a text is not
 * one perflib reads or contradicts the type. */
static int counter_units(const appseg_counter *c, pl_counter_def *o, char *msg, size_t size, const char *set)
{
    pl_unit_kind k = PL_UNIT_UNDECLARED;
    pl_semantics sem = PL_SEM_UNDECLARED;
    double scale = 0;
    char why[200];
    if (strnlen(c->unit, sizeof c->unit) == sizeof c->unit || strnlen(c->semantics, sizeof c->semantics) ==
        sizeof c->semantics || (c->unit[0] && pl_unit_parse_scaled(c->unit, &k, &scale) != 0) ||
        (c->semantics[0] && pl_semantics_parse(c->semantics, &sem) != 0))
        return pl_say(EPROTO, msg, size, "set '%s': counter '%s' has a unit or semantics perflib does not know",
                      set, c->name);
    o->unit = (uint8_t)k;                /* what is not declared stays so: derived when used */
    o->semantics = (uint8_t)sem;
    o->unit_scale = scale;
    pl_counter_def whole = *o;
    pl_units_complete(&whole);
    if (pl_units_check(&whole, why, sizeof why) != 0)
        return pl_say(EPROTO, msg, size, "set '%s': %s", set, why);
    return 0;
}

static int counter_ok(const appseg_counter *c, uint32_t area, char *msg, size_t size, const char *set)
{
    if (!name_ok(c->name, sizeof c->name, "\\*?") || strnlen(c->help, sizeof c->help) == sizeof c->help)
        return pl_say(EPROTO, msg, size, "set '%s': counter %u has a bad name or help", set, (unsigned)c->id);
    if (c->id > PL_MAX_COUNTER_ID || !pl_type_known(c->type))
        return pl_say(EPROTO, msg, size, "set '%s': counter '%s' has id %u (at most %u) or unknown type 0x%08x", set,
                   c->name, (unsigned)c->id, PL_MAX_COUNTER_ID, (unsigned)c->type);
    if ((c->size != 4 && c->size != 8) || c->offset % c->size || c->offset > area || area - c->offset < c->size ||
        ((c->attrib & 1u) && c->size != 8) || c->scale < -10 || c->scale > 10)
        return pl_say(EPROTO, msg, size, "set '%s': counter '%s' has size %u at offset %u of %u, scale %d", set, c->name,
                   (unsigned)c->size, (unsigned)c->offset, (unsigned)area, (int)c->scale);
    pl_counter_def o = { .id = c->id, .name = c->name, .type = c->type, .base_id = PL_NO_ID };
    return counter_units(c, &o, msg, size, set);
}

int pl_appseg_check_set(const uint8_t *buf, size_t used, size_t off, char *msg, size_t size)
{
    appseg_set s;
    if (used - off < sizeof s + 8)
        return pl_say(EPROTO, msg, size, "set record at %zu is cut short", off);
    memcpy(&s, buf + off, sizeof s);
    if (s.ncounters == 0 || s.ncounters > APPSEG_MAX_COUNTERS || s.rec.size != APPSEG_SET_REC_SIZE(s.ncounters))
        return pl_say(EPROTO, msg, size, "set record at %zu: %u counters in %u bytes", off, (unsigned)s.ncounters,
                   (unsigned)s.rec.size);
    if (s.rec.seq % 2 || rd64(buf + off + s.rec.size - 8) != s.rec.seq)
        return pl_say(EPROTO, msg, size, "set record at %zu is being written", off);
    if (!name_ok(s.name, sizeof s.name, "\\()*?") || strnlen(s.help, sizeof s.help) == sizeof s.help)
        return pl_say(EPROTO, msg, size, "set record at %zu has a bad name or help", off);
    if (s.ordinal >= APPSEG_MAX_SETS || s.area % 8 || s.area > 0x8008u ||
        (s.instance_type != PERF_COUNTERSET_SINGLE_INSTANCE && s.instance_type != PERF_COUNTERSET_MULTI_INSTANCES))
        return pl_say(EPROTO, msg, size, "set '%s': ordinal %u, area %u, instance type %u", s.name, (unsigned)s.ordinal,
                   (unsigned)s.area, (unsigned)s.instance_type);
    for (uint32_t i = 0; i < s.ncounters; i++) {
        appseg_counter c;
        memcpy(&c, buf + off + sizeof s + i * sizeof c, sizeof c);
        int e = counter_ok(&c, s.area, msg, size, s.name);
        for (uint32_t j = 0; !e && j < i; j++) {
            appseg_counter o;
            memcpy(&o, buf + off + sizeof s + j * sizeof o, sizeof o);
            if (o.id == c.id || strcasecmp(o.name, c.name) == 0)
                e = pl_say(EPROTO, msg, size, "set '%s': two counters with id %u or name '%s'", s.name, (unsigned)c.id,
                        c.name);
        }
        if (e)
            return e;
    }
    return 0;
}

static char *dup_field(const char *s, size_t cap)
{
    return strndup(s, strnlen(s, cap));
}

void pl_appseg_def_free(pl_appseg_def *d)
{
    if (!d)
        return;
    for (uint32_t i = 0; d->counters && i < d->cs.ncounters; i++) {
        free((char *)(uintptr_t)d->counters[i].name);
        free((char *)(uintptr_t)d->counters[i].help);
    }
    free((char *)(uintptr_t)d->cs.name);
    free((char *)(uintptr_t)d->cs.help);
    free(d->counters);
    free(d->offset);
    free(d->ref);
    free(d);
}

pl_appseg_def *pl_appseg_def_new(const appseg_set *s)
{
    const appseg_counter *c = (const appseg_counter *)(s + 1);
    pl_appseg_def *d = calloc(1, sizeof *d);
    uint32_t n = s->ncounters;
    if (!d)
        return NULL;
    memcpy(&d->cs.guid, &s->guid, sizeof d->cs.guid);
    d->cs.name = dup_field(s->name, sizeof s->name);
    d->cs.help = dup_field(s->help, sizeof s->help);
    d->cs.instance_type = s->instance_type;
    d->cs.ncounters = n;
    d->cs.index = PL_INDEX_ASSIGN;
    d->area = s->area;
    d->counters = calloc(n, sizeof *d->counters);
    d->offset = calloc(n, sizeof *d->offset);
    d->ref = calloc(n, 1);
    if (!d->cs.name || !d->cs.help || !d->counters || !d->offset || !d->ref) {
        pl_appseg_def_free(d);
        return NULL;
    }
    d->cs.counters = d->counters;
    for (uint32_t i = 0; i < n; i++) {
        pl_counter_def *o = &d->counters[i];
        appseg_counter k;
        memcpy(&k, &c[i], sizeof k);      /* c may be unaligned in a read buffer */
        o->id = k.id;
        o->type = k.type;
        o->detail = k.detail;
        o->scale = k.scale;
        o->size = (k.attrib & 1u) ? ((k.type & PERF_SIZE_LARGE) ? 8 : 4) : k.size;
        o->base_id = PL_NO_ID;
        d->offset[i] = k.offset;
        d->ref[i] = (k.attrib & 1u) != 0;
        d->nrefs += d->ref[i];
        o->name = dup_field(k.name, sizeof k.name);
        o->help = dup_field(k.help, sizeof k.help);
        counter_units(&k, o, NULL, 0, "");   /* checked by pl_appseg_check_set */
        if (!o->name || !o->help) {
            d->cs.ncounters = i + 1;
            pl_appseg_def_free(d);
            return NULL;
        }
    }
    d->all8 = d->contig = 1;
    for (uint32_t i = 0; i < n; i++) {
        d->all8 &= !d->ref[i] && d->counters[i].size == 8;
        d->contig &= d->offset[i] == 8 * i;
    }
    d->contig &= d->all8;
    /* a counter followed by a base counter takes it as its base, as in a template */
    for (uint32_t i = 0; i + 1 < n; i++)
        if ((d->counters[i].type & 0x00070000u) != PERF_COUNTER_BASE &&
            (d->counters[i + 1].type & 0x00070000u) == PERF_COUNTER_BASE)
            d->counters[i].base_id = d->counters[i + 1].id;
    return d;
}

int pl_appseg_same_set(const uint8_t *buf, size_t used, size_t off, const pl_appseg_def *d)
{
    appseg_set s;
    if (used - off < sizeof s + 8)
        return 0;
    memcpy(&s, buf + off, sizeof s);
    if (s.ncounters != d->cs.ncounters || s.rec.size != APPSEG_SET_REC_SIZE(s.ncounters) || s.area != d->area ||
        s.instance_type != d->cs.instance_type || s.ordinal >= APPSEG_MAX_SETS)
        return 0;
    for (uint32_t i = 0; i < s.ncounters; i++) {
        appseg_counter c;
        const pl_counter_def *o = &d->counters[i];
        memcpy(&c, buf + off + sizeof s + i * sizeof c, sizeof c);
        if (c.id != o->id || c.type != o->type || c.offset != d->offset[i] || (c.attrib & 1u) != d->ref[i] ||
            c.size != (d->ref[i] ? 8u : o->size) || strncmp(c.name, o->name, sizeof c.name) != 0)
            return 0;
        pl_counter_def u = { .id = c.id, .name = o->name, .type = c.type, .base_id = PL_NO_ID };
        if (counter_units(&c, &u, NULL, 0, "") != 0 || u.unit != o->unit || u.semantics != o->semantics ||
            u.unit_scale != o->unit_scale)
            return 0;                    /* the same counters in other units are another definition */
    }
    return 1;
}

/* One instance record of d's set at off (size checked to fit) into snap;
 * a record that is changing is left out. */
static int take_instance(const uint8_t *buf, size_t off, const pl_appseg_def *d, const uint8_t *wanted,
                         uint64_t key, pl_snapshot *snap, char *msg, size_t size)
{
    appseg_rec r;
    const char *name;
    memcpy(&r, buf + off, sizeof r);
    if (r.seq % 2 || rd64(buf + off + r.size - 8) != r.seq)
        return 0;
    if (r.size < sizeof r + APPSEG_INST_HDR + d->area + 8 || r.name8_off < sizeof r + APPSEG_INST_HDR + d->area ||
        r.name8_len >= PERF_MAX_INSTANCE_NAME || r.name8_off > r.size - 8 || r.size - 8 - r.name8_off < r.name8_len + 1)
        return pl_say(EPROTO, msg, size, "set '%s': instance record at %zu has its name outside it", d->cs.name, off);
    const uint8_t *n8 = buf + off + r.name8_off;
    int ok = n8[r.name8_len] == '\0' && (r.name8_len || d->cs.instance_type == PERF_COUNTERSET_SINGLE_INSTANCE);
    for (uint32_t i = 0; ok && i < r.name8_len; i++)
        ok = n8[i] >= 0x20 && n8[i] != 0x7f;       /* no NUL inside, no control character */
    if (!ok)
        return pl_say(EPROTO, msg, size, "set '%s': instance record at %zu has a bad name", d->cs.name, off);
    name = (const char *)n8;             /* NUL-terminated: checked above */
    if (d->cs.instance_type == PERF_COUNTERSET_SINGLE_INSTANCE) {
        if (snap->ninst)
            return pl_say(EPROTO, msg, size, "single-instance set '%s' has more than one instance", d->cs.name);
        name = "";
    }
    const uint8_t *area = buf + off + sizeof r + APPSEG_INST_HDR;
    int k = pl_snap_add_key(snap, name, rd32(buf + off + sizeof r + 20), key);
    if (k < 0)
        return ENOMEM;
    uint32_t nc = d->cs.ncounters;
    uint64_t *vals = snap->values + (size_t)k * nc;    /* local pointers: no reload per value */
    uint8_t *have = snap->have + (size_t)k * nc;
    if (d->all8 && !wanted) {
        for (uint32_t c = 0; c < nc; c++)
            vals[c] = rd64(area + d->offset[c]);
        memset(have, 1, nc);
        return 0;
    }
    for (uint32_t c = 0; c < nc; c++) {
        if (wanted && !wanted[c])
            continue;
        const uint8_t *p = area + d->offset[c];
        vals[c] = d->ref[c] || d->counters[c].size == 8 ? rd64(p) : rd32(p);
        have[c] = 1;
    }
    return 0;
}

int pl_appseg_take(const uint8_t *buf, size_t len, const pl_appseg_def *d, const uint8_t *wanted, uint64_t key,
                   pl_snapshot *snap, char *msg, size_t size)
{
    size_t used, off;
    uint32_t ordinal = APPSEG_KIND_FREE;
    int e = pl_appseg_check_header(buf, len, &used, msg, size);
    if (wanted && !memchr(wanted, 0, d->cs.ncounters))
        wanted = NULL;                   /* every counter: the fast copy may serve */
    for (off = APPSEG_HDR_SIZE; !e && off < used; off += rd32(buf + off + 12)) {
        uint32_t rsize, kind;
        if (used - off < sizeof(appseg_rec) + 8)
            return pl_say(EPROTO, msg, size, "record at %zu is cut short", off);
        kind = rd32(buf + off + 8);
        rsize = rd32(buf + off + 12);
        if (rsize % 8 || rsize < sizeof(appseg_rec) + 8 || rsize > used - off)
            return pl_say(EPROTO, msg, size, "record at %zu says it has %u bytes", off, (unsigned)rsize);
        if (kind == APPSEG_KIND_SET) {
            appseg_set s;
            if (used - off < sizeof s + 8)
                return pl_say(EPROTO, msg, size, "set record at %zu is cut short", off);
            memcpy(&s, buf + off, sizeof s);
            if (memcmp(&s.guid, &d->cs.guid, sizeof s.guid) != 0)
                continue;
            if (!pl_appseg_same_set(buf, used, off, d))
                return pl_say(EPROTO, msg, size, "set '%s' in this segment is not the one registered", d->cs.name);
            ordinal = s.ordinal;
        } else if (kind == ordinal) {
            e = take_instance(buf, off, d, wanted, key, snap, msg, size);
        }
    }
    if (!e && ordinal == APPSEG_KIND_FREE)
        return ENOENT;
    return e;
}
