/* Remote machines (remote.h): definitions from the host's metadata, values
 * from its data blocks. */
#include "remote.h"
#include "remote_http.h"
#include "pl_datablock.h"
#include "pl_expose.h"
#include "pl_provider.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 4096
#define MAX_NAME 1024                    /* bytes of a set's or counter's name */
#define MAX_HELP 65536
#define DEFAULT_PORT "9464"

/* One remote set: the definition a query sees (under the remote's name, or
 * "\\host\Name" when attached) and the remote's own. */
typedef struct rset {
    pl_remote *r;
    const pl_counterset_def *orig;       /* in r->env: GUID for the paths, pl_db_read's lookup */
} rset;

struct pl_remote {
    char *host, *token, *cacert;         /* what it was made with: its identity in the cache */
    int tls;
    pl_http http;
    pthread_mutex_t lock;                /* one request at a time on the connection */
    pl_env *env;                         /* the remote's sets as they are */
    pl_counterset_def *sets, *attached;  /* nsets each; attached made at the first attach */
    rset *rsets;                         /* nsets: the sets' provider data */
    uint32_t nsets;
    pl_remote *next;
};

/* Every remote ever made: environments and samples point at their definitions. */
static pthread_mutex_t remotes_lock = PTHREAD_MUTEX_INITIALIZER;
static pl_remote *remotes;

static int r_open_set(pl_env *env, const pl_counterset_def *cs, void **state);
static void r_close(void *state);
static int r_instances(void *state, pl_snapshot *snap);
static int r_collect(void *state, const uint8_t *wanted, pl_snapshot *snap);
static const pl_provider_ops remote_ops = {
    .open = NULL, .close = r_close, .instances = r_instances, .collect = r_collect, .open_set = r_open_set,
};

/* ---- metadata ------------------------------------------------------------------------ */

/* A string field of o, bounded, copied (NULL with a sentence when wrong). */
static const char *jstr(json_t *o, const char *k, size_t max, int empty_ok, const char *what, char *msg,
                        size_t size)
{
    json_t *v = json_object_get(o, k);
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    size_t n = s ? json_string_length(v) : 0;
    if (!s || n > max || strlen(s) != n || (!empty_ok && n == 0)) {
        pl_say(0, msg, size, "%s: '%s' is not a string of up to %zu bytes", what, k, max);
        return NULL;
    }
    return strdup(s);
}

static int jint(json_t *o, const char *k, long long lo, long long hi, long long *out, const char *what, char *msg,
                size_t size)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return pl_say(EPROTO, msg, size, "%s: '%s' is not an integer in [%lld, %lld]", what, k, lo, hi);
    *out = json_integer_value(v);
    return 0;
}

static int read_counter(json_t *o, pl_counter_def *c, const char *set, char *msg, size_t size)
{
    char what[160];
    long long id, type, detail, scale, csize, base = PL_NO_ID;
    pl_unit_kind kind;
    pl_semantics sem;
    snprintf(what, sizeof what, "counterset '%.80s': a counter", set);
    if (!json_is_object(o))
        return pl_say(EPROTO, msg, size, "%s is not an object", what);
    if (jint(o, "id", 0, PL_MAX_COUNTER_ID, &id, what, msg, size) ||
        jint(o, "type", 0, UINT32_MAX, &type, what, msg, size) ||
        jint(o, "detail", 0, UINT32_MAX, &detail, what, msg, size) ||
        jint(o, "scale", -20, 20, &scale, what, msg, size) || jint(o, "size", 4, 8, &csize, what, msg, size))
        return EPROTO;
    if (!json_is_null(json_object_get(o, "base_id")) && jint(o, "base_id", 0, PL_MAX_COUNTER_ID, &base, what, msg, size))
        return EPROTO;
    json_t *us = json_object_get(o, "unit_scale"), *un = json_object_get(o, "unit"),
           *se = json_object_get(o, "semantics");
    if (!pl_type_known((uint32_t)type) || (csize != 4 && csize != 8) || !json_is_number(us) ||
        !(json_number_value(us) > 0) || !json_is_string(un) || pl_unit_parse(json_string_value(un), &kind) ||
        !json_is_string(se) || pl_semantics_parse(json_string_value(se), &sem))
        return pl_say(EPROTO, msg, size, "%s %lld: its type, size or units are not perflib's", what, id);
    c->id = (uint32_t)id;
    c->type = (uint32_t)type;
    c->base_id = (uint32_t)base;
    c->detail = (uint32_t)detail;
    c->scale = (int32_t)scale;
    c->size = (uint32_t)csize;
    c->unit = (uint8_t)kind;
    c->semantics = (uint8_t)sem;
    c->unit_scale = json_number_value(us);
    c->name = jstr(o, "name", MAX_NAME, 0, what, msg, size);
    c->help = c->name ? jstr(o, "help", MAX_HELP, 1, what, msg, size) : NULL;
    if (!c->help)
        return EPROTO;
    char why[160];
    if (pl_units_check(c, why, sizeof why))      /* units that contradict the type, as publishers are held to */
        return pl_say(EPROTO, msg, size, "%s %lld: %s", what, id, why);
    return 0;
}

