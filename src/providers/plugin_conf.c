/* Plug-in configuration files (plugin_conf.h), parsed by inih (Debian's
 * libinih): this file only gives the keys their meaning and checks them. */
#include "plugin_conf.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CONF_MAX_BYTES (1u << 20)
#define CONF_MAX_LINE 199u                /* inih's INI_MAX_LINE is 200 with the NUL */

#define DEF_FAILURE_LIMIT 3u
#define DEF_OPEN_TIMEOUT 10000u
#define DEF_COLLECT_TIMEOUT 5000u
#define DEF_MAX_BUFFER (16u << 20)
#define DEF_FIRST_COUNTER 1000u

void pl_perflib_cfg_default(perflib_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->guards = (pl_plug_guards){ 4, 1, 1, 1 };
    c->failure_limit = DEF_FAILURE_LIMIT;
    c->open_timeout_ms = DEF_OPEN_TIMEOUT;
    c->collect_timeout_ms = DEF_COLLECT_TIMEOUT;
    c->max_buffer = DEF_MAX_BUFFER;
}

/* ---- parsing state ----------------------------------------------------- */

typedef struct conf {
    const char *path;
    char *msg;
    size_t msgsize;
    int bad;                  /* the first problem is in msg */
    int nomem;
    perflib_cfg *perflib;     /* one of the two */
    plug_cfg *plug;
    plug_obj_cfg *obj;        /* the [object] being read */
    char section[256];        /* the section being read */
    char *last_key;           /* a value continued on an indented line appends */
} conf;

static int complain(conf *c, const char *fmt, ...)
{
    if (!c->bad) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, c->msgsize, fmt, ap);
        va_end(ap);
        c->bad = 1;
    }
    return 0;
}

/* "Collect  timeout" and "collect timeout" are one key. */
static int key_is(const char *key, const char *want)
{
    while (*key && *want) {
        if (isspace((unsigned char)*key) && isspace((unsigned char)*want)) {
            while (isspace((unsigned char)*key))
                key++;
            while (isspace((unsigned char)*want))
                want++;
            continue;
        }
        if (tolower((unsigned char)*key) != tolower((unsigned char)*want))
            return 0;
        key++;
        want++;
    }
    return !*key && !*want;
}

static int parse_u64(const char *v, uint64_t max, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*v))
        return 0;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || *end || x > max)
        return 0;
    *out = x;
    return 1;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = { "1", "yes", "true", "on" }, *const no[] = { "0", "no", "false", "off" };
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return (*out = 1);
        if (strcasecmp(v, no[i]) == 0)
            return (*out = 0, 1);
    }
    return 0;
}

static int set_str(conf *c, char **dst, const char *v)
{
    char *s = strdup(v);
    if (!s) {
        c->nomem = 1;
        return 0;
    }
    free(*dst);
    *dst = s;
    return 1;
}

/* A value continued on an indented line: inih calls again with the same key. */
static int append_str(conf *c, char **dst, const char *v)
{
    size_t a = strlen(*dst), b = strlen(v);
    char *s = realloc(*dst, a + b + 2);
    if (!s) {
        c->nomem = 1;
        return 0;
    }
    s[a] = ' ';
    memcpy(s + a + 1, v, b + 1);
    *dst = s;
    return 1;
}

static int text_value(conf *c, char **dst, const char *key, const char *v)
{
    if (*dst && c->last_key && strcmp(c->last_key, key) == 0)
        return append_str(c, dst, v);
    return set_str(c, dst, v);
}

#define U32_KEY(k, field, lo, hi)                                                              \
    if (key_is(name, k)) {                                                                     \
        uint64_t x;                                                                            \
        if (!parse_u64(value, hi, &x) || x < (lo))                                             \
            return complain(c, "%s: %s must be a number from %u to %u", c->path, k,           \
                            (unsigned)(lo), (unsigned)(hi));                                   \
        field = (unsigned)x;                                                                   \
        return 1;                                                                              \
    }

/* Keys a plug-in's [plugin] and the [perflib] section share. */
static int limits_key(conf *c, const char *name, const char *value, unsigned *failure_limit,
                      unsigned *open_ms, unsigned *collect_ms, size_t *max_buffer)
{
    U32_KEY("Failure Limit", *failure_limit, 1, 1000000)
    U32_KEY("Open Timeout", *open_ms, 1, 3600000)
    U32_KEY("Collect Timeout", *collect_ms, 1, 3600000)
    if (key_is(name, "Max Buffer")) {
        uint64_t x;
        if (!parse_u64(value, 1u << 30, &x) || x < 4096)
            return complain(c, "%s: Max Buffer must be a number of bytes from 4096 to %u",
                            c->path, 1u << 30);
        *max_buffer = (size_t)x;
        return 1;
    }
    return -1;
}

