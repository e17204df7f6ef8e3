/* Rule windows (pl_window.h): a ring of samples numbered lo..hi for ever,
 * sample i in slot i & mask, with the reducer state kept incrementally. */
#include "pl_window.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const wfn_names[] = { "last", "raw", "avg", "min", "max", "pct", "rate", "increase" };

pl_wfn pl_wfn_parse(const char *name)
{
    for (int k = 0; k < (int)(sizeof wfn_names / sizeof *wfn_names); k++)
        if (strcmp(name, wfn_names[k]) == 0)
            return (pl_wfn)k;
    return PL_WFN_NONE;
}

void pl_window_init(pl_window *w, double span, int raw, pl_wfn agg)
{
    memset(w, 0, sizeof *w);
    w->span = span;
    w->raw = raw != 0;
    w->agg = (!raw && (agg == PL_WFN_AVG || agg == PL_WFN_MIN || agg == PL_WFN_MAX || agg == PL_WFN_PCT))
           ? agg : PL_WFN_NONE;
    w->lo = 1;
    w->hi = 0;
}

void pl_window_free(pl_window *w)
{
    free(w->tv);
    free(w->iv);
    free(w->fl);
    free(w->dq);
    free(w->sorted);
    w->tv = w->sorted = NULL;
    w->iv = NULL;
    w->fl = NULL;
    w->dq = NULL;
    w->mask = 0;
    w->lo = 1;
    w->hi = 0;
    w->ok = 0;
}

#define SLOT(w, i) ((size_t)(i) & (w)->mask)
/* time and value of slot p sit side by side: one cache line for both */
#define T_(w, p) ((w)->tv[2 * (p)])
#define V_(w, p) ((w)->tv[2 * (p) + 1])

static int finite_(double v) { return v == v && v != HUGE_VAL && v != -HUGE_VAL; }

/* Doubles the ring (or makes the first one), keeping the samples' numbers.
 * Every array is allocated before any is replaced: a failure changes nothing. */
static int grow(pl_window *w)
{
    size_t cap = w->tv ? (w->mask + 1) * 2 : 4;
    if (cap > SIZE_MAX / sizeof(double) / 4)
        return ENOMEM;
    double *tv = malloc(2 * cap * sizeof *tv);
    int64_t *iv = w->raw ? malloc(cap * sizeof *iv) : NULL;
    unsigned char *fl = w->raw ? malloc(cap) : NULL;
    uint64_t *dq = (w->agg == PL_WFN_MIN || w->agg == PL_WFN_MAX) ? malloc(cap * sizeof *dq) : NULL;
    double *sorted = w->agg == PL_WFN_PCT ? malloc(cap * sizeof *sorted) : NULL;
    if (!tv || (w->raw && (!iv || !fl)) || ((w->agg == PL_WFN_MIN || w->agg == PL_WFN_MAX) && !dq)
        || (w->agg == PL_WFN_PCT && !sorted)) {
        free(tv); free(iv); free(fl); free(dq); free(sorted);
        return ENOMEM;
    }
    size_t nmask = cap - 1;
    for (uint64_t i = w->lo; w->tv && i <= w->hi; i++) {
        size_t p = SLOT(w, i), q = (size_t)i & nmask;
        tv[2 * q] = T_(w, p);
        tv[2 * q + 1] = V_(w, p);
        if (w->raw) {
            iv[q] = w->iv[p];
            fl[q] = w->fl[p];
        }
    }
    if (sorted && w->sorted)
        memcpy(sorted, w->sorted, w->ns * sizeof *sorted);
    free(w->tv); free(w->iv); free(w->fl); free(w->dq); free(w->sorted);
    w->tv = tv; w->iv = iv; w->fl = fl; w->dq = dq; w->sorted = sorted;
    w->mask = nmask;
    w->ok = 0;                       /* the deque's ring follows at the next reduce */
    return 0;
}

static void put(pl_window *w, size_t p, double t, pl_wval v, int reset)
{
    T_(w, p) = t;
    V_(w, p) = v.d;
    if (w->raw) {
        w->iv[p] = v.i;
        w->fl[p] = (unsigned char)((reset ? PL_WF_RESET : 0u) | (v.isint ? PL_WF_INT : 0u));
    }
}

