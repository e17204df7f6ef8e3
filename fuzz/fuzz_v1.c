/* libFuzzer target: the V1 PERF_DATA_BLOCK reader (pl_v1_validate,
 * pl_v1_read) on untrusted bytes.  An error must point inside the buffer
 * and say why; read never accepts what validate refuses; a block that reads
 * must come back out: its sample written again as V1 validates and reads to
 * the same present values, and it formats against itself and the re-read,
 * by the bulk path and value by value alike (fuzz_common.h). */
#include "fuzz_common.h"
#include "pl_v1.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* s written as V1 again reads back with the same raw values. */
static void again(pl_env *env, const pl_sample *s)
{
    size_t n = pl_v1_write(s, "fuzz", 0, NULL, 0);
    uint8_t *buf = malloc(n);
    pl_sample *r = NULL;
    pl_db_error err;
    if (!buf)
        return;
    if (pl_v1_write(s, "fuzz", 0, buf, n) != n || pl_v1_validate(buf, n, &err) != 0
        || pl_v1_read(env, buf, n, NULL, NULL, &r, &err) != 0 || r->nblocks != s->nblocks)
        abort();
    for (uint32_t k = 0; k < s->nblocks; k++) {
        const pl_block *a = &s->blocks[k], *b = &r->blocks[k];
        size_t nv = (size_t)a->ninst * a->ncounters;
        if (b->ninst != a->ninst || b->ncounters != a->ncounters)
            abort();
        for (size_t v = 0; v < nv; v++) {
            uint32_t size = pl_sample_counter(s, a, (uint32_t)(v % a->ncounters))->size == 4 ? 4 : 8;
            uint64_t mask = size == 4 ? 0xFFFFFFFFu : UINT64_MAX;
            /* an absent value's bytes are not carried (the writer puts 0), whatever
             * says why it is absent (0, or PL_HAVE_NO_ACCESS) */
            if (r->have[b->vals_off + v] != s->have[a->vals_off + v]
                || (PL_HAVE_VALUE(s->have[a->vals_off + v]) &&
                    ((r->vals[b->vals_off + v].v ^ s->vals[a->vals_off + v].v) & mask)))
                abort();
        }
    }
    fz_format_pair(r, s);
    free(r);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_env *env = fz_env();
    uint8_t *buf = env ? fz_copy(data, size) : NULL;
    if (!buf)
        return 0;
    pl_db_error err = { 0, NULL };
    int valid = pl_v1_validate(buf, size, &err) == 0;
    if (!valid && (err.offset > size || !err.rule))
        abort();                          /* an error must point inside the buffer and say why */
    pl_sample *s = NULL;
    if (pl_v1_read(env, buf, size, NULL, NULL, &s, &err) == 0) {
        if (!valid)
            abort();                      /* read accepted what validate refused */
        fz_format_pair(s, s);
        again(env, s);
        free(s);
    }
    free(buf);
    return 0;
}
