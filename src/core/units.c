/* Units and semantics of counters (like PCP's pmUnits, in the base units
 * Prometheus names), their derivation from the counter type where a
 * definition declares none, and the metric names an exporter gives them. */
#include "perflib.h"
#include "formula_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define TICK 1e-7            /* perflib's clocks count 100 ns */

static const char *const unit_names[PL_UNIT_KIND_COUNT] = {
    "undeclared", "none", "count", "bytes", "seconds", "percent", "ratio", "hertz",
    "celsius", "watts", "joules", "volts", "amperes", "rpm", "ampere_hours", "kelvin",
    "bytes_per_second",
};
/* Short symbols for SI prefixes ("" where a prefix would read badly). */
static const char *const unit_symbols[PL_UNIT_KIND_COUNT] = {
    "", "", "", "B", "s", "", "", "Hz", "", "W", "J", "V", "A", "", "Ah", "K", "B/s",
};
static const char *const sem_names[PL_SEM_COUNT] = { "undeclared", "counter", "gauge", "discrete" };

const char *pl_unit_name(pl_unit_kind k)
{
    return (unsigned)k < PL_UNIT_KIND_COUNT ? unit_names[k] : "undeclared";
}

const char *pl_semantics_name(pl_semantics s)
{
    return (unsigned)s < PL_SEM_COUNT ? sem_names[s] : "undeclared";
}

int pl_unit_parse(const char *s, pl_unit_kind *out)
{
    for (unsigned k = PL_UNIT_NONE; s && k < PL_UNIT_KIND_COUNT; k++)
        if (strcasecmp(s, unit_names[k]) == 0) {
            *out = (pl_unit_kind)k;
            return 0;
        }
    return EINVAL;
}

/* "KiB", "ms", "MHz", "uW", "B", ...: a symbol with an SI or IEC prefix. */
static int parse_symbol(const char *s, pl_unit_kind *k, double *scale)
{
    static const char si[] = "num kMG";
    static const char *const iec[] = { "KiB", "MiB", "GiB", "TiB" };
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(s, iec[i]) == 0) {
            *k = PL_UNIT_BYTES;
            *scale = pow(1024.0, i + 1);
            return 0;
        }
    for (unsigned u = PL_UNIT_BYTES; u < PL_UNIT_KIND_COUNT; u++) {
        const char *sym = unit_symbols[u], *p;
        size_t n = strlen(sym), m = strlen(s);
        if (!n || m < n || strcmp(s + m - n, sym) != 0 || m > n + 1)
            continue;
        if (m == n)
            *scale = 1;
        else if (s[0] != ' ' && (p = strchr(si, s[0])) != NULL)
            *scale = pow(10.0, 3 * ((int)(p - si) - 3));
        else
            continue;
        *k = (pl_unit_kind)u;
        return 0;
    }
    return EINVAL;
}

int pl_unit_parse_scaled(const char *s, pl_unit_kind *out, double *scale)
{
    if (!s)
        return EINVAL;
    if (pl_unit_parse(s, out) == 0) {
        *scale = 1;
        return 0;
    }
    return parse_symbol(s, out, scale);
}

void pl_units_complete(pl_counter_def *c)
{
    pl_units u;
    pl_type_units(c->type, &u);
    if (c->unit == PL_UNIT_UNDECLARED || c->unit >= PL_UNIT_KIND_COUNT) {
        c->unit = (uint8_t)u.kind;
        c->unit_scale = u.scale;
    }
    if (c->semantics == PL_SEM_UNDECLARED || c->semantics >= PL_SEM_COUNT)
        c->semantics = (uint8_t)u.semantics;
}

int pl_semantics_parse(const char *s, pl_semantics *out)
{
    for (unsigned k = PL_SEM_COUNTER; s && k < PL_SEM_COUNT; k++)
        if (strcasecmp(s, sem_names[k]) == 0) {
            *out = (pl_semantics)k;
            return 0;
        }
    return EINVAL;
}

static void set_raw(pl_units *u, pl_unit_kind k, double scale, pl_semantics sem)
{
    u->kind = k;
    u->scale = scale;
    u->semantics = sem;
}

static void set_fmt(pl_units *u, pl_unit_kind k, double scale, pl_per per)
{
    u->fkind = k;
    u->fscale = scale;
    u->fper = per;
}