static int perflib_key(conf *c, const char *name, const char *value)
{
    perflib_cfg *p = c->perflib;
    pl_plug_guards *g = &p->guards;
    int b, r = limits_key(c, name, value, &p->failure_limit, &p->open_timeout_ms,
                          &p->collect_timeout_ms, &p->max_buffer);
    if (r >= 0)
        return r;
    if (key_is(name, "Configuration Flags")) {
        uint64_t x;
        if (!parse_u64(value, 0x1F, &x))
            return complain(c, "%s: Configuration Flags must be a number from 0 to 0x1F", c->path);
        g->check_alignment = !(x & 0x1);
        p->guards.check_buffers = g->check_timeouts = !(x & 0x4);
        /* 0x8 (disable slow plug-ins) and 0x10 (test trusted ones too): perflib always does both */
        p->never_disable = (x & 0x2) != 0;
        return 1;
    }
    U32_KEY("ExtCounterTestLevel", g->test_level, 1, 4)
    static const char *const switches[] = { "Skip Alignment Test", "Never Disable", "Skip Buffer Checks",
                                            "Skip Timeouts", "Disable Performance Counters" };
    for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++) {
        if (!key_is(name, switches[i]))
            continue;
        if (!parse_bool(value, &b))
            return complain(c, "%s: %s must be 0 or 1", c->path, switches[i]);
        switch (i) {
        case 0: g->check_alignment = !b; break;
        case 1: p->never_disable = b; break;
        case 2: g->check_buffers = !b; break;
        case 3: g->check_timeouts = !b; break;
        default: p->disable_all = b; break;
        }
        return 1;
    }
    return complain(c, "%s: [perflib] has no key '%s'", c->path, name);
}

static int plugin_key(conf *c, const char *name, const char *value)
{
    plug_cfg *p = c->plug;
    int r = limits_key(c, name, value, &p->failure_limit, &p->open_timeout_ms,
                       &p->collect_timeout_ms, &p->max_buffer);
    if (r >= 0)
        return r;
    if (key_is(name, "Library"))
        return set_str(c, &p->library, value);
    if (key_is(name, "Open"))
        return set_str(c, &p->open_fn, value);
    if (key_is(name, "Collect"))
        return set_str(c, &p->collect_fn, value);
    if (key_is(name, "Close"))
        return set_str(c, &p->close_fn, value);
    if (key_is(name, "Export")) {
        if (p->nexports == PL_PLUG_MAX_EXPORTS)
            return complain(c, "%s: more than %u Export strings", c->path, PL_PLUG_MAX_EXPORTS);
        return set_str(c, &p->exports[p->nexports++], value);
    }
    U32_KEY("First Counter", p->first_counter, 2, 1u << 30)
    if (key_is(name, "Collect Supports Metadata") || key_is(name, "Disable Performance Counters")) {
        int b;
        if (!parse_bool(value, &b))
            return complain(c, "%s: %s must be 0 or 1", c->path, name);
        *(key_is(name, "Disable Performance Counters") ? &p->disabled : &p->metadata) = b;
        return 1;
    }
    return complain(c, "%s: [plugin] has no key '%s'", c->path, name);
}

/* "Counter 2" / "Help 2": the offset, or -1. */
static long keyed_offset(const char *name, const char *word)
{
    size_t n = strlen(word);
    uint64_t x;
    if (strncasecmp(name, word, n) != 0 || !isspace((unsigned char)name[n]))
        return -1;
    name += n;
    while (isspace((unsigned char)*name))
        name++;
    return parse_u64(name, 1u << 30, &x) ? (long)x : -1;
}

