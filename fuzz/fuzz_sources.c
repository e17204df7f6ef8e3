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
 * newline).  fuzz_proc keeps covering the providers over real files.
 *
 * Speed: a run costs about its input's length (every byte goes through the
 * instrumented parsers twice), and libFuzzer mutates inputs up to the
 * largest seed's size, so the seeds are small: the lines each parser keys
 * on, a few it skips, one table per seed (seed-0/0b snmp, 2/2b/2c snmp6,
 * 3/3b meminfo); the same edges as whole kernel files, at a quarter of
 * the bytes.  Nothing is allocated per run but the two texts, each at its
 * exact size so that ASan sees a read past its end. */
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

/* Each source's struct, allocated once at its exact size (ASan still sees
 * a write past its end) and zeroed per input, as pl_ksrc_attach zeroes it
 * once: no allocation of its own per run. */
#define MAX_SOURCES 128
static void *outs[MAX_SOURCES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static size_t nsrc;
    const pl_ksrc_def *d;
    size_t split, k;
    if (!nsrc)
        nsrc = count_sources();
    if (size < 2 || !nsrc)
        return 0;
    k = data[0] % nsrc;
    d = pl_ksrc_all[k];
    split = size - 2 ? data[1] % (size - 2 + 1) : 0;
    if (k >= MAX_SOURCES)
        abort();             /* more sources than outs[]: raise MAX_SOURCES, do not skip them */
    if (!outs[k] && !(outs[k] = malloc(d->size ? d->size : 1)))
        return 0;
    memset(outs[k], 0, d->size ? d->size : 1);
    parse_as_file(d, data + 2, split, outs[k]);
    parse_as_file(d, data + 2, size - 2, outs[k]);
    if (d->release)
        d->release(outs[k]);
    return 0;
}
