/* The last check of the issue 17 hardware sets' C tests (Energy Meter,
 * Cooling Device, EDAC Memory Controller): an empty tree is zero instances,
 * and this machine collects (zero instances in a VM).  Needs ctest_snap.h
 * and ct_tmp.h first. */
#ifndef CT_ABSENT_H
#define CT_ABSENT_H

static void check_absent_and_live(const char *set, const char *what)
{
    pl_snapshot s;
    const char *root = tmp("none");
    CHECK(mkdir(root, 0700) == 0);
    CHECK(pc_collect_tree(root, set, 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);                           /* no source: no instances */
    pl_snap_free(&s);
    CHECK(pc_collect_tree("/", set, 0, 0, NULL, &s) == 0);
    printf("  %u %s here\n", (unsigned)s.ninst, what);
    pl_snap_free(&s);
}

#endif
