/* Environments (a machine seen below a root directory), the process-wide
 * counterset registry every environment starts from, GUIDs and snapshots. */
#include "perflib.h"
#include "pl_provider.h"
#include "pl_ksrc.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct pl_env {
    int refs;
    char *root;              /* as given, for messages */
    char *prefix;            /* root with a trailing '/' */
    long user_hz, page_size;
    uint32_t ncs, cscap;
    const pl_counterset_def **cs;
    uint32_t reg_seen;       /* registry entries looked at (pl_env_sync) */
    uint32_t nlocal;         /* sets of its own (pl_env_register) */
    const pl_source_ops *src_ops;   /* a log behind it (pl_env_set_source), or NULL */
    void *src;
    /* kernel sources (pl_ksrc.h): the readers, and the generation they read in */
    pl_ksrc *ksrc;
    pthread_mutex_t lock;    /* recursive: a derived set collects inside a collect */
    unsigned depth;          /* nested pl_env_begin calls */
    uint64_t gen;            /* the current generation while depth > 0 */
};

/* ---- GUIDs ---------------------------------------------------------------- */

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static uint64_t name_hash(const char *a, const char *b, uint64_t h)
{
    for (const char *s = a; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3u;
    h = (h ^ ':') * 0x100000001b3u;
    for (const char *s = b; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3u;
    h ^= h >> 33;                        /* MurmurHash3's finalizer */
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 33);
}

pl_guid pl_name_guid(const char *kind, const char *name)
{
    uint64_t hi = name_hash(kind, name, 0xcbf29ce484222325u), lo = name_hash(kind, name, 0x84222325cbf29ce4u);
    pl_guid g = { (uint32_t)(hi >> 32), (uint16_t)(hi >> 16), (uint16_t)((hi & 0x0FFFu) | 0x8000u), { 0 } };
    for (int i = 0; i < 8; i++)
        g.d4[i] = (uint8_t)(lo >> (56 - 8 * i));
    g.d4[0] = (uint8_t)((g.d4[0] & 0x3Fu) | 0x80u);      /* variant 10 */
    return g;
}

int pl_guid_parse(const char *s, pl_guid *out)
{
    /* xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, optionally in braces */
    uint8_t b[16];
    int braces = (*s == '{'), n = 0;
    const char *p = s + braces;
    for (int i = 0; i < 36; i++, p++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (*p != '-')
                return EINVAL;
            continue;
        }
        int h = hexval((unsigned char)*p);
        if (h < 0)
            return EINVAL;
        if (n % 2 == 0)
            b[n / 2] = (uint8_t)(h << 4);
        else
            b[n / 2] |= (uint8_t)h;
        n++;
    }
    if (braces && *p++ != '}')
        return EINVAL;
    if (*p != '\0')
        return EINVAL;
    out->d1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    out->d2 = (uint16_t)(b[4] << 8 | b[5]);
    out->d3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(out->d4, b + 8, 8);
    return 0;
}

void pl_guid_format(const pl_guid *g, char out[PL_GUID_STRLEN + 1])
{
    snprintf(out, PL_GUID_STRLEN + 1, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             (unsigned)g->d1, (unsigned)g->d2, (unsigned)g->d3, g->d4[0], g->d4[1],
             g->d4[2], g->d4[3], g->d4[4], g->d4[5], g->d4[6], g->d4[7]);
}

int pl_guid_equal(const pl_guid *a, const pl_guid *b)
{
    return a->d1 == b->d1 && a->d2 == b->d2 && a->d3 == b->d3 && memcmp(a->d4, b->d4, 8) == 0;
}

/* ---- admission: names, GUIDs and title indexes ------------------------------ */

int pl_say(int e, char *msg, size_t size, const char *fmt, ...)
{
    va_list ap;
    if (!msg || !size)
        return e;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
    return e;
}

