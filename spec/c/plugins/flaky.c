/* A V1 plug-in that loads properly and misbehaves afterwards: its Global and
 * metadata answers are right (one single-instance object "Flaky" at First
 * Counter, one counter "Calls" at + 2: the data queries this host has
 * answered), and its answers to an index query do what the first Export
 * string says:
 *   ok          right
 *   hang        never return
 *   crashonce   SIGSEGV unless the file named by the second Export string
 *               exists (it creates it first): one crash, then right
 *   overrun     write 16 bytes past the buffer it was given
 *   lie         TotalByteLength 64 bytes more than it returns
 *   foreign     the object at First Counter + 10, which was not asked for
 *   unaligned   a 12-byte counter block: the object is 116 bytes
 *   moredata    ERROR_MORE_DATA whatever the size
 *   costly      right, but its object is costly: only Costly and
 *               MetadataCostly name it, Global and MetadataGlobal return none
 * For spec/97-plugins_guards_spec.lua: the guards end to end. */
#include "perflib_v1.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
EXPORT DWORD FlakyOpen(LPWSTR exports);
EXPORT DWORD FlakyCollect(LPWSTR query, LPVOID *ppData, LPDWORD pcbData, LPDWORD pObjects);
EXPORT DWORD FlakyClose(void);

static char mode[32], marker[256];
static DWORD first;
static uint64_t calls;

static size_t ascii(const WCHAR *w, char *out, size_t cap)
{
    size_t n = 0;
    while (w && w[n] && n + 1 < cap) {
        out[n] = (char)w[n];
        n++;
    }
    out[n] = '\0';
    return n;
}

DWORD FlakyOpen(LPWSTR exports)
{
    const char *f = getenv("PERFLIB_FIRST_COUNTER");
    first = f ? (DWORD)strtoul(f, NULL, 10) : 0;
    if (exports) {
        size_t n = ascii(exports, mode, sizeof mode);
        if (exports[n] == 0 && exports[n + 1])
            ascii(exports + n + 1, marker, sizeof marker);
    }
    return ERROR_SUCCESS;
}

/* The object (64 + 40 bytes of definitions, then a counter block of blen). */
static DWORD object(BYTE *p, DWORD title, int metadata, DWORD blen)
{
    PERF_OBJECT_TYPE o;
    PERF_COUNTER_DEFINITION d;
    DWORD deflen = sizeof o + sizeof d, total = metadata ? deflen : deflen + blen;
    memset(&o, 0, sizeof o);
    memset(&d, 0, sizeof d);
    o.TotalByteLength = total;
    o.DefinitionLength = deflen;
    o.HeaderLength = sizeof o;
    o.ObjectNameTitleIndex = title;
    o.ObjectHelpTitleIndex = title + 1;
    o.DetailLevel = PERF_DETAIL_NOVICE;
    o.NumCounters = 1;
    o.NumInstances = metadata ? PERF_METADATA_NO_INSTANCES : PERF_NO_INSTANCES;
    d.ByteLength = sizeof d;
    d.CounterNameTitleIndex = first + 2;
    d.CounterHelpTitleIndex = first + 3;
    d.DetailLevel = PERF_DETAIL_NOVICE;
    d.CounterType = PERF_COUNTER_LARGE_RAWCOUNT;
    d.CounterSize = 8;
    d.CounterOffset = 4;
    memcpy(p, &o, sizeof o);
    memcpy(p + sizeof o, &d, sizeof d);
    if (!metadata) {
        DWORD bl = blen;
        memset(p + deflen, 0, blen);
        memcpy(p + deflen, &bl, 4);
        memcpy(p + deflen + 4, &calls, 8);
    }
    return total;
}

static int is_word(const WCHAR *q, const char *w)
{
    char a[32];
    ascii(q, a, sizeof a);
    return strcmp(a, w) == 0;
}

DWORD FlakyCollect(LPWSTR query, LPVOID *ppData, LPDWORD pcbData, LPDWORD pObjects)
{
    BYTE *p = *ppData;
    int costly = strcmp(mode, "costly") == 0;
    int metadata = is_word(query, "MetadataGlobal") || is_word(query, "MetadataCostly");
    int listing = metadata || is_word(query, "Global") || is_word(query, "Costly");
    DWORD cap = *pcbData, n;
    *pObjects = 0;
    if (listing && costly != (is_word(query, "Costly") || is_word(query, "MetadataCostly"))) {
        *pcbData = 0;                     /* not in this category */
        return ERROR_SUCCESS;
    }
    if (!listing) {
        calls++;
        if (strcmp(mode, "hang") == 0)
            for (;;)
                pause();
        if (strcmp(mode, "crashonce") == 0 && access(marker, F_OK) != 0) {
            FILE *f = fopen(marker, "w");
            if (f)
                fclose(f);
            raise(SIGSEGV);
        }
        if (strcmp(mode, "moredata") == 0) {
            *pcbData = 0;
            return ERROR_MORE_DATA;
        }
    }
    if (cap < 512) {
        *pcbData = 0;
        return ERROR_MORE_DATA;
    }
    int bad = !listing;
    DWORD title = bad && strcmp(mode, "foreign") == 0 ? first + 10 : first;
    n = object(p, title, metadata, bad && strcmp(mode, "unaligned") == 0 ? 12 : 16);
    if (bad && strcmp(mode, "lie") == 0)
        ((PERF_OBJECT_TYPE *)(void *)p)->TotalByteLength += 64;
    if (bad && strcmp(mode, "overrun") == 0)
        memset(p + cap, 0x5A, 16);
    *ppData = p + n;
    *pcbData = n;
    *pObjects = 1;
    return ERROR_SUCCESS;
}

DWORD FlakyClose(void)
{
    return ERROR_SUCCESS;
}
