/* The registry interface of PerfLib V1 on perflib's catalog: title indexes
 * for every counterset and counter name (the "Counter 009" / "Help 009"
 * tables, and perflib's "Units 009"), and the query strings of a registry
 * collection (Global, Costly, index lists, MetadataGlobal, MetadataCostly). */
#include "perflib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

uint32_t pl_counter_title_index(const pl_counterset_def *cs, const pl_counter_def *c)
{
    return cs->index + 2 + 2 * c->id;
}

int pl_env_lookup_index(const pl_env *env, uint32_t index, const pl_counterset_def **cs,
                        const pl_counter_def **c, int *help)
{
    *cs = NULL;
    *c = NULL;
    *help = index & 1;
    index &= ~1u;
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
        const pl_counterset_def *s = pl_env_counterset(env, k);
        if (index < s->index || index >= s->index + PL_INDEX_SPAN)
            continue;
        *cs = s;
        if (index == s->index)
            return 0;
        int i = pl_counter_index(s, (index - s->index - 2) / 2);
        if (i < 0)
            return ENOENT;
        *c = &s->counters[i];
        return 0;
    }
    return ENOENT;
}

/* "Thread" brings "Process" along, as Windows' registry interface does with
 * dependent objects. */
static const char *const depends[][2] = { { "Thread", "Process" } };

static int add_unique(const pl_counterset_def **out, uint32_t cap, uint32_t *n,
                      const pl_counterset_def *cs)
{
    for (uint32_t i = 0; i < *n; i++)
        if (out[i] == cs)
            return 0;
    if (*n >= cap)
        return ENOSPC;
    out[(*n)++] = cs;
    return 0;
}

int pl_registry_parse(const pl_env *env, const char *query, pl_registry_sel *sel)
{
    const char *p = query;
    memset(sel, 0, sizeof *sel);
    if (!query)
        return EINVAL;
    while (*p == ' ')
        p++;
    if (strcasecmp(p, "Global") == 0 || strcasecmp(p, "Costly") == 0 ||
        strcasecmp(p, "MetadataGlobal") == 0 || strcasecmp(p, "MetadataCostly") == 0) {
        int costly = strcasecmp(p, "Costly") == 0 || strcasecmp(p, "MetadataCostly") == 0;
        sel->kind = strncasecmp(p, "Metadata", 8) == 0 ? PL_REG_METADATA : PL_REG_DATA;
        for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
            const pl_counterset_def *cs = pl_env_counterset(env, k);
            if (!cs->costly == !costly && add_unique(sel->sets, PL_REG_MAX, &sel->nsets, cs))
                return ENOSPC;
        }
        return 0;
    }
    if (strncasecmp(p, "Counter", 7) == 0 || strncasecmp(p, "Help", 4) == 0 || strncasecmp(p, "Units", 5) == 0) {
        /* "Counter 009" / "Help 007" / "Units 009": a language id of 1-4 hex
         * digits.  Only English tables exist, and every language answers
         * them, as Windows falls back to English (009) where a language has
         * no strings. */
        const char *lang = p + (strncasecmp(p, "Counter", 7) == 0 ? 7 : strncasecmp(p, "Help", 4) == 0 ? 4 : 5);
        size_t n;
        sel->kind = strncasecmp(p, "Counter", 7) == 0 ? PL_REG_NAMES
                    : strncasecmp(p, "Help", 4) == 0  ? PL_REG_HELP
                                                      : PL_REG_UNITS;
        if (*lang && *lang != ' ')
            return EINVAL;                /* "Counters", "Helpful", "Unitsx" */
        while (*lang == ' ')
            lang++;
        n = strspn(lang, "0123456789abcdefABCDEF");
        if (n > 4 || lang[n])
            return EINVAL;
        return 0;
    }
    /* a list of decimal counterset indexes: "2 4" */
    sel->kind = PL_REG_DATA;
    while (*p) {
        char *end;
        unsigned long v;
        if (*p < '0' || *p > '9')
            return EINVAL;
        v = strtoul(p, &end, 10);
        p = end;
        if (*p && *p != ' ')
            return EINVAL;
        while (*p == ' ')
            p++;
        const pl_counterset_def *found = NULL;
        for (uint32_t k = 0; k < pl_env_counterset_count(env); k++)
            if (pl_env_counterset(env, k)->index == v)
                found = pl_env_counterset(env, k);
        if (!found) {
            if (sel->nunknown < PL_REG_MAX)
                sel->unknown[sel->nunknown++] = (uint32_t)(v > UINT32_MAX ? UINT32_MAX : v);
            continue;
        }
        if (add_unique(sel->sets, PL_REG_MAX, &sel->nsets, found))
            return ENOSPC;
        for (size_t d = 0; d < sizeof depends / sizeof depends[0]; d++)
            if (strcmp(found->name, depends[d][0]) == 0) {
                const pl_counterset_def *dep = pl_env_find(env, depends[d][1]);
                if (dep && add_unique(sel->sets, PL_REG_MAX, &sel->nsets, dep))
                    return ENOSPC;
            }
    }
    return sel->nsets || sel->nunknown ? 0 : EINVAL;
}

int pl_query_add_sets(pl_query *q, const pl_registry_sel *sel, uint32_t *first, uint32_t *count)
{
    *first = pl_query_count(q);
    *count = 0;
    for (uint32_t k = 0; k < sel->nsets; k++) {
        const pl_counterset_def *cs = sel->sets[k];
        char guid[PL_GUID_STRLEN + 1];
        pl_spec_in in = { guid, "*", PL_NO_ID, NULL, PERF_WILDCARD_COUNTER, 0 };
        pl_add_status st;
        uint32_t idx;
        int e;
        pl_guid_format(&cs->guid, guid);
        if (cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE)
            in.instance = "";
        e = pl_query_add(q, &in, &st, &idx);
        if (e)
            return e;
        if (st == PL_ADD_OK)
            (*count)++;          /* a set already in the query is simply not added again */
    }
    return 0;
}