static const pl_counterset_def *index_owner(const pl_counterset_def *const *sets, uint32_t n,
                                            uint32_t index)
{
    for (uint32_t i = 0; i < n; i++)
        if (sets[i]->index == index)
            return sets[i];
    return NULL;
}

/* Whether cs may join sets: well formed, its name and GUID free, and (unless
 * perflib assigns it) its fixed title index a whole free span below the
 * assigned range.  0, or EINVAL / EEXIST with a sentence in msg. */
static int admit(const pl_counterset_def *const *sets, uint32_t n, const pl_counterset_def *cs,
                 int assigned, char *msg, size_t size)
{
    if (!cs || !cs->name || !*cs->name || !cs->ops || (!cs->ops->open && !cs->ops->open_set) ||
        !cs->ops->collect || (cs->ncounters && !cs->counters)) {
        pl_say(0, msg, size, "a counterset needs a name, provider ops and its counters");
        return EINVAL;
    }
    for (uint32_t i = 0; i < cs->ncounters; i++)
        if (cs->counters[i].id > PL_MAX_COUNTER_ID) {
            pl_say(0, msg, size, "counterset '%s': counter id %u is above %u", cs->name,
                (unsigned)cs->counters[i].id, PL_MAX_COUNTER_ID);
            return EINVAL;
        }
    if (!assigned && (cs->index == 0 || cs->index % PL_INDEX_SPAN != 0)) {
        pl_say(0, msg, size, "counterset '%s': title index %u is not a multiple of %u", cs->name,
            (unsigned)cs->index, PL_INDEX_SPAN);
        return EINVAL;
    }
    if (!assigned && cs->index >= PL_INDEX_ASSIGNED_BASE) {
        pl_say(0, msg, size, "counterset '%s': title index %u is in the range perflib assigns "
            "(%u and up); ask for PL_INDEX_ASSIGN", cs->name, (unsigned)cs->index,
            PL_INDEX_ASSIGNED_BASE);
        return EINVAL;
    }
    for (uint32_t i = 0; i < n; i++) {
        char g[PL_GUID_STRLEN + 1];
        if (strcasecmp(sets[i]->name, cs->name) == 0) {
            pl_say(0, msg, size, "counterset name '%s' is already registered", cs->name);
            return EEXIST;
        }
        if (pl_guid_equal(&sets[i]->guid, &cs->guid)) {
            pl_guid_format(&cs->guid, g);
            pl_say(0, msg, size, "counterset '%s': GUID %s is already registered by '%s'", cs->name, g,
                sets[i]->name);
            return EEXIST;
        }
    }
    const pl_counterset_def *owner = assigned ? NULL : index_owner(sets, n, cs->index);
    if (owner) {
        pl_say(0, msg, size, "counterset '%s': title indexes %u..%u are taken by '%s'", cs->name,
            (unsigned)cs->index, (unsigned)(cs->index + PL_INDEX_SPAN - 1), owner->name);
        return EEXIST;
    }
    return 0;
}

/* The home slot of a GUID in the assigned range: FNV-1a (64 bit) of its 16
 * bytes in the order they are written (d1, d2, d3 big-endian, then d4),
 * mixed by MurmurHash3's 64-bit finalizer (FNV alone leaves GUIDs that differ
 * in their last byte next to each other), top 20 bits: the same on every
 * machine and in every run. */
