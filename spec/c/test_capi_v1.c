/* The PerfLib V1 registry interface (perflib_v1.h): every value name, the
 * ERROR_MORE_DATA contract and the grow-and-retry loop, exact sizes, the
 * NULL-buffer size query, lpType, case, unknown keys and values,
 * RegCloseKey, and the W and A title tables byte for byte.  On this
 * machine's live data: blocks are checked with the core's V1 validator. */
#include "ctest.h"
#include <errno.h>
#include "perflib_v1.h"
#include "perflib.h"
#include "pl_v1.h"
#include "providers.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static pl_env *env;

/* Grows the buffer until the whole answer fits, as Microsoft's samples do;
 * name is UTF-16 (wide) or UTF-8. */
static uint8_t *query(HKEY key, const void *name, int wide, DWORD *type, DWORD *size, LSTATUS *st)
{
    DWORD cap = 512;
    uint8_t *buf = NULL;
    for (int tries = 0; tries < 64; tries++) {
        uint8_t *nb = realloc(buf, cap);
        if (!nb)
            break;
        buf = nb;
        *size = cap;
        *st = wide ? RegQueryValueExW(key, name, NULL, type, buf, size) : RegQueryValueExA(key, name, NULL, type, buf, size);
        if (*st != ERROR_MORE_DATA)
            return buf;
        cap += 16384;
    }
    free(buf);
    return NULL;
}
#define query_w(key, name, ...) query(key, name, 1, __VA_ARGS__)
#define query_a(key, name, ...) query(key, name, 0, __VA_ARGS__)

static int valid_block(const uint8_t *b, DWORD n)
{
    pl_db_error err = { 0, NULL };
    int ok = pl_v1_validate(b, n, &err) == 0;
    if (!ok)
        fprintf(stderr, "invalid V1 block at %zu: %s\n", (size_t)err.offset, err.rule ? err.rule : "?");
    return ok;
}

static void test_layouts(void)
{
    CHECK(sizeof(PERF_DATA_BLOCK) == 88);
    CHECK(offsetof(PERF_DATA_BLOCK, TotalByteLength) == 20);
    CHECK(offsetof(PERF_DATA_BLOCK, SystemTime) == 36);
    CHECK(offsetof(PERF_DATA_BLOCK, PerfTime) == 56);
    CHECK(offsetof(PERF_DATA_BLOCK, PerfTime100nSec) == 72);
    CHECK(offsetof(PERF_DATA_BLOCK, SystemNameOffset) == 84);
    CHECK(sizeof(PERF_OBJECT_TYPE) == 64);
    CHECK(offsetof(PERF_OBJECT_TYPE, NumCounters) == 32);
    CHECK(offsetof(PERF_OBJECT_TYPE, NumInstances) == 40);
    CHECK(offsetof(PERF_OBJECT_TYPE, PerfFreq) == 56);
    CHECK(sizeof(PERF_COUNTER_DEFINITION) == 40);
    CHECK(offsetof(PERF_COUNTER_DEFINITION, CounterType) == 28);
    CHECK(offsetof(PERF_COUNTER_DEFINITION, CounterOffset) == 36);
    CHECK(sizeof(PERF_INSTANCE_DEFINITION) == 24);
    CHECK(offsetof(PERF_INSTANCE_DEFINITION, NameOffset) == 16);
    CHECK(sizeof(PERF_COUNTER_BLOCK) == 4);
    CHECK((uintptr_t)HKEY_PERFORMANCE_DATA == (uintptr_t)(intptr_t)(int32_t)0x80000004);
}

static void test_global_grow_and_fresh(void)
{
    DWORD type = 0, size = 0;
    LSTATUS st;
    uint8_t *a = query_w(HKEY_PERFORMANCE_DATA, u"Global", &type, &size, &st);
    CHECK(a && st == ERROR_SUCCESS && type == REG_BINARY);
    if (!a)
        return;
    const PERF_DATA_BLOCK *pdb = (const PERF_DATA_BLOCK *)a;
    CHECK(memcmp(pdb->Signature, u"PERF", 8) == 0);
    CHECK(pdb->TotalByteLength == size && valid_block(a, size));
    uint32_t global = 0;
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++)
        global += !pl_env_counterset(env, k)->costly;
    CHECK(pdb->NumObjectTypes > 0 && pdb->NumObjectTypes <= global);
    /* the second Global call collects anew */
    LONGLONG t0 = pdb->PerfTime.QuadPart;
    uint8_t *b = query_a(HKEY_PERFORMANCE_DATA, "gLoBaL", &type, &size, &st);
    CHECK(b && st == ERROR_SUCCESS && valid_block(b, size));
    if (b)
        CHECK(((const PERF_DATA_BLOCK *)b)->PerfTime.QuadPart > t0);
    free(a);
    free(b);
}

