/* GPU Device and GPU Adapter Memory over spec/fixtures/gpu/basic (made by
 * its make_basic.py: amdgpu, i915, xe and virtio_gpu cards in sysfs's
 * layout), amdgpu's pp_dpm parser, the text facts of the info op, a tree
 * without /sys/class/drm, and the live machine.  Expected values are worked
 * out beside each check. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "drm.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FX "spec/fixtures/gpu/basic"

/* ---- pp_dpm_* ---------------------------------------------------------------------- */
static void test_parse_dpm(void)
{
    pl_drm_dpm d;
    static const char two[] = "0: 500Mhz *\n1: 800Mhz *\n";
    CHECK(pl_parse_drm_dpm("0: 500Mhz \n1: 1825Mhz *\n2: 2475Mhz \n", 37, &d) == 0);
    CHECK(d.found == 1);
    CHECK_EQ_U64(d.mhz, 1825);
    /* no level marked (an APU between changes): nothing, not level 0 */
    CHECK(pl_parse_drm_dpm("0: 800Mhz \n1: 1900Mhz \n", 24, &d) == 0 && d.found == 0);
    /* two marks: which one runs is unknown */
    CHECK(pl_parse_drm_dpm(two, sizeof two - 1, &d) == 0 && d.found == 0);
    /* "S: 19Mhz *" of pp_dpm_fclk's deep sleep level is a level too; a cut
     * line ("1: 18" without its newline) is not read */
    CHECK(pl_parse_drm_dpm("S: 19Mhz *\n", 11, &d) == 0 && d.found == 1 && d.mhz == 19);
    CHECK(pl_parse_drm_dpm("1: 18", 5, &d) == 0 && d.found == 0);
    CHECK(pl_parse_drm_dpm("1: 1800Khz *\n", 13, &d) == 0 && d.found == 0);
}

/* ---- GPU Device ---------------------------------------------------------------------- */
static void test_device(void)
{
    pl_snapshot s;
    static const uint32_t ids[] = { 0, 1, 2, 3, 4 };
    CHECK(pc_collect_tree(FX, "GPU Device", 0, 0, NULL, &s) == 0);
    /* card0-DP-1 (a connector) and renderD128 are not cards */
    INSTS(&s, ids, "card0", "card1", "card2", "card3", "card4");
    /* card0, amdgpu: gpu_busy_percent 37, mem_busy_percent 12, power1_average
     * 45000000 uW, temp1_input 52000 m°C, sclk's '*' level 1825 MHz (before
     * freq1_input's 1825000000 Hz), mclk's 1000 MHz */
    EXPECT(&s, "card0", "% GPU Busy", 37);
    EXPECT(&s, "card0", "% Memory Busy", 12);
    EXPECT(&s, "card0", "Power (mW)", 45000000);
    EXPECT(&s, "card0", "Temperature", 52000);
    EXPECT(&s, "card0", "Actual Frequency (MHz)", 1825);
    EXPECT(&s, "card0", "Memory Clock (MHz)", 1000);
    UNSET(&s, "card0", "Requested Frequency (MHz)");
    UNSET(&s, "card0", "% Idle Time");
    /* card1, i915: gt_*_freq_mhz; rc6_residency_ms 123456 x 10^4 = 1234560000 (100 ns) */
    EXPECT(&s, "card1", "Actual Frequency (MHz)", 350);
    EXPECT(&s, "card1", "Requested Frequency (MHz)", 400);
    EXPECT(&s, "card1", "Minimum Frequency (MHz)", 300);
    EXPECT(&s, "card1", "Maximum Frequency (MHz)", 1300);
    EXPECT(&s, "card1", "Boost Frequency (MHz)", 1300);
    EXPECT(&s, "card1", "% Idle Time", 1234560000ull);
    UNSET(&s, "card1", "% GPU Busy");
    UNSET(&s, "card1", "Power (mW)");       /* no hwmon */
    /* card2, xe: tile0/gt0/freq0/{act,cur,min,max}_freq; idle_residency_ms 7000 x 10^4 */
    EXPECT(&s, "card2", "Actual Frequency (MHz)", 1200);
    EXPECT(&s, "card2", "Requested Frequency (MHz)", 1250);
    EXPECT(&s, "card2", "Minimum Frequency (MHz)", 400);
    EXPECT(&s, "card2", "Maximum Frequency (MHz)", 2400);
    EXPECT(&s, "card2", "% Idle Time", 70000000ull);
    UNSET(&s, "card2", "Boost Frequency (MHz)");
    /* card3, virtio_gpu: a card with nothing to read */
    for (uint32_t c = 0; c < s.cs->ncounters; c++)
        CHECK(s.have[3 * s.cs->ncounters + c] == 0);
    /* card4, amdgpu APU: power1_input 15000000 (no power1_average); temp1_input
     * -5000 is no reading; mem_busy_percent "x" is none; pp_dpm_sclk without
     * a mark: freq1_input 800600000 Hz -> (800600000 + 500000) / 10^6 = 801 */
    EXPECT(&s, "card4", "% GPU Busy", 4);
    UNSET(&s, "card4", "% Memory Busy");
    EXPECT(&s, "card4", "Power (mW)", 15000000);
    UNSET(&s, "card4", "Temperature");
    EXPECT(&s, "card4", "Actual Frequency (MHz)", 801);
    UNSET(&s, "card4", "Memory Clock (MHz)");
    pl_snap_free(&s);
}

