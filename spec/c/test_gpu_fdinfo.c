/* GPU Engine and GPU Process Memory: the DRM fdinfo parser on bytes, and
 * the sets over spec/fixtures/gpu/basic's processes (made by its
 * make_basic.py from the layouts of Documentation/gpu/drm-usage-stats.rst
 * and amdgpu_fdinfo.c):
 *   100 glxgears, i915 on card1: fds 3 and 4 one client (7, counted once),
 *       fd 5 client 8, fd 0 a tty, fd 6 an anon inode (not below /dev/dri);
 *   200 blender, amdgpu on card0 (drm-memory-*, 6.1);
 *   300 vkcube, xe on card2 (drm-cycles-*, drm-total-* in KiB and MiB);
 *   400 Xorg, a DRM fd whose fdinfo predates usage stats (5.18): nothing;
 *   500 bash, no DRM fd;
 *   600 kmscube, v3d (a platform device: no drm-pdev, named by driver).
 * Expected values are worked out beside each check. */
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

/* ---- the parser ------------------------------------------------------------------ */
static const pl_drm_engine *engine(const pl_drm_fdinfo *f, const char *name)
{
    for (uint32_t i = 0; i < f->neng; i++)
        if (!strcmp(f->eng[i].name, name))
            return &f->eng[i];
    return NULL;
}

static const pl_drm_region *region(const pl_drm_fdinfo *f, const char *name)
{
    for (uint32_t i = 0; i < f->nreg; i++)
        if (!strcmp(f->reg[i].name, name))
            return &f->reg[i];
    return NULL;
}

static void test_parse(void)
{
    static const char text[] =
        "pos:\t0\nflags:\t02100002\n"
        "drm-driver:\txe\n"
        "drm-client-id:\t21\n"
        "drm-pdev:\t0000:04:00.0\n"
        "drm-total-gtt:\t512 KiB\n"
        "drm-total-vram0:\t23 MiB\n"
        "drm-resident-vram0:\t4097\n"               /* bytes: not a multiple of 1 KiB */
        "drm-shared-vram0:\t3 GiB\n"                /* no such unit: unset */
        "drm-memory-gtt: \t8 KiB\n"
        "drm-cycles-rcs:\t28257900\n"
        "drm-total-cycles-rcs:\t7655183225\n"
        "drm-engine-capacity-vcs:\t2\n"
        "drm-engine-render:\t9288864723 ns\n"
        "drm-engine-copy:\t12\n"                    /* no "ns": unset */
        "drm-maxfreq-render:\t1300 MHz\n"
        "drm-engine-video:\t18446744073709551616 ns\n";   /* 2^64: unset */
    pl_drm_fdinfo f;
    const pl_drm_engine *g;
    const pl_drm_region *r;
    memset(&f, 0, sizeof f);
    CHECK(pl_parse_drm_fdinfo(text, sizeof text - 1, &f) == 0);
    CHECK(f.drm == 1 && f.has_client == 1);
    CHECK_STR(f.driver, "xe");
    CHECK_STR(f.pdev, "0000:04:00.0");
    CHECK_EQ_U64(f.client, 21);
    CHECK((r = region(&f, "gtt")) != NULL);
    if (r) {
        CHECK_EQ_U64(r->v[PL_DRM_TOTAL], 524288);        /* 512 x 1024 */
        CHECK_EQ_U64(r->v[PL_DRM_MEMORY], 8192);         /* 8 x 1024 */
        CHECK(r->st[PL_DRM_RESIDENT] == PL_NS_ABSENT);
    }
    CHECK((r = region(&f, "vram0")) != NULL);
    if (r) {
        CHECK_EQ_U64(r->v[PL_DRM_TOTAL], 24117248);      /* 23 x 1048576 */
        CHECK_EQ_U64(r->v[PL_DRM_RESIDENT], 4097);
        CHECK(r->st[PL_DRM_SHARED] == PL_NS_BAD);
    }
    /* "drm-total-cycles-rcs" is rcs's cycles, not a region "cycles-rcs" */
    CHECK(region(&f, "cycles-rcs") == NULL);
    CHECK((g = engine(&f, "rcs")) != NULL);
    if (g) {
        CHECK_EQ_U64(g->v[PL_DRM_CYCLES], 28257900);
        CHECK_EQ_U64(g->v[PL_DRM_TOTAL_CYCLES], 7655183225ull);
        CHECK(g->st[PL_DRM_NS] == PL_NS_ABSENT);
    }
    /* "drm-engine-capacity-vcs" is vcs's capacity, not an engine "capacity-vcs" */
    CHECK(engine(&f, "capacity-vcs") == NULL);
    CHECK((g = engine(&f, "vcs")) != NULL && g->v[PL_DRM_CAPACITY] == 2);
    CHECK((g = engine(&f, "render")) != NULL && g->v[PL_DRM_NS] == 9288864723ull);
    CHECK((g = engine(&f, "copy")) != NULL && g->st[PL_DRM_NS] == PL_NS_BAD);
    CHECK((g = engine(&f, "video")) != NULL && g->st[PL_DRM_NS] == PL_NS_BAD);
    CHECK_EQ_U64(f.neng, 5);                             /* rcs vcs render copy video */
    /* a second parse forgets the first; without drm-driver it is no client */
    {
        static const char two[] = "pos:\t0\ndrm-engine-render:\t5 ns\n";
        CHECK(pl_parse_drm_fdinfo(two, sizeof two - 1, &f) == 0);
    }
    CHECK(f.drm == 0 && f.has_client == 0 && f.pdev[0] == '\0' && f.nreg == 0);
    CHECK(f.neng == 1 && f.eng[0].v[PL_DRM_NS] == 5);
}

