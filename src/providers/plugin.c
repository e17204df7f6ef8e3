/* V1 plug-ins (plugin.h): loading a plug-in directory, each plug-in's
 * state and failure count, and the provider ops of their countersets. */
#include "pl_provider.h"
#include "plugin_impl.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static plugin **plugins;
static uint32_t nplugins, capplugins;

static const char *const state_names[] = { "running", "disabled", "failed", "off" };

/* ---- failures ------------------------------------------------------------- */

/* A failed call (e, what) under pl->lock: counted, and the plug-in is
 * disabled at its limit; the sentence for the counterset goes to out. */
static void failed(plugin *pl, const char *what, char *out, size_t size)
{
    /* the host's sentences name the library ("plug-in x.so: ..."); ours name the plug-in */
    const char *colon = strncmp(what, "plug-in ", 8) == 0 ? strstr(what, ": ") : NULL;
    if (colon)
        what = colon + 2;
    pl->failures++;
    pl->total_failures++;
    snprintf(pl->error, sizeof pl->error, "%s", what);
    if (pl->never_disable) {
        pl_say(0, out, size, "plug-in %s: %s (failure %u; never disabled)", pl->cfg.name, what, pl->failures);
    } else if (pl->failures >= pl->limit) {
        pl->state = PL_PLUGIN_DISABLED;
        pl_say(0, out, size, "plug-in %s disabled after %u failures in a row; the last: %s", pl->cfg.name,
            pl->failures, what);
    } else {
        pl_say(0, out, size, "plug-in %s: %s (failure %u of %u)", pl->cfg.name, what, pl->failures, pl->limit);
    }
}

/* ---- provider ops ------------------------------------------------------------ */

typedef struct plug_state {
    plug_obj *o;
    pl_names nm;
    char msg[512];            /* the snapshot's err_msg until the next collect */
} plug_state;

static int plug_open_set(pl_env *env, const pl_counterset_def *cs, void **state)
{
    plug_state *st = calloc(1, sizeof *st);
    (void)env;
    if (!st)
        return ENOMEM;
    st->o = cs->provider_data;
    pl_names_init(&st->nm);
    *state = st;
    return 0;
}

static void plug_close(void *state)
{
    plug_state *st = state;
    if (!st)
        return;
    pl_names_free(&st->nm);
    free(st);
}

static int plug_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    plug_state *st = state;
    plug_obj *o = st->o;
    plugin *pl = o->pl;
    const uint8_t *data;
    size_t len;
    uint32_t nobjs;
    char why[384];
    int e;
    (void)wanted;
    pthread_mutex_lock(&pl->lock);
    if (pl->state != PL_PLUGIN_RUNNING) {
        pl_say(0, st->msg, sizeof st->msg, "plug-in %s is %s: %s", pl->cfg.name, state_names[pl->state],
            pl->error);
        snap->err_msg = st->msg;
        pthread_mutex_unlock(&pl->lock);
        return ECANCELED;
    }
    e = pl_plughost_collect(pl->host, o->query, &data, &len, &nobjs, why, sizeof why);
    if (!e) {
        e = pl_plug_take(o, data, len, nobjs, !pl->spec.guards.check_alignment, &st->nm, snap, why,
                         sizeof why);
        if (e == EPROTO)
            pl_plughost_stop(pl->host);   /* a bad answer: a fresh host and Open next time */
    }
    if (!e) {
        pl->failures = 0;
        pl->collects++;
    } else if (e == ENODATA) {
        pl_say(0, st->msg, sizeof st->msg, "plug-in %s returned no object for '%s'", pl->cfg.name, o->query);
        snap->err_msg = st->msg;
    } else if (e != ENOMEM) {
        failed(pl, why, st->msg, sizeof st->msg);
        pl_snap_clear(snap);              /* nothing of a bad answer stays */
        snap->err_msg = st->msg;
    }
    pthread_mutex_unlock(&pl->lock);
    return e;
}

static int plug_instances(void *state, pl_snapshot *snap)
{
    return plug_collect(state, NULL, snap);    /* V1 has no cheaper call */
}

