/* What plugin.c (loading, state, provider ops) and plugin_take.c (the
 * plug-in's answers: definitions learned, values taken) share. */
#ifndef PL_PLUGIN_IMPL_H
#define PL_PLUGIN_IMPL_H

#include "plugin.h"
#include "plugin_conf.h"
#include "plugin_host.h"
#include "pl_names.h"

#include <pthread.h>

typedef struct plugin plugin;

/* One object of a plug-in: one counterset. */
typedef struct plug_obj {
    plugin *pl;
    const plug_obj_cfg *cfg;
    uint32_t title;           /* the plug-in's ObjectNameTitleIndex */
    int multi;                /* multi-instance */
    pl_counterset_def def;    /* as passed to the registry */
    const pl_counterset_def *reg;   /* as registered (with its index); NULL if refused */
    pl_counter_def *counters;
    uint32_t *titles;         /* the plug-in's CounterNameTitleIndex of each counter */
    char **owned;             /* names perflib made (a base's "<counter> Base"), to free */
    char query[12];           /* the decimal of title: what Collect is asked */
    char guid_text[40];
} plug_obj;

struct plugin {
    plug_cfg cfg;
    pl_plug_spec spec;
    pl_plughost *host;
    pthread_mutex_t lock;
    int state;                /* PL_PLUGIN_* */
    int never_disable;
    unsigned failures, total_failures, limit;
    uint64_t collects;
    char error[384];
    plug_obj objs[PL_PLUG_MAX_OBJECTS];
    uint32_t nobjs;
};

/* Learns the objects of one metadata (or data) answer into pl->objs, with
 * names and help from pl->cfg.  0, or EPROTO / ENOMEM with msg. */
int pl_plug_learn(plugin *pl, const uint8_t *buf, size_t len, uint32_t nobjs, int lax, char *msg,
                  size_t msgsize);
void pl_plug_obj_free(plug_obj *o);
/* One data answer for object o into snap (pl_plugin_take with the caller's
 * name table). */
int pl_plug_take(const plug_obj *o, const uint8_t *buf, size_t len, uint32_t nobjs, int lax,
                 pl_names *nm, pl_snapshot *snap, char *msg, size_t msgsize);

#endif
