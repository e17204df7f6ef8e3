/* The Prometheus text format, version 0.0.4 (textfile.h), parsed as its
 * specification says: lines end with '\n' (a last line without one was cut
 * short), blanks and tabs separate tokens, "# HELP name doc" (doc escapes \\
 * and \n), "# TYPE name type" (once per name, before its samples), other '#'
 * lines are comments, and samples are name{label="value",...} value
 * [timestamp] with label value escapes \\, \" and \n.  Metric names are
 * [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*.  Values are
 * Go ParseFloat's decimal forms: NaN, +Inf and -Inf and exponents included.
 * Every length is bounded; input is bytes, never a C string. */
#include "textfile.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_LABELS 64
#define MAX_FAMILIES 1024          /* per file */
#define MAX_SERIES 100000          /* per file */

typedef struct label {
    const char *name;
    size_t nlen;
    const char *val;               /* decoded, in the scratch buffer */
    size_t vlen;
} label;

typedef struct cur {
    const char *p, *end;
} cur;

typedef struct parser {
    pl_tf_doc *doc;
    uint32_t line;
    uint32_t last;                 /* the family found last: lines come in runs */
    char *scratch;                 /* decoded label values, PL_TF_LINE_MAX bytes */
    label lab[MAX_LABELS];
    uint32_t nlab;
} parser;

static const char *const type_names[PL_TF_NTYPES] = { "untyped", "counter", "gauge", "summary", "histogram" };

const char *pl_tf_type_name(int type)
{
    return type >= 0 && type < PL_TF_NTYPES ? type_names[type] : "?";
}

/* ---- problems ------------------------------------------------------------------ */

