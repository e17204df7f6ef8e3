/* SPL kstat files: see kstat.h. */
#include "kstat.h"

#include "pl_ksrc.h"
#include "srcparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { T_NAMED = 1, T_IO = 3 };

/* The header line's kstat type (its second of seven tokens), with *next at
 * the line after it; -1 when the first line is not such a header. */
static int header_type(const char *buf, size_t len, const char **next)
{
    const char *tok[8];
    size_t tl[8];
    if (pl_src_tokens(buf, len, tok, tl, 8) != 7 || tl[1] != 1 || tok[1][0] < '0' ||
        tok[1][0] > '9')
        return -1;
    *next = (const char *)memchr(buf, '\n', len) + 1;
    return tok[1][0] - '0';
}

/* The line [p, eol) is exactly the blank-separated words w[0 .. n). */
static int words_are(const char *p, const char *eol, const char *const *w, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        size_t l = strlen(w[i]);
        while (p < eol && pl_src_blank(*p))
            p++;
        if ((size_t)(eol - p) < l || memcmp(p, w[i], l) != 0)
            return 0;
        p += l;
        if (p < eol && !pl_src_blank(*p))
            return 0;
    }
    while (p < eol && pl_src_blank(*p))
        p++;
    return p == eol;
}

#define NONE UINT32_MAX

/* Whether the line at p (within [.., end)) starts with the token name. */
static int name_is(const char *p, const char *end, const char *name, size_t l)
{
    return (size_t)(end - p) > l && memcmp(p, name, l) == 0 && pl_src_blank(p[l]);
}

/* The names with a line, in the order of their lines. */
static void sort_hints(pl_kstat *k, unsigned n)
{
    k->nord = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = k->nord++;
        if (k->hint[i] == NONE) {
            k->nord--;
            continue;
        }
        while (j > 0 && k->hint[k->order[j - 1]] > k->hint[i]) {
            k->order[j] = k->order[j - 1];
            j--;
        }
        k->order[j] = (uint8_t)i;
    }
}

/* Searches the entry lines from p for name: the line's start, with
 * hint[i] its index, or NULL (hint[i] NONE). */
static const char *search(const char *p, const char *end, pl_kstat *k, unsigned i,
                          const char *name)
{
    size_t l = strlen(name);
    uint32_t j = 0;
    k->searched++;
    k->hint[i] = NONE;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (name_is(p, end, name, l)) {
            k->hint[i] = j;
            return p;
        }
        if (!nl)
            break;
        p = nl + 1;
        j++;
    }
    return NULL;
}

/* Keeps text [s, e) in k->text: its offset, or -1 on ENOMEM. */
static int64_t keep_text(pl_kstat *k, const char *s, const char *e)
{
    size_t n = (size_t)(e - s);
    uint32_t off = k->tlen;
    if (n + 1 > UINT32_MAX - k->tlen)
        return -1;
    if (k->tlen + n + 1 > k->tcap) {
        uint32_t cap = k->tcap ? k->tcap : 256;
        while (cap < k->tlen + n + 1)
            cap *= 2;
        char *t = realloc(k->text, cap);
        if (!t)
            return -1;
        k->text = t;
        k->tcap = cap;
    }
    memcpy(k->text + off, s, n);
    k->text[off + n] = '\0';
    k->tlen += (uint32_t)(n + 1);
    return off;
}

/* The value of the entry whose type field starts at p (after its name) on
 * the line [p, eol), into field i.  0 or ENOMEM. */
static int take_value(pl_kstat *k, unsigned i, const char *p, const char *eol)
{
    unsigned dt;
    uint64_t v;
    int neg = 0;
    int64_t off;
    while (p < eol && pl_src_blank(*p))
        p++;
    if (p + 1 >= eol || *p < '0' || *p > '9' || !pl_src_blank(p[1]))
        return 0;            /* one digit and a blank: else bad */
    dt = (unsigned)(*p++ - '0');
    k->dtype[i] = (uint8_t)dt;
    while (p < eol && pl_src_blank(*p))
        p++;
    if (dt == PL_KSTAT_DATA_CHAR || dt == PL_KSTAT_DATA_STRING) {
        const char *e = eol;
        if (memchr(p, '\0', (size_t)(eol - p)))
            return 0;
        while (dt == PL_KSTAT_DATA_CHAR && e > p && pl_src_blank(e[-1]))
            e--;         /* "%-16s" pads it */
        if ((off = keep_text(k, p, e)) < 0)
            return ENOMEM;
        k->v[i] = (uint64_t)off;
        k->st[i] = PL_NS_OK;
        return 0;
    }
    if (dt > 6)
        return 0;
    if ((dt == 1 || dt == 3 || dt == 5) && p < eol && *p == '-')
        neg = 1, p++;
    if (pl_src_num(&p, eol, &v) != 0 || (p < eol && !pl_src_blank(*p)))
        return 0;
    while (p < eol && pl_src_blank(*p))
        p++;
    if (p != eol || (neg && v != 0))
        return 0;        /* trailing bytes, or a negative: no counter value */
    k->v[i] = v;
    k->st[i] = PL_NS_OK;
    return 0;
}

