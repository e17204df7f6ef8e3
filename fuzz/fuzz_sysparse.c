/* libFuzzer target: the pure parsers that are not whole kernel files, and so
 * are not in pl_ksrc_all (fuzz_sources covers those): rtnetlink qdisc dump
 * messages (qdisc.h), zram's one-line stat files (zram.h), bonding's
 * sysfs texts (bonding.h) and the XFS statistics files (xfsstat.h).
 *
 *   byte 0   selects the parser (modulo 4);
 *   bytes 1.. the input: for qdisc the receive buffer as the kernel would
 *            hand it (in a copy of its exact size, 4-byte aligned as recv's
 *            buffer is); for the text parsers a NUL-terminated string;
 *            for xfsstat the bytes alone, with no NUL after them.
 * A parse must never read past its input, and what it returns must be in
 * range (checked here). */
#include "bonding.h"
#include "qdisc.h"
#include "xfsstat.h"
#include "zram.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_qdisc(const uint8_t *p, size_t n)
{
    pl_qdisc q[8];
    pl_qdisc_list out = { q, 0, 8 };
    void *buf = malloc(n ? n : 1);       /* malloc: aligned, and exact for ASan */
    if (!buf)
        return;
    memcpy(buf, p, n);
    (void)pl_qdisc_parse(buf, n, 0, 0, &out);
    if (out.n > out.cap)
        abort();
    free(buf);
}

static void fuzz_text(int which, const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        return;
    memcpy(s, p, n);
    s[n] = '\0';
    if (which == 1) {
        uint64_t v[12];
        if (pl_zram_fields(s, v, 12) > 12)
            abort();
    } else {
        int m = pl_bond_mode(s);
        char name[16];
        const char *q = s;
        if (m < -1 || m > 6 || (m >= 0 && !pl_bond_mode_name(m)) || pl_bond_link(s) < -1)
            abort();
        while (pl_bond_next_name(&q, name, sizeof name) == 1)
            if (strlen(name) >= sizeof name)
                abort();
    }
    free(s);
}

/* The parser must stay within n bytes and set only whole lines' fields. */
static void fuzz_xfs(const uint8_t *p, size_t n)
{
    pl_xfsstat x;
    char *s = malloc(n ? n : 1);
    int set;
    if (!s)
        return;
    memcpy(s, p, n);
    set = pl_xfsstat_parse(s, n, &x);
    for (int i = 0; i < PL_XS_FIELDS; i++) {
        if (x.st[i] > 1 || (!x.st[i] && x.v[i]) || (x.st[i] && i < PL_XS_XPC && x.v[i] > UINT32_MAX))
            abort();
        set -= x.st[i];
    }
    if (set != 0)
        abort();
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] % 4 == 0)
        fuzz_qdisc(data + 1, size - 1);
    else if (data[0] % 4 == 3)
        fuzz_xfs(data + 1, size - 1);
    else
        fuzz_text(data[0] % 4, data + 1, size - 1);
    return 0;
}
