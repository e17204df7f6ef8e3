/* Kept-open file reading and /proc text parsing for providers. */
#include "pl_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pl_open_rel(const pl_env *env, const char *rel)
{
    char path[PATH_MAX];
    int n;
    while (*rel == '/')
        rel++;
    n = snprintf(path, sizeof path, "%s%s", pl_env_root_prefix(env), rel);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* /proc/sys/ (proc_sys_call_handler formats the value into one buffer) and
 * /proc/pressure/ (single_open): whole per read. */
static int whole_proc_file(const char *rel)
{
    while (*rel == '/')
        rel++;
    return strncmp(rel, "proc/sys/", 9) == 0 || strncmp(rel, "proc/pressure/", 14) == 0;
}

void pl_file_init(pl_file *f)
{
    f->fd = -1;
    f->buf = NULL;
    f->cap = f->len = 0;
    f->whole = f->regular = 0;
}

void pl_file_close(pl_file *f)
{
    int whole = f->whole;
    if (f->fd >= 0)
        close(f->fd);
    free(f->buf);
    pl_file_init(f);
    f->whole = whole;
}

int pl_file_read(pl_file *f, const pl_env *env, const char *rel)
{
    size_t len = 0;
    if (f->fd < 0) {
        struct stat st;
        struct statfs sf;
        f->fd = pl_open_rel(env, rel);
        if (f->fd < 0)
            return errno;
        /* procfs and sysfs files are S_IFREG too, but not regular.  A sysfs
         * attribute, a sysctl and a pressure file are made whole per read. */
        int fs = fstatfs(f->fd, &sf) == 0;
        f->regular = fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode) && fs &&
                     sf.f_type != PROC_SUPER_MAGIC && sf.f_type != SYSFS_MAGIC;
        if ((fs && sf.f_type == SYSFS_MAGIC) || whole_proc_file(rel))
            f->whole = 1;
    }
    if (f->cap == 0) {
        f->buf = malloc(4096);
        if (!f->buf)
            return ENOMEM;
        f->cap = 4096;
    }
    for (;;) {
        ssize_t r;
        if (len + 1 >= f->cap) {
            char *nb;
            /* no /proc or /sys file comes near this: a runaway or hostile file */
            if (f->cap >= PL_FILE_MAX) {
                f->len = 0;
                f->buf[0] = '\0';
                return EFBIG;
            }
            nb = realloc(f->buf, f->cap * 2);
            if (!nb)
                return ENOMEM;
            f->buf = nb;
            f->cap *= 2;
        }
        size_t want = f->cap - 1 - len;
        r = pread(f->fd, f->buf + len, want, (off_t)len);
        if (r < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            f->len = 0;
            f->buf[0] = '\0';
            /* A vanished file stays vanished: reopen next time. */
            close(f->fd);
            f->fd = -1;
            return e;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if ((size_t)r < want && (f->whole || f->regular))
            break;           /* provably the end: no second read to see 0 */
    }
    /* A final line without '\n' (recordings, containers' views, fixture
     * trees) is still a whole line: the file was read to its end.  It gets
     * its newline here, so that every line parser sees complete lines; the
     * loop above always leaves room for it. */
    if (len > 0 && f->buf[len - 1] != '\n')
        f->buf[len++] = '\n';
    f->buf[len] = '\0';
    f->len = len;
    return 0;
}

int pl_parse_u64(const char **p, uint64_t *v)
{
    const char *s = *p, *start;
    uint64_t x = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    start = s;
    /* 19 digits always fit in 64 bits: check only from the 20th on */
    while (*s >= '0' && *s <= '9' && s - start < 19)
        x = x * 10 + (uint64_t)(*s++ - '0');
    if (s == start)
        return EINVAL;
    while (*s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return ERANGE;
        x = x * 10 + d;
        s++;
    }
    *v = x;
    *p = s;
    return 0;
}

int pl_parse_fixed(const char **p, unsigned digits, uint64_t *v)
{
    const char *s = *p;
    uint64_t ip, frac = 0, scale = 1;
    unsigned n = 0;
    int e = pl_parse_u64(&s, &ip);
    if (e)
        return e;
    for (unsigned i = 0; i < digits; i++)
        scale *= 10;
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            if (n < digits) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                n++;
            } else if (n == digits) {
                if (*s >= '5')
                    frac++;      /* round half up on the first dropped digit */
                n++;
            }
            s++;
        }
    }
    for (unsigned i = n < digits ? n : digits; i < digits; i++)
        frac *= 10;
    if (ip > (UINT64_MAX - frac) / scale)
        return ERANGE;
    *v = ip * scale + frac;
    *p = s;
    return 0;
}

const char *pl_find_key(const char *text, const char *key)
{
    size_t kl = strlen(key);
    const char *p = text;
    while (p && *p) {
        if (strncmp(p, key, kl) == 0 && (p[kl] == ':' || p[kl] == ' ' || p[kl] == '\t')) {
            p += kl;
            if (*p == ':')
                p++;
            return p;
        }
        p = pl_next_line(p);
    }
    return NULL;
}

const char *pl_next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

int pl_parse_kb_line(const char *p, uint64_t *v)
{
    if (pl_parse_u64(&p, v))
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (p[0] == 'k' && p[1] == 'B')
        p += 2;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '\n';
}

int pl_file_read_required(pl_file *f, const pl_env *env, const char *rel, pl_snapshot *snap)
{
    int e = pl_file_read(f, env, rel);
    if (!e && f->len == 0)
        e = EINVAL;
    if (e)
        snap->err_path = rel;
    return e;
}

void pl_sources_init(pl_sources *src)
{
    memset(src, 0, sizeof *src);
}

int pl_source_done(pl_sources *src, int e, const char *rel)
{
    src->tried++;
    if (!e) {
        src->ok++;
        return 1;
    }
    if (e == ENOMEM)
        src->nomem = 1;
    if (!src->err) {
        src->err = e;
        src->path = rel;
    }
    return 0;
}

int pl_source_read(pl_sources *src, pl_file *f, const pl_env *env, const char *rel)
{
    int e = pl_file_read(f, env, rel);
    return pl_source_done(src, !e && f->len == 0 ? EINVAL : e, rel);
}

int pl_sources_end(const pl_sources *src, pl_snapshot *snap)
{
    if (src->nomem)
        return ENOMEM;
    if (src->ok || !src->tried)
        return 0;
    snap->err_path = src->path;
    return src->err;
}

void pl_files_init(pl_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pl_file_init(&f[i]);
}

void pl_files_close(pl_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pl_file_close(&f[i]);
}

int pl_single_instance(void *state, pl_snapshot *snap)
{
    (void)state;
    pl_snap_clear(snap);
    return pl_snap_add(snap, "", 0) < 0 ? ENOMEM : 0;
}
