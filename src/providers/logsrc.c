/* Logs as data sources (logsrc.h): the definitions come from the log's
 * METADATA records, the values from its DATA records, read by a cursor per
 * query and handed to the query as snapshots. */
#include "logsrc.h"
#include "pl_blog.h"
#include "pl_logenc.h"
#include "pl_slog.h"
#include "pl_logutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOG = 1, SLOG = 2 };

typedef struct lfile {
    char *path;
    int kind;                          /* BLOG or SLOG, by the file's first bytes */
    pl_blog_reader checked;            /* BLOG: what pl_blog_read_open found (closed) */
    pl_slog_reader schecked;           /* SLOG: the same (closed): cursors read what it saw */
    char host[PL_BLOG_HOST + 1], perflib[17];
    int64_t created, first, last;
    uint64_t nrecords, ndata;
} lfile;

typedef struct logsrc {
    lfile *files;
    size_t nfiles;
    int64_t from, to;
    pl_env *env;                       /* not a reference: the environment owns the source */
    char *warning;
} logsrc;

typedef struct cursor {
    logsrc *src;
    size_t file;                       /* the file read now */
    pl_blog_reader r;                  /* a BLOG file: r.fd < 0 when none is open */
    pl_slog_reader sr;                 /* an SLOG file: sr.db NULL when none is open */
    pl_sample *s;                      /* the current record's sample, in mem */
    pl_membuf mem;                     /* the current sample's memory, reused */
    char err[600];
} cursor;


/* ---- definitions: merged per log, kept for the process's life ---------- */

/* Samples point at their sets' definitions and may outlive the log's
 * environment, and a log writer compares definitions by address: so each
 * definition a log brings is kept, once per distinct content. */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static pl_counterset_def **kept;
static size_t nkept, capkept;

static const pl_provider_ops log_ops;

static size_t str_size(const char *s) { return s ? strlen(s) + 1 : 0; }

static char *put_str(char **p, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = memcpy(*p, s, n);
    *p += n;
    return d;
}

/* A copy of a's definition with the counters of b it lacks (b may be NULL),
 * in one allocation. */
static pl_counterset_def *merged(const pl_counterset_def *a, const pl_counterset_def *b)
{
    uint32_t n = a->ncounters, extra = 0;
    size_t bytes = str_size(a->name) + str_size(a->help);
    for (uint32_t i = 0; i < n; i++)
        bytes += str_size(a->counters[i].name) + str_size(a->counters[i].help);
    for (uint32_t i = 0; b && i < b->ncounters; i++)
        if (pl_counter_index(a, b->counters[i].id) < 0) {
            extra++;
            bytes += str_size(b->counters[i].name) + str_size(b->counters[i].help);
        }
    pl_counterset_def *cs = calloc(1, sizeof *cs + (n + extra) * sizeof(pl_counter_def) + bytes);
    if (!cs)
        return NULL;
    pl_counter_def *c = (pl_counter_def *)(void *)(cs + 1);
    char *p = (char *)(c + n + extra);
    *cs = *a;
    cs->ops = &log_ops;
    cs->provider_data = NULL;
    cs->name = put_str(&p, a->name);
    cs->help = put_str(&p, a->help);
    for (uint32_t i = 0, k = 0; i < n + (b ? b->ncounters : 0); i++) {
        const pl_counter_def *from = i < n ? &a->counters[i] : &b->counters[i - n];
        if (i >= n && pl_counter_index(a, from->id) >= 0)
            continue;
        c[k] = *from;
        c[k].name = put_str(&p, from->name);
        c[k].help = put_str(&p, from->help);
        k++;
    }
    cs->ncounters = n + extra;
    cs->counters = c;
    return cs;
}

