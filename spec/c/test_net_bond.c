/* Bonding: the net-bond fixture (the sysfs layout of kernel Documentation/
 * networking/bonding.rst and drivers/net/bonding/bond_sysfs.c,
 * bond_sysfs_slave.c), temporary trees with broken files, the parsers,
 * the info op's text facts, and the live machine (no bonding driver here:
 * zero instances).  Run from the repository root. */
#include "perflib.h"
#include "pl_provider.h"
#include "bonding.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX "spec/fixtures/"

static int collect_tree(const char *root, pl_snapshot *s)
{
    return pc_collect_tree(root, "Bonding", 0, 0, NULL, s);
}

static void test_parsers(void)
{
    const char *p = " eth0\teth1  ../x\n";
    char name[8];
    CHECK_EQ_U64(pl_bond_mode("balance-rr 0\n"), 0);
    CHECK_EQ_U64(pl_bond_mode("balance-alb 6"), 6);
    CHECK(pl_bond_mode("active-backup 4\n") == -1);       /* name and number disagree */
    CHECK(pl_bond_mode("802.3ad 44\n") == -1);
    CHECK(pl_bond_mode("802.3ad\n") == -1);
    CHECK(pl_bond_mode("\n") == -1);
    CHECK_STR(pl_bond_mode_name(4), "802.3ad");
    CHECK(pl_bond_mode_name(7) == NULL && pl_bond_mode_name(-1) == NULL);
    CHECK_EQ_U64(pl_bond_link("up\n"), PL_BOND_UP);
    CHECK_EQ_U64(pl_bond_link("down\n"), PL_BOND_DOWN);
    CHECK_EQ_U64(pl_bond_link("going down\n"), PL_BOND_FAIL);
    CHECK_EQ_U64(pl_bond_link("going back"), PL_BOND_BACK);
    CHECK(pl_bond_link("upp\n") == -1 && pl_bond_link("") == -1);
    CHECK(pl_bond_next_name(&p, name, sizeof name) == 1 && strcmp(name, "eth0") == 0);
    CHECK(pl_bond_next_name(&p, name, sizeof name) == 1 && strcmp(name, "eth1") == 0);
    CHECK_EQ_U64(pl_bond_next_name(&p, name, sizeof name), (uint64_t)-1);   /* a path */
    CHECK_EQ_U64(pl_bond_next_name(&p, name, sizeof name), 0);
    p = "averyveryverylongname\n";
    CHECK_EQ_U64(pl_bond_next_name(&p, name, sizeof name), (uint64_t)-1);   /* 21 > 7 */
}

static void test_fixture(void)
{
    pl_snapshot s;
    static const uint32_t ids[] = {0, 1};
    CHECK_EQ_U64(collect_tree(FX "net-bond", &s), 0);
    /* bond9 is listed in bonding_masters but has no directory: left out */
    INSTS(&s, ids, "bond0", "bond1");
    /* bond0: eth0 up, eth1 down, eth2 going back (neither) */
    EXPECT(&s, "bond0", "Slaves", 3);
    EXPECT(&s, "bond0", "Slaves Up", 1);
    EXPECT(&s, "bond0", "Slaves Down", 1);
    EXPECT(&s, "bond0", "MII Status", 1);
    EXPECT(&s, "bond0", "Mode", 1);                 /* active-backup */
    EXPECT(&s, "bond0", "Active Slave Present", 1); /* eth0 */
    /* bond1: 802.3ad with eth3 down */
    EXPECT(&s, "bond1", "Slaves", 1);
    EXPECT(&s, "bond1", "Slaves Up", 0);
    EXPECT(&s, "bond1", "Slaves Down", 1);
    EXPECT(&s, "bond1", "MII Status", 0);
    EXPECT(&s, "bond1", "Mode", 4);
    UNSET(&s, "bond1", "Active Slave Present");     /* 802.3ad has none */
    pl_snap_free(&s);
}

/* What emit was given, as "key=value;" pairs. */
static int collect_info(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 512 - l, "%s=%s;", key, value);
    return 0;
}

