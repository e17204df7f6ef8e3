/* MD RAID: the /proc/mdstat source's pure parser on bytes and the set on
 * spec/fixtures/md-raid (run from the repository root), whose arrays follow
 * the layouts of Documentation/admin-guide/md.rst and drivers/md/md.c
 * (md_seq_show, status_resync): a resync, a degraded raid5 recovering onto
 * a new disk with a failed member, an inactive array of spares, a degraded
 * raid1 with a spare, an auto-read-only array with a pending resync, a
 * raid0 (no [n/m]) and a check at 100 %.  Values are the file's numbers;
 * sizes are 1 KiB blocks x 1024, speeds KiB/s x 1024.  Live: no md here
 * (ENOENT), skipped cleanly. */
#include "perflib.h"
#include "pl_ksrc.h"
#include "mdstat.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define FX "spec/fixtures/md-raid"
#define KIB 1024ull

static const pl_mdrow *row(const pl_mdtab *t, const char *name)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(((const pl_mdrow *)t->row)[i].name, name) == 0)
            return (const pl_mdrow *)t->row + i;
    return NULL;
}

static void test_parse_bad(void)
{
    pl_mdtab t = {0};
    const pl_mdrow *r;
    /* detail before any array, a name too long, [in sync] above [raid],
     * garbage numbers, a progress line without (done/total) */
    static const char text[] =
        "      123 blocks [2/2] [UU]\n"
        "md_a_name_far_too_long_for_a_row_0 : active raid1 sda[0]\n"
        "      5 blocks [2/2] [UU]\n"
        "md7 : active raid1 sda1[0] sdb1[1]\n"
        "      x1 blocks [2/3] [UU]\n"
        "      [>....]  recovery =  0.0% finish=1.0min speed=zK/sec\n"
        "md8 : weird raid1 sdc[0]\n"
        "md9 : active raid1 sdd[0]\n"
        "      99999999999999999999 blocks [2/1] [U_]\n";
    CHECK(pl_parse_mdstat(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 2);                          /* md7, md9 */
    r = row(&t, "md7");
    CHECK(r != NULL);
    if (r) {
        CHECK(r->st[PL_MD_SIZE] == PL_NS_BAD);
        CHECK(r->st[PL_MD_RAID_DISKS] == PL_NS_BAD && r->st[PL_MD_DEGRADED] == PL_NS_BAD);
        CHECK(r->st[PL_MD_ACTION] == PL_NS_OK && r->v[PL_MD_ACTION] == PL_MD_RECOVERY);
        CHECK(r->st[PL_MD_DONE] == PL_NS_ABSENT);
        CHECK(r->st[PL_MD_SPEED] == PL_NS_BAD);
        CHECK_EQ_U64(r->v[PL_MD_MEMBERS], 2);
    }
    r = row(&t, "md9");
    CHECK(r != NULL);
    if (r) {
        CHECK(r->st[PL_MD_SIZE] == PL_NS_BAD);     /* past 2^64 */
        CHECK_EQ_U64(r->v[PL_MD_DEGRADED], 1);     /* 2 - 1 */
    }
    /* an empty file, a file of no arrays */
    CHECK(pl_parse_mdstat("", 0, &t) == 0 && t.n == 0);
    CHECK(pl_parse_mdstat("Personalities : \nunused devices: <none>\n", 41, &t) == 0 && t.n == 0);
    pl_rows_release(&t);
}

static void test_set(void)
{
    static const uint32_t ids[] = { 2, 0, 1, 3, 4, 5, 6 };
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, "MD RAID", 0, 0, NULL, &s) == 0);
    CHECK(s.cs && s.cs->index == 39000);
    INSTS(&s, ids, "md2", "md0", "md1", "md3", "md4", "md5", "md6");
    /* md2: a resync of a whole raid1 */
    EXPECT(&s, "md2", "State", 1);
    EXPECT(&s, "md2", "Degraded Disks", 0);        /* [2/2] */
    EXPECT(&s, "md2", "Raid Disks", 2);
    EXPECT(&s, "md2", "In Sync Disks", 2);
    EXPECT(&s, "md2", "Sync Action", 1);
    EXPECT(&s, "md2", "% Sync Completed", 123055438);
    EXPECT(&s, "md2", "% Sync Completed Base", 976630464);
    EXPECT(&s, "md2", "Size Bytes", 976630464 * KIB);
    EXPECT(&s, "md2", "Sync Speed", 190000 * KIB);
    /* md0: raid5 [4/3], sda2 failed, recovering onto sdd1 */
    EXPECT(&s, "md0", "Degraded Disks", 1);        /* 4 - 3 */
    EXPECT(&s, "md0", "In Sync Disks", 3);
    EXPECT(&s, "md0", "Failed Disks", 1);
    EXPECT(&s, "md0", "Spare Disks", 0);
    EXPECT(&s, "md0", "Member Disks", 4);
    EXPECT(&s, "md0", "Sync Action", 2);
    EXPECT(&s, "md0", "% Sync Completed", 55456768);
    EXPECT(&s, "md0", "% Sync Completed Base", 651086848);
    EXPECT(&s, "md0", "Sync Speed", 162452 * KIB);
    /* md1: inactive, two spares, no [n/m] */
    EXPECT(&s, "md1", "State", 0);
    EXPECT(&s, "md1", "Spare Disks", 2);
    EXPECT(&s, "md1", "Member Disks", 2);
    EXPECT(&s, "md1", "Sync Action", 0);
    UNSET(&s, "md1", "Degraded Disks");
    UNSET(&s, "md1", "Raid Disks");
    UNSET(&s, "md1", "% Sync Completed");
    EXPECT(&s, "md1", "Size Bytes", 1953260976 * KIB);
    /* md3: degraded raid1 with an idle spare */
    EXPECT(&s, "md3", "Degraded Disks", 1);
    EXPECT(&s, "md3", "Spare Disks", 1);
    EXPECT(&s, "md3", "Sync Action", 0);
    UNSET(&s, "md3", "Sync Speed");
    /* md4: auto-read-only, resync pending */
    EXPECT(&s, "md4", "State", 3);
    EXPECT(&s, "md4", "Sync Action", 6);
    UNSET(&s, "md4", "% Sync Completed");
    /* md5: raid0 has no redundancy to lose: no [n/m] */
    EXPECT(&s, "md5", "State", 1);
    UNSET(&s, "md5", "Degraded Disks");
    EXPECT(&s, "md5", "Size Bytes", 2097152 * KIB);
    /* md6: a check at "=100.0%", the '=' against the number */
    EXPECT(&s, "md6", "Sync Action", 4);
    EXPECT(&s, "md6", "% Sync Completed", 2097152);
    EXPECT(&s, "md6", "% Sync Completed Base", 2097152);
    EXPECT(&s, "md6", "Sync Speed", 1024 * KIB);
    pl_snap_free(&s);
}

