/* bcache's sysfs texts: the pure parsers of bch_hprint sizes (as Linux
 * >= 4.14 prints them, "0.5k", and as earlier kernels did, "512", "135M",
 * "1.10k"), of priority_stats (with and without Clean and Dirty), of a
 * backing device's state and of a set's UUID.  Expected values are worked
 * out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "bcache.h"
#include "ctest.h"

#include <stdio.h>
#include <string.h>

#define A "5f3c1a2e-8b47-4d0e-9c61-0a7e3b2d4f18"
#define B "c0ffee00-1234-4abc-8def-00112233aabb"
#define KI 1024ull
#define MI (1024ull * 1024)
#define GI (1024ull * 1024 * 1024)

static uint64_t hs(const char *s, uint8_t st_want)
{
    pl_bch_size z = pl_bch_size_parse(s, strlen(s));
    CHECK_EQ_U64(z.st, st_want);
    return z.v;
}

static void test_hsize(void)
{
    /* Linux >= 4.14: always a unit, one digit of tenths (floored) */
    CHECK_EQ_U64(hs("0.5k\n", PL_NS_OK), 512);                       /* 5 x 1024 / 10 = 512 */
    CHECK_EQ_U64(hs("0.0k\n", PL_NS_OK), 0);
    CHECK_EQ_U64(hs("1.2M\n", PL_NS_OK), MI + 209715);               /* 2 x 1048576 / 10 = 209715.2 */
    CHECK_EQ_U64(hs("512.0k", PL_NS_OK), 512 * KI);                  /* no '\n' */
    CHECK_EQ_U64(hs("999.9E\n", PL_NS_BAD), 0);                      /* past 2^64 */
    CHECK_EQ_U64(hs("15.9E\n", PL_NS_OK),
                 15 * (1ull << 60) + 9 * ((1ull << 60) / 10) + 9 * ((1ull << 60) % 10) / 10);
    /* earlier kernels: a bare decimal under 1024 (exact), no digit from 100 up, ".10" */
    {
        pl_bch_size z = pl_bch_size_parse("512\n", strlen("512\n"));
        CHECK(z.st == PL_NS_OK && z.v == 512 && z.exact);
        z = pl_bch_size_parse("0.5k\n", strlen("0.5k\n"));
        CHECK(z.st == PL_NS_OK && !z.exact);
    }
    CHECK_EQ_U64(hs("135M\n", PL_NS_OK), 135 * MI);
    CHECK_EQ_U64(hs("1.10k\n", PL_NS_OK), KI + 10 * KI / 10);         /* t / 100 = 10: 2048 */
    CHECK_EQ_U64(hs("1023k\n", PL_NS_OK), 1023 * KI);
    /* not a size */
    hs("", PL_NS_ABSENT);
    hs("\n", PL_NS_ABSENT);
    hs("-1.5k\n", PL_NS_BAD);                                         /* never a size we read */
    hs("1.11k\n", PL_NS_BAD);                                         /* two digits: only 10 */
    hs("1.123k\n", PL_NS_BAD);
    hs("1.k\n", PL_NS_BAD);
    hs("1.5\n", PL_NS_BAD);                                           /* a point needs a unit */
    hs("1.5Z\n", PL_NS_BAD);                                          /* Z, Y: past 64 bits */
    hs("1.5K\n", PL_NS_BAD);                                          /* the kernel writes 'k' */
    hs("1.5k\n\n", PL_NS_BAD);
    hs("1.5k x\n", PL_NS_BAD);
    hs("k\n", PL_NS_BAD);
    hs("18446744073709551616\n", PL_NS_BAD);                          /* 2^64 */
    CHECK_EQ_U64(hs("18446744073709551615\n", PL_NS_OK), UINT64_MAX);
    {
        const char cut[] = "1.5k\n";                                  /* len stops the parse */
        pl_bch_size z = pl_bch_size_parse(cut, 3);                    /* "1.5" */
        CHECK(z.st == PL_NS_BAD);
        z = pl_bch_size_parse(cut, 1);                                /* "1" */
        CHECK(z.st == PL_NS_OK && z.v == 1);
        z = pl_bch_size_parse("1\0k", 3);
        CHECK(z.st == PL_NS_BAD);
    }
}

#define PRIO(text, p) pl_bch_prio_parse(text, strlen(text), p)
#define STATE(text) pl_bch_state(text, strlen(text))

static void test_prio(void)
{
    static const char full[] = "Unused:\t\t12%\nClean:\t\t80%\nDirty:\t\t3%\nMetadata:\t1%\n"
                               "Average:\t5120\nSectors per Q:\t2359296\nQuantiles:\t[1 2 3]\n";
    pl_bch_prio p;
    pl_bch_prio_parse(full, strlen(full), &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_OK && p.v[PL_BCHP_UNUSED] == 12);
    CHECK(p.st[PL_BCHP_CLEAN] == PL_NS_OK && p.v[PL_BCHP_CLEAN] == 80);
    CHECK(p.st[PL_BCHP_DIRTY] == PL_NS_OK && p.v[PL_BCHP_DIRTY] == 3);
    CHECK(p.st[PL_BCHP_METADATA] == PL_NS_OK && p.v[PL_BCHP_METADATA] == 1);
    CHECK(p.st[PL_BCHP_AVERAGE] == PL_NS_OK && p.v[PL_BCHP_AVERAGE] == 5120);
    /* older: no Clean, Dirty; a bad line leaves only its own field */
    PRIO("Unused:\t\t4x%\nMetadata:\t0%\nAverage:\t97%\n", &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_BAD);
    CHECK(p.st[PL_BCHP_CLEAN] == PL_NS_ABSENT && p.st[PL_BCHP_DIRTY] == PL_NS_ABSENT);
    CHECK(p.st[PL_BCHP_METADATA] == PL_NS_OK && p.v[PL_BCHP_METADATA] == 0);
    CHECK(p.st[PL_BCHP_AVERAGE] == PL_NS_BAD);                         /* no '%' after Average */
    PRIO("Unused:12%\nMetadata:\t5\nUnusedX:\t1%\n", &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_BAD);                          /* no blank after ':' */
    CHECK(p.st[PL_BCHP_METADATA] == PL_NS_BAD);                        /* no '%' */
    pl_bch_prio_parse(full, 10, &p);                                   /* cut: "Unused:\t\t1" */
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_BAD);
    PRIO("", &p);
    CHECK(p.st[PL_BCHP_UNUSED] == PL_NS_ABSENT);
}

static void test_state_uuid(void)
{
    CHECK_EQ_U64(STATE("no cache\n"), 0);
    CHECK_EQ_U64(STATE("clean\n"), 1);
    CHECK_EQ_U64(STATE("dirty"), 2);
    CHECK_EQ_U64(STATE("inconsistent\n"), 3);
    CHECK(STATE("dirty\n\n") < 0);
    CHECK(STATE("clea") < 0);
    CHECK(STATE("") < 0);
    CHECK(pl_bch_is_uuid(A) && pl_bch_is_uuid(B));
    CHECK(!pl_bch_is_uuid("register") && !pl_bch_is_uuid("pendings_cleanup"));
    CHECK(!pl_bch_is_uuid("5F3C1A2E-8B47-4D0E-9C61-0A7E3B2D4F18"));   /* %pU is lower case */
    CHECK(!pl_bch_is_uuid(A "0") && !pl_bch_is_uuid("5f3c1a2e-8b47-4d0e-9c61-0a7e3b2d4f1"));
}

int main(void)
{
    RUN(test_hsize);
    RUN(test_prio);
    RUN(test_state_uuid);
    return CT_END();
}
