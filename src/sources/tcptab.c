/* /proc/net/tcp and tcp6 as kernel sources: see tcptab.h. */
#include "tcptab.h"
#include "udpq.h"

#include <errno.h>
#include <string.h>

int pl_parse_tcptab(const char *buf, size_t len, void *out)
{
    pl_tcptab *t = out;
    const char *nl = memchr(buf, '\n', len), *p;
    memset(t, 0, sizeof *t);
    /* the header: "  sl  local_address rem_address   st tx_queue rx_queue tr ..." */
    if (!nl || !memmem(buf, (size_t)(nl - buf), "tx_queue rx_queue", 17))
        return EINVAL;
    for (p = nl + 1; (nl = memchr(p, '\n', len - (size_t)(p - buf))) != NULL; p = nl + 1) {
        pl_sockline l;
        if (!pl_socktab_line(p, nl, 0, &l)) {
            memset(t->v, 0, sizeof t->v);
            memset(t->st, PL_NS_BAD, sizeof t->st);
            return 0;
        }
        t->v[PL_TT_TOTAL]++;
        t->v[l.state >= PL_TT_ESTABLISHED && l.state <= PL_TT_CLOSING ? l.state : PL_TT_OTHER]++;
        if (l.state == PL_TT_LISTEN) {
            t->v[PL_TT_BACKLOG] += l.rx;
        } else {
            t->v[PL_TT_RXQ] += l.rx;
            t->v[PL_TT_TXQ] += l.tx;
        }
    }
    memset(t->st, PL_NS_OK, sizeof t->st);
    return 0;
}

const pl_ksrc_def pl_ksrc_tcp = { "proc/net/tcp", sizeof(pl_tcptab), 0, pl_parse_tcptab, NULL };
const pl_ksrc_def pl_ksrc_tcp6 = { "proc/net/tcp6", sizeof(pl_tcptab), 0, pl_parse_tcptab, NULL };
