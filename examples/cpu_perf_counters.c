/* CpuPerfCounters: the PerfLib V2 consumer of seed 000 (Microsoft's
 * "Using the PerfLib Functions to Consume Counter Data"), ported from C++ on
 * Windows to C on Linux against perflib's C API.
 *
 * It reads Processor Information through its hard-coded GUID and counter
 * ids, validates every size of the data block as the original does, and
 * prints the % Processor Time of the first instance from two samples:
 * 100 * (1 - delta(ProcessorTime) / delta(PerfTime100NSec)).
 *
 *   build/examples/cpu_perf_counters [samples] [interval_ms]   (default 10, 1000)
 *
 * Build outside the tree: cc cpu_perf_counters.c $(pkg-config --cflags --libs perflib) */
#include <perflib_v2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct CpuPerfTimestamp {
    int64_t PerfTimeStamp;
    int64_t PerfTime100NSec;
    int64_t PerfFreq;
} CpuPerfTimestamp;

/* One instance of Processor Information (the seed's CpuPerfData), by counter id. */
typedef struct CpuPerfData {
    char Name[16];                       /* UTF-8 here: the seed keeps WCHAR Name[16] */
    uint64_t ProcessorTime;              /* #0  PERF_100NSEC_TIMER_INV */
    uint64_t UserTime;                   /* #1  PERF_100NSEC_TIMER */
    uint64_t PrivilegedTime;             /* #2  PERF_100NSEC_TIMER */
    uint32_t Interrupts;                 /* #3  PERF_COUNTER_COUNTER */
    uint64_t DpcTime;                    /* #4  PERF_100NSEC_TIMER */
    uint64_t InterruptTime;              /* #5  PERF_100NSEC_TIMER */
    uint32_t DpcsQueued;                 /* #6  PERF_COUNTER_COUNTER */
    uint32_t Dpcs;                       /* #7  PERF_COUNTER_RAWCOUNT */
    uint64_t IdleTime;                   /* #8  PERF_100NSEC_TIMER */
    uint64_t C1Time, C2Time, C3Time;     /* #9-11 PERF_100NSEC_TIMER */
    uint64_t C1Transitions, C2Transitions, C3Transitions;   /* #12-14 PERF_COUNTER_BULK_COUNT */
    uint64_t PriorityTime;               /* #15 PERF_100NSEC_TIMER_INV */
    uint32_t ParkingStatus;              /* #16 PERF_COUNTER_RAWCOUNT */
    uint32_t ProcessorFrequency;         /* #17 PERF_COUNTER_RAWCOUNT */
    uint32_t PercentMaximumFrequency;    /* #18 PERF_COUNTER_RAWCOUNT */
    uint32_t ProcessorStateFlags;        /* #19 PERF_COUNTER_RAWCOUNT */
    uint32_t ClockInterrupts;            /* #20 PERF_COUNTER_COUNTER */
    uint64_t AverageIdleTime;            /* #21 PERF_PRECISION_100NS_TIMER */
    uint64_t AverageIdleTimeBase;        /* #22 PERF_PRECISION_TIMESTAMP */
    uint64_t IdleBreakEvents;            /* #23 PERF_COUNTER_BULK_COUNT */
    uint64_t ProcessorPerformance;       /* #24 PERF_AVERAGE_BULK */
    uint32_t ProcessorPerformanceBase;   /* #25 PERF_AVERAGE_BASE */
    uint64_t ProcessorUtility;           /* #26 PERF_AVERAGE_BULK */
    uint64_t PrivilegedUtility;          /* #28 PERF_AVERAGE_BULK */
    uint32_t UtilityBase;                /* #27 PERF_AVERAGE_BASE */
    uint32_t PercentPerformanceLimit;    /* #30 PERF_COUNTER_RAWCOUNT */
    uint32_t PerformanceLimitFlags;      /* #31 PERF_COUNTER_RAWCOUNT */
} CpuPerfData;

typedef struct CpuPerfCounters {
    HANDLE hQuery;
    void *pData;
    DWORD cbData;
} CpuPerfCounters;

/* {b4fc721a-0378-476f-89ba-a5a79f810b36}: Processor Information */
static const GUID ProcessorCounterSetGuid = {
    0xb4fc721a, 0x378, 0x476f, { 0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0xb, 0x36 }
};

