/* perflib's V2 extension PerflibQueryCounterUnits (src/capi/perfunits.c):
 * the units, semantics and metric name of counters of Processor Information
 * (Windows' GUID) and Memory, on this machine and on the fixture tree, and
 * its error paths. */
#include "ctest.h"
#include "perflib_v2.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static WCHAR root[512];
static const GUID PROC = { 0xb4fc721a, 0x0378, 0x476f, { 0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36 } };
static GUID memory_guid;

static int wcmp(const WCHAR *a, const char *b)
{
    while (*b && *a == (WCHAR)(unsigned char)*b)
        a++, b++;
    return *a == 0 && *b == 0;
}

/* Memory's GUID, found by its name. */
static void find_memory(void)
{
    DWORD n = 0;
    PerfEnumerateCounterSet(NULL, NULL, 0, &n);
    GUID *ids = calloc(n, sizeof *ids);
    CHECK(ids && PerfEnumerateCounterSet(NULL, ids, n, &n) == ERROR_SUCCESS);
    for (DWORD k = 0; ids && k < n; k++) {
        WCHAR name[64];
        DWORD sz = 0;
        if (PerfQueryCounterSetRegistrationInfo(NULL, &ids[k], PERF_REG_COUNTERSET_NAME_STRING, 0,
                                                (LPBYTE)name, sizeof name, &sz) == ERROR_SUCCESS &&
            wcmp(name, "Memory"))
            memory_guid = ids[k];
    }
    CHECK(memory_guid.Data1 != 0);
    free(ids);
}

static void test_processor(void)
{
    PERFLIB_COUNTER_UNITS u;
    /* counter 0, % Processor Time: idle time in 100 ns, cumulative, formatted in percent */
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, &PROC, 0, &u), ERROR_SUCCESS);
    CHECK_EQ_U64(u.CounterId, 0);
    CHECK_STR(u.UnitName, "seconds");
    CHECK_NEAR(u.Scale, 1e-7, 1e-20);
    CHECK_EQ_U64(u.Semantics, PERFLIB_SEMANTICS_COUNTER);
    CHECK_STR(u.SemanticsName, "counter");
    CHECK_EQ_U64(u.Declared, 1);
    CHECK_STR(u.FormattedText, "percent");
    CHECK_EQ_U64(u.FormattedPer, PERFLIB_PER_NONE);
    CHECK_STR(u.MetricName, "perflib_processor_information_percent_processor_time_inverse_seconds_total");
    CHECK_STR(u.MetricType, "counter");
    CHECK_NEAR(u.MetricFactor, 1e-7, 1e-20);
    /* counter 17, Processor Frequency: MHz, a gauge */
    CHECK_EQ_U64(PerflibQueryCounterUnits(root, &PROC, 17, &u), ERROR_SUCCESS);
    CHECK_STR(u.UnitName, "hertz");
    CHECK_NEAR(u.Scale, 1e6, 0);
    CHECK_STR(u.SemanticsName, "gauge");
    CHECK_STR(u.FormattedText, "MHz");
    CHECK_STR(u.MetricName, "perflib_processor_information_processor_frequency_hertz");
    CHECK_STR(u.MetricType, "gauge");
    /* counter 3, Interrupts/sec: a rate of counts */
    CHECK_EQ_U64(PerflibQueryCounterUnits(root, &PROC, 3, &u), ERROR_SUCCESS);
    CHECK_STR(u.FormattedText, "/s");
    CHECK_EQ_U64(u.FormattedPer, PERFLIB_PER_SECOND);
    CHECK_STR(u.MetricName, "perflib_processor_information_interrupts_total");
}

static void test_memory(void)
{
    PERFLIB_COUNTER_UNITS u;
    /* counter 1, Available KBytes: bytes x 1024 */
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, &memory_guid, 1, &u), ERROR_SUCCESS);
    CHECK_STR(u.UnitName, "bytes");
    CHECK_NEAR(u.Scale, 1024, 0);
    CHECK_NEAR(u.FormattedScale, 1024, 0);
    CHECK_STR(u.FormattedText, "KiB");
    CHECK_STR(u.MetricName, "perflib_memory_available_kbytes_bytes");
    CHECK_NEAR(u.MetricFactor, 1024, 0);
    /* counter 44, Page-in Bytes/sec */
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, &memory_guid, 44, &u), ERROR_SUCCESS);
    CHECK_STR(u.FormattedText, "bytes/s");
    CHECK_STR(u.MetricName, "perflib_memory_page_in_bytes_total");
}

static void test_errors(void)
{
    PERFLIB_COUNTER_UNITS u;
    const GUID none = { 1, 2, 3, { 4, 5, 6, 7, 8, 9, 10, 11 } };
    static const WCHAR remote[] = { 'h', 'o', 's', 't', 0 };
    memset(&u, 0x5a, sizeof u);
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, NULL, 0, &u), ERROR_INVALID_PARAMETER);
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, &PROC, 0, NULL), ERROR_INVALID_PARAMETER);
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, &none, 0, &u), ERROR_WMI_GUID_NOT_FOUND);
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, &PROC, 999, &u), ERROR_WMI_ITEMID_NOT_FOUND);
    CHECK_EQ_U64(PerflibQueryCounterUnits(NULL, &PROC, 0xFFFFFFFFu, &u), ERROR_WMI_ITEMID_NOT_FOUND);
    CHECK_EQ_U64(PerflibQueryCounterUnits(remote, &PROC, 0, &u), ERROR_BAD_NETPATH);
    /* nothing written on failure */
    CHECK_EQ_U64(u.CounterId, 0x5a5a5a5au);
}

int main(void)
{
    char cwd[400];
    const char *p = cwd;
    WCHAR *w = root;
    if (!getcwd(cwd, sizeof cwd - 32))
        return 1;
    strcat(cwd, "/spec/fixtures/basic");      /* the fixture tree, absolute, as UTF-16 */
    while ((*w++ = (WCHAR)(unsigned char)*p++) != 0)
        ;
    find_memory();
    RUN(test_processor);
    RUN(test_memory);
    RUN(test_errors);
    return CT_END();
}
