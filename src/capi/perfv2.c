/* The PerfLib V2 consumer API (perflib_v2.h) on perflib's counter core.
 *
 * Everything the caller hands in is untrusted: identifier blocks are walked
 * with every Size checked against cbCounters before use, names must end
 * inside their block and be valid UTF-16, and handles are looked up in a
 * table (slot and generation), so a stale or made-up handle is
 * ERROR_INVALID_HANDLE.  One mutex serializes the calls. */
#include "perflib_v2.h"
#include "appseg.h"
#include "plugin.h"
#include "logsrc.h"
#include "remote.h"
#include "textfile.h"
#include "perflib.h"
#include "pl_datablock.h"
#include "pl_le.h"
#include "providers.h"
#include "pl_capi.h"
#include "pl_codes.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))
#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)
#define MAX_HANDLES 4096u
#define NO_ID 0xFFFFFFFFu

/* The provider GUID every counterset reports (PERF_REG_PROVIDER_GUID):
 * {7e5ea1b2-2f0c-5d4e-9a61-70657266c16b}, perflib's own. */
static const pl_guid provider_guid = { 0x7e5ea1b2u, 0x2f0c, 0x5d4e,
                                       { 0x9a, 0x61, 0x70, 0x65, 0x72, 0x66, 0xc1, 0x6b } };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pl_env *local_env;                 /* this machine, made once */

typedef struct qhandle {
    pl_query *q;                          /* NULL: the slot is free */
    uint32_t gen;
    pl_membuf mem;                        /* the sample memory, kept from one collect to the next */
} qhandle;
static qhandle handles[MAX_HANDLES];

/* ---------------------------------------------------------------- machines */

/* A UTF-16 string of at most max units with its NUL, as UTF-8 in out; 0 when it
 * is not terminated within max or is not valid UTF-16. */
static int utf16_arg(const WCHAR *s, size_t max, char *out, size_t cap)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    if (n == max)
        return 0;
    long len = pl_utf16_to_utf8((const uint16_t *)s, n, out, cap);
    return len >= 0 && (size_t)len < cap;
}

/* Another host's perflua serve: "host:port" or "\\\\host:port"; the bearer
 * token from $PERFLIB_REMOTE_TOKEN, https when $PERFLIB_REMOTE_TLS is 1 (CA
 * file $PERFLIB_REMOTE_CACERT), the timeout (seconds) $PERFLIB_REMOTE_TIMEOUT. */
static pl_env *remote_machine(const char *name, ULONG *err)
{
    const char *tmo = getenv("PERFLIB_REMOTE_TIMEOUT"), *tls = getenv("PERFLIB_REMOTE_TLS");
    pl_remote_opts o = { .host = name + (name[0] == '\\' && name[1] == '\\' ? 2 : 0),
                         .token = getenv("PERFLIB_REMOTE_TOKEN"), .tls = tls && strcmp(tls, "1") == 0,
                         .cacert = getenv("PERFLIB_REMOTE_CACERT"), .timeout = tmo ? atof(tmo) : 0 };
    char msg[256];
    if (o.token && !*o.token)
        o.token = NULL;
    pl_remote *r = pl_remote_get(&o, msg, sizeof msg);
    if (!r) {
        *err = errno == ENOMEM ? ERROR_OUTOFMEMORY : errno == EACCES ? ERROR_ACCESS_DENIED
             : ERROR_BAD_NETPATH;          /* a name that is no host, a host that cannot be read */
        return NULL;
    }
    return pl_remote_env(r);
}

/* A log, "log:PATH[;PATH...]" (the files of a rotation, in order). */
static pl_env *log_machine(char *spec, ULONG *err)
{
    const char *paths[64];
    size_t n = 0;
    for (char *p = spec, *save = NULL; n < 64 && (p = strtok_r(p, ";", &save)) != NULL; p = NULL)
        paths[n++] = p;
    pl_env *env = NULL;
    char msg[256];
    int e = n ? pl_logsrc_open(paths, n, INT64_MIN, INT64_MAX, &env, msg, sizeof msg) : EINVAL;
    if (e)
        *err = e == ENOMEM ? ERROR_OUTOFMEMORY : e == ENOENT ? ERROR_FILE_NOT_FOUND : ERROR_BAD_NETPATH;
    return env;
}