/* Appends sample hi + 1 (no reducer state); its number in *num. */
static int append(pl_window *w, double t, pl_wval v, int reset, uint64_t *num)
{
    if (!w->tv || w->hi + 1 - w->lo > w->mask) {
        int e = grow(w);
        if (e)
            return e;
    }
    w->hi++;
    put(w, SLOT(w, w->hi), t, v, reset);
    *num = w->hi;
    return 0;
}

int pl_window_append(pl_window *w, double t, pl_wval v, int reset)
{
    uint64_t num;
    int e = append(w, t, v, reset, &num);
    if (!e)
        w->ok = 0;
    return e;
}

void pl_window_at(const pl_window *w, size_t k, double *t, pl_wval *v, int *reset)
{
    size_t p = SLOT(w, w->lo + k);
    *t = T_(w, p);
    v->d = V_(w, p);
    v->isint = w->raw && (w->fl[p] & PL_WF_INT);
    v->i = w->raw ? w->iv[p] : 0;
    *reset = w->raw && (w->fl[p] & PL_WF_RESET);
}

int pl_wval_decreased(pl_wval v, pl_wval prev)
{
    if (v.isint && prev.isint)
        return (uint64_t)v.i < (uint64_t)prev.i;
    return v.d < prev.d;
}

/* ---------------------------------------------------------------- reducer state */

static void neumaier(pl_window *w, double x)
{
    double s = w->sum, t = s + x;
    if (fabs(s) >= fabs(x))
        w->c += (s - t) + x;
    else
        w->c += (x - t) + s;
    w->sum = t;
}

/* Lowest position in sorted s[0..n) whose value is >= v (> v when after). */
static size_t bsearch_(const double *s, size_t n, double v, int after)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        double x = s[m];
        if (x < v || (after && x == v))
            a = m + 1;
        else
            b = m;
    }
    return a;
}

static void agg_add(pl_window *w, uint64_t i, double v)
{
    if (!finite_(v)) {
        w->nf++;
        return;
    }
    switch (w->agg) {
    case PL_WFN_AVG:
        neumaier(w, v);
        break;
    case PL_WFN_PCT: {
        size_t p = bsearch_(w->sorted, w->ns, v, 1);
        memmove(w->sorted + p + 1, w->sorted + p, (w->ns - p) * sizeof *w->sorted);
        w->sorted[p] = v;
        w->ns++;
        break;
    }
    case PL_WFN_MIN:
    case PL_WFN_MAX: {
        int min = w->agg == PL_WFN_MIN;
        while (w->dhi >= w->dlo) {
            double x = V_(w, SLOT(w, w->dq[SLOT(w, w->dhi)]));
            if (min ? x >= v : x <= v)
                w->dhi--;
            else
                break;
        }
        w->dhi++;
        w->dq[SLOT(w, w->dhi)] = i;
        break;
    }
    default:
        break;
    }
}

