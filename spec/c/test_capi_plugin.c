/* Seed 002's Transfer/Peer plug-in (examples/plugins) through the C APIs of
 * libperflib, as a Windows consumer would reach it: the V2 API enumerates
 * its countersets and collects Bytes Sent and Available Bandwidth (the seed's
 * 5, and 20 of 50); the V1 registry API names it in "Counter 009".  The
 * library loads $PERFLIB_PLUGIN_DIR on its first call. */
#include "ctest.h"
#include "perflib_v1.h"
#include "perflib_v2.h"
#include "capi_read.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The GUID of the counterset called name (ASCII), or 0. */
static int find_set(const char *name, GUID *out)
{
    GUID ids[256];
    DWORD n = 0;
    if (PerfEnumerateCounterSet(NULL, ids, 256, &n) != ERROR_SUCCESS)
        return 0;
    for (DWORD i = 0; i < n; i++) {
        uint8_t buf[512];
        DWORD got = 0;
        if (PerfQueryCounterSetRegistrationInfo(NULL, &ids[i], PERF_REG_COUNTERSET_NAME_STRING, 0, buf,
                                                sizeof buf, &got) != ERROR_SUCCESS)
            continue;
        size_t k = 0;
        while (name[k] && 2 * k + 1 < got && buf[2 * k] == (uint8_t)name[k] && buf[2 * k + 1] == 0)
            k++;
        if (!name[k] && buf[2 * k] == 0 && buf[2 * k + 1] == 0) {
            *out = ids[i];
            return 1;
        }
    }
    return 0;
}

static void test_v2_api_reads_the_plugin(void)
{
    GUID transfer, peer;
    int ok;
    CHECK(find_set("Transfer", &transfer));
    CHECK(find_set("Peer", &peer));
    CHECK_EQ_U64(capi_single_value(&transfer, 0, &ok), 5);        /* Bytes Sent */
    CHECK(ok);
    CHECK_EQ_U64(capi_single_value(&transfer, 1, &ok), 20);       /* Available Bandwidth */
    CHECK(ok);
    CHECK_EQ_U64(capi_single_value(&transfer, 2, &ok), 50);       /* its base, Total Bandwidth */
    CHECK(ok);
}

static void test_v1_names_table(void)
{
    DWORD size = 0, type = 0;
    CHECK(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, &type, NULL, &size) == ERROR_SUCCESS);
    char *buf = malloc(size);
    CHECK(buf && RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, &type, (LPBYTE)buf, &size) ==
                     ERROR_SUCCESS);
    int transfer = 0, sent = 0, peer = 0;
    for (char *p = buf; buf && p < buf + size && *p; p += strlen(p) + 1) {
        const char *text = p + strlen(p) + 1;
        transfer |= strcmp(text, "Transfer") == 0;
        sent |= strcmp(text, "Bytes Sent") == 0;
        peer |= strcmp(text, "Peer") == 0;
        p += strlen(p) + 1;
    }
    CHECK(transfer && sent && peer);
    free(buf);
    RegCloseKey(HKEY_PERFORMANCE_DATA);
}

int main(void)
{
    setenv("PERFLIB_PLUGIN_DIR", "examples/plugins", 1);
    RUN(test_v2_api_reads_the_plugin);
    RUN(test_v1_names_table);
    return CT_END();
}