/* The machine view szMachine names (a new reference), or NULL with *err. */
static pl_env *machine(LPCWSTR szMachine, ULONG *err)
{
    char root[4096];
    static int plugins_loaded;
    int e = pl_register_builtin(NULL, 0);   /* libperflib bundles the built-in sets */
    if (!e && !plugins_loaded) {
        plugins_loaded = 1;                 /* and this system's plug-ins, once (under the API lock) */
        e = pl_plugins_load_default(NULL, 0) == ENOMEM ? ENOMEM : 0;
        if (!e && pl_textfiles_load_default(NULL, 0) == ENOMEM)   /* and its Prometheus textfiles */
            e = ENOMEM;
    }
    if (!e)
        e = pl_appseg_enable();             /* and the applications' countersets as they appear */
    if (e) {
        *err = pl_errno_win32(e);
        return NULL;
    }
    if (szMachine && !utf16_arg(szMachine, 4096, root, sizeof root)) {
        *err = ERROR_INVALID_PARAMETER;
        return NULL;
    }
    if (!szMachine || !root[0] || strcmp(root, ".") == 0 || strcmp(root, "localhost") == 0) {
        if (!local_env && !(local_env = pl_env_new(NULL))) {
            *err = pl_errno_win32(errno);
            return NULL;
        }
        if ((e = pl_env_sync(local_env)) != 0) {   /* sets published since it was made */
            *err = pl_errno_win32(e);
            return NULL;
        }
        return pl_env_ref(local_env);
    }
    if (strncmp(root, "log:", 4) == 0)
        return log_machine(root + 4, err);
    if (root[0] != '/')
        return remote_machine(root, err);
    pl_env *env = pl_env_new(root);
    if (!env)
        *err = errno == ENOMEM ? ERROR_OUTOFMEMORY : ERROR_BAD_NETPATH;
    return env;
}

static const pl_counterset_def *find_set(pl_env *env, LPCGUID id)
{
    pl_guid g;
    pl_guid_get(id, &g);
    return pl_env_find_guid(env, &g);
}

/* ---------------------------------------------------------------- handles */

static HANDLE handle_of(uint32_t slot)
{
    return (HANDLE)(uintptr_t)(((uintptr_t)handles[slot].gen << 16) | (slot + 1));
}

static qhandle *lookup(HANDLE h)
{
    uintptr_t v = (uintptr_t)h;
    uint32_t slot = (uint32_t)(v & 0xFFFFu), gen = (uint32_t)(v >> 16);
    if (slot == 0 || slot > MAX_HANDLES || (v >> 16) > 0xFFFFFFFFu)
        return NULL;
    qhandle *q = &handles[slot - 1];
    return q->q && q->gen == gen ? q : NULL;
}

API ULONG PerfOpenQueryHandle(LPCWSTR szMachine, HANDLE *phQuery)
{
    ULONG err = ERROR_SUCCESS;
    if (!phQuery)
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    pl_env *env = machine(szMachine, &err);
    if (env) {
        uint32_t slot = 0;
        while (slot < MAX_HANDLES && handles[slot].q)
            slot++;
        if (slot == MAX_HANDLES) {
            err = ERROR_NO_SYSTEM_RESOURCES;
        } else if (!(handles[slot].q = pl_query_new(env))) {
            err = ERROR_OUTOFMEMORY;
        } else {
            handles[slot].gen = (handles[slot].gen + 1) & 0x7FFFu;   /* a reused slot is a new handle */
            *phQuery = handle_of(slot);
        }
        pl_env_unref(env);                 /* the query holds its own reference */
    }
    pthread_mutex_unlock(&lock);
    return err;
}

API ULONG PerfCloseQueryHandle(HANDLE hQuery)
{
    pthread_mutex_lock(&lock);
    qhandle *q = lookup(hQuery);
    if (q) {
        pl_query_free(q->q);
        free(q->mem.mem);
        q->q = NULL;
        q->mem = (pl_membuf){ NULL, 0 };
    }
    pthread_mutex_unlock(&lock);
    return q ? ERROR_SUCCESS : ERROR_INVALID_HANDLE;
}

/* ---------------------------------------------------------------- identifier blocks */

