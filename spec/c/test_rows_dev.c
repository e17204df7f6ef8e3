/* The generic row walk of the per-device sets (PhysicalDisk, LogicalDisk,
 * Network Interface, Thermal Zone Information, Battery): a field a source
 * row lacks leaves exactly the counters fed by it unset, and instances that
 * come and go between collects never get another instance's values.  Trees are
 * written under /tmp; expected values are the lines' own numbers worked out
 * by hand (ms x 10^4 = 100 ns, sectors x 512 = bytes). */
#include "disk_helpers.h"
#include "diskstats.h"

#include <string.h>

/* diskstats counter ids fed by the discard fields (15-18) and the flush
 * fields (19-20): a line of 11 values lacks both, one of 15 the flushes */
static int discard_id(uint32_t id) { return id >= 35 && id <= 38; }
static int flush_id(uint32_t id) { return id >= 39 && id <= 41; }

/* Every counter of inst is set except the ones fed by fields past nf
 * (11, 15 or 17 values); LogicalDisk's space rows are not checked. */
static void expect_fed(int line, const pl_snapshot *s, const char *inst, int nf)
{
    int i = inst_of(s, inst);
    if (i < 0) {
        ct_failed_checks++;
        fprintf(stderr, "  line %d: no instance \"%s\"\n", line, inst);
        return;
    }
    for (uint32_t c = 0; c < s->cs->ncounters; c++) {
        uint32_t id = s->cs->counters[c].id;
        int want = !(discard_id(id) && nf < 15) && !(flush_id(id) && nf < 17);
        int have = s->have[(size_t)i * s->cs->ncounters + c] == 1;
        if (id >= 64 || id == 42)
            continue;        /* LogicalDisk's statvfs rows, PhysicalDisk's Rotational (sysfs) */
        if (have != want) {
            ct_failed_checks++;
            fprintf(stderr, "  line %d: %s \"%s\": %s, want %s\n", line, inst,
                    s->cs->counters[c].name, have ? "set" : "unset", want ? "set" : "unset");
        }
    }
}

#define FED(s, inst, nf) expect_fed(__LINE__, s, inst, nf)

static int disk_tree(char *dir, const char *diskstats)
{
    if (!mkdtemp(dir))
        return 0;
    return put(dir, "sys/block/sda/device/vendor", "x\n") &&
           put(dir, "sys/block/sdb/device/vendor", "x\n") &&
           put(dir, "sys/block/sdc/device/vendor", "x\n") && put(dir, "proc/diskstats", diskstats);
}

/* One read with a 4.14 line (11 values), a 4.18 line (15) and a 5.5 line
 * (17): each device loses exactly the rows of the fields it lacks, and
 * _Total, made of all three, has only what every member has. */
static void test_disk_short_lines(void)
{
    char dir[] = "/tmp/pl-rowsdev-XXXXXX";
    pl_snapshot s;
    CHECK(disk_tree(dir,
                    "   8 0 sda 100 1 800 30 50 2 400 20 0 40 60\n"
                    "   8 16 sdb 200 3 1600 70 90 4 720 80 1 100 150 7 0 56 9\n"
                    "   8 32 sdc 300 5 2400 110 130 6 1040 120 2 200 240 11 0 88 13 17 19\n"));
    CHECK(collect_tree(dir, "PhysicalDisk", NULL, &s) == 0);
    NAMES(&s, "sda", "sdb", "sdc", "_Total");
    FED(&s, "sda", 11);
    FED(&s, "sdb", 15);
    FED(&s, "sdc", 17);
    FED(&s, "_Total", 11);
    /* the values that are there come from the device's own line */
    EXPECT(&s, "sda", "Disk Reads/sec", 100);
    EXPECT(&s, "sda", "% Disk Time", (30 + 20) * MS);
    EXPECT(&s, "sdb", "Discard Bytes/sec", 56 * 512);
    EXPECT(&s, "sdb", "Avg. Disk sec/Discard", 9 * MS);
    EXPECT(&s, "sdb", "Avg. Disk sec/Discard Base", 7);
    EXPECT(&s, "sdc", "Flushes/sec", 17);
    EXPECT(&s, "sdc", "Avg. Disk sec/Flush", 19 * MS);
    EXPECT(&s, "sdc", "Current Disk Queue Length", 2);
    EXPECT(&s, "_Total", "Disk Reads/sec", 100 + 200 + 300);
    EXPECT(&s, "_Total", "Disk Bytes/sec", (800 + 400 + 1600 + 720 + 2400 + 1040) * 512ull);
    EXPECT(&s, "_Total", "Current Disk Queue Length", 0 + 1 + 2);
    pl_snap_free(&s);
    rm_tree(dir);
}

/* Devices leave, arrive and change places in the file between collects;
 * each value stays with the device whose line holds it. */
