/* Samples as Prometheus text and OpenMetrics (pl_expose.h). */
#include "pl_expose.h"
#include "pl_winperf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOUBLE_RAW 0x00012000u           /* PERF_DOUBLE_RAW: the raw value is a double */

/* ---- text ------------------------------------------------------------------ */

void pl_text_free(pl_text *t)
{
    free(t->p);
    memset(t, 0, sizeof *t);
}

static int text_room(pl_text *t, size_t n)
{
    if (t->oom)
        return 0;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->oom = 1;
            return 0;
        }
        t->p = p;
        t->cap = cap;
    }
    return 1;
}

void pl_text_put(pl_text *t, const char *s, size_t n)
{
    if (!text_room(t, n))
        return;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void pl_text_puts(pl_text *t, const char *s)
{
    pl_text_put(t, s, strlen(s));
}

void pl_text_printf(pl_text *t, const char *fmt, ...)
{
    va_list ap;
    if (!text_room(t, 64))               /* most fit at once: one formatting */
        return;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n < t->cap - t->len) {
        t->len += n > 0 ? (size_t)n : 0;
        return;
    }
    if (!text_room(t, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* ---- escaping ------------------------------------------------------------------ */

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t k = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (k == 0 || k > n || (k == 2 && s[0] < 0xC2))
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((k == 3 && s[0] == 0xE0 && s[1] < 0xA0) || (k == 3 && s[0] == 0xED && s[1] >= 0xA0) ||
        (k == 4 && s[0] == 0xF0 && s[1] < 0x90) || (k == 4 && (s[0] > 0xF4 || (s[0] == 0xF4 && s[1] >= 0x90))))
        return 0;                        /* overlong, a surrogate, beyond U+10FFFF */
    return k;
}

void pl_expose_escape(pl_text *out, const char *s, int label)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), run = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c < 0x80 && c != '\\' && c != '\n' && (c != '"' || !label)) {
            i++;                         /* plain ASCII: copied in runs */
            continue;
        }
        pl_text_put(out, s + run, i - run);
        size_t k = utf8_len(p + i, n - i);
        if (c == '\\')
            pl_text_put(out, "\\\\", 2), k = 1;
        else if (c == '\n')
            pl_text_put(out, "\\n", 2), k = 1;
        else if (c == '"')
            pl_text_put(out, "\\\"", 2), k = 1;
        else if (k == 0)
            pl_text_put(out, "\xEF\xBF\xBD", 3), k = 1;   /* U+FFFD */
        else
            pl_text_put(out, s + i, k);
        i += k;
        run = i;
    }
    pl_text_put(out, s + run, n - run);
}

/* ---- families -------------------------------------------------------------------- */

