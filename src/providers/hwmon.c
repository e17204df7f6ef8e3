/* Hardware Sensors: one instance per hwmon sensor, named "<chip>/<label>"
 * ("coretemp/Package id 0", "nvme/Composite"), or "<chip>/<file>" ("it8728/in3")
 * without a label.  The hwmonN number is not stable across boots, so it is
 * not in the name: a chip name seen again gets "#1", "#2" ... in hwmon order
 * ("nvme#1/Composite"), and so does a label repeated within one chip.  The
 * id is N << 16 | kind << 12 | sensor number.
 *
 * One counter per kind of sensor: an instance carries the counters of its
 * kind and leaves the others unset.  Units are the hwmon ABI's, kept exact
 * with a scale where the name's unit is coarser: temperatures in millikelvin
 * (m°C + 273150, scale -3: formats to K), power in uW (scale -3: mW), energy
 * in uJ (a rate with scale -3 is mW; a total with scale -6 is J), humidity in
 * milli-percent.  A negative voltage, current or power (some chips, some
 * directions) is left unset: counters are unsigned.
 *
 * Cost: the metadata path lists directories and reads name and *_label only,
 * never *_input (a read can take milliseconds over I2C).  A collect lists
 * /sys/class/hwmon and does one pread per wanted sensor on a kept-open file:
 * one read, because a second pread would run the driver's show() again and
 * some drivers answer EAGAIN; any failed read leaves that value unset.  A
 * chip is scanned when first seen and again after one of its files fails
 * with ENODEV/ENOENT (the device went away and its number may be reused).
 * Old drivers keep their attributes in hwmonN/device/: used when hwmonN has
 * no name file.  No hwmon class (a VM) is zero instances.
 *
 * A sensor's limits, alarms and fault flag (Documentation/hwmon/
 * sysfs-interface.rst: tempN_max, inN_lcrit, fanN_target, *_alarm,
 * *_fault ...) are counters of its instance, in its kind's unit; the scan
 * notes which of them the chip has, so a limit the chip lacks is no_data
 * without a try, and a collect reads only the wanted ones.  pwmN (0-255,
 * formatted as a percentage of 255) with pwmN_enable is an instance
 * "chip/pwmN" of its own: the ABI does not say which fan a pwm drives.
 * freqN_input (Hz; amdgpu's sclk and mclk, hwmon core's hwmon_freq) is a
 * kind too. */
#include "pl_provider.h"
#include "providers.h"
#include "pl_rowset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { K_TEMP, K_IN, K_FAN, K_POWER, K_CURR, K_ENERGY, K_HUMID, K_PWM, K_FREQ, NK };

static const struct { const char *pfx; size_t len; } kinds[NK] = {
    { "temp", 4 }, { "in", 2 }, { "fan", 3 }, { "power", 5 }, { "curr", 4 }, { "energy", 6 },
    { "humidity", 8 }, { "pwm", 3 }, { "freq", 4 },
};

enum {
    C_TEMP, C_VOLT, C_FAN, C_POWER, C_CURR, C_ERATE, C_ENERGY, C_HUMID,
    /* issue 17 */
    C_FREQ, C_PWM, C_PWM_BASE, C_PWM_MODE, C_FAN_TARGET, C_FAN_MIN, C_FAN_MAX,
    C_TEMP_MIN, C_TEMP_MAX, C_TEMP_MAX_HYST, C_TEMP_CRIT, C_TEMP_CRIT_HYST, C_TEMP_LCRIT,
    C_TEMP_EMERG, C_VOLT_MIN, C_VOLT_MAX, C_VOLT_LCRIT, C_VOLT_CRIT, C_CURR_MIN, C_CURR_MAX,
    C_CURR_LCRIT, C_CURR_CRIT, C_POWER_MAX, C_POWER_CRIT, C_POWER_CAP, C_ALARM, C_MIN_ALARM,
    C_MAX_ALARM, C_LCRIT_ALARM, C_CRIT_ALARM, C_EMERG_ALARM, C_FAULT, NC
};

/* A sensor's attribute files other than its reading: <kind><N>_<suffix>,
 * the counter it fills and how its number converts. */
