/* libFuzzer target: the data block reader (pl_db_validate, pl_db_read) on
 * untrusted bytes.  A block that passes must also come back out: what
 * pl_db_read builds is written again and validated, so the reader never
 * accepts what it could not stand behind.  And it must format: against a
 * second reading whose clocks and bases are mirrored (INT64_MAX against
 * INT64_MIN, 0 against -1), both ways, by the bulk path and value by
 * value, which must agree (UBSan: no overflow whatever the block says). */
#include "perflib.h"
#include "providers.h"
#include "pl_datablock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pl_env *env;

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

/* Every value of s1 against s0: the bulk path and the one-value path agree. */
static void format_pair(const pl_sample *s1, const pl_sample *s0)
{
    for (uint32_t k = 0; k < s1->nblocks; k++) {
        const pl_block *b = &s1->blocks[k];
        size_t n = (size_t)b->ninst * b->ncounters;
        double *out = malloc((n ? n : 1) * sizeof *out);
        uint8_t *st = malloc(n ? n : 1);
        if (out && st) {
            pl_sample_format_block(s1, b, s0, NULL, out, st);
            for (uint32_t i = 0, q = 0; i < b->ninst; i++)
                for (uint32_t c = 0; c < b->ncounters; c++, q++) {
                    double v;
                    pl_status one = pl_sample_format(s1, b, i, c, s0, NULL, &v);
                    if (one != st[q] || (one == PL_VALID && !(v == out[q] || (v != v && out[q] != out[q]))))
                        abort();
                }
        }
        free(out);
        free(st);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!env && (pl_register_builtin(NULL, 0) != 0 || !(env = pl_env_new(NULL))))
        return 0;
    /* a copy of exactly size bytes: reading one byte past it is a reported overflow */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
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
            format_pair(s, m);
            format_pair(m, s);
            format_pair(s, s);
            free(m);
        }
        free(s);
    }
    free(buf);
    return 0;
}