void pl_expose_family(pl_text *out, int format, const char *name, const char *type, const char *help)
{
    size_t n = strlen(name);
    /* OpenMetrics names a counter family without the _total its samples carry */
    if (format == PL_EXPOSE_OPENMETRICS && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
        n -= 6;
    pl_text_puts(out, "# HELP ");
    pl_text_put(out, name, n);
    pl_text_puts(out, " ");
    pl_expose_escape(out, help ? help : "", format == PL_EXPOSE_OPENMETRICS);
    pl_text_puts(out, "\n# TYPE ");
    pl_text_put(out, name, n);
    pl_text_printf(out, " %s\n", type);
}

/* The factor as 10^-k (k = 1 .. 12), or 0. */
static unsigned decimal_places(double f)
{
    double p = 1;
    for (unsigned k = 1; k <= 12; k++) {
        p *= 10;
        if (f * p == 1.0 || (f * p > 0.999999999999 && f * p < 1.000000000001))
            return k;
    }
    return 0;
}

/* ---- the name cache: definition -> metric name, open addressing ---------------------- */

typedef struct cache_ent {
    const pl_counter_def *def;
    pl_metric m;
    int ok;                              /* 0: no name (cut short) */
    char name[PL_METRIC_NAME_MAX];
} cache_ent;

struct pl_expose_cache {
    cache_ent *e;
    size_t cap, n;                       /* cap a power of two */
};

pl_expose_cache *pl_expose_cache_new(void)
{
    return calloc(1, sizeof(pl_expose_cache));
}

void pl_expose_cache_free(pl_expose_cache *c)
{
    if (c)
        free(c->e);
    free(c);
}

static size_t slot_of(const pl_expose_cache *c, const pl_counter_def *def)
{
    size_t h = (size_t)((uintptr_t)def >> 3) * 0x9E3779B97F4A7C15u, i = h & (c->cap - 1);
    while (c->e[i].def && c->e[i].def != def)
        i = (i + 1) & (c->cap - 1);
    return i;
}

static int cache_grow(pl_expose_cache *c)
{
    pl_expose_cache bigger = { calloc(c->cap ? c->cap * 2 : 256, sizeof(cache_ent)), c->cap ? c->cap * 2 : 256, 0 };
    if (!bigger.e)
        return ENOMEM;
    for (size_t i = 0; i < c->cap; i++)
        if (c->e[i].def) {
            bigger.e[slot_of(&bigger, c->e[i].def)] = c->e[i];
            bigger.n++;
        }
    free(c->e);
    *c = bigger;
    return 0;
}

/* def's name into name and m: 0 (and ok), or ENOMEM. */
static int name_of(pl_expose_cache *c, const pl_counterset_def *cs, const pl_counter_def *def, char *name,
                   pl_metric *m, int *ok)
{
    if (!c) {
        *ok = pl_metric_name(cs, def, name, PL_METRIC_NAME_MAX, m) == 0;
        return 0;
    }
    if ((c->n + 1) * 2 > c->cap && cache_grow(c) != 0)
        return ENOMEM;
    cache_ent *e = &c->e[slot_of(c, def)];
    if (!e->def) {
        e->def = def;
        e->ok = pl_metric_name(cs, def, e->name, sizeof e->name, &e->m) == 0;
        c->n++;
    }
    memcpy(name, e->name, sizeof e->name);
    *m = e->m;
    *ok = e->ok;
    return 0;
}

/* One counter (or the base of one) of one result: where its values are. */
typedef struct fam_ent {
    char name[PL_METRIC_NAME_MAX];
    pl_metric m;
    const pl_counter_def *def;       /* the counter the family is of */
    const pl_block *b;
    uint32_t pos;                    /* its column in the result */
    uint32_t order;                  /* entries in result order, for a stable sort */
    int base;                        /* the values are the .b of the column: its base's */
    unsigned places;                 /* the factor is 10^-places (0: it is not) */
} fam_ent;

static int ent_cmp(const void *x, const void *y)
{
    const fam_ent *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

static int add_ent(pl_expose_cache *c, fam_ent **e, size_t *n, size_t *cap, const pl_block *b,
                   const pl_counter_def *def, uint32_t pos, int base)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        fam_ent *ne = realloc(*e, nc * sizeof *ne);
        if (!ne)
            return ENOMEM;
        *e = ne;
        *cap = nc;
    }
    fam_ent *f = &(*e)[*n];
    int ok;
    if (name_of(c, b->cs, def, f->name, &f->m, &ok) != 0)
        return ENOMEM;
    if (!ok || f->m.duplicate)
        return 0;                        /* a name cut short is left out rather than misnamed,
                                            a coarser copy of another counter too */
    f->places = f->m.factor < 1 ? decimal_places(f->m.factor) : 0;
    f->def = def;
    f->b = b;
    f->pos = pos;
    f->base = base;
    f->order = (uint32_t)*n;
    (*n)++;
    return 0;
}

/* Every counter column of every result that has values, and their bases. */
static int gather(const pl_sample *s, pl_expose_cache *cache, fam_ent **e, size_t *n)
{
    size_t cap = 0;
    *e = NULL;
    *n = 0;
    for (uint32_t k = 0; k < s->nblocks; k++) {
        const pl_block *b = &s->blocks[k];
        if (b->shape == PERF_ERROR_RETURN || !b->cs)
            continue;
        for (uint32_t c = 0; c < b->ncounters; c++) {
            const pl_counter_def *def = &b->cs->counters[s->cidx[b->counters_off + c]];
            int bi = def->base_id != PL_NO_ID ? pl_counter_index(b->cs, def->base_id) : -1;
            if (add_ent(cache, e, n, &cap, b, def, c, 0) ||
                (bi >= 0 && add_ent(cache, e, n, &cap, b, &b->cs->counters[bi], c, 1)))
                return ENOMEM;
        }
    }
    return 0;
}

/* v in decimal at the end of out: the digits of an integer, with a point
 * `point` digits from the right when point > 0 (v x 10^-point, exactly). */
static void put_decimal(pl_text *out, uint64_t v, unsigned point)
{
    char buf[32], *p = buf + sizeof buf;
    unsigned d = 0;
    while (point && v % 10 == 0) {       /* 2.5000000 is 2.5, 3.0000000 is 3 */
        v /= 10;
        point--;
    }
    do {
        if (point && d == point)
            *--p = '.';
        *--p = (char)('0' + v % 10);
        v /= 10;
        d++;
    } while (v || (point && d <= point));
    pl_text_put(out, p, (size_t)(buf + sizeof buf - p));
}