static void AssignCounterValue32(uint32_t *pVar, const PERF_COUNTER_DATA *pData)
{
    if (pData->dwDataSize == 4 || pData->dwDataSize == 8)
        memcpy(pVar, pData + 1, 4);
}

static void AssignCounterValue64(uint64_t *pVar, const PERF_COUNTER_DATA *pData)
{
    if (pData->dwDataSize == 8) {
        memcpy(pVar, pData + 1, 8);
    } else if (pData->dwDataSize == 4) {
        uint32_t v;
        memcpy(&v, pData + 1, 4);
        *pVar = v;
    }
}

static void CpuPerfCounters_Close(CpuPerfCounters *c)
{
    if (c->hQuery)
        PerfCloseQueryHandle(c->hQuery);
    free(c->pData);
}

static void AssignById(CpuPerfData *d, DWORD id, const PERF_COUNTER_DATA *p)
{
    switch (id) {
    case 0: AssignCounterValue64(&d->ProcessorTime, p); break;
    case 1: AssignCounterValue64(&d->UserTime, p); break;
    case 2: AssignCounterValue64(&d->PrivilegedTime, p); break;
    case 3: AssignCounterValue32(&d->Interrupts, p); break;
    case 4: AssignCounterValue64(&d->DpcTime, p); break;
    case 5: AssignCounterValue64(&d->InterruptTime, p); break;
    case 6: AssignCounterValue32(&d->DpcsQueued, p); break;
    case 7: AssignCounterValue32(&d->Dpcs, p); break;
    case 8: AssignCounterValue64(&d->IdleTime, p); break;
    case 9: AssignCounterValue64(&d->C1Time, p); break;
    case 10: AssignCounterValue64(&d->C2Time, p); break;
    case 11: AssignCounterValue64(&d->C3Time, p); break;
    case 12: AssignCounterValue64(&d->C1Transitions, p); break;
    case 13: AssignCounterValue64(&d->C2Transitions, p); break;
    case 14: AssignCounterValue64(&d->C3Transitions, p); break;
    case 15: AssignCounterValue64(&d->PriorityTime, p); break;
    case 16: AssignCounterValue32(&d->ParkingStatus, p); break;
    case 17: AssignCounterValue32(&d->ProcessorFrequency, p); break;
    case 18: AssignCounterValue32(&d->PercentMaximumFrequency, p); break;
    case 19: AssignCounterValue32(&d->ProcessorStateFlags, p); break;
    case 20: AssignCounterValue32(&d->ClockInterrupts, p); break;
    case 21: AssignCounterValue64(&d->AverageIdleTime, p); break;
    case 22: AssignCounterValue64(&d->AverageIdleTimeBase, p); break;
    case 23: AssignCounterValue64(&d->IdleBreakEvents, p); break;
    case 24: AssignCounterValue64(&d->ProcessorPerformance, p); break;
    case 25: AssignCounterValue32(&d->ProcessorPerformanceBase, p); break;
    case 26: AssignCounterValue64(&d->ProcessorUtility, p); break;
    case 28: AssignCounterValue64(&d->PrivilegedUtility, p); break;
    case 27: AssignCounterValue32(&d->UtilityBase, p); break;
    case 30: AssignCounterValue32(&d->PercentPerformanceLimit, p); break;
    case 31: AssignCounterValue32(&d->PerformanceLimitFlags, p); break;
    default: break;                      /* perflib's Linux extras (ids 32 and up) */
    }
}

/* Reads CPU performance counter data: ERROR_SUCCESS, ERROR_MORE_DATA when
 * bufferCount is too small, or another Win32 error code. */
