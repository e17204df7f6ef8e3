/* The PerfLib V1 registry interface (perflib_v1.h) on perflib's counter
 * core: RegQueryValueEx on the three performance keys, answering
 * PERF_DATA_BLOCKs written by the core's V1 writer and the title tables.
 *
 * Each data value name keeps one query (and its sample memory) from call to
 * call, collected anew at each call, so two "Global" calls give two
 * samples to compute rates from; RegCloseKey frees them.  Everything runs
 * under the lock of the V2 API (pl_capi.h).  Value names are untrusted:
 * bounded, checked UTF-16, parsed by the core's registry parser. */
#include "perflib_v1.h"
#include "perflib.h"
#include "pl_datablock.h"
#include "pl_v1.h"
#include "pl_capi.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))
#define NAME_MAX_BYTES 1024u          /* a longer value name is no value of ours */
#define MAX_CACHED 32u

/* winperf.h's layout as the core writes it (windows-perf-model.md section 7) */
_Static_assert(sizeof(PERF_DATA_BLOCK) == PL_V1_DATA_BLOCK, "PERF_DATA_BLOCK is 88 bytes");
_Static_assert(offsetof(PERF_DATA_BLOCK, SystemTime) == 36, "SystemTime at 36");
_Static_assert(offsetof(PERF_DATA_BLOCK, PerfTime) == 56, "PerfTime at 56");
_Static_assert(offsetof(PERF_DATA_BLOCK, SystemNameOffset) == 84, "SystemNameOffset at 84");
_Static_assert(sizeof(PERF_OBJECT_TYPE) == PL_V1_OBJECT_TYPE, "PERF_OBJECT_TYPE is 64 bytes");
_Static_assert(offsetof(PERF_OBJECT_TYPE, NumInstances) == 40, "NumInstances at 40");
_Static_assert(offsetof(PERF_OBJECT_TYPE, PerfTime) == 48, "PerfTime at 48");
_Static_assert(sizeof(PERF_COUNTER_DEFINITION) == PL_V1_COUNTER_DEF, "PERF_COUNTER_DEFINITION is 40");
_Static_assert(offsetof(PERF_COUNTER_DEFINITION, CounterOffset) == 36, "CounterOffset at 36");
_Static_assert(sizeof(PERF_INSTANCE_DEFINITION) == PL_V1_INSTANCE_DEF, "PERF_INSTANCE_DEFINITION is 24");
_Static_assert(offsetof(PERF_INSTANCE_DEFINITION, NameLength) == 20, "NameLength at 20");
_Static_assert(sizeof(PERF_COUNTER_BLOCK) == 4, "PERF_COUNTER_BLOCK is 4 bytes");
_Static_assert(sizeof(LARGE_INTEGER) == 8, "LARGE_INTEGER is 8 bytes");

/* One data value name's query, kept between calls. */
typedef struct cached {
    char name[NAME_MAX_BYTES];        /* the value name as asked ("OLD_" dropped) */
    pl_query *q;                      /* NULL: free */
    unsigned flags;                   /* PL_V1_METADATA or 0 */
    pl_membuf mem;                    /* the sample memory, grown, never per call */
} cached;
static cached cache[MAX_CACHED];
static uint32_t next_evict;

static void drop(cached *c)
{
    pl_query_free(c->q);
    free(c->mem.mem);
    memset(c, 0, sizeof *c);
}


/* The cached query for name, made from sel when new (the oldest one gives
 * way when every slot is taken); NULL with *err. */
static cached *query_for(pl_env *env, const char *name, const pl_registry_sel *sel, unsigned flags, LSTATUS *err)
{
    cached *c = NULL;
    uint32_t first, count;
    for (uint32_t i = 0; i < MAX_CACHED; i++) {
        if (cache[i].q && cache[i].flags == flags && strcasecmp(cache[i].name, name) == 0)
            return &cache[i];
        if (!c && !cache[i].q)
            c = &cache[i];
    }
    if (!c) {
        c = &cache[next_evict];
        next_evict = (next_evict + 1) % MAX_CACHED;
        drop(c);
    }
    if (!(c->q = pl_query_new(env))) {
        *err = ERROR_OUTOFMEMORY;
        return NULL;
    }
    if (pl_query_add_sets(c->q, sel, &first, &count)) {
        drop(c);
        *err = ERROR_OUTOFMEMORY;
        return NULL;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    c->flags = flags;
    return c;
}

/* The caller's buffer: what fits is written, the size taken is counted. */
typedef struct out {
    uint8_t *buf;
    size_t cap, off;
} out;

static void put_text(out *o, const char *s, int wide)
{
    size_t n = wide ? pl_db_put_utf16(NULL, s) : strlen(s) + 1;
    if (o->buf && o->off + n <= o->cap) {
        if (wide)
            pl_db_put_utf16(o->buf + o->off, s);
        else
            memcpy(o->buf + o->off, s, n);
    }
    o->off += n;
}

static void put_entry(out *o, uint32_t index, const char *text, int wide)
{
    char num[16];
    snprintf(num, sizeof num, "%u", (unsigned)index);
    put_text(o, num, wide);
    put_text(o, text ? text : "", wide);
}

/* The set with the smallest title index above after (NULL: none). */
static const pl_counterset_def *next_set(const pl_env *env, uint32_t after, int first)
{
    const pl_counterset_def *best = NULL;
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
        const pl_counterset_def *cs = pl_env_counterset(env, k);
        if ((first || cs->index > after) && (!best || cs->index < best->index))
            best = cs;
    }
    return best;
}