static void put_value(pl_text *out, const fam_ent *f, uint64_t raw)
{
    double fac = f->m.factor;
    pl_text_put(out, " ", 1);
    if (f->def->type == DOUBLE_RAW && !f->base) {
        double d;
        memcpy(&d, &raw, sizeof d);
        pl_text_printf(out, "%.17g", d * fac);
    } else if (fac == 1.0) {
        put_decimal(out, raw, 0);
    } else if (fac > 1 && fac <= 1073741824.0 && fac == (double)(uint64_t)fac && raw <= UINT64_MAX / (uint64_t)fac) {
        put_decimal(out, raw * (uint64_t)fac, 0);       /* KiB, MiB: an integer, exactly */
    } else if (f->places) {
        put_decimal(out, raw, f->places);              /* 100 ns ticks and the like: exactly */
    } else {
        pl_text_printf(out, "%.17g", (double)raw * fac);
    }
    pl_text_put(out, "\n", 1);
}

/* The label text of each instance of a result, made once per exposition:
 * {instance_name="...",instance_id="N"}, escaped. */
typedef struct labels {
    const pl_block *b;
    size_t *off;                     /* ninst + 1 offsets into text */
    pl_text text;
} labels;

static int make_labels(const pl_sample *s, const pl_block *b, labels *l)
{
    l->b = b;
    l->off = malloc((b->ninst + 1) * sizeof *l->off);
    memset(&l->text, 0, sizeof l->text);
    if (!l->off)
        return ENOMEM;
    for (uint32_t i = 0; i < b->ninst; i++) {
        const pl_inst *in = &s->inst[b->inst_off + i];
        l->off[i] = l->text.len;
        pl_text_puts(&l->text, "{instance_name=\"");
        pl_expose_escape(&l->text, pl_sample_inst_name(s, b, i), 1);
        pl_text_puts(&l->text, "\"");
        if (in->id != (uint32_t)PERF_NO_UNIQUE_ID)
            pl_text_printf(&l->text, ",instance_id=\"%u\"", (unsigned)in->id);
        pl_text_puts(&l->text, "}");
    }
    l->off[b->ninst] = l->text.len;
    return l->text.oom ? ENOMEM : 0;
}

/* The samples of one entry; returns how many. */
static uint32_t put_samples(const pl_sample *s, const fam_ent *f, const labels *l, pl_text *out)
{
    const pl_block *b = f->b;
    int multi = b->cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES;
    size_t nl = strlen(f->name);
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->ninst; i++) {
        size_t k = b->vals_off + (size_t)i * b->ncounters + f->pos;
        uint8_t h = s->have[k];
        if (!PL_HAVE_VALUE(h) || (f->base && h == PL_HAVE_NO_BASE))
            continue;                    /* not seen: no made-up number */
        pl_text_put(out, f->name, nl);
        if (multi)
            pl_text_put(out, l->text.p + l->off[i], l->off[i + 1] - l->off[i]);
        put_value(out, f, f->base ? s->vals[k].b : s->vals[k].v);
        n++;
    }
    return n;
}

/* perflib_counterset_up: 1 for each set whose read gave values, 0 for one that failed. */
static void put_up(const pl_sample *s, int format, pl_text *out)
{
    pl_expose_family(out, format, "perflib_counterset_up", "gauge",
                     "1 when the counterset was read in this scrape, 0 when its read failed");
    for (uint32_t k = 0; k < s->nblocks; k++) {
        const pl_block *b = &s->blocks[k];
        int seen = 0;
        for (uint32_t j = 0; j < k && !seen; j++)
            seen = s->blocks[j].cs == b->cs;
        if (seen || !b->cs)
            continue;
        pl_text_puts(out, "perflib_counterset_up{counterset=\"");
        pl_expose_escape(out, b->cs->name, 1);
        pl_text_printf(out, "\"} %d\n", b->shape == PERF_ERROR_RETURN && b->status == PL_NO_DATA ? 0 : 1);
    }
}

