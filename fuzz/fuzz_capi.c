/* libFuzzer target: the C API on untrusted identifier blocks.  The input is
 * a sequence of PERF_COUNTER_IDENTIFIER blocks with lying sizes, names that
 * do not end and GUIDs that are not there, handed to PerfAddCounters and
 * PerfDeleteCounters of a query on a fixture tree, with the query's info and
 * data read back through the size negotiation in between. */
#include "perflib_v2.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static WCHAR root[512];

static void set_root(void)
{
    /* the fixture tree of the reference VM, absolute (the target runs from the repository) */
    char cwd[400];
    if (!getcwd(cwd, sizeof cwd - 32))
        return;
    strcat(cwd, "/spec/fixtures/basic");
    size_t k = 0;
    for (; cwd[k]; k++)
        root[k] = (WCHAR)(unsigned char)cwd[k];
    root[k] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!root[0])
        set_root();
    HANDLE h;
    if (size > 65536 || PerfOpenQueryHandle(root, &h) != ERROR_SUCCESS)
        return 0;
    /* exactly size bytes, so that a read past them is an overflow the sanitizer reports */
    uint8_t *buf = malloc(size ? size : 1);
    if (buf) {
        memcpy(buf, data, size);
        PerfAddCounters(h, (PPERF_COUNTER_IDENTIFIER)(void *)buf, (DWORD)size);
        DWORD need = 0;
        if (PerfQueryCounterInfo(h, NULL, 0, &need) == ERROR_NOT_ENOUGH_MEMORY) {
            uint8_t *info = malloc(need);
            if (info && PerfQueryCounterInfo(h, (PPERF_COUNTER_IDENTIFIER)(void *)info, need, &need) != ERROR_SUCCESS)
                abort();
            free(info);
        }
        need = 0;
        if (PerfQueryCounterData(h, NULL, 0, &need) == ERROR_NOT_ENOUGH_MEMORY) {
            uint8_t *block = malloc(need + 4096);   /* room for instances that come meanwhile */
            if (block)
                PerfQueryCounterData(h, (PPERF_DATA_HEADER)(void *)block, need + 4096, &need);
            free(block);
        }
        memcpy(buf, data, size);
        PerfDeleteCounters(h, (PPERF_COUNTER_IDENTIFIER)(void *)buf, (DWORD)size);
        free(buf);
    }
    if (PerfCloseQueryHandle(h) != ERROR_SUCCESS || PerfCloseQueryHandle(h) != ERROR_INVALID_HANDLE)
        abort();
    return 0;
}
