/* libperflib-provider: the PerfLib V2 provider API on Linux.
 *
 * A program publishes countersets as on Windows: PerfStartProvider(Ex),
 * PerfSetCounterSetInfo, PerfCreateInstance, PerfSet/Increment/Decrement
 * ...CounterValue, PerfSetCounterRefValue, PerfDeleteInstance,
 * PerfStopProvider, with Windows' structs and error codes.  Names and help
 * texts, which Windows takes from the manifest, come with
 * PerfSetCounterSetInfoEx (a perflib extension); without it the set is named
 * by its GUID and each counter "Counter <id>".
 *
 * Values live in a shared-memory segment, one per provider handle: a memfd
 * sealed against shrinking (readers map it and read in place; only this
 * user's processes and root can open it), named by a link to
 * /proc/<pid>/fd/<n> in $PERFLIB_APPSEG_DIR if set, else
 * $XDG_RUNTIME_DIR/perflib/ for a user, /run/perflib/ for root.  With
 * PERFLIB_APPSEG_FILE set the segment is a file there instead, mode 0644
 * (0600 with PERFLIB_APPSEG_PRIVATE), which other users may read.
 * Updates are single aligned stores (or atomic adds for Increment and
 * Decrement) into that memory: no system call, lock or allocation.
 * PerfStopProvider removes the link or file.  Link with -lperflib-provider
 * (pkg-config perflib-provider); this library needs nothing else. */
#ifndef PERFLIB_PROVIDER_H
#define PERFLIB_PROVIDER_H

#include "perflib_wintypes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ERROR_SUCCESS
#define ERROR_SUCCESS 0u
#endif
#ifndef ERROR_NOT_ENOUGH_MEMORY
#define ERROR_NOT_ENOUGH_MEMORY 8u
#endif
#ifndef ERROR_OUTOFMEMORY
#define ERROR_OUTOFMEMORY 14u
#endif
#ifndef ERROR_INVALID_PARAMETER
#define ERROR_INVALID_PARAMETER 87u
#endif
#ifndef ERROR_ALREADY_EXISTS
#define ERROR_ALREADY_EXISTS 183u
#endif
#ifndef ERROR_NOT_FOUND
#define ERROR_NOT_FOUND 1168u
#endif
#ifndef ERROR_ACCESS_DENIED
#define ERROR_ACCESS_DENIED 5u
#endif
#ifndef ERROR_INVALID_HANDLE
#define ERROR_INVALID_HANDLE 6u
#endif

#ifndef PERF_ATTRIB_BY_REFERENCE
#define PERF_ATTRIB_BY_REFERENCE 0x1ull
#define PERF_ATTRIB_NO_DISPLAYABLE 0x2ull
#define PERF_ATTRIB_NO_GROUP_SEPARATOR 0x4ull
#define PERF_ATTRIB_DISPLAY_AS_REAL 0x8ull
#define PERF_ATTRIB_DISPLAY_AS_HEX 0x10ull
#endif
#ifndef PERF_COUNTERSET_SINGLE_INSTANCE
#define PERF_COUNTERSET_SINGLE_INSTANCE 0u
#define PERF_COUNTERSET_MULTI_INSTANCES 2u
#endif

typedef ULONG (*PERFLIBREQUEST)(ULONG RequestCode, PVOID Buffer, ULONG BufferSize);
typedef LPVOID (*PERF_MEM_ALLOC)(SIZE_T AllocSize, LPVOID pContext);
typedef void (*PERF_MEM_FREE)(LPVOID pBuffer, LPVOID pContext);

typedef struct _PERF_PROVIDER_CONTEXT {
    DWORD ContextSize;
    DWORD Reserved;
    PERFLIBREQUEST ControlCallback;   /* kept, never called: readers do not call back */
    PERF_MEM_ALLOC MemAllocRoutine;   /* used for the handle's private tables */
    PERF_MEM_FREE MemFreeRoutine;
    LPVOID pMemContext;
} PERF_PROVIDER_CONTEXT, *PPERF_PROVIDER_CONTEXT;

typedef struct _PERF_COUNTERSET_INFO {
    GUID CounterSetGuid;
    GUID ProviderGuid;
    ULONG NumCounters;
    ULONG InstanceType;       /* PERF_COUNTERSET_SINGLE_INSTANCE or _MULTI_INSTANCES */
} PERF_COUNTERSET_INFO, *PPERF_COUNTERSET_INFO;      /* NumCounters PERF_COUNTER_INFO follow */