static void test_info(void)
{
    char dir[] = "/tmp/pl-bond-XXXXXX";
    char out[512];
    pctx p;
    CHECK(pc_open_set(&p, FX "net-bond", "Bonding", 0, 0) == 0);
    if (p.st) {
        out[0] = '\0';
        CHECK_EQ_U64(p.cs->ops->info(p.st, "bond0", collect_info, out), 0);
        CHECK_STR(out, "mode=active-backup;slaves=eth0 eth1 eth2;active_slave=eth0;");
        out[0] = '\0';
        CHECK_EQ_U64(p.cs->ops->info(p.st, "bond1", collect_info, out), 0);
        CHECK_STR(out, "mode=802.3ad;slaves=eth3;");        /* active_slave empty */
        CHECK_EQ_U64(p.cs->ops->info(p.st, "bond7", collect_info, out), ENOENT);
        CHECK_EQ_U64(p.cs->ops->info(p.st, "../bond0", collect_info, out), ENOENT);
        CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, collect_info, out), ENOENT);
    }
    pc_close(&p);
    /* a control character in a name is escaped as \xNN */
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "sys/class/net/bond0/bonding/mode", "balance-xor 2\n"));
    CHECK(put(dir, "sys/class/net/bond0/bonding/slaves", "et\x01h0 eth1\n"));
    CHECK(pc_open_set(&p, dir, "Bonding", 0, 0) == 0);
    if (p.st) {
        out[0] = '\0';
        CHECK_EQ_U64(p.cs->ops->info(p.st, "bond0", collect_info, out), 0);
        CHECK_STR(out, "mode=balance-xor;slaves=et\\x01h0 eth1;");
    }
    pc_close(&p);
    rm_tree(dir);
}

static void test_broken(void)
{
    char dir[] = "/tmp/pl-bond-XXXXXX", none[] = "/tmp/pl-bond-XXXXXX";
    pl_snapshot s;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "sys/class/net/bonding_masters", "bond0 ../etc bondx\n"));
    /* an active-backup bond without an active slave; a mode name that does
     * not match its number; a mii_status of "going down"; a slaves list
     * with a name that is a path */
    CHECK(put(dir, "sys/class/net/bond0/bonding/mode", "active-backup 1\n"));
    CHECK(put(dir, "sys/class/net/bond0/bonding/active_slave", ""));
    CHECK(put(dir, "sys/class/net/bond0/bonding/mii_status", "going down\n"));
    CHECK(put(dir, "sys/class/net/bond0/bonding/slaves", "eth0 ../x\n"));
    CHECK(put(dir, "sys/class/net/bondx/bonding/mode", "balance-rr 3\n"));
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    NAMES(&s, "bond0", "bondx");
    EXPECT(&s, "bond0", "Active Slave Present", 0);
    UNSET(&s, "bond0", "MII Status");
    UNSET(&s, "bond0", "Slaves");
    UNSET(&s, "bond0", "Slaves Up");
    UNSET(&s, "bondx", "Mode");
    UNSET(&s, "bondx", "Slaves");                   /* no slaves file */
    pl_snap_free(&s);
    /* a slave without its bonding_slave file counts as a slave, neither up
     * nor down */
    CHECK(put(dir, "sys/class/net/bond0/bonding/slaves", "eth0\n"));
    CHECK_EQ_U64(collect_tree(dir, &s), 0);
    EXPECT(&s, "bond0", "Slaves", 1);
    EXPECT(&s, "bond0", "Slaves Up", 0);
    EXPECT(&s, "bond0", "Slaves Down", 0);
    pl_snap_free(&s);
    rm_tree(dir);
    /* no bonding driver: no bonding_masters, zero instances, no error */
    CHECK(mkdtemp(none) != NULL);
    CHECK_EQ_U64(collect_tree(none, &s), 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
    rm_tree(none);
}

static void test_live(void)
{
    pl_snapshot s;
    CHECK_EQ_U64(collect_tree("/", &s), 0);
    if (access("/sys/class/net/bonding_masters", R_OK) != 0)
        CHECK_EQ_U64(s.ninst, 0);               /* this VM: no bonding module */
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_parsers);
    RUN(test_fixture);
    RUN(test_info);
    RUN(test_broken);
    RUN(test_live);
    return CT_END();
}