/* The counter of cs with the smallest id above after (NULL: none). */
static const pl_counter_def *next_counter(const pl_counterset_def *cs, const pl_counter_def *after)
{
    const pl_counter_def *best = NULL;
    for (uint32_t i = 0; i < cs->ncounters; i++) {
        const pl_counter_def *c = &cs->counters[i];
        if ((!after || c->id > after->id) && (!best || c->id < best->id))
            best = c;
    }
    return best;
}

/* The "Counter" / "Help" table as REG_MULTI_SZ: index, text, ... in
 * increasing index order, and the empty string that ends the list.  As on
 * Windows, the names start with the pair 1 -> the highest index in use. */
static size_t put_table(const pl_env *env, int help, int wide, uint8_t *buf, size_t cap)
{
    out o = { buf, cap, 0 };
    const pl_counterset_def *cs;
    if (!help) {
        uint32_t last = 1;
        char num[16];
        for (cs = next_set(env, 0, 1); cs; cs = next_set(env, cs->index, 0)) {
            last = cs->index;
            for (const pl_counter_def *c = next_counter(cs, NULL); c; c = next_counter(cs, c))
                last = pl_counter_title_index(cs, c);
        }
        snprintf(num, sizeof num, "%u", (unsigned)last);
        put_entry(&o, 1, num, wide);
    }
    for (cs = next_set(env, 0, 1); cs; cs = next_set(env, cs->index, 0)) {
        put_entry(&o, cs->index + (uint32_t)help, help ? cs->help : cs->name, wide);
        for (const pl_counter_def *c = next_counter(cs, NULL); c; c = next_counter(cs, c))
            put_entry(&o, pl_counter_title_index(cs, c) + (uint32_t)help, help ? c->help : c->name, wide);
    }
    put_text(&o, "", wide);
    return o.off;
}

/* perflib's "Units" table: counter name index, its units line
 * (pl_units_describe), ... in increasing index order; counters only. */
static size_t put_units(const pl_env *env, int wide, uint8_t *buf, size_t cap)
{
    out o = { buf, cap, 0 };
    char line[512];
    for (const pl_counterset_def *cs = next_set(env, 0, 1); cs; cs = next_set(env, cs->index, 0))
        for (const pl_counter_def *c = next_counter(cs, NULL); c; c = next_counter(cs, c)) {
            pl_units_describe(cs, c, line, sizeof line);
            put_entry(&o, pl_counter_title_index(cs, c), line, wide);
        }
    put_text(&o, "", wide);
    return o.off;
}

/* Writes the answer's size to *lpcbData and says whether it fit. */
static LSTATUS sized(size_t need, LPBYTE lpData, LPDWORD lpcbData)
{
    if (need > UINT32_MAX)
        return ERROR_OUTOFMEMORY;
    if (!lpcbData)
        return ERROR_SUCCESS;              /* a question of existence and type only */
    DWORD cap = *lpcbData;
    *lpcbData = (DWORD)need;
    return lpData && cap < need ? ERROR_MORE_DATA : ERROR_SUCCESS;
}

/* Collects name's query anew and writes its V1 block (metadata: no collect). */
static LSTATUS data_block(pl_env *env, const char *name, const pl_registry_sel *sel, unsigned flags,
                          LPBYTE lpData, LPDWORD lpcbData)
{
    LSTATUS err = ERROR_SUCCESS;
    char host[256] = "";
    pl_sample *s;
    cached *c = query_for(env, name, sel, flags, &err);
    if (!c)
        return err;
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = 0;
    size_t cap = lpData && lpcbData ? *lpcbData : 0;
    if (flags & PL_V1_METADATA)           /* definitions only: no provider runs */
        return sized(pl_v1_write_metadata(c->q, host, lpData, cap), lpData, lpcbData);
    if (pl_query_collect_with(c->q, pl_membuf_alloc, &c->mem, &s))
        return ERROR_OUTOFMEMORY;
    return sized(pl_v1_write(s, host, flags, lpData, cap), lpData, lpcbData);
}

enum { NOT_OURS, TABLE_NAMES, TABLE_HELP, TABLE_UNITS };

/* "Counter" / "Help" / "Units" (the text keys' value names) */
static int text_value(const char *name)
{
    if (strcasecmp(name, "Counter") == 0)
        return TABLE_NAMES;
    if (strcasecmp(name, "Help") == 0)
        return TABLE_HELP;
    if (strcasecmp(name, "Units") == 0)
        return TABLE_UNITS;
    return NOT_OURS;
}

/* "Foreign" or "Foreign <machine>": data of other machines, of which there are none */
static int foreign_value(const char *name)
{
    return strncasecmp(name, "Foreign", 7) == 0 && (name[7] == 0 || name[7] == ' ');
}

