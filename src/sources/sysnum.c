/* One-line number files of /proc/sys as kernel sources: see sysnum.h. */
#include "sysnum.h"
#include "srcparse.h"

#include <string.h>

#define MAXTOK (PL_SYSNUM_MAX + 1)   /* one more: a longer line shows */

/* The numbers of the first line, which must be exactly `want` of them. */
static int numbers(const char *buf, size_t len, pl_sysnum *s, int want)
{
    const char *tok[MAXTOK];
    size_t tl[MAXTOK];
    int n = pl_src_tokens(buf, len, tok, tl, MAXTOK);
    memset(s->st, PL_NS_ABSENT, sizeof s->st);
    if (n == 0)
        return 0;            /* cut off or blank: nothing */
    for (int i = 0; i < want; i++)
        s->st[i] = n == want && pl_src_fixed(tok[i], tl[i], 0, &s->v[i]) ? PL_NS_OK : PL_NS_BAD;
    return 0;
}

int pl_parse_sysnum1(const char *buf, size_t len, void *out)
{
    return numbers(buf, len, out, 1);
}

int pl_parse_sysnum3(const char *buf, size_t len, void *out)
{
    return numbers(buf, len, out, 3);
}

int pl_parse_sysnum4(const char *buf, size_t len, void *out)
{
    return numbers(buf, len, out, 4);
}

int pl_parse_sysnum2(const char *buf, size_t len, void *out)
{
    return numbers(buf, len, out, 2);
}

int pl_parse_sysnum6(const char *buf, size_t len, void *out)
{
    return numbers(buf, len, out, 6);
}

const pl_ksrc_def pl_ksrc_filenr = {
    "proc/sys/fs/file-nr", sizeof(pl_sysnum), PL_KSRC_WHOLE, pl_parse_sysnum3, NULL,
};
const pl_ksrc_def pl_ksrc_entropy = PL_SYSNUM_SRC("proc/sys/kernel/random/entropy_avail");
const pl_ksrc_def pl_ksrc_pidmax = PL_SYSNUM_SRC("proc/sys/kernel/pid_max");
const pl_ksrc_def pl_ksrc_threadsmax = PL_SYSNUM_SRC("proc/sys/kernel/threads-max");