/* Bases and types that format to no number. */
static void derive_none(uint32_t type, pl_units *u)
{
    switch (type) {
    case PERF_SAMPLE_BASE: case PERF_AVERAGE_BASE:
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_COUNTER);
        break;
    case PERF_RAW_BASE: case PERF_LARGE_RAW_BASE: case PERF_COUNTER_MULTI_BASE:
        /* PERF_PRECISION_TIMESTAMP has LARGE_RAW_BASE's value: a set whose
         * base is a clock declares seconds and counter itself */
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_GAUGE);
        break;
    default:                 /* text, no data, histogram, unknown */
        set_raw(u, PL_UNIT_NONE, 1, PL_SEM_DISCRETE);
        break;
    }
    set_fmt(u, PL_UNIT_NONE, 1, PL_PER_NONE);
}

void pl_type_units(uint32_t type, pl_units *u)
{
    pl_kind k = pl_kind_of(type);
    u->declared = 0;
    switch (k) {
    case K_RATE:
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_COUNTER);
        set_fmt(u, PL_UNIT_COUNT, 1, PL_PER_SECOND);
        return;
    case K_QUEUE:            /* queue length summed per tick: an average length */
        if (type == PERF_COUNTER_100NS_QUEUELEN_TYPE || type == PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE)
            set_raw(u, PL_UNIT_SECONDS, TICK, PL_SEM_COUNTER);
        else
            set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_COUNTER);
        set_fmt(u, PL_UNIT_COUNT, 1, PL_PER_NONE);
        return;
    case K_TIMER: case K_TIMER_INV: case K_MULTI: case K_MULTI_INV: case K_PRECISION:
        set_raw(u, PL_UNIT_SECONDS, TICK, PL_SEM_COUNTER);
        set_fmt(u, PL_UNIT_PERCENT, 1, PL_PER_NONE);
        return;
    case K_SAMPLE_FRAC:
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_COUNTER);
        set_fmt(u, PL_UNIT_PERCENT, 1, PL_PER_NONE);
        return;
    case K_RAW_FRAC:
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_GAUGE);
        set_fmt(u, PL_UNIT_PERCENT, 1, PL_PER_NONE);
        return;
    case K_AVG_TIMER:
        set_raw(u, PL_UNIT_SECONDS, TICK, PL_SEM_COUNTER);
        set_fmt(u, PL_UNIT_SECONDS, 1, PL_PER_OP);
        return;
    case K_AVG_BULK:
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_COUNTER);
        set_fmt(u, PL_UNIT_COUNT, 1, PL_PER_OP);
        return;
    case K_ELAPSED:          /* a start time: the formatted value is seconds since */
        set_raw(u, PL_UNIT_SECONDS, TICK, PL_SEM_DISCRETE);
        set_fmt(u, PL_UNIT_SECONDS, 1, PL_PER_NONE);
        return;
    case K_DELTA:
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_COUNTER);
        set_fmt(u, PL_UNIT_COUNT, 1, PL_PER_NONE);
        return;
    case K_RAW:              /* hex: flags and ids */
        if (type == PERF_COUNTER_RAWCOUNT_HEX || type == PERF_COUNTER_LARGE_RAWCOUNT_HEX)
            set_raw(u, PL_UNIT_NONE, 1, PL_SEM_DISCRETE);
        else
            set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_GAUGE);
        set_fmt(u, u->kind, 1, PL_PER_NONE);
        return;
    case K_DEC1000:
        set_raw(u, PL_UNIT_COUNT, 1, PL_SEM_GAUGE);
        set_fmt(u, PL_UNIT_COUNT, 1000, PL_PER_NONE);
        return;
    case K_DOUBLE:
        set_raw(u, PL_UNIT_NONE, 1, PL_SEM_GAUGE);
        set_fmt(u, PL_UNIT_NONE, 1, PL_PER_NONE);
        return;
    default:
        derive_none(type, u);
        return;
    }
}