typedef struct _PERF_COUNTER_INFO {
    ULONG CounterId;
    ULONG Type;               /* PERF_COUNTER_* (pl_winperf.h) */
    ULONGLONG Attrib;         /* PERF_ATTRIB_* */
    ULONG Size;               /* 4 or 8; 8 (a pointer) for by-reference counters */
    ULONG DetailLevel;        /* PERF_DETAIL_* */
    LONG Scale;               /* -10 .. 10 */
    ULONG Offset;             /* of the value in the counter area after the instance header */
} PERF_COUNTER_INFO, *PPERF_COUNTER_INFO;

typedef struct _PERF_COUNTERSET_INSTANCE {
    GUID CounterSetGuid;
    ULONG dwSize;
    ULONG InstanceId;
    ULONG InstanceNameOffset; /* UTF-16 name, from this struct's start */
    ULONG InstanceNameSize;   /* bytes with the NUL */
} PERF_COUNTERSET_INSTANCE, *PPERF_COUNTERSET_INSTANCE;

/* Names for a set and its counters (perflib's stand-in for the manifest):
 * CounterNames[i], CounterHelp[i], CounterUnits[i] and CounterSemantics[i]
 * go with the template's i-th counter; any pointer may be NULL.  Name up to
 * 127 bytes, help 255, counter names 63, counter help 127 (UTF-8).  A unit
 * is perflib's name or symbol of it, with a prefix if it has one ("bytes",
 * "KiB", "seconds", "ms", "percent", "celsius", "W" ...), a semantics
 * "counter" (cumulative), "gauge" or "discrete"; NULL or "" leaves either to
 * what the counter type says.  Readers refuse a set whose unit they cannot
 * read or that contradicts its counter's type. */
typedef struct _PERFLIB_COUNTERSET_NAMES {
    const char *Name;
    const char *Help;
    const char *const *CounterNames;
    const char *const *CounterHelp;
    const char *const *CounterUnits;
    const char *const *CounterSemantics;
} PERFLIB_COUNTERSET_NAMES;

ULONG PerfStartProvider(LPGUID ProviderGuid, PERFLIBREQUEST ControlCallback, HANDLE *phProvider);
ULONG PerfStartProviderEx(LPGUID ProviderGuid, PPERF_PROVIDER_CONTEXT ProviderContext, PHANDLE phProvider);
ULONG PerfStopProvider(HANDLE hProvider);
ULONG PerfSetCounterSetInfo(HANDLE hProvider, PPERF_COUNTERSET_INFO pTemplate, ULONG dwTemplateSize);
/* The same with names (perflib extension; names may be NULL).  Counter ids
 * 0 .. 498 (perflib's title-index span); at most 64 sets a handle and 256
 * counters a set. */
ULONG PerfSetCounterSetInfoEx(HANDLE hProvider, PPERF_COUNTERSET_INFO pTemplate, ULONG dwTemplateSize,
                              const PERFLIB_COUNTERSET_NAMES *names);
PPERF_COUNTERSET_INSTANCE PerfCreateInstance(HANDLE hProvider, LPCGUID CounterSetGuid, PCWSTR szInstanceName,
                                             ULONG dwInstance);
/* The same with a UTF-8 name (perflib extension); errno-free: NULL and
 * PerfGetLastError() on failure, as with PerfCreateInstance. */
PPERF_COUNTERSET_INSTANCE PerfCreateInstanceUtf8(HANDLE hProvider, LPCGUID CounterSetGuid, const char *name,
                                                 ULONG dwInstance);
ULONG PerfDeleteInstance(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE InstanceBlock);
/* Windows' GetLastError after PerfCreateInstance returned NULL (thread-local). */
ULONG PerfGetLastError(void);

ULONG PerfSetULongCounterValue(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE pInstance, ULONG CounterId, ULONG lValue);
ULONG PerfSetULongLongCounterValue(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE pInstance, ULONG CounterId,
                                   ULONGLONG llValue);
ULONG PerfIncrementULongCounterValue(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE pInstance, ULONG CounterId,
                                     ULONG lValue);
ULONG PerfIncrementULongLongCounterValue(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE pInstance, ULONG CounterId,
                                         ULONGLONG llValue);
ULONG PerfDecrementULongCounterValue(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE pInstance, ULONG CounterId,
                                     ULONG lValue);
ULONG PerfDecrementULongLongCounterValue(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE pInstance, ULONG CounterId,
                                         ULONGLONG llValue);
/* A counter with PERF_ATTRIB_BY_REFERENCE: the reader reads the variable at
 * lpAddr in this process (process_vm_readv: the reader needs ptrace access
 * to the provider, e.g. the same user with Yama's ptrace_scope 0, or root). */
ULONG PerfSetCounterRefValue(HANDLE hProvider, PPERF_COUNTERSET_INSTANCE pInstance, ULONG CounterId, PVOID lpAddr);

/* The segment file of a provider handle (perflib extension), or NULL. */
const char *PerfProviderSegmentPath(HANDLE hProvider);

#ifdef __cplusplus
}
#endif

#endif
