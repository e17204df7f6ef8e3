/* What the SQLite log's writer (slog.c) and reader (slog_read.c) share.
 * Internal to the core. */
#ifndef PL_SLOG_IMPL_H
#define PL_SLOG_IMPL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The errno an SQLite result code stands for (SQLITE_FULL: ENOSPC, BUSY: EBUSY ...). */
int pl_slog_errno(int rc);
/* One integer from sql (bound with nothing): SQLITE_OK with *v, or an SQLite code. */
int pl_slog_int(sqlite3 *db, const char *sql, int64_t *v);
/* Whether db holds a perflib log of this version: 0, 1 for an empty
 * database (no table, no id), or an errno with msg. */
int pl_slog_check(sqlite3 *db, const char *path, char *msg, size_t size);

#endif
