/* Paging File: one instance per active swap area of /proc/swaps (name = the
 * octal-unescaped file name, id = its line position), plus _Total.  The file
 * is the machine's source (swaps.h), read and parsed once per collect.
 *
 * _Total is always there, as on Windows: with no swap it counts 0 bytes of
 * 0 (so % Usage reports a zero base).  Without /proc/swaps (a kernel without
 * CONFIG_SWAP, or no /proc) it is there with every value unset.  The kernel
 * keeps no peak: % Usage Peak is the most used seen by this query since it
 * opened, per file name. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_ksrc.h"
#include "swaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef PERF_DOUBLE_RAW
#define PERF_DOUBLE_RAW 0x00012000u   /* 8 bytes holding an IEEE double */
#endif

enum { P_USAGE, P_USAGE_BASE, P_PEAK, P_PEAK_BASE, P_SIZE, P_USED, P_PRIO, P_N };

#define CTR(id, name, help, type, base, detail, u) { id, name, help, type, base, detail, 0, 8, u },

static const pl_counter_def counters[] = {
    CTR(0, "% Usage", "Share of the swap area in use (/proc/swaps Used over Size).",
        PERF_LARGE_RAW_FRACTION, 1, PERF_DETAIL_NOVICE, PL_U(BYTES, 1, GAUGE))
    CTR(1, "% Usage Base", "Size of the swap area in bytes (/proc/swaps Size, KiB x 1024), "
        "the base of % Usage.", PERF_LARGE_RAW_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, PL_U(BYTES, 1, DISCRETE))
    CTR(2, "% Usage Peak", "Highest use of the swap area seen since this query opened, as a "
        "share of its size; the kernel keeps no peak, so unlike Windows it is not since boot.",
        PERF_LARGE_RAW_FRACTION, 3, PERF_DETAIL_NOVICE, PL_U(BYTES, 1, GAUGE))
    CTR(3, "% Usage Peak Base", "Size of the swap area in bytes, the base of % Usage Peak.",
        PERF_LARGE_RAW_BASE, PL_NO_ID, PERF_DETAIL_NOVICE, PL_U(BYTES, 1, DISCRETE))
    CTR(32, "Size Bytes", "Size of the swap area in bytes (/proc/swaps Size, KiB x 1024).",
        PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, PL_U(BYTES, 1, DISCRETE))
    CTR(33, "Used Bytes", "Bytes of the swap area in use (/proc/swaps Used, KiB x 1024).",
        PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, PERF_DETAIL_ADVANCED, PL_U(BYTES, 1, GAUGE))
    CTR(34, "Priority", "Swap priority, higher used first; negative for areas given none "
        "(/proc/swaps Priority, raw data is a double).", PERF_DOUBLE_RAW, PL_NO_ID,
        PERF_DETAIL_ADVANCED, PL_U(NONE, 1, DISCRETE))
};

#define NC (sizeof counters / sizeof counters[0])
_Static_assert(NC == P_N, "counter layout");

#define TOTAL_ID 0xFFFFFFFEu

typedef struct peak {
    char *name;
    uint64_t used;
    int seen;
} peak;

typedef struct pfstate {
    pl_ksrc *swaps;          /* the machine's reader */
    peak *peaks;
    uint32_t npeaks, cap;
    uint64_t total_peak;
} pfstate;

static void pf_close(void *state)
{
    pfstate *s = state;
    if (!s)
        return;
    for (uint32_t i = 0; i < s->npeaks; i++)
        free(s->peaks[i].name);
    free(s->peaks);
    free(s);
}

static int pf_open(pl_env *env, void **state)
{
    pfstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    if (!(s->swaps = pl_ksrc_attach(env, &pl_ksrc_swaps))) {
        free(s);
        return ENOMEM;
    }
    *state = s;
    return 0;
}

static peak *find_peak(pfstate *s, const char *name)
{
    for (uint32_t i = 0; i < s->npeaks; i++)
        if (strcmp(s->peaks[i].name, name) == 0)
            return &s->peaks[i];
    if (s->npeaks == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        peak *np = realloc(s->peaks, cap * sizeof *np);
        if (!np)
            return NULL;
        s->peaks = np;
        s->cap = cap;
    }
    peak *k = &s->peaks[s->npeaks];
    if (!(k->name = strdup(name)))
        return NULL;
    k->used = 0;
    s->npeaks++;
    return k;
}

