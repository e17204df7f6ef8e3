/* Seed 002's V1 provider for Linux: the Transfer object (single instance:
 * Bytes Sent, and Available Bandwidth as a fraction of Total Bandwidth) and
 * the Peer object (two instances, Bytes Served), with the data hard coded
 * as in the seed.  A perflib plug-in: a shared object exporting Open,
 * Collect and Close with the seed's signatures, registered by
 * transferpeer.plugin (the Performance key and lodctr's .ini in one file).
 *
 * Where Windows reads "First Counter" and "First Help" from the registry,
 * a plug-in reads PERFLIB_FIRST_COUNTER and PERFLIB_FIRST_HELP from its
 * environment (perflib's plug-in host sets them before Open).  Unlike the
 * seed's IsQuerySupported, which looks for the index digits anywhere in
 * the query (so "1008" would also match an object numbered 100), the query
 * is split into whole numbers.
 *
 * Build: cc -shared -fPIC -I<perflib include dir> -o libtransferpeer.so transferpeer.c */
#include <perflib_v1.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* the offsets of CounterOffsets.h, from First Counter / First Help */
#define TRANSFER_OBJECT 0
#define BYTES_SENT 2
#define AVAILABLE_BANDWIDTH 4
#define TOTAL_BANDWIDTH 6
#define PEER_OBJECT 8
#define BYTES_SERVED 10

#define MAX_INSTANCE_NAME_LEN 15              /* 16 WCHARs: the definition stays 8-aligned */
#define INSTANCE_NAME_1 u"Peer1"
#define INSTANCE_NAME_2 u"Peer2"

#define QUERIED_TRANSFER_OBJECT 0x1u
#define QUERIED_PEER_OBJECT 0x2u
#define QUERIED_ALL_OBJECTS (QUERIED_TRANSFER_OBJECT | QUERIED_PEER_OBJECT)

typedef struct _TRANSFER {
    PERF_OBJECT_TYPE Object;
    PERF_COUNTER_DEFINITION BytesSent;
    PERF_COUNTER_DEFINITION AvailableBandwidth;
    PERF_COUNTER_DEFINITION TotalBandwidth;
    PERF_COUNTER_BLOCK CounterBlock;
    DWORD BytesSentData;
    DWORD AvailableBandwidthData;
    DWORD TotalBandwidthData;
} TRANSFER;

typedef struct _PEER {
    PERF_OBJECT_TYPE Object;
    PERF_COUNTER_DEFINITION BytesServed;
} PEER;

typedef struct _PEER_INSTANCE {
    PERF_INSTANCE_DEFINITION Instance;
    WCHAR InstanceName[MAX_INSTANCE_NAME_LEN + 1];
    PERF_COUNTER_BLOCK CounterBlock;
    DWORD BytesServedData;
} PEER_INSTANCE;

/* winperf.h's alignment rule, checked where the compiler can */
_Static_assert(sizeof(TRANSFER) % 8 == 0, "TRANSFER must be 8-aligned");
_Static_assert(sizeof(PEER) % 8 == 0, "PEER must be 8-aligned");
_Static_assert(sizeof(PEER_INSTANCE) % 8 == 0, "PEER_INSTANCE must be 8-aligned");

static TRANSFER g_Transfer;
static PEER g_Peer;
static DWORD g_TransferIndex, g_PeerIndex;
static DWORD g_OpenCount;

#define EXPORT __attribute__((visibility("default")))

EXPORT DWORD APIENTRY OpenPerfData(LPWSTR pContext);
EXPORT DWORD APIENTRY CollectPerfData(LPWSTR pQuery, LPVOID *ppData, LPDWORD pcbData, LPDWORD pObjectsReturned);
EXPORT DWORD APIENTRY ClosePerfData(void);

static DWORD env_index(const char *name)
{
    const char *v = getenv(name);
    return v ? (DWORD)strtoul(v, NULL, 10) : 0;
}

static void define_counter(PERF_COUNTER_DEFINITION *c, DWORD first, DWORD offset, DWORD type,
                           DWORD size, DWORD data_offset)
{
    c->ByteLength = sizeof(PERF_COUNTER_DEFINITION);
    c->CounterNameTitleIndex = first + offset;
    c->CounterHelpTitleIndex = first + offset + 1;
    c->DefaultScale = 0;
    c->DetailLevel = PERF_DETAIL_NOVICE;
    c->CounterType = type;
    c->CounterSize = size;
    c->CounterOffset = data_offset;
}