static int same_text(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

/* The kept definition equal to cs (which is freed), or cs kept: NULL for ENOMEM. */
static const pl_counterset_def *keep(pl_counterset_def *cs)
{
    pthread_mutex_lock(&kept_lock);
    for (size_t i = 0; i < nkept; i++) {
        const pl_counterset_def *k = kept[i];
        int same = pl_defs_same(k, cs) && same_text(k->help, cs->help) && k->index == cs->index;
        for (uint32_t c = 0; same && c < cs->ncounters; c++)
            same = same_text(k->counters[c].help, cs->counters[c].help) && k->counters[c].unit == cs->counters[c].unit
                   && k->counters[c].semantics == cs->counters[c].semantics
                   && k->counters[c].unit_scale == cs->counters[c].unit_scale
                   && k->counters[c].detail == cs->counters[c].detail;
        if (same) {
            pthread_mutex_unlock(&kept_lock);
            free(cs);
            return k;
        }
    }
    if (nkept == capkept) {
        size_t n = capkept ? capkept * 2 : 16;
        pl_counterset_def **k = realloc(kept, n * sizeof *k);
        if (!k) {
            pthread_mutex_unlock(&kept_lock);
            free(cs);
            return NULL;
        }
        kept = k;
        capkept = n;
    }
    kept[nkept++] = cs;
    pthread_mutex_unlock(&kept_lock);
    return cs;
}

/* The sets of a log while it is read: the merge of every definition of each GUID. */
typedef struct defset {
    pl_counterset_def **sets;
    size_t n, cap;
} defset;

static void defset_free(defset *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->sets[i]);
    free(d->sets);
}

/* A counter of a that b defines otherwise, or NULL. */
static const pl_counter_def *clash(const pl_counterset_def *a, const pl_counterset_def *b)
{
    for (uint32_t i = 0; i < b->ncounters; i++) {
        int k = pl_counter_index(a, b->counters[i].id);
        const pl_counter_def *x = k < 0 ? NULL : &a->counters[k], *y = &b->counters[i];
        if (x && (x->type != y->type || x->base_id != y->base_id || (x->size ? x->size : 8) != (y->size ? y->size : 8)
                  || x->scale != y->scale))
            return y;
    }
    return NULL;
}

/* Takes the definitions of one METADATA record into d: 0, or EINVAL/ENOMEM with msg. */
static int take_defs(defset *d, const pl_defs *defs, const char *path, uint64_t off, char *msg, size_t size)
{
    for (uint32_t i = 0; i < defs->nsets; i++) {
        const pl_counterset_def *cs = &defs->sets[i];
        size_t k;
        for (k = 0; k < d->n && !pl_guid_equal(&d->sets[k]->guid, &cs->guid); k++)
            ;
        if (k < d->n) {
            const pl_counter_def *c = clash(d->sets[k], cs);
            if (c || !same_text(d->sets[k]->name, cs->name)) {
                pl_say(msg, size, "%s: offset %llu: counterset '%s' is defined again otherwise (%s%s)", path,
                    (unsigned long long)off, cs->name, c ? "counter " : "its name", c ? c->name : "");
                return EINVAL;
            }
        } else if (d->n == d->cap) {
            size_t n = d->cap ? d->cap * 2 : 16;
            pl_counterset_def **s = realloc(d->sets, n * sizeof *s);
            if (!s)
                return ENOMEM;
            d->sets = s;
            d->cap = n;
        }
        pl_counterset_def *m = merged(k < d->n ? d->sets[k] : cs, k < d->n ? cs : NULL);
        if (!m)
            return ENOMEM;
        if (k < d->n)
            free(d->sets[k]);
        d->sets[k] = m;
        if (k == d->n)
            d->n++;
    }
    return 0;
}

/* Takes one METADATA record's definitions: 0 or an errno with msg. */
static int take_record(defset *d, const void *data, size_t len, const char *path, uint64_t off, char *msg,
                       size_t size)
{
    pl_defs *defs = NULL;
    pl_db_error err = { 0, NULL };
    int e = pl_defs_read(data, len, &defs, &err);    /* checked by the scan: ENOMEM only */
    if (!e)
        e = take_defs(d, defs, path, off, msg, size);
    else
        pl_say(msg, size, "%s: %s", path, strerror(e));
    pl_defs_free(defs);
    return e;
}