static int read_set(json_t *o, pl_counterset_def *cs, rset *rs, char *msg, size_t size)
{
    long long index;
    const char *g, *it;
    if (!json_is_object(o))
        return pl_say(EPROTO, msg, size, "a counterset is not an object");
    if (!(cs->name = jstr(o, "name", MAX_NAME, 0, "a counterset", msg, size)))
        return EPROTO;
    json_t *gv = json_object_get(o, "guid"), *itv = json_object_get(o, "instance_type"),
           *ctrs = json_object_get(o, "counters");
    g = json_is_string(gv) ? json_string_value(gv) : "";
    it = json_is_string(itv) ? json_string_value(itv) : "";
    if (pl_guid_parse(g, &cs->guid) || (strcmp(it, "single") && strcmp(it, "multiple")) ||
        !json_is_array(ctrs) || json_array_size(ctrs) > PL_MAX_COUNTER_ID + 1 || strchr(cs->name, '\\'))
        return pl_say(EPROTO, msg, size, "counterset '%.80s': its guid, instance_type, name or counters are "
                      "not perflib's", cs->name);
    if (jint(o, "index", PL_INDEX_SPAN, UINT32_MAX - PL_INDEX_SPAN, &index, cs->name, msg, size) ||
        !(cs->help = jstr(o, "help", MAX_HELP, 1, cs->name, msg, size)))
        return EPROTO;
    cs->index = (uint32_t)index;
    cs->costly = json_is_true(json_object_get(o, "costly"));
    cs->instance_type = *it == 's' ? PERF_COUNTERSET_SINGLE_INSTANCE : PERF_COUNTERSET_MULTI_INSTANCES;
    cs->ncounters = (uint32_t)json_array_size(ctrs);
    pl_counter_def *c = calloc(cs->ncounters ? cs->ncounters : 1, sizeof *c);
    if (!c)
        return pl_say(ENOMEM, msg, size, "out of memory");
    cs->counters = c;
    for (uint32_t i = 0; i < cs->ncounters; i++) {
        int e = read_counter(json_array_get(ctrs, i), &c[i], cs->name, msg, size);
        if (e)
            return e;
        if (pl_counter_index(cs, c[i].id) != (int)i)
            return pl_say(EPROTO, msg, size, "counterset '%.80s': counter id %u twice", cs->name,
                          (unsigned)c[i].id);
    }
    cs->ops = &remote_ops;
    cs->provider_data = rs;
    return 0;
}

/* The sets of the metadata text buf into r->sets and r->env. */
static int read_metadata(pl_remote *r, const char *buf, size_t len, char *msg, size_t size)
{
    json_error_t jerr;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    json_t *arr = json_object_get(root, "countersets");
    int e = 0;
    if (!json_is_array(arr) || json_array_size(arr) > MAX_SETS) {
        json_decref(root);
        return pl_say(EPROTO, msg, size, "%s: the metadata is not perflib's (%s)", r->host,
                      root ? "no countersets array" : jerr.text);
    }
    r->nsets = (uint32_t)json_array_size(arr);
    r->sets = calloc(r->nsets ? r->nsets : 1, sizeof *r->sets);
    rset *rs = r->rsets = calloc(r->nsets ? r->nsets : 1, sizeof *rs);
    char top[300];
    snprintf(top, sizeof top, "\\\\%s", r->host);
    r->env = pl_env_new_empty(top);
    if (!r->sets || !rs || !r->env)
        e = pl_say(ENOMEM, msg, size, "out of memory");
    for (uint32_t i = 0; !e && i < r->nsets; i++) {
        rs[i].r = r;
        rs[i].orig = &r->sets[i];
        e = read_set(json_array_get(arr, i), &r->sets[i], &rs[i], msg, size);
        if (!e && pl_env_mirror(r->env, &r->sets[i], NULL))
            e = pl_say(EPROTO, msg, size, "%s: counterset '%.80s' clashes with another of its sets", r->host,
                       r->sets[i].name);
    }
    json_decref(root);
    return e;
}

/* ---- remotes ---------------------------------------------------------------------------- */

