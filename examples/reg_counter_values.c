/* Retrieving counter data and calculating counter values: the third
 * consumer of seed 004, ported to C on Linux against perflib's registry
 * interface.
 *
 * It finds the title indexes of an object and a counter by name in the
 * English name table (the original hard-codes 238 and 6), collects that
 * object twice (RegQueryValueExA on HKEY_PERFORMANCE_DATA with the index as
 * the value name), reads the counter's raw data, its base (the next
 * definition, for the types that have one), time and frequency from each
 * V1 block, and computes the displayable value with the counter type's
 * formula, as the original's DisplayCalculatedValue does.
 *
 *   build/examples/reg_counter_values [object] [counter] [instance] [interval_ms] [dir]
 *   (default "Processor Information" "% Processor Time" "_Total" 1000; with dir,
 *   the two blocks are saved as dir/block0.v1 and dir/block1.v1)
 *
 * Build outside the tree: cc reg_counter_values.c $(pkg-config --cflags --libs perflib) */
#include <perflib_v1.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUFFER_INCREMENT 16384

/* The elements required to calculate a counter value (the original's RAW_DATA). */
typedef struct _rawdata {
    DWORD CounterType;
    ULONGLONG Data;          /* raw counter data */
    LONGLONG Time;           /* a time value or a base value */
    DWORD MultiCounterData;  /* the second raw value of multi counters */
    LONGLONG Frequency;
} RAW_DATA;

static LPBYTE GetPerformanceData(LPCSTR pszSource, DWORD *pdwSize)
{
    DWORD dwBufferSize = BUFFER_INCREMENT;
    LPBYTE pBuffer = NULL;
    LSTATUS status = ERROR_MORE_DATA;
    while (status == ERROR_MORE_DATA) {
        LPBYTE p = realloc(pBuffer, dwBufferSize);
        if (!p)
            break;
        pBuffer = p;
        *pdwSize = dwBufferSize;
        status = RegQueryValueExA(HKEY_PERFORMANCE_DATA, pszSource, NULL, NULL, pBuffer, pdwSize);
        dwBufferSize += BUFFER_INCREMENT;
    }
    if (status != ERROR_SUCCESS) {
        fprintf(stderr, "RegQueryValueEx(%s) failed with %ld\n", pszSource, (long)status);
        free(pBuffer);
        return NULL;
    }
    return pBuffer;
}

/* The title index of a name in the English "Counter" table (0: none); an
 * object's counters hold indexes above the object's own. */
static DWORD GetIndex(LPCSTR pTable, LPCSTR pszName, DWORD dwAbove)
{
    for (LPCSTR p = pTable; *p; ) {
        DWORD i = (DWORD)strtoul(p, NULL, 10);
        p += strlen(p) + 1;
        if (i > dwAbove && strcmp(p, pszName) == 0)
            return i;
        p += strlen(p) + 1;
    }
    return 0;
}

static int SameName(LPCWSTR w, LPCSTR a)
{
    while (*a && *w == (WCHAR)(unsigned char)*a)
        w++, a++;
    return *w == 0 && *a == 0;
}