static void define_object(PERF_OBJECT_TYPE *o, DWORD first, DWORD offset, DWORD total, DWORD defs,
                          DWORD counters, LONG instances)
{
    o->TotalByteLength = total;
    o->DefinitionLength = defs;
    o->HeaderLength = sizeof(PERF_OBJECT_TYPE);
    o->ObjectNameTitleIndex = first + offset;
    o->ObjectHelpTitleIndex = first + offset + 1;
    o->DetailLevel = PERF_DETAIL_NOVICE;
    o->NumCounters = counters;
    o->DefaultCounter = 0;
    o->NumInstances = instances;
    o->CodePage = 0;
}

/* Called once per consumer process: the definitions never change. */
DWORD APIENTRY OpenPerfData(LPWSTR pContext)
{
    DWORD first = env_index("PERFLIB_FIRST_COUNTER");
    (void)pContext;                           /* no Linkage\Export strings used */
    if (g_OpenCount++ > 0)
        return ERROR_SUCCESS;
    if (first == 0) {
        g_OpenCount = 0;                      /* Collect then returns nothing */
        return ERROR_SUCCESS;
    }
    g_TransferIndex = first + TRANSFER_OBJECT;
    g_PeerIndex = first + PEER_OBJECT;

    define_object(&g_Transfer.Object, first, TRANSFER_OBJECT, sizeof(TRANSFER),
                  offsetof(TRANSFER, CounterBlock), 3, PERF_NO_INSTANCES);
    define_counter(&g_Transfer.BytesSent, first, BYTES_SENT, PERF_COUNTER_RAWCOUNT, sizeof(DWORD),
                   offsetof(TRANSFER, BytesSentData) - offsetof(TRANSFER, CounterBlock));
    define_counter(&g_Transfer.AvailableBandwidth, first, AVAILABLE_BANDWIDTH, PERF_RAW_FRACTION,
                   sizeof(DWORD), offsetof(TRANSFER, AvailableBandwidthData) - offsetof(TRANSFER, CounterBlock));
    define_counter(&g_Transfer.TotalBandwidth, first, TOTAL_BANDWIDTH, PERF_RAW_BASE, sizeof(DWORD),
                   offsetof(TRANSFER, TotalBandwidthData) - offsetof(TRANSFER, CounterBlock));
    g_Transfer.CounterBlock.ByteLength = sizeof(TRANSFER) - offsetof(TRANSFER, CounterBlock);

    define_object(&g_Peer.Object, first, PEER_OBJECT, sizeof(PEER), sizeof(PEER), 1, 0);
    define_counter(&g_Peer.BytesServed, first, BYTES_SERVED, PERF_COUNTER_RAWCOUNT, sizeof(DWORD),
                   offsetof(PEER_INSTANCE, BytesServedData) - offsetof(PEER_INSTANCE, CounterBlock));
    return ERROR_SUCCESS;
}

/* One whole decimal number of the query, lower-cased words compared whole. */
static int has_index(const WCHAR *q, DWORD index)
{
    while (*q) {
        DWORD v = 0;
        int digits = 0;
        while (*q == u' ')
            q++;
        while (*q >= u'0' && *q <= u'9') {
            v = v * 10 + (DWORD)(*q++ - u'0');
            digits++;
        }
        if (digits && (*q == u' ' || *q == 0) && v == index)
            return 1;
        while (*q && *q != u' ')
            q++;
    }
    return 0;
}

static int word_is(const WCHAR *q, const char *word)
{
    for (; *q && *word; q++, word++) {
        WCHAR c = (*q >= u'A' && *q <= u'Z') ? (WCHAR)(*q + 32) : *q;
        if (c != (WCHAR)*word)
            return 0;
    }
    return !*q && !*word;
}

/* Which objects, and whether only their metadata is wanted. */
static DWORD queried_objects(const WCHAR *q, int *metadata)
{
    *metadata = 0;
    if (word_is(q, "global"))
        return QUERIED_ALL_OBJECTS;
    if (word_is(q, "metadataglobal")) {
        *metadata = 1;
        return QUERIED_ALL_OBJECTS;
    }
    if (word_is(q, "costly") || word_is(q, "metadatacostly") || word_is(q, "foreign"))
        return 0;                             /* nothing costly, nothing remote */
    return (has_index(q, g_TransferIndex) ? QUERIED_TRANSFER_OBJECT : 0) |
           (has_index(q, g_PeerIndex) ? QUERIED_PEER_OBJECT : 0);
}