/* A binary log: checked whole, its definitions taken, its torn tail said. */
static int scan_blog(logsrc *src, lfile *f, defset *d, char *msg, size_t size)
{
    pl_db_error err = { 0, NULL };
    int e = pl_blog_read_open(f->path, &f->checked, &err);
    if (e == EINVAL) {
        pl_say(msg, size, "%s: offset %llu: %s", f->path, (unsigned long long)err.offset, err.rule);
        return e;
    }
    if (e) {
        pl_say(msg, size, "%s: %s", f->path, strerror(e));
        return e;
    }
    if (f->checked.info.version < 2) {
        pl_blog_read_close(&f->checked);
        pl_say(msg, size, "%s: a version 1 log has no counter definitions: read it with perflib.read_log", f->path);
        return EINVAL;
    }
    const pl_blog_reader *r = &f->checked;
    memcpy(f->host, r->info.host, sizeof f->host);
    memcpy(f->perflib, r->info.perflib, sizeof f->perflib);
    f->created = r->info.created, f->first = r->first, f->last = r->last;
    f->nrecords = r->nrecords, f->ndata = r->ndata;
    pl_blog_record rec;
    int more;
    while (!e && (more = pl_blog_next(&f->checked, INT64_MAX, INT64_MIN, &rec)) == 1)
        e = take_record(d, rec.data, rec.len, f->path, rec.offset, msg, size);
    if (!e && more < 0) {
        e = -more;
        pl_say(msg, size, "%s: changed while it was read (%s)", f->path, strerror(e));
    }
    if (!e && f->checked.torn) {
        const char *old = src->warning ? src->warning : "";
        size_t n = strlen(old) + strlen(f->path) + 128;
        char *w = malloc(n);
        if (!w)
            e = ENOMEM;
        else {
            snprintf(w, n, "%s%s%s: offset %llu: torn last record ignored (%s)", old, *old ? "; " : "", f->path,
                     (unsigned long long)f->checked.torn, f->checked.torn_rule);
            free(src->warning);
            src->warning = w;
        }
    }
    pl_blog_read_close(&f->checked);                 /* cursors open it again */
    return e;
}

/* An SQLite log: its schema checked, its definitions taken (each payload checked). */
static int scan_slog(lfile *f, defset *d, char *msg, size_t size)
{
    pl_slog_reader r;
    int e = pl_slog_read_open(f->path, &r, msg, size);
    if (e)
        return e;
    memcpy(f->host, r.info.host, sizeof f->host);
    memcpy(f->perflib, r.info.perflib, sizeof f->perflib);
    f->created = r.info.created, f->first = r.first, f->last = r.last_time;
    f->nrecords = r.nrecords, f->ndata = r.ndata;
    pl_slog_record rec;
    int more;
    while (!e && (more = pl_slog_next_defs(&r, &rec)) == 1)
        e = take_record(d, rec.data, rec.len, f->path, (uint64_t)rec.seq, msg, size);
    if (!e && more < 0) {
        e = -more;
        pl_say(msg, size, "%s: %s", f->path, r.msg);
    }
    pl_slog_read_close(&r);
    f->schecked = r;
    return e;
}

/* Checks one file and takes its definitions: 0 or an errno with msg. */
static int scan_file(logsrc *src, lfile *f, defset *d, char *msg, size_t size)
{
    static const char SQLITE[16] = "SQLite format 3";    /* and its NUL */
    char head[16] = "";
    FILE *fp = fopen(f->path, "rb");
    size_t n = fp ? fread(head, 1, sizeof head, fp) : 0;
    if (fp)
        fclose(fp);
    f->kind = n == sizeof head && memcmp(head, SQLITE, sizeof SQLITE) == 0 ? SLOG : BLOG;
    return f->kind == SLOG ? scan_slog(f, d, msg, size) : scan_blog(src, f, d, msg, size);
}

/* ---- the source ------------------------------------------------------------------- */