void pl_counter_units(const pl_counter_def *c, pl_units *u)
{
    pl_kind k = pl_kind_of(c->type);
    pl_type_units(c->type, u);
    if (c->unit > PL_UNIT_UNDECLARED && c->unit < PL_UNIT_KIND_COUNT) {
        u->kind = (pl_unit_kind)c->unit;
        u->scale = c->unit_scale > 0 && isfinite(c->unit_scale) ? c->unit_scale : 1;
        u->declared = 1;
        /* kinds whose formatted value is in the raw value's unit */
        if (k == K_RATE || k == K_AVG_BULK || k == K_DELTA || k == K_RAW || k == K_DOUBLE)
            set_fmt(u, u->kind, u->scale, u->fper);
        /* percent summed over a base of ticks (% Processor Utility) averages to a percent */
        if (k == K_AVG_BULK && u->kind == PL_UNIT_PERCENT)
            u->fper = PL_PER_NONE;
        else if (k == K_DEC1000)
            set_fmt(u, u->kind, u->scale * 1000, u->fper);
    }
    if (c->semantics > PL_SEM_UNDECLARED && c->semantics < PL_SEM_COUNT) {
        u->semantics = (pl_semantics)c->semantics;
        u->declared = 1;
    }
    if (u->fkind != PL_UNIT_NONE && c->scale)     /* formatted = f x 10^scale */
        u->fscale *= pow(10.0, -(double)c->scale);
}

/* 10^e for a multiple of 3 within [-9, 9] that x is, else 0. */
static int si_exponent(double x, int *e)
{
    static const char pfx[] = "num kMG";
    for (int i = -9; i <= 9; i += 3)
        if (i != 0 && fabs(x / pow(10.0, i) - 1.0) < 1e-9) {
            *e = pfx[(i + 9) / 3];
            return 1;
        }
    return 0;
}

size_t pl_units_format(const pl_units *u, char *buf, size_t size)
{
    const char *per = u->fper == PL_PER_SECOND ? "/s" : u->fper == PL_PER_OP ? "/op" : "";
    unsigned k = (unsigned)u->fkind < PL_UNIT_KIND_COUNT ? (unsigned)u->fkind : 0;
    const char *name = k <= PL_UNIT_COUNT ? "" : unit_names[k];
    double s = u->fscale;
    int e, n;
    if (s == 1.0 || s <= 0 || !isfinite(s))
        n = snprintf(buf, size, "%s%s", name, per);
    else if (k == PL_UNIT_BYTES && (s == 1024.0 || s == 1048576.0 || s == 1073741824.0))
        n = snprintf(buf, size, "%s%s", s == 1024.0 ? "KiB" : s == 1048576.0 ? "MiB" : "GiB", per);
    else if (*unit_symbols[k] && si_exponent(s, &e))
        n = snprintf(buf, size, "%c%s%s", e == 'u' ? 'u' : e, unit_symbols[k], per);
    else
        n = snprintf(buf, size, "x%g%s%s%s", s, *name ? " " : "", name, per);
    return n < 0 ? 0 : (size_t)n;
}

/* "counter 'Foo' (PERF_...) <what>": EINVAL. */
static int say(char *msg, size_t size, const pl_counter_def *c, const char *what)
{
    const char *tn = pl_type_name(c->type);
    if (msg && size)
        snprintf(msg, size, "counter '%s' (%s) %s", c->name ? c->name : "?", tn ? tn : "unknown type", what);
    return EINVAL;
}

static int timer_kind(pl_kind k)
{
    return k == K_TIMER || k == K_TIMER_INV || k == K_MULTI || k == K_MULTI_INV ||
           k == K_PRECISION || k == K_AVG_TIMER || k == K_ELAPSED;
}

int pl_units_check(const pl_counter_def *c, char *msg, size_t size)
{
    pl_kind k = pl_kind_of(c->type);
    pl_units u;
    if (c->unit == PL_UNIT_UNDECLARED || c->unit >= PL_UNIT_KIND_COUNT)
        return say(msg, size, c, "declares no unit");
    if (c->semantics == PL_SEM_UNDECLARED || c->semantics >= PL_SEM_COUNT)
        return say(msg, size, c, "declares no semantics");
    if (!(c->unit_scale >= 0) || !isfinite(c->unit_scale))
        return say(msg, size, c, "has a unit scale that is not a positive number");
    pl_counter_units(c, &u);
    if (pl_kind_needs_two(k) && u.semantics != PL_SEM_COUNTER)
        return say(msg, size, c, "needs two samples, so its raw value must be cumulative (counter)");
    if (timer_kind(k) && u.kind != PL_UNIT_SECONDS)
        return say(msg, size, c, "is a timer: its raw value counts seconds");
    if (k == K_RAW_FRAC && u.semantics == PL_SEM_COUNTER)
        return say(msg, size, c, "is a one-sample fraction: its raw value is not cumulative");
    if ((c->type == PERF_SAMPLE_BASE || c->type == PERF_AVERAGE_BASE) && u.semantics != PL_SEM_COUNTER)
        return say(msg, size, c, "is the base of a two-sample type: it must be cumulative");
    if (c->type == PERF_RAW_BASE && u.semantics == PL_SEM_COUNTER)
        return say(msg, size, c, "is the base of a one-sample fraction: it is not cumulative");
    if ((c->type == PERF_COUNTER_TEXT || c->type == PERF_COUNTER_NODATA) && u.kind != PL_UNIT_NONE)
        return say(msg, size, c, "holds no number: its unit is none");
    return 0;
}