static void test_parse_limits(void)
{
    char text[4096];
    size_t n = 0;
    pl_drm_fdinfo f;
    memset(&f, 0, sizeof f);
    /* more engines than the table holds: the first PL_DRM_ENGINES kept;
     * a name of 32 bytes or more is skipped, never cut */
    n += (size_t)snprintf(text + n, sizeof text - n, "drm-driver:\tx\n");
    for (int i = 0; i < PL_DRM_ENGINES + 4; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "drm-engine-e%d:\t%d ns\n", i, i);
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "drm-total-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:\t1\n"
                          "drm-total-cut:\t7");   /* cut off: not read */
    CHECK(pl_parse_drm_fdinfo(text, n, &f) == 0);
    CHECK_EQ_U64(f.neng, PL_DRM_ENGINES);
    CHECK_STR(f.eng[PL_DRM_ENGINES - 1].name, "e15");
    CHECK_EQ_U64(f.nreg, 0);
    /* a driver name too long is no driver */
    CHECK(pl_parse_drm_fdinfo("drm-driver:\taaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 53, &f) == 0);
    CHECK(f.drm == 0);
}

/* ---- GPU Engine ---------------------------------------------------------------------- */
static void test_engine(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "GPU Engine", 0, 0, NULL, &s) == 0);
    NAMES(&s, "pid_100_card1_render", "pid_100_card1_copy", "pid_100_card1_video",
          "pid_100_card1_video-enhance", "pid_200_card0_gfx", "pid_200_card0_compute",
          "pid_200_card0_dma", "pid_200_card0_dec", "pid_300_card2_rcs", "pid_300_card2_bcs",
          "pid_300_card2_vcs", "pid_300_card2_vecs", "pid_300_card2_ccs", "pid_600_v3d_bin",
          "pid_600_v3d_render", "pid_600_v3d_tfu", "pid_600_v3d_csd", "pid_600_v3d_cache_clean");
    /* client 7 once (fds 3 and 4), client 8 added: 9288864723 + 711136277
     * = 10000001000 ns = 100000010 x 100 ns */
    EXPECT(&s, "pid_100_card1_render", "Running Time", 100000010ull);
    EXPECT(&s, "pid_100_card1_render", "Utilization Percentage Base", 1);
    /* 0 + 350 ns = 3 x 100 ns (floored) */
    EXPECT(&s, "pid_100_card1_copy", "Running Time", 3);
    /* 1000000 ns = 10000 x 100 ns, over 2 video engines */
    EXPECT(&s, "pid_100_card1_video", "Running Time", 10000);
    EXPECT(&s, "pid_100_card1_video", "Utilization Percentage Base", 2);
    UNSET(&s, "pid_100_card1_video", "Cycle Utilization Percentage");
    /* amdgpu: 1234567890 ns = 12345678 x 100 ns */
    EXPECT(&s, "pid_200_card0_gfx", "Running Time", 12345678ull);
    EXPECT(&s, "pid_200_card0_compute", "Running Time", 1);
    /* xe: cycles, no ns; vcs's base 7655183225 x 2 engines */
    UNSET(&s, "pid_300_card2_rcs", "Running Time");
    EXPECT(&s, "pid_300_card2_rcs", "Cycle Utilization Percentage", 28257900);
    EXPECT(&s, "pid_300_card2_rcs", "Cycle Utilization Percentage Base", 7655183225ull);
    EXPECT(&s, "pid_300_card2_vcs", "Cycle Utilization Percentage Base", 15310366450ull);
    EXPECT(&s, "pid_600_v3d_render", "Running Time", 50);
    /* ids are the pids; keys the start times of stat field 22 */
    CHECK_EQ_U64(s.inst[0].id, 100);
    CHECK_EQ_U64(s.inst[0].key, 5000);
    CHECK_EQ_U64(s.inst[17].id, 600);
    pl_snap_free(&s);
}

