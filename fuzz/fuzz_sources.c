/* libFuzzer target: the pure parsers of the kernel sources (src/sources/),
 * called on bytes, with no file in between.
 *
 *   byte 0   selects a source of pl_ksrc_all (modulo their number);
 *   byte 1   where the input splits: the parser first sees bytes 2.. up to
 *            the split, then all of them, into the same struct, so that a
 *            parse that forgets to reset what the earlier one filled, or
 *            keeps a stale pointer into grown arrays, shows;
 *   bytes 2.. the file's content.
 *
 * The bytes are given as pl_file_read gives a file: a '\n' added when the
 * last line lacks one, then a '\0' (neither counted in len beyond the
 * newline).  fuzz_proc keeps covering the providers over real files. */
#include "sources.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count_sources(void)
{
    size_t n = 0;
    while (pl_ksrc_all[n])
        n++;
    return n;
}

/* One parse of len bytes of text, as a kernel read would deliver them. */
static void parse_as_file(const pl_ksrc_def *d, const uint8_t *text, size_t len, void *out)
{
    char *buf = malloc(len + 2);
    size_t n = len;
    if (!buf)
        return;
    memcpy(buf, text, len);
    if (n > 0 && buf[n - 1] != '\n')
        buf[n++] = '\n';
    buf[n] = '\0';
    (void)d->parse(buf, n, out);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static size_t nsrc;
    const pl_ksrc_def *d;
    void *out;
    size_t split;
    if (!nsrc)
        nsrc = count_sources();
    if (size < 2 || !nsrc)
        return 0;
    d = pl_ksrc_all[data[0] % nsrc];
    split = size - 2 ? data[1] % (size - 2 + 1) : 0;
    out = calloc(1, d->size ? d->size : 1);
    if (!out)
        return 0;
    parse_as_file(d, data + 2, split, out);
    parse_as_file(d, data + 2, size - 2, out);
    if (d->release)
        d->release(out);
    free(out);
    return 0;
}
