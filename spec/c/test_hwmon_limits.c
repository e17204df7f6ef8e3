/* Hardware Sensors' limits, alarms, faults, pwm outputs and frequencies
 * (issue 17, item 5) on spec/fixtures/hwmon-limits, laid out as
 * Documentation/hwmon/sysfs-interface.rst names the files: a Super-I/O chip
 * (nct6798: in/fan/temp limits, every temp alarm, fan fault, pwm1-2), an
 * amdgpu (freq1-2_input in Hz, power1_average with power1_cap, its
 * temp1_crit_hyst of -273150) and an ina3221 (current and voltage
 * critical limits).  Temperatures are m°C + 273150 = mK; the sums are
 * beside each check.  Bad values: a garbage limit, one below absolute
 * zero, a negative current limit, an alarm of 2, a pwm of 300. */
#include "perflib.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <math.h>
#include <string.h>

#define FX "spec/fixtures/hwmon-limits"
#define HS "Hardware Sensors"

static void test_names(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, HS, 0, 0, NULL, &s) == 0);
    /* within a chip: temp, in, fan, power, curr, energy, humidity, pwm, freq */
    NAMES(&s, "nct6798/SYSTIN", "nct6798/temp2", "nct6798/Vcore", "nct6798/in1", "nct6798/fan1",
          "nct6798/fan2", "nct6798/pwm1", "nct6798/pwm2", "amdgpu/edge", "amdgpu/fan1",
          "amdgpu/PPT", "amdgpu/pwm1", "amdgpu/sclk", "amdgpu/mclk", "ina3221/in1",
          "ina3221/power1", "ina3221/VDD_IN");
    /* hwmon0, pwm (kind 7), 1: 0 << 16 | 7 << 12 | 1; amdgpu freq (8) 2: 1 << 16 | 8 << 12 | 2 */
    CHECK_EQ_U64(s.inst[6].id, 7u << 12 | 1);
    CHECK_EQ_U64(s.inst[13].id, 1u << 16 | 8u << 12 | 2);
    pl_snap_free(&s);
}

static void test_temp_limits(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, HS, 0, 0, NULL, &s) == 0);
    EXPECT(&s, "nct6798/SYSTIN", "Temperature (K)", 41500 + 273150);          /* 314650 */
    EXPECT(&s, "nct6798/SYSTIN", "Temperature Min (K)", -10000 + 273150);     /* 263150 */
    EXPECT(&s, "nct6798/SYSTIN", "Temperature Max (K)", 80000 + 273150);      /* 353150 */
    EXPECT(&s, "nct6798/SYSTIN", "Temperature Max Hyst (K)", 75000 + 273150); /* 348150 */
    EXPECT(&s, "nct6798/SYSTIN", "Temperature Crit (K)", 100000 + 273150);    /* 373150 */
    EXPECT(&s, "nct6798/SYSTIN", "Temperature Crit Hyst (K)", 95000 + 273150);
    EXPECT(&s, "nct6798/SYSTIN", "Temperature LCrit (K)", -40000 + 273150);   /* 233150 */
    EXPECT(&s, "nct6798/SYSTIN", "Temperature Emergency (K)", 110000 + 273150);
    EXPECT(&s, "nct6798/SYSTIN", "Min Alarm", 0);
    EXPECT(&s, "nct6798/SYSTIN", "Max Alarm", 1);              /* 41.5 °C, yet the chip says so */
    EXPECT(&s, "nct6798/SYSTIN", "Crit Alarm", 0);
    EXPECT(&s, "nct6798/SYSTIN", "LCrit Alarm", 0);
    EXPECT(&s, "nct6798/SYSTIN", "Emergency Alarm", 0);
    EXPECT(&s, "nct6798/SYSTIN", "Fault", 0);
    UNSET(&s, "nct6798/SYSTIN", "Alarm");                      /* limit alarms, no channel alarm */
    UNSET(&s, "nct6798/SYSTIN", "Voltage Min (mV)");           /* another kind's limit */
    EXPECT(&s, "nct6798/temp2", "Temperature (K)", 35000 + 273150);
    UNSET(&s, "nct6798/temp2", "Temperature Max (K)");         /* "x80" */
    UNSET(&s, "nct6798/temp2", "Temperature Crit (K)");        /* -300000: below absolute zero */
    UNSET(&s, "nct6798/temp2", "Temperature Min (K)");         /* no file */
    /* amdgpu's crit_hyst of -273150 m°C is absolute zero: 0 mK, a value */
    EXPECT(&s, "amdgpu/edge", "Temperature Crit Hyst (K)", 0);
    EXPECT(&s, "amdgpu/edge", "Temperature Crit (K)", 100000 + 273150);
    EXPECT(&s, "amdgpu/edge", "Temperature Emergency (K)", 105000 + 273150);  /* 378150 */
    pl_snap_free(&s);
}

