/* Flap detection on an alert's condition bit (pl_window.h): a ring of the
 * last `window` bits with the count of changes kept as bits come and go,
 * so that a steady history costs no pass. */
#include "pl_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pl_flap_init(pl_flap *f, uint32_t window)
{
    memset(f, 0, sizeof *f);
    if (window < 2)
        return EINVAL;
    f->bits = calloc(window, 1);
    if (!f->bits)
        return ENOMEM;
    f->window = window;
    return 0;
}

void pl_flap_free(pl_flap *f)
{
    free(f->bits);
    f->bits = NULL;
    f->window = f->n = f->head = f->cnt = 0;
    f->has_pct = 0;
}

/* The changes and length after pushing bit; *skip: whether the oldest is dropped. */
static void after(const pl_flap *f, int bit, uint32_t *cnt, uint32_t *n, int *skip)
{
    uint32_t c = f->cnt, m = f->n;
    if (m > 0 && pl_flap_bit(f, m - 1) != bit)
        c++;
    m++;
    *skip = m > f->window;
    if (*skip) {
        if (pl_flap_bit(f, 0) != pl_flap_bit(f, 1))
            c--;
        m--;
    }
    *cnt = c;
    *n = m;
}

int pl_flap_peek(const pl_flap *f, int bit, double *pct)
{
    uint32_t cnt, n;
    int skip;
    if (f->window < 2)
        return 0;
    bit = bit != 0;
    after(f, bit, &cnt, &n, &skip);
    if (n < 2)
        return 0;
    double changes = 0.0;
    int64_t denom = (int64_t)f->window - 1;
    double spread = (double)(denom - 1 > 1 ? denom - 1 : 1);
    if (cnt > 0) {
        /* the sequence after the push: old bits from `first`, then bit */
        uint32_t first = skip ? 1 : 0;
        int prev = pl_flap_bit(f, first);
        for (uint32_t i = 1; i < n; i++) {
            uint32_t k = first + i;
            int b = k < f->n ? pl_flap_bit(f, k) : bit;
            if (b != prev) {
                int64_t pos = (int64_t)(i - 1) + (denom - (int64_t)(n - 1));
                changes = changes + 0.8 + 0.4 * ((double)pos / spread);
            }
            prev = b;
        }
    }
    *pct = changes / (double)denom;
    return 1;
}

void pl_flap_commit(pl_flap *f, int bit, int has_pct, double pct)
{
    uint32_t cnt, n;
    int skip;
    if (f->window < 2)
        return;
    bit = bit != 0;
    after(f, bit, &cnt, &n, &skip);
    if (skip) {
        f->head = (f->head + 1) % f->window;
        f->n--;
    }
    f->bits[(f->head + f->n) % f->window] = (uint8_t)bit;
    f->n = n;
    f->cnt = cnt;
    if (has_pct) {
        f->pct = pct;
        f->has_pct = 1;
    }
}

void pl_flap_push(pl_flap *f, int bit)
{
    double pct = 0.0;
    int has = pl_flap_peek(f, bit, &pct);
    pl_flap_commit(f, bit, has, pct);
}

int pl_flap_change(int flapping, int has_pct, double pct, double high, double low)
{
    if (!has_pct)
        return 0;
    if (!flapping && pct >= high)
        return 1;
    if (flapping && pct < low)
        return -1;
    return 0;
}
