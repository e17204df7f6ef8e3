/* Logs as data sources: an environment whose countersets are a log's own
 * definitions and whose queries read the log's samples in order (each
 * query from the start, at its own pace), so rates, statuses and rules work
 * on history as on the live machine.  perflib.open_log and the V2 C API's
 * "log:" machine names use it. */
#ifndef PL_LOGSRC_H
#define PL_LOGSRC_H

#include "perflib.h"

#include <stddef.h>
#include <stdint.h>

#define PL_LOGSRC_MAX_FILES 100000

/* The n logs at paths (binary logs and SQLite logs, by their first
 * bytes), read as one in that order (the files of a rotation), their
 * samples with a time100ns in [from, to].  Every binary log is checked whole
 * first (an SQLite log's schema; each record as it is read); a torn last
 * record is left out (pl_logsrc_info's warning says so).  0 with *out (a new environment); EINVAL with a
 * sentence in msg (not a log, corrupt at an offset, a version 1 log, which
 * has no definitions, definitions that clash); another errno. */
int pl_logsrc_open(const char *const *paths, size_t n, int64_t from, int64_t to, pl_env **out, char *msg,
                   size_t size);

typedef struct pl_logsrc_info {
    const char *host;          /* the first log's */
    const char *perflib;       /* its writer's version */
    int64_t created;           /* its creation (FILETIME) */
    uint64_t records, samples; /* whole records, and DATA ones, of every file */
    int64_t first, last;       /* the first and last sample's time (FILETIME), 0 without one */
    size_t files;
    const char *warning;       /* the torn tails left out ("path: offset N: ..."; "; " between), or NULL */
} pl_logsrc_info;

/* 1 with *info when env reads a log, else 0. */
int pl_logsrc_info_of(const pl_env *env, pl_logsrc_info *info);

#endif