/* The value of names[i] from its line at l: 0 or ENOMEM. */
static int value_at(pl_kstat *k, unsigned i, const char *l, const char *end, const char *name)
{
    const char *eol = memchr(l, '\n', (size_t)(end - l));
    k->st[i] = PL_NS_BAD;
    return take_value(k, i, l + strlen(name), eol ? eol : end);
}

int pl_kstat_named(const char *buf, size_t len, const char *const *names, unsigned n,
                   pl_kstat *out)
{
    static const char *const cols[] = { "name", "type", "data" };
    const char *end = buf + len, *p, *nl, *data;
    uint32_t j = 0, q = 0;
    int e, miss = 0;
    if (n > PL_KSTAT_MAX)
        n = PL_KSTAT_MAX;
    memset(out->st, PL_NS_ABSENT, sizeof out->st);
    memset(out->dtype, 0xFF, sizeof out->dtype);
    out->tlen = 0;
    if (header_type(buf, len, &p) != T_NAMED || !(nl = memchr(p, '\n', (size_t)(end - p))) ||
        !words_are(p, nl, cols, 3))
        return EINVAL;
    /* one walk of the lines, each name tried at its line of the last parse */
    for (data = p = nl + 1; p < end; j++) {
        nl = memchr(p, '\n', (size_t)(end - p));
        for (; q < out->nord && out->hint[out->order[q]] == j; q++) {
            unsigned i = out->order[q];
            if (i >= n || !name_is(p, end, names[i], strlen(names[i])))
                miss = 1;
            else if ((e = value_at(out, i, p, end, names[i])) != 0)
                return e;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    miss |= q < out->nord;
    /* another layout (another module version, or the first parse): the
     * names not found are searched for, the absent ones too */
    if (miss || j != out->lines) {
        for (unsigned i = 0; i < n; i++)
            if (out->st[i] == PL_NS_ABSENT && (p = search(data, end, out, i, names[i])) &&
                (e = value_at(out, i, p, end, names[i])) != 0)
                return e;
        sort_hints(out, n);
        out->lines = j;
    }
    return 0;
}

const char *pl_kstat_text(const pl_kstat *k, unsigned i)
{
    if (i >= PL_KSTAT_MAX || k->st[i] != PL_NS_OK ||
        (k->dtype[i] != PL_KSTAT_DATA_CHAR && k->dtype[i] != PL_KSTAT_DATA_STRING) ||
        k->v[i] >= k->tlen)
        return NULL;
    return k->text + k->v[i];
}

void pl_kstat_release(void *out)
{
    pl_kstat *k = out;
    free(k->text);
    k->text = NULL;
    k->tlen = k->tcap = 0;
}

static const char *const io_cols[PL_KIO_N] = {
    "nread", "nwritten", "reads", "writes", "wtime", "wlentime",
    "wupdate", "rtime", "rlentime", "rupdate", "wcnt", "rcnt",
};

int pl_kstat_io_parse(const char *buf, size_t len, pl_kstat_io *out)
{
    const char *end = buf + len, *p, *hl, *vl, *nl, *q;
    int col[32], ncol = 0;
    memset(out->st, PL_NS_ABSENT, sizeof out->st);
    if (header_type(buf, len, &hl) != T_IO || !(nl = memchr(hl, '\n', (size_t)(end - hl))))
        return EINVAL;
    for (p = hl; p < nl && ncol < 32;) {           /* the column names */
        while (p < nl && pl_src_blank(*p))
            p++;
        if (p == nl)
            break;
        for (q = p; q < nl && !pl_src_blank(*q); q++)
            ;
        col[ncol] = -1;
        for (int c = 0; c < PL_KIO_N; c++)
            if (strlen(io_cols[c]) == (size_t)(q - p) && !memcmp(io_cols[c], p, (size_t)(q - p)))
                col[ncol] = c;
        ncol++;
        p = q;
    }
    vl = nl + 1;
    if (vl >= end || !(nl = memchr(vl, '\n', (size_t)(end - vl))))
        return 0;            /* no value line: every column absent */
    for (int i = 0; i < ncol; i++) {
        uint64_t v;
        const char *t;
        int ok;
        while (vl < nl && pl_src_blank(*vl))
            vl++;
        if (vl == nl)
            break;           /* fewer values than columns: the rest absent */
        for (t = vl; vl < nl && !pl_src_blank(*vl); vl++)
            ;
        ok = pl_src_num(&t, vl, &v) == 0 && t == vl;
        if (col[i] >= 0 && out->st[col[i]] == PL_NS_ABSENT) {
            out->st[col[i]] = ok ? PL_NS_OK : PL_NS_BAD;
            out->v[col[i]] = ok ? v : 0;
        }
    }
    return 0;
}
