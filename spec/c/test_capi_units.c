/* perflib's V2 extension PerflibQueryCounterUnits (src/capi/perfunits.c):
 * the units, semantics and metric name of counters of Processor Information
 * (Windows' GUID) and Memory, on this machine and on the fixture tree, and
 * its error paths; and the V1 side: PerflibQueryCounterUnitsByIndex and the
 * registry value "Units". */
#include "ctest.h"
#include "perflib_v1.h"
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

/* Processor Information has title index 1000 (test_capi_v1.c); counter id
 * k's name index is 1000 + 2 + 2k (the registry's rule). */
static void test_v1_by_index(void)
{
    PERFLIB_COUNTER_UNITS u;
    /* 1002 = 1000 + 2 + 2 x 0: % Processor Time, as V2's counter 0 */
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(NULL, 1002, &u), ERROR_SUCCESS);
    CHECK_EQ_U64(u.CounterId, 0);
    CHECK_STR(u.UnitName, "seconds");
    CHECK_NEAR(u.Scale, 1e-7, 1e-20);
    CHECK_STR(u.SemanticsName, "counter");
    CHECK_STR(u.MetricName, "perflib_processor_information_percent_processor_time_inverse_seconds_total");
    /* 1036 = 1000 + 2 + 2 x 17: Processor Frequency, MHz, on the fixture tree */
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(root, 1036, &u), ERROR_SUCCESS);
    CHECK_EQ_U64(u.CounterId, 17);
    CHECK_STR(u.UnitName, "hertz");
    CHECK_NEAR(u.Scale, 1e6, 0);
    CHECK_STR(u.FormattedText, "MHz");
    /* the counterset's own index, a help index (odd), nobody's: no counter */
    memset(&u, 0x5a, sizeof u);
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(NULL, 1000, &u), ERROR_FILE_NOT_FOUND);
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(NULL, 1003, &u), ERROR_FILE_NOT_FOUND);
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(NULL, 0, &u), ERROR_FILE_NOT_FOUND);
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(NULL, 0xFFFFFFFEu, &u), ERROR_FILE_NOT_FOUND);
    CHECK_EQ_U64(u.CounterId, 0x5a5a5a5au);
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(NULL, 1002, NULL), ERROR_INVALID_PARAMETER);
    /* a machine that cannot be reached fails as V2's call does, writing nothing */
    static const WCHAR remote[] = { 'h', 'o', 's', 't', 0 };
    CHECK_EQ_U64(PerflibQueryCounterUnitsByIndex(remote, 1002, &u), ERROR_BAD_NETPATH);
    CHECK_EQ_U64(u.CounterId, 0x5a5a5a5au);
}

/* The entry of index in a UTF-8 REG_MULTI_SZ "index\0text\0...\0\0", or NULL. */
static const char *entry(const char *t, const char *end, const char *index)
{
    while (t < end && *t) {
        const char *text = t + strlen(t) + 1;
        if (text >= end)
            return NULL;
        if (strcmp(t, index) == 0)
            return text;
        t = text + strlen(text) + 1;
    }
    return NULL;
}

static void test_v1_units_table(void)
{
    DWORD size = 0, type = 0;
    CHECK_EQ_U64(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Units 009", NULL, &type, NULL, &size), ERROR_SUCCESS);
    CHECK_EQ_U64(type, REG_MULTI_SZ);
    char *t = malloc(size);
    CHECK(t != NULL);
    if (!t)
        return;
    DWORD got = size;
    CHECK_EQ_U64(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "units", NULL, NULL, (LPBYTE)t, &got), ERROR_SUCCESS);
    CHECK_EQ_U64(got, size);
    CHECK(t[size - 1] == 0 && t[size - 2] == 0);
    /* the first entry is the first counter's: sets' own indexes are not in it */
    CHECK_STR(t, "1002");
    CHECK_STR(entry(t, t + size, "1002"),
              "unit=seconds scale=1e-07 semantics=counter formatted=percent type=counter factor=1e-07 "
              "metric=perflib_processor_information_percent_processor_time_inverse_seconds_total");
    CHECK_STR(entry(t, t + size, "1036"),
              "unit=hertz scale=1000000 semantics=gauge formatted=MHz type=gauge factor=1000000 "
              "metric=perflib_processor_information_processor_frequency_hertz");
    /* Interrupts/sec (id 3 -> 1008): a count, formatted per second */
    CHECK_STR(entry(t, t + size, "1008"),
              "unit=count scale=1 semantics=counter formatted=/s type=counter factor=1 "
              "metric=perflib_processor_information_interrupts_total");
    CHECK(entry(t, t + size, "1000") == NULL && entry(t, t + size, "1003") == NULL);
    /* the text keys answer it too, in UTF-16: twice the bytes of the ASCII table */
    DWORD wsize = 0;
    CHECK_EQ_U64(RegQueryValueExW(HKEY_PERFORMANCE_TEXT, u"Units", NULL, &type, NULL, &wsize), ERROR_SUCCESS);
    CHECK_EQ_U64(wsize, 2 * (uint64_t)size);
    got = 8;
    CHECK_EQ_U64(RegQueryValueExA(HKEY_PERFORMANCE_NLSTEXT, "UNITS", NULL, NULL, (LPBYTE)t, &got), ERROR_MORE_DATA);
    CHECK_EQ_U64(got, size);
    CHECK_EQ_U64(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Unitsx", NULL, NULL, NULL, &got), ERROR_FILE_NOT_FOUND);
    CHECK_EQ_U64(RegQueryValueExA(HKEY_PERFORMANCE_TEXT, "Units 009", NULL, NULL, NULL, &got),
                 ERROR_FILE_NOT_FOUND);
    free(t);
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
    RUN(test_v1_by_index);
    RUN(test_v1_units_table);
    return CT_END();
}
