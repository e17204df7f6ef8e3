/* Cache sets, keyed records and file reads for Bcache and Bcache Device:
 * see bcache_list.h. */
#include "bcache_list.h"
#include "bcache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pl_bch_keyed_init(pl_bch_keyed *t, size_t size)
{
    memset(t, 0, sizeof *t);
    t->size = size;
}

void pl_bch_keyed_free(pl_bch_keyed *t, void (*drop)(void *rec))
{
    for (uint32_t i = 0; i < t->n; i++)
        drop((char *)t->v + i * t->size);
    free(t->v);
    free(t->keys);
    memset(t, 0, sizeof *t);
}

int pl_bch_key_add(pl_bch_keyed *t, const char *key)
{
    if (strlen(key) >= PL_BCH_KEY)
        return 0;
    if (t->nkeys == t->keycap) {
        uint32_t nc = t->keycap ? t->keycap * 2 : 8;
        void *nk = realloc(t->keys, nc * sizeof *t->keys);
        if (!nk)
            return ENOMEM;
        t->keys = nk;
        t->keycap = nc;
    }
    memcpy(t->keys[t->nkeys++], key, strlen(key) + 1);
    return 0;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Insertion sort: readdir's order rarely changes between listings, so this
 * is about one pass; and unlike glibc's qsort it never allocates. */
static void sort_keys(char (*k)[PL_BCH_KEY], uint32_t n)
{
    char tmp[PL_BCH_KEY];
    for (uint32_t i = 1; i < n; i++) {
        uint32_t j = i;
        if (strcmp(k[i - 1], k[i]) <= 0)
            continue;
        memcpy(tmp, k[i], sizeof tmp);
        for (; j > 0 && strcmp(k[j - 1], tmp) > 0; j--)
            memcpy(k[j], k[j - 1], sizeof tmp);
        memcpy(k[j], tmp, sizeof tmp);
    }
}

int pl_bch_keyed_sync(pl_bch_keyed *t, void (*init)(void *rec, void *ctx), void *ctx,
                      void (*drop)(void *rec))
{
    uint32_t i, j, kept = 0, nk = t->nkeys;
    char *nv;
    sort_keys(t->keys, nk);
    t->nkeys = 0;
    if (nk > t->cap) {
        void *g = realloc(t->v, nk * t->size);
        if (!g)
            return ENOMEM;
        t->v = g;
        t->cap = nk;
    }
    /* the records whose key stays, moved down in their (key) order */
    nv = t->v;
    for (i = 0; i < t->n; i++) {
        char *rec = nv + i * t->size;
        if (!nk || !bsearch(rec, t->keys, nk, sizeof *t->keys, key_cmp))
            drop(rec);
        else if (kept++ != i)
            memmove(nv + (kept - 1) * t->size, rec, t->size);
    }
    /* merged with the new keys from the end: records [0, j) all have keys
     * before keys[i], so j <= i and nothing is overwritten unmoved */
    for (i = nk, j = kept; i-- > 0;) {
        char *dst = nv + i * t->size;
        if (j > 0 && strcmp(nv + (j - 1) * t->size, t->keys[i]) == 0) {
            if (--j != i)
                memmove(dst, nv + j * t->size, t->size);
            continue;
        }
        memset(dst, 0, t->size);
        memcpy(dst, t->keys[i], strlen(t->keys[i]) + 1);
        init(dst, ctx);
    }
    t->n = nk;
    return 0;
}

int pl_bch_list_sets(pl_bch_keyed *t, pl_classdir *top, const pl_env *env)
{
    struct dirent *de;
    DIR *dir;
    int e;
    top->absent = 0;                  /* the module may have loaded since */
    if (!(dir = pl_classdir_rewind(top, env, PL_BCH_SETS)))
        return 0;
    while ((de = readdir(dir)) != NULL)
        if (pl_bch_is_uuid(de->d_name) && (e = pl_bch_key_add(t, de->d_name)) != 0)
            return e;
    return 0;
}

uint32_t pl_bch_fields(const pl_counter_def *defs, const pl_feed *feeds, uint32_t n,
                       const uint8_t *wanted)
{
    uint32_t need = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = i;
        if (wanted && !wanted[i])
            continue;
        for (int pass = 0; pass < 2 && k < n; pass++, k = defs[i].base_id) {
            if (feeds[k].op == PL_FEED_FIELD || feeds[k].op == PL_FEED_SUM)
                need |= 1u << feeds[k].a;
            if (feeds[k].op == PL_FEED_SUM)
                need |= 1u << feeds[k].b;
        }
    }
    return need;
}

/* Fields [f, f + n) of file k. */
static uint32_t file_mask(const pl_bch_file *f)
{
    return (f->how == PL_BCH_PRIO ? (1u << PL_BCHP_N) - 1 : 1u) << f->field;
}

/* The parsed text of one file into r. */
static void parse(const pl_bch_file *f, const char *buf, pl_bch_row *r)
{
    size_t len = strlen(buf);
    int64_t n;
    if (f->how == PL_BCH_PRIO) {
        pl_bch_prio p;
        pl_bch_prio_parse(buf, len, &p);
        for (int i = 0; i < PL_BCHP_N; i++) {
            r->v[f->field + i] = p.v[i];
            r->st[f->field + i] = p.st[i];
        }
        return;
    }
    r->st[f->field] = PL_NS_BAD;
    if (f->how == PL_BCH_HSIZE) {
        pl_bch_size z = pl_bch_size_parse(buf, len);
        r->st[f->field] = z.st;
        r->v[f->field] = z.v;
    } else if (f->how == PL_BCH_STATE) {
        if ((n = pl_bch_state(buf, len)) >= 0) {
            r->v[f->field] = (uint64_t)n;
            r->st[f->field] = PL_NS_OK;
        }
    } else if (pl_parse_i64_whole(buf, &n) == 0 && n >= 0) {
        r->v[f->field] = (uint64_t)n;
        r->st[f->field] = PL_NS_OK;
    }
    if (r->st[f->field] == PL_NS_OK && !pl_mul_ok(r->v[f->field], f->mul, &r->v[f->field]))
        r->st[f->field] = PL_NS_BAD;
}

void pl_bch_read(const pl_env *env, const char *dir, const pl_bch_file *files, int nf, int *fd,
                 uint32_t need, const pl_feed *feeds, uint32_t nc, uint32_t inst,
                 pl_bch_row *r, pl_snapshot *snap)
{
    char buf[1024], rel[PL_BCH_KEY + 96];
    memset(r->st, PL_NS_ABSENT, sizeof r->st);
    for (int k = 0; k < nf; k++) {
        uint32_t m = file_mask(&files[k]);
        int e;
        if (!(need & m) || fd[k] == PL_FD_ABSENT)
            continue;
        rel[0] = '\0';
        if (fd[k] == -1)
            snprintf(rel, sizeof rel, "%s/%s", dir, files[k].rel);
        if ((e = pl_read_attr(&fd[k], env, rel, buf, sizeof buf)) == 0)
            parse(&files[k], buf, r);
        else if (e == EACCES)
            for (uint32_t c = 0; c < nc; c++)
                if ((feeds[c].op == PL_FEED_FIELD || feeds[c].op == PL_FEED_SUM) &&
                    (m & ((1u << feeds[c].a) | (feeds[c].op == PL_FEED_SUM ? 1u << feeds[c].b : 0))))
                    pl_snap_deny(snap, inst, c);
    }
}

uint32_t pl_bch_name_id(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h & 0x7FFFFFFFu;
}