static ULONG CpuPerfCounters_ReadData(CpuPerfCounters *c, CpuPerfTimestamp *timestamp, CpuPerfData *buffer,
                                      unsigned bufferCount, unsigned *bufferUsed)
{
    ULONG status;
    DWORD cbData;
    PERF_DATA_HEADER *pDataHeader;
    const PERF_COUNTER_HEADER *pCounterHeader;
    const PERF_MULTI_COUNTERS *pMultiCounters;
    const PERF_MULTI_INSTANCES *pMultiInstances;
    const PERF_INSTANCE_HEADER *pInstanceHeader;
    unsigned cInstances = 0;

    if (c->hQuery == NULL) {
        HANDLE hQuery = 0;
        status = PerfOpenQueryHandle(NULL, &hQuery);
        if (status != ERROR_SUCCESS)
            goto Done;
        struct {
            PERF_COUNTER_IDENTIFIER Identifier;
            WCHAR Name[4];
        } querySpec = {
            { ProcessorCounterSetGuid, 0, sizeof querySpec, PERF_WILDCARD_COUNTER, 0xFFFFFFFF, 0, 0 },
            u"*"                         /* get data for all instance names */
        };
        status = PerfAddCounters(hQuery, &querySpec.Identifier, sizeof querySpec);
        if (status == ERROR_SUCCESS)
            status = querySpec.Identifier.Status;
        if (status != ERROR_SUCCESS) {
            PerfCloseQueryHandle(hQuery);
            goto Done;
        }
        c->hQuery = hQuery;
    }

    for (;;) {
        cbData = 0;
        pDataHeader = c->pData;
        status = PerfQueryCounterData(c->hQuery, pDataHeader, c->cbData, &cbData);
        if (status == ERROR_SUCCESS)
            break;
        if (status != ERROR_NOT_ENOUGH_MEMORY)
            goto Done;
        free(c->pData);
        c->cbData = 0;
        c->pData = malloc(cbData);
        if (!c->pData) {
            status = ERROR_OUTOFMEMORY;
            goto Done;
        }
        c->cbData = cbData;
    }

    /* PERF_DATA_HEADER block = PERF_DATA_HEADER + dwNumCounters PERF_COUNTER_HEADER blocks */
    if (cbData < sizeof(PERF_DATA_HEADER) || cbData < pDataHeader->dwTotalSize
        || pDataHeader->dwTotalSize < sizeof(PERF_DATA_HEADER) || pDataHeader->dwNumCounters != 1) {
        status = ERROR_INVALID_DATA;
        goto Done;
    }

    /* PERF_COUNTERSET block = PERF_COUNTER_HEADER + PERF_MULTI_COUNTERS block + PERF_MULTI_INSTANCES block */
    cbData = pDataHeader->dwTotalSize - sizeof(PERF_DATA_HEADER);
    pCounterHeader = (const PERF_COUNTER_HEADER *)(pDataHeader + 1);
    if (cbData < sizeof(PERF_COUNTER_HEADER) || cbData < pCounterHeader->dwSize
        || pCounterHeader->dwSize < sizeof(PERF_COUNTER_HEADER) || pCounterHeader->dwType != PERF_COUNTERSET) {
        status = ERROR_INVALID_DATA;
        goto Done;
    }

    /* PERF_MULTI_COUNTERS block = PERF_MULTI_COUNTERS + dwCounters DWORDs */
    cbData = pCounterHeader->dwSize - sizeof(PERF_COUNTER_HEADER);
    pMultiCounters = (const PERF_MULTI_COUNTERS *)(pCounterHeader + 1);
    if (cbData < sizeof(PERF_MULTI_COUNTERS) || cbData < pMultiCounters->dwSize
        || pMultiCounters->dwSize < sizeof(PERF_MULTI_COUNTERS)
        || (pMultiCounters->dwSize - sizeof(PERF_MULTI_COUNTERS)) / sizeof(DWORD) < pMultiCounters->dwCounters) {
        status = ERROR_INVALID_DATA;
        goto Done;
    }

    /* PERF_MULTI_INSTANCES block = PERF_MULTI_INSTANCES + dwInstances instance data blocks */
    cbData -= pMultiCounters->dwSize;
    pMultiInstances = (const PERF_MULTI_INSTANCES *)((const BYTE *)pMultiCounters + pMultiCounters->dwSize);
    if (cbData < sizeof(PERF_MULTI_INSTANCES) || cbData < pMultiInstances->dwTotalSize
        || pMultiInstances->dwTotalSize < sizeof(PERF_MULTI_INSTANCES)) {
        status = ERROR_INVALID_DATA;
        goto Done;
    }

    cInstances = pMultiInstances->dwInstances;
    if (bufferCount < cInstances) {
        status = ERROR_MORE_DATA;
        goto Done;
    }
    memset(buffer, 0, sizeof buffer[0] * cInstances);

    cbData = pMultiInstances->dwTotalSize - sizeof(PERF_MULTI_INSTANCES);
    pInstanceHeader = (const PERF_INSTANCE_HEADER *)(pMultiInstances + 1);
    for (unsigned iInstance = 0; iInstance != pMultiInstances->dwInstances; iInstance += 1) {
        CpuPerfData *d = &buffer[iInstance];

        /* instance data block = PERF_INSTANCE_HEADER block + dwCounters PERF_COUNTER_DATA blocks */
        if (cbData < sizeof(PERF_INSTANCE_HEADER) || cbData < pInstanceHeader->Size
            || pInstanceHeader->Size < sizeof(PERF_INSTANCE_HEADER)) {
            status = ERROR_INVALID_DATA;
            goto Done;
        }
        unsigned instanceNameMax = (pInstanceHeader->Size - sizeof(PERF_INSTANCE_HEADER)) / sizeof(WCHAR);
        const BYTE *instanceName = (const BYTE *)(pInstanceHeader + 1);
        unsigned n = 0;
        while (n < instanceNameMax && (instanceName[2 * n] | instanceName[2 * n + 1]))
            n++;
        if (n == instanceNameMax) {      /* not terminated inside the block */
            status = ERROR_INVALID_DATA;
            goto Done;
        }
        /* truncate as wcsncpy_s(_TRUNCATE) does; the names are ASCII ("0,0", "_Total") */
        for (unsigned k = 0; k < n && k + 1 < sizeof d->Name; k++)
            d->Name[k] = instanceName[2 * k + 1] ? '?' : (char)instanceName[2 * k];

        cbData -= pInstanceHeader->Size;
        const PERF_COUNTER_DATA *pCounterData =
            (const PERF_COUNTER_DATA *)((const BYTE *)pInstanceHeader + pInstanceHeader->Size);
        for (unsigned iCounter = 0; iCounter != pMultiCounters->dwCounters; iCounter += 1) {
            if (cbData < sizeof(PERF_COUNTER_DATA) || cbData < pCounterData->dwSize
                || pCounterData->dwSize < sizeof(PERF_COUNTER_DATA) + 8
                || pCounterData->dwSize - sizeof(PERF_COUNTER_DATA) < pCounterData->dwDataSize) {
                status = ERROR_INVALID_DATA;
                goto Done;
            }
            const DWORD *pCounterIds = (const DWORD *)(pMultiCounters + 1);
            AssignById(d, pCounterIds[iCounter], pCounterData);
            cbData -= pCounterData->dwSize;
            pCounterData = (const PERF_COUNTER_DATA *)((const BYTE *)pCounterData + pCounterData->dwSize);
        }
        pInstanceHeader = (const PERF_INSTANCE_HEADER *)pCounterData;
    }

    if (timestamp) {
        timestamp->PerfTimeStamp = pDataHeader->PerfTimeStamp;
        timestamp->PerfTime100NSec = pDataHeader->PerfTime100NSec;
        timestamp->PerfFreq = pDataHeader->PerfFreq;
    }
    status = ERROR_SUCCESS;

Done:
    *bufferUsed = cInstances;
    return status;
}