/* Checks the sequence of identifier blocks: sizes only (the names per block). */
static ULONG check_identifiers(const uint8_t *p, DWORD cb)
{
    if (!p || cb < PL_DB_IDENTIFIER)
        return ERROR_INVALID_PARAMETER;
    size_t o = 0;
    while (o < cb) {
        if (cb - o < PL_DB_IDENTIFIER)
            return ERROR_INVALID_PARAMETER;
        uint32_t size = pl_r32(p + o + 20);
        if (size < PL_DB_IDENTIFIER || size % 8 || size > cb - o)
            return ERROR_INVALID_PARAMETER;
        o += size;
    }
    return ERROR_SUCCESS;
}

/* The spec one identifier block asks for, as the core takes it: name receives
 * its instance filter (UTF-8), guid its counterset.  The core checks the
 * rest (the set, the instance rules, the counter) as it adds or finds it.
 * ERROR_SUCCESS, or ERROR_INVALID_PARAMETER for a name that does not end
 * inside the block, is too long or is not UTF-16. */
static ULONG identifier_spec(const uint8_t *p, char *name, size_t cap, char *guid, pl_spec_in *in)
{
    size_t units = (pl_r32(p + 20) - PL_DB_IDENTIFIER) / 2, n = 0;
    uint16_t tmp[PL_DB_MAX_INSTANCE_NAME];
    pl_guid g;
    while (n < units && n < PL_DB_MAX_INSTANCE_NAME && (tmp[n] = pl_r16(p + PL_DB_IDENTIFIER + 2 * n)) != 0)
        n++;
    if (units && (n == units || n == PL_DB_MAX_INSTANCE_NAME))
        return ERROR_INVALID_PARAMETER;           /* not terminated inside the block, or too long */
    if (pl_utf16_to_utf8(tmp, n, name, cap) < 0)
        return ERROR_INVALID_PARAMETER;           /* an unpaired surrogate */
    pl_guid_get(p, &g);
    pl_guid_format(&g, guid);
    memset(in, 0, sizeof *in);
    in->counterset = guid;
    in->instance = name;
    in->instance_id = pl_r32(p + 28);
    in->counter_id = pl_r32(p + 24);
    in->detail = PERF_DETAIL_WIZARD;              /* a wildcard means every counter, as on Windows */
    return ERROR_SUCCESS;
}

/* What PerfAddCounters and PerfDeleteCounters do with one valid identifier: its Status. */
typedef ULONG (*ident_fn)(pl_query *q, const pl_spec_in *in, uint32_t *index);

static ULONG add_one(pl_query *q, const pl_spec_in *in, uint32_t *index)
{
    pl_add_status status;
    if (pl_query_add(q, in, &status, index) == ENOMEM)
        return ERROR_OUTOFMEMORY;
    return pl_add_status_win32(status);
}

static ULONG delete_one(pl_query *q, const pl_spec_in *in, uint32_t *index)
{
    pl_add_status status;
    uint32_t k = 0;
    *index = 0;
    if (pl_query_find(q, in, &status, &k) == ENOMEM)
        return ERROR_OUTOFMEMORY;
    if (status == PL_ADD_OK)
        pl_query_delete(q, k);
    return pl_add_status_win32(status);
}

/* Checks the whole sequence, then does fn for each block and writes its Status
 * (and, for adds, its Index). */
static ULONG each_identifier(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters, ident_fn fn)
{
    uint8_t *p = (uint8_t *)pCounters;
    ULONG err;
    pthread_mutex_lock(&lock);
    qhandle *q = lookup(hQuery);
    if (!q) {
        err = ERROR_INVALID_HANDLE;
    } else if ((err = check_identifiers(p, cbCounters)) == ERROR_SUCCESS) {
        for (size_t o = 0; o < cbCounters; o += pl_r32(p + o + 20)) {
            char name[4 * PL_DB_MAX_INSTANCE_NAME], guid[PL_GUID_STRLEN + 1];
            pl_spec_in in;
            uint32_t index = 0;
            ULONG status = identifier_spec(p + o, name, sizeof name, guid, &in);
            if (status == ERROR_SUCCESS)
                status = fn(q->q, &in, &index);
            pl_w32(p + o + 16, status);
            if (fn == add_one)
                pl_w32(p + o + 32, status == ERROR_SUCCESS ? index : 0);
        }
    }
    pthread_mutex_unlock(&lock);
    return err;
}

