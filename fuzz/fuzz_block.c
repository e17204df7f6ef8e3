/* libFuzzer target: the data block reader (pl_db_validate, pl_db_read) on
 * untrusted bytes.  A block that passes must also come back out: what
 * pl_db_read builds is written again and validated, so the reader never
 * accepts what it could not stand behind. */
#include "perflib.h"
#include "pl_datablock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pl_env *env;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!env && !(env = pl_env_new(NULL)))
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
        free(s);
    }
    free(buf);
    return 0;
}
