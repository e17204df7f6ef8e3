/* Counter paths (\Counterset(instance)\Counter) and instance wildcards. */
#include "perflib.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

int pl_has_wildcard(const char *s)
{
    return s && strpbrk(s, "*?") != NULL;
}

/* Iterative glob with one backtrack point: linear in practice, no recursion
 * depth to exhaust on hostile patterns. */
int pl_wildcard_match(const char *pat, const char *s)
{
    const char *star = NULL, *mark = NULL;
    while (*s) {
        if (*pat == '*') {
            star = pat++;
            mark = s;
        } else if (*pat == '?' || (*pat && tolower((unsigned char)*pat) == tolower((unsigned char)*s))) {
            pat++;
            s++;
        } else if (star) {
            pat = star + 1;
            s = ++mark;
        } else {
            return 0;
        }
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0';
}

size_t pl_path_machine(const char *path, char *host, size_t size)
{
    const char *end;
    size_t n;
    if (!path || path[0] != '\\' || path[1] != '\\' || !(end = strchr(path + 2, '\\')))
        return 0;
    n = (size_t)(end - path - 2);
    if (n == 0 || n >= size || memchr(path + 2, '(', n) || memchr(path + 2, ')', n))
        return 0;
    memcpy(host, path + 2, n);
    host[n] = '\0';
    return n;
}

/* A counterset or counter name as typed, tidied as PDH compares names:
 * blanks around it dropped, runs of blanks inside one space (in place). */
static char *tidy(char *s)
{
    char *w = s, *r = s;
    while (*r == ' ' || *r == '\t')
        r++;
    for (; *r; r++) {
        if (*r == ' ' || *r == '\t') {
            while (r[1] == ' ' || r[1] == '\t')
                r++;
            if (!r[1])
                break;                 /* trailing blanks */
            *w++ = ' ';
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return s;
}

int pl_path_parse(const char *path, char *buf, size_t bufsize, pl_spec_in *out)
{
    size_t n;
    char *obj, *ctr, *open, *close;
    char host[256];
    if (!path || !buf)
        return EINVAL;
    n = strlen(path);
    if (n + 1 > bufsize)
        return ENAMETOOLONG;         /* the promise is about the path as given */
    while (*path == ' ' || *path == '\t')
        path++, n--;
    memcpy(buf, path, n + 1);
    memset(out, 0, sizeof *out);
    out->instance_id = PL_NO_ID;
    out->counter_id = PERF_WILDCARD_COUNTER;
    if (buf[0] != '\\')
        return EINVAL;
    /* \\machine\Set...: the set is named with its machine, "\\machine\Set", as a
     * remote machine's sets are attached to this one (src/providers/remote.c) */
    obj = buf + 1;
    if (buf[1] == '\\') {
        size_t h = pl_path_machine(buf, host, sizeof host);
        if (!h)
            return EINVAL;
        obj = buf + 3 + h;
    }
    ctr = strrchr(obj, '\\');
    if (!ctr || ctr == obj)
        return EINVAL;
    *ctr++ = '\0';
    if (!*tidy(ctr))
        return EINVAL;
    for (char *e = ctr - 1; e > obj && (e[-1] == ' ' || e[-1] == '\t'); e--)
        e[-1] = '\0';                 /* "\Set(x) \Counter" */
    open = strchr(obj, '(');
    if (open) {
        close = strrchr(open, ')');
        /* the instance is everything up to the last ')', which must end the part */
        if (!close || close[1] != '\0' || open == obj)
            return EINVAL;
        *open = '\0';
        *close = '\0';
        out->instance = open + 1;
        if (!*out->instance)
            return EINVAL;
    } else {
        out->instance = "";
        if (strchr(obj, ')'))
            return EINVAL;
    }
    /* the instance is left as it is: instance names are data (a process may
     * call itself "  x  "), set and counter names are the catalog's */
    if (!*tidy(obj) || obj[0] == '\\')
        return EINVAL;               /* "\ \x\y": no set name starts with a backslash */
    out->counterset = buf[1] == '\\' ? buf : obj;
    out->counter = ctr;
    return 0;
}