/* The file missing (no md driver): ENOENT naming it; an array that is not
 * "mdN" gets an id past 2^30. */
static void test_missing_and_ids(void)
{
    const char *root = tmp("odd");
    pl_snapshot s;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "proc/mdstat", "Personalities : [raid1]\n"
                                   "md_d0 : active raid1 sda[0] sdb[1]\n"
                                   "      100 blocks [2/2] [UU]\n\n"
                                   "md126 : active raid1 sdc[0]\n"
                                   "      100 blocks [2/1] [U_]\n") == 1);
    CHECK(pc_collect_tree(root, "MD RAID", 0, 0, NULL, &s) == 0);
    static const uint32_t ids[] = { 0x40000000u, 126 };
    INSTS(&s, ids, "md_d0", "md126");
    EXPECT(&s, "md126", "Degraded Disks", 1);
    pl_snap_free(&s);
    CHECK(mkdir(tmp("none"), 0700) == 0);
    CHECK(pc_collect_tree(tmp("none"), "MD RAID", 0, 0, NULL, &s) == ENOENT);
    CHECK_STR(s.err_path, "proc/mdstat");
    pl_snap_free(&s);
}

/* Live: no md driver here (ENOENT); where there is one, every array has a state. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    int e = pc_collect_tree("/", "MD RAID", 0, 0, NULL, &s);
    CHECK(e == 0 || e == ENOENT);
    if (e == ENOENT)
        printf("  skip: no /proc/mdstat\n");
    for (uint32_t i = 0; e == 0 && i < s.ninst; i++)
        CHECK(get(&s, pl_snap_name(&s, i), "State", &v) == 1 && v <= 3);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_mdraid");
    RUN(test_parse_bad);
    RUN(test_set);
    RUN(test_missing_and_ids);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