static int check_host(const char *h)
{
    size_t n = h ? strlen(h) : 0;
    if (n == 0 || n > 255)
        return EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(h[i] >= 'a' && h[i] <= 'z') && !(h[i] >= 'A' && h[i] <= 'Z') && !(h[i] >= '0' && h[i] <= '9') &&
            !strchr(".-_:[]", h[i]))
            return EINVAL;
    return 0;
}

/* A remote that failed before it was shared: nothing points at it yet. */
static void remote_free(pl_remote *r)
{
    for (uint32_t i = 0; r->sets && i < r->nsets; i++) {
        pl_counterset_def *cs = &r->sets[i];
        for (uint32_t c = 0; cs->counters && c < cs->ncounters; c++) {
            free((char *)(uintptr_t)cs->counters[c].name);
            free((char *)(uintptr_t)cs->counters[c].help);
        }
        free((void *)(uintptr_t)cs->counters);
        free((char *)(uintptr_t)cs->name);
        free((char *)(uintptr_t)cs->help);
    }
    free(r->sets);
    free(r->rsets);
    pl_env_unref(r->env);
    pl_http_free(&r->http);
    pthread_mutex_destroy(&r->lock);
    free(r->host);
    free(r->token);
    free(r->cacert);
    free(r);
}

static pl_remote *remote_new(const pl_remote_opts *o, long ms, char *msg, size_t size)
{
    char base[300];
    pl_remote *r = calloc(1, sizeof *r);
    if (!r || !(r->host = strdup(o->host)) || (o->token && !(r->token = strdup(o->token))) ||
        (o->cacert && !(r->cacert = strdup(o->cacert)))) {
        if (r) {
            free(r->host);
            free(r->token);
        }
        free(r);
        errno = ENOMEM;
        pl_say(0, msg, size, "out of memory");
        return NULL;
    }
    r->tls = o->tls;
    pthread_mutex_init(&r->lock, NULL);
    snprintf(base, sizeof base, "%s://%s%s", o->tls ? "https" : "http", o->host,
             strrchr(o->host, ':') && o->host[strlen(o->host) - 1] != ']' ? "" : ":" DEFAULT_PORT);
    int e = pl_http_init(&r->http, base, o->token, o->cacert, ms, msg, size);
    if (!e)
        e = pl_http_request(&r->http, "/api/v1/countersets", NULL, 0, PL_REMOTE_MAX_METADATA, msg, size);
    if (!e)
        e = read_metadata(r, r->http.buf, r->http.len, msg, size);
    if (e) {
        remote_free(r);
        errno = e;
        return NULL;
    }
    return r;
}

static int same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

pl_remote *pl_remote_get(const pl_remote_opts *o, char *msg, size_t size)
{
    double t = o ? (o->timeout ? o->timeout : 5.0) : 0;
    if (!o || check_host(o->host) || !(t > 0 && t <= 3600) || (o->token && (!*o->token ||
        strpbrk(o->token, " \t\r\n")))) {
        errno = EINVAL;
        pl_say(0, msg, size, "%s", !o || check_host(o->host) ? "host must be name:port (letters, digits, . - _ : [ ])"
               : !(t > 0 && t <= 3600) ? "timeout must be seconds in (0, 3600]"
               : "token must be a non-empty string without spaces");
        return NULL;
    }
    long ms = (long)(t * 1000.0) > 0 ? (long)(t * 1000.0) : 1;
    pthread_mutex_lock(&remotes_lock);
    pl_remote *r = remotes;
    while (r && !(strcasecmp(r->host, o->host) == 0 && r->tls == !!o->tls && same(r->token, o->token) &&
                  same(r->cacert, o->cacert)))
        r = r->next;
    if (r) {
        pthread_mutex_lock(&r->lock);
        r->http.timeout_ms = ms;
        pthread_mutex_unlock(&r->lock);
    } else if ((r = remote_new(o, ms, msg, size)) != NULL) {
        r->next = remotes;
        remotes = r;
    }
    pthread_mutex_unlock(&remotes_lock);
    return r;
}

int pl_remote_check_metadata(const void *json, size_t len, uint32_t *nsets, char *msg, size_t size)
{
    pl_remote *r = calloc(1, sizeof *r);
    if (!r || !(r->host = strdup("metadata"))) {
        free(r);
        return pl_say(ENOMEM, msg, size, "out of memory");
    }
    pthread_mutex_init(&r->lock, NULL);
    int e = read_metadata(r, json, len, msg, size);
    if (!e && nsets)
        *nsets = r->nsets;
    remote_free(r);
    return e;
}

