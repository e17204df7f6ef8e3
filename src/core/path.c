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

int pl_path_parse(const char *path, char *buf, size_t bufsize, pl_spec_in *out)
{
    size_t n;
    char *obj, *ctr, *open, *close;
    if (!path || !buf)
        return EINVAL;
    n = strlen(path);
    if (n + 1 > bufsize)
        return ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    memset(out, 0, sizeof *out);
    out->instance_id = PL_NO_ID;
    out->counter_id = PERF_WILDCARD_COUNTER;
    /* \\machine\... names another machine: only the local one exists here */
    if (buf[0] != '\\' || buf[1] == '\\')
        return EINVAL;
    obj = buf + 1;
    ctr = strrchr(obj, '\\');
    if (!ctr || ctr == obj)
        return EINVAL;
    *ctr++ = '\0';
    if (!*ctr)
        return EINVAL;
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
    out->counterset = obj;
    out->counter = ctr;
    return 0;
}