/* Fills pRawData from one V1 block; FALSE when the object, counter or instance is missing. */
static BOOL GetCounterValues(LPBYTE pData, DWORD dwObjectIndex, DWORD dwCounterIndex, LPCSTR pszInstance,
                             RAW_DATA *pRawData)
{
    PERF_DATA_BLOCK *pdb = (PERF_DATA_BLOCK *)pData;
    PERF_OBJECT_TYPE *po = (PERF_OBJECT_TYPE *)(pData + pdb->HeaderLength);
    DWORD i = 0;
    while (i < pdb->NumObjectTypes && po->ObjectNameTitleIndex != dwObjectIndex)
        po = (PERF_OBJECT_TYPE *)((LPBYTE)po + po->TotalByteLength), i++;
    if (i == pdb->NumObjectTypes)
        return 0;
    PERF_COUNTER_DEFINITION *pcd = (PERF_COUNTER_DEFINITION *)((LPBYTE)po + po->HeaderLength), *pBase = NULL;
    for (i = 0; i < po->NumCounters && pcd->CounterNameTitleIndex != dwCounterIndex; i++)
        pcd = (PERF_COUNTER_DEFINITION *)((LPBYTE)pcd + pcd->ByteLength);
    if (i == po->NumCounters)
        return 0;
    if (i + 1 < po->NumCounters)
        pBase = (PERF_COUNTER_DEFINITION *)((LPBYTE)pcd + pcd->ByteLength);
    LPBYTE pBlock = (LPBYTE)po + po->DefinitionLength;     /* PERF_NO_INSTANCES: the one counter block */
    if (po->NumInstances > 0) {
        PERF_INSTANCE_DEFINITION *pi = (PERF_INSTANCE_DEFINITION *)pBlock;
        LONG k;
        for (k = 0; k < po->NumInstances; k++) {
            PERF_COUNTER_BLOCK *pcb = (PERF_COUNTER_BLOCK *)((LPBYTE)pi + pi->ByteLength);
            if (SameName((LPCWSTR)((LPBYTE)pi + pi->NameOffset), pszInstance))
                break;
            pi = (PERF_INSTANCE_DEFINITION *)((LPBYTE)pcb + pcb->ByteLength);
        }
        if (k == po->NumInstances)
            return 0;
        pBlock = (LPBYTE)pi + pi->ByteLength;
    }
    pRawData->CounterType = pcd->CounterType;
    pRawData->Data = 0;
    memcpy(&pRawData->Data, pBlock + pcd->CounterOffset, pcd->CounterSize == 8 ? 8 : 4);
    pRawData->MultiCounterData = 0;
    pRawData->Time = 0;
    pRawData->Frequency = 0;
    switch (pcd->CounterType & 0x00070000u) {              /* the subtype: which time base */
    case PERF_COUNTER_FRACTION:
    case PERF_COUNTER_PRECISION:
        if (pBase) {                                       /* the base follows its counter */
            ULONGLONG b = 0;
            memcpy(&b, pBlock + pBase->CounterOffset, pBase->CounterSize == 8 ? 8 : 4);
            pRawData->Time = (LONGLONG)b;
        }
        break;
    default:
        break;
    }
    if ((pcd->CounterType & 0x00070000u) == PERF_COUNTER_PRECISION && pcd->CounterType != PERF_PRECISION_100NS_TIMER &&
        pcd->CounterType != PERF_PRECISION_SYSTEM_TIMER && pcd->CounterType != PERF_PRECISION_OBJECT_TIMER)
        return 1;
    if ((pcd->CounterType & 0x00070000u) == PERF_COUNTER_FRACTION)
        return 1;
    if ((pcd->CounterType & 0x00F00000u) == PERF_OBJECT_TIMER) {
        pRawData->Time = pRawData->Time ? pRawData->Time : po->PerfTime.QuadPart;
        pRawData->Frequency = po->PerfFreq.QuadPart;
    } else if ((pcd->CounterType & 0x00F00000u) == PERF_TIMER_100NS) {
        pRawData->Time = pRawData->Time ? pRawData->Time : pdb->PerfTime100nSec.QuadPart;
        pRawData->Frequency = 10000000;
    } else {
        pRawData->Time = pRawData->Time ? pRawData->Time : pdb->PerfTime.QuadPart;
        pRawData->Frequency = pdb->PerfFreq.QuadPart;
    }
    return 1;
}

