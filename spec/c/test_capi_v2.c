/* The PerfLib V2 consumer API (src/capi): every function's success and
 * error paths, buffer-size negotiation, the byte layouts against the
 * reference's offsets, and bad input (NULL pointers, lying sizes,
 * unterminated names, closed or made-up handles).  The fixture tree
 * spec/fixtures/basic is the reference VM (2 CPUs, one node). */
#include "ctest.h"
#include "perflib_v2.h"
#include "pl_datablock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <unistd.h>


static WCHAR root[512];

/* Processor Information, Memory */
static const GUID PROC = { 0xb4fc721a, 0x0378, 0x476f, { 0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36 } };
static GUID memory_guid;

static uint32_t u32(const void *p, size_t o)
{
    const uint8_t *b = (const uint8_t *)p + o;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
static uint64_t u64(const void *p, size_t o) { return u32(p, o) | ((uint64_t)u32(p, o + 4) << 32); }

static int wcmp(const WCHAR *a, const char *b)
{
    while (*b && *a == (WCHAR)(unsigned char)*b)
        a++, b++;
    return *a == 0 && *b == 0;
}

/* An identifier block with a name: 40 bytes + the UTF-16 name, padded to 8. */
typedef struct ident {
    PERF_COUNTER_IDENTIFIER id;
    WCHAR name[12];
} ident;

static ident spec(const GUID *g, const char *name, ULONG counter, ULONG instance)
{
    ident x;
    memset(&x, 0, sizeof x);
    x.id.CounterSetGuid = *g;
    x.id.CounterId = counter;
    x.id.InstanceId = instance;
    size_t n = name ? strlen(name) : 0;
    for (size_t k = 0; k < n; k++)
        x.name[k] = (WCHAR)name[k];
    x.id.Size = name ? (ULONG)((40 + 2 * (n + 1) + 7) & ~7u) : 40;
    return x;
}

static void test_layouts(void)
{
    /* the reference's sizes and offsets (section 3.2) */
    CHECK(sizeof(PERF_COUNTER_IDENTIFIER) == 40);
    CHECK(offsetof(PERF_COUNTER_IDENTIFIER, Status) == 16 && offsetof(PERF_COUNTER_IDENTIFIER, Size) == 20);
    CHECK(offsetof(PERF_COUNTER_IDENTIFIER, Index) == 32);
    CHECK(sizeof(PERF_DATA_HEADER) == 48 && offsetof(PERF_DATA_HEADER, PerfFreq) == 24);
    CHECK(offsetof(PERF_DATA_HEADER, SystemTime) == 32);
    CHECK(sizeof(PERF_COUNTER_HEADER) == 16 && sizeof(PERF_MULTI_COUNTERS) == 8);
    CHECK(sizeof(PERF_INSTANCE_HEADER) == 8 && sizeof(PERF_COUNTER_DATA) == 8);
    CHECK(sizeof(PERF_COUNTERSET_REG_INFO) == 32 && sizeof(PERF_COUNTER_REG_INFO) == 48);
    CHECK(offsetof(PERF_COUNTER_REG_INFO, Attrib) == 8 && offsetof(PERF_COUNTER_REG_INFO, BaseCounterId) == 24);
    CHECK(sizeof(GUID) == 16 && sizeof(WCHAR) == 2 && sizeof(ULONG) == 4 && sizeof(LONGLONG) == 8);
}

static void test_handles(void)
{
    HANDLE h = NULL, h2 = NULL;
    CHECK(PerfOpenQueryHandle(NULL, NULL) == ERROR_INVALID_PARAMETER);
    CHECK(PerfOpenQueryHandle(u"\\\\server", &h) == ERROR_BAD_NETPATH);
    CHECK(PerfOpenQueryHandle(NULL, &h) == ERROR_SUCCESS);
    CHECK(h != NULL);
    CHECK(PerfCloseQueryHandle(h) == ERROR_SUCCESS);
    CHECK(PerfCloseQueryHandle(h) == ERROR_INVALID_HANDLE);            /* closed */
    CHECK(PerfOpenQueryHandle(u"", &h2) == ERROR_SUCCESS);
    CHECK(h2 != h);                                                     /* the slot's new handle */
    CHECK(PerfCloseQueryHandle(h) == ERROR_INVALID_HANDLE);            /* still the old one */
    CHECK(PerfCloseQueryHandle(NULL) == ERROR_INVALID_HANDLE);
    CHECK(PerfCloseQueryHandle((HANDLE)(uintptr_t)0x7777) == ERROR_INVALID_HANDLE);   /* never opened */
    ident x = spec(&PROC, "*", PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    DWORD size = 0;
    CHECK(PerfAddCounters(h, &x.id, sizeof x) == ERROR_INVALID_HANDLE);
    CHECK(PerfQueryCounterData(h, NULL, 0, &size) == ERROR_INVALID_HANDLE);
    CHECK(PerfQueryCounterInfo(h, NULL, 0, &size) == ERROR_INVALID_HANDLE);
    CHECK(PerfDeleteCounters(h, &x.id, sizeof x) == ERROR_INVALID_HANDLE);
    CHECK(PerfCloseQueryHandle(h2) == ERROR_SUCCESS);
}

static void test_enumerate_sets(void)
{
    DWORD n = 0;
    CHECK(PerfEnumerateCounterSet(NULL, NULL, 0, NULL) == ERROR_INVALID_PARAMETER);
    CHECK(PerfEnumerateCounterSet(NULL, NULL, 0, &n) == ERROR_NOT_ENOUGH_MEMORY);
    CHECK(n >= 20);
    GUID *ids = calloc(n, sizeof *ids);
    DWORD got = 0;
    CHECK(PerfEnumerateCounterSet(NULL, ids, n - 1, &got) == ERROR_NOT_ENOUGH_MEMORY);
    CHECK(got == n);
    CHECK(PerfEnumerateCounterSet(NULL, ids, n, &got) == ERROR_SUCCESS);
    int found = 0;
    for (DWORD k = 0; k < got; k++)
        found += memcmp(&ids[k], &PROC, sizeof PROC) == 0;
    CHECK(found == 1);
    /* Memory's GUID, by its name string */
    for (DWORD k = 0; k < got; k++) {
        WCHAR name[64];
        DWORD sz = 0;
        if (PerfQueryCounterSetRegistrationInfo(NULL, &ids[k], PERF_REG_COUNTERSET_NAME_STRING, 0,
                                                (LPBYTE)name, sizeof name, &sz) == ERROR_SUCCESS
            && wcmp(name, "Memory"))
            memory_guid = ids[k];
    }
    CHECK(memory_guid.Data1 != 0);
    free(ids);
}

static void test_registration(void)
{
    DWORD sz = 0;
    uint8_t buf[8192];
    GUID bogus = { 1, 2, 3, { 4, 5, 6, 7, 8, 9, 10, 11 } };
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, NULL, 1, 0, buf, sizeof buf, &sz) == ERROR_INVALID_PARAMETER);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, 1, 0, buf, sizeof buf, NULL) == ERROR_INVALID_PARAMETER);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &bogus, 1, 0, buf, sizeof buf, &sz) == ERROR_WMI_GUID_NOT_FOUND);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, 99, 0, buf, sizeof buf, &sz) == ERROR_INVALID_PARAMETER);
    /* PERF_REG_COUNTERSET_STRUCT: the set, then one PERF_COUNTER_REG_INFO per counter */
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTERSET_STRUCT, 0, NULL, 0, &sz)
          == ERROR_NOT_ENOUGH_MEMORY);
    uint32_t n = u32(&sz, 0) >= 32 ? (sz - 32) / 48 : 0;
    CHECK(sz == 32 + 48 * n && n >= 20);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTERSET_STRUCT, 0, buf, sz, &sz)
          == ERROR_SUCCESS);
    CHECK(memcmp(buf, &PROC, 16) == 0);
    CHECK(u32(buf, 16) == 0);                       /* CounterSetType */
    CHECK(u32(buf, 20) == 100);                     /* DetailLevel: the lowest, novice */
    CHECK(u32(buf, 24) == n);
    CHECK(u32(buf, 28) == 2);                       /* PERF_COUNTERSET_MULTI_INSTANCES */
    int base = -1;
    for (uint32_t k = 0; k < n; k++)
        if (u32(buf, 32 + 48 * k) == 32)
            base = (int)k;
    CHECK(base >= 0 && u64(buf, 32 + 48 * (uint32_t)base + 8) == PERF_ATTRIB_NO_DISPLAYABLE);   /* a hidden base */
    /* PERF_REG_COUNTER_STRUCT: the counter id in requestLangId */
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTER_STRUCT, 1, buf, sizeof buf, &sz)
          == ERROR_SUCCESS);
    CHECK(sz == 48 && u32(buf, 0) == 1 && u32(buf, 4) == 0x20570500u);       /* % User Time */
    CHECK(u32(buf, 24) == 32 && u32(buf, 28) == 0xFFFFFFFFu);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTER_STRUCT, 29, buf, sizeof buf, &sz)
          == ERROR_WMI_ITEMID_NOT_FOUND);
    /* strings */
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTERSET_NAME_STRING, 0x409, buf, 4, &sz)
          == ERROR_NOT_ENOUGH_MEMORY);
    CHECK(sz == 2 * (strlen("Processor Information") + 1));
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTERSET_ENGLISH_NAME, 0, buf, sz, &sz)
          == ERROR_SUCCESS);
    CHECK(wcmp((const WCHAR *)(void *)buf, "Processor Information"));
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTER_NAME_STRINGS, 0, buf, sizeof buf, &sz)
          == ERROR_SUCCESS);
    CHECK(u32(buf, 0) == sz && sz % 8 == 0 && u32(buf, 4) == n);
    /* entry 0 is counter 0; its offset counts from the block's start */
    CHECK(u32(buf, 8) == 0);
    CHECK(wcmp((const WCHAR *)(void *)(buf + u32(buf, 12)), "% Processor Time"));
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTER_HELP_STRINGS, 0, buf, 256, &sz)
          == ERROR_NOT_ENOUGH_MEMORY);                /* the help texts take more */
    uint8_t *big = malloc(sz);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_COUNTER_HELP_STRINGS, 0, big, sz, &sz)
          == ERROR_SUCCESS);
    CHECK(u32(big, 0) == sz);
    free(big);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_PROVIDER_GUID, 0, buf, sizeof buf, &sz)
          == ERROR_SUCCESS && sz == 16);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_PROVIDER_NAME, 0, buf, sizeof buf, &sz)
          == ERROR_SUCCESS && wcmp((const WCHAR *)(void *)buf, "perflib"));
}