static void set_values(pl_snapshot *snap, uint32_t i, uint64_t size, uint64_t used, uint64_t pk)
{
    pl_snap_set(snap, i, P_USAGE, used);
    pl_snap_set(snap, i, P_USAGE_BASE, size);
    pl_snap_set(snap, i, P_PEAK, pk);
    pl_snap_set(snap, i, P_PEAK_BASE, size);
    pl_snap_set(snap, i, P_SIZE, size);
    pl_snap_set(snap, i, P_USED, used);
}

static void set_prio(pl_snapshot *snap, uint32_t i, int64_t prio)
{
    double d = (double)prio;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    pl_snap_set(snap, i, P_PRIO, bits);
}

/* The rows of this collect's read: 0 with *w (NULL when the kernel has no
 * swap support, ENOENT), or the read's errno. */
static int pf_rows(pfstate *s, pl_snapshot *snap, const pl_swaps **w)
{
    static const pl_swaps none;
    int e = pl_ksrc_get(s->swaps);
    *w = NULL;
    if (e == ENOENT)
        return 0;            /* no swap support: _Total without values */
    if (e && e != EINVAL) {
        snap->err_path = pl_ksrc_path(s->swaps);
        return e;
    }
    snap->time = pl_ksrc_time(s->swaps);
    *w = e ? &none : pl_ksrc_data(s->swaps);   /* EINVAL: an empty file, no areas */
    return 0;
}

/* values = 0: instances only. */
static int pf_read(pfstate *s, pl_snapshot *snap, int values)
{
    uint64_t tsize = 0, tused = 0;
    const pl_swaps *w;
    int e, ok, ti;
    pl_snap_clear(snap);
    if ((e = pf_rows(s, snap, &w)) != 0)
        return e;
    ok = w != NULL;
    for (uint32_t i = 0; i < s->npeaks; i++)
        s->peaks[i].seen = 0;
    for (uint32_t n = 0; w && n < w->rows.n; n++) {
        const pl_swaprow *r = (const pl_swaprow *)w->rows.row + n;
        const char *name = w->pool + r->name;
        peak *pk;
        int k;
        if ((k = pl_snap_add(snap, name, n)) < 0)
            return ENOMEM;
        if (!values)
            continue;
        if (!r->ok) {
            ok = 0;          /* a partial _Total would be wrong: none */
            continue;
        }
        if (!(pk = find_peak(s, name)))
            return ENOMEM;
        if (r->used > pk->used)
            pk->used = r->used;
        pk->seen = 1;
        set_values(snap, (uint32_t)k, r->size, r->used, pk->used);
        set_prio(snap, (uint32_t)k, r->prio);
        tsize += r->size;    /* both below 2^64 / 1024 each; a few areas cannot overflow */
        tused += r->used;
    }
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (values && ok) {
        if (tused > s->total_peak)
            s->total_peak = tused;
        set_values(snap, (uint32_t)ti, tsize, tused, s->total_peak);
    }
    /* swapoff'd areas forget their peak */
    if (values) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < s->npeaks; i++) {
            if (s->peaks[i].seen)
                s->peaks[m++] = s->peaks[i];
            else
                free(s->peaks[i].name);
        }
        s->npeaks = m;
    }
    return 0;
}

static int pf_instances(void *state, pl_snapshot *snap)
{
    return pf_read(state, snap, 0);
}

static int pf_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    (void)wanted;            /* one small file gives every counter */
    return pf_read(state, snap, 1);
}

static const pl_provider_ops ops = { pf_open, pf_close, pf_instances, pf_collect, NULL };

const pl_counterset_def pl_pagingfile_def = {
    /* UUIDv5(perflib namespace, "Paging File") */
    { 0x9e441b41, 0xb88a, 0x5a29, { 0x9e, 0x70, 0x12, 0xf4, 0xe2, 0x7b, 0xb0, 0x5f } },
    "Paging File",
    "Use of each active swap area of /proc/swaps and of all of them; _Total is always "
    "listed, with 0 bytes when no swap is active.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 16000, NULL,
};
