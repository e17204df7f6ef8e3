/* /proc/net/sockstat and sockstat6 as kernel sources: see sockstat.h. */
#include "sockstat.h"

#include <string.h>

#define K PL_NS_KEY
#define MAXKEYS 5

/* One sockstat line: its tag, its keys and the first field they fill. */
typedef struct sk_line {
    const char *tag;
    uint8_t taglen, nkeys, first;
    pl_ns_key keys[MAXKEYS];
} sk_line;

static const sk_line lines4[] = {
    { "sockets", 7, 1, PL_SS_USED, { K("used") } },
    { "TCP", 3, 5, PL_SS_TCP_INUSE, { K("inuse"), K("orphan"), K("tw"), K("alloc"), K("mem") } },
    { "UDP", 3, 2, PL_SS_UDP_INUSE, { K("inuse"), K("mem") } },
    { "RAW", 3, 1, PL_SS_RAW_INUSE, { K("inuse") } },
    { "FRAG", 4, 2, PL_SS_FRAG_INUSE, { K("inuse"), K("memory") } },
};

static const sk_line lines6[] = {
    { "TCP6", 4, 1, PL_SS_TCP6_INUSE, { K("inuse") } },
    { "UDP6", 4, 1, PL_SS_UDP6_INUSE, { K("inuse") } },
    { "RAW6", 4, 1, PL_SS_RAW6_INUSE, { K("inuse") } },
    { "FRAG6", 5, 2, PL_SS_FRAG6_INUSE, { K("inuse"), K("memory") } },
};

#define NLINES(a) (sizeof a / sizeof a[0])

/* One pass over the lines: each line's tag picks its entry; the first such
 * line counts.  The fields of the lines not found stay absent. */
static void parse(const char *buf, size_t len, const sk_line *lines, size_t n, pl_sockstat *m)
{
    const char *end = buf + len, *nl;
    uint8_t done = 0;        /* bit i: lines[i] seen */
    memset(m->st, PL_NS_ABSENT, sizeof m->st);
    for (const char *p = buf; p < end; p = nl + 1) {
        const char *colon;
        if (!(nl = memchr(p, '\n', (size_t)(end - p))))
            nl = end;        /* a cut-off last line: its whole fields still count */
        colon = memchr(p, ':', (size_t)(nl - p));
        for (size_t i = 0; colon && i < n; i++) {
            const sk_line *l = &lines[i];
            if (l->taglen != (size_t)(colon - p) || memcmp(p, l->tag, l->taglen) != 0)
                continue;
            if (!(done & (1u << i)))
                pl_ns_tagged_fields(colon + 1, l->keys, l->nkeys, m->v + l->first, m->st + l->first);
            done |= (uint8_t)(1u << i);
            break;
        }
        if (nl == end)
            break;
    }
}

int pl_parse_sockstat(const char *buf, size_t len, void *out)
{
    parse(buf, len, lines4, NLINES(lines4), out);
    return 0;
}

int pl_parse_sockstat6(const char *buf, size_t len, void *out)
{
    parse(buf, len, lines6, NLINES(lines6), out);
    return 0;
}

const pl_ksrc_def pl_ksrc_sockstat = { "proc/net/sockstat", sizeof(pl_sockstat), PL_KSRC_WHOLE,
                                       pl_parse_sockstat, NULL };
const pl_ksrc_def pl_ksrc_sockstat6 = { "proc/net/sockstat6", sizeof(pl_sockstat), PL_KSRC_WHOLE,
                                        pl_parse_sockstat6, NULL };
