/* sysfs helpers for providers: kept-open value files read with one pread,
 * class directories and the numbered entries listed in them. */
#include "pl_provider.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pl_read_once(int *fd, const pl_env *env, const char *rel, char *buf, size_t size)
{
    ssize_t r;
    if (*fd < 0 && (*fd = pl_open_rel(env, rel)) < 0)
        return errno;
    do
        r = pread(*fd, buf, size - 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        int e = errno;
        if (e == ENODEV || e == ENOENT || e == ESTALE || e == EISDIR) {
            close(*fd);
            *fd = -1;
        }
        return e;
    }
    buf[r] = '\0';
    return 0;
}

int pl_read_attr(int *fd, const pl_env *env, const char *rel, char *buf, size_t size)
{
    int e, opening = *fd < 0;
    if (*fd == PL_FD_ABSENT)
        return ENOENT;
    /* only an open that found nothing: a kept file whose device went (ENOENT on
     * pread) is closed by pl_read_once and opened again next time */
    if ((e = pl_read_once(fd, env, rel, buf, size)) == ENOENT && opening)
        *fd = PL_FD_ABSENT;
    return e;
}

int pl_parse_i64_whole(const char *p, int64_t *v)
{
    uint64_t u;
    int neg = *p == '-', e;
    p += neg;
    /* pl_parse_u64 would skip blanks: a value starts with its digit */
    if (*p < '0' || *p > '9')
        return EINVAL;
    if ((e = pl_parse_u64(&p, &u)) != 0)
        return e;
    if (u > (uint64_t)INT64_MAX)
        return ERANGE;
    if (*p == '\n')
        p++;
    if (*p)
        return EINVAL;       /* trailing garbage, or a value cut by the buffer */
    *v = neg ? -(int64_t)u : (int64_t)u;
    return 0;
}

int pl_cpulist_next(const char **p, uint32_t limit, uint32_t *lo, uint32_t *hi)
{
    const char *s = *p;
    uint64_t a, b;
    while (*s == ',' || *s == ' ' || *s == '\n')
        s++;
    if (*s == '\0')
        return 0;
    if (*s < '0' || *s > '9' || pl_parse_u64(&s, &a))
        return -1;
    b = a;
    if (*s == '-') {
        s++;
        if (*s < '0' || *s > '9' || pl_parse_u64(&s, &b))
            return -1;
    }
    if (b < a || b >= limit || (*s != ',' && *s != '\n' && *s != '\0' && *s != ' '))
        return -1;
    *lo = (uint32_t)a;
    *hi = (uint32_t)b;
    *p = s;
    return 1;
}

void pl_name_sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == '\\')
            *s = '_';
}

DIR *pl_classdir_rewind(pl_classdir *d, const pl_env *env, const char *rel)
{
    int fd;
    if (d->dir) {
        rewinddir(d->dir);   /* re-reads the live directory */
        return d->dir;
    }
    if (d->absent)
        return NULL;
    fd = pl_open_rel(env, rel);
    if (fd < 0 || !(d->dir = fdopendir(fd))) {
        if (fd >= 0)
            close(fd);
        d->absent = 1;
        return NULL;
    }
    return d->dir;
}

void pl_classdir_close(pl_classdir *d)
{
    if (d->dir)
        closedir(d->dir);
    d->dir = NULL;
}

int pl_entry_number(const char *name, const char *prefix, unsigned limit, unsigned *num)
{
    size_t n = strlen(prefix);
    const char *p = name + n;
    uint64_t v;
    if (strncmp(name, prefix, n) != 0 || *p < '0' || *p > '9' || pl_parse_u64(&p, &v) || *p ||
        v >= limit)
        return 0;
    *num = (unsigned)v;
    return 1;
}

void pl_numbered_init(pl_numbered *t, size_t size)
{
    memset(t, 0, sizeof *t);
    t->size = size;
}

static void *rec_at(const pl_numbered *t, uint32_t i)
{
    return (char *)t->v + (size_t)i * t->size;
}