pl_env *pl_remote_env(pl_remote *r) { return pl_env_ref(r->env); }
const char *pl_remote_host(const pl_remote *r) { return r->host; }

/* The remote's sets named "\\host\Set", with GUIDs of those names; NULL for ENOMEM. */
static pl_counterset_def *make_attached(const pl_remote *r)
{
    pl_counterset_def *a = calloc(r->nsets ? r->nsets : 1, sizeof *a);
    uint32_t i;
    for (i = 0; a && i < r->nsets; i++) {
        size_t n = strlen(r->host) + strlen(r->sets[i].name) + 4;
        char *name = malloc(n);
        if (!name)
            break;
        snprintf(name, n, "\\\\%s\\%s", r->host, r->sets[i].name);
        a[i] = r->sets[i];
        a[i].name = name;
        a[i].guid = pl_name_guid("remote", name);
        a[i].index = 0;
    }
    if (a && i < r->nsets) {
        while (i-- > 0)
            free((char *)(uintptr_t)a[i].name);
        free(a);
        a = NULL;
    }
    return a;
}

int pl_remote_attach(pl_remote *r, pl_env *env, char *msg, size_t size)
{
    int e = 0;
    pthread_mutex_lock(&remotes_lock);
    if (!r->attached && !(r->attached = make_attached(r)))
        e = pl_say(ENOMEM, msg, size, "out of memory");
    for (uint32_t i = 0; !e && i < r->nsets; i++) {
        pl_counterset_def *a = &r->attached[i];
        if (pl_env_find_guid(env, &a->guid) == a)
            continue;
        uint32_t idx = 0;
        e = pl_env_mirror(env, a, a->index ? NULL : &idx);
        if (!e && !a->index)
            a->index = idx;
        if (e)
            pl_say(0, msg, size, "cannot attach '%s': %s", a->name, strerror(e));
    }
    pthread_mutex_unlock(&remotes_lock);
    return e;
}

int pl_remote_ping(pl_remote *r, const char *path, char *msg, size_t size)
{
    pthread_mutex_lock(&r->lock);
    int e = pl_http_request(&r->http, path, NULL, 0, 4096, msg, size);
    pthread_mutex_unlock(&r->lock);
    return e;
}

/* ---- the provider ------------------------------------------------------------------------ */

typedef struct rstate {
    const rset *rs;
    pl_text body;                        /* the posted paths, rebuilt in place */
    pl_membuf smp;                       /* pl_db_read's sample, reused */
    char msg[320];                       /* the sentence of the last failure (snap->err_msg) */
} rstate;

static int r_open_set(pl_env *env, const pl_counterset_def *cs, void **state)
{
    (void)env;
    rstate *st = calloc(1, sizeof *st);
    if (!st)
        return ENOMEM;
    st->rs = cs->provider_data;
    *state = st;
    return 0;
}

static void r_close(void *state)
{
    rstate *st = state;
    if (!st)
        return;
    pl_text_free(&st->body);
    free(st->smp.mem);
    free(st);
}


static int out_of_star(const pl_counter_def *c)
{
    return pl_counter_hidden(c) || c->detail > PERF_DETAIL_EXPERT;
}

/* \{guid}(*)\* for the counters a wildcard takes in, then one line per
 * wanted counter it leaves out (bases, wizard-level counters): one result
 * for most of the set, a few more at most. */
static void put_paths(rstate *st, const uint8_t *wanted)
{
    const pl_counterset_def *cs = st->rs->orig;
    const char *inst = cs->instance_type == PERF_COUNTERSET_MULTI_INSTANCES ? "(*)" : "";
    char g[PL_GUID_STRLEN + 1];
    int star = 0;
    pl_guid_format(&cs->guid, g);
    for (uint32_t i = 0; i < cs->ncounters; i++)
        star |= !out_of_star(&cs->counters[i]);
    st->body.len = 0;
    if (star)        /* the server refuses a line that names no counter */
        pl_text_printf(&st->body, "\\{%s}%s\\*\n", g, inst);
    for (uint32_t i = 0; i < cs->ncounters; i++)
        if (((!wanted || wanted[i]) && out_of_star(&cs->counters[i])) || (!star && i == 0 && !st->body.len))
            pl_text_printf(&st->body, "\\{%s}%s\\%s\n", g, inst, cs->counters[i].name);
}

static int fail(rstate *st, pl_snapshot *snap, int e, const char *fmt, const char *detail)
{
    snprintf(st->msg, sizeof st->msg, fmt, st->rs->r->host, detail);
    snap->err_msg = st->msg;
    return e;
}

/* The snapshot's instance for instance i of block b: the same index when the
 * blocks list them alike (one collect), else looked up; -1 if none. */
