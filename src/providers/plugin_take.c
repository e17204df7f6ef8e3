/* A plug-in's answers: the counter definitions learned from its metadata
 * answer when it loads, and each data answer checked against them and put
 * into a snapshot.  Every byte comes from another process and is validated
 * (pl_v1_validate_objects) before one field is used. */
#include "plugin_impl.h"
#include "pl_le.h"
#include "pl_names.h"
#include "pl_provider.h"
#include "pl_v1.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const pl_provider_ops pl_plugin_ops;

/* Types that take the definition after them as their base. */
static int needs_base(uint32_t t)
{
    static const uint32_t with_base[] = {
        PERF_SAMPLE_FRACTION, PERF_RAW_FRACTION, PERF_LARGE_RAW_FRACTION, PERF_AVERAGE_TIMER,
        PERF_AVERAGE_BULK, PERF_COUNTER_MULTI_TIMER, PERF_COUNTER_MULTI_TIMER_INV,
        PERF_100NSEC_MULTI_TIMER, PERF_100NSEC_MULTI_TIMER_INV, PERF_PRECISION_SYSTEM_TIMER,
        PERF_PRECISION_100NS_TIMER, PERF_PRECISION_OBJECT_TIMER,
    };
    for (size_t i = 0; i < sizeof with_base / sizeof with_base[0]; i++)
        if (t == with_base[i])
            return 1;
    return 0;
}

static int is_base(uint32_t t)
{
    return (t & 0x00070000u) == PERF_COUNTER_BASE;
}

/* The bytes a type's value takes: 4, 8, or 0 for what is not a number. */
static uint32_t type_size(uint32_t t)
{
    if (!pl_type_known(t) || t == PERF_COUNTER_TEXT || t == PERF_COUNTER_NODATA)
        return 0;
    switch (t & 0x300u) {
    case PERF_SIZE_DWORD: return 4;
    case PERF_SIZE_LARGE: return 8;
    default: return 0;
    }
}

void pl_plug_obj_free(plug_obj *o)
{
    for (uint32_t j = 0; o->counters && j < o->def.ncounters; j++)
        if (o->owned && o->owned[j])
            free(o->owned[j]);
    free(o->owned);
    free(o->counters);
    free(o->titles);
    memset(o, 0, sizeof *o);
}

/* Definition j of object at p (validated): a counter, named from the file. */
static int learn_counter(plugin *pl, plug_obj *o, const uint8_t *d, uint32_t j, char *msg, size_t size)
{
    uint32_t t = pl_r32(d + 4), type = pl_r32(d + 28), bytes = pl_r32(d + 32);
    pl_counter_def *c = &o->counters[j];
    const plug_counter_cfg *k = pl_plug_cfg_counter(&pl->cfg, o->cfg, t);
    if (!type_size(type))
        return pl_say(EPROTO, msg, size, "counter %u of object '%s' has type 0x%08x, not a number perflib evaluates",
                   (unsigned)t, o->cfg->name, (unsigned)type);
    if (bytes != type_size(type))
        return pl_say(EPROTO, msg, size, "counter %u of object '%s': CounterSize %u, but its type takes %u bytes",
                   (unsigned)t, o->cfg->name, (unsigned)bytes, (unsigned)type_size(type));
    for (uint32_t i = 0; i < j; i++)
        if (o->titles[i] == t)
            return pl_say(EPROTO, msg, size, "object '%s' defines counter %u twice", o->cfg->name, (unsigned)t);
    o->titles[j] = t;
    *c = (pl_counter_def){ j, NULL, "", type, PL_NO_ID, pl_r32(d + 24), (int32_t)pl_r32(d + 20), bytes,
                           k ? k->unit : 0, k ? k->semantics : 0, k ? k->unit_scale : 0 };
    if (k) {
        pl_counter_def full = *c;
        char why[200];
        c->name = k->name;
        c->help = k->help ? k->help : "";
        full.name = k->name;
        pl_units_complete(&full);
        if (pl_units_check(&full, why, sizeof why))
            return pl_say(EPROTO, msg, size, "object '%s' in %s: %s", o->cfg->name, pl->cfg.file, why);
    } else if (is_base(type) && j > 0) {
        size_t n = strlen(o->counters[j - 1].name) + sizeof " Base";
        if (!(o->owned[j] = malloc(n)))
            return ENOMEM;
        snprintf(o->owned[j], n, "%s Base", o->counters[j - 1].name);
        c->name = o->owned[j];
    } else {
        return pl_say(EPROTO, msg, size, "counter %u of object '%s' has no name in %s (Counter %u = ...)",
                   (unsigned)t, o->cfg->name, pl->cfg.file, (unsigned)(t - pl->cfg.first_counter));
    }
    for (uint32_t i = 0; i < j; i++)
        if (strcasecmp(o->counters[i].name, c->name) == 0)
            return pl_say(EPROTO, msg, size, "object '%s' has two counters named '%s'", o->cfg->name, c->name);
    return 0;
}

