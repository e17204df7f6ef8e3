/* One-value kernel files as kernel sources: see onevalue.h. */
#include "onevalue.h"
#include "srcparse.h"

int pl_parse_onevalue(const char *buf, size_t len, void *out)
{
    pl_onevalue *c = out;
    const char *p = buf, *e = buf + len;
    c->v[0] = 0;
    c->st[0] = PL_NS_ABSENT;
    if (len == 0)
        return 0;
    if (pl_src_num(&p, e, &c->v[0]) == 0 && (p == e || *p == '\n'))
        c->st[0] = PL_NS_OK;
    else
        c->st[0] = PL_NS_BAD;
    return 0;
}
