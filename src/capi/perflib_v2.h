/* The PerfLib V2 consumer API on Linux (perflib).
 *
 * The nine functions of Windows' perflib.h with their documented semantics:
 * every function returns a Win32 error code; buffers are sized by calling
 * with a too-small (or zero) size, which returns ERROR_NOT_ENOUGH_MEMORY and
 * the size needed in *pcb...Actual; every block is little-endian and 8-byte
 * aligned.  Built on perflib's counter core: the countersets, counters and
 * values are perflib's, and `Processor Information` answers to Windows' GUID
 * {b4fc721a-0378-476f-89ba-a5a79f810b36} and its counter ids.
 *
 * szMachine: NULL, u"", u"." or u"localhost" for this machine, or an absolute
 * directory ("/srv/fixture") whose proc/ and sys/ trees are read instead of
 * the real ones; or u"host:port" (u"\\\\host:port" too) for another host's
 * `perflua serve`: its countersets, GUIDs and values, with the bearer token in
 * $PERFLIB_REMOTE_TOKEN ($PERFLIB_REMOTE_TLS=1 for https, $PERFLIB_REMOTE_CACERT,
 * $PERFLIB_REMOTE_TIMEOUT in seconds, 5 by default).  A host that cannot be
 * read is ERROR_BAD_NETPATH (ERROR_ACCESS_DENIED for a refused token) when
 * the handle is opened; later, its results fail with dwStatus set.  Handles
 * are checked: a closed or never-opened one is ERROR_INVALID_HANDLE, never a
 * crash.  The functions are thread-safe; calls
 * are serialized.
 *
 * Build: cc prog.c $(pkg-config --cflags --libs perflib) */
#ifndef PERFLIB_V2_H
#define PERFLIB_V2_H

#include "perflib_wintypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes (winerror.h) */
#ifndef ERROR_SUCCESS
#define ERROR_SUCCESS 0u
#define ERROR_FILE_NOT_FOUND 2u
#define ERROR_PATH_NOT_FOUND 3u
#define ERROR_ACCESS_DENIED 5u
#define ERROR_INVALID_HANDLE 6u
#define ERROR_NOT_ENOUGH_MEMORY 8u
#define ERROR_INVALID_DATA 13u
#define ERROR_OUTOFMEMORY 14u
#define ERROR_BAD_NETPATH 53u
#define ERROR_INVALID_PARAMETER 87u
#define ERROR_ALREADY_EXISTS 183u
#define ERROR_NO_MORE_ITEMS 259u
#define ERROR_MORE_DATA 234u
#define ERROR_NO_SYSTEM_RESOURCES 1450u
#define ERROR_WMI_GUID_NOT_FOUND 4200u
#define ERROR_WMI_INSTANCE_NOT_FOUND 4201u
#define ERROR_WMI_ITEMID_NOT_FOUND 4202u
#define ERROR_WMI_INVALID_REGINFO 4211u
#endif

/* Result shapes (PerfCounterDataType) and query constants */
#ifndef PERF_ERROR_RETURN
#define PERF_ERROR_RETURN 0u
#define PERF_SINGLE_COUNTER 1u
#define PERF_MULTIPLE_COUNTERS 2u
#define PERF_MULTIPLE_INSTANCES 4u
#define PERF_COUNTERSET 6u
#endif
#ifndef PERF_WILDCARD_COUNTER
#define PERF_WILDCARD_COUNTER 0xFFFFFFFFu
#endif
#define PERF_WILDCARD_INSTANCE_W u"*"
#define PERF_AGGREGATE_INSTANCE_W u"_Total"
#define PERF_MAX_INSTANCE_NAME 1024u

/* PerfQueryCounterSetRegistrationInfo request codes (PerfRegInfoType) */
#define PERF_REG_COUNTERSET_STRUCT 1u
#define PERF_REG_COUNTER_STRUCT 2u
#define PERF_REG_COUNTERSET_NAME_STRING 3u
#define PERF_REG_COUNTERSET_HELP_STRING 4u
#define PERF_REG_COUNTER_NAME_STRINGS 5u
#define PERF_REG_COUNTER_HELP_STRINGS 6u
#define PERF_REG_PROVIDER_NAME 7u
#define PERF_REG_PROVIDER_GUID 8u
#define PERF_REG_COUNTERSET_ENGLISH_NAME 9u
#define PERF_REG_COUNTER_ENGLISH_NAMES 10u

/* Counter attributes (PERF_COUNTER_REG_INFO.Attrib) */
#define PERF_ATTRIB_BY_REFERENCE 0x1ull
#define PERF_ATTRIB_NO_DISPLAYABLE 0x2ull
#define PERF_ATTRIB_NO_GROUP_SEPARATOR 0x4ull
#define PERF_ATTRIB_DISPLAY_AS_REAL 0x8ull
#define PERF_ATTRIB_DISPLAY_AS_HEX 0x10ull