static int snap_inst(pl_snapshot *snap, const pl_sample *s, const pl_block *b, uint32_t i)
{
    uint32_t id = pl_sample_inst_id(s, b, i);
    const char *name = pl_sample_inst_name(s, b, i);
    for (uint32_t k = 0; k < snap->ninst; k++) {
        uint32_t j = (i + k) % snap->ninst;
        if (snap->inst[j].id == id && strcmp(pl_snap_name(snap, j), name) == 0)
            return (int)j;
    }
    return -1;
}

/* The values of block b into snap (instances from the first good block). */
static int take_block(pl_snapshot *snap, const pl_sample *s, const pl_block *b, int first)
{
    const pl_counterset_def *cs = snap->cs;
    for (uint32_t i = 0; first && i < b->ninst; i++)
        if (pl_snap_add_key(snap, pl_sample_inst_name(s, b, i), pl_sample_inst_id(s, b, i),
                            pl_sample_inst_key(s, b, i)) < 0)
            return ENOMEM;
    for (uint32_t c = 0; c < b->ncounters; c++) {
        const pl_counter_def *def = pl_sample_counter(s, b, c);
        int ci = pl_counter_index(cs, def->id);
        int bi = def->base_id == PL_NO_ID ? -1 : pl_counter_index(cs, def->base_id);
        for (uint32_t i = 0; ci >= 0 && i < b->ninst; i++) {
            size_t k = b->vals_off + (size_t)i * b->ncounters + c;
            int si = s->have[k] ? snap_inst(snap, s, b, i) : -1;
            if (si < 0)
                continue;
            if (s->have[k] == PL_HAVE_NO_ACCESS) {      /* the remote could not read it either */
                pl_snap_deny(snap, (uint32_t)si, (uint32_t)ci);
                continue;
            }
            pl_snap_set(snap, (uint32_t)si, (uint32_t)ci, s->vals[k].v);
            if (bi >= 0 && s->have[k] != PL_HAVE_NO_BASE)
                pl_snap_set(snap, (uint32_t)si, (uint32_t)bi, s->vals[k].b);
        }
    }
    if (b->obj_freq) {
        snap->obj_time = b->obj_time;
        snap->obj_freq = b->obj_freq;
    }
    snap->time = b->time;
    snap->time_foreign = 1;  /* the remote's clock */
    return 0;
}

static int r_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    rstate *st = state;
    pl_remote *r = st->rs->r;
    pl_sample *s = NULL;
    pl_db_error derr;
    int e, good = 0;
    put_paths(st, wanted);
    if (st->body.oom)
        return ENOMEM;
    if (!st->body.len)
        return 0;                        /* a set without counters: nothing to read */
    pthread_mutex_lock(&r->lock);
    e = pl_http_request(&r->http, "/api/v1/query", st->body.p, st->body.len, PL_REMOTE_MAX_BLOCK, st->msg,
                        sizeof st->msg);
    if (!e && (e = pl_db_read(r->env, r->http.buf, r->http.len, pl_membuf_alloc, &st->smp, &s, &derr)) != 0) {
        char d[160];
        snprintf(d, sizeof d, "at offset %zu: %s", derr.offset, derr.rule ? derr.rule : "out of memory");
        e = e == ENOMEM ? ENOMEM : fail(st, snap, EPROTO, "%s: the data block is refused %s", d);
    }
    pthread_mutex_unlock(&r->lock);
    if (e) {
        snap->err_msg = st->msg;
        return e;
    }
    if (s->perf_freq != 10000000)
        return fail(st, snap, EPROTO, "%s: the data block's clock is not perflib's (%s)", "frequency");
    for (uint32_t k = 0; k < s->nblocks; k++) {
        const pl_block *b = &s->blocks[k];
        if (b->cs != st->rs->orig)
            return fail(st, snap, EPROTO, "%s: the data block holds %s", "another counterset");
        if (b->shape == PERF_ERROR_RETURN) {
            if (b->status == PL_NO_DATA && !good)
                e = fail(st, snap, b->err ? b->err : EIO, "%s: %s", b->err_msg ? b->err_msg : "no data there");
            continue;
        }
        if (take_block(snap, s, b, !good))
            return ENOMEM;
        good = 1;
    }
    if (good)
        snap->err_msg = NULL;
    return good ? 0 : e ? e : fail(st, snap, EIO, "%s: %s", "the answer holds no result");
}

static int r_instances(void *state, pl_snapshot *snap)
{
    uint8_t none[PL_MAX_COUNTER_ID + 1] = { 0 };
    return r_collect(state, none, snap);   /* the wildcard line alone */
}