static void test_enumerate_instances(void)
{
    uint8_t buf[512];
    DWORD sz = 0;
    GUID bogus = { 9, 9, 9, { 9 } };
    CHECK(PerfEnumerateCounterSetInstances(root, &PROC, NULL, 0, NULL) == ERROR_INVALID_PARAMETER);
    CHECK(PerfEnumerateCounterSetInstances(root, NULL, NULL, 0, &sz) == ERROR_INVALID_PARAMETER);
    CHECK(PerfEnumerateCounterSetInstances(root, &bogus, NULL, 0, &sz) == ERROR_WMI_GUID_NOT_FOUND);
    CHECK(PerfEnumerateCounterSetInstances(root, &PROC, NULL, 0, &sz) == ERROR_NOT_ENOUGH_MEMORY);
    /* "0,0" "0,1" "0,_Total" "_Total": 8 + names of 4, 4, 9, 7 units with NUL, padded to 8 */
    CHECK(sz == 16 + 16 + 32 + 24);
    CHECK(PerfEnumerateCounterSetInstances(root, &PROC, (PPERF_INSTANCE_HEADER)(void *)buf, sz, &sz)
          == ERROR_SUCCESS);
    CHECK(u32(buf, 0) == 16 && u32(buf, 4) == 0 && wcmp((const WCHAR *)(void *)(buf + 8), "0,0"));
    CHECK(u32(buf, 16) == 16 && u32(buf, 20) == 1 && wcmp((const WCHAR *)(void *)(buf + 24), "0,1"));
    CHECK(u32(buf, 32) == 32 && u32(buf, 36) == 0xFFFF0000u);
    CHECK(wcmp((const WCHAR *)(void *)(buf + 40), "0,_Total"));
    CHECK(u32(buf, 64) == 24 && u32(buf, 68) == 0xFFFFFFFEu && wcmp((const WCHAR *)(void *)(buf + 72), "_Total"));
}