enum { CV_SAME, CV_TEMP, CV_FLAG };
#define ANY_KIND 0xFF
typedef struct attr {
    uint8_t kind, conv, counter;
    const char *suffix;
} attr;

static const attr attrs[] = {
    { K_TEMP, CV_TEMP, C_TEMP_MIN, "min" }, { K_TEMP, CV_TEMP, C_TEMP_MAX, "max" },
    { K_TEMP, CV_TEMP, C_TEMP_MAX_HYST, "max_hyst" }, { K_TEMP, CV_TEMP, C_TEMP_CRIT, "crit" },
    { K_TEMP, CV_TEMP, C_TEMP_CRIT_HYST, "crit_hyst" },
    { K_TEMP, CV_TEMP, C_TEMP_LCRIT, "lcrit" }, { K_TEMP, CV_TEMP, C_TEMP_EMERG, "emergency" },
    { K_IN, CV_SAME, C_VOLT_MIN, "min" }, { K_IN, CV_SAME, C_VOLT_MAX, "max" },
    { K_IN, CV_SAME, C_VOLT_LCRIT, "lcrit" }, { K_IN, CV_SAME, C_VOLT_CRIT, "crit" },
    { K_CURR, CV_SAME, C_CURR_MIN, "min" }, { K_CURR, CV_SAME, C_CURR_MAX, "max" },
    { K_CURR, CV_SAME, C_CURR_LCRIT, "lcrit" }, { K_CURR, CV_SAME, C_CURR_CRIT, "crit" },
    { K_POWER, CV_SAME, C_POWER_MAX, "max" }, { K_POWER, CV_SAME, C_POWER_CRIT, "crit" },
    { K_POWER, CV_SAME, C_POWER_CAP, "cap" },
    { K_FAN, CV_SAME, C_FAN_MIN, "min" }, { K_FAN, CV_SAME, C_FAN_MAX, "max" },
    { K_FAN, CV_SAME, C_FAN_TARGET, "target" }, { K_PWM, CV_SAME, C_PWM_MODE, "enable" },
    { ANY_KIND, CV_FLAG, C_ALARM, "alarm" }, { ANY_KIND, CV_FLAG, C_MIN_ALARM, "min_alarm" },
    { ANY_KIND, CV_FLAG, C_MAX_ALARM, "max_alarm" },
    { ANY_KIND, CV_FLAG, C_LCRIT_ALARM, "lcrit_alarm" },
    { ANY_KIND, CV_FLAG, C_CRIT_ALARM, "crit_alarm" },
    { ANY_KIND, CV_FLAG, C_EMERG_ALARM, "emergency_alarm" },
    { ANY_KIND, CV_FLAG, C_FAULT, "fault" },
};
#define NA (sizeof attrs / sizeof attrs[0])
_Static_assert(NA <= 32, "a sensor's attributes are bits of a uint32_t");

#define LRAW PERF_COUNTER_LARGE_RAWCOUNT
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED

/* A sensor's reading is its row: the field of its kind, in the counter's
 * unit (temperatures already in millikelvin); the other kinds absent.  Its
 * attributes' fields follow, one per counter (F_ATTR(c)). */
enum { S_ROW, NSRC };
#define F_ATTR(c) (NK + (c))
#define NF (NK + NC)
typedef struct hwrow {
    uint64_t v[NF];
    uint8_t st[NF];
} hwrow;

/* Limits are DISCRETE: set by firmware or an administrator, rarely changed.
 * The units are function-like, named without () in a row: an argument
 * would be expanded into its commas before R sees it. */
#define LIMIT(R, id, name, what, kind, suf, scale, units) \
    R(id, name, what " (" kind "N_" suf ", in the unit of " kind "N_input; absent where the " \
      "chip has no such limit).", \
      LRAW, PL_NO_ID, ADV, scale, units(), PL_FIELD(S_ROW, F_ATTR(id)))