API ULONG PerfAddCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters)
{
    return each_identifier(hQuery, pCounters, cbCounters, add_one);
}

API ULONG PerfDeleteCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters)
{
    return each_identifier(hQuery, pCounters, cbCounters, delete_one);
}

API ULONG PerfQueryCounterInfo(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters,
                               LPDWORD pcbCountersActual)
{
    uint8_t *p = (uint8_t *)pCounters;
    ULONG err = ERROR_SUCCESS;
    if (!pcbCountersActual)
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    qhandle *q = lookup(hQuery);
    if (!q) {
        err = ERROR_INVALID_HANDLE;
        goto done;
    }
    size_t need = 0;
    uint32_t n = pl_query_count(q->q);
    for (uint32_t k = 0; k < n; k++) {
        const pl_spec *s = pl_query_spec(q->q, k);
        need += s->instance[0] ? ALIGN8(PL_DB_IDENTIFIER + pl_db_put_utf16(NULL, s->instance)) : PL_DB_IDENTIFIER;
    }
    *pcbCountersActual = (DWORD)need;
    if (cbCounters < need) {
        err = ERROR_NOT_ENOUGH_MEMORY;
        goto done;
    }
    if (need && !p) {
        err = ERROR_INVALID_PARAMETER;
        goto done;
    }
    size_t o = 0;
    for (uint32_t k = 0; k < n; k++) {
        const pl_spec *s = pl_query_spec(q->q, k);
        size_t size = s->instance[0] ? ALIGN8(PL_DB_IDENTIFIER + pl_db_put_utf16(NULL, s->instance)) : PL_DB_IDENTIFIER;
        memset(p + o, 0, size);
        pl_guid_put(p + o, &s->cs->guid);
        pl_w32(p + o + 20, (uint32_t)size);
        pl_w32(p + o + 24, s->counter_id);
        pl_w32(p + o + 28, s->instance_id);
        pl_w32(p + o + 32, k);
        if (s->instance[0])
            pl_db_put_utf16(p + o + PL_DB_IDENTIFIER, s->instance);
        o += size;
    }
done:
    pthread_mutex_unlock(&lock);
    return err;
}


API ULONG PerfQueryCounterData(HANDLE hQuery, PPERF_DATA_HEADER pCounterBlock, DWORD cbCounterBlock,
                               LPDWORD pcbCounterBlockActual)
{
    ULONG err = ERROR_SUCCESS;
    pl_sample *s;
    int e;
    if (!pcbCounterBlockActual)
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    qhandle *q = lookup(hQuery);
    if (!q) {
        err = ERROR_INVALID_HANDLE;
    } else if ((e = pl_query_collect_with(q->q, pl_membuf_alloc, &q->mem, &s)) != 0) {
        /* a log's end, or a record that fails its checks */
        err = e == ENODATA ? ERROR_NO_MORE_ITEMS : e == ENOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_DATA;
    } else {
        /* one walk writes what fits and says what it takes */
        size_t need = pl_db_write(s, 0, pCounterBlock, cbCounterBlock);
        if (need > UINT32_MAX) {
            err = ERROR_OUTOFMEMORY;
        } else {
            *pcbCounterBlockActual = (DWORD)need;
            if (cbCounterBlock < need)
                err = ERROR_NOT_ENOUGH_MEMORY;
            else if (!pCounterBlock)
                err = ERROR_INVALID_PARAMETER;
        }
    }
    pthread_mutex_unlock(&lock);
    return err;
}

/* ---------------------------------------------------------------- enumeration and registration */

API ULONG PerfEnumerateCounterSet(LPCWSTR szMachine, LPGUID pCounterSetIds, DWORD cCounterSetIds,
                                  LPDWORD pcCounterSetIdsActual)
{
    ULONG err = ERROR_SUCCESS;
    if (!pcCounterSetIdsActual)
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    pl_env *env = machine(szMachine, &err);
    if (env) {
        uint32_t n = pl_env_counterset_count(env);
        *pcCounterSetIdsActual = n;
        if (cCounterSetIds < n)
            err = ERROR_NOT_ENOUGH_MEMORY;
        else if (n && !pCounterSetIds)
            err = ERROR_INVALID_PARAMETER;
        else
            for (uint32_t k = 0; k < n; k++)
                pl_guid_put(&pCounterSetIds[k], &pl_env_counterset(env, k)->guid);
        pl_env_unref(env);
    }
    pthread_mutex_unlock(&lock);
    return err;
}

