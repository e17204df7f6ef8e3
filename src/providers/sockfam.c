/* The per-family socket-table sets: see sockfam.h. */
#include "sockfam.h"

#include <errno.h>
#include <string.h>

#define TOTAL_ID 0xFFFFFFFEu

int pl_sockfam_open(const pl_sockfam *f, pl_env *env, pl_ksrc **k)
{
    for (int i = PL_SF_V4; i <= PL_SF_V6; i++)
        if (!(k[i] = pl_ksrc_attach(env, f->srcs[i].def)))
            return ENOMEM;
    return 0;
}

/* Adds one table to the total: sums, or the largest for max_field; a
 * value unset in any table is unset in the total. */
static void add_total(const pl_sockfam *f, unsigned char *t, const unsigned char *u)
{
    uint64_t *tv = (uint64_t *)(void *)(t + f->v_off);
    const uint64_t *uv = (const uint64_t *)(const void *)(u + f->v_off);
    uint8_t *ts = t + f->st_off;
    const uint8_t *us = u + f->st_off;
    for (unsigned i = 0; i < f->nv; i++) {
        if (us[i] != PL_NS_OK && ts[i] == PL_NS_OK)
            ts[i] = us[i];
        if ((int)i == f->max_field)
            tv[i] = uv[i] > tv[i] ? uv[i] : tv[i];
        else
            tv[i] += uv[i];
    }
}

int pl_sockfam_read(const pl_sockfam *f, pl_ksrc **k, void *ctx, const uint8_t *wanted,
                    pl_snapshot *snap, int values, void *total)
{
    static const char *const names[2] = { "IPv4", "IPv6" };
    pl_feed_in in;
    int e, inst, n = 0;
    pl_snap_clear(snap);
    memset(total, 0, f->st_off + f->nv);
    memset((unsigned char *)total + f->st_off, PL_NS_OK, f->nv);
    pl_feed_begin(&in, f->srcs, PL_SF_NSRC, k, snap, ctx);
    for (int i = PL_SF_V4; i <= PL_SF_V6; i++) {
        const unsigned char *u = pl_feed_get(&in, (unsigned)i);
        if (!u)
            continue;        /* recorded in in.files */
        if ((inst = pl_snap_add(snap, names[i], (uint32_t)i)) < 0)
            return ENOMEM;
        n++;
        add_total(f, total, u);
        if (!values)
            continue;
        pl_feed_put(&in, PL_SF_ROW, u);
        pl_feed_walk(&in, (uint32_t)inst, f->feeds, f->nc, wanted);
    }
    if ((e = pl_feed_end(&in)) != 0)
        return e;
    if (n == 0)
        return 0;
    if ((inst = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (values) {
        pl_feed_put(&in, PL_SF_ROW, total);
        pl_feed_walk(&in, (uint32_t)inst, f->feeds, f->nc, wanted);
    }
    return 0;
}