#define FLAG(R, id, name, suf) \
    R(id, name, "1 while the chip signals this condition for the sensor, else 0 (<kind>N_" \
      suf "; absent where the chip has no such file).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, GAUGE), PL_FIELD(S_ROW, F_ATTR(id)))
#define MK_DISC() PL_U(KELVIN, 1e-3, DISCRETE)
#define MV_DISC() PL_U(VOLTS, 1e-3, DISCRETE)
#define MA_DISC() PL_U(AMPERES, 1e-3, DISCRETE)
#define UW_DISC() PL_U(WATTS, 1e-6, DISCRETE)
#define RPM_DISC() PL_U(RPM, 1, DISCRETE)

#define HW_ROWS(R) \
    R(C_TEMP, "Temperature (K)", "Temperature of a temp sensor in millikelvin with scale -3, " \
      "so it formats to kelvin exactly (tempN_input in millidegrees C + 273150).", \
      LRAW, PL_NO_ID, NOV, -3, PL_U(KELVIN, 1e-3, GAUGE), PL_FIELD(S_ROW, K_TEMP)) \
    R(C_VOLT, "Voltage (mV)", "Voltage of an in sensor in millivolts (inN_input).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(VOLTS, 1e-3, GAUGE), PL_FIELD(S_ROW, K_IN)) \
    R(C_FAN, "Fan Speed (RPM)", "Speed of a fan in revolutions per minute (fanN_input).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(RPM, 1, GAUGE), PL_FIELD(S_ROW, K_FAN)) \
    R(C_POWER, "Power (mW)", "Power of a power sensor in microwatts with scale -3, so it " \
      "formats to milliwatts (powerN_input, else powerN_average).", \
      LRAW, PL_NO_ID, NOV, -3, PL_U(WATTS, 1e-6, GAUGE), PL_FIELD(S_ROW, K_POWER)) \
    R(C_CURR, "Current (mA)", "Current of a curr sensor in milliamperes (currN_input).", \
      LRAW, PL_NO_ID, NOV, 0, PL_U(AMPERES, 1e-3, GAUGE), PL_FIELD(S_ROW, K_CURR)) \
    R(C_ERATE, "Energy Rate (mW)", "Average power over the interval from a cumulative energy " \
      "sensor: microjoules per second with scale -3, so it formats to milliwatts " \
      "(energyN_input).", \
      PERF_COUNTER_BULK_COUNT, PL_NO_ID, NOV, -3, PL_U(JOULES, 1e-6, COUNTER), \
      PL_FIELD(S_ROW, K_ENERGY)) \
    R(C_ENERGY, "Energy (J)", "Energy counted by an energy sensor since it started, in " \
      "microjoules with scale -6, so it formats to joules (energyN_input).", \
      LRAW, PL_NO_ID, ADV, -6, PL_U(JOULES, 1e-6, COUNTER), PL_FIELD(S_ROW, K_ENERGY)) \
    R(C_HUMID, "Relative Humidity (%)", "Relative humidity in milli-percent with scale -3, " \
      "so it formats to percent (humidityN_input).", \
      LRAW, PL_NO_ID, ADV, -3, PL_U(PERCENT, 1e-3, GAUGE), PL_FIELD(S_ROW, K_HUMID)) \
    R(C_FREQ, "Frequency (MHz)", "Frequency of a freq sensor (a GPU's shader or memory clock) " \
      "in hertz with scale -6, so it formats to megahertz (freqN_input).", \
      LRAW, PL_NO_ID, ADV, -6, PL_U(HERTZ, 1, GAUGE), PL_FIELD(S_ROW, K_FREQ)) \
    R(C_PWM, "Fan PWM (%)", "Duty cycle of a fan's pulse-width modulation output, pwmN " \
      "(0-255) over 255.", \
      PERF_LARGE_RAW_FRACTION, C_PWM_BASE, NOV, 0, PL_U(NONE, 1, GAUGE), PL_FIELD(S_ROW, K_PWM)) \
    R(C_PWM_BASE, "Fan PWM Base", "255, the full duty cycle: the base of Fan PWM (%).", \
      PERF_LARGE_RAW_BASE, PL_NO_ID, NOV, 0, PL_U(NONE, 1, DISCRETE), \
      PL_FIELD(S_ROW, F_ATTR(C_PWM_BASE))) \
    R(C_PWM_MODE, "Fan Control Mode", "How a pwm output is driven (pwmN_enable): 0 no control " \
      "(full speed), 1 manual (pwmN as set), 2 and up automatic modes of the chip.", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(NONE, 1, DISCRETE), PL_FIELD(S_ROW, F_ATTR(C_PWM_MODE))) \
    R(C_FAN_TARGET, "Fan Target (RPM)", "Speed a closed-loop fan controller aims at, in " \
      "revolutions per minute (fanN_target).", \
      LRAW, PL_NO_ID, ADV, 0, PL_U(RPM, 1, GAUGE), PL_FIELD(S_ROW, F_ATTR(C_FAN_TARGET))) \
    LIMIT(R, C_FAN_MIN, "Fan Min (RPM)", "Lowest speed before an alarm", "fan", "min", 0, \
          RPM_DISC) \
    LIMIT(R, C_FAN_MAX, "Fan Max (RPM)", "Highest speed before an alarm", "fan", "max", 0, \
          RPM_DISC) \
    LIMIT(R, C_TEMP_MIN, "Temperature Min (K)", "Low limit in millikelvin", "temp", "min", -3, \
          MK_DISC) \
    LIMIT(R, C_TEMP_MAX, "Temperature Max (K)", "High limit in millikelvin", "temp", "max", -3, \
          MK_DISC) \
    LIMIT(R, C_TEMP_MAX_HYST, "Temperature Max Hyst (K)", "Temperature in millikelvin at " \
          "which the max alarm clears, absolute, not a delta", "temp", "max_hyst", -3, MK_DISC) \
    LIMIT(R, C_TEMP_CRIT, "Temperature Crit (K)", "Critical high limit in millikelvin", "temp", \
          "crit", -3, MK_DISC) \
    LIMIT(R, C_TEMP_CRIT_HYST, "Temperature Crit Hyst (K)", "Temperature in millikelvin at " \
          "which the critical alarm clears, absolute", "temp", "crit_hyst", -3, MK_DISC) \
    LIMIT(R, C_TEMP_LCRIT, "Temperature LCrit (K)", "Critical low limit in millikelvin", "temp", \
          "lcrit", -3, MK_DISC) \
    LIMIT(R, C_TEMP_EMERG, "Temperature Emergency (K)", "Emergency limit, above critical, in " \
          "millikelvin", "temp", "emergency", -3, MK_DISC) \
    LIMIT(R, C_VOLT_MIN, "Voltage Min (mV)", "Low limit", "in", "min", 0, MV_DISC) \
    LIMIT(R, C_VOLT_MAX, "Voltage Max (mV)", "High limit", "in", "max", 0, MV_DISC) \
    LIMIT(R, C_VOLT_LCRIT, "Voltage LCrit (mV)", "Critical low limit", "in", "lcrit", 0, MV_DISC) \
    LIMIT(R, C_VOLT_CRIT, "Voltage Crit (mV)", "Critical high limit", "in", "crit", 0, MV_DISC) \
    LIMIT(R, C_CURR_MIN, "Current Min (mA)", "Low limit", "curr", "min", 0, MA_DISC) \
    LIMIT(R, C_CURR_MAX, "Current Max (mA)", "High limit", "curr", "max", 0, MA_DISC) \
    LIMIT(R, C_CURR_LCRIT, "Current LCrit (mA)", "Critical low limit", "curr", "lcrit", 0, \
          MA_DISC) \
    LIMIT(R, C_CURR_CRIT, "Current Crit (mA)", "Critical high limit", "curr", "crit", 0, MA_DISC) \
    LIMIT(R, C_POWER_MAX, "Power Max (mW)", "High limit in microwatts with scale -3", "power", \
          "max", -3, UW_DISC) \
    LIMIT(R, C_POWER_CRIT, "Power Crit (mW)", "Critical limit in microwatts with scale -3", \
          "power", "crit", -3, UW_DISC) \
    LIMIT(R, C_POWER_CAP, "Power Cap (mW)", "Cap the hardware enforces, in microwatts with " \
          "scale -3", "power", "cap", -3, UW_DISC) \
    FLAG(R, C_ALARM, "Alarm", "alarm") \
    FLAG(R, C_MIN_ALARM, "Min Alarm", "min_alarm") \
    FLAG(R, C_MAX_ALARM, "Max Alarm", "max_alarm") \
    FLAG(R, C_LCRIT_ALARM, "LCrit Alarm", "lcrit_alarm") \
    FLAG(R, C_CRIT_ALARM, "Crit Alarm", "crit_alarm") \
    FLAG(R, C_EMERG_ALARM, "Emergency Alarm", "emergency_alarm") \
    FLAG(R, C_FAULT, "Fault", "fault")

static const pl_counter_def counters[] = { HW_ROWS(PL_ROW_COUNTER) };
static const pl_feed feeds[] = { HW_ROWS(PL_ROW_FEED) };
static const pl_feed_src srcs[NSRC] = { PL_FEED_SRC_ST(NULL, hwrow) };
_Static_assert(sizeof counters / sizeof counters[0] == NC, "one row per counter");

static const uint8_t kind_counter[NK] = { C_TEMP, C_VOLT, C_FAN, C_POWER, C_CURR, C_ERATE, C_HUMID,
                                          C_PWM, C_FREQ };

#define CLASS "sys/class/hwmon"
#define MAX_SENSORS 1024
#define LABEL_MAX 64

typedef struct sensor {
    uint8_t kind, avg;       /* avg: power from powerN_average */
    unsigned idx;
    int fd;
    uint32_t attrs;          /* bit a: the chip has attrs[a]'s file for this sensor */
    int afd[NA];             /* their kept-open files, -1 until first read */
    char label[LABEL_MAX + 16];
    char *name;              /* full instance name */
} sensor;

typedef struct chip {
    unsigned num;            /* first: a pl_numbered record */
    int scanned, stale;
    unsigned dup;            /* k of "#k" in the instance names */
    const char *sub;         /* "" or "device/" */
    char name[LABEL_MAX + 1];
    sensor *s;
    uint32_t ns;
} chip;

typedef struct hw_state {
    pl_env *env;
    pl_numbered chips;       /* of chip */
} hw_state;

static int hw_open(pl_env *env, void **state)
{
    hw_state *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->env = pl_env_ref(env);
    pl_numbered_init(&s->chips, sizeof(chip));
    *state = s;
    return 0;
}

static void chip_clear(chip *c)
{
    for (uint32_t i = 0; i < c->ns; i++) {
        if (c->s[i].fd >= 0)
            close(c->s[i].fd);
        for (size_t a = 0; a < NA; a++)
            if (c->s[i].afd[a] >= 0)
                close(c->s[i].afd[a]);
        free(c->s[i].name);
    }
    free(c->s);
    c->s = NULL;
    c->ns = 0;
    c->scanned = 0;
}

static void chip_drop(void *rec)
{
    chip_clear(rec);
}

static void hw_close(void *state)
{
    hw_state *s = state;
    if (!s)
        return;
    pl_numbered_free(&s->chips, chip_drop);
    pl_env_unref(s->env);
    free(s);
}

/* A small file read in one go relative to dirfd: its first line, with
 * control characters and '\' (which would end the instance part of a
 * counter path) made '_'.  1 if non-empty. */
static int read_name_at(int dirfd, const char *file, char *buf, size_t size)
{
    ssize_t r;
    size_t n;
    int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    do
        r = pread(fd, buf, size - 1, 0);
    while (r < 0 && errno == EINTR);
    close(fd);
    if (r <= 0)
        return 0;
    buf[r] = '\0';
    n = strcspn(buf, "\n");
    while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
        n--;
    buf[n] = '\0';
    pl_name_sanitize(buf);
    return n > 0;
}

/* "<kind><N><rest>" -> kind, N and rest; 0 for another name. */
static int split_file(const char *n, uint8_t *kind, unsigned *idx, const char **rest)
{
    for (int k = 0; k < NK; k++) {
        const char *p = n + kinds[k].len;
        uint64_t v;
        if (strncmp(n, kinds[k].pfx, kinds[k].len) != 0 || *p < '0' || *p > '9' ||
            pl_parse_u64(&p, &v) || v >= 4096)
            continue;
        *kind = (uint8_t)k;
        *idx = (unsigned)v;
        *rest = p;
        return 1;
    }
    return 0;
}

/* "<kind><N>_input", "power<N>_average" or "pwm<N>" -> kind, N. */
static int sensor_file(const char *n, uint8_t *kind, unsigned *idx, uint8_t *avg)
{
    const char *p;
    if (!split_file(n, kind, idx, &p))
        return 0;
    *avg = *kind == K_POWER && strcmp(p, "_average") == 0;
    return *kind == K_PWM ? *p == '\0' : strcmp(p, "_input") == 0 || *avg;
}

/* "<kind><N>_<suffix>" of attrs[] -> its index, kind, N; -1 for another name. */
static int attr_file(const char *n, uint8_t *kind, unsigned *idx)
{
    const char *p;
    if (!split_file(n, kind, idx, &p) || *p++ != '_')
        return -1;
    for (size_t a = 0; a < NA; a++)
        if ((attrs[a].kind == *kind || attrs[a].kind == ANY_KIND) && strcmp(p, attrs[a].suffix) == 0)
            return (int)a;
    return -1;
}

static int cmp_sensor(const void *a, const void *b)
{
    const sensor *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Adds a sensor unless the same one is there (power: _input wins over _average). */
static int add_sensor(chip *c, uint32_t *cap, uint8_t kind, unsigned idx, uint8_t avg)
{
    for (uint32_t i = 0; i < c->ns; i++) {
        if (c->s[i].kind == kind && c->s[i].idx == idx) {
            if (!avg)
                c->s[i].avg = 0;
            return 0;
        }
    }
    if (c->ns >= MAX_SENSORS)
        return 0;
    if (c->ns == *cap) {
        uint32_t n = *cap ? *cap * 2 : 16;
        sensor *ns = realloc(c->s, n * sizeof *ns);
        if (!ns)
            return ENOMEM;
        c->s = ns;
        *cap = n;
    }
    memset(&c->s[c->ns], 0, sizeof c->s[0]);
    c->s[c->ns].kind = kind;
    c->s[c->ns].idx = idx;
    c->s[c->ns].avg = avg;
    c->s[c->ns].fd = -1;
    for (size_t a = 0; a < NA; a++)
        c->s[c->ns].afd[a] = -1;
    c->ns++;
    return 0;
}

/* Second pass over the directory: which attribute files each sensor has. */
static void scan_attrs(chip *c, DIR *d)
{
    struct dirent *de;
    rewinddir(d);
    while ((de = readdir(d)) != NULL) {
        uint8_t kind;
        unsigned idx;
        int a = attr_file(de->d_name, &kind, &idx);
        for (uint32_t i = 0; a >= 0 && i < c->ns; i++)
            if (c->s[i].kind == kind && c->s[i].idx == idx)
                c->s[i].attrs |= 1u << a;
    }
}

/* Name, sensors and labels of chip c; no value file is read. */
static int scan_chip(hw_state *s, chip *c)
{
    char rel[96], file[LABEL_MAX + 1];
    uint32_t cap = 0;
    int fd, dfd;
    DIR *d;
    struct dirent *de;
    chip_clear(c);
    c->stale = 0;
    c->scanned = 1;
    c->sub = "";
    snprintf(c->name, sizeof c->name, "hwmon%u", c->num);
    snprintf(rel, sizeof rel, CLASS "/hwmon%u", c->num);
    if ((fd = pl_open_rel(s->env, rel)) < 0)
        return 0;            /* gone since the listing: no sensors */
    if (read_name_at(fd, "name", file, sizeof file)) {
        snprintf(c->name, sizeof c->name, "%s", file);
    } else if (read_name_at(fd, "device/name", file, sizeof file)) {
        snprintf(c->name, sizeof c->name, "%s", file);
        c->sub = "device/";
    }
    if (*c->sub) {
        dfd = openat(fd, "device", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        if (dfd < 0)
            return 0;
        fd = dfd;
    }
    if (!(d = fdopendir(fd))) {
        close(fd);
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        uint8_t kind, avg;
        unsigned idx;
        int e;
        if (sensor_file(de->d_name, &kind, &idx, &avg) && (e = add_sensor(c, &cap, kind, idx, avg))) {
            closedir(d);
            return e;
        }
    }
    if (c->ns > 1)
        qsort(c->s, c->ns, sizeof *c->s, cmp_sensor);
    scan_attrs(c, d);
    for (uint32_t i = 0; i < c->ns; i++) {
        sensor *x = &c->s[i];
        unsigned dup = 0;
        snprintf(file, sizeof file, "%s%u_label", kinds[x->kind].pfx, x->idx);
        if (!read_name_at(dirfd(d), file, x->label, LABEL_MAX + 1))
            snprintf(x->label, sizeof x->label, "%s%u", kinds[x->kind].pfx, x->idx);
        for (uint32_t j = 0; j < i; j++)
            dup += strcmp(c->s[j].label, x->label) == 0;
        if (dup) {
            size_t n = strlen(x->label);
            snprintf(x->label + n, sizeof x->label - n, "#%u", dup);
        }
    }
    closedir(d);
    c->dup = ~0u;            /* names are built by name_chips */
    return 0;
}

/* Builds the instance names of chips whose "#k" changed. */
static int name_chips(hw_state *s)
{
    chip *cs = s->chips.v;
    for (uint32_t i = 0; i < s->chips.n; i++) {
        chip *c = &cs[i];
        unsigned dup = 0;
        char pre[LABEL_MAX + 16];
        for (uint32_t j = 0; j < i; j++)
            dup += strcmp(cs[j].name, c->name) == 0;
        if (dup == c->dup)
            continue;
        if (dup)
            snprintf(pre, sizeof pre, "%s#%u", c->name, dup);
        else
            snprintf(pre, sizeof pre, "%s", c->name);
        for (uint32_t k = 0; k < c->ns; k++) {
            size_t n = strlen(pre) + strlen(c->s[k].label) + 2;
            char *nm = malloc(n);
            if (!nm)
                return ENOMEM;
            snprintf(nm, n, "%s/%s", pre, c->s[k].label);
            free(c->s[k].name);
            c->s[k].name = nm;
        }
        c->dup = dup;
    }
    return 0;
}

/* Lists the chips, scans new and stale ones, drops vanished ones. */
static int list_chips(hw_state *s)
{
    chip *cs;
    int e;
    /* no hwmon drivers: the class does not appear later */
    if ((e = pl_numbered_list(&s->chips, s->env, CLASS, "hwmon", 65536, NULL, chip_drop)) != 0)
        return e;
    cs = s->chips.v;
    for (uint32_t i = 0; i < s->chips.n; i++)
        if ((!cs[i].scanned || cs[i].stale) && (e = scan_chip(s, &cs[i])) != 0)
            return e;
    return name_chips(s);
}

static int add_all(hw_state *s, pl_snapshot *snap)
{
    for (uint32_t i = 0; i < s->chips.n; i++) {
        const chip *c = (const chip *)s->chips.v + i;
        for (uint32_t k = 0; k < c->ns; k++) {
            uint32_t id = (uint32_t)c->num << 16 | (uint32_t)c->s[k].kind << 12 | c->s[k].idx;
            if (pl_snap_add(snap, c->s[k].name, id) < 0)
                return ENOMEM;
        }
    }
    return 0;
}

static int hw_instances(void *state, pl_snapshot *snap)
{
    hw_state *s = state;
    int e;
    pl_snap_clear(snap);
    if ((e = list_chips(s)) != 0)
        return e;
    return add_all(s, snap);
}

/* One pread of a sensor's file (suffix "" for pwmN itself) on *fd: 1 with
 * *v (signed), or 0.  EAGAIN, EIO, ENODATA: no value this time; a vanished
 * device: rescan the chip. */
static int read_file(hw_state *s, chip *c, const sensor *x, int *fd, const char *suffix,
                     int64_t *v)
{
    char buf[32], rel[128] = "";
    int was_open = *fd >= 0, e;
    if (!was_open)
        snprintf(rel, sizeof rel, CLASS "/hwmon%u/%s%s%u%s%s", c->num, c->sub,
                 kinds[x->kind].pfx, x->idx, *suffix ? "_" : "", suffix);
    e = pl_read_once(fd, s->env, rel, buf, sizeof buf);
    if (e == ENOENT || (was_open && (e == ENODEV || e == ESTALE)))
        c->stale = 1;
    return e == 0 && pl_parse_i64_whole(buf, v) == 0;
}

/* A reading in its counter's unit: 1 with *out, 0 when it cannot be one
 * (counters are unsigned: below absolute zero, a negative reading, a pwm
 * above 255, a flag other than 0 or 1). */
static int convert(uint8_t conv, int64_t v, uint64_t *out)
{
    if (conv == CV_TEMP ? v < -273150 : v < 0)
        return 0;
    if (conv == CV_FLAG && v > 1)
        return 0;
    *out = (uint64_t)(conv == CV_TEMP ? v + 273150 : v);
    return 1;
}

/* Reads sensor x's wanted files into r: 1 if any value was set. */
static int fill_row(hw_state *s, chip *c, sensor *x, int want_main, const uint8_t *wanted,
                    hwrow *r)
{
    static const char *const main_file[2] = { "input", "average" };
    int64_t v;
    int any = 0;
    memset(r->st, PL_NS_ABSENT, sizeof r->st);
    if (want_main && read_file(s, c, x, &x->fd, x->kind == K_PWM ? "" : main_file[x->avg], &v) &&
        convert(x->kind == K_TEMP ? CV_TEMP : CV_SAME, v, &r->v[x->kind]) &&
        (x->kind != K_PWM || r->v[x->kind] <= 255)) {
        r->st[x->kind] = PL_NS_OK;
        any = 1;
        if (x->kind == K_PWM) {
            r->v[F_ATTR(C_PWM_BASE)] = 255;     /* the ABI's full scale */
            r->st[F_ATTR(C_PWM_BASE)] = PL_NS_OK;
        }
    }
    for (uint32_t m = x->attrs; m; m &= m - 1) {
        unsigned a = (unsigned)__builtin_ctz(m), f = F_ATTR(attrs[a].counter);
        if ((wanted && !wanted[attrs[a].counter]) ||
            !read_file(s, c, x, &x->afd[a], attrs[a].suffix, &v) ||
            !convert(attrs[a].conv, v, &r->v[f]))
            continue;
        r->st[f] = PL_NS_OK;
        any = 1;
    }
    return any;
}

static int hw_collect(void *state, const uint8_t *wanted, pl_snapshot *snap)
{
    hw_state *s = state;
    uint8_t want[NK];
    uint32_t inst = 0;
    hwrow r;
    pl_feed_in in;
    int e;
    pl_snap_clear(snap);
    if ((e = list_chips(s)) != 0 || (e = add_all(s, snap)) != 0)
        return e;
    pl_feed_begin(&in, srcs, NSRC, NULL, snap, NULL);
    for (int k = 0; k < NK; k++)
        want[k] = !wanted || wanted[kind_counter[k]] || (k == K_ENERGY && wanted[C_ENERGY]) ||
                  (k == K_PWM && wanted[C_PWM_BASE]);
    for (uint32_t i = 0; i < s->chips.n; i++) {
        chip *c = (chip *)s->chips.v + i;
        for (uint32_t k = 0; k < c->ns; k++, inst++) {
            if (!fill_row(s, c, &c->s[k], want[c->s[k].kind], wanted, &r))
                continue;
            pl_feed_put(&in, S_ROW, &r);
            pl_feed_walk(&in, inst, feeds, NC, wanted);
        }
    }
    return 0;
}

static const pl_provider_ops hw_ops = { hw_open, hw_close, hw_instances, hw_collect, NULL, NULL };

const pl_counterset_def pl_hwmon_def = {
    {0x7989ac46, 0xcaeb, 0x581d, {0xa0, 0xd0, 0x58, 0x85, 0xc8, 0xba, 0x65, 0x09}},
    "Hardware Sensors",
    "Temperatures, voltages, fan speeds, currents, power, energy, humidity and frequencies "
    "of the hwmon sensors in /sys/class/hwmon with their limits, alarms and fault flags, and "
    "fan pwm outputs; no instances on machines without hwmon drivers.",
    PERF_COUNTERSET_MULTI_INSTANCES, 0, NC, counters, &hw_ops, 21000, NULL,
};