static DWORD query_size(DWORD objects, int metadata)
{
    DWORD size = 0;
    if (objects & QUERIED_TRANSFER_OBJECT)
        size += metadata ? g_Transfer.Object.DefinitionLength : sizeof(TRANSFER);
    if (objects & QUERIED_PEER_OBJECT)
        size += sizeof(PEER) + (metadata ? 0 : 2 * sizeof(PEER_INSTANCE));
    return size;
}

static BYTE *put_peer(BYTE *p, const char16_t *name, size_t name_bytes, DWORD served)
{
    PEER_INSTANCE inst;
    memset(&inst, 0, sizeof inst);
    inst.Instance.ByteLength = sizeof(PERF_INSTANCE_DEFINITION) + sizeof(inst.InstanceName);
    inst.Instance.UniqueID = PERF_NO_UNIQUE_ID;
    inst.Instance.NameOffset = sizeof(PERF_INSTANCE_DEFINITION);
    inst.Instance.NameLength = (DWORD)name_bytes;
    memcpy(inst.InstanceName, name, name_bytes);
    inst.CounterBlock.ByteLength = sizeof(PERF_COUNTER_BLOCK) + sizeof(DWORD);
    inst.BytesServedData = served;
    memcpy(p, &inst, sizeof inst);
    return p + sizeof inst;
}

DWORD APIENTRY CollectPerfData(LPWSTR pQuery, LPVOID *ppData, LPDWORD pcbData, LPDWORD pObjectsReturned)
{
    PBYTE pObjects = (PBYTE)*ppData;
    int metadata;
    DWORD objects, size;

    *pObjectsReturned = 0;
    if (g_OpenCount == 0 || !pQuery) {
        *pcbData = 0;
        return ERROR_SUCCESS;
    }
    objects = queried_objects(pQuery, &metadata);
    if (!objects) {
        *pcbData = 0;
        return ERROR_SUCCESS;
    }
    size = query_size(objects, metadata);
    if (size > *pcbData) {
        *pcbData = 0;
        return ERROR_MORE_DATA;
    }
    *pcbData = size;

    if (objects & QUERIED_TRANSFER_OBJECT) {
        /* Add calls to retrieve counter data from the server, driver or
         * application here; the seed hard codes it. */
        g_Transfer.BytesSentData = 5;
        g_Transfer.AvailableBandwidthData = 20;
        g_Transfer.TotalBandwidthData = 50;
        if (metadata) {
            TRANSFER t = g_Transfer;
            t.Object.TotalByteLength = t.Object.DefinitionLength;
            t.Object.NumInstances = PERF_METADATA_NO_INSTANCES;
            memcpy(pObjects, &t, t.Object.DefinitionLength);
            pObjects += t.Object.DefinitionLength;
        } else {
            memcpy(pObjects, &g_Transfer, sizeof(TRANSFER));
            pObjects += sizeof(TRANSFER);
        }
        (*pObjectsReturned)++;
    }
    if (objects & QUERIED_PEER_OBJECT) {
        PEER peer = g_Peer;
        peer.Object.NumInstances = metadata ? PERF_METADATA_MULTIPLE_INSTANCES : 2;
        peer.Object.TotalByteLength = sizeof(PEER) + (metadata ? 0 : 2 * sizeof(PEER_INSTANCE));
        memcpy(pObjects, &peer, sizeof(PEER));
        pObjects += sizeof(PEER);
        if (!metadata) {
            pObjects = put_peer(pObjects, INSTANCE_NAME_1, sizeof(INSTANCE_NAME_1), 15);
            pObjects = put_peer(pObjects, INSTANCE_NAME_2, sizeof(INSTANCE_NAME_2), 30);
        }
        (*pObjectsReturned)++;
    }
    *ppData = pObjects;
    return ERROR_SUCCESS;
}

DWORD APIENTRY ClosePerfData(void)
{
    if (g_OpenCount > 0)
        g_OpenCount--;
    return ERROR_SUCCESS;
}