static void src_free(void *p)
{
    logsrc *src = p;
    for (size_t i = 0; i < src->nfiles; i++)
        free(src->files[i].path);
    free(src->files);
    free(src->warning);
    free(src);
}

static void cur_close(void *p)
{
    cursor *c = p;
    pl_blog_read_close(&c->r);
    pl_slog_read_close(&c->sr);
    free(c->mem.mem);
    free(c);
}

static int cur_open(void *p, void **out)
{
    cursor *c = calloc(1, sizeof *c);
    if (!c)
        return ENOMEM;
    c->src = p;
    c->r.fd = -1;
    c->file = (size_t)-1;                /* before the first */
    *out = c;
    return 0;
}


/* The next DATA or DEFS record in range of the open file: 1 with rec (offset:
 * the binary log's file offset, an SQLite log's Seq), 0 at its end, -errno
 * with c->err. */
static int file_next(cursor *c, const char *path, pl_blog_record *rec)
{
    logsrc *src = c->src;
    if (c->r.fd >= 0) {
        int more = pl_blog_next(&c->r, src->from, src->to, rec);
        if (more < 0)
            pl_say(c->err, sizeof c->err, "%s: %s", path,
                more == -EINVAL ? "a record fails its check (the file changed since it was opened)"
                                : strerror(-more));
        return more;
    }
    if (!c->sr.db)
        return 0;
    pl_slog_record sr;
    int more = pl_slog_next(&c->sr, src->from, src->to, &sr);
    if (more < 0)
        pl_say(c->err, sizeof c->err, "%s: %s", path, c->sr.msg);
    if (more == 1)
        *rec = (pl_blog_record){ sr.type, (uint64_t)sr.seq, sr.data, sr.len, sr.time };
    return more;
}

/* Opens the cursor's next file: 0, or an errno with c->err. */
static int file_open(cursor *c)
{
    lfile *f = &c->src->files[++c->file];
    int e;
    if (f->kind == SLOG) {
        e = pl_slog_read_again(f->path, &f->schecked, &c->sr, c->err, sizeof c->err);
    } else {
        e = pl_blog_read_again(f->path, &f->checked, &c->r);
        if (e)
            pl_say(c->err, sizeof c->err, "%s: %s", f->path,
                e == EINVAL ? "shorter than when it was opened" : strerror(e));
    }
    return e;
}

static int cur_next(void *p, int64_t *perf_time, int64_t *perf_freq, int64_t *time100ns)
{
    cursor *c = p;
    logsrc *src = c->src;
    pl_blog_record rec;
    c->s = NULL;
    for (;;) {
        const char *path = c->file < src->nfiles ? src->files[c->file].path : "";
        int more = file_next(c, path, &rec);
        if (more < 0)
            return -more;
        if (more == 1 && rec.type != PL_BLOG_DATA)
            continue;
        if (more == 1) {
            pl_db_error err = { 0, NULL };
            int e = pl_db_read(src->env, rec.data, rec.len, pl_membuf_alloc, &c->mem, &c->s, &err);
            if (e == EINVAL && src->files[c->file].kind == SLOG)
                pl_say(c->err, sizeof c->err, "%s: Records row Seq %llu: payload offset %zu: %s", path,
                    (unsigned long long)rec.offset, err.offset, err.rule);
            else if (e == EINVAL)
                pl_say(c->err, sizeof c->err, "%s: offset %llu: %s", path,
                    (unsigned long long)(rec.offset + PL_BLOG_RECORD_HEAD + err.offset), err.rule);
            if (e) {
                c->s = NULL;
                return e;
            }
            *perf_time = c->s->perf_time;
            *perf_freq = c->s->perf_freq;
            *time100ns = c->s->time100ns;
            return 0;
        }
        pl_blog_read_close(&c->r);
        pl_slog_read_close(&c->sr);
        if (c->file + 1 >= src->nfiles) {
            c->file = src->nfiles;
            snprintf(c->err, sizeof c->err, "end of the log");
            return ENODATA;
        }
        int e = file_open(c);
        if (e)
            return e;
    }
}

