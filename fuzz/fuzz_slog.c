/* libFuzzer target: the SQLite log reader (pl_slog_read_open, pl_slog_next)
 * on untrusted database files.  A log it accepts must hold together: no more
 * DATA records than records, every record it gives passes the checks again
 * (a DATA block pl_db_validate accepts, whose PerfTime100nSec is the row's
 * Time, and which reads as a sample that formats against the one before:
 * UBSan, no overflow), the records come in Seq order, a time range gives a
 * subset, a failure says why, and the file is as it was (read-only).  The
 * input goes through a file in /tmp (the seeds are in rollback mode: one
 * that asks for a WAL reads its -wal and -shm beside it, which are absent). */
#include "fuzz_common.h"
#include "pl_le.h"
#include "pl_slog.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file the input is written to, made once (SQLite resolves a path's
 * symbolic links, so a memfd's /proc path does not open: a real file). */
static char fz_path[64];

static void fz_remove(void)
{
    char p[80];
    unlink(fz_path);
    snprintf(p, sizeof p, "%s-wal", fz_path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", fz_path);
    unlink(p);
}

static const char *fz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    const char *path = fz_path;
    if (fd < 0) {
        snprintf(fz_path, sizeof fz_path, "/tmp/fuzz_slog.XXXXXX");
        fd = mkstemp(fz_path);
        if (fd < 0)
            return NULL;
        atexit(fz_remove);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return NULL;
    return path;
}

/* A reader opens read-only: the file holds the input still (frees copy). */
static void unchanged(const char *path, uint8_t *copy, size_t size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *now = malloc(size + 1);
    size_t n = f && now ? fread(now, 1, size + 1, f) : 0;
    if (f)
        fclose(f);
    if (f && now && (n != size || memcmp(now, copy, size) != 0))
        abort();
    free(now);
    free(copy);
}

/* Every record of [from, to]: their number (DATA ones in *ndata), or -1 after a
 * failure (its message checked). */
static long walk(pl_env *env, pl_slog_reader *r, int64_t from, int64_t to, uint64_t *ndata)
{
    pl_slog_record rec;
    pl_sample *last = NULL;
    int64_t seq = 0;
    long n = 0;
    int more;
    *ndata = 0;
    while ((more = pl_slog_next(r, from, to, &rec)) == 1) {
        if (rec.seq <= seq || !rec.data || (rec.type != PL_LOG_DEFS && rec.type != PL_LOG_DATA))
            abort();                      /* out of order, or a record it should have refused */
        seq = rec.seq;
        n++;
        if (rec.type != PL_LOG_DATA)
            continue;
        pl_db_error err = { 0, NULL };
        if (rec.time < from || rec.time > to || pl_db_validate(rec.data, rec.len, &err) != 0
            || (int64_t)pl_r64((const uint8_t *)rec.data + 16) != rec.time)
            abort();
        (*ndata)++;
        pl_sample *s = NULL;
        if (pl_db_read(env, rec.data, rec.len, NULL, NULL, &s, &err) == 0) {
            fz_format_pair(s, last ? last : s);
            free(last);
            last = s;
        }
    }
    free(last);
    if (more < 0 && !r->msg[0])
        abort();                          /* a failure says why */
    return more < 0 ? -1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_env *env = fz_env();
    const char *path = env ? fz_file(data, size) : NULL;
    uint8_t *copy = path ? fz_copy(data, size) : NULL;
    if (!copy)
        return 0;
    pl_slog_reader r;
    char msg[256] = "";
    int e = pl_slog_read_open(path, &r, msg, sizeof msg);
    if (e) {
        if (!msg[0])
            abort();                      /* a refusal says why */
        unchanged(path, copy, size);
        return 0;
    }
    if (r.ndata > r.nrecords)
        abort();
    uint64_t all = 0, part = 0;
    long n = walk(env, &r, INT64_MIN, INT64_MAX, &all);
    pl_slog_rewind(&r);
    long m = walk(env, &r, r.first, r.first, &part);
    if (n >= 0 && (all != r.ndata || (uint64_t)n != r.nrecords || (m >= 0 && part > all)))
        abort();                          /* the snapshot read whole, and a range is a part of it */
    pl_slog_read_close(&r);
    pl_slog_read_close(&r);               /* idempotent */
    unchanged(path, copy, size);
    return 0;
}
