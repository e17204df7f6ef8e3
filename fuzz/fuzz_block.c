/* libFuzzer target: the data block reader (pl_db_validate, pl_db_read) on
 * untrusted bytes.  A block that passes must also come back out: what
 * pl_db_read builds is written again and validated, so the reader never
 * accepts what it could not stand behind.  And it must format: against a
 * second reading whose clocks and bases are mirrored (INT64_MAX against
 * INT64_MIN, 0 against -1), both ways, by the bulk path and value by
 * value, which must agree (UBSan: no overflow whatever the block says). */
#include "fuzz_common.h"
#include "pl_datablock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same sample with every clock and base bit-inverted and the values as
 * they are: no delta is negative, so every interval is computed. */
static void mirror(pl_sample *s)
{
    s->perf_time = ~s->perf_time;
    s->perf_freq = s->perf_freq == 10000000 ? s->perf_freq : ~s->perf_freq;
    for (uint32_t k = 0; k < s->nblocks; k++) {
        pl_block *b = &s->blocks[k];
        size_t n = (size_t)b->ninst * b->ncounters;
        b->time = ~b->time;
        b->obj_time = ~b->obj_time;
        for (size_t v = 0; v < n; v++)
            s->vals[b->vals_off + v].b = ~s->vals[b->vals_off + v].b;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_env *env = fz_env();
    uint8_t *buf = env ? fz_copy(data, size) : NULL;
    if (!buf)
        return 0;
    pl_db_error err;
    int valid = pl_db_validate(buf, size, &err) == 0;
    if (!valid && (err.offset > size || !err.rule))
        abort();                          /* an error must point inside the buffer and say why */
    pl_sample *s = NULL;
    if (pl_db_read(env, buf, size, NULL, NULL, &s, &err) == 0) {
        if (!valid)
            abort();                      /* read accepted what validate refused */
        size_t n = pl_db_size(s, 1);
        uint8_t *again = malloc(n);
        if (again) {
            if (pl_db_write(s, 1, again, n) != n || pl_db_validate(again, n, &err) != 0)
                abort();
            free(again);
        }
        pl_sample *m = NULL;
        if (pl_db_read(env, buf, size, NULL, NULL, &m, &err) == 0) {
            mirror(m);
            fz_format_pair(s, m);
            fz_format_pair(m, s);
            fz_format_pair(s, s);
            free(m);
        }
        free(s);
    }
    free(buf);
    return 0;
}