/* Instance i of block b into snap (found, or added): its index, or -1 (ENOMEM). */
static int snap_instance(pl_snapshot *snap, const pl_sample *s, const pl_block *b, uint32_t i, int first)
{
    const char *name = pl_sample_inst_name(s, b, i);
    uint32_t id = pl_sample_inst_id(s, b, i);
    uint64_t key = pl_sample_inst_key(s, b, i);
    for (uint32_t k = 0; !first && k < snap->ninst; k++)
        if (snap->inst[k].id == id && snap->inst[k].key == key && strcmp(pl_snap_name(snap, k), name) == 0)
            return (int)k;
    return pl_snap_add_key(snap, name, id, key);
}

static uint8_t have_of(uint8_t h)
{
    return PL_HAVE_VALUE(h) ? 1 : h == PL_HAVE_NO_ACCESS ? PL_HAVE_NO_ACCESS : 0;
}

/* Block b's values into snap (its instances found or added). */
static int take_block(pl_snapshot *snap, const pl_sample *s, const pl_block *b, const uint8_t *wanted, int first)
{
    const pl_counterset_def *cs = b->cs;
    uint32_t nc = cs->ncounters;
    snap->obj_time = b->obj_time;
    snap->obj_freq = b->obj_freq;
    snap->time = b->time;
    for (uint32_t i = 0; i < b->ninst; i++) {
        int k = snap_instance(snap, s, b, i, first);
        if (k < 0)
            return ENOMEM;
        uint64_t *row = snap->values + (size_t)k * nc;
        uint8_t *hrow = snap->have + (size_t)k * nc;
        for (uint32_t c = 0; c < b->ncounters; c++) {
            uint32_t x = s->cidx[b->counters_off + c];
            const pl_pair *pv = &s->vals[b->vals_off + (size_t)i * b->ncounters + c];
            uint8_t h = s->have[b->vals_off + (size_t)i * b->ncounters + c];
            if (wanted && !wanted[x])
                continue;
            row[x] = pv->v;
            hrow[x] = have_of(h);
            int bx = cs->counters[x].base_id == PL_NO_ID ? -1 : pl_counter_index(cs, cs->counters[x].base_id);
            if (bx >= 0 && h == 1) {              /* the base came with it (pl_pair.b) */
                row[bx] = pv->b;
                hrow[bx] = 1;
            }
        }
    }
    return 0;
}

static int cur_fill(void *p, const pl_counterset_def *cs, const uint8_t *wanted, pl_snapshot *snap)
{
    cursor *c = p;
    const pl_sample *s = c->s;
    int found = 0, err = ENOENT;
    for (uint32_t i = 0; s && i < s->nblocks; i++) {
        const pl_block *b = &s->blocks[i];
        if (b->cs != cs)
            continue;
        if (b->shape == PERF_ERROR_RETURN) {
            if (b->status != PL_NO_INSTANCE && !found) {
                err = b->err ? b->err : ENODATA;   /* recorded as failed: said so, never a value */
                snap->err_msg = b->err_msg;
            } else if (b->status == PL_NO_INSTANCE) {
                found = 1;                         /* the set was read, none of its instances matched */
            }
            continue;
        }
        int e = take_block(snap, s, b, wanted, !found);
        if (e)
            return e;
        found = 1;
    }
    if (found)
        snap->err_msg = NULL;
    return found ? 0 : err;
}

static const char *cur_error(void *p)
{
    cursor *c = p;
    return c->err[0] ? c->err : NULL;
}

static const pl_source_ops source_ops = {
    .open = cur_open, .close = cur_close, .next = cur_next, .fill = cur_fill, .error = cur_error, .free = src_free,
};

/* ---- the sets' own provider: instances outside a query ----------------------------- */

typedef struct lstate {
    pl_env *env;
    const pl_counterset_def *cs;
} lstate;

static int l_open_set(pl_env *env, const pl_counterset_def *cs, void **state)
{
    lstate *st = malloc(sizeof *st);
    if (!st)
        return ENOMEM;
    st->env = env;
    st->cs = cs;
    *state = st;
    return 0;
}

