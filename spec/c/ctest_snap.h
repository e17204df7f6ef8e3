/* Snapshot assertions and temporary trees shared by the providers' C tests:
 * instance lookup, EXPECT/UNSET of one counter of one instance (by name),
 * INSTS/NAMES (instances in order), provider states kept across collections
 * (pctx), fmt2 (a formatted value between two snapshots 10 s apart),
 * put (write dir/rel, creating parents) and rm_tree.  All static inline, so a
 * test that uses only some of them gets no unused-function warnings. */
#ifndef CTEST_SNAP_H
#define CTEST_SNAP_H

#include "perflib.h"
#include "ctest.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- snapshot accessors ------------------------------------------------ */

/* Index of the instance named `name`, -1 if none. */
static inline int inst_of(const pl_snapshot *s, const char *name)
{
    for (uint32_t i = 0; i < s->ninst; i++)
        if (strcmp(pl_snap_name(s, i), name) == 0)
            return (int)i;
    return -1;
}

/* 1 and *v when set, 0 when unset (or no_access) or the instance is
 * unknown; an unknown counter is a failed check. */
static inline int get(const pl_snapshot *s, const char *inst, const char *ctr, uint64_t *v)
{
    int i = inst_of(s, inst), c = pl_counter_index_by_name(s->cs, ctr);
    if (c < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  no counter \"%s\"\n", ctr);
    }
    if (i < 0 || c < 0)
        return 0;
    size_t k = (size_t)i * s->cs->ncounters + (size_t)c;
    *v = s->values[k];
    return s->have[k] == 1;
}

/* The presence flag of a value (-1: no such instance or counter). */
static inline int have_of(const pl_snapshot *s, const char *inst, const char *ctr)
{
    int i = inst_of(s, inst), c = pl_counter_index_by_name(s->cs, ctr);
    return i < 0 || c < 0 ? -1 : s->have[(size_t)i * s->cs->ncounters + (size_t)c];
}

static inline void expect(int line, const pl_snapshot *s, const char *inst, const char *ctr, uint64_t want)
{
    uint64_t v = 0;
    if (inst_of(s, inst) < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: no instance \"%s\"\n", line, inst);
    } else if (!get(s, inst, ctr, &v)) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s \"%s\" unset, expected %llu\n", line, inst, ctr,
                (unsigned long long)want);
    } else if (v != want) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s \"%s\" == %llu, expected %llu\n", line, inst, ctr,
                (unsigned long long)v, (unsigned long long)want);
    }
}

/* flag: 0 (unset: the source lacks it) or PL_HAVE_NO_ACCESS (not readable) */
static inline void expect_absent(int line, const pl_snapshot *s, const char *inst, const char *ctr, int flag)
{
    int h = have_of(s, inst, ctr);
    if (inst_of(s, inst) < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: no instance \"%s\"\n", line, inst);
    } else if (h != flag) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %s \"%s\" has flag %d (value %llu), expected %s\n", line, inst, ctr, h,
                (unsigned long long)s->values[(size_t)inst_of(s, inst) * s->cs->ncounters +
                                             (size_t)(h < 0 ? 0 : pl_counter_index_by_name(s->cs, ctr))],
                flag ? "no_access" : "unset");
    }
}
#define expect_unset(line, s, inst, ctr) expect_absent(line, s, inst, ctr, 0)

/* Instance names and ids in order, against a NULL-terminated list (ids
 * NULL: names only); on a count mismatch the instances found are listed. */
static inline void expect_insts(int line, const pl_snapshot *s, const char *const *names, const uint32_t *ids)
{
    uint32_t n = 0;
    while (names[n])
        n++;
    if (s->ninst != n) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: %u instances, expected %u\n", line, (unsigned)s->ninst, (unsigned)n);
        for (uint32_t i = 0; i < s->ninst; i++)
            fprintf(stderr, "    \"%s\" %#x\n", pl_snap_name(s, i), (unsigned)s->inst[i].id);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(pl_snap_name(s, i), names[i]) != 0 || (ids && s->inst[i].id != ids[i])) {
            ct_failed_checks++;
            fprintf(stderr, "  line %d: instance %u is \"%s\" id %#x, expected \"%s\" id %#x\n", line,
                    (unsigned)i, pl_snap_name(s, i), (unsigned)s->inst[i].id, names[i],
                    ids ? (unsigned)ids[i] : (unsigned)s->inst[i].id);
        }
    }
}

#define INSTS(s, ids, ...) do { const char *const ct_n[] = { __VA_ARGS__, NULL }; \
    expect_insts(__LINE__, s, ct_n, ids); } while (0)
#define NAMES(s, ...) INSTS(s, NULL, __VA_ARGS__)

/* A test with assertions of its own #undefs these and defines its own. */
#define EXPECT(s, inst, ctr, want) expect(__LINE__, s, inst, ctr, want)
#define UNSET(s, inst, ctr) expect_unset(__LINE__, s, inst, ctr)
#define DENIED(s, inst, ctr) expect_absent(__LINE__, s, inst, ctr, PL_HAVE_NO_ACCESS)

/* ---- temporary trees --------------------------------------------------- */

/* Creates the parent directories of dir/rel (mode 0700); 0 on failure. */
static inline int mkdirs(const char *dir, const char *rel)
{
    char path[600];
    int n = snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (n < 0 || (size_t)n >= sizeof path)
        return 0;
    for (char *p = path + strlen(dir) + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return 0;
        *p = '/';
    }
    return 1;
}

