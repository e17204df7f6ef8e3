/* libFuzzer target: the counterset definitions a log carries (pl_defs_read,
 * src/core/pl_logenc.h), which a log's METADATA record and an SQLite log's
 * Records row hold.  Any input is refused with EINVAL (an offset inside it
 * and a rule), or taken whole: then every set has a name, its counters known
 * types, unique ids and bases that name a counter of the set, and writing the
 * sets again gives exactly the input. */
#include "pl_logenc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);       /* exactly the input: ASan sees any read past it */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    pl_defs *d = NULL;
    pl_db_error err = { 0, NULL };
    int e = pl_defs_read(copy, size, &d, &err);
    if (e == EINVAL && (!err.rule || err.offset > size)) {
        fprintf(stderr, "fuzz_defs: refused without a rule or past the input\n");
        abort();
    }
    if (e == 0) {
        const pl_counterset_def **sets = malloc((d->nsets ? d->nsets : 1) * sizeof *sets);
        for (uint32_t i = 0; sets && i < d->nsets; i++) {
            const pl_counterset_def *cs = &d->sets[i];
            if (!cs->name[0] || !cs->ncounters)
                abort();
            for (uint32_t c = 0; c < cs->ncounters; c++)
                if (!pl_type_known(cs->counters[c].type) || !cs->counters[c].name[0]
                    || (cs->counters[c].base_id != PL_NO_ID && pl_counter_index(cs, cs->counters[c].base_id) < 0))
                    abort();
            sets[i] = cs;
        }
        /* taken whole: the same bytes again (the one layout, no slack) */
        if (sets) {
            size_t n = pl_defs_write(sets, d->nsets, NULL, 0);
            uint8_t *again = malloc(n ? n : 1);
            if (again && (pl_defs_write(sets, d->nsets, again, n) != n || n != size || memcmp(again, data, n) != 0)) {
                fprintf(stderr, "fuzz_defs: written again differently (%zu bytes, input %zu)\n", n, size);
                abort();
            }
            free(again);
        }
        free(sets);
    } else if (e != EINVAL && e != ENOMEM) {
        abort();
    }
    pl_defs_free(d);
    free(copy);
    return 0;
}