API ULONG PerfEnumerateCounterSetInstances(LPCWSTR szMachine, LPCGUID pCounterSetId,
                                           PPERF_INSTANCE_HEADER pInstances, DWORD cbInstances,
                                           LPDWORD pcbInstancesActual)
{
    ULONG err = ERROR_SUCCESS;
    if (!pCounterSetId || !pcbInstancesActual)
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    pl_env *env = machine(szMachine, &err);
    if (env) {
        const pl_counterset_def *cs = find_set(env, pCounterSetId);
        pl_snapshot snap;
        if (!cs) {
            err = ERROR_WMI_GUID_NOT_FOUND;
        } else {
            pl_snap_init(&snap, cs);
            int e = pl_enum_instances(env, cs, &snap);
            if (e) {
                err = pl_errno_win32(e);
            } else if (snap.ninst == 0) {
                err = ERROR_WMI_INSTANCE_NOT_FOUND;
            } else {
                size_t need = 0;
                for (uint32_t i = 0; i < snap.ninst; i++)
                    need += pl_db_put_instance(NULL, snap.inst[i].id, pl_snap_name(&snap, i));
                *pcbInstancesActual = (DWORD)need;
                if (cbInstances < need) {
                    err = ERROR_NOT_ENOUGH_MEMORY;
                } else if (!pInstances) {
                    err = ERROR_INVALID_PARAMETER;
                } else {
                    uint8_t *p = (uint8_t *)pInstances;
                    for (uint32_t i = 0; i < snap.ninst; i++)
                        p += pl_db_put_instance(p, snap.inst[i].id, pl_snap_name(&snap, i));
                }
            }
            pl_snap_free(&snap);
        }
        pl_env_unref(env);
    }
    pthread_mutex_unlock(&lock);
    return err;
}

static void counter_reg_info(uint8_t *p, const pl_counter_def *c)
{
    memset(p, 0, 48);
    pl_w32(p, c->id);
    pl_w32(p + 4, c->type);
    pl_w64(p + 8, pl_counter_hidden(c) ? PERF_ATTRIB_NO_DISPLAYABLE : 0);
    pl_w32(p + 16, c->detail);
    pl_w32(p + 20, (uint32_t)c->scale);
    pl_w32(p + 24, c->base_id == PL_NO_ID ? NO_ID : c->base_id);
    pl_w32(p + 28, NO_ID);                   /* PerfTimeId, PerfFreqId, MultiId: none */
    pl_w32(p + 32, NO_ID);
    pl_w32(p + 36, NO_ID);
}

/* PERF_REG_COUNTER_NAME_STRINGS / _HELP_STRINGS into p (NULL: size only). */
static size_t string_block(uint8_t *p, const pl_counterset_def *cs, int help)
{
    size_t o = ALIGN8(8 + 8 * (size_t)cs->ncounters);
    for (uint32_t k = 0; k < cs->ncounters; k++) {
        const char *s = help ? cs->counters[k].help : cs->counters[k].name;
        if (p) {
            pl_w32(p + 8 + 8 * k, cs->counters[k].id);
            pl_w32(p + 12 + 8 * k, s ? (uint32_t)o : NO_ID);
        }
        if (s)
            o += pl_db_put_utf16(p ? p + o : NULL, s);
    }
    o = ALIGN8(o);
    if (p) {
        pl_w32(p, (uint32_t)o);
        pl_w32(p + 4, cs->ncounters);
    }
    return o;
}