const pl_provider_ops pl_plugin_ops = { NULL, plug_close, plug_instances, plug_collect, plug_open_set, NULL };

/* ---- loading ------------------------------------------------------------------ */

/* Who may make perflib run code: a plug-in file, its library, perflib.conf and
 * their directory must belong to this user or root and be writable by no one
 * else (as only administrators write Windows' Perflib and Services keys).
 * 0, or EPERM / the errno of stat with a sentence in msg. */
static int trusted(const char *path, int dir, char *msg, size_t size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        pl_say(0, msg, size, "%s: %s", path, strerror(e));
        return e;
    }
    if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
        pl_say(0, msg, size, "%s: refused: not a %s", path, dir ? "directory" : "regular file");
        return EPERM;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        pl_say(0, msg, size, "%s: refused: owned by uid %u, neither this user nor root", path, (unsigned)st.st_uid);
        return EPERM;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        pl_say(0, msg, size, "%s: refused: writable by %s", path, st.st_mode & S_IWOTH ? "others" : "its group");
        return EPERM;
    }
    return 0;
}

static void spec_of(plugin *pl, const perflib_cfg *pc, char *lib)
{
    plug_cfg *c = &pl->cfg;
    pl_plug_spec *s = &pl->spec;
    uint32_t last = c->first_counter;
    for (uint32_t i = 0; i < c->nobjs; i++) {
        if (c->first_counter + c->objs[i].offset > last)
            last = c->first_counter + c->objs[i].offset;
        for (uint32_t k = 0; k < c->objs[i].ncounters; k++)
            if (c->first_counter + c->objs[i].counters[k].offset > last)
                last = c->first_counter + c->objs[i].counters[k].offset;
    }
    *s = (pl_plug_spec){ lib, c->open_fn, c->collect_fn, c->close_fn, (const char *const *)c->exports,
                         c->nexports, c->first_counter, c->first_counter + 1, last, last + 1,
                         c->open_timeout_ms ? c->open_timeout_ms : pc->open_timeout_ms,
                         c->collect_timeout_ms ? c->collect_timeout_ms : pc->collect_timeout_ms,
                         c->max_buffer ? c->max_buffer : pc->max_buffer, pc->guards };
    pl->limit = c->failure_limit ? c->failure_limit : pc->failure_limit;
    pl->never_disable = pc->never_disable;
}

/* Open and the metadata answers: the definitions of every object. */
static int learn(plugin *pl, char *msg, size_t size)
{
    int costly = 0, e = 0;
    for (uint32_t i = 0; i < pl->cfg.nobjs; i++)
        costly |= pl->cfg.objs[i].costly;
    for (int pass = 0; pass < 1 + costly && !e; pass++) {
        const char *q = pass ? (pl->cfg.metadata ? "MetadataCostly" : "Costly")
                             : (pl->cfg.metadata ? "MetadataGlobal" : "Global");
        const uint8_t *data;
        size_t len;
        uint32_t nobjs;
        char why[384];
        e = pl_plughost_collect(pl->host, q, &data, &len, &nobjs, why, sizeof why);
        if (!e)
            e = pl_plug_learn(pl, data, len, nobjs, !pl->spec.guards.check_alignment, why, sizeof why);
        if (e)
            pl_say(0, msg, size, "%s: %s", q, why);
    }
    if (!e && pl->nobjs == 0) {
        pl_say(0, msg, size, "it returned none of its objects");
        e = EPROTO;
    }
    return e;
}

/* Registers each learned object; the ones refused are noted, not fatal. */
static int register_objects(plugin *pl, char *msg, size_t size)
{
    uint32_t ok = 0;
    msg[0] = '\0';
    for (uint32_t i = 0; i < pl->nobjs; i++) {
        plug_obj *o = &pl->objs[i];
        char why[256];
        if (pl_register_counterset(&o->def, &o->reg, why, sizeof why) == 0)
            ok++;
        else if (!msg[0])
            pl_say(0, msg, size, "object '%s' not registered: %s", o->def.name, why);
    }
    for (uint32_t i = 0; i < pl->cfg.nobjs; i++) {
        uint32_t k = 0;
        while (k < pl->nobjs && pl->objs[k].cfg != &pl->cfg.objs[i])
            k++;
        if (k == pl->nobjs && !msg[0])
            pl_say(0, msg, size, "object '%s' was not in its answer", pl->cfg.objs[i].name);
    }
    return ok ? 0 : EPROTO;
}

