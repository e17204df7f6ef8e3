/* The PerfLib V1 registry interface on Linux (perflib): RegQueryValueEx on
 * HKEY_PERFORMANCE_DATA, HKEY_PERFORMANCE_TEXT and HKEY_PERFORMANCE_NLSTEXT,
 * with winperf.h's structures laid out exactly as on 64-bit Windows.
 *
 * Nothing here is a registry: only those three predefined keys answer, any
 * other key is ERROR_INVALID_HANDLE.  HKEY_PERFORMANCE_DATA value names
 * (case-insensitive): "Global", "Costly", "n1 n2 ..." (counterset title
 * indexes), "MetadataGlobal", "MetadataCostly" (definitions only) give a
 * PERF_DATA_BLOCK (REG_BINARY), collected anew at each call; "OLD_Global",
 * "OLD_MetadataGlobal", "OLD_MetadataCostly" are their plain forms (every
 * perflib counterset is served as a V1 object); "Foreign ..." is a valid
 * block with no objects (no remote machines); "Counter <lang>" and
 * "Help <lang>" give the title tables (REG_MULTI_SZ "index\0text\0...\0\0",
 * UTF-16LE from the W function, UTF-8 from the A one); perflib's extension
 * "Units <lang>" has the same shape: each counter's name index and its
 * units line "unit=bytes scale=1024 semantics=gauge formatted=KiB
 * type=gauge factor=1024 metric=perflib_memory_available_bytes" (keys in
 * this order; formatted= is empty for counts).  perflib's names are
 * English only: every language id (009, 007, ...) answers the English
 * tables, as Windows falls back to English where a language has none.
 * HKEY_PERFORMANCE_TEXT and HKEY_PERFORMANCE_NLSTEXT answer "Counter",
 * "Help" and "Units" with the same tables.  Other names are ERROR_FILE_NOT_FOUND.
 *
 * Sizes: a short buffer is ERROR_MORE_DATA with the size this call needed in
 * *lpcbData (Windows leaves it undefined for HKEY_PERFORMANCE_DATA; the
 * next collection may need more, so grow and retry in a loop as Microsoft's
 * samples do); lpData NULL is ERROR_SUCCESS with the size.  RegCloseKey on
 * these keys frees the cached queries and buffers; later calls work again.
 * Thread-safe: every call shares the PerfLib V2 API's lock.
 *
 * Build: cc prog.c $(pkg-config --cflags --libs perflib) */
#ifndef PERFLIB_V1_H
#define PERFLIB_V1_H

#include "perflib_wintypes.h"
#include "perflib_v2.h"          /* error codes */
#include "pl_winperf.h"          /* counter types and detail levels, winperf.h's values */

#ifdef __cplusplus
extern "C" {
#endif

#define HKEY_PERFORMANCE_DATA ((HKEY)(ULONG_PTR)((LONG)0x80000004))
#define HKEY_PERFORMANCE_TEXT ((HKEY)(ULONG_PTR)((LONG)0x80000050))
#define HKEY_PERFORMANCE_NLSTEXT ((HKEY)(ULONG_PTR)((LONG)0x80000060))

#ifndef REG_BINARY
#define REG_NONE 0u
#define REG_SZ 1u
#define REG_BINARY 3u
#define REG_DWORD 4u
#define REG_MULTI_SZ 7u
#endif

typedef struct _PERF_DATA_BLOCK {
    WCHAR Signature[4];            /* u"PERF" */
    DWORD LittleEndian;
    DWORD Version;
    DWORD Revision;
    DWORD TotalByteLength;
    DWORD HeaderLength;
    DWORD NumObjectTypes;
    LONG DefaultObject;
    SYSTEMTIME SystemTime;
    LARGE_INTEGER PerfTime;
    LARGE_INTEGER PerfFreq;
    LARGE_INTEGER PerfTime100nSec;
    DWORD SystemNameLength;
    DWORD SystemNameOffset;
} PERF_DATA_BLOCK, *PPERF_DATA_BLOCK;

typedef struct _PERF_OBJECT_TYPE {
    DWORD TotalByteLength;
    DWORD DefinitionLength;
    DWORD HeaderLength;
    DWORD ObjectNameTitleIndex;
    DWORD ObjectNameTitle;         /* 64-bit Windows: a DWORD, not a pointer */
    DWORD ObjectHelpTitleIndex;
    DWORD ObjectHelpTitle;
    DWORD DetailLevel;
    DWORD NumCounters;
    LONG DefaultCounter;
    LONG NumInstances;
    DWORD CodePage;
    LARGE_INTEGER PerfTime;
    LARGE_INTEGER PerfFreq;
} PERF_OBJECT_TYPE, *PPERF_OBJECT_TYPE;

typedef struct _PERF_COUNTER_DEFINITION {
    DWORD ByteLength;
    DWORD CounterNameTitleIndex;
    DWORD CounterNameTitle;
    DWORD CounterHelpTitleIndex;
    DWORD CounterHelpTitle;
    LONG DefaultScale;
    DWORD DetailLevel;
    DWORD CounterType;
    DWORD CounterSize;
    DWORD CounterOffset;
} PERF_COUNTER_DEFINITION, *PPERF_COUNTER_DEFINITION;

typedef struct _PERF_INSTANCE_DEFINITION {
    DWORD ByteLength;
    DWORD ParentObjectTitleIndex;
    DWORD ParentObjectInstance;
    LONG UniqueID;
    DWORD NameOffset;
    DWORD NameLength;
} PERF_INSTANCE_DEFINITION, *PPERF_INSTANCE_DEFINITION;

typedef struct _PERF_COUNTER_BLOCK {
    DWORD ByteLength;
} PERF_COUNTER_BLOCK, *PPERF_COUNTER_BLOCK;

/* A V1 provider ("performance extension DLL"): a shared object exporting
 * these three, named in its .plugin file (seed 002; perflib runs it in a
 * host process of its own). */
typedef DWORD PM_OPEN_PROC(LPWSTR exportString);
typedef DWORD PM_COLLECT_PROC(LPWSTR lpValueName, LPVOID *lppData, LPDWORD lpcbTotalBytes,
                              LPDWORD lpNumObjectTypes);
typedef DWORD PM_CLOSE_PROC(void);

LSTATUS RegQueryValueExW(HKEY hKey, LPCWSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType,
                         LPBYTE lpData, LPDWORD lpcbData);
LSTATUS RegQueryValueExA(HKEY hKey, LPCSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType,
                         LPBYTE lpData, LPDWORD lpcbData);
LSTATUS RegCloseKey(HKEY hKey);

/* perflib's extension: the units, semantics and Prometheus metric of the
 * counter whose CounterNameTitleIndex (a V1 block's PERF_COUNTER_DEFINITION,
 * or the "Counter" table) is CounterNameTitleIndex, on szMachine (NULL: this
 * one) -- PERFLIB_COUNTER_UNITS of perflib_v2.h.  ERROR_SUCCESS;
 * ERROR_INVALID_PARAMETER (pUnits NULL); ERROR_FILE_NOT_FOUND (the index is
 * a counterset's, a help text's or nobody's); or the errors of szMachine.
 * The same for every counter at once, as text: the value "Units" (above). */
ULONG PerflibQueryCounterUnitsByIndex(LPCWSTR szMachine, DWORD CounterNameTitleIndex,
                                      PPERFLIB_COUNTER_UNITS pUnits);

#ifdef __cplusplus
}
#endif

#endif
