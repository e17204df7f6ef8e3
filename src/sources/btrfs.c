/* The "name value" files of /sys/fs/btrfs: see btrfs.h. */
#include "btrfs.h"
#include "pl_ksrc.h"

#include <string.h>

static const char *const err_keys[PL_BTE_N] = {
    "write_errs", "read_errs", "flush_errs", "corruption_errs", "generation_errs",
};
static const char *const commit_keys[PL_BTC_N] = {
    "commits", "last_commit_ms", "max_commit_ms", "total_commit_ms",
};

/* The decimal of p[0, n): 1 with *v; 0 if empty, not all digits or over
 * 2^64 - 1. */
static int decimal(const char *p, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)p[i] - (unsigned)'0';
        if (d > 9 || x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *v = x;
    return 1;
}

/* Lines "name value\n" of buf[0, len) into v/st by keys[0, n). */
static void parse_lines(const char *buf, size_t len, const char *const *keys, int n,
                        uint64_t *v, uint8_t *st)
{
    size_t i = 0;
    memset(st, PL_NS_ABSENT, (size_t)n);
    while (i < len) {
        const char *line = buf + i, *nl = memchr(line, '\n', len - i);
        size_t llen = nl ? (size_t)(nl - line) : len - i;
        const char *sp = memchr(line, ' ', llen);
        size_t klen = sp ? (size_t)(sp - line) : llen;
        for (int k = 0; k < n; k++) {
            if (strlen(keys[k]) != klen || memcmp(keys[k], line, klen) != 0)
                continue;
            if (st[k] != PL_NS_ABSENT || !nl || !sp ||
                !decimal(sp + 1, llen - klen - 1, &v[k]))
                st[k] = PL_NS_BAD;   /* repeated, cut, or not one decimal */
            else
                st[k] = PL_NS_OK;
            break;
        }
        i += llen + 1;
    }
}

void pl_btrfs_errs_parse(const char *buf, size_t len, pl_btrfs_errs *out)
{
    out->invalid = len >= 8 && memcmp(buf, "invalid\n", 8) == 0;
    parse_lines(buf, len, err_keys, PL_BTE_N, out->v, out->st);
}

void pl_btrfs_commits_parse(const char *buf, size_t len, pl_btrfs_commits *out)
{
    parse_lines(buf, len, commit_keys, PL_BTC_N, out->v, out->st);
}
