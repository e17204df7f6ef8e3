/* libFuzzer target: counter paths (\Counterset(instance)\Counter).
 *
 * The input is split into lines; each line, as a NUL-terminated copy in a
 * buffer of exactly its size (so ASan sees any read past it), goes through
 * pl_path_parse, pl_has_wildcard, pl_wildcard_match and pl_query_add_path.
 * Beyond "no crash", the results are checked against what the API promises:
 * a parsed path rebuilds to the input but for blanks (set and counter names
 * are tidied: trimmed, runs made one space) and parses again to the same
 * parts, a short buffer is ENAMETOOLONG, the
 * glob agrees with a plain dynamic-programming matcher, and a path accepted
 * once is a duplicate the second time.  Any disagreement aborts, which
 * libFuzzer reports as a crash with the input saved. */
#include "perflib.h"
#include "providers.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 32         /* bounds the work per input */
#define REF_MAX 256          /* longest pattern / string the reference matcher takes */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pl_env *env;

static void fail(const char *what, const char *line)
{
    fprintf(stderr, "fuzz_path: %s\n  input line: \"%s\"\n", what, line);
    abort();
}

/* The environment is made once: it holds only the registered definitions,
 * and a query never changes it.  Its root is never read by what runs here
 * (no collect), so "/" keeps the target hermetic. */
static void setup(void)
{
    if (pl_register_builtin(NULL, 0) == 0)     /* the core's registry starts empty */
        env = pl_env_new("/");
    if (!env) {
        perror("fuzz_path: pl_env_new");
        abort();
    }
}

/* NUL-terminated copy of data[0..n) in a buffer of exactly n + 1 bytes. */
static char *dup_exact(const uint8_t *data, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

/* Reference glob: '*' any run, '?' one character, else equal ignoring case.
 * O(np x ns) table instead of pl_wildcard_match's backtracking. */
static int ref_match(const char *p, const char *s)
{
    size_t np = strlen(p), ns = strlen(s);
    /* row[j]: p[0..i) matches s[0..j) */
    unsigned char *prev = calloc(ns + 1, 1), *cur = calloc(ns + 1, 1);
    int r;
    if (!prev || !cur)
        abort();
    prev[0] = 1;
    for (size_t i = 1; i <= np; i++) {
        char c = p[i - 1];
        cur[0] = c == '*' && prev[0];
        for (size_t j = 1; j <= ns; j++) {
            if (c == '*')
                cur[j] = prev[j] || cur[j - 1];
            else
                cur[j] = prev[j - 1] &&
                         (c == '?' || tolower((unsigned char)c) == tolower((unsigned char)s[j - 1]));
        }
        unsigned char *t = prev;
        prev = cur;
        cur = t;
    }
    r = prev[ns];
    free(prev);
    free(cur);
    return r;
}

static void check_match(const char *pat, const char *s, const char *line)
{
    int got = pl_wildcard_match(pat, s);
    if (got != 0 && got != 1)
        fail("pl_wildcard_match returned neither 0 nor 1", line);
    if (strlen(pat) <= REF_MAX && strlen(s) <= REF_MAX && got != ref_match(pat, s)) {
        fprintf(stderr, "fuzz_path: pattern \"%s\" string \"%s\": got %d\n", pat, s, got);
        fail("pl_wildcard_match disagrees with the reference matcher", line);
    }
}

static void check_wild(const char *s, const char *line)
{
    if (pl_has_wildcard(s) != (strpbrk(s, "*?") != NULL))
        fail("pl_has_wildcard is wrong", line);
}

/* s without its blanks (spaces and tabs), in out (at least strlen(s) + 1). */
static void no_blanks(const char *s, char *out)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            *out++ = *s;
    *out = '\0';
}

/* A tidied name: no blank at either end, no two blanks in a row, no tab. */
static int tidy_name(const char *s)
{
    size_t n = strlen(s);
    return n && s[0] != ' ' && s[n - 1] != ' ' && !strstr(s, "  ") && !strchr(s, '\t');
}

/* p points into buf[0..n] (addresses compared as integers: the pointers
 * may belong to other objects). */
static int inside(const char *p, const char *buf, size_t n)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)buf;
    return a >= b && a <= b + n;
}