/* Memory (2000) alone: a single-instance set whose size does not move. */
static void test_exact_size_and_more_data(void)
{
    DWORD type = 0, need = 0, size;
    CHECK(RegQueryValueExW(HKEY_PERFORMANCE_DATA, u"2000", NULL, &type, NULL, &need) == ERROR_SUCCESS);
    CHECK(type == REG_BINARY && need > 88 && need % 8 == 0);
    uint8_t *buf = malloc(need + 16);
    memset(buf, 0xA5, need + 16);
    size = need - 1;
    CHECK(RegQueryValueExW(HKEY_PERFORMANCE_DATA, u"2000", NULL, &type, buf, &size) == ERROR_MORE_DATA);
    CHECK(size == need);
    CHECK(buf[need - 1] == 0xA5);                         /* nothing past the caller's size */
    size = need;
    CHECK(RegQueryValueExW(HKEY_PERFORMANCE_DATA, u"2000", NULL, &type, buf, &size) == ERROR_SUCCESS);
    CHECK(size == need && valid_block(buf, size) && buf[need] == 0xA5);
    const PERF_DATA_BLOCK *pdb = (const PERF_DATA_BLOCK *)buf;
    const PERF_OBJECT_TYPE *obj = (const PERF_OBJECT_TYPE *)(buf + pdb->HeaderLength);
    CHECK(pdb->NumObjectTypes == 1 && obj->ObjectNameTitleIndex == 2000 && obj->ObjectHelpTitleIndex == 2001);
    CHECK(obj->NumInstances == PERF_NO_INSTANCES);
    /* no lpcbData: existence and type only */
    type = 0;
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "2000", NULL, &type, NULL, NULL) == ERROR_SUCCESS);
    CHECK(type == REG_BINARY);
    free(buf);
}

static DWORD objects_of(const char *name, LONG *first_ninst, DWORD *first_index)
{
    DWORD type = 0, size = 0;
    LSTATUS st;
    uint8_t *b = query_a(HKEY_PERFORMANCE_DATA, name, &type, &size, &st);
    DWORD n = 0xFFFFFFFFu;
    if (b && st == ERROR_SUCCESS && type == REG_BINARY && valid_block(b, size)) {
        const PERF_DATA_BLOCK *pdb = (const PERF_DATA_BLOCK *)b;
        n = pdb->NumObjectTypes;
        if (n && first_ninst) {
            const PERF_OBJECT_TYPE *o = (const PERF_OBJECT_TYPE *)(b + pdb->HeaderLength);
            *first_ninst = o->NumInstances;
            *first_index = o->ObjectNameTitleIndex;
        }
    }
    free(b);
    return n;
}