static unsigned rec_num(const pl_numbered *t, uint32_t i)
{
    unsigned num;
    memcpy(&num, rec_at(t, i), sizeof num);
    return num;
}

void pl_numbered_free(pl_numbered *t, void (*drop)(void *rec))
{
    for (uint32_t i = 0; i < t->n; i++)
        drop(rec_at(t, i));
    free(t->v);
    free(t->nums);
    pl_classdir_close(&t->cls);
    pl_numbered_init(t, t->size);
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* The sorted, distinct N of the listing into t->nums. */
static int list_nums(pl_numbered *t, DIR *dir, const char *prefix, unsigned limit)
{
    struct dirent *de;
    uint32_t k = 0;
    t->nnums = 0;
    while ((de = readdir(dir)) != NULL) {
        unsigned num;
        if (!pl_entry_number(de->d_name, prefix, limit, &num))
            continue;
        if (t->nnums == t->numcap) {
            uint32_t nc = t->numcap ? t->numcap * 2 : 8;
            unsigned *nn = realloc(t->nums, nc * sizeof *nn);
            if (!nn)
                return ENOMEM;
            t->nums = nn;
            t->numcap = nc;
        }
        t->nums[t->nnums++] = num;
    }
    if (t->nnums > 1)
        qsort(t->nums, t->nnums, sizeof *t->nums, cmp_unsigned);
    for (uint32_t i = 0; i < t->nnums; i++)
        if (i == 0 || t->nums[i] != t->nums[k - 1])
            t->nums[k++] = t->nums[i];
    t->nnums = k;
    return 0;
}

int pl_numbered_list(pl_numbered *t, const pl_env *env, const char *rel, const char *prefix,
                     unsigned limit, void (*init)(void *rec), void (*drop)(void *rec))
{
    DIR *dir = pl_classdir_rewind(&t->cls, env, rel);
    uint32_t i, j, kept = 0;
    int e;
    if (!dir) {
        t->n = 0;            /* only before a first listing: nothing to drop */
        return 0;
    }
    if ((e = list_nums(t, dir, prefix, limit)) != 0)
        return e;
    if (t->nnums > t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 8;
        void *nv;
        if (nc < t->nnums)
            nc = t->nnums;
        if (!(nv = realloc(t->v, nc * t->size)))
            return ENOMEM;
        t->v = nv;
        t->cap = nc;
    }
    /* both sorted: keep the records still listed, in place */
    for (i = 0, j = 0; i < t->n; i++) {
        unsigned num = rec_num(t, i);
        while (j < t->nnums && t->nums[j] < num)
            j++;
        if (j < t->nnums && t->nums[j] == num) {
            if (kept != i)
                memcpy(rec_at(t, kept), rec_at(t, i), t->size);
            kept++;
        } else {
            drop(rec_at(t, i));
        }
    }
    /* then spread them to their slots from the back, new records between */
    for (j = t->nnums; j-- > 0;) {
        if (kept > 0 && rec_num(t, kept - 1) == t->nums[j]) {
            if (--kept != j)
                memcpy(rec_at(t, j), rec_at(t, kept), t->size);
        } else {
            memset(rec_at(t, j), 0, t->size);
            memcpy(rec_at(t, j), &t->nums[j], sizeof t->nums[j]);
            if (init)
                init(rec_at(t, j));
        }
    }
    t->n = t->nnums;
    return 0;
}

int pl_read_text(const pl_env *env, const char *rel, char *buf, size_t size)
{
    int fd = -1, e = pl_read_once(&fd, env, rel, buf, size);
    if (fd >= 0)
        close(fd);
    return e;
}

int pl_emit_file(const pl_env *env, const char *rel, const char *key, pl_info_fn emit, void *ud)
{
    char buf[512], val[1024];
    if (pl_read_text(env, rel, buf, sizeof buf) != 0)
        return 0;
    buf[strcspn(buf, "\n")] = '\0';   /* a fact is one line */
    pl_fact_escape(buf, val, sizeof val);
    return val[0] && emit(ud, key, val) != 0;
}
