/* Helpers for providers: kept-open files read with pread at offset 0, and
 * small parsers for /proc text.  Part of the core; no Lua. */
#ifndef PL_PROVIDER_H
#define PL_PROVIDER_H

#include "perflib.h"

#include <dirent.h>

typedef struct pl_file {
    int fd;                  /* -1 until opened */
    char *buf;               /* NUL-terminated contents after pl_file_read */
    size_t cap, len;
    /* A read shorter than asked is the end: the kernel makes the whole file
     * per read (PL_KSRC_WHOLE), or it is a regular file (fixture trees).
     * Set by the opener; kept by pl_file_close. */
    int whole;
    int regular;             /* found at open (fstat) */
} pl_file;

#define PL_FILE_MAX (64u << 20)   /* larger files are refused with EFBIG */

void pl_file_init(pl_file *f);
/* Opens rel (relative to the env root) on first use and keeps the fd; later
 * calls pread from offset 0, which returns fresh data for procfs and sysfs.
 * The file is read to its end, so a last line without '\n' is whole: the
 * buffer then ends with an added '\n' (len counts it), and every line
 * parser sees complete lines.  0 or errno (ENOENT, EACCES, ...); the buffer
 * is empty on failure. */
int pl_file_read(pl_file *f, const pl_env *env, const char *rel);
void pl_file_close(pl_file *f);
/* The root with a trailing '/', the prefix of every path a provider opens. */
const char *pl_env_root_prefix(const pl_env *env);
/* Formats a sentence into msg (when msg and size are not 0) and returns e:
 * `return pl_say(EPROTO, msg, size, "...", ...)` from a check. */
int pl_say(int e, char *msg, size_t size, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
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
/* The value of a "key: value [kB]" line (meminfo, vmstat, zoneinfo) at p,
 * after its key: digits, an optional "kB", then the end of the line.  1 with
 * *v; 0 for anything else, so a malformed line is never half read. */
int pl_parse_kb_line(const char *p, uint64_t *v);
/* A file the set cannot do without (its instance list), read afresh: an
 * empty one is EINVAL.  0, or errno with snap->err_path = rel. */
int pl_file_read_required(pl_file *f, const pl_env *env, const char *rel, pl_snapshot *snap);
/* Sets built from several sources (files, directories).  A source that
 * cannot be read, or is empty, leaves only its own counters absent
 * ("no_data"); the others keep their values.  The set fails only when every
 * source it tried failed: then with the first failure's errno and file. */
typedef struct pl_sources {
    unsigned tried, ok;
    int err;                 /* errno of the first failure, 0 if none */
    int nomem;               /* a source met ENOMEM: the collect fails */
    const char *path;        /* the first failure's file */
} pl_sources;

void pl_sources_init(pl_sources *src);
/* Records the outcome e (0 or errno) of source rel; 1 when it worked. */
int pl_source_done(pl_sources *src, int e, const char *rel);
/* pl_file_read of source rel, an empty file being EINVAL, recorded in src;
 * 1 when f->buf holds the file. */
int pl_source_read(pl_sources *src, pl_file *f, const pl_env *env, const char *rel);
/* The collect's result: ENOMEM if a source met it; else 0 when a source
 * worked or none was tried; else the first failure's errno, with
 * snap->err_path set to its file. */
int pl_sources_end(const pl_sources *src, pl_snapshot *snap);
/* The instances op of a single-instance set (one instance "", id 0); a
 * collect starts with it too.  0 or ENOMEM. */
int pl_single_instance(void *state, pl_snapshot *snap);
/* pl_file_init / pl_file_close over n files. */
void pl_files_init(pl_file *f, size_t n);
void pl_files_close(pl_file *f, size_t n);

/* a + b and a x b, 0 where they would wrap (a counter is never made up). */
static inline int pl_add_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a > UINT64_MAX - b)
        return 0;
    *out = a + b;
    return 1;
}
static inline int pl_mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b && a > UINT64_MAX / b)
        return 0;
    *out = a * b;
    return 1;
}