/* The answer to one request into p (NULL: size only), or 0 with *err. */
static size_t reg_info(uint8_t *p, const pl_counterset_def *cs, ULONG code, DWORD lang, ULONG *err)
{
    switch (code) {
    case PERF_REG_COUNTERSET_STRUCT: {
        if (p) {
            uint32_t detail = PERF_DETAIL_WIZARD;
            for (uint32_t k = 0; k < cs->ncounters; k++)
                if (cs->counters[k].detail < detail)
                    detail = cs->counters[k].detail;
            memset(p, 0, 32);
            pl_guid_put(p, &cs->guid);
            pl_w32(p + 20, detail);
            pl_w32(p + 24, cs->ncounters);
            pl_w32(p + 28, cs->instance_type);
            for (uint32_t k = 0; k < cs->ncounters; k++)
                counter_reg_info(p + 32 + 48 * k, &cs->counters[k]);
        }
        return 32 + 48 * (size_t)cs->ncounters;
    }
    case PERF_REG_COUNTER_STRUCT: {
        int k = pl_counter_index(cs, lang);        /* requestLangId is the counter id here */
        if (k < 0) {
            *err = ERROR_WMI_ITEMID_NOT_FOUND;
            return 0;
        }
        if (p)
            counter_reg_info(p, &cs->counters[k]);
        return 48;
    }
    case PERF_REG_COUNTERSET_NAME_STRING:
    case PERF_REG_COUNTERSET_ENGLISH_NAME:
        return pl_db_put_utf16(p, cs->name);
    case PERF_REG_COUNTERSET_HELP_STRING:
        return pl_db_put_utf16(p, cs->help ? cs->help : "");
    case PERF_REG_COUNTER_NAME_STRINGS:
    case PERF_REG_COUNTER_ENGLISH_NAMES:
        return string_block(p, cs, 0);
    case PERF_REG_COUNTER_HELP_STRINGS:
        return string_block(p, cs, 1);
    case PERF_REG_PROVIDER_NAME:
        return pl_db_put_utf16(p, "perflib");
    case PERF_REG_PROVIDER_GUID:
        if (p)
            pl_guid_put(p, &provider_guid);
        return 16;
    default:
        *err = ERROR_INVALID_PARAMETER;
        return 0;
    }
}

API ULONG PerfQueryCounterSetRegistrationInfo(LPCWSTR szMachine, LPCGUID pCounterSetId, ULONG requestCode,
                                              DWORD requestLangId, LPBYTE pbRegInfo, DWORD cbRegInfo,
                                              LPDWORD pcbRegInfoActual)
{
    ULONG err = ERROR_SUCCESS;
    if (!pCounterSetId || !pcbRegInfoActual)
        return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    pl_env *env = machine(szMachine, &err);
    if (env) {
        const pl_counterset_def *cs = find_set(env, pCounterSetId);
        if (!cs) {
            err = ERROR_WMI_GUID_NOT_FOUND;
        } else {
            /* every language is English: perflib has one set of strings */
            size_t need = reg_info(NULL, cs, requestCode, requestLangId, &err);
            if (err == ERROR_SUCCESS) {
                *pcbRegInfoActual = (DWORD)need;
                if (cbRegInfo < need)
                    err = ERROR_NOT_ENOUGH_MEMORY;
                else if (!pbRegInfo)
                    err = ERROR_INVALID_PARAMETER;
                else
                    reg_info(pbRegInfo, cs, requestCode, requestLangId, &err);
            }
        }
        pl_env_unref(env);
    }
    pthread_mutex_unlock(&lock);
    return err;
}

API ULONG PerflibCheckDataBlock(const void *pBlock, DWORD cbBlock, LPDWORD pOffset, const char **pRule)
{
    pl_db_error e = { 0, NULL };
    if (!pBlock && cbBlock)
        return ERROR_INVALID_PARAMETER;
    if (pl_db_validate(pBlock, cbBlock, &e) == 0)
        return ERROR_SUCCESS;
    if (pOffset)
        *pOffset = (DWORD)e.offset;
    if (pRule)
        *pRule = e.rule;
    return ERROR_INVALID_DATA;
}

/* ---------------------------------------------------------------- shared with perfv1.c */

void pl_capi_lock(void) { pthread_mutex_lock(&lock); }
void pl_capi_unlock(void) { pthread_mutex_unlock(&lock); }
pl_env *pl_capi_local(ULONG *err) { return machine(NULL, err); }
pl_env *pl_capi_machine(LPCWSTR szMachine, ULONG *err) { return machine(szMachine, err); }