static int start(plugin *pl, const perflib_cfg *pc, const char *dir, char *lib, size_t libsize)
{
    char msg[384];
    int e;
    if (pl->cfg.library[0] == '/')
        snprintf(lib, libsize, "%s", pl->cfg.library);
    else
        snprintf(lib, libsize, "%s/%s", dir, pl->cfg.library);
    spec_of(pl, pc, lib);
    if (!pl->cfg.disabled && (e = trusted(lib, 0, msg, sizeof msg))) {
        snprintf(pl->error, sizeof pl->error, "%s", msg);
        pl->state = PL_PLUGIN_FAILED;
        return 0;
    }
    if (pl->cfg.disabled) {
        pl->state = PL_PLUGIN_OFF;
        snprintf(pl->error, sizeof pl->error, "Disable Performance Counters is 1 in %s", pl->cfg.file);
        return 0;
    }
    if ((e = pl_plughost_new(&pl->spec, &pl->host)))
        return e;
    e = learn(pl, msg, sizeof msg);
    if (!e)
        e = register_objects(pl, msg, sizeof msg);
    snprintf(pl->error, sizeof pl->error, "%s", msg);
    pl->state = e ? PL_PLUGIN_FAILED : PL_PLUGIN_RUNNING;
    if (e)
        pl_plughost_stop(pl->host);
    return e == ENOMEM ? ENOMEM : 0;
}

static int add_plugin(plugin *pl)
{
    if (nplugins == capplugins) {
        uint32_t n = capplugins ? 2 * capplugins : 8;
        plugin **p = realloc(plugins, n * sizeof *p);
        if (!p)
            return ENOMEM;
        plugins = p;
        capplugins = n;
    }
    plugins[nplugins++] = pl;
    return 0;
}

static int loaded(const char *name)
{
    for (uint32_t i = 0; i < nplugins; i++)
        if (strcmp(plugins[i]->cfg.name, name) == 0)
            return 1;
    return 0;
}

/* One file: a plug-in record in any case (failed ones say why). */
static int load_one(const char *dir, const char *file, const perflib_cfg *pc)
{
    char path[PATH_MAX], msg[384];
    plugin *pl = calloc(1, sizeof *pl);
    int e;
    if (!pl)
        return ENOMEM;
    pthread_mutex_init(&pl->lock, NULL);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    e = trusted(path, 0, msg, sizeof msg);
    if (!e)
        e = pl_plug_cfg_read(path, &pl->cfg, msg, sizeof msg);
    if (e == ENOMEM) {
        free(pl);
        return e;
    }
    if (e) {
        size_t n = strlen(file) - 7;      /* the name of a file that would not read */
        pl->cfg.name = strndup(file, n);
        pl->cfg.file = strdup(path);
        pl->state = PL_PLUGIN_FAILED;
        snprintf(pl->error, sizeof pl->error, "%s", msg);
        if (!pl->cfg.name || !pl->cfg.file) {
            pl_plug_cfg_free(&pl->cfg);
            free(pl);
            return ENOMEM;
        }
    } else {
        char *lib = malloc(PATH_MAX);
        if (!lib || (e = start(pl, pc, dir, lib, PATH_MAX))) {
            free(lib);
            return ENOMEM;                /* pl stays allocated: its objects may be registered */
        }
    }
    return add_plugin(pl);
}

static int is_plugin_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 7 && d->d_name[0] != '.' && strcmp(d->d_name + n - 7, ".plugin") == 0;
}