static void Sleep(unsigned ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    unsigned samples = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
    unsigned interval = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
    enum { dataMax = 64 };               /* up to 64 instances (the seed supports 30) */
    static CpuPerfData data[dataMax * 2];
    CpuPerfCounters cpc = { 0 };
    CpuPerfTimestamp timestamp[2];
    CpuPerfTimestamp *t0 = timestamp + 0, *t1 = timestamp + 1, *tt;
    CpuPerfData *d0 = data + 0, *d1 = data + dataMax, *dt;
    unsigned used;
    ULONG status;

    status = CpuPerfCounters_ReadData(&cpc, t0, d0, dataMax, &used);
    printf("ReadData0 used=%u, status=%u\n", used, (unsigned)status);

    for (unsigned iSample = 1; iSample < samples; iSample += 1) {
        Sleep(interval);
        status = CpuPerfCounters_ReadData(&cpc, t1, d1, dataMax, &used);
        printf("ReadData%u used=%u, status=%u\n", iSample, used, (unsigned)status);
        if (status == ERROR_SUCCESS && used != 0) {
            /* the ProcessorTime value of instance #0 */
            CpuPerfData *s0 = &d0[0], *s1 = &d1[0];
            printf("  %s/%s = %f\n", s0->Name, s1->Name,
                   100.0 * (1.0 - (double)(s1->ProcessorTime - s0->ProcessorTime)
                                  / (double)(t1->PerfTime100NSec - t0->PerfTime100NSec)));
            tt = t0, t0 = t1, t1 = tt;   /* swap "current" and "previous" */
            dt = d0, d0 = d1, d1 = dt;
        }
    }
    CpuPerfCounters_Close(&cpc);
    return (int)status;
}