/* % Idle Time between two collects of a copied tree, 10 s apart (fmt2):
 * rc6 123456 -> 125956 ms is 2500 ms of 10 s = 25 %; xe 7000 -> 14000 ms is
 * 70 %. */
static void test_idle_rate(void)
{
    char cmd[256];
    const char *root = tmp("idle");
    pctx p;
    pl_snapshot s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    snprintf(cmd, sizeof cmd, "cp -a " FX " %s", root);
    CHECK(system(cmd) == 0);
    CHECK(pc_open_set(&p, root, "GPU Device", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    CHECK(put(root, "sys/devices/pci0000:00/0000:00:02.0/drm/card1/power/rc6_residency_ms",
              "125956\n") == 1);
    CHECK(put(root, "sys/devices/pci0000:00/0000:00:01.0/0000:04:00.0/tile0/gt0/gtidle/"
                    "idle_residency_ms", "14000\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    CHECK_NEAR(val2(&s0, &s1, "card1", "% Idle Time"), 25.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "card2", "% Idle Time"), 70.0, 1e-9);
    pc_close(&p);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

/* ---- GPU Adapter Memory ------------------------------------------------------------ */
static void test_adapter_memory(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "GPU Adapter Memory", 0, 0, NULL, &s) == 0);
    NAMES(&s, "card0", "card1", "card2", "card3", "card4");
    EXPECT(&s, "card0", "Dedicated Usage", 2147487744ull);
    EXPECT(&s, "card0", "Dedicated Limit", 17163091968ull);
    EXPECT(&s, "card0", "% Dedicated Usage Base", 17163091968ull);
    EXPECT(&s, "card0", "Visible Dedicated Usage", 134217728);
    EXPECT(&s, "card0", "Visible Dedicated Limit", 268435456);
    EXPECT(&s, "card0", "Shared Usage", 33558528);
    EXPECT(&s, "card0", "Shared Limit", 8589934592ull);
    /* 2147487744 + 33558528 */
    EXPECT(&s, "card0", "Total Committed", 2181046272ull);
    /* 2147487744 / 17163091968 x 100 = 12.51224... % */
    CHECK_NEAR(val2(&s, &s, "card0", "% Dedicated Usage"), 100.0 * 2147487744.0 / 17163091968.0,
               1e-9);
    /* card4: mem_info_vram_used "garbage": Dedicated Usage and the sum unset */
    UNSET(&s, "card4", "Dedicated Usage");
    EXPECT(&s, "card4", "Dedicated Limit", 536870912);
    EXPECT(&s, "card4", "Shared Usage", 1048576);
    EXPECT(&s, "card4", "Shared Limit", 4294967296ull);
    UNSET(&s, "card4", "Total Committed");
    UNSET(&s, "card4", "Visible Dedicated Usage");   /* no mem_info_vis_vram_* */
    UNSET(&s, "card1", "Dedicated Usage");            /* i915 has no such file */
    pl_snap_free(&s);
}

/* Only the wanted counters' files are read: a collect that wants Shared
 * Usage leaves Dedicated Usage unset. */
static void test_wanted(void)
{
    static const char *const names[] = { "Shared Usage", NULL };
    pl_snapshot s;
    const pl_counterset_def *cs = NULL;
    pl_env *env = pl_env_new(FX);
    uint8_t *w;
    CHECK(env && (cs = pl_env_find(env, "GPU Adapter Memory")) != NULL);
    if (!cs) {
        pl_env_unref(env);
        return;
    }
    w = want_only(cs, names);
    CHECK(pc_collect_tree(FX, "GPU Adapter Memory", 0, 0, w, &s) == 0);
    EXPECT(&s, "card0", "Shared Usage", 33558528);
    UNSET(&s, "card0", "Dedicated Usage");
    free(w);
    pl_snap_free(&s);
    pl_env_unref(env);
}

/* ---- text facts ----------------------------------------------------------------------- */
typedef struct facts {
    char text[1024];
    int stop_after;          /* 0: never */
    int n;
} facts;

static int emit(void *ud, const char *key, const char *value)
{
    facts *f = ud;
    size_t l = strlen(f->text);
    snprintf(f->text + l, sizeof f->text - l, "%s=%s;", key, value);
    return f->stop_after && ++f->n >= f->stop_after;
}

static void test_info(void)
{
    pctx p;
    facts f;
    CHECK(pc_open_set(&p, FX, "GPU Device", 0, 0) == 0);
    CHECK(p.cs->ops->info != NULL);
    memset(&f, 0, sizeof f);
    CHECK(p.cs->ops->info(p.st, "card0", emit, &f) == 0);
    CHECK_STR(f.text, "pci_slot=0000:03:00.0;driver=amdgpu;pci_id=1002:73bf;"
                      "product_name=AMD Radeon RX 6800;");
    memset(&f, 0, sizeof f);
    CHECK(p.cs->ops->info(p.st, "card3", emit, &f) == 0);
    CHECK_STR(f.text, "pci_slot=virtio3;driver=virtio_gpu;pci_id=1af4:0010;");
    /* ESC and TAB of a board's name come out escaped, as \xNN */
    memset(&f, 0, sizeof f);
    CHECK(p.cs->ops->info(p.st, "card4", emit, &f) == 0);
    CHECK(strstr(f.text, "product_name=Bad\\x1b[31m\\x09name;") != NULL);
    /* emit's nonzero stops the walk */
    memset(&f, 0, sizeof f);
    f.stop_after = 1;
    CHECK(p.cs->ops->info(p.st, "card0", emit, &f) == 0);
    CHECK_STR(f.text, "pci_slot=0000:03:00.0;");
    /* no such instance */
    memset(&f, 0, sizeof f);
    CHECK(p.cs->ops->info(p.st, "card9", emit, &f) == ENOENT);
    CHECK(p.cs->ops->info(p.st, "nvidia0", emit, &f) == ENOENT);
    CHECK(p.cs->ops->info(p.st, "card0-DP-1", emit, &f) == ENOENT);
    CHECK(p.cs->ops->info(p.st, NULL, emit, &f) == ENOENT);
    CHECK_STR(f.text, "");
    pc_close(&p);
}

/* ---- absent and live -------------------------------------------------------------------- */
static void test_absent(void)
{
    pl_snapshot s;
    const char *root = tmp("none");
    CHECK(mkdir(root, 0700) == 0);
    /* no /sys/class/drm (and no NVML below a root): zero instances, no error */
    CHECK(pc_collect_tree(root, "GPU Device", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
    CHECK(pc_collect_tree(root, "GPU Adapter Memory", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

/* The machine itself: this VM has no DRM card; wherever there is one, a card
 * instance is named cardN and a busy share is at most 100. */
static void test_live(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree("/", "GPU Device", 0, 0, NULL, &s) == 0);
    for (uint32_t i = 0; i < s.ninst; i++) {
        uint64_t v;
        const char *n = pl_snap_name(&s, i);
        CHECK(strncmp(n, "card", 4) == 0 || strncmp(n, "nvidia", 6) == 0);
        if (get(&s, n, "% GPU Busy", &v))
            CHECK(v <= 100);
    }
    pl_snap_free(&s);
    CHECK(pc_collect_tree("/", "GPU Adapter Memory", 0, 0, NULL, &s) == 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_gpu");
    RUN(test_parse_dpm);
    RUN(test_device);
    RUN(test_idle_rate);
    RUN(test_adapter_memory);
    RUN(test_wanted);
    RUN(test_info);
    RUN(test_absent);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
