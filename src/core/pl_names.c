/* Unique instance names: see pl_names.h. */
#include "pl_names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pl_nslot {
    uint32_t off, len;       /* the name in the arena */
    uint32_t hash, stamp;    /* stamp != the table's: an empty slot */
    uint32_t next;           /* the k to try first for the next "name#k" */
};

void pl_names_init(pl_names *n)
{
    memset(n, 0, sizeof *n);
}

void pl_names_free(pl_names *n)
{
    free(n->slot);
    free(n->arena);
    pl_names_init(n);
}

/* Eight bytes at a time: kworker names run to 30 bytes. */
static uint32_t hash_name(const char *p, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    for (w = 0; len; len--)
        w = w << 8 | (unsigned char)p[len - 1];
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ h >> 32);
}

/* The slot of the name, or the empty slot where it would go. */
static struct pl_nslot *find(const pl_names *n, const char *name, uint32_t len, uint32_t h)
{
    for (uint32_t i = h & n->mask;; i = (i + 1) & n->mask) {
        struct pl_nslot *s = &n->slot[i];
        if (s->stamp != n->stamp ||
            (s->hash == h && s->len == len && memcmp(n->arena + s->off, name, len) == 0))
            return s;
    }
}

/* A table of `size` slots (a power of two) holding this listing's names. */
static int rehash(pl_names *n, uint32_t size)
{
    struct pl_nslot *old = n->slot, *t = calloc(size, sizeof *t);
    uint32_t oldn = n->slot ? n->mask + 1 : 0, stamp = n->stamp;
    if (!t)
        return ENOMEM;
    n->slot = t;
    n->mask = size - 1;
    n->stamp = 1;            /* calloc'ed slots hold stamp 0: all empty */
    for (uint32_t i = 0; i < oldn; i++)
        if (old[i].stamp == stamp && stamp != 0) {
            struct pl_nslot *s = find(n, n->arena + old[i].off, old[i].len, old[i].hash);
            *s = old[i];
            s->stamp = 1;
        }
    free(old);
    return 0;
}

int pl_names_begin(pl_names *n, uint32_t expect)
{
    uint32_t size = 64;
    while (size < 4 * (uint64_t)expect && size < (1u << 30))
        size *= 2;
    n->alen = 0;
    n->used = 0;
    if (!n->slot || size > n->mask + 1) {
        n->stamp = 0;        /* nothing of the last listing is carried over */
        return rehash(n, size);
    }
    if (++n->stamp == 0) {   /* wrapped: start again from a clean table */
        memset(n->slot, 0, (n->mask + 1) * sizeof *n->slot);
        n->stamp = 1;
    }
    return 0;
}

/* Takes name (known to be free at s); 0 or ENOMEM. */
static int take(pl_names *n, struct pl_nslot *s, const char *name, uint32_t len, uint32_t h)
{
    if (n->alen + len > n->acap || !n->arena) {   /* an empty first name too: no offset from NULL */
        size_t cap = n->acap ? n->acap : 16384;
        char *a;
        while (cap < n->alen + len)
            cap *= 2;
        if (!(a = realloc(n->arena, cap)))
            return ENOMEM;
        n->arena = a;
        n->acap = cap;
    }
    memcpy(n->arena + n->alen, name, len);
    s->off = (uint32_t)n->alen;
    s->len = len;
    s->hash = h;
    s->stamp = n->stamp;
    s->next = 1;
    n->alen += len;
    n->used++;
    return 0;
}

char *pl_utoa(char *p, uint32_t v)
{
    char t[10];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        *p++ = t[--k];
    return p;
}

const char *pl_names_next(pl_names *n, const char *name, size_t len, char *out)
{
    uint32_t h, l = (uint32_t)len;
    struct pl_nslot *s;
    /* room for the name and one "name#k" at half load at most */
    if (len > UINT32_MAX / 2 ||
        (2 * (n->used + 2) > n->mask + 1 && rehash(n, 2 * (n->mask + 1)) != 0))
        return NULL;
    h = hash_name(name, len);
    s = find(n, name, l, h);
    memcpy(out, name, len);
    out[len] = '\0';
    if (s->stamp != n->stamp)
        return take(n, s, name, l, h) ? NULL : out;
    for (uint32_t k = s->next;; k++) {
        char *e = pl_utoa(out + len + 1, k);
        uint32_t cl = (uint32_t)(e - out), ch;
        struct pl_nslot *c;
        out[len] = '#';
        *e = '\0';
        ch = hash_name(out, cl);
        c = find(n, out, cl, ch);
        if (c->stamp == n->stamp)
            continue;        /* "name#k" is taken by an instance of that name */
        s->next = k + 1;     /* before take: the arena may move, the slots do not */
        return take(n, c, out, cl, ch) ? NULL : out;
    }
}