static void l_close(void *state) { free(state); }

/* The set as the first sample in range that holds it has it. */
static int l_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    lstate *st = state;
    void *src, *cur;
    const pl_source_ops *so = pl_env_source(st->env, &src);
    if (!so)
        return ENODATA;
    int e = so->open(src, &cur);
    if (e)
        return e;
    int64_t t, f, t100;
    do
        e = so->next(cur, &t, &f, &t100);
    while (!e && (e = so->fill(cur, st->cs, wanted, snap)) == ENOENT);
    so->close(cur);
    return e;
}

static int l_instances(void *state, pl_snapshot *snap)
{
    static const uint8_t none[PL_DEFS_MAX_COUNTERS];
    return l_collect(state, none, snap);
}

static const pl_provider_ops log_ops = {
    .open = NULL, .close = l_close, .instances = l_instances, .collect = l_collect, .open_set = l_open_set,
};

/* ---- opening ------------------------------------------------------------------- */

/* The environment of the merged sets d, with src behind it: 0 or an errno with msg. */
static int make_env(logsrc *src, defset *d, pl_env **out, char *msg, size_t size)
{
    pl_env *env = pl_env_new_empty(src->files[0].path);
    if (!env)
        return ENOMEM;
    for (size_t i = 0; i < d->n; i++) {
        const pl_counterset_def *cs = keep(d->sets[i]);
        d->sets[i] = NULL;                             /* kept (or freed) */
        int e = cs ? pl_env_mirror(env, cs, NULL) : ENOMEM;
        if (e) {
            pl_say(msg, size, "%s: counterset '%s': %s", src->files[0].path, cs ? cs->name : "?",
                e == EEXIST ? "its name, GUID or title index clashes with another set of the log" : strerror(e));
            pl_env_unref(env);
            return e == ENOMEM ? e : EINVAL;
        }
    }
    src->env = env;
    pl_env_set_source(env, &source_ops, src);
    *out = env;
    return 0;
}

int pl_logsrc_open(const char *const *paths, size_t n, int64_t from, int64_t to, pl_env **out, char *msg,
                   size_t size)
{
    *out = NULL;
    if (n == 0 || n > PL_LOGSRC_MAX_FILES) {
        pl_say(msg, size, "from 1 to %d logs expected", PL_LOGSRC_MAX_FILES);
        return EINVAL;
    }
    logsrc *src = calloc(1, sizeof *src);
    defset d = { NULL, 0, 0 };
    int e = src && (src->files = calloc(n, sizeof *src->files)) ? 0 : ENOMEM;
    if (!e) {
        src->from = from;
        src->to = to;
    }
    for (size_t i = 0; !e && i < n; i++) {
        if (!(src->files[i].path = strdup(paths[i])))
            e = ENOMEM;
        else
            src->nfiles++;
        if (!e)
            e = scan_file(src, &src->files[i], &d, msg, size);
    }
    if (!e)
        e = make_env(src, &d, out, msg, size);
    defset_free(&d);
    if (e == ENOMEM)
        pl_say(msg, size, "%s", strerror(e));
    if (e && src)
        src_free(src);
    return e;
}

int pl_logsrc_info_of(const pl_env *env, pl_logsrc_info *info)
{
    void *p;
    if (pl_env_source(env, &p) != &source_ops)
        return 0;
    const logsrc *src = p;
    const lfile *f0 = &src->files[0];
    memset(info, 0, sizeof *info);
    info->host = f0->host;
    info->perflib = f0->perflib;
    info->created = f0->created;
    info->files = src->nfiles;
    info->warning = src->warning;
    for (size_t i = 0; i < src->nfiles; i++) {
        const lfile *f = &src->files[i];
        info->records += f->nrecords;
        info->samples += f->ndata;
        if (f->ndata && !info->first)
            info->first = f->first;
        if (f->ndata)
            info->last = f->last;
    }
    return 1;
}