/* Bases: each counter that needs one takes the definition after it. */
static int link_bases(plug_obj *o, char *msg, size_t size)
{
    for (uint32_t j = 0; j < o->def.ncounters; j++) {
        pl_counter_def *c = &o->counters[j];
        if (!needs_base(c->type))
            continue;
        if (j + 1 >= o->def.ncounters || !is_base(o->counters[j + 1].type))
            return pl_say(EPROTO, msg, size, "counter '%s' of object '%s' (%s) is not followed by its base",
                       c->name, o->cfg->name, pl_type_name(c->type));
        c->base_id = j + 1;
    }
    return 0;
}

static int learn_object(plugin *pl, plug_obj *o, const uint8_t *p, char *msg, size_t size)
{
    uint32_t n = pl_r32(p + 32);
    int32_t ni = (int32_t)pl_r32(p + 40);
    int e;
    if (n == 0 || n > PL_PLUG_MAX_COUNTERS)
        return pl_say(EPROTO, msg, size, "object '%s' has %u counters (1 to %u)", o->cfg->name, (unsigned)n,
                   PL_PLUG_MAX_COUNTERS);
    o->counters = calloc(n, sizeof *o->counters);
    o->titles = calloc(n, sizeof *o->titles);
    o->owned = calloc(n, sizeof *o->owned);
    if (!o->counters || !o->titles || !o->owned)
        return ENOMEM;
    o->def.ncounters = n;
    const uint8_t *d = p + pl_r32(p + 8);
    for (uint32_t j = 0; j < n; j++, d += pl_r32(d))
        if ((e = learn_counter(pl, o, d, j, msg, size)))
            return e;
    if ((e = link_bases(o, msg, size)))
        return e;
    o->multi = ni >= 0 || ni == PERF_METADATA_MULTIPLE_INSTANCES;
    if (o->cfg->has_guid) {
        o->def.guid = o->cfg->guid;
    } else {                              /* the file gives none: one of "<plug-in>/<object>" */
        char kind[256];
        snprintf(kind, sizeof kind, "perflib.plugin/%s", pl->cfg.name);
        o->def.guid = pl_name_guid(kind, o->cfg->name);
    }
    o->def.name = o->cfg->name;
    o->def.help = o->cfg->help ? o->cfg->help : "";
    o->def.instance_type = o->multi ? PERF_COUNTERSET_MULTI_INSTANCES : PERF_COUNTERSET_SINGLE_INSTANCE;
    o->def.costly = o->cfg->costly;
    o->def.counters = o->counters;
    o->def.ops = &pl_plugin_ops;
    o->def.index = o->cfg->index;
    o->def.provider_data = o;
    snprintf(o->query, sizeof o->query, "%u", (unsigned)o->title);
    return 0;
}

int pl_plug_learn(plugin *pl, const uint8_t *buf, size_t len, uint32_t nobjs, int lax, char *msg,
                  size_t size)
{
    pl_db_error err = { 0, NULL };
    size_t off = 0;
    int e;
    if (pl_v1_validate_objects(buf, len, nobjs, lax ? PL_V1_LAX_ALIGN : 0, &err))
        return pl_say(EPROTO, msg, size, "its answer is malformed at byte %zu: %s", err.offset, err.rule);
    for (uint32_t k = 0; k < nobjs; k++, off += pl_r32(buf + off)) {
        const uint8_t *p = buf + off;
        uint32_t t = pl_r32(p + 12);
        const plug_obj_cfg *cfg = pl_plug_cfg_object(&pl->cfg, t);
        if (!cfg)
            return pl_say(EPROTO, msg, size, "it returned object %u, which %s does not configure (Offset %u)",
                       (unsigned)t, pl->cfg.file, (unsigned)(t - pl->cfg.first_counter));
        for (uint32_t i = 0; i < pl->nobjs; i++)
            if (pl->objs[i].cfg == cfg)
                return pl_say(EPROTO, msg, size, "it returned object '%s' twice", cfg->name);
        plug_obj *o = &pl->objs[pl->nobjs++];
        memset(o, 0, sizeof *o);
        o->pl = pl;
        o->cfg = cfg;
        o->title = t;
        if ((e = learn_object(pl, o, p, msg, size)))
            return e;
    }
    return 0;
}

/* ---- data answers ------------------------------------------------------------ */

/* The object's definitions are the learned ones, title, type and size. */
static int same_definitions(const plug_obj *o, const uint8_t *p, char *msg, size_t size)
{
    uint32_t n = pl_r32(p + 32);
    if (n != o->def.ncounters)
        return pl_say(EPROTO, msg, size, "object '%s' came with %u counter definitions, not %u", o->def.name,
                   (unsigned)n, (unsigned)o->def.ncounters);
    const uint8_t *d = p + pl_r32(p + 8);
    for (uint32_t j = 0; j < n; j++, d += pl_r32(d))
        if (pl_r32(d + 4) != o->titles[j] || pl_r32(d + 28) != o->counters[j].type ||
            pl_r32(d + 32) != o->counters[j].size)
            return pl_say(EPROTO, msg, size, "object '%s': definition %u is not the counter '%s' it defined when it loaded",
                       o->def.name, (unsigned)j, o->counters[j].name);
    return 0;
}

