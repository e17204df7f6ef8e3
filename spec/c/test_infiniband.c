/* InfiniBand (issue 17, node_exporter's infiniband) on
 * spec/fixtures/infiniband, laid out as drivers/infiniband/core/sysfs.c
 * makes /sys/class/infiniband/<dev>/ports/<n> (Documentation/ABI/stable/
 * sysfs-class-infiniband: state "4: ACTIVE", phys_state "5: LinkUp", rate
 * "56 Gb/sec (4X FDR)", counters/ decimals with port_rcv_data and
 * port_xmit_data in 4-byte words, "N/A (no PMA)" without a PMA, and mlx5's
 * hw_counters/): an mlx4 HCA with an active FDR port and a disabled one,
 * and an mlx5 RoCE port with hw_counters and a counter that would overflow
 * as bytes.  Then rates over 10 s with a device appearing, a wanted mask,
 * the text facts and this machine. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"
#include "ct_tmp.h"
#include "ct_absent.h"
#include "ct_facts.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define FX "spec/fixtures/infiniband"
#define IB "InfiniBand"

static void test_fixture(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, IB, 0, 0, NULL, &s) == 0);
    /* ids: the device's place in name order << 8 | the port */
    INSTS(&s, ((const uint32_t[]){ 1, 2, 1u << 8 | 1 }), "mlx4_0/1", "mlx4_0/2", "mlx5_0/1");
    EXPECT(&s, "mlx4_0/1", "Port State", 4);                        /* ACTIVE */
    EXPECT(&s, "mlx4_0/1", "Physical State", 5);                    /* LinkUp */
    EXPECT(&s, "mlx4_0/1", "Rate", 56ull * 1000000000 / 8);         /* 7 GB/s */
    EXPECT(&s, "mlx4_0/1", "Bytes Received/sec", 1000 * 4);         /* words */
    EXPECT(&s, "mlx4_0/1", "Bytes Sent/sec", 2500 * 4);
    EXPECT(&s, "mlx4_0/1", "Packets Received/sec", 50);
    EXPECT(&s, "mlx4_0/1", "Packets Sent/sec", 60);
    EXPECT(&s, "mlx4_0/1", "Unicast Packets Received/sec", 45);
    EXPECT(&s, "mlx4_0/1", "Unicast Packets Sent/sec", 58);
    EXPECT(&s, "mlx4_0/1", "Multicast Packets Received/sec", 5);
    EXPECT(&s, "mlx4_0/1", "Multicast Packets Sent/sec", 2);
    EXPECT(&s, "mlx4_0/1", "Receive Errors", 1);
    EXPECT(&s, "mlx4_0/1", "Transmit Discards", 2);
    EXPECT(&s, "mlx4_0/1", "Symbol Errors", 3);
    EXPECT(&s, "mlx4_0/1", "Link Downed", 4);
    EXPECT(&s, "mlx4_0/1", "Link Error Recovery", 5);
    EXPECT(&s, "mlx4_0/1", "Local Link Integrity Errors", 6);
    EXPECT(&s, "mlx4_0/1", "Excessive Buffer Overruns", 7);
    EXPECT(&s, "mlx4_0/1", "Remote Physical Errors", 8);
    EXPECT(&s, "mlx4_0/1", "Switch Relay Errors", 9);
    EXPECT(&s, "mlx4_0/1", "Transmit Constraint Errors", 10);
    EXPECT(&s, "mlx4_0/1", "Receive Constraint Errors", 11);
    EXPECT(&s, "mlx4_0/1", "VL15 Dropped", 12);
    EXPECT(&s, "mlx4_0/1", "Transmit Wait Ticks", 13);
    UNSET(&s, "mlx4_0/1", "Out Of Buffer");                         /* no hw_counters/ */
    EXPECT(&s, "mlx4_0/2", "Port State", 1);                        /* DOWN */
    EXPECT(&s, "mlx4_0/2", "Physical State", 3);                    /* Disabled */
    EXPECT(&s, "mlx4_0/2", "Rate", 25ull * 100000000 / 8);          /* 2.5 Gb/s */
    UNSET(&s, "mlx4_0/2", "Bytes Received/sec");                    /* N/A (no PMA) */
    UNSET(&s, "mlx4_0/2", "Symbol Errors");                         /* "0x5" */
    UNSET(&s, "mlx4_0/2", "Packets Sent/sec");                      /* no file */
    EXPECT(&s, "mlx5_0/1", "Rate", 100ull * 1000000000 / 8);
    EXPECT(&s, "mlx5_0/1", "Bytes Received/sec", 4ull << 32);       /* 2^32 words */
    UNSET(&s, "mlx5_0/1", "Bytes Sent/sec");                        /* (2^64-1) x 4 */
    EXPECT(&s, "mlx5_0/1", "Packets Received/sec", 1073741824);
    EXPECT(&s, "mlx5_0/1", "Out Of Buffer", 17);
    EXPECT(&s, "mlx5_0/1", "Out Of Sequence", 0);
    EXPECT(&s, "mlx5_0/1", "Duplicate Requests", 1);
    EXPECT(&s, "mlx5_0/1", "Packet Sequence Errors", 2);
    EXPECT(&s, "mlx5_0/1", "Local Ack Timeouts", 3);
    EXPECT(&s, "mlx5_0/1", "RNR NAK Retries Exceeded", 4);
    EXPECT(&s, "mlx5_0/1", "CNPs Sent", 100);
    EXPECT(&s, "mlx5_0/1", "CNPs Handled", 90);
    EXPECT(&s, "mlx5_0/1", "ECN Marked Packets", 120);
    pl_snap_free(&s);
}