static void test_other_limits(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree(FX, HS, 0, 0, NULL, &s) == 0);
    EXPECT(&s, "nct6798/Vcore", "Voltage (mV)", 1032);
    EXPECT(&s, "nct6798/Vcore", "Voltage Min (mV)", 800);
    EXPECT(&s, "nct6798/Vcore", "Voltage Max (mV)", 1744);
    EXPECT(&s, "nct6798/Vcore", "Alarm", 0);
    EXPECT(&s, "nct6798/in1", "Voltage Max (mV)", 3632);
    UNSET(&s, "nct6798/in1", "Alarm");                         /* "2" is no flag */
    EXPECT(&s, "nct6798/fan1", "Fan Speed (RPM)", 1180);
    EXPECT(&s, "nct6798/fan1", "Fan Min (RPM)", 300);
    EXPECT(&s, "nct6798/fan1", "Fan Target (RPM)", 1200);
    UNSET(&s, "nct6798/fan1", "Fan Max (RPM)");
    EXPECT(&s, "nct6798/fan2", "Fan Speed (RPM)", 0);
    EXPECT(&s, "nct6798/fan2", "Alarm", 1);
    EXPECT(&s, "nct6798/fan2", "Fault", 1);                    /* a stopped, unplugged fan */
    EXPECT(&s, "amdgpu/fan1", "Fan Max (RPM)", 3850);
    EXPECT(&s, "amdgpu/fan1", "Fan Target (RPM)", 0);
    EXPECT(&s, "amdgpu/PPT", "Power (mW)", 45000000);          /* power1_average, uW */
    EXPECT(&s, "amdgpu/PPT", "Power Cap (mW)", 250000000);     /* 250 W */
    UNSET(&s, "amdgpu/PPT", "Power Max (mW)");
    EXPECT(&s, "ina3221/power1", "Power Max (mW)", 25000000);
    EXPECT(&s, "ina3221/power1", "Power Crit (mW)", 30000000);
    EXPECT(&s, "ina3221/power1", "Max Alarm", 0);
    EXPECT(&s, "ina3221/in1", "Voltage LCrit (mV)", 4500);
    EXPECT(&s, "ina3221/in1", "Voltage Crit (mV)", 5500);
    EXPECT(&s, "ina3221/in1", "LCrit Alarm", 0);
    EXPECT(&s, "ina3221/VDD_IN", "Current (mA)", 1520);
    EXPECT(&s, "ina3221/VDD_IN", "Current Min (mA)", 0);
    EXPECT(&s, "ina3221/VDD_IN", "Current Max (mA)", 5000);
    EXPECT(&s, "ina3221/VDD_IN", "Current Crit (mA)", 6000);
    UNSET(&s, "ina3221/VDD_IN", "Current LCrit (mA)");         /* -100 mA: counters are unsigned */
    EXPECT(&s, "ina3221/VDD_IN", "Crit Alarm", 1);
    pl_snap_free(&s);
}