static void agg_drop(pl_window *w, uint64_t i, double v)
{
    if (!finite_(v)) {
        w->nf--;
        return;
    }
    switch (w->agg) {
    case PL_WFN_AVG:
        neumaier(w, -v);
        break;
    case PL_WFN_PCT: {
        size_t p = bsearch_(w->sorted, w->ns, v, 0);
        if (p >= w->ns || w->sorted[p] != v) {
            w->ok = 0;               /* cannot happen with finite values */
            return;
        }
        memmove(w->sorted + p, w->sorted + p + 1, (w->ns - p - 1) * sizeof *w->sorted);
        w->ns--;
        break;
    }
    case PL_WFN_MIN:
    case PL_WFN_MAX:
        if (w->dhi >= w->dlo && w->dq[SLOT(w, w->dlo)] == i)
            w->dlo++;
        break;
    default:
        break;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (x != x)
        return y != y ? 0 : 1;       /* NaN last, deterministically */
    if (y != y)
        return -1;
    return (x > y) - (x < y);
}

static void agg_rebuild(pl_window *w)
{
    w->ok = 1;
    w->nf = 0;
    w->sum = w->c = 0.0;
    switch (w->agg) {
    case PL_WFN_AVG: {
        /* a plain sum, as the full pass makes: the running sum starts again from it */
        double sum = 0.0;
        for (uint64_t i = w->lo; i <= w->hi; i++) {
            double v = V_(w, SLOT(w, i));
            if (finite_(v))
                sum += v;
            else
                w->nf++;
        }
        w->sum = sum;
        w->since = 0;
        break;
    }
    case PL_WFN_PCT:
        w->ns = 0;
        for (uint64_t i = w->lo; i <= w->hi; i++) {
            double v = V_(w, SLOT(w, i));
            if (finite_(v))
                w->sorted[w->ns++] = v;
            else
                w->nf++;
        }
        qsort(w->sorted, w->ns, sizeof *w->sorted, cmp_double);
        break;
    case PL_WFN_MIN:
    case PL_WFN_MAX:
        w->dlo = 1;
        w->dhi = 0;
        for (uint64_t i = w->lo; i <= w->hi; i++)
            agg_add(w, i, V_(w, SLOT(w, i)));
        break;
    default:
        break;
    }
}

void pl_window_prune(pl_window *w, double now)
{
    double keep_from = now - w->span;
    uint64_t lo = w->lo, hi = w->hi;
    while (lo <= hi) {
        size_t p = SLOT(w, lo);
        double t = T_(w, p);
        if (t < keep_from || (!w->raw && t <= keep_from && lo < hi)) {
            if (w->ok)
                agg_drop(w, lo, V_(w, p));
            lo++;
        } else {
            break;
        }
    }
    w->lo = lo;
    if (w->agg == PL_WFN_AVG && w->ok) {
        /* now and then the running sum starts afresh: no drift however long it runs */
        w->since++;
        if (w->since > 64 && (int64_t)w->since > (int64_t)hi - (int64_t)lo)
            agg_rebuild(w);
    }
}

int pl_window_push(pl_window *w, double t, pl_wval v, int reset, int *was_reset)
{
    int wr = 0;
    int nonempty = w->hi >= w->lo;
    size_t p = nonempty ? SLOT(w, w->hi) : 0;
    if (w->raw && nonempty) {
        pl_wval prev = { V_(w, p), w->iv[p], (w->fl[p] & PL_WF_INT) != 0 };
        wr = reset || pl_wval_decreased(v, prev);
    }
    if (nonempty && T_(w, p) >= t) {
        /* the same or an older time: replace the last sample (one clock, never backwards) */
        put(w, p, T_(w, p), v, wr);
        w->ok = 0;
    } else {
        uint64_t num;
        int e = append(w, t, v, wr, &num);
        if (e)
            return e;
        if (w->ok)
            agg_add(w, num, v.d);
    }
    pl_window_prune(w, t);
    if (was_reset)
        *was_reset = wr;
    return 0;
}

/* ---------------------------------------------------------------- reducing */

/* The p-th percentile of sorted s[0..n) (linear interpolation). */
static double pct_sorted(const double *s, size_t n, double p)
{
    if (n == 1)
        return s[0];
    double pos = (p / 100.0) * (double)(n - 1) + 1.0;
    double fi = floor(pos), f = pos - fi;
    if (fi >= (double)n)
        return s[n - 1];
    if (!(fi >= 1.0))
        return s[0];                 /* p below 0 (or NaN): never a read before the array */
    size_t i = (size_t)fi;           /* 1-based */
    return s[i - 1] + f * (s[i] - s[i - 1]);
}

static double delta(const pl_window *w, size_t p, size_t pp)
{
    if ((w->fl[p] & PL_WF_INT) && (w->fl[pp] & PL_WF_INT))
        return (double)(int64_t)((uint64_t)w->iv[p] - (uint64_t)w->iv[pp]);
    return V_(w, p) - V_(w, pp);
}

int pl_window_reduce(pl_window *w, pl_wfn fn, double window, double p, double now, double *out)
{
    uint64_t lo = w->lo, hi = w->hi;
    if (hi < lo)
        return 0;
    if (fn == PL_WFN_LAST || fn == PL_WFN_RAW) {
        *out = V_(w, SLOT(w, hi));
        return 1;
    }
    double from = now - window;
    if (fn == w->agg && T_(w, SLOT(w, lo)) > from) {
        /* every sample of the window counts: the kept state answers */
        if (!w->ok)
            agg_rebuild(w);
        if (w->nf == 0) {
            if (fn == PL_WFN_AVG)
                *out = (w->sum + w->c) / (double)(hi - lo + 1);
            else if (fn == PL_WFN_PCT)
                *out = pct_sorted(w->sorted, w->ns, p);
            else
                *out = V_(w, SLOT(w, w->dq[SLOT(w, w->dlo)]));
            return 1;
        }
    }
    if (fn == PL_WFN_RATE || fn == PL_WFN_INCREASE) {
        double sum = 0.0, dt = 0.0;
        size_t pairs = 0, pp = SLOT(w, lo);
        for (uint64_t i = lo + 1; i <= hi; i++) {
            size_t q = SLOT(w, i);
            int r = w->raw && (w->fl[q] & PL_WF_RESET);
            if (T_(w, pp) >= from && !r) {
                sum += w->raw ? delta(w, q, pp) : V_(w, q) - V_(w, pp);
                dt += T_(w, q) - T_(w, pp);
                pairs++;
            }
            pp = q;
        }
        if (pairs == 0)
            return 0;
        if (fn == PL_WFN_INCREASE) {
            *out = sum;
            return 1;
        }
        if (dt <= 0)
            return 0;
        *out = sum / dt;
        return 1;
    }
    size_t n = 0;
    double sum = 0.0, mn = HUGE_VAL, mx = -HUGE_VAL;
    double *vals = NULL;
    if (fn == PL_WFN_PCT && !(vals = malloc((size_t)(hi - lo + 1) * sizeof *vals))) {
        errno = ENOMEM;
        return -1;
    }
    for (uint64_t i = lo; i <= hi; i++) {
        size_t q = SLOT(w, i);
        if (T_(w, q) > from) {
            double v = V_(w, q);
            sum += v;
            if (v < mn)
                mn = v;
            if (v > mx)
                mx = v;
            if (vals)
                vals[n] = v;
            n++;
        }
    }
    int got = n > 0;
    if (got) {
        switch (fn) {
        case PL_WFN_AVG: *out = sum / (double)n; break;
        case PL_WFN_MIN: *out = mn; break;
        case PL_WFN_MAX: *out = mx; break;
        case PL_WFN_PCT:
            qsort(vals, n, sizeof *vals, cmp_double);
            *out = pct_sorted(vals, n, p);
            break;
        default: got = 0; break;
        }
    }
    free(vals);
    return got;
}

int pl_window_cook(pl_window *w, double t, const pl_wval *v, pl_wstatus st, pl_wfn fn, double window,
                   double p, double *value, pl_why *why)
{
    pl_why y = PL_WHY_NONE;
    int e = 0;
    if (w->raw) {
        if (v && (st == PL_WST_VALID || st == PL_WST_RESET)) {
            int wr = 0;
            e = pl_window_push(w, t, *v, st == PL_WST_RESET && w->hi >= w->lo, &wr);
            if (wr)
                y = PL_WHY_RESET;
        } else {
            y = PL_WHY_NODATA;
        }
    } else if (v && st == PL_WST_VALID) {
        e = pl_window_push(w, t, *v, 0, NULL);
    } else {
        y = st == PL_WST_RESET ? PL_WHY_RESET : st == PL_WST_FIRST ? PL_WHY_FIRST : PL_WHY_NODATA;
        pl_window_prune(w, t);
    }
    if (e)
        return e;
    if (y == PL_WHY_NONE) {
        int got = pl_window_reduce(w, fn, window, p, t, value);
        if (got < 0)
            return ENOMEM;
        if (!got)
            y = (w->raw && w->hi == w->lo) ? PL_WHY_FIRST : PL_WHY_NODATA;
    }
    *why = y;
    return 0;
}

int pl_levels_eval(const pl_wlevel *lv, int n, double v, uint32_t *latch, int *sev)
{
    int any = 0, best = -1, rank = 0;
    uint32_t l = *latch;
    for (int i = 0; i < n; i++) {
        const pl_wlevel *c = &lv[i];
        int latched = (l >> i) & 1u, on;
        if (c->up)
            on = latched && c->has_clear ? v >= c->clear : v > c->x;
        else
            on = latched && c->has_clear ? v <= c->clear : v < c->x;
        l = on ? (l | (1u << i)) : (l & ~(1u << i));
        if (on) {
            any = 1;
            if (c->rank >= rank) {
                best = i;
                rank = c->rank;
            }
        }
    }
    *latch = l;
    *sev = best;
    return any;
}