static void test_value_names(void)
{
    LONG ni = 0;
    DWORD idx = 0, n;
    n = objects_of("MetadataGlobal", &ni, &idx);
    CHECK(n > 0 && n != 0xFFFFFFFFu && (ni == PERF_METADATA_MULTIPLE_INSTANCES || ni == PERF_METADATA_NO_INSTANCES));
    CHECK(objects_of("OLD_MetadataGlobal", NULL, NULL) == n);
    CHECK(objects_of("metadataglobal", NULL, NULL) == n);
    n = objects_of("MetadataCostly", &ni, &idx);
    CHECK(n > 0 && n != 0xFFFFFFFFu && pl_env_lookup_index(env, idx, &(const pl_counterset_def *){ 0 },
                                                             &(const pl_counter_def *){ 0 }, &(int){ 0 }) == 0);
    CHECK(objects_of("OLD_MetadataCostly", NULL, NULL) == n);
    CHECK(objects_of("OLD_Global", NULL, NULL) > 0);
    CHECK(objects_of("Costly", NULL, NULL) > 0);
    CHECK(objects_of("Foreign", NULL, NULL) == 0);
    CHECK(objects_of("Foreign otherhost", NULL, NULL) == 0);
    CHECK(objects_of("999999", NULL, NULL) == 0);          /* no such object: none returned */
    n = objects_of("2000 1000", &ni, &idx);
    CHECK(n == 2);
    /* not ours */
    DWORD size = 64, type = 0;
    uint8_t buf[64];
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Globl", NULL, &type, buf, &size) == ERROR_FILE_NOT_FOUND);
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "OLD_Costly", NULL, &type, buf, &size) == ERROR_FILE_NOT_FOUND);
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter x9", NULL, &type, buf, &size) == ERROR_FILE_NOT_FOUND);
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, NULL, NULL, &type, buf, &size) == ERROR_FILE_NOT_FOUND);
    CHECK(RegQueryValueExW(HKEY_PERFORMANCE_DATA, u"", NULL, &type, buf, &size) == ERROR_FILE_NOT_FOUND);
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_TEXT, "Global", NULL, &type, buf, &size) == ERROR_FILE_NOT_FOUND);
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", &size, &type, buf, &size) == ERROR_INVALID_PARAMETER);
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, &type, buf, NULL) == ERROR_INVALID_PARAMETER);
    const WCHAR lone[] = { 'G', 0xD800, 0 };               /* an unpaired surrogate */
    CHECK(RegQueryValueExW(HKEY_PERFORMANCE_DATA, lone, NULL, &type, buf, &size) == ERROR_FILE_NOT_FOUND);
    /* other keys: nothing here is a registry */
    HKEY hklm = (HKEY)(ULONG_PTR)(LONG)0x80000002;
    CHECK(RegQueryValueExA(hklm, "Global", NULL, &type, buf, &size) == ERROR_INVALID_HANDLE);
    CHECK(RegQueryValueExA(NULL, "Global", NULL, &type, buf, &size) == ERROR_INVALID_HANDLE);
    CHECK(RegCloseKey(hklm) == ERROR_INVALID_HANDLE);
}

/* The table as the env says it should be: (index, text) pairs sorted by
 * index, the names led by 1 -> the highest index, then "" (W or A). */
typedef struct pair {
    uint32_t index;
    const char *text;
} pair;

static int by_index(const void *a, const void *b)
{
    uint32_t x = ((const pair *)a)->index, y = ((const pair *)b)->index;
    return x < y ? -1 : x > y;
}

static void put_ascii(uint8_t *out, size_t cap, size_t *o, const char *s, int wide)
{
    for (;; s++) {                                   /* perflib's names are ASCII */
        if (*o + 2 <= cap) {
            out[*o] = (uint8_t)*s;
            if (wide)
                out[*o + 1] = 0;
        }
        *o += wide ? 2 : 1;
        if (!*s)
            return;
    }
}

static size_t expected_table(int help, int wide, uint8_t *out, size_t cap)
{
    static pair pairs[8192];
    size_t n = 0, o = 0;
    char num[16], last[16];
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
        const pl_counterset_def *cs = pl_env_counterset(env, k);
        pairs[n++] = (pair){ cs->index + (uint32_t)help, help ? cs->help : cs->name };
        for (uint32_t i = 0; i < cs->ncounters; i++)
            pairs[n++] = (pair){ pl_counter_title_index(cs, &cs->counters[i]) + (uint32_t)help,
                                 help ? cs->counters[i].help : cs->counters[i].name };
    }
    qsort(pairs, n, sizeof pairs[0], by_index);
    if (!help) {
        snprintf(last, sizeof last, "%u", (unsigned)pairs[n - 1].index);
        put_ascii(out, cap, &o, "1", wide);
        put_ascii(out, cap, &o, last, wide);
    }
    for (size_t k = 0; k < n; k++) {
        snprintf(num, sizeof num, "%u", (unsigned)pairs[k].index);
        put_ascii(out, cap, &o, num, wide);
        put_ascii(out, cap, &o, pairs[k].text, wide);
    }
    put_ascii(out, cap, &o, "", wide);
    return o;
}