/* Utilisation between two collects 10 s apart (fmt2).  i915 render: client
 * 7 goes 9288864723 -> 13288864723 ns (+4 s), client 8 stays: 4 s of 10 s
 * = 40 %; its video engines (2) +10 s: 50 %.  xe rcs: +500000000 of +1000000000 cycles = 50 %; vcs: +500000000
 * of 1000000000 x 2 engines = 25 %. */
static void test_engine_rates(void)
{
    char cmd[256], rel[64], *text = NULL;
    const char *root = tmp("rates");
    FILE *fp;
    size_t len = 0;
    pctx p;
    pl_snapshot s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    snprintf(cmd, sizeof cmd, "cp -a " FX " %s", root);
    CHECK(system(cmd) == 0);
    CHECK(pc_open_set(&p, root, "GPU Engine", 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    /* fds 3 and 4 are one client: both fdinfo files say the same */
    for (int fd = 3; fd <= 4; fd++) {
        snprintf(cmd, sizeof cmd, "sed -i -e 's/9288864723 ns/13288864723 ns/' -e "
                 "'s/video:\\t1000000 ns/video:\\t10001000000 ns/' %s/proc/100/fdinfo/%d", root, fd);
        CHECK(system(cmd) == 0);
    }
    snprintf(cmd, sizeof cmd, "sed -i -e 's/^drm-cycles-rcs:.*/drm-cycles-rcs:\\t528257900/' "
             "-e 's/^drm-cycles-vcs:.*/drm-cycles-vcs:\\t500000000/' -e 's/7655183225/8655183225/' "
             "%s/proc/300/fdinfo/9", root);
    CHECK(system(cmd) == 0);
    snprintf(rel, sizeof rel, "%s/proc/300/fdinfo/9", root);
    if ((fp = fopen(rel, "r"))) {
        CHECK(getdelim(&text, &len, '\0', fp) > 0);
        CHECK(text && strstr(text, "drm-total-cycles-vcs:\t8655183225\n") != NULL);
        fclose(fp);
    }
    free(text);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    CHECK_NEAR(val2(&s0, &s1, "pid_100_card1_render", "Utilization Percentage"), 40.0, 1e-9);
    /* video: 1000000 -> 10001000000 ns is 10 s busy of 10 s over 2 engines: 50 % */
    CHECK_NEAR(val2(&s0, &s1, "pid_100_card1_video", "Utilization Percentage"), 50.0, 1e-9);
    /* video-enhance stays at 0 ns: 0 % */
    CHECK_NEAR(val2(&s0, &s1, "pid_100_card1_video-enhance", "Utilization Percentage"), 0.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "pid_300_card2_rcs", "Cycle Utilization Percentage"), 50.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "pid_300_card2_vcs", "Cycle Utilization Percentage"), 25.0, 1e-9);
    CHECK_NEAR(val2(&s0, &s1, "pid_300_card2_bcs", "Cycle Utilization Percentage"), 0.0, 1e-9);
    pc_close(&p);
    pl_snap_free(&s0);
    pl_snap_free(&s1);
}