/* ---- sysfs (pl_sysfs.c) ---------------------------------------------------- */
/* One pread at offset 0 of a kept-open sysfs file: a second read would run
 * the attribute's show() again, and some drivers answer EAGAIN.  rel (below
 * the env root) is opened only when *fd < 0.  0 with buf NUL-terminated, or
 * errno; a file whose device is gone (ENODEV, ENOENT, ESTALE, EISDIR) is
 * closed so that the next call opens the new one. */
int pl_read_once(int *fd, const pl_env *env, const char *rel, char *buf, size_t size);
/* pl_read_once for an attribute of a device whose attributes are fixed while
 * it exists (a sysfs attribute group: zram's bd_stat is there or not by
 * CONFIG_ZRAM_WRITEBACK): one that is not there when first opened (ENOENT)
 * is remembered in *fd as PL_FD_ABSENT and not looked up again, which spares
 * a failing path walk each collect.  Callers drop the record, and with it
 * the mark, when the device leaves the listing; rel may be NULL then. */
#define PL_FD_ABSENT (-2)
int pl_read_attr(int *fd, const pl_env *env, const char *rel, char *buf, size_t size);
/* pl_read_once of a file not kept open (text facts, listings): 0 or errno. */
int pl_read_text(const pl_env *env, const char *rel, char *buf, size_t size);
/* The first line of rel, escaped (pl_fact_escape), to emit as key when it is
 * not empty: 1 when emit asked to stop, else 0 (an unreadable file is left
 * out). */
int pl_emit_file(const pl_env *env, const char *rel, const char *key, pl_info_fn emit, void *ud);
/* A whole buffer that is one signed decimal and an optional newline.  0,
 * EINVAL (anything else) or ERANGE (beyond int64). */
int pl_parse_i64_whole(const char *p, int64_t *v);
/* The next range of a sysfs CPU or node list ("0-3,5\n") at *p: 1 with
 * lo..hi (hi < limit) and *p past it, 0 at the end, -1 if malformed. */
int pl_cpulist_next(const char **p, uint32_t limit, uint32_t *lo, uint32_t *hi);
/* Control characters and '\' (which would end the instance part of a
 * counter path) become '_'. */
void pl_name_sanitize(char *s);
/* A text fact's value (perflib.h, pl_info_fn) from the bytes a file or a
 * library gave: trailing blanks and newlines removed; control characters,
 * DEL, '\\' and bytes that are not UTF-8 as \\xNN; whole UTF-8 characters
 * kept.  Cut to fit size, never inside an escape or a character. */
void pl_fact_escape(const char *in, char *out, size_t size);

/* A class directory (sys/class/...) kept open and rewound for each listing. */
typedef struct pl_classdir {
    DIR *dir;
    int absent;              /* not there: a machine does not grow a class */
} pl_classdir;

/* The directory, opened on first use, else rewound; NULL when it does not
 * exist (remembered, never tried again). */
DIR *pl_classdir_rewind(pl_classdir *d, const pl_env *env, const char *rel);
void pl_classdir_close(pl_classdir *d);
/* "<prefix><N>" with N < limit -> 1 with *num; anything else -> 0. */
int pl_entry_number(const char *name, const char *prefix, unsigned limit, unsigned *num);

/* Provider records of the numbered entries (thermal_zoneN, hwmonN) of a
 * class directory, kept across listings in N order: each record starts with
 * its unsigned N, and keeps its state while its entry stays. */
typedef struct pl_numbered {
    pl_classdir cls;
    void *v;                 /* n records of `size` bytes */
    uint32_t n, cap;
    size_t size;
    unsigned *nums;          /* scratch: the N of one listing */
    uint32_t nnums, numcap;
} pl_numbered;

void pl_numbered_init(pl_numbered *t, size_t size);
/* drop(rec) runs for every record (closing its files), then frees all. */
void pl_numbered_free(pl_numbered *t, void (*drop)(void *rec));
/* Lists the prefix<N> entries (N < limit) of rel and brings the records in
 * line: a vanished entry's record goes to drop, a new one is zeroed, given
 * its N and passed to init (may be NULL).  0 or ENOMEM (records untouched);
 * a missing class is zero records. */
int pl_numbered_list(pl_numbered *t, const pl_env *env, const char *rel, const char *prefix,
                     unsigned limit, void (*init)(void *rec), void (*drop)(void *rec));

#endif