/* ---- Prometheus metric names -------------------------------------------------- */

/* Metric-name suffixes of the base units; count and none have none. */
static const char *suffix_of(pl_unit_kind k)
{
    return k > PL_UNIT_COUNT && k < PL_UNIT_KIND_COUNT ? unit_names[k] : NULL;
}

typedef struct namebuf {
    char *p;
    size_t size, len;
    int cut;
} namebuf;

static void put(namebuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (b->len + 1 >= b->size) {
            b->cut = 1;
            return;
        }
        b->p[b->len++] = s[i];
    }
    b->p[b->len] = '\0';
}

static int ends_with(const namebuf *b, const char *s)
{
    size_t n = strlen(s);
    return b->len > n && b->p[b->len - n - 1] == '_' && strcmp(b->p + b->len - n, s) == 0;
}

/* Words Prometheus' metric lint (promtool check metrics) rejects in a name:
 * abbreviated units, and units that are not base units; the name's unit is
 * its suffix, and the value is in base units, so they are left out. */
static const char *const lint_words[] = {
    "s", "ms", "us", "ns", "sec", "secs", "b", "kb", "mb", "gb", "tb", "pb", "m", "h", "d",
    "bits", "minutes", "hours", "days", "weeks", "kelvins", "fahrenheit", "rankine",
    "kilobytes", "megabytes", "gigabytes", "terabytes", "petabytes", "kibibytes", "mebibytes", "gibibytes",
    "milliseconds", "microseconds", "nanoseconds", "picoseconds", "centiseconds", "deciseconds",
    "milliwatts", "microwatts", "millivolts", "microvolts", "milliamperes", "microamperes",
    "millijoules", "microjoules", "kilojoules", "megahertz", "kilohertz", "gigahertz", NULL,
};

static int lint_word(const char *w, size_t n)
{
    for (const char *const *l = lint_words; *l; l++)
        if (strlen(*l) == n && strncmp(w, *l, n) == 0)
            return 1;
    return 0;
}

/* Appends _word unless it is one of the unit's words (moved to the end),
 * one the lint rejects, or empty. */
static void put_word(namebuf *b, const char *w, size_t n, const char *drop)
{
    if (n == 0 || (drop && strlen(drop) == n && strncmp(w, drop, n) == 0) || lint_word(w, n))
        return;
    put(b, "_", 1);
    put(b, w, n);
}

/* A gauge's name may not end in _count (the lint keeps that for histograms
 * and summaries): "thread_count" says "threads". */
static void count_to_plural(namebuf *b)
{
    if (!ends_with(b, "count") || b->len < 7)
        return;
    b->len -= 6;                         /* "_count" */
    b->p[b->len] = '\0';
    const char *w = strrchr(b->p, '_');
    size_t wl = w ? strlen(w + 1) : 0;
    if (wl == 0)
        put(b, "_count", 6);             /* nothing to make plural: keep it */
    else if (b->p[b->len - 1] == 's' || b->p[b->len - 1] == 'x' || ends_with(b, "ch") || ends_with(b, "sh"))
        put(b, "es", 2);
    else
        put(b, "s", 1);
}

/* s[0..n) as lower-case words: '%' is the word "percent", every run of other
 * characters separates words. */
static void put_words(namebuf *b, const char *s, size_t n, const char *drop)
{
    char w[64];
    size_t wl = 0;
    for (size_t i = 0; i <= n; i++) {
        unsigned char ch = i < n ? (unsigned char)s[i] : 0;
        if (i < n && isalnum(ch) && ch < 128) {
            if (wl < sizeof w)
                w[wl++] = (char)tolower(ch);
            continue;
        }
        put_word(b, w, wl, drop);
        wl = 0;
        if (ch == '%')
            put_word(b, "percent", 7, drop);
    }
}


