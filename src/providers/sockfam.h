/* The shape UDP Queues and TCP States share: one socket table per address
 * family (/proc/net/<proto> and <proto>6, kernel sources whose parsed
 * struct is v[n] values with st[n] statuses), instances IPv4 and IPv6 for
 * the tables that could be read, and _Total over them.  Each table is one
 * source: a missing one (IPv6 disabled) drops its instance; the set fails
 * (errno, err_path) only when both failed. */
#ifndef PL_SOCKFAM_H
#define PL_SOCKFAM_H

#include "pl_provider.h"
#include "pl_rowset.h"

enum { PL_SF_V4, PL_SF_V6, PL_SF_ROW, PL_SF_NSRC };

typedef struct pl_sockfam {
    const pl_feed_src *srcs;     /* PL_SF_NSRC: the two tables, then the row */
    const pl_feed *feeds;
    uint32_t nc;                 /* counters (= feeds) */
    unsigned nv;                 /* values of the parsed struct */
    size_t v_off, st_off;        /* where v[] and st[] are in it */
    int max_field;               /* the field _Total takes the largest of, -1 for none */
} pl_sockfam;

/* Opens the two tables' readers into k[0..1]: 0 or ENOMEM. */
int pl_sockfam_open(const pl_sockfam *f, pl_env *env, pl_ksrc **k);
/* Lists (and, when values, fills) the instances into snap; total is the
 * scratch struct for _Total (the parsed struct's size). */
int pl_sockfam_read(const pl_sockfam *f, pl_ksrc **k, void *ctx, const uint8_t *wanted,
                    pl_snapshot *snap, int values, void *total);

/* The state, open, close and read of such a set, and NAME_ops (PL_READ_OPS);
 * T is the parsed struct of its tables (the scratch for _Total). */
#define PL_SOCKFAM_OPS(name, fam, T) \
    typedef struct name##_state { \
        pl_ksrc *k[PL_SF_NSRC]; \
        T total; \
    } name##_state; \
    static void name##_close(void *state) \
    { \
        free(state);         /* the readers are the environment's */ \
    } \
    static int name##_open(pl_env *env, void **state) \
    { \
        name##_state *s = calloc(1, sizeof *s); \
        if (!s || pl_sockfam_open(&(fam), env, s->k) != 0) { \
            free(s); \
            return ENOMEM; \
        } \
        *state = s; \
        return 0; \
    } \
    static int name##_read(name##_state *s, const uint8_t *wanted, pl_snapshot *snap, int values) \
    { \
        return pl_sockfam_read(&(fam), s->k, s, wanted, snap, values, &s->total); \
    } \
    PL_READ_OPS(name, name##_open, name##_close, name##_read)

#endif