int pl_plugins_load(const char *dir, char *msg, size_t msgsize)
{
    struct dirent **names = NULL;
    char conf[PATH_MAX];
    perflib_cfg pc;
    struct stat st;
    int n, e = 0;
    pl_say(0, msg, msgsize, "%s", "");
    if (!dir || !*dir)
        return EINVAL;
    pl_perflib_cfg_default(&pc);
    if ((e = trusted(dir, 1, msg, msgsize)))
        return e;
    snprintf(conf, sizeof conf, "%s/perflib.conf", dir);
    if (stat(conf, &st) == 0 && ((e = trusted(conf, 0, msg, msgsize)) ||
                                 (e = pl_perflib_cfg_read(conf, &pc, msg, msgsize))))
        return e;
    if (pc.disable_all) {
        pl_say(0, msg, msgsize, "%s: Disable Performance Counters is 1: no plug-in loads", conf);
        return 0;
    }
    n = scandir(dir, &names, is_plugin_file, alphasort);
    if (n < 0) {
        e = errno;
        pl_say(0, msg, msgsize, "%s: %s", dir, strerror(e));
        return e;
    }
    pthread_mutex_lock(&list_lock);
    for (int i = 0; i < n; i++) {
        char name[NAME_MAX + 1];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]->d_name) - 7), names[i]->d_name);
        if (!e && !loaded(name))
            e = load_one(dir, names[i]->d_name, &pc);
        free(names[i]);
    }
    pthread_mutex_unlock(&list_lock);
    free(names);
    if (e)
        pl_say(0, msg, msgsize, "out of memory loading the plug-ins of %s", dir);
    return e;
}

int pl_plugins_load_default(char *msg, size_t msgsize)
{
    const char *env = getenv("PERFLIB_PLUGIN_DIR");
    char buf[PATH_MAX];
    int first = 0;
    if (!env) {
        int e = pl_plugins_load(PL_PLUGIN_DEFAULT_DIR, msg, msgsize);
        return e == ENOENT ? 0 : e;
    }
    for (const char *p = env; *p;) {
        size_t n = strcspn(p, ":");
        if (n && n < sizeof buf) {
            memcpy(buf, p, n);
            buf[n] = '\0';
            char m[384];
            int e = pl_plugins_load(buf, m, sizeof m);
            if (e && !first) {
                first = e;
                pl_say(0, msg, msgsize, "%s", m);
            }
        }
        p += n + (p[n] == ':');
    }
    return first;
}

uint32_t pl_plugin_count(void)
{
    pthread_mutex_lock(&list_lock);
    uint32_t n = nplugins;
    pthread_mutex_unlock(&list_lock);
    return n;
}

int pl_plugin_info_get(uint32_t i, pl_plugin_info *out)
{
    plugin *pl;
    pthread_mutex_lock(&list_lock);
    pl = i < nplugins ? plugins[i] : NULL;
    pthread_mutex_unlock(&list_lock);
    if (!pl)
        return ENOENT;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&pl->lock);
    snprintf(out->name, sizeof out->name, "%s", pl->cfg.name);
    snprintf(out->file, sizeof out->file, "%s", pl->cfg.file);
    snprintf(out->library, sizeof out->library, "%s", pl->spec.library ? pl->spec.library : "");
    out->state = pl->state;
    out->state_name = state_names[pl->state];
    out->failures = pl->failures;
    out->total_failures = pl->total_failures;
    out->failure_limit = pl->never_disable ? 0 : pl->limit;
    out->collects = pl->collects;
    snprintf(out->error, sizeof out->error, "%s", pl->error);
    for (uint32_t k = 0; k < pl->nobjs; k++)
        if (pl->objs[k].reg)
            out->sets[out->nsets++] = pl->objs[k].reg;
    pthread_mutex_unlock(&pl->lock);
    return 0;
}

int pl_plugin_reset(const char *name)
{
    int e = ENOENT;
    pthread_mutex_lock(&list_lock);
    for (uint32_t i = 0; i < nplugins && name; i++) {
        plugin *pl = plugins[i];
        if (strcmp(pl->cfg.name, name) != 0)
            continue;
        pthread_mutex_lock(&pl->lock);
        e = pl->state == PL_PLUGIN_DISABLED ? 0 : EINVAL;
        if (!e) {
            pl->state = PL_PLUGIN_RUNNING;
            pl->failures = 0;
        }
        pthread_mutex_unlock(&pl->lock);
    }
    pthread_mutex_unlock(&list_lock);
    return e;
}