/* perflib_<set>_<counter>[_<id>][_unit][_total]: the id when with_id. */
static void base_name(const pl_counterset_def *cs, const pl_counter_def *c, namebuf *b, int with_id)
{
    pl_units u;
    const char *suf, *nm = c->name ? c->name : "";
    size_t n = strlen(nm);
    pl_counter_units(c, &u);
    suf = suffix_of(u.kind);
    b->len = 0;
    b->cut = 0;
    b->p[0] = '\0';
    put(b, "perflib", 7);
    put_words(b, cs->name ? cs->name : "", strlen(cs->name ? cs->name : ""), NULL);
    /* a rate's raw value is what is exported: its "/sec" does not apply */
    if (u.semantics == PL_SEM_COUNTER && n >= 4 && strcasecmp(nm + n - 4, "/sec") == 0)
        n -= 4;
    put_words(b, nm, n, suf);
    if (with_id) {
        char id[16];
        int k = snprintf(id, sizeof id, "_%u", (unsigned)c->id);
        put(b, id, (size_t)k);
    }
    /* an inverse timer's raw value counts the time outside its state (idle
     * time for % Processor Time): the name must not claim the state's */
    if (c->type & PERF_INVERSE_COUNTER)
        put(b, "_inverse", 8);
    if (!suf && u.semantics != PL_SEM_COUNTER)
        count_to_plural(b);
    if (suf && !ends_with(b, suf)) {
        put(b, "_", 1);
        put(b, suf, strlen(suf));
    }
    if (u.semantics == PL_SEM_COUNTER && !ends_with(b, "total"))
        put(b, "_total", 6);
}

int pl_metric_name(const pl_counterset_def *cs, const pl_counter_def *c, char *buf,
                   size_t size, pl_metric *out)
{
    char other[PL_METRIC_NAME_MAX];
    namebuf b = { buf, size, 0, 0 }, o = { other, sizeof other, 0, 0 };
    pl_units u;
    if (!cs || !c || !buf || size == 0 || c < cs->counters || c >= cs->counters + cs->ncounters)
        return EINVAL;
    int dup = 0;
    pl_counter_units(c, &u);
    base_name(cs, c, &b, 0);
    for (uint32_t i = 0; i < cs->ncounters; i++) {
        const pl_counter_def *oc = &cs->counters[i];
        pl_units ou;
        if (oc == c)
            continue;
        base_name(cs, oc, &o, 0);
        if (strcmp(other, buf) != 0)
            continue;
        /* two counters, one name.  The same quantity in base units (Free Bytes
         * and Free Megabytes): the finer keeps the name, the other takes its
         * id and is a duplicate an exporter leaves out.  Else both take their
         * id. */
        pl_counter_units(oc, &ou);
        int same = ou.kind == u.kind && ou.semantics == u.semantics;
        if (same && (u.scale < ou.scale || (u.scale == ou.scale && c->id < oc->id)))
            continue;
        dup = same;
        base_name(cs, c, &b, 1);
        break;
    }
    if (out) {
        out->type = u.semantics == PL_SEM_COUNTER ? "counter" : "gauge";
        out->factor = u.scale;
        out->duplicate = dup;
    }
    return b.cut ? ENAMETOOLONG : 0;
}

/* The shortest %g that reads back as v ("1e-07", not "9.9999999999999995e-08"). */
static void shortest(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, size, "%.17g", v);
}

size_t pl_units_describe(const pl_counterset_def *cs, const pl_counter_def *c, char *buf, size_t size)
{
    pl_units u;
    pl_metric m = { "gauge", 1.0, 0 };
    char fmt[40], metric[PL_METRIC_NAME_MAX], scale[32], factor[32];
    pl_counter_units(c, &u);
    pl_units_format(&u, fmt, sizeof fmt);
    if (pl_metric_name(cs, c, metric, sizeof metric, &m) == EINVAL)
        metric[0] = 0;
    shortest(scale, sizeof scale, u.scale);
    shortest(factor, sizeof factor, m.factor);
    int n = snprintf(buf, size, "unit=%s scale=%s semantics=%s formatted=%s type=%s factor=%s metric=%s",
                     pl_unit_name(u.kind), scale, pl_semantics_name(u.semantics), fmt, m.type, factor, metric);
    return n < 0 ? 0 : (size_t)n;
}
