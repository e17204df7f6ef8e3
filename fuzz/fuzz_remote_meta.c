/* libFuzzer target: a remote machine's metadata (the JSON of a daemon's
 * /api/v1/countersets, src/providers/remote.c).  Any input is read as
 * pl_remote_get reads an answer; it must be refused with EPROTO and a
 * sentence, or taken whole, never crash, leak or read past the input.  An
 * input taken once must be taken again with the same number of sets. */
#include "remote.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[256];
    uint32_t n1 = 0, n2 = 0;
    uint8_t *copy = malloc(size ? size : 1);       /* exactly the input: ASan sees any read past it */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    msg[0] = '\0';
    int e = pl_remote_check_metadata(copy, size, &n1, msg, sizeof msg);
    if (e != 0 && e != EPROTO && e != ENOMEM) {
        fprintf(stderr, "fuzz_remote_meta: unexpected error %d\n", e);
        abort();
    }
    if (e == EPROTO && !msg[0]) {
        fprintf(stderr, "fuzz_remote_meta: refused without a sentence\n");
        abort();
    }
    if (e == 0 && (pl_remote_check_metadata(copy, size, &n2, msg, sizeof msg) != 0 || n1 != n2)) {
        fprintf(stderr, "fuzz_remote_meta: taken once, not again alike\n");
        abort();
    }
    free(copy);
    return 0;
}
