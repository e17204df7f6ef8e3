/* Helpers for providers: kept-open files read with pread at offset 0, and
 * small parsers for /proc text.  Part of the core; no Lua. */
#ifndef PL_PROVIDER_H
#define PL_PROVIDER_H

#include "perflib.h"

typedef struct pl_file {
    int fd;                  /* -1 until opened */
    char *buf;               /* NUL-terminated contents after pl_file_read */
    size_t cap, len;
} pl_file;

#define PL_FILE_MAX (64u << 20)   /* larger files are refused with EFBIG */

void pl_file_init(pl_file *f);
/* Opens rel (relative to the env root) on first use and keeps the fd; later
 * calls pread from offset 0, which returns fresh data for procfs and sysfs.
 * 0 or errno (ENOENT, EACCES, ...); the buffer is empty on failure. */
int pl_file_read(pl_file *f, const pl_env *env, const char *rel);
void pl_file_close(pl_file *f);
/* The root with a trailing '/', the prefix of every path a provider opens. */
const char *pl_env_root_prefix(const pl_env *env);
/* Opens a file below the env root (O_RDONLY|O_CLOEXEC); -1 + errno. */
int pl_open_rel(const pl_env *env, const char *rel);

/* Parses an unsigned decimal after optional blanks; advances *p.
 * 0, EINVAL (no digits) or ERANGE (over 2^64-1). */
int pl_parse_u64(const char **p, uint64_t *v);
/* Parses a decimal with up to `digits` fractional digits into an integer
 * scaled by 10^digits ("0.38" with 2 -> 38), rounding the rest. */
int pl_parse_fixed(const char **p, unsigned digits, uint64_t *v);
/* Start of the line that begins with key (exact, case-sensitive), with the
 * value after key and its ':' or blanks; NULL if absent. */
const char *pl_find_key(const char *text, const char *key);
/* Next line, or NULL at the end. */
const char *pl_next_line(const char *p);

#endif