static plug_counter_cfg *counter_at(conf *c, uint32_t off)
{
    plug_obj_cfg *o = c->obj;
    for (uint32_t i = 0; i < o->ncounters; i++)
        if (o->counters[i].offset == off)
            return &o->counters[i];
    if (o->ncounters == PL_PLUG_MAX_COUNTERS) {
        complain(c, "%s: object '%s' has more than %u counters", c->path, o->name, PL_PLUG_MAX_COUNTERS);
        return NULL;
    }
    plug_counter_cfg *a = realloc(o->counters, (o->ncounters + 1) * sizeof *a);
    if (!a) {
        c->nomem = 1;
        return NULL;
    }
    o->counters = a;
    a[o->ncounters] = (plug_counter_cfg){ off, NULL, NULL, 0, 0, 0 };
    return &a[o->ncounters++];
}

/* "Unit 2 = KiB" / "Semantics 2 = counter" of the counter at offset off. */
static int counter_units(conf *c, const char *name, const char *value, long off)
{
    plug_counter_cfg *k;
    pl_unit_kind u;
    pl_semantics sem;
    double scale;
    int unit = strncasecmp(name, "Unit", 4) == 0;
    if (off % 2)
        return complain(c, "%s: counter offset %ld is odd: names are even, help is name + 1", c->path, off);
    if (unit && pl_unit_parse_scaled(value, &u, &scale))
        return complain(c, "%s: %s of object '%s' is '%s', not a unit (bytes, seconds, count, percent, "
                        "KiB, ms, MHz ...)", c->path, name, c->obj->name, value);
    if (!unit && pl_semantics_parse(value, &sem))
        return complain(c, "%s: %s of object '%s' is '%s', not counter, gauge or discrete", c->path, name,
                        c->obj->name, value);
    if (!(k = counter_at(c, (uint32_t)off)))
        return 0;
    if (unit) {
        k->unit = (uint8_t)u;
        k->unit_scale = scale;
    } else {
        k->semantics = (uint8_t)sem;
    }
    return 1;
}

static int object_key(conf *c, const char *name, const char *value)
{
    plug_obj_cfg *o = c->obj;
    long off;
    if (key_is(name, "Help"))
        return text_value(c, &o->help, name, value);
    if (key_is(name, "Offset")) {
        uint64_t x;
        if (!parse_u64(value, 1u << 30, &x))
            return complain(c, "%s: Offset must be a number from 0 to %u", c->path, 1u << 30);
        o->offset = (uint32_t)x;
        return 1;
    }
    if (key_is(name, "Index")) {
        uint64_t x;
        if (strcasecmp(value, "auto") == 0)
            return (o->index = PL_INDEX_ASSIGN, 1);
        if (!parse_u64(value, PL_INDEX_ASSIGNED_BASE - PL_INDEX_SPAN, &x) || x == 0 || x % PL_INDEX_SPAN)
            return complain(c, "%s: Index of object '%s' must be auto or a multiple of %u below %u",
                            c->path, o->name, PL_INDEX_SPAN, PL_INDEX_ASSIGNED_BASE);
        o->index = (uint32_t)x;
        return 1;
    }
    if (key_is(name, "GUID")) {
        if (pl_guid_parse(value, &o->guid))
            return complain(c, "%s: GUID of object '%s' is not a GUID", c->path, o->name);
        return (o->has_guid = 1);
    }
    if (key_is(name, "Costly")) {
        if (!parse_bool(value, &o->costly))
            return complain(c, "%s: Costly must be 0 or 1", c->path);
        return 1;
    }
    int help = 0;
    if ((off = keyed_offset(name, "Unit")) >= 0 || (off = keyed_offset(name, "Semantics")) >= 0)
        return counter_units(c, name, value, off);
    if ((off = keyed_offset(name, "Counter")) < 0 && (off = keyed_offset(name, "Help")) >= 0)
        help = 1;
    if (off < 0)
        return complain(c, "%s: [object %s] has no key '%s'", c->path, o->name, name);
    if (off % 2)
        return complain(c, "%s: counter offset %ld is odd: names are even, help is name + 1", c->path, off);
    plug_counter_cfg *k = counter_at(c, (uint32_t)off);
    if (!k)
        return 0;
    return text_value(c, help ? &k->help : &k->name, name, value);
}

