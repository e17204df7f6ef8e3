/* Paging File: one instance per active swap area of /proc/swaps (name = the
 * octal-unescaped file name, id = its line position), plus _Total.  The file
 * is the machine's source (swaps.h), read and parsed once per collect.
 *
 * _Total is always there, as on Windows: with no swap it counts 0 bytes of
 * 0 (so % Usage reports a zero base).  Without /proc/swaps (a kernel without
 * CONFIG_SWAP, or no /proc) it is there with every value unset.  The kernel
 * keeps no peak: % Usage Peak is the most used seen by this query since it
 * opened, per file name.
 *
 * Every counter is a row (pl_rowset.h): the collect makes each instance's
 * row (an area's values with its peak, or _Total's sums) and the generic
 * walk fills the counters from it. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_ksrc.h"
#include "pl_rowset.h"
#include "swaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef PERF_DOUBLE_RAW
#define PERF_DOUBLE_RAW 0x00012000u   /* 8 bytes holding an IEEE double */
#endif

/* The values of one instance as the walk reads them: an area's row, or
 * _Total's sums (n = PF_PRIO: no priority). */
enum { PF_SIZE, PF_USED, PF_PEAK, PF_PRIO, PF_NF };

typedef struct pf_row {
    uint64_t v[PF_NF];       /* bytes; the priority as a double's bits */
    int n;                   /* fields present */
} pf_row;

enum { S_ROW, NSRC };

static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_N(NULL, pf_row, v, n) };

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define PF_ROWS(R) \
    R(0, "% Usage", "Share of the swap area in use (/proc/swaps Used over Size).", \
      PERF_LARGE_RAW_FRACTION, 1, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ROW, PF_USED)) \
    R(1, "% Usage Base", "Size of the swap area in bytes (/proc/swaps Size, KiB x 1024), " \
      "the base of % Usage.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, DISCRETE), PL_FIELD(S_ROW, PF_SIZE)) \
    R(2, "% Usage Peak", "Highest use of the swap area seen since this query opened, as a " \
      "share of its size; the kernel keeps no peak, so unlike Windows it is not since boot.", \
      PERF_LARGE_RAW_FRACTION, 3, NOV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ROW, PF_PEAK)) \
    R(3, "% Usage Peak Base", "Size of the swap area in bytes, the base of % Usage Peak.", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(BYTES, 1, DISCRETE), PL_FIELD(S_ROW, PF_SIZE)) \
    R(32, "Size Bytes", "Size of the swap area in bytes (/proc/swaps Size, KiB x 1024).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, DISCRETE), PL_FIELD(S_ROW, PF_SIZE)) \
    R(33, "Used Bytes", "Bytes of the swap area in use (/proc/swaps Used, KiB x 1024).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(BYTES, 1, GAUGE), PL_FIELD(S_ROW, PF_USED)) \
    R(34, "Priority", "Swap priority, higher used first; negative for areas given none " \
      "(/proc/swaps Priority, raw data is a double).", \
      PERF_DOUBLE_RAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_FIELD(S_ROW, PF_PRIO))

static const pl_counter_def counters[] = { PF_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { PF_ROWS(PL_ROW_FEED) };

#define NC (sizeof counters / sizeof counters[0])

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

/* An area's values, its peak and its priority (a double's bits) for the walk. */
static void area_row(pf_row *row, const pl_swaprow *r, uint64_t peak_used)
{
    double d = (double)r->prio;
    row->v[PF_SIZE] = r->size;
    row->v[PF_USED] = r->used;
    row->v[PF_PEAK] = peak_used;
    memcpy(&row->v[PF_PRIO], &d, sizeof d);
    row->n = PF_NF;
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

/* Swapoff'd areas forget their peak. */
static void forget_unseen(pfstate *s)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->npeaks; i++) {
        if (s->peaks[i].seen)
            s->peaks[m++] = s->peaks[i];
        else
            free(s->peaks[i].name);
    }
    s->npeaks = m;
}

/* values = 0: instances only.  Each instance's row is handed to the walk
 * (pl_feed_put); a malformed area gets none, so its counters stay unset. */
static int pf_read(pfstate *s, pl_snapshot *snap, const uint8_t *wanted, int values)
{
    pf_row row, total = { { 0 }, PF_PRIO };
    const pl_swaps *w;
    pl_feed_in in;
    int e, ok, ti;
    pl_snap_clear(snap);
    if ((e = pf_rows(s, snap, &w)) != 0)
        return e;
    ok = w != NULL;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
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
        area_row(&row, r, pk->used);
        pl_feed_put(&in, S_ROW, &row);
        pl_feed_walk(&in, (uint32_t)k, feeds, NC, wanted);
        /* both below 2^64 / 1024 each; a few areas cannot overflow */
        total.v[PF_SIZE] += r->size;
        total.v[PF_USED] += r->used;
    }
    if ((ti = pl_snap_add(snap, "_Total", TOTAL_ID)) < 0)
        return ENOMEM;
    if (values && ok) {
        if (total.v[PF_USED] > s->total_peak)
            s->total_peak = total.v[PF_USED];
        total.v[PF_PEAK] = s->total_peak;
        pl_feed_put(&in, S_ROW, &total);
        pl_feed_walk(&in, (uint32_t)ti, feeds, NC, wanted);
    }
    if (values)
        forget_unseen(s);
    return 0;
}

static int pf_instances(void *state, pl_snapshot *snap)
{
    return pf_read(state, snap, NULL, 0);
}

static int pf_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    return pf_read(state, snap, wanted, 1);   /* one small file gives every counter */
}

static const pl_provider_ops ops = { pf_open, pf_close, pf_instances, pf_collect, NULL, NULL };

const pl_counterset_def pl_pagingfile_def = {
    /* UUIDv5(perflib namespace, "Paging File") */
    { 0x9e441b41, 0xb88a, 0x5a29, { 0x9e, 0x70, 0x12, 0xf4, 0xe2, 0x7b, 0xb0, 0x5f } },
    "Paging File",
    "Use of each active swap area of /proc/swaps and of all of them; _Total is always "
    "listed, with 0 bytes when no swap is active.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &ops, 16000, NULL,
};