typedef struct _PERF_COUNTER_IDENTIFIER {
    GUID CounterSetGuid;
    ULONG Status;            /* written by PerfAddCounters / PerfDeleteCounters */
    ULONG Size;              /* the whole block: 40, or 40 + UTF-16 instance name with NUL, padded to 8 */
    ULONG CounterId;         /* or PERF_WILDCARD_COUNTER */
    ULONG InstanceId;        /* or 0xFFFFFFFF: any */
    ULONG Index;             /* set by PerfQueryCounterInfo: the block's place in the data */
    ULONG Reserved;
} PERF_COUNTER_IDENTIFIER, *PPERF_COUNTER_IDENTIFIER;

typedef struct _PERF_DATA_HEADER {
    ULONG dwTotalSize;
    ULONG dwNumCounters;
    LONGLONG PerfTimeStamp;  /* monotonic clock in PerfFreq ticks */
    LONGLONG PerfTime100NSec;/* system time, 100 ns since 1601-01-01 UTC */
    LONGLONG PerfFreq;
    SYSTEMTIME SystemTime;   /* the same in UTC */
} PERF_DATA_HEADER, *PPERF_DATA_HEADER;

typedef struct _PERF_COUNTER_HEADER {
    ULONG dwStatus;
    ULONG dwType;            /* PERF_ERROR_RETURN ... PERF_COUNTERSET */
    ULONG dwSize;
    ULONG Reserved;
} PERF_COUNTER_HEADER, *PPERF_COUNTER_HEADER;

typedef struct _PERF_MULTI_COUNTERS {
    ULONG dwSize;
    ULONG dwCounters;        /* then DWORD CounterIds[dwCounters], padded to 8 */
} PERF_MULTI_COUNTERS, *PPERF_MULTI_COUNTERS;

typedef struct _PERF_MULTI_INSTANCES {
    ULONG dwTotalSize;
    ULONG dwInstances;       /* then the instance data blocks */
} PERF_MULTI_INSTANCES, *PPERF_MULTI_INSTANCES;

typedef struct _PERF_INSTANCE_HEADER {
    ULONG Size;              /* with the UTF-16 name, its NUL and padding to 8 */
    ULONG InstanceId;
} PERF_INSTANCE_HEADER, *PPERF_INSTANCE_HEADER;

typedef struct _PERF_COUNTER_DATA {
    ULONG dwDataSize;        /* 4 or 8; 0 when the source had no value */
    ULONG dwSize;            /* with the data padded to 8 */
} PERF_COUNTER_DATA, *PPERF_COUNTER_DATA;

typedef struct _PERF_COUNTERSET_REG_INFO {
    GUID CounterSetGuid;
    ULONG CounterSetType;
    ULONG DetailLevel;
    ULONG NumCounters;
    ULONG InstanceType;
} PERF_COUNTERSET_REG_INFO, *PPERF_COUNTERSET_REG_INFO;

typedef struct _PERF_COUNTER_REG_INFO {
    ULONG CounterId;
    ULONG Type;
    ULONGLONG Attrib;
    ULONG DetailLevel;
    LONG DefaultScale;
    ULONG BaseCounterId;
    ULONG PerfTimeId;
    ULONG PerfFreqId;
    ULONG MultiId;
    ULONG AggregateFunc;
    ULONG Reserved;
} PERF_COUNTER_REG_INFO, *PPERF_COUNTER_REG_INFO;

/* PERF_REG_COUNTER_NAME_STRINGS / _HELP_STRINGS: a header, dwCounters
 * entries, then the UTF-16 strings.  dwOffset counts from the start of the
 * PERF_STRING_BUFFER_HEADER (perflib.h's reading); 0xFFFFFFFF: no string. */
typedef struct _PERF_STRING_BUFFER_HEADER {
    DWORD dwSize;
    DWORD dwCounters;
} PERF_STRING_BUFFER_HEADER, *PPERF_STRING_BUFFER_HEADER;

typedef struct _PERF_STRING_COUNTER_HEADER {
    DWORD dwCounterId;
    DWORD dwOffset;
} PERF_STRING_COUNTER_HEADER, *PPERF_STRING_COUNTER_HEADER;

ULONG PerfEnumerateCounterSet(LPCWSTR szMachine, LPGUID pCounterSetIds, DWORD cCounterSetIds,
                              LPDWORD pcCounterSetIdsActual);
ULONG PerfEnumerateCounterSetInstances(LPCWSTR szMachine, LPCGUID pCounterSetId,
                                       PPERF_INSTANCE_HEADER pInstances, DWORD cbInstances,
                                       LPDWORD pcbInstancesActual);