static int section_start(conf *c, const char *section)
{
    if (c->perflib)
        return strcasecmp(section, "perflib") == 0 ? 1
                   : complain(c, "%s: section [%s]: perflib.conf has only [perflib]", c->path, section);
    if (strcasecmp(section, "plugin") == 0) {
        c->obj = NULL;
        return 1;
    }
    if (strncasecmp(section, "object", 6) != 0 || !isspace((unsigned char)section[6]))
        return complain(c, "%s: section [%s]: a plug-in file has [plugin] and [object <name>]", c->path,
                        section);
    const char *nm = section + 7;
    while (isspace((unsigned char)*nm))
        nm++;
    if (!*nm)
        return complain(c, "%s: [object] needs a name", c->path);
    plug_cfg *p = c->plug;
    for (uint32_t i = 0; i < p->nobjs; i++)
        if (strcasecmp(p->objs[i].name, nm) == 0)
            return complain(c, "%s: object '%s' is configured twice", c->path, nm);
    if (p->nobjs == PL_PLUG_MAX_OBJECTS)
        return complain(c, "%s: more than %u objects", c->path, PL_PLUG_MAX_OBJECTS);
    c->obj = &p->objs[p->nobjs++];
    memset(c->obj, 0, sizeof *c->obj);
    c->obj->offset = UINT32_MAX;
    return set_str(c, &c->obj->name, nm);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    conf *c = user;
    int r;
    if (c->bad || c->nomem)
        return 1;                         /* the first problem is the one reported */
    if (!*section)
        return complain(c, "%s: '%s' comes before any [section]", c->path, name);
    if (strcmp(section, c->section) != 0) {
        snprintf(c->section, sizeof c->section, "%s", section);
        free(c->last_key);
        c->last_key = NULL;
        if (!section_start(c, section))
            return 0;
    }
    if (c->perflib)
        r = perflib_key(c, name, value);
    else if (c->obj)
        r = object_key(c, name, value);
    else
        r = plugin_key(c, name, value);
    if (r && !c->nomem && (!c->last_key || strcmp(c->last_key, name) != 0)) {
        free(c->last_key);
        if (!(c->last_key = strdup(name)))
            c->nomem = 1;
    }
    return r;
}

/* The whole file, refused past CONF_MAX_BYTES or with a line inih would cut. */
static int slurp(const char *path, char **out, char *msg, size_t msgsize)
{
    FILE *f = fopen(path, "re");
    char *buf = NULL;
    size_t len = 0, line = 1, col = 0;
    int e = 0;
    if (!f) {
        e = errno;
        snprintf(msg, msgsize, "%s: %s", path, strerror(e));
        return e;
    }
    if (!(buf = malloc(CONF_MAX_BYTES + 1))) {
        fclose(f);
        return ENOMEM;
    }
    len = fread(buf, 1, CONF_MAX_BYTES + 1, f);
    if (ferror(f))
        e = errno ? errno : EIO;
    fclose(f);
    if (!e && len > CONF_MAX_BYTES)
        e = EFBIG;
    if (e) {
        snprintf(msg, msgsize, "%s: %s", path, e == EFBIG ? "larger than 1 MiB" : strerror(e));
        free(buf);
        return e == EFBIG ? EINVAL : e;
    }
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++, col++) {
        if (buf[i] == '\n') {
            line++;
            col = (size_t)-1;
        } else if (buf[i] == '\0' || col >= CONF_MAX_LINE) {
            snprintf(msg, msgsize, "%s:%zu: %s", path, line,
                     buf[i] ? "line longer than 199 characters (continue a value on an indented line)"
                            : "a NUL byte");
            free(buf);
            return EINVAL;
        }
    }
    *out = buf;
    return 0;
}

static int parse(conf *c)
{
    char *text = NULL;
    int e = slurp(c->path, &text, c->msg, c->msgsize), line;
    if (e)
        return e;
    line = ini_parse_string(text, handler, c);
    free(text);
    free(c->last_key);
    c->last_key = NULL;
    if (c->nomem)
        return ENOMEM;
    if (c->bad || line) {
        if (!c->bad)
            snprintf(c->msg, c->msgsize, "%s:%d: not a [section], a key = value or a comment", c->path,
                     line);
        else if (line > 0) {          /* put the line number in front of the sentence */
            char tmp[512];
            const char *rest = c->msg + strlen(c->path) + 2;
            snprintf(tmp, sizeof tmp, "%s:%d: %s", c->path, line, rest);
            snprintf(c->msg, c->msgsize, "%s", tmp);
        }
        return EINVAL;
    }
    return 0;
}

int pl_perflib_cfg_read(const char *path, perflib_cfg *pc, char *msg, size_t msgsize)
{
    conf c = { .path = path, .msg = msg, .msgsize = msgsize, .perflib = pc };
    return parse(&c);
}