static void check_table(HKEY key, const char *aname, LPCWSTR wname, int help)
{
    DWORD type = 0, size = 0;
    LSTATUS st;
    size_t cap = 1u << 22;
    uint8_t *want = malloc(cap);
    uint8_t *w = query_w(key, wname, &type, &size, &st);
    size_t n = expected_table(help, 1, want, cap);
    CHECK(w && st == ERROR_SUCCESS && type == REG_MULTI_SZ && size == n && memcmp(w, want, n) == 0);
    free(w);
    uint8_t *a = query_a(key, aname, &type, &size, &st);
    n = expected_table(help, 0, want, cap);
    CHECK(a && st == ERROR_SUCCESS && type == REG_MULTI_SZ && size == n && memcmp(a, want, n) == 0);
    free(a);
    free(want);
}

/* the highest title index in use: the last counter name of the last set */
static uint32_t last_index(void)
{
    uint32_t last = 0;
    for (uint32_t k = 0; k < pl_env_counterset_count(env); k++) {
        const pl_counterset_def *cs = pl_env_counterset(env, k);
        for (uint32_t i = 0; i < cs->ncounters; i++)
            if (pl_counter_title_index(cs, &cs->counters[i]) > last)
                last = pl_counter_title_index(cs, &cs->counters[i]);
    }
    return last;
}

static void test_text_tables(void)
{
    check_table(HKEY_PERFORMANCE_DATA, "Counter 009", u"Counter 009", 0);
    check_table(HKEY_PERFORMANCE_DATA, "help 009", u"HELP 009", 1);
    check_table(HKEY_PERFORMANCE_DATA, "Counter 007", u"Counter 407", 0);   /* every language: English */
    check_table(HKEY_PERFORMANCE_DATA, "Help 9", u"Help", 1);
    check_table(HKEY_PERFORMANCE_TEXT, "Counter", u"counter", 0);
    check_table(HKEY_PERFORMANCE_TEXT, "Help", u"Help", 1);
    check_table(HKEY_PERFORMANCE_NLSTEXT, "COUNTER", u"Counter", 0);
    check_table(HKEY_PERFORMANCE_NLSTEXT, "Help", u"help", 1);

    /* the first entries' exact bytes, written out by hand */
    const pl_counterset_def *cs = pl_env_counterset(env, 0);
    CHECK(cs->index == 1000 && strcmp(cs->name, "Processor Information") == 0);
    char a_head[128];
    WCHAR w_head[128];
    int hn = snprintf(a_head, sizeof a_head, "1%c%u%c1000%cProcessor Information%c1002%c%% Processor Time", 0,
                      (unsigned)last_index(), 0, 0, 0, 0);
    for (int i = 0; i <= hn; i++)
        w_head[i] = (WCHAR)(unsigned char)a_head[i];
    uint8_t buf[4096];
    DWORD size = 16, type = 0;
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_TEXT, "Counter", NULL, &type, buf, &size) == ERROR_MORE_DATA);
    DWORD need = size;
    CHECK(need > sizeof a_head);
    uint8_t *all = malloc(need);
    size = need;
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_TEXT, "Counter", NULL, &type, all, &size) == ERROR_SUCCESS);
    CHECK(memcmp(all, a_head, (size_t)hn + 1) == 0);
    CHECK(all[need - 1] == 0 && all[need - 2] == 0);          /* the list ends with an empty string */
    free(all);
    size = sizeof buf;
    CHECK(RegQueryValueExW(HKEY_PERFORMANCE_TEXT, u"Counter", NULL, &type, buf, &size) == ERROR_MORE_DATA);
    CHECK(memcmp(buf, w_head, 2 * ((size_t)hn + 1)) == 0);      /* what fits is written */
    DWORD cap = 2 * ((DWORD)hn + 1);
    size = cap;
    memset(buf, 0xA5, sizeof buf);
    CHECK(RegQueryValueExW(HKEY_PERFORMANCE_TEXT, u"Counter", NULL, &type, buf, &size) == ERROR_MORE_DATA);
    CHECK(buf[cap] == 0xA5 && buf[cap - 1] == 0 && size > cap);     /* nothing past the caller's size */
}