ULONG PerfQueryCounterSetRegistrationInfo(LPCWSTR szMachine, LPCGUID pCounterSetId, ULONG requestCode,
                                          DWORD requestLangId, LPBYTE pbRegInfo, DWORD cbRegInfo,
                                          LPDWORD pcbRegInfoActual);
/* szMachine: NULL, "" or "." for this machine; "/path" for a view below a
 * root directory; "host:port" for another host's `perflua serve`; and, a
 * perflib extension, "log:PATH" (or "log:PATH1;PATH2;..." for the files of a
 * rotation, in order) for a binary or SQLite log: the sets are the log's, and each
 * PerfQueryCounterData of a query returns its next logged sample with its
 * logged times, ERROR_NO_MORE_ITEMS past the last and ERROR_INVALID_DATA
 * for a record that fails its checks.  A log that cannot be opened is
 * ERROR_BAD_NETPATH (not a log, corrupt) or ERROR_FILE_NOT_FOUND. */
ULONG PerfOpenQueryHandle(LPCWSTR szMachine, HANDLE *phQuery);
ULONG PerfCloseQueryHandle(HANDLE hQuery);
ULONG PerfAddCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters);
ULONG PerfDeleteCounters(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters);
ULONG PerfQueryCounterInfo(HANDLE hQuery, PPERF_COUNTER_IDENTIFIER pCounters, DWORD cbCounters,
                           LPDWORD pcbCountersActual);
ULONG PerfQueryCounterData(HANDLE hQuery, PPERF_DATA_HEADER pCounterBlock, DWORD cbCounterBlock,
                           LPDWORD pcbCounterBlockActual);

/* perflib's extension (not in Windows): checks a data block from outside
 * (a file, another process) against every rule of the layout before a
 * program walks it: sizes, offsets and counts within cbBlock, multiples of 8,
 * instance names terminated inside their block, counter data sizes.
 * ERROR_SUCCESS, or ERROR_INVALID_DATA with the offset of the first broken
 * rule in *pOffset and its description in *pRule (a static string); either
 * may be NULL.  ERROR_INVALID_PARAMETER for a NULL block with cbBlock > 0. */
ULONG PerflibCheckDataBlock(const void *pBlock, DWORD cbBlock, LPDWORD pOffset, const char **pRule);

/* perflib's extension: the units and semantics of a counter, and the
 * Prometheus metric it is exported as.  Unit kinds and semantics are
 * perflib.h's pl_unit_kind and pl_semantics (their names in UnitName,
 * SemanticsName).  The raw value x Scale is in base units (bytes, seconds,
 * hertz, ...); the formatted value (PerfLib's formula, at the counter's
 * default scale) x FormattedScale is in base units per FormattedPer. */
#define PERFLIB_SEMANTICS_COUNTER 1u   /* cumulative: export as a counter */
#define PERFLIB_SEMANTICS_GAUGE 2u
#define PERFLIB_SEMANTICS_DISCRETE 3u  /* rarely changes: totals, sizes, ids */
#define PERFLIB_PER_NONE 0u
#define PERFLIB_PER_SECOND 1u
#define PERFLIB_PER_OPERATION 2u

typedef struct _PERFLIB_COUNTER_UNITS {
    ULONG CounterId;
    ULONG Unit;              /* of the raw value */
    ULONG Semantics;
    ULONG Declared;          /* 1: by the definition; 0: derived from the counter type */
    double Scale;            /* raw x Scale = base units */
    ULONG FormattedUnit;
    ULONG FormattedPer;      /* PERFLIB_PER_* */
    double FormattedScale;
    char UnitName[24];       /* "bytes", "seconds", "count", "none", ... */
    char SemanticsName[16];  /* "counter", "gauge", "discrete" */
    char FormattedText[40];  /* "bytes/s", "percent", "seconds/op", "KiB", "" for counts */
    char MetricName[256];    /* perflib_<set>_<counter>[_unit][_total] */
    char MetricType[8];      /* "counter" or "gauge" */
    double MetricFactor;     /* raw x MetricFactor = the sample's value */
} PERFLIB_COUNTER_UNITS, *PPERFLIB_COUNTER_UNITS;

/* The units of counter CounterId of the counterset pCounterSetId on
 * szMachine (as PerfOpenQueryHandle reads it).  ERROR_SUCCESS;
 * ERROR_INVALID_PARAMETER (a NULL pointer); ERROR_WMI_GUID_NOT_FOUND (no such
 * counterset), ERROR_WMI_ITEMID_NOT_FOUND (no such counter), or the errors
 * of szMachine. */
ULONG PerflibQueryCounterUnits(LPCWSTR szMachine, LPCGUID pCounterSetId, ULONG CounterId,
                               PPERFLIB_COUNTER_UNITS pUnits);

#ifdef __cplusplus
}
#endif

#endif