/* What the file must say, and what its counters may not repeat. */
static int check_plugin(conf *c)
{
    plug_cfg *p = c->plug;
    if (!p->library || !p->open_fn || !p->collect_fn || !p->close_fn)
        return complain(c, "%s: [plugin] needs Library, Open, Collect and Close", c->path);
    if (p->first_counter % 2)
        return complain(c, "%s: First Counter %u is odd: name indexes are even", c->path, p->first_counter);
    if (!p->nobjs)
        return complain(c, "%s: no [object <name>] section", c->path);
    for (uint32_t i = 0; i < p->nobjs; i++) {
        plug_obj_cfg *o = &p->objs[i];
        if (o->offset == UINT32_MAX)
            return complain(c, "%s: object '%s' needs its Offset", c->path, o->name);
        if (o->offset % 2)
            return complain(c, "%s: object '%s': Offset %u is odd", c->path, o->name, o->offset);
        for (uint32_t k = 0; k < o->ncounters; k++)
            if (!o->counters[k].name)
                return complain(c, "%s: object '%s': Help %u without Counter %u", c->path, o->name,
                                o->counters[k].offset, o->counters[k].offset);
        for (uint32_t j = 0; j < p->nobjs; j++) {
            const plug_obj_cfg *q = &p->objs[j];
            for (uint32_t k = 0; k < q->ncounters; k++)
                if (q->counters[k].offset == o->offset)
                    return complain(c, "%s: object '%s' and counter '%s' share offset %u", c->path,
                                    o->name, q->counters[k].name, o->offset);
            for (uint32_t k = 0; j > i && k < q->ncounters; k++)
                for (uint32_t m = 0; m < o->ncounters; m++)
                    if (q->counters[k].offset == o->counters[m].offset)
                        return complain(c, "%s: counters '%s' and '%s' share offset %u", c->path,
                                        o->counters[m].name, q->counters[k].name, q->counters[k].offset);
            if (j > i && q->offset == o->offset)
                return complain(c, "%s: objects '%s' and '%s' share offset %u", c->path, o->name,
                                q->name, o->offset);
        }
    }
    return 1;
}

/* name.plugin -> name */
static int name_from_path(conf *c)
{
    const char *b = strrchr(c->path, '/');
    b = b ? b + 1 : c->path;
    size_t n = strlen(b);
    if (n > 7 && strcmp(b + n - 7, ".plugin") == 0)
        n -= 7;
    if (!(c->plug->name = strndup(b, n)) || !(c->plug->file = strdup(c->path))) {
        c->nomem = 1;
        return 0;
    }
    return 1;
}

int pl_plug_cfg_read(const char *path, plug_cfg *p, char *msg, size_t msgsize)
{
    conf c = { .path = path, .msg = msg, .msgsize = msgsize, .plug = p };
    int e;
    memset(p, 0, sizeof *p);
    p->first_counter = DEF_FIRST_COUNTER;
    if (!name_from_path(&c))
        e = ENOMEM;
    else if (!(e = parse(&c)) && !check_plugin(&c))
        e = EINVAL;
    if (e)
        pl_plug_cfg_free(p);
    return e;
}

void pl_plug_cfg_free(plug_cfg *p)
{
    free(p->name);
    free(p->file);
    free(p->library);
    free(p->open_fn);
    free(p->collect_fn);
    free(p->close_fn);
    for (unsigned i = 0; i < p->nexports; i++)
        free(p->exports[i]);
    for (uint32_t i = 0; i < p->nobjs; i++) {
        plug_obj_cfg *o = &p->objs[i];
        for (uint32_t k = 0; k < o->ncounters; k++) {
            free(o->counters[k].name);
            free(o->counters[k].help);
        }
        free(o->counters);
        free(o->name);
        free(o->help);
    }
    memset(p, 0, sizeof *p);
}

const plug_obj_cfg *pl_plug_cfg_object(const plug_cfg *p, uint32_t title)
{
    for (uint32_t i = 0; i < p->nobjs; i++)
        if ((uint64_t)p->first_counter + p->objs[i].offset == title)
            return &p->objs[i];
    return NULL;
}

const plug_counter_cfg *pl_plug_cfg_counter(const plug_cfg *p, const plug_obj_cfg *o, uint32_t title)
{
    for (uint32_t k = 0; k < o->ncounters; k++)
        if ((uint64_t)p->first_counter + o->counters[k].offset == title)
            return &o->counters[k];
    return NULL;
}
