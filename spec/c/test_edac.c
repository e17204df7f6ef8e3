/* EDAC Memory Controller (issue 17, item 5) on spec/fixtures/edac, laid out
 * as drivers/edac/edac_mc_sysfs.c makes /sys/devices/system/edac/mc (a
 * two-socket skx_edac machine: mcN with its counts, dimmN with dimm_*_count
 * and size in MiB, the legacy csrowN), then a wanted mask, a driver that
 * goes away, and this machine (no EDAC in a VM: zero instances). */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"
#include "ct_absent.h"

#include <stdlib.h>
#include <string.h>

#define FX "spec/fixtures/edac"
#define ED "EDAC Memory Controller"
#define MIB 1048576ull

static void test_fixture(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, ED, 0, 0, NULL, &s) == 0);
    /* per controller: itself, dimms by number (dimm10 after dimm1), then csrows */
    NAMES(&s, "mc0", "mc0/dimm0", "mc0/dimm1", "mc0/dimm10", "mc0/csrow0", "mc1", "mc1/dimm0");
    CHECK_EQ_U64(s.inst[3].id, 0u << 16 | 1u << 12 | 10);
    CHECK_EQ_U64(s.inst[4].id, 2u << 12);
    CHECK_EQ_U64(s.inst[6].id, 1u << 16 | 1u << 12);
    EXPECT(&s, "mc0", "Corrected Errors", 17);           /* 12 + 3 on DIMMs, 2 unplaced */
    EXPECT(&s, "mc0", "Corrected Errors No Info", 2);
    EXPECT(&s, "mc0", "Uncorrected Errors", 1);
    EXPECT(&s, "mc0", "Uncorrected Errors No Info", 0);
    EXPECT(&s, "mc0", "Size Bytes", 65536 * MIB);        /* 64 GiB = 68719476736 */
    EXPECT(&s, "mc0/dimm0", "Corrected Errors", 12);
    EXPECT(&s, "mc0/dimm0", "Size Bytes", 32768 * MIB);  /* 34359738368 */
    UNSET(&s, "mc0/dimm0", "Corrected Errors No Info");  /* a controller's count only */
    EXPECT(&s, "mc0/dimm1", "Uncorrected Errors", 1);
    UNSET(&s, "mc0/dimm10", "Corrected Errors");         /* "x3" */
    UNSET(&s, "mc0/dimm10", "Uncorrected Errors");       /* -1 */
    EXPECT(&s, "mc0/dimm10", "Size Bytes", 16384 * MIB);
    EXPECT(&s, "mc0/csrow0", "Corrected Errors", 15);
    EXPECT(&s, "mc0/csrow0", "Size Bytes", 65536 * MIB);
    EXPECT(&s, "mc1", "Corrected Errors", 0);
    EXPECT(&s, "mc1/dimm0", "Uncorrected Errors", 0);
    pl_snap_free(&s);
}

static void test_wanted_and_gone(void)
{
    static const char *const ue[] = { "Uncorrected Errors", NULL };
    const char *root = tmp("gone");
    char cmd[256];
    pctx p;
    pl_snapshot s;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "sys/devices/system/edac/mc/mc0/ce_count", "4\n") == 1);
    CHECK(put(root, "sys/devices/system/edac/mc/mc0/ue_count", "5\n") == 1);
    CHECK(put(root, "sys/devices/system/edac/mc/mc0/dimm2/dimm_ue_count", "6\n") == 1);
    CHECK(pc_open_set(&p, root, ED, 0, 0) == 0);
    w = want_only(p.cs, ue);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "mc0", "Uncorrected Errors", 5);
    EXPECT(&s, "mc0/dimm2", "Uncorrected Errors", 6);
    UNSET(&s, "mc0", "Corrected Errors");                /* not wanted: not read */
    UNSET(&s, "mc0", "Size Bytes");                      /* no size_mb */
    /* the driver unloads: no controller, no instances */
    snprintf(cmd, sizeof cmd, "rm -rf '%s/sys/devices/system/edac/mc/mc0'", root);
    CHECK(system(cmd) == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

static void test_absent(void)
{
    check_absent_and_live(ED, "EDAC instances");
}

int main(void)
{
    ct_tmp_init("test_edac");
    RUN(test_fixture);
    RUN(test_wanted_and_gone);
    RUN(test_absent);
    ct_tmp_remove();
    return CT_END();
}