static uint32_t home_slot(const pl_guid *g)
{
    uint8_t b[16] = { (uint8_t)(g->d1 >> 24), (uint8_t)(g->d1 >> 16), (uint8_t)(g->d1 >> 8),
                      (uint8_t)g->d1, (uint8_t)(g->d2 >> 8), (uint8_t)g->d2,
                      (uint8_t)(g->d3 >> 8), (uint8_t)g->d3 };
    uint64_t h = 0xcbf29ce484222325u;
    memcpy(b + 8, g->d4, 8);
    for (int i = 0; i < 16; i++) {
        h ^= b[i];
        h *= 0x100000001b3u;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return (uint32_t)(h >> (64 - PL_INDEX_ASSIGNED_BITS));
}

/* The first free span from the GUID's home slot on, probing upwards and
 * wrapping: 0 with *index, or ENOSPC. */
static int assign_index(const pl_counterset_def *const *sets, uint32_t n, const pl_guid *g,
                        uint32_t *index)
{
    uint32_t s = home_slot(g);
    for (uint32_t k = 0; k < PL_INDEX_ASSIGNED_SLOTS; k++, s = (s + 1) % PL_INDEX_ASSIGNED_SLOTS) {
        uint32_t idx = PL_INDEX_ASSIGNED_BASE + s * PL_INDEX_SPAN;
        if (!index_owner(sets, n, idx)) {
            *index = idx;
            return 0;
        }
    }
    return ENOSPC;
}

/* ---- the process-wide registry ------------------------------------------- */
/* Append-only: a registered definition (or the copy that carries its assigned
 * index) lives as long as the process, so environments, queries and samples
 * may point at it without references. */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const pl_counterset_def **reg_defs;     /* as environments see them */
static const pl_counterset_def **reg_orig;     /* as their publishers passed them */
static uint32_t reg_n, reg_cap;

static int reg_grow(void)
{
    uint32_t nc = reg_cap ? reg_cap * 2 : 32;
    const pl_counterset_def **d = realloc(reg_defs, nc * sizeof *d);
    if (!d)
        return ENOMEM;
    reg_defs = d;
    d = realloc(reg_orig, nc * sizeof *d);
    if (!d)
        return ENOMEM;
    reg_orig = d;
    reg_cap = nc;
    return 0;
}

static int reg_add(const pl_counterset_def *cs, const pl_counterset_def **out, char *msg,
                   size_t size)
{
    const pl_counterset_def *def = cs;
    int assigned = cs && cs->index == PL_INDEX_ASSIGN, e;
    for (uint32_t i = 0; i < reg_n; i++)
        if (reg_orig[i] == cs) {            /* the same definition again: already in */
            *out = reg_defs[i];
            return 0;
        }
    e = admit(reg_defs, reg_n, cs, assigned, msg, size);
    if (!e && reg_n == reg_cap)
        e = reg_grow();
    if (e)
        return e;
    if (assigned) {
        pl_counterset_def *copy = malloc(sizeof *copy);
        if (!copy)
            return ENOMEM;
        *copy = *cs;
        e = assign_index(reg_defs, reg_n, &cs->guid, &copy->index);
        if (e) {
            free(copy);
            pl_say(0, msg, size, "counterset '%s': no free title index span is left", cs->name);
            return e;
        }
        def = copy;
    }
    reg_orig[reg_n] = cs;
    reg_defs[reg_n++] = def;
    *out = def;
    return 0;
}

int pl_register_counterset(const pl_counterset_def *cs, const pl_counterset_def **out, char *msg,
                           size_t msgsize)
{
    const pl_counterset_def *def = NULL;
    int e;
    pl_say(0, msg, msgsize, "%s", "");
    pthread_mutex_lock(&reg_lock);
    e = reg_add(cs, &def, msg, msgsize);
    pthread_mutex_unlock(&reg_lock);
    if (e == ENOMEM)
        pl_say(0, msg, msgsize, "out of memory registering a counterset");
    if (out)
        *out = e ? NULL : def;
    return e;
}

uint32_t pl_registered_count(void)
{
    pthread_mutex_lock(&reg_lock);
    uint32_t n = reg_n;
    pthread_mutex_unlock(&reg_lock);
    return n;
}

const pl_counterset_def *pl_registered(uint32_t i)
{
    pthread_mutex_lock(&reg_lock);
    const pl_counterset_def *cs = i < reg_n ? reg_defs[i] : NULL;
    pthread_mutex_unlock(&reg_lock);
    return cs;
}

/* ---- environments --------------------------------------------------------- */

/* env_new: a machine view; registry 0 leaves the process registry out. */
static pl_env *env_new(const char *root, int registry)
{
    pl_env *env = calloc(1, sizeof *env);
    size_t n;
    int e;
    if (!env)
        return NULL;
    if (!root || !*root)
        root = "/";
    n = strlen(root);
    env->refs = 1;
    {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&env->lock, &a);
        pthread_mutexattr_destroy(&a);
    }
    env->root = strdup(root);
    env->prefix = malloc(n + 2);
    if (!env->root || !env->prefix) {
        pl_env_unref(env);
        errno = ENOMEM;
        return NULL;
    }
    memcpy(env->prefix, root, n + 1);
    if (root[n - 1] != '/')
        strcat(env->prefix, "/");
    env->user_hz = sysconf(_SC_CLK_TCK);
    env->page_size = sysconf(_SC_PAGESIZE);
    if (env->user_hz <= 0)
        env->user_hz = 100;
    if (env->page_size <= 0)
        env->page_size = 4096;
    if (!registry) {
        env->reg_seen = UINT32_MAX;     /* pl_env_sync finds nothing new, ever */
        return env;
    }
    e = pl_env_sync(env);
    if (e) {
        pl_env_unref(env);
        errno = e;
        return NULL;
    }
    return env;
}

