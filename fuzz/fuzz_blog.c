/* libFuzzer target: the binary log reader (pl_blog_read_open, pl_blog_next)
 * on untrusted files.  A log it accepts must hold together: its whole records
 * lie between the header and the end it reports, a torn tail is that end,
 * each record's payload reads back as the file's own bytes (CRC checked
 * again), and each DATA block reads as a sample, which formats against the
 * one before (UBSan: no overflow), or is refused with an offset inside it; an
 * error points inside the file and says why.  The input goes through a
 * memfd, as a file. */
#include "fuzz_common.h"
#include "pl_blog.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_records(pl_env *env, pl_blog_reader *r, const uint8_t *file)
{
    pl_blog_record rec;
    uint64_t n = 0, prev = 0;
    pl_sample *last = NULL;
    int more;
    while ((more = pl_blog_next(r, INT64_MIN, INT64_MAX, &rec)) == 1) {
        if (rec.offset < PL_BLOG_HEADER || rec.offset < prev || rec.offset + 16 + rec.len > r->end
            || memcmp(rec.data, file + rec.offset + 16, rec.len) != 0)
            abort();                      /* a record outside the whole ones, or not the file's bytes */
        prev = rec.offset + 16;
        n++;
        if (rec.type != PL_BLOG_DATA)
            continue;
        pl_sample *s = NULL;
        pl_db_error err = { 0, NULL };
        int e = pl_db_read(env, rec.data, rec.len, NULL, NULL, &s, &err);
        if (e == EINVAL && (err.offset > rec.len || !err.rule))
            abort();
        if (!s)
            continue;
        fz_format_pair(s, last ? last : s);
        free(last);
        last = s;
    }
    free(last);
    if (more != 0 || n != r->nrecords)
        abort();                          /* the file did not change: every checked record reads */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_env *env = fz_env();
    const char *path = env ? fz_memfd(data, size) : NULL;
    uint8_t *file = path ? fz_copy(data, size) : NULL;
    if (!file)
        return 0;
    pl_blog_reader r;
    pl_db_error err = { 0, NULL };
    int e = pl_blog_read_open(path, &r, &err);
    if (e == EINVAL) {
        if (err.offset > size || !err.rule)
            abort();                      /* an error must point inside the file and say why */
        free(file);
        return 0;
    }
    if (e)
        abort();                          /* a memfd always reads */
    if (r.end > size || r.end < PL_BLOG_HEADER || (r.torn && (r.torn != r.end || !r.torn_rule)))
        abort();
    if (r.ndata > r.nrecords)
        abort();
    check_records(env, &r, file);
    pl_blog_read_close(&r);
    pl_blog_read_close(&r);               /* idempotent */
    free(file);
    return 0;
}
