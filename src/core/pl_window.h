/* Windows of (sample time, value) for rule evaluation, and their reducers.
 *
 * A window keeps the samples of the last `span` seconds in a ring that
 * doubles when full (pushing and pruning allocate nothing once it has grown
 * to size).  A cooked window made for one reducer (avg, min, max or pct)
 * keeps that reducer's state as samples come and go, so reducing costs O(1)
 * or O(log n) instead of a pass.  A raw window keeps counter values with
 * their integer form and a reset flag on a sample that went backwards, whose
 * interval is never counted: a reset is not a spike.
 *
 * Part of the counter core: no Lua dependency.  perflib.rules uses it through
 * the perflib.Window class and the rule bank of the binding. */
#ifndef PL_WINDOW_H
#define PL_WINDOW_H

#include <stddef.h>
#include <stdint.h>

typedef enum pl_wfn {
    PL_WFN_LAST, PL_WFN_RAW, PL_WFN_AVG, PL_WFN_MIN, PL_WFN_MAX, PL_WFN_PCT,
    PL_WFN_RATE, PL_WFN_INCREASE, PL_WFN_NONE
} pl_wfn;

/* "last" .. "increase"; PL_WFN_NONE for anything else. */
pl_wfn pl_wfn_parse(const char *name);

/* A value as it came: integers keep their 64 bits for raw deltas. */
typedef struct pl_wval {
    double d;                /* the value as a double (the integer converted) */
    int64_t i;               /* the integer, when isint */
    int isint;
} pl_wval;

typedef struct pl_window {
    double span;
    int raw;
    pl_wfn agg;              /* the reducer whose state is kept, or PL_WFN_NONE */
    uint64_t lo, hi;         /* samples lo..hi; empty when hi < lo */
    size_t mask;             /* ring capacity - 1 (capacity 0: nothing allocated yet) */
    double *tv;              /* time and value of slot p at 2p and 2p + 1 */
    int64_t *iv;             /* raw windows: integer values */
    unsigned char *fl;       /* raw windows: PL_WF_RESET, PL_WF_INT */
    /* reducer state: valid when ok; nf samples are not finite (left out) */
    int ok;
    size_t nf;
    double sum, c;           /* avg: Neumaier sum */
    unsigned since;          /* avg: prunes since the sum was last rebuilt */
    uint64_t *dq;            /* min, max: sample numbers of a monotonic deque */
    uint64_t dlo, dhi;
    double *sorted;          /* pct: the finite values, sorted */
    size_t ns;
} pl_window;

#define PL_WF_RESET 1u
#define PL_WF_INT 2u

/* Status of a value as the rule engine sees it. */
typedef enum pl_wstatus { PL_WST_VALID, PL_WST_RESET, PL_WST_FIRST, PL_WST_OTHER } pl_wstatus;
/* Why a cooked value is unknown. */
typedef enum pl_why { PL_WHY_NONE, PL_WHY_RESET, PL_WHY_FIRST, PL_WHY_NODATA } pl_why;

/* A window keeping span seconds (raw windows keep one sample more for
 * deltas); agg: the reducer it will be reduced with (kept incrementally). */
void pl_window_init(pl_window *w, double span, int raw, pl_wfn agg);
void pl_window_free(pl_window *w);
static inline size_t pl_window_count(const pl_window *w) { return w->hi >= w->lo ? (size_t)(w->hi - w->lo + 1) : 0; }

/* Pushes a sample and prunes; *was_reset (may be NULL) is set for raw
 * windows when the value went backwards or reset was given on a non-empty
 * window.  A time not after the last sample's replaces the last value.
 * 0 or ENOMEM (the window is unchanged then). */
int pl_window_push(pl_window *w, double t, pl_wval v, int reset, int *was_reset);
/* Appends a sample as it is (no prune, no reset detection): for restoring. */
int pl_window_append(pl_window *w, double t, pl_wval v, int reset);
/* Drops what is older than the span at time now. */
void pl_window_prune(pl_window *w, double now);
/* Sample k (0 = oldest) of the window. */
void pl_window_at(const pl_window *w, size_t k, double *t, pl_wval *v, int *reset);
/* Is v below prev (a counter reset)? Integers compare unsigned. */
int pl_wval_decreased(pl_wval v, pl_wval prev);

/* Reduces the samples after now - window with fn (p: the percentile).
 * 1 and *out, or 0 when unknown (no usable samples or intervals); -1 with
 * ENOMEM in errno. */
int pl_window_reduce(pl_window *w, pl_wfn fn, double window, double p, double now, double *out);

/* Takes one value into the window as the rule engine does, and cooks it:
 * v is NULL when the instance has no value.  Sets *why, and *value when
 * *why is PL_WHY_NONE.  0 or ENOMEM. */
int pl_window_cook(pl_window *w, double t, const pl_wval *v, pl_wstatus st, pl_wfn fn, double window,
                   double p, double *value, pl_why *why);

/* One threshold level: above x (up) or below x, clearing at clear when set
 * (hysteresis).  rank orders severities. */
typedef struct pl_wlevel {
    int up;
    int has_clear;
    double x, clear;
    int rank;
} pl_wlevel;
#define PL_WLEVEL_MAX 16

/* Evaluates n levels on value v with their latched sides in *latch (bit i:
 * level i is on), updating it.  Returns 1 when any level is on; *sev is the
 * index of the highest-ranked level that is on (the last of equal ranks),
 * or -1. */
int pl_levels_eval(const pl_wlevel *lv, int n, double v, uint32_t *latch, int *sev);

/* Flap detection (Nagios style) on an alert's condition bit: the last
 * `window` bits, the changes between neighbours weighted from 0.8 (oldest)
 * to 1.2 (newest), as a share of window - 1. */
typedef struct pl_flap {
    uint32_t window;         /* >= 2 */
    uint32_t n, head;        /* bits held, ring index of the oldest */
    uint32_t cnt;            /* changes between neighbours among them */
    int has_pct;
    double pct;              /* after the latest push with two bits or more */
    uint8_t *bits;           /* ring of window bytes */
} pl_flap;

/* 0 or ENOMEM. */
int pl_flap_init(pl_flap *f, uint32_t window);
void pl_flap_free(pl_flap *f);
/* The share after pushing bit, without pushing it: 1 and *pct, or 0 when
 * fewer than two bits would be held (the share stays as it was). */
int pl_flap_peek(const pl_flap *f, int bit, double *pct);
/* Pushes bit (dropping the oldest beyond the window) and updates pct. */
void pl_flap_push(pl_flap *f, int bit);
/* The same with what pl_flap_peek said for this bit (no second pass). */
void pl_flap_commit(pl_flap *f, int bit, int has_pct, double pct);
/* A full history without a change whose bits are all `bit`: pushing bit
 * again changes nothing. */
static inline int pl_flap_steady(const pl_flap *f, int bit)
{
    return f->n == f->window && f->n > 0 && f->cnt == 0 && f->has_pct && f->pct == 0.0
        && f->bits[(f->head + f->n - 1) % f->window] == (bit != 0);
}
/* Bit k (0 = oldest). */
static inline int pl_flap_bit(const pl_flap *f, uint32_t k) { return f->bits[(f->head + k) % f->window]; }

/* What a push means for an alert that is (or is not) flapping: +1 flapping
 * starts, -1 it ends, 0 nothing. */
int pl_flap_change(int flapping, int has_pct, double pct, double high, double low);

#endif