pl_env *pl_env_new(const char *root) { return env_new(root, 1); }
pl_env *pl_env_new_empty(const char *root) { return env_new(root, 0); }

pl_env *pl_env_ref(pl_env *env)
{
    env->refs++;
    return env;
}

void pl_env_unref(pl_env *env)
{
    if (!env || --env->refs > 0)
        return;
    if (env->src_ops)
        env->src_ops->free(env->src);
    pl_ksrc_free_all(env->ksrc);
    pthread_mutex_destroy(&env->lock);
    free(env->root);
    free(env->prefix);
    free(env->cs);
    free(env);
}

void pl_env_set_source(pl_env *env, const pl_source_ops *ops, void *src)
{
    env->src_ops = ops;
    env->src = src;
}

const pl_source_ops *pl_env_source(const pl_env *env, void **src)
{
    *src = env->src;
    return env->src_ops;
}

const char *pl_env_root(const pl_env *env) { return env->root; }
const char *pl_env_root_prefix(const pl_env *env) { return env->prefix; }
long pl_env_user_hz(const pl_env *env) { return env->user_hz; }
long pl_env_page_size(const pl_env *env) { return env->page_size; }
void pl_env_set_user_hz(pl_env *env, long hz) { if (hz > 0) env->user_hz = hz; }
void pl_env_set_page_size(pl_env *env, long size) { if (size > 0) env->page_size = size; }

static int env_append(pl_env *env, const pl_counterset_def *cs)
{
    if (env->ncs == env->cscap) {
        uint32_t nc = env->cscap ? env->cscap * 2 : 32;
        const pl_counterset_def **n = realloc(env->cs, nc * sizeof *n);
        if (!n)
            return ENOMEM;
        env->cs = n;
        env->cscap = nc;
    }
    env->cs[env->ncs++] = cs;
    return 0;
}

int pl_env_register(pl_env *env, const pl_counterset_def *cs)
{
    int e = admit((const pl_counterset_def *const *)env->cs, env->ncs, cs, 0, NULL, 0);
    if (!e)
        e = env_append(env, cs);
    if (!e)
        env->nlocal++;
    return e;
}

int pl_env_mirror(pl_env *env, const pl_counterset_def *cs, uint32_t *index)
{
    const pl_counterset_def *const *sets = (const pl_counterset_def *const *)env->cs;
    int e = admit(sets, env->ncs, cs, 1, NULL, 0);
    if (!e && index)
        e = assign_index(sets, env->ncs, &cs->guid, index);
    else if (!e && index_owner(sets, env->ncs, cs->index))
        e = EEXIST;
    if (!e)
        e = env_append(env, cs);
    if (!e)
        env->nlocal++;
    return e;
}

/* ---- discoverers ------------------------------------------------------------ */

