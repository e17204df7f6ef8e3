/* libFuzzer target: the pure parsers that are not whole kernel files, and so
 * are not in pl_ksrc_all (fuzz_sources covers those): rtnetlink qdisc dump
 * messages (qdisc.h), zram's one-line stat files (zram.h), bonding's
 * sysfs texts (bonding.h), the XFS statistics files (xfsstat.h), btrfs's
 * "name value" files (btrfs.h), the ZFS kstats read per pool (kstat.h,
 * zfs.h): the I/O kstat and a dataset's objset kstat, and bcache's texts
 * (bcache.h: bch_hprint sizes, priority_stats, state, set UUIDs).
 *
 *   byte 0   selects the parser (modulo NPARSERS: 0 qdisc, 1 zram, 2 bonding,
 *            3 xfsstat, 4 btrfs, 5 kstat I/O, 6 objset, 7 bcache; each seed's
 *            byte 0 is its parser's number);
 *   bytes 1.. the input: for qdisc the receive buffer as the kernel would
 *            hand it (in a copy of its exact size, 4-byte aligned as recv's
 *            buffer is); for xfsstat and btrfs the bytes alone in a copy of
 *            their exact size (the parsers take a length, no NUL); for the
 *            other text parsers a NUL-terminated string.
 * A parse must never read past its input, and what it returns must be in
 * range (checked here). */
#include "bcache.h"
#include "bonding.h"
#include "btrfs.h"
#include "kstat.h"
#include "qdisc.h"
#include "xfsstat.h"
#include "zfs.h"
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
    if (which == 1 /* P_ZRAM */) {
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

static void fuzz_btrfs(const uint8_t *p, size_t n)
{
    pl_btrfs_errs e;
    pl_btrfs_commits c;
    char *buf = malloc(n ? n : 1);       /* exact size: a read past n is caught */
    if (!buf)
        return;
    memcpy(buf, p, n);
    pl_btrfs_errs_parse(buf, n, &e);
    pl_btrfs_commits_parse(buf, n, &c);
    for (int k = 0; k < PL_BTE_N; k++)
        if (e.st[k] > 2)
            abort();
    for (int k = 0; k < PL_BTC_N; k++)
        if (c.st[k] > 2)
            abort();
    free(buf);
}

enum { P_QDISC, P_ZRAM, P_BOND, P_XFS, P_BTRFS, P_KSTAT_IO, P_OBJSET, P_BCACHE, NPARSERS };

/* A per-pool kstat as pl_file_read gives it: a '\n' ending the last line,
 * then a '\0'; the objset kstat parsed twice into one struct, as its
 * collects do. */
static void fuzz_kstat(int which, const uint8_t *p, size_t n)
{
    char *s = malloc(n + 2);
    size_t len = n;
    if (!s)
        return;
    memcpy(s, p, n);
    if (len > 0 && s[len - 1] != '\n')
        s[len++] = '\n';
    s[len] = '\0';
    if (which == P_KSTAT_IO) {
        pl_kstat_io io;
        (void)pl_kstat_io_parse(s, len, &io);
    } else {
        static pl_kstat k;
        const char *t;
        for (int i = 0; i < 2; i++)
            if (pl_parse_zfs_objset(s, len, &k) == 0 &&
                (t = pl_kstat_text(&k, PL_OBJSET_NAME)) && strlen(t) >= len)
                abort();
        pl_kstat_release(&k);
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    switch (data[0] % NPARSERS) {
    case P_QDISC: fuzz_qdisc(data + 1, size - 1); break;
    case P_XFS: fuzz_xfs(data + 1, size - 1); break;
    case P_BTRFS: fuzz_btrfs(data + 1, size - 1); break;
    case P_BCACHE: fuzz_bcache(data + 1, size - 1); break;
    case P_KSTAT_IO:
    case P_OBJSET: fuzz_kstat(data[0] % NPARSERS, data + 1, size - 1); break;
    default: fuzz_text(data[0] % NPARSERS, data + 1, size - 1); break;   /* P_ZRAM, P_BOND */
    }
    return 0;
}