static void test_disk_come_go(void)
{
    char dir[] = "/tmp/pl-rowsdev-XXXXXX";
    pctx p;
    pl_snapshot s = {0};
    CHECK(disk_tree(dir, "   8 0 sda 100 0 800 30 50 0 400 20 0 40 60\n"
                         "   8 16 sdb 200 0 1600 70 90 0 720 80 0 100 150 7 0 56 9 17 19\n"));
    CHECK(pc_open(&p, dir, "PhysicalDisk") == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "sda", "sdb", "_Total");
    EXPECT(&s, "sda", "Disk Reads/sec", 100);
    EXPECT(&s, "sdb", "Disk Reads/sec", 200);
    FED(&s, "sda", 11);
    FED(&s, "sdb", 17);
    /* sda goes; sdc arrives before sdb, with a short line */
    CHECK(put(dir, "proc/diskstats", "   8 32 sdc 7 0 56 3 1 0 8 2 0 4 5\n"
                                     "   8 16 sdb 250 0 2000 75 95 0 760 85 0 110 160 8 0 64 10 18 20\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    /* instances keep the set's order: known devices first, new ones after */
    static const uint32_t ids[] = { ID(8, 16), ID(8, 32), TOTAL_ID };
    INSTS(&s, ids, "sdb", "sdc", "_Total");
    EXPECT(&s, "sdc", "Disk Reads/sec", 7);
    EXPECT(&s, "sdc", "Disk Read Bytes/sec", 56 * 512);
    FED(&s, "sdc", 11);
    EXPECT(&s, "sdb", "Disk Reads/sec", 250);
    EXPECT(&s, "sdb", "Flushes/sec", 18);
    FED(&s, "sdb", 17);
    /* _Total keeps sda's 100 reads, adds sdb's and sdc's whole history */
    EXPECT(&s, "_Total", "Disk Reads/sec", 100 + 250 + 7);
    FED(&s, "_Total", 11);
    /* sda is back (a new device: its line as it is); sdc's line is cut:
     * listed, no value at all */
    CHECK(put(dir, "proc/diskstats", "   8 0 sda 5 0 40 1 2 0 16 1 0 2 3 0 0 0 0 0 0\n"
                                     "   8 32 sdc 9 0 72 4 2 x\n"
                                     "   8 16 sdb 260 0 2080 76 96 0 768 86 0 111 161 8 0 64 10 18 20\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "sdb", "sdc", "sda", "_Total");
    EXPECT(&s, "sda", "Disk Reads/sec", 5);
    EXPECT(&s, "sda", "Flushes/sec", 0);
    EXPECT(&s, "sdb", "Disk Reads/sec", 260);
    for (uint32_t c = 0; c < s.cs->ncounters; c++)
        CHECK(s.have[(size_t)inst_of(&s, "sdc") * s.cs->ncounters + c] == 0);
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* LogicalDisk walks the same rows over a mount's device: an 11-value line
 * leaves its discard and flush rows unset, a 15-value line its flush rows,
 * and each mount gets its own device's values. */
static void test_logicaldisk_short_line(void)
{
    char dir[] = "/tmp/pl-rowsdev-XXXXXX";
    pl_snapshot s;
    CHECK(disk_tree(dir, "   8 0 sda 100 1 800 30 50 2 400 20 0 40 60\n"
                         "   8 16 sdb 200 3 1600 70 90 4 720 80 1 100 150 7 0 56 9\n"));
    CHECK(put(dir, "proc/self/mountinfo", "27 1 8:0 / / rw - ext4 /dev/sda rw\n"
                                          "30 27 8:16 / /data rw - ext4 /dev/sdb rw\n"));
    CHECK(put(dir, "statvfs/27", "4096 1000 500 400 100 50\n"));
    CHECK(put(dir, "statvfs/30", "4096 2000 600 500 200 60\n"));
    CHECK(collect_tree(dir, "LogicalDisk", NULL, &s) == 0);
    NAMES(&s, "/", "/data", "_Total");
    FED(&s, "/", 11);
    FED(&s, "/data", 15);
    FED(&s, "_Total", 11);
    EXPECT(&s, "/", "Disk Reads/sec", 100);
    EXPECT(&s, "/data", "Disk Reads/sec", 200);
    EXPECT(&s, "/data", "Discards/sec", 7);
    EXPECT(&s, "/", "Free Bytes", 400 * 4096);
    EXPECT(&s, "/data", "Free Bytes", 500 * 4096);
    EXPECT(&s, "_Total", "Disk Reads/sec", 100 + 200);
    pl_snap_free(&s);
    rm_tree(dir);
}

static void net_line(char *b, size_t n, const char *name, uint64_t rxb, uint64_t txb)
{
    snprintf(b, n, "%s: %llu 10 1 2 3 4 5 6 %llu 20 7 8 9 10 11 12\n", name,
             (unsigned long long)rxb, (unsigned long long)txb);
}

#define NET_HEAD "Inter-| Receive | Transmit\n face |bytes packets ...\n"

/* Interfaces leave and arrive; a line cut after the receive fields keeps
 * its receive rows and loses every row that needs a transmit field. */
static void test_netif_come_go(void)
{
    char dir[] = "/tmp/pl-rowsdev-XXXXXX", a[128], b[128], text[512];
    pctx p;
    pl_snapshot s = {0};
    CHECK(mkdtemp(dir) != NULL);
    net_line(a, sizeof a, "eth0", 1000, 2000);
    net_line(b, sizeof b, "eth1", 3000, 4000);
    snprintf(text, sizeof text, NET_HEAD "%s%s", a, b);
    CHECK(put(dir, "proc/net/dev", text));
    CHECK(pc_open(&p, dir, "Network Interface") == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "eth0", "eth1", "_Total");
    EXPECT(&s, "eth0", "Bytes Total/sec", 1000 + 2000);
    EXPECT(&s, "eth1", "Bytes Received/sec", 3000);
    EXPECT(&s, "_Total", "Bytes Sent/sec", 2000 + 4000);
    /* eth0 goes; eth2 arrives first with only its 8 receive values */
    net_line(b, sizeof b, "eth1", 3500, 4500);
    snprintf(text, sizeof text, NET_HEAD "eth2: 70 7 0 0 0 0 0 1\n%s", b);
    CHECK(put(dir, "proc/net/dev", text));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "eth2", "eth1", "_Total");
    EXPECT(&s, "eth2", "Bytes Received/sec", 70);
    EXPECT(&s, "eth2", "Packets Received/sec", 7);
    EXPECT(&s, "eth2", "Packets Received Non-Unicast/sec", 1);
    UNSET(&s, "eth2", "Bytes Sent/sec");
    UNSET(&s, "eth2", "Bytes Total/sec");       /* receive + transmit: one is missing */
    UNSET(&s, "eth2", "Packets/sec");
    UNSET(&s, "eth2", "Collisions");
    EXPECT(&s, "eth1", "Bytes Received/sec", 3500);
    EXPECT(&s, "eth1", "Bytes Total/sec", 3500 + 4500);
    /* _Total's error counts are sums over the present interfaces: unset
     * when one lacks the field; its byte rates add increments:
     * eth0 1000 + eth1 3000 + 500 + eth2 70 received */
    EXPECT(&s, "_Total", "Bytes Received/sec", 1000 + 3000 + 500 + 70);
    UNSET(&s, "_Total", "Collisions");
    EXPECT(&s, "_Total", "Packets Received Errors", 1 + 0);
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* Zones leave and arrive: each value is its own zone's temp. */
static void test_thermal_come_go(void)
{
    char dir[] = "/tmp/pl-rowsdev-XXXXXX";
    pctx p;
    pl_snapshot s = {0};
    char path[256];
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "sys/class/thermal/thermal_zone0/type", "acpitz\n"));
    CHECK(put(dir, "sys/class/thermal/thermal_zone0/temp", "27800\n"));
    CHECK(put(dir, "sys/class/thermal/thermal_zone1/type", "x86_pkg_temp\n"));
    CHECK(put(dir, "sys/class/thermal/thermal_zone1/temp", "-5049\n"));
    CHECK(pc_open(&p, dir, "Thermal Zone Information") == 0);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    NAMES(&s, "acpitz", "x86_pkg_temp");
    EXPECT(&s, "acpitz", "Precise Temperature", 27800 + 273150);
    EXPECT(&s, "acpitz", "Temperature", 301);                  /* 300.95 K rounds up */
    EXPECT(&s, "acpitz", "High Precision Temperature", 3010);  /* 3009.5 rounds up */
    EXPECT(&s, "x86_pkg_temp", "Precise Temperature", 268101); /* 273150 - 5049 */
    EXPECT(&s, "x86_pkg_temp", "Temperature", 268);            /* 268.101 */
    EXPECT(&s, "x86_pkg_temp", "High Precision Temperature", 2681);
    /* zone0 goes, zone2 arrives with no number: listed, nothing set */
    snprintf(path, sizeof path, "%s/sys/class/thermal/thermal_zone0", dir);
    rm_tree(path);
    CHECK(put(dir, "sys/class/thermal/thermal_zone2/type", "acpitz\n"));
    CHECK(put(dir, "sys/class/thermal/thermal_zone2/temp", "hot\n"));
    CHECK(pc_collect(&p, NULL, &s) == 0);
    static const uint32_t ids[] = { 1, 2 };
    INSTS(&s, ids, "x86_pkg_temp", "acpitz");
    EXPECT(&s, "x86_pkg_temp", "Precise Temperature", 268101);
    UNSET(&s, "acpitz", "Precise Temperature");
    UNSET(&s, "acpitz", "Temperature");
    UNSET(&s, "acpitz", "High Precision Temperature");
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* Battery walks a battery's value files as its row: a wanted row's file is
 * read, an unwanted row is set only when its file was read anyway (for %
 * Charge: Remaining Capacity comes along, a value really seen), and a file
 * holding a negative number or no number leaves its row unset. */
static void test_battery_rows(void)
{
    char dir[] = "/tmp/pl-rowsdev-XXXXXX";
    pctx p;
    pl_snapshot s = {0};
    uint8_t *w;
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "sys/class/power_supply/BAT0/type", "Battery\n"));
    CHECK(put(dir, "sys/class/power_supply/BAT0/status", "Discharging\n"));
    CHECK(put(dir, "sys/class/power_supply/BAT0/energy_now", "30000000\n"));
    CHECK(put(dir, "sys/class/power_supply/BAT0/energy_full", "40000000\n"));
    CHECK(put(dir, "sys/class/power_supply/BAT0/voltage_now", "-5\n"));
    CHECK(put(dir, "sys/class/power_supply/BAT0/cycle_count", "many\n"));
    CHECK(put(dir, "sys/class/power_supply/BAT0/charge_full_design", "5000000\n"));
    CHECK(pc_open(&p, dir, "Battery") == 0);
    static const char *const pct[] = { "% Charge", NULL };
    w = want_only(p.cs, pct);
    CHECK(pc_collect(&p, w, &s) == 0);
    NAMES(&s, "BAT0");
    EXPECT(&s, "BAT0", "% Charge", 30000000);
    EXPECT(&s, "BAT0", "% Charge Base", 40000000);
    EXPECT(&s, "BAT0", "Remaining Capacity (mWh)", 30000000);   /* energy_now, read for % Charge */
    EXPECT(&s, "BAT0", "Full Charge Capacity (mWh)", 40000000);
    UNSET(&s, "BAT0", "Status");                 /* not wanted, not read */
    UNSET(&s, "BAT0", "Design Charge (mAh)");
    free(w);
    CHECK(pc_collect(&p, NULL, &s) == 0);
    EXPECT(&s, "BAT0", "Status", 2);             /* Discharging */
    EXPECT(&s, "BAT0", "Design Charge (mAh)", 5000000);
    UNSET(&s, "BAT0", "Voltage (mV)");           /* -5: counters are unsigned */
    UNSET(&s, "BAT0", "Cycle Count");            /* no number */
    UNSET(&s, "BAT0", "Remaining Charge (mAh)"); /* no charge_now file */
    EXPECT(&s, "BAT0", "Remaining Capacity (mWh)", 30000000);
    pl_snap_free(&s);
    pc_close(&p);
    rm_tree(dir);
}

/* The diskstats parser's values: 19 digits read in place, 20 digits
 * checked against 2^64 - 1; one past it makes the line malformed. */
static void test_diskstats_wide_values(void)
{
    static const char text[] =
        "8 0 sda 9999999999999999999 1 2 3 4 5 6 7 8 9 10\n"
        "8 16 sdb 18446744073709551615 01 2 3 4 5 6 7 8 9 10\n"
        "8 32 sdc 18446744073709551616 1 2 3 4 5 6 7 8 9 10\n"
        "8 48 sdd 1 2 3 4 5 6 7 8 9 10 11x\n";
    pl_dstab t = {0};
    const pl_dsrow *r;
    CHECK(pl_parse_diskstats(text, sizeof text - 1, &t) == 0);
    CHECK_EQ_U64(t.n, 4);
    r = (const pl_dsrow *)t.row;
    if (t.n == 4) {
        CHECK_EQ_U64(r[0].nf, 11);
        CHECK_EQ_U64(r[0].raw[0], 9999999999999999999ull);
        CHECK_EQ_U64(r[0].raw[10], 10);
        CHECK_EQ_U64(r[1].nf, 11);
        CHECK_EQ_U64(r[1].raw[0], UINT64_MAX);
        CHECK_EQ_U64(r[1].raw[1], 1);
        CHECK_EQ_U64(r[2].nf, 0);      /* 2^64: no value, the line is malformed */
        CHECK_EQ_U64(r[3].nf, 0);      /* "11x" */
    }
    pl_rows_release(&t);
}

int main(void)
{
    RUN(test_diskstats_wide_values);
    RUN(test_disk_short_lines);
    RUN(test_disk_come_go);
    RUN(test_logicaldisk_short_line);
    RUN(test_netif_come_go);
    RUN(test_thermal_come_go);
    RUN(test_battery_rows);
    return CT_END();
}