static void test_close(void)
{
    DWORD type, size;
    LSTATUS st;
    CHECK(RegCloseKey(HKEY_PERFORMANCE_DATA) == ERROR_SUCCESS);
    CHECK(RegCloseKey(HKEY_PERFORMANCE_DATA) == ERROR_SUCCESS);   /* nothing left: still fine */
    uint8_t *b = query_a(HKEY_PERFORMANCE_DATA, "Global", &type, &size, &st);
    CHECK(b && st == ERROR_SUCCESS && valid_block(b, size));
    free(b);
    CHECK(RegCloseKey(HKEY_PERFORMANCE_TEXT) == ERROR_SUCCESS);
    CHECK(RegCloseKey(HKEY_PERFORMANCE_NLSTEXT) == ERROR_SUCCESS);
    /* more value names than the cache holds: the oldest give way */
    char name[32];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "%d%*s", 1000 * (i % 3 + 1), i, "");   /* 40 distinct names */
        size = 0;
        CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, name, NULL, &type, NULL, &size) == ERROR_SUCCESS);
    }
    CHECK(RegCloseKey(HKEY_PERFORMANCE_DATA) == ERROR_SUCCESS);
}

/* "MetadataGlobal" writes definitions only: no provider is opened or
 * collected (no I/O), where "Global" collects each set once per call. */
static int counted_opens, counted_collects;
static int c_open(pl_env *e, void **state)
{
    (void)e;
    counted_opens++;
    *state = NULL;
    return 0;
}
static void c_close(void *state) { (void)state; }
static int c_instances(void *state, pl_snapshot *snap)
{
    (void)state;
    pl_snap_clear(snap);
    return pl_snap_add(snap, "one", 1) < 0 ? ENOMEM : 0;
}
static int c_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;
    counted_collects++;
    return c_instances(state, snap);
}
static const pl_provider_ops c_ops = { c_open, c_close, c_instances, c_collect, NULL, NULL };
static const pl_counter_def c_counters[] = {
    { 0, "Hits", "", PERF_COUNTER_RAWCOUNT, PL_NO_ID, PERF_DETAIL_NOVICE, 0, 8, 0, 0, 0 },
};
static const pl_counterset_def c_set = {
    { 0x5a5a0202, 0x3333, 0x4444, { 8, 7, 6, 5, 4, 3, 2, 1 } }, "V1CountedCollects", "Test set.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, 1, c_counters, &c_ops, 99000, NULL,
};

static int has_object(const char *name, DWORD index, LONG *ninst)
{
    DWORD type = 0, size = 0;
    LSTATUS st;
    uint8_t *b = query_a(HKEY_PERFORMANCE_DATA, name, &type, &size, &st);
    int found = 0;
    if (b && st == ERROR_SUCCESS && valid_block(b, size)) {
        const PERF_DATA_BLOCK *pdb = (const PERF_DATA_BLOCK *)b;
        const uint8_t *o = b + pdb->HeaderLength;
        for (DWORD k = 0; k < pdb->NumObjectTypes; k++, o += ((const PERF_OBJECT_TYPE *)o)->TotalByteLength)
            if (((const PERF_OBJECT_TYPE *)o)->ObjectNameTitleIndex == index) {
                found = 1;
                *ninst = ((const PERF_OBJECT_TYPE *)o)->NumInstances;
            }
    }
    free(b);
    return found;
}

static void test_metadata_collects_nothing(void)
{
    LONG ni = 0;
    CHECK(pl_register_counterset(&c_set, NULL, NULL, 0) == 0);
    CHECK(has_object("MetadataGlobal", 99000, &ni) && ni == PERF_METADATA_MULTIPLE_INSTANCES);
    CHECK(has_object("OLD_MetadataGlobal", 99000, &ni));
    CHECK_EQ_U64(counted_opens, 0);
    CHECK_EQ_U64(counted_collects, 0);
    CHECK(has_object("Global", 99000, &ni) && ni == 1);
    CHECK(counted_opens > 0 && counted_collects > 0);   /* once per try of the grow loop */
    CHECK(RegCloseKey(HKEY_PERFORMANCE_DATA) == ERROR_SUCCESS);
}

int main(void)
{
    DWORD size = 0;
    /* the first call registers the built-in sets, as libperflib does */
    if (RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, NULL, NULL, &size) != ERROR_SUCCESS)
        return 1;
    env = pl_env_new(NULL);
    if (!env)
        return 1;
    RUN(test_layouts);
    RUN(test_global_grow_and_fresh);
    RUN(test_exact_size_and_more_data);
    RUN(test_value_names);
    RUN(test_text_tables);
    RUN(test_close);
    RUN(test_metadata_collects_nothing);
    pl_env_unref(env);
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    return CT_END();
}
