/* A deliberately broken V1 plug-in for the plug-in host's guards
 * (spec/c/test_plugin_host.c, bench/plugin.c).  Seed 002's contract with
 * the functions named BadOpen / BadCollect / BadClose; the first export
 * string handed to Open chooses the misbehaviour, the second is a path some
 * modes use.  Built as build/test-plugins/bad.so; with -DNO_COLLECT as
 * nocollect.so (no Collect symbol).  The "good" answer is one
 * single-instance object laid out by hand as winperf.h lays it out:
 * PERF_OBJECT_TYPE (64 bytes), one PERF_COUNTER_DEFINITION (40), a
 * PERF_COUNTER_BLOCK padded to 8 bytes and one 8-byte value: 120 bytes. */
#include "perflib_wintypes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>

#define ERROR_SUCCESS 0u
#define ERROR_MORE_DATA 234u
#define GOOD_LEN 120u
#define BIG_LEN (200u * 1024u)

typedef void *LPVOID;                     /* winnt.h; not among perflib's compat types */

static char mode[32], arg[256];

/* the i-th string of a REG_MULTI_SZ, narrowed to ASCII */
static void nth(const WCHAR *multi, int i, char *out, size_t size)
{
    out[0] = 0;
    if (!multi)
        return;
    for (; i > 0 && *multi; i--)
        while (*multi++)
            ;
    size_t k = 0;
    for (; *multi && k + 1 < size; multi++)
        out[k++] = (char)(*multi < 0x80 ? *multi : '?');
    out[k] = 0;
}

static int is(const char *m)
{
    return strcmp(mode, m) == 0;
}

/* creates path holding this process's pid */
static void mark(const char *path)
{
    char s[24];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), n = snprintf(s, sizeof s, "%d\n", (int)getpid());
    if (fd >= 0) {
        if (write(fd, s, (size_t)n) != n)
            unlink(path);
        close(fd);
    }
}

DWORD BadOpen(LPWSTR exports);
DWORD BadOpen(LPWSTR exports)
{
    nth(exports, 0, mode, sizeof mode);
    nth(exports, 1, arg, sizeof arg);
    if (arg[0] && !is("crashonce") && !is("closemark"))
        mark(arg);                        /* the test learns this host's pid */
    if (is("openfail"))
        return 5;
    if (is("slowopen"))
        sleep(10);
    return ERROR_SUCCESS;
}

#ifndef NO_COLLECT
static void put32(unsigned char *b, size_t off, uint32_t v)
{
    memcpy(b + off, &v, 4);
}

static uint32_t env32(const char *name)
{
    const char *s = getenv(name);
    return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

/* One object of len bytes (>= 120, a multiple of 8) at b; its counter holds
 * the query's length in UTF-16 units (high half), its last and first units. */
static void object(unsigned char *b, uint32_t len, const WCHAR *q)
{
    uint32_t fc = env32("PERFLIB_FIRST_COUNTER"), fh = env32("PERFLIB_FIRST_HELP");
    memset(b, 0, len);
    put32(b, 0, len);                     /* TotalByteLength */
    put32(b, 4, 64 + 40);                 /* DefinitionLength */
    put32(b, 8, 64);                      /* HeaderLength */
    put32(b, 12, fc);                     /* ObjectNameTitleIndex */
    put32(b, 20, fh);                     /* ObjectHelpTitleIndex */
    put32(b, 28, 100);                    /* DetailLevel: PERF_DETAIL_NOVICE */
    put32(b, 32, 1);                      /* NumCounters */
    put32(b, 40, 0xFFFFFFFFu);            /* NumInstances: PERF_NO_INSTANCES */
    unsigned char *d = b + 64;            /* PERF_COUNTER_DEFINITION */
    put32(d, 0, 40);
    put32(d, 4, fc + 2);
    put32(d, 12, fh + 2);
    put32(d, 24, 100);
    put32(d, 28, 0x00010100u);            /* PERF_COUNTER_LARGE_RAWCOUNT */
    put32(d, 32, 8);                      /* CounterSize */
    put32(d, 36, 8);                      /* CounterOffset: after ByteLength + pad */
    put32(b, 104, len - 104);             /* PERF_COUNTER_BLOCK.ByteLength */
    uint32_t n = 0;
    while (q && q[n])
        n++;
    uint64_t v = (uint64_t)n << 32 | (uint32_t)(n ? q[n - 1] : 0) << 16 | (n ? q[0] : 0);
    memcpy(b + 112, &v, 8);
}

static void crash(void)
{
    volatile uintptr_t addr = 8;          /* not provably null: a real SIGSEGV */
    *(volatile int *)addr = 1;
}

/* the modes that answer ERROR_MORE_DATA or fail before writing */
static int early(DWORD *rc, DWORD *pcb, DWORD *pn)
{
    if (is("hang"))
        for (;;)
            pause();
    if (is("crash"))
        crash();
    if (is("exit"))
        _exit(3);
    if (is("crashonce") && access(arg, F_OK) != 0) {
        mark(arg);
        crash();
    }
    if (is("slowcollect"))
        usleep(500 * 1000);
    if (is("badcode")) {
        *rc = 5;
        return 1;
    }
    if (is("moredata") || (is("big") && *pcb < BIG_LEN) || is("moredatadirty")) {
        *rc = ERROR_MORE_DATA;
        *pn = 0;
        *pcb = is("moredatadirty") ? 120 : 0;
        return 1;
    }
    return 0;
}

DWORD BadCollect(LPWSTR query, LPVOID *ppData, LPDWORD pcbData, LPDWORD pObjectsReturned);
DWORD BadCollect(LPWSTR query, LPVOID *ppData, LPDWORD pcbData, LPDWORD pObjectsReturned)
{
    DWORD rc = ERROR_SUCCESS, cap = *pcbData;
    unsigned char *b = *ppData;
    if (early(&rc, pcbData, pObjectsReturned))
        return rc;
    if (is("empty")) {
        *pcbData = 0;
        *pObjectsReturned = 0;
        return ERROR_SUCCESS;
    }
    uint32_t len = is("big") ? BIG_LEN : GOOD_LEN;
    if (cap < len) {
        *pcbData = 0;
        *pObjectsReturned = 0;
        return ERROR_MORE_DATA;
    }
    object(b, len, query);
    *pObjectsReturned = 1;
    if (is("overrun"))
        memset(b + cap, 0x5a, 16);
    if (is("bigoverrun"))
        memset(b, 0x5a, (size_t)cap + 4096 + 16);
    if (is("unaligned"))
        len = 44;
    if (is("badlen"))
        len = cap + 8;
    if (is("badcount"))
        *pObjectsReturned = 0;
    *pcbData = len;
    *ppData = b + (is("badptr") ? len - 8 : len);
    return ERROR_SUCCESS;
}
#endif

DWORD BadClose(void);
DWORD BadClose(void)
{
    if (is("closemark") && arg[0])
        mark(arg);
    return ERROR_SUCCESS;
}