/* The answer for one checked UTF-8 value name, with the lock held. */
static LSTATUS answer(pl_env *env, HKEY hKey, const char *name, int wide, LPDWORD lpType, LPBYTE lpData,
                      LPDWORD lpcbData)
{
    pl_registry_sel sel;
    int table = NOT_OURS;
    if (hKey != HKEY_PERFORMANCE_DATA) {
        table = text_value(name);
    } else if (foreign_value(name)) {
        memset(&sel, 0, sizeof sel);      /* no sets: a block with no objects */
        if (lpType)
            *lpType = REG_BINARY;
        return data_block(env, "Foreign", &sel, 0, lpData, lpcbData);
    } else {
        /* OLD_ asks for V1 providers only: every perflib set is served as one */
        const char *plain = strncasecmp(name, "OLD_", 4) == 0 ? name + 4 : name;
        int e;
        if (plain != name && strcasecmp(plain, "Global") != 0 && strncasecmp(plain, "Metadata", 8) != 0)
            return ERROR_FILE_NOT_FOUND;
        if ((e = pl_registry_parse(env, plain, &sel)) != 0)
            return e == EINVAL || e == ENOENT ? ERROR_FILE_NOT_FOUND : ERROR_OUTOFMEMORY;
        name = plain;
        table = sel.kind == PL_REG_NAMES ? TABLE_NAMES
                : sel.kind == PL_REG_HELP ? TABLE_HELP
                : sel.kind == PL_REG_UNITS ? TABLE_UNITS
                                           : NOT_OURS;
        if (table == NOT_OURS) {
            if (lpType)
                *lpType = REG_BINARY;
            return data_block(env, name, &sel, sel.kind == PL_REG_METADATA ? PL_V1_METADATA : 0, lpData,
                              lpcbData);
        }
    }
    if (table == NOT_OURS)
        return ERROR_FILE_NOT_FOUND;
    if (lpType)
        *lpType = REG_MULTI_SZ;
    size_t cap = lpData && lpcbData ? *lpcbData : 0;
    if (table == TABLE_UNITS)
        return sized(put_units(env, wide, lpData, cap), lpData, lpcbData);
    return sized(put_table(env, table == TABLE_HELP, wide, lpData, cap), lpData, lpcbData);
}

static int our_key(HKEY hKey)
{
    return hKey == HKEY_PERFORMANCE_DATA || hKey == HKEY_PERFORMANCE_TEXT || hKey == HKEY_PERFORMANCE_NLSTEXT;
}

/* Both entry points once the name is UTF-8. */
static LSTATUS query(HKEY hKey, const char *name, LPDWORD lpReserved, int wide, LPDWORD lpType, LPBYTE lpData,
                     LPDWORD lpcbData)
{
    LSTATUS err = ERROR_SUCCESS;
    if (!our_key(hKey))
        return ERROR_INVALID_HANDLE;       /* nothing here is a registry */
    if (lpReserved || (lpData && !lpcbData))
        return ERROR_INVALID_PARAMETER;
    if (!name)
        return ERROR_FILE_NOT_FOUND;       /* these keys have no default value */
    while (*name == ' ')
        name++;
    pl_capi_lock();
    ULONG e = ERROR_SUCCESS;
    pl_env *env = pl_capi_local(&e);
    if (!env) {
        err = (LSTATUS)e;
    } else {
        err = answer(env, hKey, name, wide, lpType, lpData, lpcbData);
        pl_env_unref(env);
    }
    pl_capi_unlock();
    return err;
}

API LSTATUS RegQueryValueExA(HKEY hKey, LPCSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData,
                             LPDWORD lpcbData)
{
    if (lpValueName && strnlen(lpValueName, NAME_MAX_BYTES) == NAME_MAX_BYTES)
        return our_key(hKey) ? ERROR_FILE_NOT_FOUND : ERROR_INVALID_HANDLE;
    return query(hKey, lpValueName, lpReserved, 0, lpType, lpData, lpcbData);
}

API LSTATUS RegQueryValueExW(HKEY hKey, LPCWSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData,
                             LPDWORD lpcbData)
{
    char name[NAME_MAX_BYTES];
    size_t n = 0;
    if (!lpValueName)
        return query(hKey, NULL, lpReserved, 1, lpType, lpData, lpcbData);
    while (n < NAME_MAX_BYTES / 4 && lpValueName[n])
        n++;
    if (n == NAME_MAX_BYTES / 4 || pl_utf16_to_utf8((const uint16_t *)lpValueName, n, name, sizeof name) < 0)
        return our_key(hKey) ? ERROR_FILE_NOT_FOUND : ERROR_INVALID_HANDLE;
    return query(hKey, name, lpReserved, 1, lpType, lpData, lpcbData);
}

API LSTATUS RegCloseKey(HKEY hKey)
{
    if (!our_key(hKey))
        return ERROR_INVALID_HANDLE;
    pl_capi_lock();
    for (uint32_t i = 0; i < MAX_CACHED; i++)
        if (cache[i].q)
            drop(&cache[i]);
    next_evict = 0;
    pl_capi_unlock();
    return ERROR_SUCCESS;
}