/* pl_path_parse of one line, with its promises checked. */
static void parse_line(const char *line)
{
    size_t n = strlen(line);
    char *buf = malloc(n + 1), *small = malloc(n ? n : 1);
    pl_spec_in in;
    int e;
    if (!buf || !small)
        abort();
    /* a buffer one byte short is refused before anything is written */
    if (pl_path_parse(line, small, n, &in) != ENAMETOOLONG)
        fail("a buffer of strlen(path) bytes was not ENAMETOOLONG", line);
    e = pl_path_parse(line, buf, n + 1, &in);
    if (e && e != EINVAL)
        fail("pl_path_parse returned neither 0 nor EINVAL", line);
    if (e == 0) {
        const char *cs = in.counterset, *inst = in.instance, *ctr = in.counter;
        char *re;
        size_t m;
        if (!cs || !inst || !ctr || !*cs || !*ctr)
            fail("a parsed path has an empty or NULL counterset or counter", line);
        if (!inside(cs, buf, n) || !inside(ctr, buf, n) || (*inst && !inside(inst, buf, n)))
            fail("a parsed field points outside the caller's buffer", line);
        if (strchr(ctr, '\\'))
            fail("a parsed counter contains a backslash", line);
        if (in.instance_id != PL_NO_ID || in.counter_id != PERF_WILDCARD_COUNTER)
            fail("pl_path_parse left ids other than any/wildcard", line);
        /* a set named with its machine ("\\host\Set") only for a path that names one */
        char host[256];
        const char *lead = *cs == '\\' ? "" : "\\", *trimmed = line + strspn(line, " \t");
        size_t hl = *cs == '\\' ? pl_path_machine(trimmed, host, sizeof host) : 0;
        if (*cs == '\\' && (!hl || strncmp(cs, trimmed, hl + 3) != 0))
            fail("a parsed set starts with a backslash but the path names no machine", line);
        if (!tidy_name(cs + (hl ? hl + 3 : 0)) || !tidy_name(ctr))
            fail("a parsed set or counter name is not tidied", line);
        /* the parts rebuild to the path */
        m = strlen(cs) + strlen(inst) + strlen(ctr) + 5;
        re = malloc(m);
        if (!re)
            abort();
        if (*inst)
            snprintf(re, m, "%s%s(%s)\\%s", lead, cs, inst, ctr);
        else
            snprintf(re, m, "%s%s\\%s", lead, cs, ctr);
        /* the same path but for blanks, and a fixed point: it parses to itself */
        char *a = malloc(strlen(re) + 1), *b = malloc(n + 1), *again = malloc(strlen(re) + 1);
        pl_spec_in in2;
        if (!a || !b || !again)
            abort();
        no_blanks(re, a);
        no_blanks(line, b);
        if (strcmp(a, b) != 0)
            fail("the parsed parts do not rebuild to the path", line);
        if (pl_path_parse(re, again, strlen(re) + 1, &in2) != 0 || strcmp(in2.counterset, cs) != 0 ||
            strcmp(in2.instance, inst) != 0 || strcmp(in2.counter, ctr) != 0)
            fail("the rebuilt path does not parse to the same parts", line);
        free(a);
        free(b);
        free(again);
        free(re);
        check_wild(cs, line);
        check_wild(inst, line);
        check_wild(ctr, line);
        /* the parts against each other, as a query matches names */
        check_match(inst, cs, line);
        check_match(ctr, cs, line);
        check_match(cs, ctr, line);
    }
    free(small);
    free(buf);
}

/* pl_query_add_path: an accepted spec is consistent, and adding it again,
 * as given or as the query spells it, is a duplicate. */
static void add_line(pl_query *q, const char *line)
{
    pl_add_status st = PL_ADD_STATUS_COUNT;     /* none: the call must set it */
    uint32_t idx = 0xdead, n0 = pl_query_count(q);
    const pl_spec *sp = NULL;
    if (pl_query_add_path(q, line, &st, &idx) != 0)
        abort();             /* ENOMEM */
    if (st != PL_ADD_OK) {
        if (st >= PL_ADD_STATUS_COUNT || st == PL_ADD_NOT_IN_QUERY)
            fail("a refused path has no add status, or find's own", line);
        if (pl_query_count(q) != n0)
            fail("a refused path changed the query", line);
        return;
    }
    if (idx != n0 || pl_query_count(q) != n0 + 1)
        fail("an accepted path is not the query's last spec", line);
    if (!(sp = pl_query_spec(q, idx)))
        fail("pl_query_spec of an accepted path's index is NULL", line);
    if (!sp->cs || !sp->path || !sp->instance || sp->ncounters == 0 ||
        sp->ncounters > sp->cs->ncounters)
        fail("an accepted spec is incomplete", line);
    for (uint32_t c = 0; c < sp->ncounters; c++)
        if (sp->counters[c] >= sp->cs->ncounters)
            fail("an accepted spec has a counter index out of range", line);
    if ((sp->cs->instance_type == PERF_COUNTERSET_SINGLE_INSTANCE) != (sp->instance[0] == '\0'))
        fail("an instance part on a single-instance set, or none on a multi-instance one", line);
    if (pl_query_add_path(q, line, &st, &idx) != 0)
        abort();
    if (st != PL_ADD_DUPLICATE || pl_query_count(q) != n0 + 1)
        fail("the same path added twice was not a duplicate", line);
    if (strlen(sp->path) < 2048) {
        const char *canon = sp->path;
        if (pl_query_add_path(q, canon, &st, &idx) != 0)
            abort();
        if (st != PL_ADD_DUPLICATE)
            fail("the spec's own path was not a duplicate of it", canon);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *lines[MAX_LINES];
    size_t nl = 0, start = 0;
    pl_query *q;

    if (!env)
        setup();
    for (size_t i = 0; i <= size && nl < MAX_LINES; i++)
        if (i == size || data[i] == '\n') {
            lines[nl++] = dup_exact(data + start, i - start);
            start = i + 1;
        }

    for (size_t i = 0; i < nl; i++) {
        check_wild(lines[i], lines[i]);
        parse_line(lines[i]);
        /* each line as a pattern for the next: arbitrary globs, not only path parts */
        if (i + 1 < nl)
            check_match(lines[i], lines[i + 1], lines[i]);
    }

    /* a fresh query per input: a failure never depends on an earlier input */
    q = pl_query_new(env);
    if (!q)
        abort();
    for (size_t i = 0; i < nl; i++)
        add_line(q, lines[i]);
    /* delete from the middle, as a caller removing counters does */
    while (pl_query_count(q) > 0) {
        uint32_t n = pl_query_count(q), k = (uint32_t)(size % n);
        if (pl_query_delete(q, k) != 0 || pl_query_count(q) != n - 1)
            fail("pl_query_delete of an existing index failed", "");
        if (pl_query_delete(q, n - 1) != ENOENT)
            fail("pl_query_delete past the end was not ENOENT", "");
    }
    pl_query_free(q);

    for (size_t i = 0; i < nl; i++)
        free(lines[i]);
    return 0;
}
