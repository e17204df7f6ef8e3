/* Paging File: one instance per active swap area of /proc/swaps (name = the
 * octal-unescaped file name, id = its line position), plus _Total.
 *
 * _Total is always there, as on Windows: with no swap it counts 0 bytes of
 * 0 (so % Usage reports a zero base).  Without /proc/swaps (a kernel without
 * CONFIG_SWAP, or no /proc) it is there with every value unset.  The kernel
 * keeps no peak: % Usage Peak is the most used seen by this query since it
 * opened, per file name. */
#include "pl_provider.h"
#include "providers.h"

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
    pl_env *env;
    pl_file swaps;
    peak *peaks;
    uint32_t npeaks, cap;
    uint64_t total_peak;
    char *name;              /* scratch: one unescaped name */
    size_t namecap;
} pfstate;

static void pf_close(void *state)
{
    pfstate *s = state;
    if (!s)
        return;
    pl_file_close(&s->swaps);
    for (uint32_t i = 0; i < s->npeaks; i++)
        free(s->peaks[i].name);
    free(s->peaks);
    free(s->name);
    pl_env_unref(s->env);
    free(s);
}

static int pf_open(pl_env *env, void **state)
{
    pfstate *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_file_init(&s->swaps);
    *state = s;
    return 0;
}

/* The file name at *p, unescaped (\040 is a space) into s->name. */
static int take_name(pfstate *s, const char **p)
{
    const char *f = *p, *e;
    size_t n;
    while (*f == ' ' || *f == '\t')
        f++;
    for (e = f; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
        ;
    n = (size_t)(e - f);
    if (n == 0)
        return EINVAL;
    if (n + 1 > s->namecap) {
        char *nb = realloc(s->name, n + 1);
        if (!nb)
            return ENOMEM;
        s->name = nb;
        s->namecap = n + 1;
    }
    char *o = s->name;
    for (size_t i = 0; i < n; i++) {
        if (f[i] == '\\' && i + 3 < n && f[i + 1] >= '0' && f[i + 1] <= '3' &&
            f[i + 2] >= '0' && f[i + 2] <= '7' && f[i + 3] >= '0' && f[i + 3] <= '7' &&
            (f[i + 1] != '0' || f[i + 2] != '0' || f[i + 3] != '0')) {
            *o++ = (char)((f[i + 1] - '0') * 64 + (f[i + 2] - '0') * 8 + (f[i + 3] - '0'));
            i += 3;
        } else {
            *o++ = f[i];
        }
    }
    *o = '\0';
    *p = e;
    return 0;
}

/* "Type Size Used Priority" after the name; 0 or EINVAL. */
static int take_values(const char *p, uint64_t *size, uint64_t *used, int64_t *prio)
{
    uint64_t pr;
    int neg;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++;                 /* partition / file */
    if (pl_parse_u64(&p, size) || pl_parse_u64(&p, used))
        return EINVAL;
    while (*p == ' ' || *p == '\t')
        p++;
    neg = *p == '-';
    p += neg;
    if (pl_parse_u64(&p, &pr) || pr > 2147483648u || (*p != '\n' && *p != ' '))
        return EINVAL;
    *prio = neg ? -(int64_t)pr : (int64_t)pr;
    /* KiB -> bytes must fit, and used cannot exceed size */
    if (*size > UINT64_MAX / 1024 || *used > *size)
        return EINVAL;
    *size *= 1024;
    *used *= 1024;
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

/* values = 0: instances only. */
static int pf_read(pfstate *s, pl_snapshot *snap, int values)
{
    uint64_t tsize = 0, tused = 0;
    uint32_t n = 0;
    int e, ok = 1, ti;
    pl_snap_clear(snap);
    e = pl_file_read(&s->swaps, s->env, "proc/swaps");
    if (e && e != ENOENT) {
        snap->err_path = "proc/swaps";
        return e;
    }
    if (e)
        ok = 0;              /* no swap support: _Total without values */
    for (uint32_t i = 0; i < s->npeaks; i++)
        s->peaks[i].seen = 0;
    for (const char *p = e ? NULL : s->swaps.buf; p && *p; p = pl_next_line(p)) {
        uint64_t size, used;
        int64_t prio;
        int k;
        if (strncmp(p, "Filename", 8) == 0)
            continue;        /* the header */
        if ((e = take_name(s, &p)) == ENOMEM)
            return ENOMEM;
        if (e)
            continue;        /* a blank line */
        if ((k = pl_snap_add(snap, s->name, n++)) < 0)
            return ENOMEM;
        if (!values)
            continue;
        if (!strchr(p, '\n') || take_values(p, &size, &used, &prio)) {
            ok = 0;          /* a partial _Total would be wrong: none */
            continue;
        }
        peak *pk = find_peak(s, s->name);
        if (!pk)
            return ENOMEM;
        if (used > pk->used)
            pk->used = used;
        pk->seen = 1;
        set_values(snap, (uint32_t)k, size, used, pk->used);
        double d = (double)prio;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        pl_snap_set(snap, (uint32_t)k, P_PRIO, bits);
        tsize += size;       /* both below 2^64 / 1024 each; a few areas cannot overflow */
        tused += used;
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