static void note(char *err, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (err[0])
        return;                    /* the first problem says where it started */
    n = snprintf(err, PL_TF_MSG, "line %u: ", line);
    va_start(ap, fmt);
    vsnprintf(err + n, PL_TF_MSG - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ---- families ---------------------------------------------------------------- */

static int find_family(parser *ps, const char *name, size_t n)
{
    pl_tf_doc *d = ps->doc;
    if (ps->last < d->nfam && strncmp(d->fam[ps->last].name, name, n) == 0 && !d->fam[ps->last].name[n])
        return (int)ps->last;
    for (uint32_t i = 0; i < d->nfam; i++)
        if (strncmp(d->fam[i].name, name, n) == 0 && !d->fam[i].name[n])
            return (int)(ps->last = i);
    return -1;
}

/* The family of that name, made untyped when new: its index, -1 for ENOMEM,
 * -2 when the file has too many. */
static int family(parser *ps, const char *name, size_t n)
{
    pl_tf_doc *d = ps->doc;
    int i = find_family(ps, name, n);
    if (i >= 0)
        return i;
    if (d->nfam == MAX_FAMILIES)
        return -2;
    if (d->nfam == d->capfam) {
        uint32_t cap = d->capfam ? 2 * d->capfam : 16;
        pl_tf_family *f = realloc(d->fam, cap * sizeof *f);
        if (!f)
            return -1;
        d->fam = f;
        d->capfam = cap;
    }
    pl_tf_family *f = &d->fam[d->nfam];
    memset(f, 0, sizeof *f);
    if (!(f->name = strndup(name, n)))
        return -1;
    return (int)(ps->last = d->nfam++);
}

/* ---- tokens ------------------------------------------------------------------- */

static void blanks(cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
}

static int is_blank_at(const cur *c)
{
    return c->p == c->end || *c->p == ' ' || *c->p == '\t';
}

static int name_char(char ch, int first, int colon)
{
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (colon && ch == ':'))
        return 1;
    return !first && ch >= '0' && ch <= '9';
}

/* A metric name (colon 1) or label name (colon 0); its length, 0 if none. */
static size_t read_name(cur *c, int colon)
{
    const char *s = c->p;
    while (c->p < c->end && name_char(*c->p, c->p == s, colon) && c->p - s < PL_TF_NAME_MAX)
        c->p++;
    if (c->p < c->end && name_char(*c->p, 0, colon))
        return 0;                  /* longer than PL_TF_NAME_MAX */
    return (size_t)(c->p - s);
}

static size_t token(cur *c)
{
    const char *s = c->p;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
        c->p++;
    return (size_t)(c->p - s);
}

static locale_t c_locale;
static pthread_once_t c_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* A float as Go's ParseFloat reads the format's values (decimal only).  1 with *v. */
static int parse_float(const char *s, size_t n, double *v)
{
    char buf[72];
    size_t i = 0, digits = 0;
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (buf[0] == '+' || buf[0] == '-')
        i++;
    if (strcasecmp(buf + i, "inf") == 0 || strcasecmp(buf + i, "infinity") == 0) {
        *v = buf[0] == '-' ? -HUGE_VAL : HUGE_VAL;
        return 1;
    }
    if (strcasecmp(buf, "nan") == 0) {
        *v = NAN;
        return 1;
    }
    for (; buf[i] >= '0' && buf[i] <= '9'; i++)
        digits++;
    if (buf[i] == '.')
        for (i++; buf[i] >= '0' && buf[i] <= '9'; i++)
            digits++;
    if (!digits)
        return 0;
    if (buf[i] == 'e' || buf[i] == 'E') {
        size_t e0;
        i++;
        if (buf[i] == '+' || buf[i] == '-')
            i++;
        for (e0 = i; buf[i] >= '0' && buf[i] <= '9'; i++)
            ;
        if (i == e0)
            return 0;
    }
    if (buf[i])
        return 0;
    pthread_once(&c_once, make_c_locale);
    if (!c_locale)
        return 0;
    errno = 0;
    *v = strtod_l(buf, NULL, c_locale);
    return !(errno == ERANGE && isinf(*v));  /* beyond a double: an error, as Go's ParseFloat says */
}

/* An int64 of milliseconds, as Go's ParseInt reads it. */
static int parse_timestamp(const char *s, size_t n)
{
    size_t i = s[0] == '-' || s[0] == '+';
    uint64_t v = 0, max = s[0] == '-' ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (n == i)
        return 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (max - (uint64_t)(s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return 1;
}

/* ---- labels ------------------------------------------------------------------- */

static int utf8_valid(const char *s, size_t n);

/* A quoted label value at c (after its '"') decoded into out; its length,
 * or -1 with the problem in why. */
static long read_value(cur *c, char *out, const char **why)
{
    long n = 0;
    while (c->p < c->end && *c->p != '"') {
        char ch = *c->p++;
        if (ch == '\\') {
            if (c->p == c->end)
                break;
            ch = *c->p++;
            if (ch == 'n')
                ch = '\n';
            else if (ch != '\\' && ch != '"') {
                *why = "a label value has an escape other than \\\\, \\\" and \\n";
                return -1;
            }
        }
        out[n++] = ch;
    }
    if (c->p == c->end) {
        *why = "a label value has no closing quote";
        return -1;
    }
    c->p++;
    return n;
}

/* {name="value",...} at c (after '{'); 0 or a sentence. */
static const char *read_labels(parser *ps, cur *c)
{
    char *out = ps->scratch;
    ps->nlab = 0;
    for (;;) {
        const char *why = NULL;
        label *l;
        long n;
        blanks(c);
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            return NULL;
        }
        if (ps->nlab == MAX_LABELS)
            return "more than 64 labels";
        l = &ps->lab[ps->nlab];
        l->name = c->p;
        if (!(l->nlen = read_name(c, 0)))
            return "a label name is not [a-zA-Z_][a-zA-Z0-9_]*";
        for (uint32_t k = 0; k < ps->nlab; k++)
            if (ps->lab[k].nlen == l->nlen && memcmp(ps->lab[k].name, l->name, l->nlen) == 0)
                return "a label appears twice";
        blanks(c);
        if (c->p == c->end || *c->p++ != '=')
            return "a label name is not followed by '='";
        blanks(c);
        if (c->p == c->end || *c->p++ != '"')
            return "a label value is not quoted";
        if ((n = read_value(c, out, &why)) < 0)
            return why;
        if (!utf8_valid(out, (size_t)n))
            return "a label value is not UTF-8";
        l->val = out;
        l->vlen = (size_t)n;
        out += n;
        ps->nlab++;
        blanks(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
        else if (c->p == c->end || *c->p != '}')
            return "labels are not separated by ',' or closed by '}'";
    }
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    if (!len || len > n || s[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) || (s[0] == 0xF0 && s[1] < 0x90) ||
        (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;                  /* overlong, surrogate or beyond U+10FFFF */
    return len;
}

static int utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t u = (unsigned char)s[i] < 0x80 ? 1 : utf8_len((const unsigned char *)s + i, n - i);
        if (!u)
            return 0;
        i += u;
    }
    return 1;
}

/* Appends v escaped (textfile.h) to out at *o; 0 when it would not fit. */
static int put_escaped(char *out, size_t *o, const char *v, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n;) {
        unsigned char ch = (unsigned char)v[i];
        size_t u = ch >= 0x80 ? utf8_len((const unsigned char *)v + i, n - i) : 0;
        if (*o + 4 > PL_TF_INST_MAX)
            return 0;
        if (u) {
            if (*o + u + 1 > PL_TF_INST_MAX)
                return 0;
            memcpy(out + *o, v + i, u);
            *o += u;
            i += u;
            continue;
        }
        if (ch < 0x20 || ch >= 0x7F || strchr("%,=()\\/#*?[]\"", ch)) {
            out[(*o)++] = '%';
            out[(*o)++] = hex[ch >> 4];
            out[(*o)++] = hex[ch & 15];
        } else {
            out[(*o)++] = (char)ch;
        }
        i++;
    }
    return 1;
}

/* The instance name of the labels, sorted by name, into out
 * (PL_TF_INST_MAX bytes); 0 when it is too long. */
static int render(parser *ps, char *out)
{
    size_t o = 0;
    for (uint32_t i = 1; i < ps->nlab; i++)      /* insertion sort: few labels */
        for (uint32_t k = i; k > 0; k--) {
            label *a = &ps->lab[k - 1], *b = &ps->lab[k];
            size_t m = a->nlen < b->nlen ? a->nlen : b->nlen;
            int cmp = memcmp(a->name, b->name, m);
            if (cmp < 0 || (cmp == 0 && a->nlen < b->nlen))
                break;
            label t = *a;
            *a = *b;
            *b = t;
        }
    for (uint32_t i = 0; i < ps->nlab; i++) {
        if (!ps->lab[i].vlen)
            continue;              /* an empty label is no label (the data model) */
        if (o + ps->lab[i].nlen + 3 > PL_TF_INST_MAX)
            return 0;
        if (o)
            out[o++] = ',';
        memcpy(out + o, ps->lab[i].name, ps->lab[i].nlen);
        o += ps->lab[i].nlen;
        out[o++] = '=';
        if (!put_escaped(out, &o, ps->lab[i].val, ps->lab[i].vlen))
            return 0;
    }
    if (!o)
        strcpy(out, "{}");
    else
        out[o] = '\0';
    return 1;
}

static const label *find_label(const parser *ps, const char *name)
{
    size_t n = strlen(name);
    for (uint32_t i = 0; i < ps->nlab; i++)
        if (ps->lab[i].nlen == n && memcmp(ps->lab[i].name, name, n) == 0)
            return &ps->lab[i];
    return NULL;
}

/* ---- lines ----------------------------------------------------------------- */

/* The family a sample named name (n bytes) belongs to, and its slot; a
 * negative value as family(). */
static int sample_family(parser *ps, const char *name, size_t n, uint32_t *slot)
{
    static const struct { const char *suffix; uint32_t slot; } sfx[3] = {
        { "_sum", PL_TF_SUM }, { "_count", PL_TF_COUNT }, { "_bucket", PL_TF_VALUE },
    };
    int i = find_family(ps, name, n);
    *slot = PL_TF_VALUE;
    if (i >= 0)
        return i;
    for (int k = 0; k < 3; k++) {
        size_t sl = strlen(sfx[k].suffix);
        if (n > sl && memcmp(name + n - sl, sfx[k].suffix, sl) == 0) {
            int b = find_family(ps, name, n - sl);
            if (b >= 0 && (ps->doc->fam[b].type == PL_TF_HISTOGRAM ||
                           (ps->doc->fam[b].type == PL_TF_SUMMARY && k < 2))) {
                *slot = sfx[k].slot;
                return b;
            }
        }
    }
    return family(ps, name, n);
}

/* What a summary's or histogram's series must carry. */
static const char *shape_problem(const parser *ps, const pl_tf_family *f, uint32_t slot, int bucket)
{
    const char *key = f->type == PL_TF_SUMMARY ? "quantile" : "le";
    const label *l = find_label(ps, key);
    double v;
    if (slot != PL_TF_VALUE || (f->type != PL_TF_SUMMARY && f->type != PL_TF_HISTOGRAM))
        return l && slot != PL_TF_VALUE ? "a _sum or _count series has a quantile or le label" : NULL;
    if (f->type == PL_TF_HISTOGRAM && !bucket)
        return "a histogram sample is not _bucket, _sum or _count";
    if (!l)
        return f->type == PL_TF_SUMMARY ? "a quantile series has no quantile label"
                                        : "a bucket has no le label";
    return parse_float(l->val, l->vlen, &v) ? NULL : "a quantile or le label is not a number";
}

static int add_series(parser *ps, uint32_t fam, uint32_t slot, double v, const char *inst)
{
    pl_tf_doc *d = ps->doc;
    if (d->nser == d->capser) {
        uint32_t cap = d->capser ? 2 * d->capser : 64;
        pl_tf_series *s = realloc(d->ser, cap * sizeof *s);
        if (!s)
            return ENOMEM;
        d->ser = s;
        d->capser = cap;
    }
    pl_tf_series *s = &d->ser[d->nser];
    if (!(s->inst = strdup(inst)))
        return ENOMEM;
    s->fam = fam;
    s->slot = slot;
    s->line = ps->line;
    s->v = v;
    d->nser++;
    d->fam[fam].nsamples++;
    return 0;
}

/* After a sample's name: labels, value, timestamp; a sentence or NULL. */
static const char *sample_rest(parser *ps, cur *c, double *v)
{
    const char *why, *t;
    size_t n;
    ps->nlab = 0;
    blanks(c);
    if (c->p < c->end && *c->p == '{') {
        c->p++;
        if ((why = read_labels(ps, c)))
            return why;
        blanks(c);
    } else if (c->p < c->end && c->p[-1] != ' ' && c->p[-1] != '\t') {
        return "a metric name has a character outside [a-zA-Z0-9_:]";
    }
    t = c->p;
    if (!(n = token(c)) || !parse_float(t, n, v))
        return "the value is not a number";
    blanks(c);
    t = c->p;
    if ((n = token(c)) && !parse_timestamp(t, n))
        return "the timestamp is not an integer of milliseconds";
    blanks(c);
    return c->p == c->end ? NULL : "text after the timestamp";
}

static int sample_line(parser *ps, cur *c, int cut)
{
    const char *name = c->p, *why;
    size_t n = read_name(c, 1);
    uint32_t slot;
    double v = 0;
    char inst[PL_TF_INST_MAX];
    int fam;
    if (!n) {
        note(ps->doc->err, ps->line, "no metric name [a-zA-Z_:][a-zA-Z0-9_:]* starts the line");
        return 0;
    }
    if ((fam = sample_family(ps, name, n, &slot)) < 0) {
        if (fam == -2)
            note(ps->doc->err, ps->line, "more than %d metric families in one file", MAX_FAMILIES);
        return fam == -1 ? ENOMEM : 0;
    }
    pl_tf_family *f = &ps->doc->fam[fam];
    int bucket = n > 7 && memcmp(name + n - 7, "_bucket", 7) == 0 && strlen(f->name) + 7 == n;
    why = sample_rest(ps, c, &v);
    if (!why && cut)
        why = "the last line has no newline: the file was cut short";
    if (!why)
        why = shape_problem(ps, f, slot, bucket);
    if (!why && !render(ps, inst))
        why = "the instance name is longer than 1024 bytes";
    if (!why && ps->doc->nser == MAX_SERIES)
        why = "more than 100000 series in one file";
    if (why) {
        note(f->err, ps->line, "%s", why);
        return 0;
    }
    return add_series(ps, (uint32_t)fam, slot, v, inst);
}

/* The doc string of a HELP line decoded (\\ and \n); NULL with *why. */
static char *help_text(const cur *c, const char **why)
{
    size_t n = 0;
    char *out = malloc((size_t)(c->end - c->p) + 1);
    if (!out)
        return NULL;
    for (const char *p = c->p; p < c->end; p++) {
        char ch = *p;
        if (ch == '\\') {
            if (p + 1 == c->end || (p[1] != '\\' && p[1] != 'n')) {
                free(out);
                *why = "a HELP line has an escape other than \\\\ and \\n";
                return NULL;
            }
            ch = *++p == 'n' ? '\n' : '\\';
        }
        out[n++] = ch;
    }
    out[n] = '\0';
    if (!utf8_valid(out, n)) {
        free(out);
        *why = "a HELP line is not UTF-8";
        return NULL;
    }
    return out;
}

static int type_of(const char *s, size_t n)
{
    for (int t = 0; t < PL_TF_NTYPES; t++)
        if (strlen(type_names[t]) == n && memcmp(type_names[t], s, n) == 0)
            return t;
    return -1;
}

/* "# HELP" or "# TYPE" (help 1 / 0), c after the keyword. */
static int meta_line(parser *ps, cur *c, int help, int cut)
{
    const char *name, *why = NULL;
    size_t n;
    int fam;
    blanks(c);
    name = c->p;
    if (!(n = read_name(c, 1)) || !is_blank_at(c)) {
        note(ps->doc->err, ps->line, "a %s line names no metric", help ? "HELP" : "TYPE");
        return 0;
    }
    if ((fam = family(ps, name, n)) < 0)
        return fam == -1 ? ENOMEM : 0;
    pl_tf_family *f = &ps->doc->fam[fam];
    blanks(c);
    if (cut) {
        why = "the last line has no newline: the file was cut short";
    } else if (help) {
        if (f->help)
            why = "a second HELP line for the metric";
        else if (!(f->help = help_text(c, &why)) && !why)
            return ENOMEM;
    } else {
        const char *t = c->p;
        int type = type_of(t, token(c));
        blanks(c);
        if (f->typed)
            why = "a second TYPE line for the metric";
        else if (f->nsamples)
            why = "a TYPE line after the metric's samples";
        else if (type < 0 || c->p != c->end)
            why = "a TYPE line's type is not counter, gauge, histogram, summary or untyped";
        else {
            f->type = type;
            f->typed = 1;
        }
    }
    if (why)
        note(f->err, ps->line, "%s", why);
    return 0;
}

static int one_line(parser *ps, const char *s, size_t len, int cut)
{
    cur c = { s, s + len };
    blanks(&c);
    if (c.p == c.end)
        return 0;                  /* empty lines are ignored */
    if (len > PL_TF_LINE_MAX) {
        note(ps->doc->err, ps->line, "a line longer than %d bytes", PL_TF_LINE_MAX);
        return 0;
    }
    if (*c.p != '#')
        return sample_line(ps, &c, cut);
    c.p++;
    blanks(&c);
    const char *kw = c.p;
    size_t n = token(&c);
    if (n == 4 && (memcmp(kw, "HELP", 4) == 0 || memcmp(kw, "TYPE", 4) == 0) && c.p < c.end)
        return meta_line(ps, &c, kw[0] == 'H', cut);
    return 0;                      /* a comment */
}

static int by_family(const void *a, const void *b)
{
    const pl_tf_series *x = a, *y = b;
    int c;
    if (x->fam != y->fam)
        return x->fam < y->fam ? -1 : 1;
    if ((c = strcmp(x->inst, y->inst)))
        return c;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Series in family, instance, slot and line order; each family's range. */
static void index_series(pl_tf_doc *doc)
{
    if (doc->nser > 1)
        qsort(doc->ser, doc->nser, sizeof *doc->ser, by_family);
    for (uint32_t i = doc->nser; i-- > 0;)
        doc->fam[doc->ser[i].fam].first = i;
}

int pl_tf_parse(const char *buf, size_t len, pl_tf_doc *doc)
{
    parser ps = { doc, 0, 0, NULL, { { NULL, 0, NULL, 0 } }, 0 };
    int e = 0;
    memset(doc, 0, sizeof *doc);
    if (!(ps.scratch = malloc(PL_TF_LINE_MAX)))
        return ENOMEM;
    for (size_t pos = 0; pos < len && !e;) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        ps.line++;
        e = one_line(&ps, buf + pos, end - pos, !nl);
        pos = end + 1;
    }
    free(ps.scratch);
    if (e)
        pl_tf_doc_free(doc);
    else
        index_series(doc);
    return e;
}

void pl_tf_doc_free(pl_tf_doc *doc)
{
    for (uint32_t i = 0; i < doc->nfam; i++) {
        free(doc->fam[i].name);
        free(doc->fam[i].help);
    }
    for (uint32_t i = 0; i < doc->nser; i++)
        free(doc->ser[i].inst);
    free(doc->fam);
    free(doc->ser);
    memset(doc, 0, sizeof *doc);
}
