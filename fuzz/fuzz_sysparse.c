/* libFuzzer target: the pure parsers that are not whole kernel files, and so
 * are not in pl_ksrc_all (fuzz_sources covers those): rtnetlink qdisc dump
 * messages (qdisc.h), zram's one-line stat files (zram.h), bonding's
 * sysfs texts (bonding.h) and bcache's (bcache.h: bch_hprint sizes,
 * priority_stats, state, set UUIDs).
 *
 *   byte 0   selects the parser (modulo 4);
 *   bytes 1.. the input: for qdisc the receive buffer as the kernel would
 *            hand it (in a copy of its exact size, 4-byte aligned as recv's
 *            buffer is); for the text parsers a NUL-terminated string.
 * A parse must never read past its input, and what it returns must be in
 * range (checked here). */
#include "bcache.h"
#include "bonding.h"
#include "qdisc.h"
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

/* bcache's parsers on exactly n bytes (a copy without a NUL: ASan sees a
 * read past them); the UUID check on a NUL-terminated copy. */
static void fuzz_bcache(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    pl_bch_prio pr;
    pl_bch_size z;
    int st;
    if (!s)
        return;
    memcpy(s, p, n);
    z = pl_bch_size_parse(s, n);
    if (z.st > 2 || (z.st != 1 && z.v != 0) || (z.exact && z.st != 1))
        abort();
    pl_bch_prio_parse(s, n, &pr);
    for (int i = 0; i < PL_BCHP_N; i++)
        if (pr.st[i] > 2)
            abort();
    st = pl_bch_state(s, n);
    if (st < -1 || st > 3)
        abort();
    s[n] = '\0';
    (void)pl_bch_is_uuid(s);
    free(s);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] % 4 == 0)
        fuzz_qdisc(data + 1, size - 1);
    else if (data[0] % 4 == 3)
        fuzz_bcache(data + 1, size - 1);
    else
        fuzz_text(data[0] % 4, data + 1, size - 1);
    return 0;
}
