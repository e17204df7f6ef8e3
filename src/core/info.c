/* Text facts of a counterset's instances (perflib.h, pl_counterset_info):
 * the provider is opened for the call and closed after it, as
 * pl_enum_instances does; facts are not on the sampling path. */
#include "perflib.h"
#include "pl_provider.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int multi(const pl_counterset_def *cs)
{
    return cs->instance_type != PERF_COUNTERSET_SINGLE_INSTANCE;
}

int pl_counterset_info(pl_env *env, const pl_counterset_def *cs, const char *instance,
                       pl_info_fn emit, void *ud)
{
    void *st = NULL;
    int e;
    if (!env || !cs || !emit || multi(cs) != (instance != NULL))
        return EINVAL;
    if (!cs->ops->info)
        return ENOTSUP;
    pl_env_begin(env);       /* kernel sources read here belong to one generation */
    e = pl_provider_open(cs, env, &st);
    if (!e) {
        e = cs->ops->info(st, instance, emit, ud);
        cs->ops->close(st);
    }
    pl_env_end(env);
    return e;
}

/* Carries an instance's name to the caller's emit. */
typedef struct inst_ud {
    pl_info_inst_fn emit;
    void *ud;
    const char *name;
    int stopped;
} inst_ud;

static int emit_inst(void *ud, const char *key, const char *value)
{
    inst_ud *u = ud;
    u->stopped = u->emit(u->ud, u->name, key, value);
    return u->stopped;
}

/* The facts of every instance listed by one instances call. */
static int walk(const pl_counterset_def *cs, void *st, pl_snapshot *snap, inst_ud *u)
{
    int e = cs->ops->instances(st, snap);
    for (uint32_t i = 0; !e && i < snap->ninst && !u->stopped; i++) {
        u->name = snap->names + snap->inst[i].name_off;
        e = cs->ops->info(st, u->name, emit_inst, u);
        if (e == ENOENT)
            e = 0;           /* gone since the listing */
    }
    return e;
}

int pl_counterset_info_all(pl_env *env, const pl_counterset_def *cs, pl_info_inst_fn emit, void *ud)
{
    inst_ud u = { emit, ud, "", 0 };
    pl_snapshot snap;
    void *st = NULL;
    int e;
    if (!env || !cs || !emit)
        return EINVAL;
    if (!cs->ops->info)
        return ENOTSUP;
    pl_snap_init(&snap, cs);
    pl_env_begin(env);
    e = pl_provider_open(cs, env, &st);
    if (!e) {
        e = multi(cs) ? walk(cs, st, &snap, &u) : cs->ops->info(st, NULL, emit_inst, &u);
        cs->ops->close(st);
    }
    pl_env_end(env);
    pl_snap_free(&snap);
    return e;
}

/* Bytes of the UTF-8 sequence at p (1 to 4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return p[0] < 0xf5 ? n : 0;
}

void pl_fact_escape(const char *in, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t n = strlen(in), o = 0;
    if (size == 0)
        return;
    while (n && (in[n - 1] == '\n' || in[n - 1] == ' ' || in[n - 1] == '\t'))
        n--;
    for (size_t i = 0; i < n;) {
        size_t u = p[i] >= 0x80 ? utf8_len(p + i) : 0;
        if (u > 0 && i + u <= n) {       /* a whole UTF-8 character stays */
            if (o + u >= size)
                break;
            memcpy(out + o, p + i, u);
            o += u;
            i += u;
        } else if (p[i] < 0x20 || p[i] >= 0x7f || p[i] == '\\') {
            if (o + 4 >= size)
                break;       /* no half escape */
            snprintf(out + o, 5, "\\x%02x", p[i]);
            o += 4;
            i++;
        } else {
            if (o + 1 >= size)
                break;
            out[o++] = (char)p[i++];
        }
    }
    out[o] = '\0';
}
