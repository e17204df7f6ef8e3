/* NVIDIA devices through NVML loaded at run time: the absent library (no
 * instances, no error), a library without one of the entry points used or
 * whose init fails (the same), and a stand-in library of fixed values
 * (spec/c/gpu_nvml_fake.c, built here with cc and named by
 * PERFLIB_NVML_LIBRARY) that GPU Device and GPU Adapter Memory read, with
 * the info op's product name.  Expected values are worked out beside each
 * check. */
#include "perflib.h"
#include "gpu.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Builds the stand-in with flags into ct_dir/name: 1 when it is there. */
static int build_fake(const char *name, const char *flags)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -std=c11 %s -o %s spec/c/gpu_nvml_fake.c", flags,
             tmp(name));
    return system(cmd) == 0;
}

static const char *root_empty(void)
{
    static char root[128];
    if (!root[0]) {
        snprintf(root, sizeof root, "%s", tmp("root"));
        CHECK(mkdir(root, 0700) == 0);
    }
    return root;
}

static uint32_t count(const char *set)
{
    pl_snapshot s;
    uint32_t n;
    CHECK(pc_collect_tree(root_empty(), set, 0, 0, NULL, &s) == 0);
    n = s.ninst;
    pl_snap_free(&s);
    return n;
}

static void test_absent(void)
{
    /* a library that is not there: no instances, no error */
    setenv("PERFLIB_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK_EQ_U64(count("GPU Device"), 0);
    CHECK_EQ_U64(count("GPU Adapter Memory"), 0);
    /* a library without nvmlDeviceGetName, or whose init fails */
    CHECK(build_fake("noname.so", "-DFAKE_NO_NAME"));
    setenv("PERFLIB_NVML_LIBRARY", tmp("noname.so"), 1);
    CHECK_EQ_U64(count("GPU Device"), 0);
    CHECK(build_fake("noinit.so", "-DFAKE_INIT_FAILS"));
    setenv("PERFLIB_NVML_LIBRARY", tmp("noinit.so"), 1);
    CHECK_EQ_U64(count("GPU Device"), 0);
    /* without the variable, below a root other than "/": never this
     * machine's NVML */
    unsetenv("PERFLIB_NVML_LIBRARY");
    CHECK_EQ_U64(count("GPU Device"), 0);
}

static void test_values(void)
{
    pl_snapshot s;
    static const uint32_t ids[] = { 0x10000, 0x10001 };
    CHECK(build_fake("fake.so", ""));
    setenv("PERFLIB_NVML_LIBRARY", tmp("fake.so"), 1);
    CHECK(pc_collect_tree(root_empty(), "GPU Device", 0, 0, NULL, &s) == 0);
    INSTS(&s, ids, "nvidia0", "nvidia1");
    EXPECT(&s, "nvidia0", "% GPU Busy", 55);
    EXPECT(&s, "nvidia0", "% Memory Busy", 20);
    EXPECT(&s, "nvidia0", "Power (mW)", 215000000);     /* 215000 mW x 1000 = uW */
    EXPECT(&s, "nvidia0", "Temperature", 67000);        /* 67 °C x 1000 = m°C */
    UNSET(&s, "nvidia0", "Actual Frequency (MHz)");
    EXPECT(&s, "nvidia1", "% GPU Busy", 3);
    UNSET(&s, "nvidia1", "Power (mW)");                  /* NVML_ERROR_NOT_SUPPORTED */
    EXPECT(&s, "nvidia1", "Temperature", 41000);
    pl_snap_free(&s);
    CHECK(pc_collect_tree(root_empty(), "GPU Adapter Memory", 0, 0, NULL, &s) == 0);
    EXPECT(&s, "nvidia0", "Dedicated Usage", 4296015872ull);
    EXPECT(&s, "nvidia0", "Dedicated Limit", 25769803776ull);
    EXPECT(&s, "nvidia0", "Total Committed", 4296015872ull);
    /* 4296015872 / 25769803776 x 100 = 16.6707...% */
    CHECK_NEAR(val2(&s, &s, "nvidia0", "% Dedicated Usage"), 100.0 * 4296015872.0 / 25769803776.0,
               1e-9);
    EXPECT(&s, "nvidia1", "Dedicated Usage", 268435456);
    UNSET(&s, "nvidia1", "Shared Usage");               /* NVML gives no GTT */
    pl_snap_free(&s);
    unsetenv("PERFLIB_NVML_LIBRARY");
}

typedef struct facts {
    char text[512];
} facts;

static int emit(void *ud, const char *key, const char *value)
{
    facts *f = ud;
    size_t l = strlen(f->text);
    snprintf(f->text + l, sizeof f->text - l, "%s=%s;", key, value);
    return 0;
}

/* The info op's facts, and nvmlShutdown on close (the stand-in counts). */
static void test_info_and_close(void)
{
    pctx p;
    facts f;
    void *lib;
    int (*inits)(void) = NULL;
    void *sym;
    setenv("PERFLIB_NVML_LIBRARY", tmp("fake.so"), 1);
    lib = dlopen(tmp("fake.so"), RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    if (lib && (sym = dlsym(lib, "fake_inits")))
        memcpy(&inits, &sym, sizeof inits);
    CHECK(inits != NULL);
    CHECK(pc_open_set(&p, root_empty(), "GPU Device", 0, 0) == 0);
    if (inits)
        CHECK_EQ_U64(inits(), 1);
    memset(&f, 0, sizeof f);
    CHECK(p.cs->ops->info(p.st, "nvidia0", emit, &f) == 0);
    CHECK_STR(f.text, "driver=nvidia;product_name=NVIDIA GeForce RTX 4090;");
    memset(&f, 0, sizeof f);
    CHECK(p.cs->ops->info(p.st, "nvidia1", emit, &f) == 0);
    CHECK_STR(f.text, "driver=nvidia;product_name=NVIDIA\\x01Test;");
    CHECK(p.cs->ops->info(p.st, "nvidia2", emit, &f) == ENOENT);
    pc_close(&p);
    if (inits)
        CHECK_EQ_U64(inits(), 0);
    if (lib)
        dlclose(lib);
    unsetenv("PERFLIB_NVML_LIBRARY");
}

/* This machine: libnvidia-ml.so.1 is not installed here (zero instances);
 * where it is, its devices are nvidiaN. */
static void test_live(void)
{
    pl_snapshot s;
    unsetenv("PERFLIB_NVML_LIBRARY");
    CHECK(pc_collect_tree("/", "GPU Device", 0, 0, NULL, &s) == 0);
    for (uint32_t i = 0; i < s.ninst; i++)
        CHECK(strncmp(pl_snap_name(&s, i), "card", 4) == 0 ||
              strncmp(pl_snap_name(&s, i), "nvidia", 6) == 0);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_gpu_nvml");
    RUN(test_absent);
    RUN(test_values);
    RUN(test_info_and_close);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