#define MAX_DISCOVERERS 8
static pthread_mutex_t disc_lock = PTHREAD_MUTEX_INITIALIZER;
static pl_discover_fn discoverers[MAX_DISCOVERERS];
static uint32_t ndisc;

int pl_register_discoverer(pl_discover_fn fn)
{
    int e = 0;
    uint32_t i;
    pthread_mutex_lock(&disc_lock);
    for (i = 0; i < ndisc && discoverers[i] != fn; i++)
        ;
    if (i == ndisc) {
        if (ndisc < MAX_DISCOVERERS)
            discoverers[ndisc++] = fn;
        else
            e = ENOSPC;
    }
    pthread_mutex_unlock(&disc_lock);
    return e;
}

void pl_discover(void)
{
    pl_discover_fn fns[MAX_DISCOVERERS];
    uint32_t n;
    pthread_mutex_lock(&disc_lock);
    n = ndisc;
    memcpy(fns, discoverers, n * sizeof *fns);
    pthread_mutex_unlock(&disc_lock);
    for (uint32_t i = 0; i < n; i++)     /* unlocked: they register sets */
        fns[i]();
}

int pl_env_sync(pl_env *env)
{
    const pl_counterset_def *const *have;
    int e = 0, clash = 0;
    pl_discover();
    pthread_mutex_lock(&reg_lock);
    while (!e && env->reg_seen < reg_n) {
        const pl_counterset_def *cs = reg_defs[env->reg_seen];
        have = (const pl_counterset_def *const *)env->cs;
        /* registered sets were checked against each other, not against this
         * environment's own: one of those keeps its name, GUID or span here */
        if (env->nlocal && (admit(have, env->ncs, cs, 1, NULL, 0) ||
                            index_owner(have, env->ncs, cs->index))) {
            clash = 1;
            env->reg_seen++;
            continue;
        }
        e = env_append(env, cs);
        if (!e)
            env->reg_seen++;
    }
    pthread_mutex_unlock(&reg_lock);
    return e ? e : clash ? EEXIST : 0;
}

uint32_t pl_env_counterset_count(const pl_env *env) { return env->ncs; }

const pl_counterset_def *pl_env_counterset(const pl_env *env, uint32_t i)
{
    return i < env->ncs ? env->cs[i] : NULL;
}

const pl_counterset_def *pl_env_find_guid(const pl_env *env, const pl_guid *g)
{
    for (uint32_t i = 0; i < env->ncs; i++)
        if (pl_guid_equal(&env->cs[i]->guid, g))
            return env->cs[i];
    return NULL;
}

const pl_counterset_def *pl_env_find(const pl_env *env, const char *name)
{
    pl_guid g;
    if (!name)
        return NULL;
    for (uint32_t i = 0; i < env->ncs; i++)
        if (strcasecmp(env->cs[i]->name, name) == 0)
            return env->cs[i];
    if (pl_guid_parse(name, &g) == 0)
        return pl_env_find_guid(env, &g);
    return NULL;
}

/* ---- counters ------------------------------------------------------------- */

int pl_counter_index(const pl_counterset_def *cs, uint32_t id)
{
    for (uint32_t i = 0; i < cs->ncounters; i++)
        if (cs->counters[i].id == id)
            return (int)i;
    return -1;
}

int pl_counter_index_by_name(const pl_counterset_def *cs, const char *name)
{
    for (uint32_t i = 0; i < cs->ncounters; i++)
        if (strcasecmp(cs->counters[i].name, name) == 0)
            return (int)i;
    return -1;
}

int pl_counter_hidden(const pl_counter_def *c)
{
    return (c->type & 0x70000000u) == PERF_DISPLAY_NOSHOW && c->type != PERF_AVERAGE_BULK;
}

/* ---- snapshots ------------------------------------------------------------ */

/* The high half of a snapshot's stamp is unique to its init, the low half
 * counts its adds: a stamp is never seen twice, even at one address. */