static void test_pwm_freq(void)
{
    pl_snapshot s;
    double v;
    CHECK(pc_collect_tree(FX, HS, 0, 0, NULL, &s) == 0);
    EXPECT(&s, "nct6798/pwm1", "Fan PWM (%)", 77);
    EXPECT(&s, "nct6798/pwm1", "Fan PWM Base", 255);
    CHECK(fmt2(&s, &s, "nct6798/pwm1", "Fan PWM (%)", &v) == PL_VALID);
    CHECK(fabs(v - 100.0 * 77 / 255) < 1e-9);                  /* 30.196 % */
    EXPECT(&s, "nct6798/pwm1", "Fan Control Mode", 1);         /* manual */
    UNSET(&s, "nct6798/pwm2", "Fan PWM (%)");                  /* 300 > 255 */
    UNSET(&s, "nct6798/pwm2", "Fan PWM Base");
    EXPECT(&s, "nct6798/pwm2", "Fan Control Mode", 5);         /* a chip's automatic mode */
    UNSET(&s, "nct6798/pwm1", "Fan Speed (RPM)");
    EXPECT(&s, "amdgpu/pwm1", "Fan PWM (%)", 0);
    EXPECT(&s, "amdgpu/pwm1", "Fan Control Mode", 2);
    EXPECT(&s, "amdgpu/sclk", "Frequency (MHz)", 2505000000ull);   /* Hz */
    EXPECT(&s, "amdgpu/mclk", "Frequency (MHz)", 1000000000ull);
    {
        int c = pl_counter_index_by_name(s.cs, "Frequency (MHz)");
        pl_raw r = { 2505000000ull, 0, 0, 8 };
        CHECK(c >= 0 && pl_format_raw(s.cs->counters[c].type, &r, NULL, 1, 0,
                                      s.cs->counters[c].scale, &v) == PL_VALID);
        CHECK(fabs(v - 2505.0) < 1e-9);                        /* 2505000000 Hz x 10^-6 */
    }
    UNSET(&s, "amdgpu/sclk", "Temperature (K)");
    pl_snap_free(&s);
}

/* Only the wanted files are read; the others stay unset. */
static void test_wanted(void)
{
    static const char *const max_only[] = { "Temperature Max (K)", NULL };
    static const char *const pwm_only[] = { "Fan PWM (%)", NULL };
    pctx p;
    pl_snapshot s;
    uint8_t *w;
    memset(&s, 0, sizeof s);
    CHECK(pc_open_set(&p, FX, HS, 0, 0) == 0);
    w = want_only(p.cs, max_only);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "nct6798/SYSTIN", "Temperature Max (K)", 353150);
    UNSET(&s, "nct6798/SYSTIN", "Temperature (K)");
    UNSET(&s, "nct6798/SYSTIN", "Temperature Crit (K)");
    UNSET(&s, "nct6798/Vcore", "Voltage (mV)");
    free(w);
    w = want_only(p.cs, pwm_only);
    CHECK(w && pc_collect(&p, w, &s) == 0);
    EXPECT(&s, "nct6798/pwm1", "Fan PWM (%)", 77);
    EXPECT(&s, "nct6798/pwm1", "Fan PWM Base", 255);           /* the base comes along */
    UNSET(&s, "nct6798/pwm1", "Fan Control Mode");
    UNSET(&s, "nct6798/SYSTIN", "Temperature Max (K)");
    free(w);
    pl_snap_free(&s);
    pc_close(&p);
}

/* This machine: no hwmon on this VM is zero instances, not an error. */
static void test_live(void)
{
    pl_snapshot s;
    CHECK(pc_collect_tree("/", HS, 0, 0, NULL, &s) == 0);
    printf("  %u hwmon sensors here\n", (unsigned)s.ninst);
    for (uint32_t i = 0; i < s.ninst; i++)
        CHECK(strchr(pl_snap_name(&s, i), '/') != NULL);       /* chip/label */
    pl_snap_free(&s);
}

int main(void)
{
    RUN(test_names);
    RUN(test_temp_limits);
    RUN(test_other_limits);
    RUN(test_pwm_freq);
    RUN(test_wanted);
    RUN(test_live);
    return CT_END();
}
