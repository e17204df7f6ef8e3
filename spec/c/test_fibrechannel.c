/* Fibre Channel (issue 17, node_exporter's fibrechannel) on
 * spec/fixtures/fibrechannel, laid out as drivers/scsi/scsi_transport_fc.c
 * makes /sys/class/fc_host/hostN (Documentation/ABI/testing/
 * sysfs-class-fc_host; speed "16 Gbit", port_state and port_type by name,
 * statistics/ "0x%llx" with all ones for a statistic the driver does not
 * keep): host0 (an Emulex LPe16002B online), host1 (link down, no
 * statistics/, a control character in its symbolic name) and host7 with
 * broken values.  Then rates over 10 s, a wanted mask, the text facts and
 * this machine. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"
#include "ct_absent.h"
#include "ct_facts.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define FX "spec/fixtures/fibrechannel"
#define FC "Fibre Channel"

static void test_fixture(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, FC, 0, 0, NULL, &s) == 0);
    INSTS(&s, ((const uint32_t[]){ 0, 1, 7 }), "host0", "host1", "host7");
    EXPECT(&s, "host0", "Speed", 16ull * 1000000000 / 8);       /* 2 GB/s */
    EXPECT(&s, "host0", "Port State", 2);                       /* Online */
    EXPECT(&s, "host0", "Port Type", 3);                        /* NPort */
    EXPECT(&s, "host0", "Frames Received/sec", 0x1b4);          /* 436 */
    EXPECT(&s, "host0", "Frames Sent/sec", 42);                 /* 0x2a */
    EXPECT(&s, "host0", "Words Received/sec", 65536);           /* 0x10000 */
    EXPECT(&s, "host0", "Words Sent/sec", 65534);               /* 0xfffe */
    EXPECT(&s, "host0", "Error Frames", 0);
    UNSET(&s, "host0", "Dumped Frames");                        /* 0xffffffffffffffff */
    EXPECT(&s, "host0", "Invalid CRC Count", 3);
    EXPECT(&s, "host0", "Invalid Transmission Words", 7);
    EXPECT(&s, "host0", "Link Failures", 1);
    EXPECT(&s, "host0", "Loss Of Sync", 10);                    /* 0xa */
    EXPECT(&s, "host0", "Loss Of Signal", 2);
    UNSET(&s, "host0", "NOS Count");                            /* not kept */
    EXPECT(&s, "host0", "FCP Packet Aborts", 16);               /* 0x10 */
    EXPECT(&s, "host0", "Seconds Since Reset", 60);             /* 0x3c */
    UNSET(&s, "host1", "Speed");                                /* "Unknown" */
    EXPECT(&s, "host1", "Port State", 7);                       /* Linkdown */
    EXPECT(&s, "host1", "Port Type", 0);                        /* Unknown */
    UNSET(&s, "host1", "Frames Received/sec");                  /* no statistics/ */
    UNSET(&s, "host7", "Speed");                                /* "16Gbit" */
    UNSET(&s, "host7", "Port State");                           /* "Online now" */
    EXPECT(&s, "host7", "Port Type", 1);                        /* Other */
    UNSET(&s, "host7", "Frames Received/sec");                  /* "123", no 0x */
    UNSET(&s, "host7", "Frames Sent/sec");                      /* 17 hex digits */
    EXPECT(&s, "host7", "Words Received/sec", UINT64_MAX - 1);  /* all ones less one */
    UNSET(&s, "host7", "Words Sent/sec");                       /* "0x" */
    UNSET(&s, "host7", "Error Frames");                         /* "0x1g" */
    EXPECT(&s, "host7", "Link Failures", 31);                   /* "0X1F" */
    pl_snap_free(&s);
}

#define HS "sys/class/fc_host/host2/statistics/"

static void test_rates(void)
{
    const char *root = tmp("rates");
    pctx p;
    pl_snapshot s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, "sys/class/fc_host/host2/speed", "32 Gbit\n") == 1);
    CHECK(put(root, HS "rx_frames", "0x64\n") == 1);
    CHECK(put(root, HS "rx_words", "0x0\n") == 1);
    CHECK(pc_open_set(&p, root, FC, 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    /* 10 s later: 900 more frames (0x3e8 = 1000), 10000 words (0x2710) */
    CHECK(put(root, HS "rx_frames", "0x3e8\n") == 1);
    CHECK(put(root, HS "rx_words", "0x2710\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    CHECK(fabs(val2(&s0, &s1, "host2", "Frames Received/sec") - 90.0) < 1e-9);
    CHECK(fabs(val2(&s0, &s1, "host2", "Words Received/sec") - 1000.0) < 1e-9);
    EXPECT(&s1, "host2", "Speed", 4000000000ull);               /* 32 x 10^9 / 8 */
    UNSET(&s1, "host2", "Port State");                          /* no file */
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

static void test_wanted(void)
{
    static const char *const unset[] = { "Speed", "Frames Received/sec", NULL };
    check_only(FX, FC, "host0", "Link Failures", 1, unset);
}

static void test_info(void)
{
    char out[512];
    pctx p;
    CHECK(pc_open_set(&p, FX, FC, 0, 0) == 0);
    if (p.st) {
        check_facts(&p, "host0", "port_name=0x10000090fa1b2c3d;node_name=0x20000090fa1b2c3d;"
                                 "fabric_name=0x100000051e0f1a2b;symbolic_name=Emulex "
                                 "LPe16002B-M6 FV12.8.340.8 DV14.0.0.4 HN:node1 OS:Linux;"
                                 "supported_classes=Class 3;");
        check_facts(&p, "host1", "port_name=0x10000090fa1b2c3e;node_name=0x20000090fa1b2c3e;"
                                 "fabric_name=0x0;symbolic_name=qla2xxx\\x07 host1;"
                                 "supported_classes=Class 2, Class 3;");
        check_facts(&p, "host7", "");                           /* none of the files */
        CHECK_EQ_U64(p.cs->ops->info(p.st, "host3", collect_info, out), ENOENT);
        CHECK_EQ_U64(p.cs->ops->info(p.st, "host0x", collect_info, out), ENOENT);
        CHECK_EQ_U64(p.cs->ops->info(p.st, "../host0", collect_info, out), ENOENT);
        CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, collect_info, out), ENOENT);
    }
    pc_close(&p);
}

static void test_absent(void)
{
    check_absent_and_live(FC, "FC host ports");
}

int main(void)
{
    ct_tmp_init("test_fibrechannel");
    RUN(test_fixture);
    RUN(test_rates);
    RUN(test_wanted);
    RUN(test_info);
    RUN(test_absent);
    ct_tmp_remove();
    return CT_END();
}
