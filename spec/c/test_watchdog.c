/* Watchdog on temporary trees laid out as Documentation/ABI/testing/
 * sysfs-class-watchdog and drivers/watchdog/watchdog_dev.c write them
 * ("%u\n", "0x%x\n" for status and options, "active\n"/"inactive\n"):
 * a full driver, one without timeleft and pretimeout (softdog), garbage,
 * only the wanted files read, the text facts, no class, and live (no
 * watchdog on this VM: zero instances). */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void wd_file(const char *root, unsigned n, const char *file, const char *text)
{
    char rel[128];
    snprintf(rel, sizeof rel, "sys/class/watchdog/watchdog%u/%s", n, file);
    CHECK(put(root, rel, text) == 1);
}

/* What emit was given, as "key=value;" pairs. */
static int collect_info(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 512 - l, "%s=%s;", key, value);
    return 0;
}

static const char *fixture(const char *name)
{
    const char *root = tmp(name);
    CHECK(mkdir(root, 0700) == 0);
    /* watchdog0: iTCO_wdt, running, reset by the watchdog last boot */
    wd_file(root, 0, "timeout", "30\n");
    wd_file(root, 0, "pretimeout", "10\n");
    wd_file(root, 0, "timeleft", "27\n");
    wd_file(root, 0, "bootstatus", "32\n");        /* WDIOF_CARDRESET 0x20 */
    wd_file(root, 0, "nowayout", "0\n");
    wd_file(root, 0, "status", "0x8105\n");        /* 8x4096 + 1x256 + 0x16 + 5 = 33029 */
    wd_file(root, 0, "state", "active\n");
    wd_file(root, 0, "identity", "iTCO_wdt\n");
    wd_file(root, 0, "options", "0x8180\n");
    wd_file(root, 0, "fw_version", "0\n");
    wd_file(root, 0, "pretimeout_governor", "panic\n");
    /* watchdog1: softdog, stopped; no timeleft, no pretimeout */
    wd_file(root, 1, "timeout", "60\n");
    wd_file(root, 1, "bootstatus", "0\n");
    wd_file(root, 1, "nowayout", "1\n");
    wd_file(root, 1, "status", "0x0\n");
    wd_file(root, 1, "state", "inactive\n");
    wd_file(root, 1, "identity", "Software\x1b Watchdog\n");
    /* watchdog2: nothing believable */
    wd_file(root, 2, "timeout", "-5\n");
    wd_file(root, 2, "status", "8105\n");          /* no 0x: not the kernel's format */
    wd_file(root, 2, "state", "running\n");
    wd_file(root, 2, "bootstatus", "0x20\n");
    wd_file(root, 2, "nowayout", "1 2\n");
    wd_file(root, 2, "timeleft", "0x11111111111111111\n");
    /* not a watchdog entry */
    CHECK(put(root, "sys/class/watchdog/watchdogX/timeout", "1\n") == 1);
    return root;
}

static void test_values(void)
{
    const char *root = fixture("values");
    static const uint32_t ids[] = { 0, 1, 2 };
    pl_snapshot s;
    CHECK(pc_collect_tree(root, "Watchdog", 0, 0, NULL, &s) == 0);
    INSTS(&s, ids, "watchdog0", "watchdog1", "watchdog2");
    EXPECT(&s, "watchdog0", "Timeout Seconds", 30);
    EXPECT(&s, "watchdog0", "Pretimeout Seconds", 10);
    EXPECT(&s, "watchdog0", "Time Left Seconds", 27);
    EXPECT(&s, "watchdog0", "Boot Status", 32);
    EXPECT(&s, "watchdog0", "No Way Out", 0);
    EXPECT(&s, "watchdog0", "Status", 33029);
    EXPECT(&s, "watchdog0", "Active", 1);
    EXPECT(&s, "watchdog1", "Timeout Seconds", 60);
    UNSET(&s, "watchdog1", "Pretimeout Seconds");
    UNSET(&s, "watchdog1", "Time Left Seconds");
    EXPECT(&s, "watchdog1", "No Way Out", 1);
    EXPECT(&s, "watchdog1", "Status", 0);
    EXPECT(&s, "watchdog1", "Active", 0);
    UNSET(&s, "watchdog2", "Timeout Seconds");
    UNSET(&s, "watchdog2", "Status");
    UNSET(&s, "watchdog2", "Active");
    UNSET(&s, "watchdog2", "Boot Status");
    UNSET(&s, "watchdog2", "No Way Out");
    UNSET(&s, "watchdog2", "Time Left Seconds");   /* 17 hex digits, and hex at all */
    pl_snap_free(&s);
}

static void test_wanted_and_info(void)
{
    static const char *const active[] = { "Active", NULL };
    const char *root = fixture("info");
    char out[512];
    pl_snapshot s;
    pctx p;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, root, "Watchdog", 0, 0) == 0);
    w = want_only(p.cs, active);
    CHECK(pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "watchdog0", "Active", 1);
    UNSET(&s, "watchdog0", "Timeout Seconds");
    free(w);
    pl_snap_free(&s);
    /* text facts, in the documented order, escaped */
    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "watchdog0", collect_info, out), 0);
    CHECK_STR(out, "identity=iTCO_wdt;options=0x8180;fw_version=0;pretimeout_governor=panic;");
    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "watchdog1", collect_info, out), 0);
    CHECK_STR(out, "identity=Software\\x1b Watchdog;");
    CHECK_EQ_U64(p.cs->ops->info(p.st, "watchdog9", collect_info, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, "wd0", collect_info, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, collect_info, out), ENOENT);
    pc_close(&p);
}

/* No watchdog class: zero instances, no failure. */
static void test_absent(void)
{
    const char *root = tmp("none");
    pl_snapshot s;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(pc_collect_tree(root, "Watchdog", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    CHECK(pc_collect_tree("/", "Watchdog", 0, 0, NULL, &s) == 0);
    for (uint32_t i = 0; i < s.ninst; i++)
        if (get(&s, pl_snap_name(&s, i), "Active", &v) == 1)
            CHECK(v <= 1);
    if (s.ninst == 0)
        printf("  (no /sys/class/watchdog devices: live values skipped)\n");
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_watchdog");
    RUN(test_values);
    RUN(test_wanted_and_info);
    RUN(test_absent);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