/* The displayable value by counter type, with the formulas of the original. */
static BOOL CalculateValue(const RAW_DATA *p0, const RAW_DATA *p1, double *pValue)
{
    double dx = (double)(p1->Data - p0->Data), dt = (double)(p1->Time - p0->Time);
    double f = (double)p1->Frequency;
    switch (p1->CounterType) {
    case PERF_COUNTER_RAWCOUNT:
    case PERF_COUNTER_LARGE_RAWCOUNT:
    case PERF_COUNTER_RAWCOUNT_HEX:
    case PERF_COUNTER_LARGE_RAWCOUNT_HEX:
        *pValue = (double)p1->Data;                                /* N1 */
        return 1;
    case PERF_COUNTER_COUNTER:
    case PERF_COUNTER_BULK_COUNT:
        if (dt <= 0 || f <= 0)
            return 0;
        *pValue = dx / (dt / f);                                   /* (N1 - N0) / ((D1 - D0) / F) */
        return 1;
    case PERF_COUNTER_DELTA:
    case PERF_COUNTER_LARGE_DELTA:
        *pValue = dx;                                              /* N1 - N0 */
        return 1;
    case PERF_COUNTER_TIMER:
    case PERF_100NSEC_TIMER:
    case PERF_PRECISION_SYSTEM_TIMER:
    case PERF_PRECISION_100NS_TIMER:
    case PERF_PRECISION_OBJECT_TIMER:
    case PERF_OBJ_TIME_TIMER:
        if (dt <= 0)
            return 0;
        *pValue = 100.0 * dx / dt;                                 /* 100 * (N1 - N0) / (D1 - D0) */
        return 1;
    case PERF_COUNTER_TIMER_INV:
    case PERF_100NSEC_TIMER_INV:
        if (dt <= 0)
            return 0;
        *pValue = 100.0 * (1.0 - dx / dt);                         /* 100 * (1 - (N1 - N0) / (D1 - D0)) */
        return 1;
    case PERF_RAW_FRACTION:
    case PERF_LARGE_RAW_FRACTION:
        if (p1->Time == 0)
            return 0;
        *pValue = 100.0 * (double)p1->Data / (double)p1->Time;     /* 100 * N1 / D1 */
        return 1;
    case PERF_SAMPLE_FRACTION:
        if (dt <= 0)
            return 0;
        *pValue = 100.0 * dx / dt;                                 /* 100 * (N1 - N0) / (B1 - B0) */
        return 1;
    case PERF_AVERAGE_BULK:
        if (dt <= 0)
            return 0;
        *pValue = dx / dt;                                         /* (N1 - N0) / (B1 - B0) */
        return 1;
    case PERF_ELAPSED_TIME:
        if (f <= 0)
            return 0;
        *pValue = ((double)p1->Time - (double)p1->Data) / f;       /* (D0 - N0) / F */
        return 1;
    default:
        fprintf(stderr, "counter type 0x%08lx is not handled\n", (unsigned long)p1->CounterType);
        return 0;
    }
}

static void Save(LPCSTR pszDir, int n, LPBYTE pData, DWORD dwSize)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/block%d.v1", pszDir, n);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(pData, 1, dwSize, f) != dwSize)
        fprintf(stderr, "cannot write %s\n", path);
    if (f)
        fclose(f);
}

int main(int argc, char **argv)
{
    LPCSTR pszObject = argc > 1 ? argv[1] : "Processor Information";
    LPCSTR pszCounter = argc > 2 ? argv[2] : "% Processor Time";
    LPCSTR pszInstance = argc > 3 ? argv[3] : "_Total";
    long ms = argc > 4 ? atol(argv[4]) : 1000;
    DWORD dwSize = 0, dwSize0 = 0, dwSize1 = 0;
    RAW_DATA raw0, raw1;
    double value;
    char source[16];
    int rc = 1;
    LPSTR pTable = (LPSTR)GetPerformanceData("Counter 009", &dwSize);
    DWORD dwObject = pTable ? GetIndex(pTable, pszObject, 0) : 0;
    DWORD dwCounter = dwObject ? GetIndex(pTable, pszCounter, dwObject) : 0;
    free(pTable);
    if (!dwObject || !dwCounter) {
        fprintf(stderr, "no such object or counter\n");
        return 1;
    }
    snprintf(source, sizeof source, "%lu", (unsigned long)dwObject);
    LPBYTE p0 = GetPerformanceData(source, &dwSize0);
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    LPBYTE p1 = p0 ? GetPerformanceData(source, &dwSize1) : NULL;
    if (p1 && GetCounterValues(p0, dwObject, dwCounter, pszInstance, &raw0) &&
        GetCounterValues(p1, dwObject, dwCounter, pszInstance, &raw1) && CalculateValue(&raw0, &raw1, &value)) {
        printf("%s\\%s(%s) = %.6f\n", pszObject, pszCounter, pszInstance, value);
        rc = 0;
    } else {
        fprintf(stderr, "cannot compute %s\\%s(%s)\n", pszObject, pszCounter, pszInstance);
    }
    if (p1 && argc > 5) {
        Save(argv[5], 0, p0, dwSize0);
        Save(argv[5], 1, p1, dwSize1);
    }
    free(p0);
    free(p1);
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    return rc;
}
