/* Helpers of the sysfs class sets (sysattr.h). */
#include "sysattr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void dev_init(void *rec)
{
    pl_numdev *d = rec;
    for (int k = 0; k < PL_NUMDEV_FILES; k++)
        d->fd[k] = -1;
}

static void dev_close(void *rec)
{
    pl_numdev *d = rec;
    for (int k = 0; k < PL_NUMDEV_FILES; k++) {
        if (d->fd[k] >= 0)
            close(d->fd[k]);
        d->fd[k] = -1;
    }
}

int pl_numclass_open(pl_env *env, const char *cls, const char *prefix, void **state)
{
    pl_numclass *c = calloc(1, sizeof *c);
    if (!c)
        return ENOMEM;
    c->env = pl_env_ref(env);
    c->cls = cls;
    c->prefix = prefix;
    pl_numbered_init(&c->devs, sizeof(pl_numdev));
    *state = c;
    return 0;
}

void pl_numclass_close(void *state)
{
    pl_numclass *c = state;
    if (!c)
        return;
    pl_numbered_free(&c->devs, dev_close);
    pl_env_unref(c->env);
    free(c);
}

int pl_numclass_list(void *state, pl_snapshot *snap)
{
    pl_numclass *c = state;
    int e;
    pl_snap_clear(snap);
    if ((e = pl_numbered_list(&c->devs, c->env, c->cls, c->prefix, 1u << 20, dev_init,
                              dev_close)) != 0)
        return e;
    for (uint32_t i = 0; i < c->devs.n; i++) {
        pl_numdev *d = (pl_numdev *)c->devs.v + i;
        snprintf(d->name, sizeof d->name, "%s%u", c->prefix, d->num);
        if (pl_snap_add(snap, d->name, d->num) < 0)
            return ENOMEM;
    }
    return 0;
}

int pl_numdev_read(const pl_numclass *c, pl_numdev *d, int k, const char *file, char *buf,
                   size_t size)
{
    char rel[160] = "";
    if (d->fd[k] == -1)   /* not yet open; PL_FD_ABSENT: not there */
        snprintf(rel, sizeof rel, "%s/%s%u/%s", c->cls, c->prefix, d->num, file);
    return pl_read_attr(&d->fd[k], c->env, rel, buf, size);
}