static uint64_t snap_inits;

void pl_snap_init(pl_snapshot *s, const pl_counterset_def *cs)
{
    memset(s, 0, sizeof *s);
    s->cs = cs;
    s->stamp = (__atomic_add_fetch(&snap_inits, 1, __ATOMIC_RELAXED)) << 32;
}

void pl_snap_drop_last(pl_snapshot *s)
{
    if (s->ninst) {
        s->ninst--;
        s->names_len = s->inst[s->ninst].name_off;
        s->stamp++;
    }
}

int pl_snap_restore(pl_snapshot *s, uint32_t ninst, size_t names_len, uint64_t stamp)
{
    if (s->stamp != stamp || s->ninst != 0 || ninst > s->cap || names_len > s->names_cap)
        return -1;
    s->ninst = ninst;
    s->names_len = names_len;
    return 0;
}

void pl_snap_free(pl_snapshot *s)
{
    free(s->inst);
    free(s->names);
    free(s->values);
    free(s->have);
    pl_snap_init(s, s->cs);
}

void pl_snap_clear(pl_snapshot *s)
{
    s->ninst = 0;
    s->names_len = 0;
    s->obj_time = s->obj_freq = 0;
    s->time = 0;
    s->time_foreign = 0;
    s->err_path = NULL;
    s->err_msg = NULL;
}

int pl_snap_add(pl_snapshot *s, const char *name, uint32_t id)
{
    return pl_snap_add_key(s, name, id, 0);
}

int pl_snap_add_key(pl_snapshot *s, const char *name, uint32_t id, uint64_t key)
{
    size_t nc = s->cs->ncounters, len = strlen(name) + 1;
    if (s->ninst == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        pl_snap_inst *ni = realloc(s->inst, cap * sizeof *ni);
        if (!ni)
            return -1;
        s->inst = ni;
        uint64_t *nv = realloc(s->values, (size_t)cap * (nc ? nc : 1) * sizeof *nv);
        if (!nv)
            return -1;
        s->values = nv;
        uint8_t *nh = realloc(s->have, (size_t)cap * (nc ? nc : 1));
        if (!nh)
            return -1;
        s->have = nh;
        s->cap = cap;
    }
    if (s->names_len + len > s->names_cap) {
        size_t cap = s->names_cap ? s->names_cap : 256;
        while (cap < s->names_len + len)
            cap *= 2;
        char *nn = realloc(s->names, cap);
        if (!nn)
            return -1;
        s->names = nn;
        s->names_cap = cap;
    }
    memcpy(s->names + s->names_len, name, len);
    s->inst[s->ninst].id = id;
    s->inst[s->ninst].key = key;
    s->inst[s->ninst].name_off = (uint32_t)s->names_len;
    s->names_len += len;
    s->stamp++;
    memset(s->values + (size_t)s->ninst * nc, 0, nc * sizeof *s->values);
    memset(s->have + (size_t)s->ninst * nc, 0, nc);
    return (int)s->ninst++;
}

int pl_enum_instances(pl_env *env, const pl_counterset_def *cs, pl_snapshot *out)
{
    void *st = NULL;
    int e;
    pl_env_begin(env);
    e = pl_provider_open(cs, env, &st);
    if (!e) {
        pl_snap_clear(out);
        e = cs->ops->instances(st, out);
        cs->ops->close(st);
    }
    pl_env_end(env);
    return e;
}

/* ---- generations of kernel sources (pl_ksrc.h) ----------------------------- */

void pl_env_begin(pl_env *env)
{
    pthread_mutex_lock(&env->lock);
    if (env->depth++ == 0)
        env->gen++;
}

void pl_env_end(pl_env *env)
{
    env->depth--;
    pthread_mutex_unlock(&env->lock);
}

uint64_t pl_env_generation(const pl_env *env)
{
    return env->depth ? env->gen : 0;
}

pl_ksrc **pl_env_ksrc_list(pl_env *env)
{
    return &env->ksrc;
}