/* The values of the PERF_COUNTER_BLOCK at blk for snapshot row r. */
static void values(const plug_obj *o, const uint8_t *p, const uint8_t *blk, pl_snapshot *snap, int r)
{
    const uint8_t *d = p + pl_r32(p + 8);
    uint32_t nc = o->def.ncounters;
    for (uint32_t j = 0; j < nc; j++, d += pl_r32(d)) {
        const uint8_t *v = blk + pl_r32(d + 36);
        snap->values[(size_t)r * nc + j] = o->counters[j].size == 4 ? pl_r32(v) : pl_r64(v);
        snap->have[(size_t)r * nc + j] = 1;
    }
}

static int instances(const plug_obj *o, const uint8_t *p, pl_names *nm, pl_snapshot *snap)
{
    int32_t ni = (int32_t)pl_r32(p + 40);
    const uint8_t *q = p + pl_r32(p + 4);
    uint16_t u[PL_DB_MAX_INSTANCE_NAME];
    char name[4 * PL_DB_MAX_INSTANCE_NAME], unique[4 * PL_DB_MAX_INSTANCE_NAME + PL_NAMES_EXTRA];
    if (pl_names_begin(nm, (uint32_t)ni))
        return ENOMEM;
    for (int32_t i = 0; i < ni; i++) {
        uint32_t noff = pl_r32(q + 16), units = pl_r32(q + 20) / 2, n = 0;
        int32_t uid = (int32_t)pl_r32(q + 12);
        while (n < units && (u[n] = pl_r16(q + noff + 2 * n)) != 0)
            n++;
        long l = pl_utf16_to_utf8(u, n, name, sizeof name);
        if (l < 0)
            l = 0;                        /* validated: cannot happen */
        pl_name_sanitize(name);
        const char *un = pl_names_next(nm, name, (size_t)l, unique);
        int r = un ? pl_snap_add(snap, un, uid == PERF_NO_UNIQUE_ID ? (uint32_t)i : (uint32_t)uid) : -1;
        if (r < 0)
            return ENOMEM;
        q += pl_r32(q);
        values(o, p, q, snap, r);
        q += pl_r32(q);
    }
    return 0;
}

int pl_plug_take(const plug_obj *o, const uint8_t *buf, size_t len, uint32_t nobjs, int lax,
                 pl_names *nm, pl_snapshot *snap, char *msg, size_t size)
{
    pl_db_error err = { 0, NULL };
    int e;
    if (pl_v1_validate_objects(buf, len, nobjs, lax ? PL_V1_LAX_ALIGN : 0, &err))
        return pl_say(EPROTO, msg, size, "its answer is malformed at byte %zu: %s", err.offset, err.rule);
    if (nobjs == 0)
        return ENODATA;
    for (uint32_t k = 0, off = 0; k < nobjs; k++, off += pl_r32(buf + off)) {
        const uint8_t *p = buf + off;
        int32_t ni = (int32_t)pl_r32(p + 40);
        if (pl_r32(p + 12) != o->title)
            return pl_say(EPROTO, msg, size, "it returned object %u, which was not asked for (asked: %u)",
                       (unsigned)pl_r32(p + 12), (unsigned)o->title);
        if (k > 0)
            return pl_say(EPROTO, msg, size, "it returned object '%s' twice", o->def.name);
        if ((e = same_definitions(o, p, msg, size)))
            return e;
        if (ni < PERF_NO_INSTANCES)
            return pl_say(EPROTO, msg, size, "it answered a data query with metadata (NumInstances %d)", (int)ni);
        if ((ni >= 0) != o->multi)
            return pl_say(EPROTO, msg, size, "object '%s' is %s-instance now, not as it loaded", o->def.name,
                       ni >= 0 ? "multi" : "single");
        snap->obj_time = (int64_t)pl_r64(p + 48);
        snap->obj_freq = (int64_t)pl_r64(p + 56);
        if (ni == PERF_NO_INSTANCES) {
            int r = pl_snap_add(snap, "", 0);
            if (r < 0)
                return ENOMEM;
            values(o, p, p + pl_r32(p + 4), snap, r);
        } else if ((e = instances(o, p, nm, snap))) {
            return e;
        }
    }
    return 0;
}

int pl_plugin_take(const pl_counterset_def *cs, const uint8_t *buf, size_t len, uint32_t nobjs, int lax,
                   pl_snapshot *snap, char *msg, size_t size)
{
    pl_names nm;
    int e;
    if (!cs || cs->ops != &pl_plugin_ops)
        return EINVAL;
    pl_names_init(&nm);
    e = pl_plug_take(cs->provider_data, buf, len, nobjs, lax, &nm, snap, msg, size);
    pl_names_free(&nm);
    return e;
}
