/* Shared by the application-provider tests: a segment directory of their
 * own, a three-counter template, and collecting one path. */
#ifndef APPSEG_HELPERS_H
#define APPSEG_HELPERS_H

#include "perflib_provider.h"
#include "appseg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct tmpl3 {
    PERF_COUNTERSET_INFO info;
    PERF_COUNTER_INFO c[3];
} tmpl3;

static char seg_dir_path[] = "/tmp/perflib-appseg-XXXXXX";

/* Requests/sec (a rate), Active (4 bytes, raw), Total (8 bytes, raw). */
static tmpl3 make_tmpl(uint32_t d1, uint32_t instance_type)
{
    tmpl3 t;
    memset(&t, 0, sizeof t);
    t.info.CounterSetGuid.Data1 = d1;
    t.info.CounterSetGuid.Data2 = 0xa995;
    t.info.CounterSetGuid.Data4[0] = 0x12;
    t.info.NumCounters = 3;
    t.info.InstanceType = instance_type;
    t.c[0] = (PERF_COUNTER_INFO){ 1, PERF_COUNTER_BULK_COUNT, 0, 8, PERF_DETAIL_NOVICE, 0, 0 };
    t.c[1] = (PERF_COUNTER_INFO){ 2, PERF_COUNTER_RAWCOUNT, 0, 4, PERF_DETAIL_NOVICE, 0, 8 };
    t.c[2] = (PERF_COUNTER_INFO){ 3, PERF_COUNTER_LARGE_RAWCOUNT, 0, 8, PERF_DETAIL_NOVICE, 0, 16 };
    return t;
}

static const char *const tmpl_names[] = { "Requests/sec", "Active", "Total" };
static const char *const tmpl_help[] = { "Requests served per second", "Requests in progress", "Requests served" };

/* A provider (its GUID made from d1) publishing one set from a template. */
__attribute__((unused)) static HANDLE start_tmpl(uint32_t d1, PERF_COUNTERSET_INFO *info, ULONG size,
                                                 const PERFLIB_COUNTERSET_NAMES *nm)
{
    GUID prov = { 0x9f000000u | d1, 1, 2, { 3 } };
    HANDLE h = NULL;
    if (PerfStartProvider(&prov, NULL, &h) != ERROR_SUCCESS)
        return NULL;
    if (PerfSetCounterSetInfoEx(h, info, size, nm) != ERROR_SUCCESS) {
        PerfStopProvider(h);
        return NULL;
    }
    return h;
}

static HANDLE start_set(uint32_t d1, const char *name, uint32_t instance_type)
{
    tmpl3 t = make_tmpl(d1, instance_type);
    PERFLIB_COUNTERSET_NAMES nm = { name, "test set", tmpl_names, tmpl_help, NULL, NULL };
    return start_tmpl(d1, &t.info, sizeof t, &nm);
}

static GUID set_guid(uint32_t d1)
{
    return make_tmpl(d1, 0).info.CounterSetGuid;
}

static void use_seg_dir(void)
{
    if (!mkdtemp(seg_dir_path)) {
        perror("mkdtemp");
        exit(2);
    }
    setenv("PERFLIB_APPSEG_DIR", seg_dir_path, 1);
    unsetenv("PERFLIB_APPSEG_PRIVATE");
    pl_appseg_enable();
}

static void rm_seg_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", seg_dir_path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", seg_dir_path);
}

/* A query with one path; NULL when the path does not resolve. */
static pl_query *query_path(pl_env *env, const char *path)
{
    pl_query *q = pl_query_new(env);
    pl_add_status st = PL_ADD_STATUS_COUNT;
    uint32_t idx;
    if (q && (pl_query_add_path(q, path, &st, &idx) != 0 || st != 0)) {
        pl_query_free(q);
        return NULL;
    }
    return q;
}

/* Whether some refusal so far contains text. */
__attribute__((unused)) static int refused(const char *text)
{
    char buf[8192];
    for (uint32_t i = 0; pl_appseg_refusal(i, buf, sizeof buf); i++)
        if (strstr(buf, text))
            return 1;
    return 0;
}

#endif