#define PT "sys/class/infiniband/hca0/ports/1/"

static void test_rates(void)
{
    const char *root = tmp("rates");
    pctx p;
    pl_snapshot s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    CHECK(mkdir(root, 0700) == 0);
    CHECK(put(root, PT "counters/port_rcv_data", "0\n") == 1);
    CHECK(put(root, PT "counters/port_xmit_packets", "0\n") == 1);
    CHECK(pc_open_set(&p, root, IB, 0, 0) == 0);
    CHECK(pc_collect(&p, NULL, &s0) == 0);
    INSTS(&s0, ((const uint32_t[]){ 1 }), "hca0/1");
    /* 10 s later: 2500000 words (10^7 bytes), 1000 packets; a device abc0
     * appeared before it in name order, so hca0 is now the second device */
    CHECK(put(root, PT "counters/port_rcv_data", "2500000\n") == 1);
    CHECK(put(root, PT "counters/port_xmit_packets", "1000\n") == 1);
    CHECK(put(root, "sys/class/infiniband/abc0/ports/1/state", "2: INIT\n") == 1);
    CHECK(pc_collect(&p, NULL, &s1) == 0);
    INSTS(&s1, ((const uint32_t[]){ 1, 1u << 8 | 1 }), "abc0/1", "hca0/1");
    CHECK(fabs(val2(&s0, &s1, "hca0/1", "Bytes Received/sec") - 1e6) < 1e-6);
    CHECK(fabs(val2(&s0, &s1, "hca0/1", "Packets Sent/sec") - 100.0) < 1e-9);
    EXPECT(&s1, "abc0/1", "Port State", 2);
    UNSET(&s1, "abc0/1", "Bytes Received/sec");
    pl_snap_free(&s0);
    pl_snap_free(&s1);
    pc_close(&p);
}

static void test_wanted(void)
{
    static const char *const unset[] = { "Port State", "Bytes Received/sec", NULL };
    check_only(FX, IB, "mlx4_0/1", "Symbol Errors", 3, unset);
}

static void test_info(void)
{
    static const char *const bad[] = { "mlx5_0/2", "mlx5_0", "../mlx5_0/1", "mlx5_0/1x",
                                       "/1", "../1", "mlx5_0//1", NULL };
    char out[512];
    pctx p;
    CHECK(pc_open_set(&p, FX, IB, 0, 0) == 0);
    if (p.st) {
        check_facts(&p, "mlx4_0/1", "board_id=MT_1090120019;fw_ver=2.42.5000;hca_type=MT4099;"
                                    "link_layer=InfiniBand;");
        check_facts(&p, "mlx5_0/1", "board_id=MT_0000000010;fw_ver=16.35.2000;hca_type=MT4119;"
                                    "link_layer=Ethernet;");
        for (int k = 0; bad[k]; k++)
            CHECK_EQ_U64(p.cs->ops->info(p.st, bad[k], collect_info, out), ENOENT);
        CHECK_EQ_U64(p.cs->ops->info(p.st, NULL, collect_info, out), ENOENT);
    }
    pc_close(&p);
}

static void test_absent(void)
{
    check_absent_and_live(IB, "InfiniBand ports");
}

int main(void)
{
    ct_tmp_init("test_infiniband");
    RUN(test_fixture);
    RUN(test_rates);
    RUN(test_wanted);
    RUN(test_info);
    RUN(test_absent);
    ct_tmp_remove();
    return CT_END();
}