static void test_add_query_delete(void)
{
    HANDLE h;
    DWORD sz = 0;
    GUID bogus = { 1, 1, 1, { 1 } };
    CHECK(PerfOpenQueryHandle(root, &h) == ERROR_SUCCESS);
    /* an empty query's data is a bare header */
    PERF_DATA_HEADER hdr;
    CHECK(PerfQueryCounterData(h, NULL, 0, NULL) == ERROR_INVALID_PARAMETER);
    CHECK(PerfQueryCounterData(h, NULL, 0, &sz) == ERROR_NOT_ENOUGH_MEMORY && sz == 48);
    CHECK(PerfQueryCounterData(h, &hdr, sizeof hdr, &sz) == ERROR_SUCCESS);
    CHECK(hdr.dwTotalSize == 48 && hdr.dwNumCounters == 0 && hdr.PerfFreq == 10000000);
    CHECK(hdr.SystemTime.wYear >= 2024);

    /* bad sequences: the whole call fails, nothing is added */
    ident x = spec(&PROC, "*", PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    ident y = x;
    y.id.Size = 0;
    CHECK(PerfAddCounters(h, &y.id, sizeof y) == ERROR_INVALID_PARAMETER);
    y.id.Size = 44;                                                      /* not a multiple of 8 */
    CHECK(PerfAddCounters(h, &y.id, sizeof y) == ERROR_INVALID_PARAMETER);
    y.id.Size = 4096;                                                    /* past cbCounters */
    CHECK(PerfAddCounters(h, &y.id, sizeof y) == ERROR_INVALID_PARAMETER);
    CHECK(PerfAddCounters(h, &x.id, 39) == ERROR_INVALID_PARAMETER);
    CHECK(PerfAddCounters(h, NULL, 64) == ERROR_INVALID_PARAMETER);

    /* per-block statuses in one call: ok, unknown GUID, unknown counter, a name that does not end,
     * a name on a single-instance set, no name on a multi-instance set, a duplicate */
    ident blocks[7];
    blocks[0] = spec(&PROC, "*", PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    blocks[1] = spec(&bogus, "*", PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    blocks[2] = spec(&PROC, "*", 29, 0xFFFFFFFF);
    blocks[3] = spec(&PROC, "*", 0, 0xFFFFFFFF);
    for (int k = 0; k < 12; k++)
        blocks[3].name[k] = u'x';                                        /* no NUL inside Size */
    blocks[3].id.Size = sizeof(ident);
    blocks[4] = spec(&memory_guid, "x", PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    blocks[5] = spec(&PROC, NULL, PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    blocks[6] = spec(&PROC, "*", PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    /* pack them: each block takes its own Size */
    uint8_t seq[sizeof blocks];
    size_t o = 0;
    for (int k = 0; k < 7; k++) {
        memcpy(seq + o, &blocks[k], blocks[k].id.Size);
        o += blocks[k].id.Size;
    }
    CHECK(PerfAddCounters(h, (PPERF_COUNTER_IDENTIFIER)(void *)seq, (DWORD)o) == ERROR_SUCCESS);
    ULONG want[7] = { 0, ERROR_WMI_GUID_NOT_FOUND, ERROR_WMI_ITEMID_NOT_FOUND, ERROR_INVALID_PARAMETER,
                      ERROR_INVALID_PARAMETER, ERROR_INVALID_PARAMETER, ERROR_ALREADY_EXISTS };
    o = 0;
    for (int k = 0; k < 7; k++) {
        CHECK_EQ_U64(u32(seq, o + 16), want[k]);
        o += blocks[k].id.Size;
    }
    /* a name with an unpaired surrogate is not a name */
    ident sur = spec(&PROC, "*", PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    sur.name[0] = 0xD800;
    CHECK(PerfAddCounters(h, &sur.id, sur.id.Size) == ERROR_SUCCESS && sur.id.Status == ERROR_INVALID_PARAMETER);
    /* one more: Memory's counters, and one CPU by instance id */
    ident m = spec(&memory_guid, NULL, PERF_WILDCARD_COUNTER, 0xFFFFFFFF);
    ident one = spec(&PROC, "*", 1, 1);
    CHECK(PerfAddCounters(h, &m.id, m.id.Size) == ERROR_SUCCESS && m.id.Status == 0);
    CHECK(PerfAddCounters(h, &one.id, one.id.Size) == ERROR_SUCCESS && one.id.Status == 0);

    /* PerfQueryCounterInfo: the three specs in result order, with Index */
    CHECK(PerfQueryCounterInfo(h, NULL, 0, NULL) == ERROR_INVALID_PARAMETER);
    CHECK(PerfQueryCounterInfo(h, NULL, 0, &sz) == ERROR_NOT_ENOUGH_MEMORY);
    CHECK(sz == 48 + 40 + 48);
    uint8_t info[256];
    CHECK(PerfQueryCounterInfo(h, (PPERF_COUNTER_IDENTIFIER)(void *)info, sizeof info, &sz) == ERROR_SUCCESS);
    CHECK(memcmp(info, &PROC, 16) == 0 && u32(info, 20) == 48 && u32(info, 24) == PERF_WILDCARD_COUNTER);
    CHECK(u32(info, 32) == 0 && wcmp((const WCHAR *)(void *)(info + 40), "*"));
    CHECK(memcmp(info + 48, &memory_guid, 16) == 0 && u32(info, 48 + 20) == 40 && u32(info, 48 + 32) == 1);
    CHECK(u32(info, 88 + 24) == 1 && u32(info, 88 + 28) == 1 && u32(info, 88 + 32) == 2);

    /* PerfQueryCounterData: the size, then the blocks */
    CHECK(PerfQueryCounterData(h, &hdr, sizeof hdr, &sz) == ERROR_NOT_ENOUGH_MEMORY);
    /* a buffer 8 bytes short: the size again, and not a byte written past it */
    uint8_t *shortbuf = malloc(sz + 8);
    memset(shortbuf, 0xAB, sz + 8);
    DWORD need = 0;
    CHECK(PerfQueryCounterData(h, (PPERF_DATA_HEADER)(void *)shortbuf, sz - 8, &need) == ERROR_NOT_ENOUGH_MEMORY);
    CHECK(need == sz);
    for (DWORD k = sz - 8; k < sz + 8; k++)
        CHECK(shortbuf[k] == 0xAB);
    free(shortbuf);
    uint8_t *data = malloc(sz);
    DWORD got = 0;
    CHECK(PerfQueryCounterData(h, (PPERF_DATA_HEADER)(void *)data, sz, &got) == ERROR_SUCCESS);
    CHECK(got == sz && u32(data, 0) == sz && u32(data, 4) == 3);
    pl_db_error err;
    CHECK(pl_db_validate(data, got, &err) == 0);
    /* the same check through the API, then a lying size */
    DWORD off = 0;
    const char *rule = NULL;
    CHECK(PerflibCheckDataBlock(data, got, &off, &rule) == ERROR_SUCCESS);
    CHECK(PerflibCheckDataBlock(data, got - 8, &off, &rule) == ERROR_INVALID_DATA);
    CHECK(off == 0 && rule && strcmp(rule, "dwTotalSize larger than the buffer") == 0);
    uint32_t keep = u32(data, 48 + 8);
    data[48 + 8] = (uint8_t)(keep + 4);                  /* dwSize of the first block: not a multiple of 8 */
    CHECK(PerflibCheckDataBlock(data, got, &off, &rule) == ERROR_INVALID_DATA);
    CHECK(off == 56 && strcmp(rule, "PERF_COUNTER_HEADER dwSize below 16 or not a multiple of 8") == 0);
    data[48 + 8] = (uint8_t)keep;
    CHECK(PerflibCheckDataBlock(NULL, 8, NULL, NULL) == ERROR_INVALID_PARAMETER);
    CHECK(PerflibCheckDataBlock(NULL, 0, NULL, NULL) == ERROR_INVALID_DATA);
    /* block 1: PERF_COUNTERSET over 4 instances; the first instance is "0,0" */
    size_t b = 48;
    CHECK(u32(data, b) == 0 && u32(data, b + 4) == PERF_COUNTERSET && u32(data, b + 12) == 0);
    size_t mc = b + 16, nc = u32(data, mc + 4);
    CHECK(u32(data, mc + 8) == 0);                                       /* the first id: counter 0 */
    size_t mi = mc + u32(data, mc);
    CHECK(u32(data, mi + 4) == 4);
    size_t ih = mi + 8;
    CHECK(u32(data, ih + 4) == 0 && wcmp((const WCHAR *)(void *)(data + ih + 8), "0,0"));
    /* its counter 1 (% User Time): 4556 ticks of the fixture in 100 ns */
    size_t cd = ih + u32(data, ih);
    int user = -1;
    for (size_t k = 0; k < nc; k++)
        if (u32(data, mc + 8 + 4 * k) == 1)
            user = (int)k;
    CHECK(user >= 0);
    cd += 16 * (size_t)user;
    CHECK(u32(data, cd) == 8 && u32(data, cd + 4) == 16 && u64(data, cd + 8) == 4556ull * 100000);
    /* block 2: PERF_MULTIPLE_COUNTERS; block 3: PERF_MULTIPLE_INSTANCES with the one CPU */
    size_t b2 = b + u32(data, b + 8), b3 = b2 + u32(data, b2 + 8);
    CHECK(u32(data, b2 + 4) == PERF_MULTIPLE_COUNTERS);
    CHECK(u32(data, b3 + 4) == PERF_MULTIPLE_INSTANCES && u32(data, b3 + 16 + 4) == 1);
    CHECK(u32(data, b3 + 16 + 8 + 4) == 1 && wcmp((const WCHAR *)(void *)(data + b3 + 16 + 16), "0,1"));
    CHECK(b3 + u32(data, b3 + 8) == sz);
    free(data);

    /* PerfDeleteCounters: a spec in the query, then the same again */
    ident d = one;
    d.id.Status = 99;
    CHECK(PerfDeleteCounters(h, &d.id, d.id.Size) == ERROR_SUCCESS && d.id.Status == 0);
    CHECK(PerfDeleteCounters(h, &d.id, d.id.Size) == ERROR_SUCCESS && d.id.Status == ERROR_INVALID_PARAMETER);
    CHECK(PerfDeleteCounters(h, &d.id, 8) == ERROR_INVALID_PARAMETER);
    CHECK(PerfQueryCounterInfo(h, NULL, 0, &sz) == ERROR_NOT_ENOUGH_MEMORY && sz == 48 + 40);
    CHECK(PerfCloseQueryHandle(h) == ERROR_SUCCESS);
}

/* UTF-8 <-> UTF-16 by hand: é U+00E9, 😀 U+1F600 (D83D DE00), a stray byte (U+FFFD). */
static void test_utf16(void)
{
    uint16_t u[8];
    CHECK(pl_utf8_to_utf16("\xc3\xa9\xf0\x9f\x98\x80\xff", u, 8) == 4);
    CHECK(u[0] == 0xE9 && u[1] == 0xD83D && u[2] == 0xDE00 && u[3] == 0xFFFD && u[4] == 0);
    /* too small for the pair: it is left out whole, never cut */
    CHECK(pl_utf8_to_utf16("a\xf0\x9f\x98\x80", u, 3) == 3);
    CHECK(u[0] == 'a' && u[1] == 0);
    char s[16];
    CHECK(pl_utf16_to_utf8(u, 1, s, sizeof s) == 1 && strcmp(s, "a") == 0);
    const uint16_t emoji[2] = { 0xD83D, 0xDE00 }, lone[1] = { 0xDE00 };
    CHECK(pl_utf16_to_utf8(emoji, 2, s, sizeof s) == 4 && strcmp(s, "\xf0\x9f\x98\x80") == 0);
    CHECK(pl_utf16_to_utf8(emoji, 1, s, sizeof s) == -1);               /* a high surrogate alone */
    CHECK(pl_utf16_to_utf8(lone, 1, s, sizeof s) == -1);
    /* the little-endian form with its NUL, as the API writes strings */
    uint8_t le[16];
    CHECK(pl_db_put_utf16(NULL, "\xc3\xa9!") == 6);
    CHECK(pl_db_put_utf16(le, "\xc3\xa9!") == 6);
    CHECK(le[0] == 0xE9 && le[1] == 0 && le[2] == '!' && le[3] == 0 && le[4] == 0 && le[5] == 0);
    /* instance names stop at PERF_MAX_INSTANCE_NAME (1024 units with the NUL), pairs whole:
     * 1022 'a' and an emoji need 1024 + NUL; the emoji goes, 1022 units + NUL stay */
    char name[1100];
    memset(name, 'a', 1022);
    memcpy(name + 1022, "\xf0\x9f\x98\x80", 5);
    CHECK(pl_db_put_instance(NULL, 7, name) == 8 + 2048);               /* 8 + 2 x 1023 padded to 8 */
    uint8_t *ih = malloc(8 + 2048);
    CHECK(pl_db_put_instance(ih, 7, name) == 8 + 2048);
    CHECK(u32(ih, 0) == 8 + 2048 && u32(ih, 4) == 7);
    CHECK(ih[8 + 2 * 1021] == 'a' && ih[8 + 2 * 1022] == 0 && ih[8 + 2 * 1022 + 1] == 0);
    free(ih);
}

/* The error paths the other cases do not take: NULL buffers with sizes that say they are
 * large enough, a set without instances, a full handle table, this machine by name. */
static void test_error_paths(void)
{
    DWORD n = 0, sz = 0;
    CHECK(PerfEnumerateCounterSet(NULL, NULL, 0, &n) == ERROR_NOT_ENOUGH_MEMORY);
    CHECK(PerfEnumerateCounterSet(NULL, NULL, n, &n) == ERROR_INVALID_PARAMETER);
    CHECK(PerfEnumerateCounterSet(u".", NULL, 0, &sz) == ERROR_NOT_ENOUGH_MEMORY && sz == n);
    CHECK(PerfEnumerateCounterSet(u"localhost", NULL, 0, &sz) == ERROR_NOT_ENOUGH_MEMORY && sz == n);
    CHECK(PerfEnumerateCounterSet(u"relative/dir", NULL, 0, &sz) == ERROR_BAD_NETPATH);
    CHECK(PerfQueryCounterSetRegistrationInfo(NULL, &PROC, PERF_REG_PROVIDER_GUID, 0, NULL, 16, &sz)
          == ERROR_INVALID_PARAMETER);
    CHECK(PerfEnumerateCounterSetInstances(root, &PROC, NULL, 4096, &sz) == ERROR_INVALID_PARAMETER);
    /* the fixture machine has no battery: a set without instances */
    GUID ids[256];           /* every built-in set (73) and room for more */
    DWORD got = 0;
    CHECK(PerfEnumerateCounterSet(root, ids, 256, &got) == ERROR_SUCCESS);
    int none = 0;
    for (DWORD k = 0; k < got; k++) {
        WCHAR name[64];
        if (PerfQueryCounterSetRegistrationInfo(root, &ids[k], PERF_REG_COUNTERSET_NAME_STRING, 0, (LPBYTE)name,
                                                sizeof name, &sz) == ERROR_SUCCESS && wcmp(name, "Battery")) {
            CHECK(PerfEnumerateCounterSetInstances(root, &ids[k], NULL, 0, &sz) == ERROR_WMI_INSTANCE_NOT_FOUND);
            none = 1;
        }
    }
    CHECK(none);
    /* NULL buffers with room enough by their sizes */
    HANDLE h;
    CHECK(PerfOpenQueryHandle(root, &h) == ERROR_SUCCESS);
    ident x = spec(&PROC, "*", 1, 0xFFFFFFFF);
    CHECK(PerfAddCounters(h, &x.id, x.id.Size) == ERROR_SUCCESS && x.id.Status == 0);
    CHECK(PerfQueryCounterInfo(h, NULL, 4096, &sz) == ERROR_INVALID_PARAMETER);
    CHECK(PerfQueryCounterData(h, NULL, 1 << 20, &sz) == ERROR_INVALID_PARAMETER);
    CHECK(PerfCloseQueryHandle(h) == ERROR_SUCCESS);
    /* every handle taken: the next open says so, and one closed makes room */
    static HANDLE all[4096];
    DWORD opened = 0;
    while (opened < 4096 && PerfOpenQueryHandle(NULL, &all[opened]) == ERROR_SUCCESS)
        opened++;
    CHECK(opened == 4096);
    CHECK(PerfOpenQueryHandle(NULL, &h) == ERROR_NO_SYSTEM_RESOURCES);
    CHECK(PerfCloseQueryHandle(all[100]) == ERROR_SUCCESS);
    CHECK(PerfOpenQueryHandle(NULL, &all[100]) == ERROR_SUCCESS);
    for (DWORD k = 0; k < opened; k++)
        CHECK(PerfCloseQueryHandle(all[k]) == ERROR_SUCCESS);
}

int main(void)
{
    /* the fixture root, absolute, as UTF-16 */
    char cwd[400];
    if (!getcwd(cwd, sizeof cwd - 32))
        return 1;
    strcat(cwd, "/spec/fixtures/basic");
    size_t k = 0;
    for (; cwd[k]; k++)
        root[k] = (WCHAR)cwd[k];
    root[k] = 0;
    RUN(test_layouts);
    RUN(test_utf16);
    RUN(test_handles);
    RUN(test_enumerate_sets);
    RUN(test_registration);
    RUN(test_enumerate_instances);
    RUN(test_add_query_delete);
    RUN(test_error_paths);
    return CT_END();
}