/* ---- GPU Process Memory --------------------------------------------------------------- */
static void test_process_memory(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "GPU Process Memory", 0, 0, NULL, &s) == 0);
    NAMES(&s, "pid_100_card1", "pid_200_card0", "pid_300_card2", "pid_600_v3d");
    /* i915: system0 8 MiB (client 7, once) + 4 KiB (client 8) = 8388608 +
     * 4096 = 8392704, stolen-system0 0: all shared, none dedicated */
    EXPECT(&s, "pid_100_card1", "Shared Usage", 8392704);
    EXPECT(&s, "pid_100_card1", "Dedicated Usage", 0);
    EXPECT(&s, "pid_100_card1", "Total Committed", 8392704);
    /* resident 6 MiB + 4 KiB + 0 = 6291456 + 4096 */
    EXPECT(&s, "pid_100_card1", "Resident Usage", 6295552);
    EXPECT(&s, "pid_100_card1", "Shared Objects Usage", 0);
    /* amdgpu 6.1: drm-memory-vram 262144 KiB = 268435456; gtt 4096 KiB =
     * 4194304 + cpu 0; total 272629760; no resident or shared lines */
    EXPECT(&s, "pid_200_card0", "Dedicated Usage", 268435456);
    EXPECT(&s, "pid_200_card0", "Shared Usage", 4194304);
    EXPECT(&s, "pid_200_card0", "Total Committed", 272629760);
    UNSET(&s, "pid_200_card0", "Resident Usage");
    UNSET(&s, "pid_200_card0", "Shared Objects Usage");
    /* xe: vram0 23 MiB = 24117248; gtt 512 KiB = 524288 + stolen 0;
     * resident 524288 + 24117248 + 0 = 24641536; shared 0 + 16 MiB */
    EXPECT(&s, "pid_300_card2", "Dedicated Usage", 24117248);
    EXPECT(&s, "pid_300_card2", "Shared Usage", 524288);
    EXPECT(&s, "pid_300_card2", "Total Committed", 24641536);
    EXPECT(&s, "pid_300_card2", "Resident Usage", 24641536);
    EXPECT(&s, "pid_300_card2", "Shared Objects Usage", 16777216);
    /* v3d writes no memory lines: an instance without values */
    UNSET(&s, "pid_600_v3d", "Total Committed");
    pl_snap_free(&s);
}

/* ---- absent and live ----------------------------------------------------------------- */
static void test_absent(void)
{
    pl_snapshot s;
    const char *root = tmp("none");
    CHECK(mkdir(root, 0700) == 0);
    /* no /proc at all: the listing fails with its errno and path */
    CHECK(pc_collect_tree(root, "GPU Engine", 0, 0, NULL, &s) == ENOENT);
    pl_snap_free(&s);
    /* a /proc without DRM clients: zero instances */
    CHECK(put(root, "proc/7/stat", "7 (sh) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9 0 0 0\n") == 1);
    CHECK(pc_collect_tree(root, "GPU Process Memory", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

/* This machine: no DRM device here; wherever a client shows, its instance
 * is pid_<pid>_<device>_<engine> and its capacity at least 1. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    CHECK(pc_collect_tree("/", "GPU Engine", 0, 0, NULL, &s) == 0);
    for (uint32_t i = 0; i < s.ninst; i++) {
        CHECK(strncmp(pl_snap_name(&s, i), "pid_", 4) == 0);
        if (get(&s, pl_snap_name(&s, i), "Utilization Percentage Base", &v))
            CHECK(v >= 1);
    }
    pl_snap_free(&s);
    CHECK(pc_collect_tree("/", "GPU Process Memory", 0, 0, NULL, &s) == 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_gpu_fdinfo");
    RUN(test_parse);
    RUN(test_parse_limits);
    RUN(test_engine);
    RUN(test_engine_rates);
    RUN(test_process_memory);
    RUN(test_absent);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