/* Writes text to dir/rel in place (same inode: kept-open fds see it). */
static inline int put(const char *dir, const char *rel, const char *text)
{
    char path[600];
    FILE *f;
    if (!mkdirs(dir, rel))
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static inline int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void rm_tree(const char *dir)
{
    CHECK(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

/* ---- queries ------------------------------------------------------------------ */

/* Adds a counter path that must be taken; its spec index. */
static inline uint32_t qadd(pl_query *q, const char *path)
{
    pl_add_status st = PL_ADD_OK;
    uint32_t idx = 0;
    CHECK(pl_query_add_path(q, path, &st, &idx) == 0 && st == 0);
    return idx;
}

/* ---- a provider state kept across collections ---------------------------- */

typedef struct pctx {
    pl_env *env;
    const pl_counterset_def *cs;
    void *st;
} pctx;

/* Opens the provider of `set` below root; hz and page, when not 0, stand for
 * the machine's USER_HZ and page size (fixtures from other machines). */
static inline int pc_open_set(pctx *p, const char *root, const char *set, long hz, long page)
{
    memset(p, 0, sizeof *p);
    p->env = pl_env_new(root);
    if (!p->env)
        return errno ? errno : ENOMEM;
    if (hz)
        pl_env_set_user_hz(p->env, hz);
    if (page)
        pl_env_set_page_size(p->env, page);
    p->cs = pl_env_find(p->env, set);
    if (!p->cs)
        return ENOENT;
    return pl_provider_open(p->cs, p->env, &p->st);
}

static inline void pc_close(pctx *p)
{
    if (p->cs && p->st)
        p->cs->ops->close(p->st);
    pl_env_unref(p->env);
    memset(p, 0, sizeof *p);
}

/* Collects into s (initialised here on first use: s->cs == NULL). */
static inline int pc_collect(pctx *p, const uint8_t *wanted, pl_snapshot *s)
{
    if (!s->cs)
        pl_snap_init(s, p->cs);
    return p->cs->ops->collect(p->st, wanted, s);
}

/* Formatted value between two snapshots 10 s apart (1 GHz clock), the base
 * counter paired as the query layer does; s0 == s1 for one-sample types. */
static inline pl_status fmt2(const pl_snapshot *s0, const pl_snapshot *s1, const char *inst,
                      const char *ctr, double *out)
{
    int c = pl_counter_index_by_name(s1->cs, ctr), i0 = inst_of(s0, inst), i1 = inst_of(s1, inst);
    pl_raw r0 = {0, 1000000000ull, 0, 8}, r1 = {0, 11000000000ull, 0, 8};
    int64_t freq = 1000000000;
    *out = -1;
    if (c < 0 || i0 < 0 || i1 < 0)
        return PL_NO_INSTANCE;
    const pl_counter_def *d = &s1->cs->counters[c];
    size_t nc = s1->cs->ncounters, k0 = (size_t)i0 * nc + (size_t)c, k1 = (size_t)i1 * nc + (size_t)c;
    if (!s0->have[k0] || !s1->have[k1])
        return PL_NO_DATA;
    r0.first = s0->values[k0];
    r1.first = s1->values[k1];
    if (d->base_id != PL_NO_ID) {
        size_t b = (size_t)pl_counter_index(s1->cs, d->base_id);
        r0.second = s0->values[(size_t)i0 * nc + b];
        r1.second = s1->values[(size_t)i1 * nc + b];
    }
    /* 100 ns timer types count their time in 100 ns: 10 s = 10^8 */
    if (d->type == PERF_100NSEC_TIMER || d->type == PERF_100NSEC_TIMER_INV ||
        d->type == PERF_COUNTER_100NS_QUEUELEN_TYPE) {
        r0.second = 10000000ull;
        r1.second = 110000000ull;
    }
    /* a 100 ns multi-timer's base is its instance count M (pl_raw.multi) */
    if (d->type == PERF_100NSEC_MULTI_TIMER || d->type == PERF_100NSEC_MULTI_TIMER_INV) {
        r0.multi = (uint32_t)r0.second;
        r1.multi = (uint32_t)r1.second;
        r0.second = 10000000ull;
        r1.second = 110000000ull;
    }
    if (d->type == PERF_AVERAGE_TIMER)
        freq = 10000000;
    return pl_format_raw(d->type, &r1, pl_type_needs_two(d->type) ? &r0 : NULL, freq,
                         PL_FMT_NOCAP100, 0, out);
}


/* One collection of set below root into s (hz, page: as pc_open_set). */
static inline int pc_collect_tree(const char *root, const char *set, long hz, long page, const uint8_t *wanted,
                                  pl_snapshot *s)
{
    pctx p;
    int e = pc_open_set(&p, root, set, hz, page);
    memset(s, 0, sizeof *s);
    if (e == 0)
        e = pc_collect(&p, wanted, s);
    else if (p.cs)
        pl_snap_init(s, p.cs);
    pc_close(&p);
    return e;
}

/* fmt2 as a number, a failed check unless valid. */
static inline double val2(const pl_snapshot *s0, const pl_snapshot *s1, const char *inst, const char *ctr)
{
    double v;
    pl_status st = fmt2(s0, s1, inst, ctr, &v);
    if (st != PL_VALID) {
        ct_failed_checks++;
        fprintf(stderr, "  %s \"%s\": status %s\n", inst, ctr, pl_status_name(st));
    }
    return v;
}

/* The wanted-counters mask of a collect: names, NULL-terminated (free it). */
static inline uint8_t *want_only(const pl_counterset_def *cs, const char *const *names)
{
    uint8_t *w = calloc(cs->ncounters, 1);
    for (; w && *names; names++) {
        int i = pl_counter_index_by_name(cs, *names);
        CHECK(i >= 0);
        if (i >= 0)
            w[i] = 1;
    }
    return w;
}

#endif
