/* NVMe Controller over temporary trees in the layout of
 * /sys/class/nvme/nvmeN (drivers/nvme/host/core.c's controller attributes:
 * state, queue_count, sqsize, model, serial, firmware_rev, transport,
 * address, subsysnqn, cntrltype): every state text and its code, an
 * unknown state (no value), missing attributes (unset), the text facts
 * through the info op, no class (zero instances).  This VM has no NVMe,
 * so the live check only asserts a clean collect. */
#include "perflib.h"
#include "pl_provider.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int collect_info(void *ud, const char *key, const char *value)
{
    char *out = ud;
    size_t l = strlen(out);
    snprintf(out + l, 512 - l, "%s=%s;", key, value);
    return 0;
}

#define C0 "sys/class/nvme/nvme0/"
#define C2 "sys/class/nvme/nvme2/"

static void test_set(void)
{
    /* the kernel's state texts in enum nvme_ctrl_state order */
    static const char *const texts[] = {
        "new\n", "live\n", "resetting\n", "connecting\n", "deleting\n",
        "deleting (no IO)\n", "dead\n",
    };
    const char *root = tmp("tree");
    char out[512];
    pl_snapshot s;
    pctx p;
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, C0 "state", "live\n") == 1);
    CHECK(put(root, C0 "queue_count", "9\n") == 1);      /* 8 I/O queues + the admin one */
    CHECK(put(root, C0 "sqsize", "1023\n") == 1);
    CHECK(put(root, C0 "model", "Samsung SSD 980 PRO 1TB                 \n") == 1);
    CHECK(put(root, C0 "serial", "S5GXNX0R123456      \n") == 1);
    CHECK(put(root, C0 "firmware_rev", "5B2QGXA7\n") == 1);
    CHECK(put(root, C0 "transport", "pcie\n") == 1);
    CHECK(put(root, C0 "address", "0000:01:00.0\n") == 1);
    CHECK(put(root, C0 "subsysnqn", "nqn.1994-11.com.samsung:nvme:980PRO\n") == 1);
    CHECK(put(root, C0 "cntrltype", "io\n") == 1);
    /* an older kernel's controller: no queue_count, no cntrltype; a state text unknown here */
    CHECK(put(root, C2 "state", "frozen\n") == 1);
    CHECK(put(root, C2 "sqsize", "x\n") == 1);
    CHECK(put(root, C2 "model", "QEMU NVMe Ctrl\x1b\n") == 1);

    CHECK(pc_open_set(&p, root, "NVMe Controller", 0, 0) == 0);
    memset(&s, 0, sizeof s);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    {
        static const uint32_t ids[] = { 0, 2 };
        INSTS(&s, ids, "nvme0", "nvme2");
    }
    EXPECT(&s, "nvme0", "State", 1);                     /* live */
    EXPECT(&s, "nvme0", "Live", 1);
    EXPECT(&s, "nvme0", "Queue Count", 9);
    EXPECT(&s, "nvme0", "Submission Queue Size", 1023);
    UNSET(&s, "nvme2", "State");                         /* "frozen": no value */
    UNSET(&s, "nvme2", "Live");
    UNSET(&s, "nvme2", "Queue Count");                   /* no attribute */
    UNSET(&s, "nvme2", "Submission Queue Size");         /* not a number */

    /* each state text gives its code; Live only for "live" */
    for (unsigned k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        CHECK(put(root, C0 "state", texts[k]) == 1);
        CHECK(pc_collect(&p, NULL, &s) == 0);
        EXPECT(&s, "nvme0", "State", k);
        EXPECT(&s, "nvme0", "Live", k == 1);
    }

    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "nvme0", collect_info, out), 0);
    CHECK_STR(out, "model=Samsung SSD 980 PRO 1TB;serial=S5GXNX0R123456;firmware_rev=5B2QGXA7;"
                   "transport=pcie;address=0000:01:00.0;"
                   "subsysnqn=nqn.1994-11.com.samsung:nvme:980PRO;cntrltype=io;");
    out[0] = '\0';
    CHECK_EQ_U64(p.cs->ops->info(p.st, "nvme2", collect_info, out), 0);
    CHECK_STR(out, "model=QEMU NVMe Ctrl\\x1b;");          /* the control byte escaped */
    CHECK_EQ_U64(p.cs->ops->info(p.st, "nvme7", collect_info, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, "../nvme0", collect_info, out), ENOENT);
    CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, collect_info, out), ENOENT);
    pl_snap_free(&s);
    pc_close(&p);

    /* no NVMe class: zero instances */
    CHECK(pc_collect_tree(tmp("none"), "NVMe Controller", 0, 0, NULL, &s) == 0);
    CHECK_EQ_U64(s.ninst, 0);
    pl_snap_free(&s);
}

/* Live: no NVMe on this VM (zero instances, a clean collect); a machine
 * with NVMe gets a state for each controller. */
static void test_live(void)
{
    pl_snapshot s;
    uint64_t v;
    CHECK(pc_collect_tree("/", "NVMe Controller", 0, 0, NULL, &s) == 0);
    if (s.ninst == 0)
        printf("# skip: no NVMe controllers\n");
    else
        CHECK(get(&s, s.names + s.inst[0].name_off, "State", &v) == 1);
    pl_snap_free(&s);
}

int main(void)
{
    ct_tmp_init("test_nvme");
    RUN(test_set);
    RUN(test_live);
    ct_tmp_remove();
    return CT_END();
}