int pl_expose(const pl_sample *s, int format, pl_expose_cache *cache, pl_text *out)
{
    fam_ent *e = NULL;
    size_t n = 0;
    labels *lab = calloc(s->nblocks ? s->nblocks : 1, sizeof *lab);
    int err = !lab || gather(s, cache, &e, &n) != 0;
    for (uint32_t k = 0; !err && k < s->nblocks; k++)
        if (s->blocks[k].shape != PERF_ERROR_RETURN && s->blocks[k].cs &&
            s->blocks[k].cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES)
            err = make_labels(s, &s->blocks[k], &lab[k]) != 0;
    if (err) {
        for (uint32_t k = 0; lab && k < s->nblocks; k++)
            free(lab[k].off), pl_text_free(&lab[k].text);
        free(lab);
        free(e);
        return ENOMEM;
    }
    qsort(e, n, sizeof *e, ent_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        size_t mark = out->len;
        uint32_t put = 0;
        pl_expose_family(out, format, e[i].name, e[i].m.type, e[i].def->help);
        /* one family per name: the first definition's samples, each counter
         * once (a later result of the same set repeats its instances) */
        for (; j < n && strcmp(e[j].name, e[i].name) == 0; j++) {
            int dup = e[j].def != e[i].def;
            for (size_t k = i; k < j && !dup; k++)
                dup = e[k].def == e[j].def;
            if (!dup)
                put += put_samples(s, &e[j], &lab[e[j].b - s->blocks], out);
        }
        if (put == 0 && !out->oom)
            out->len = mark, out->p[mark] = '\0';   /* no sample: no family */
        i = j;
    }
    for (uint32_t k = 0; k < s->nblocks; k++)
        free(lab[k].off), pl_text_free(&lab[k].text);
    free(lab);
    free(e);
    put_up(s, format, out);
    return out->oom ? ENOMEM : 0;
}

void pl_expose_end(int format, pl_text *out)
{
    if (format == PL_EXPOSE_OPENMETRICS)
        pl_text_puts(out, "# EOF\n");
}

/* ---- metadata as JSON --------------------------------------------------------------- */

void pl_expose_json_string(pl_text *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    pl_text_put(out, "\"", 1);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(p + i, n - i);
        if (k == 0) {
            pl_text_put(out, "\xEF\xBF\xBD", 3);
            i++;
        } else if (p[i] == '"' || p[i] == '\\') {
            pl_text_printf(out, "\\%c", p[i]);
            i++;
        } else if (p[i] < 0x20 || p[i] == 0x7f) {
            pl_text_printf(out, "\\u%04x", p[i]);
            i++;
        } else {
            pl_text_put(out, (const char *)p + i, k);
            i += k;
        }
    }
    pl_text_put(out, "\"", 1);
}

static void put_counter_json(pl_text *out, const pl_counter_def *c)
{
    pl_units u;
    pl_counter_units(c, &u);
    pl_text_printf(out, "{\"id\":%u,\"name\":", (unsigned)c->id);
    pl_expose_json_string(out, c->name);
    pl_text_puts(out, ",\"help\":");
    pl_expose_json_string(out, c->help);
    pl_text_printf(out, ",\"type\":%u,\"base_id\":", (unsigned)c->type);
    if (c->base_id == PL_NO_ID)
        pl_text_puts(out, "null");
    else
        pl_text_printf(out, "%u", (unsigned)c->base_id);
    pl_text_printf(out, ",\"detail\":%u,\"scale\":%d,\"size\":%u,\"unit\":\"%s\",\"unit_scale\":%.17g,"
                        "\"semantics\":\"%s\"}", (unsigned)c->detail, (int)c->scale, (unsigned)(c->size ? c->size : 8),
                   pl_unit_name(u.kind), u.scale, pl_semantics_name(u.semantics));
}

int pl_expose_metadata(const pl_env *env, pl_text *out)
{
    char guid[PL_GUID_STRLEN + 1];
    uint32_t n = pl_env_counterset_count(env);
    pl_text_puts(out, "{\"countersets\":[");
    for (uint32_t i = 0; i < n; i++) {
        const pl_counterset_def *cs = pl_env_counterset(env, i);
        pl_guid_format(&cs->guid, guid);
        pl_text_puts(out, i ? ",{\"name\":" : "{\"name\":");
        pl_expose_json_string(out, cs->name);
        pl_text_printf(out, ",\"guid\":\"%s\",\"help\":", guid);
        pl_expose_json_string(out, cs->help);
        pl_text_printf(out, ",\"instance_type\":\"%s\",\"index\":%u,\"costly\":%s,\"counters\":[",
                       cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES ? "multiple" : "single",
                       (unsigned)cs->index, cs->costly ? "true" : "false");
        for (uint32_t c = 0; c < cs->ncounters; c++) {
            if (c)
                pl_text_puts(out, ",");
            put_counter_json(out, &cs->counters[c]);
        }
        pl_text_puts(out, "]}");
    }
    pl_text_puts(out, "]}\n");
    return out->oom ? ENOMEM : 0;
}
