/* The C floor of a perflib collect for the sensor family: the files that
 * thermal.c, hwmon.c, battery.c, numa.c and psi.c read for a full
 * `\Set(*)\*` query, kept open and read with pread at offset 0, parsed with
 * the least work.  No perflib code.
 *
 *   floor_sensors [-t SECONDS] [-r ROUNDS] [set ...]
 *
 * Sets: thermal (Thermal Zone Information), hwmon (Hardware Sensors),
 * battery (Battery), numa (NUMA Node Memory), psi (Pressure Stall
 * Information).  Output as bench/floor.c:
 *
 *   floor <set> <ns per collect> <iterations> <min ns> <max ns>
 *
 * What a collect does, as the providers do it: the class directories are
 * listed again (rewinddir) each time, sysfs value files get one pread each
 * (no second pread: that would run the driver's show() again), /proc and
 * node files are read until EOF like pl_file_read.  A machine without a
 * source (no hwmon, no battery) times the listing alone. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLOOR_NAME "floor_sensors"
#define FLOOR_USAGE "[thermal|hwmon|battery|numa|psi ...]"
#include "floor_common.h"    /* die, rfile (rf_open, rf_read, rf_close), next_line, num, timing */

/* ---- files --------------------------------------------------------------------------- */

/* one pread of a small sysfs value; the value parsed as a signed decimal */
static int64_t once(int fd)
{
    char buf[48];
    ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
    if (r <= 0)
        return 0;
    buf[r] = '\0';
    return strtoll(buf, NULL, 10);
}

/* ---- a listed class: entries with kept-open value files ------------------------------- */

#define MAXF 16

typedef struct entry {
    char name[64];
    int fd[MAXF];
    int nfd;
} entry;

typedef struct cls {
    DIR *dir;
    entry *e;
    int n;
} cls;

static int open_at(const char *dir, const char *name, const char *file)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s/%s", dir, name, file);
    return open(p, O_RDONLY | O_CLOEXEC);
}

static void add_fd(entry *e, int fd)
{
    if (fd >= 0 && e->nfd < MAXF)
        e->fd[e->nfd++] = fd;
}

static entry *new_entry(cls *c, const char *name)
{
    entry *e;
    c->e = realloc(c->e, (size_t)(c->n + 1) * sizeof *c->e);
    if (!c->e)
        die("realloc", "");
    e = &c->e[c->n++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->nfd = 0;
    return e;
}

/* rewinddir and readdir, as the providers list each time */
static void relist(cls *c)
{
    struct dirent *d;
    int n = 0;
    if (!c->dir)
        return;
    rewinddir(c->dir);
    while ((d = readdir(c->dir)) != NULL)
        n += d->d_name[0] != '.';
    sink += (uint64_t)n;
}

static void cls_close(cls *c)
{
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < c->e[i].nfd; k++)
            close(c->e[i].fd[k]);
    free(c->e);
    if (c->dir)
        closedir(c->dir);
}

/* ---- Thermal Zone Information: type and temp of each zone ---------------------------- */

#define THERMAL "/sys/class/thermal"

static void thermal_open(cls *c)
{
    struct dirent *d;
    memset(c, 0, sizeof *c);
    if (!(c->dir = opendir(THERMAL)))
        return;
    while ((d = readdir(c->dir)) != NULL) {
        entry *e;
        if (strncmp(d->d_name, "thermal_zone", 12) != 0)
            continue;
        e = new_entry(c, d->d_name);
        add_fd(e, open_at(THERMAL, d->d_name, "type"));
        add_fd(e, open_at(THERMAL, d->d_name, "temp"));
    }
}

static void thermal_collect(cls *c)
{
    relist(c);
    for (int i = 0; i < c->n; i++) {
        char buf[72];
        if (c->e[i].nfd > 0 && pread(c->e[i].fd[0], buf, sizeof buf - 1, 0) > 0)
            sink += (uint8_t)buf[0];
        if (c->e[i].nfd > 1)
            sink += (uint64_t)once(c->e[i].fd[1]);
    }
}

/* ---- Hardware Sensors: every *_input (power: or _average), limit, alarm and
 * fault file of every chip, pwmN with pwmN_enable, freqN_input ----------------------- */

#define HWMON "/sys/class/hwmon"

static int is_input(const char *n)
{
    static const char *const k[] = { "temp", "in", "fan", "power", "curr", "energy", "humidity",
                                      "pwm", "freq" };
    static const char *const attr[] = { "_min", "_max", "_max_hyst", "_crit", "_crit_hyst",
                                        "_lcrit", "_emergency", "_cap", "_target", "_enable",
                                        "_alarm", "_min_alarm", "_max_alarm", "_lcrit_alarm",
                                        "_crit_alarm", "_emergency_alarm", "_fault" };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        size_t l = strlen(k[i]);
        const char *p = n + l;
        if (strncmp(n, k[i], l) != 0 || *p < '0' || *p > '9')
            continue;
        while (*p >= '0' && *p <= '9')
            p++;
        if (strcmp(p, "_input") == 0 || (i == 3 && strcmp(p, "_average") == 0) || (i == 7 && !*p))
            return 1;
        for (size_t a = 0; a < sizeof attr / sizeof attr[0]; a++)
            if (strcmp(p, attr[a]) == 0)
                return 1;
        return 0;
    }
    return 0;
}

static void hwmon_open(cls *c)
{
    struct dirent *d;
    memset(c, 0, sizeof *c);
    if (!(c->dir = opendir(HWMON)))
        return;
    while ((d = readdir(c->dir)) != NULL) {
        char p[512];
        DIR *cd;
        struct dirent *f;
        entry *e;
        if (strncmp(d->d_name, "hwmon", 5) != 0)
            continue;
        e = new_entry(c, d->d_name);
        snprintf(p, sizeof p, HWMON "/%s", d->d_name);
        if (!(cd = opendir(p)))
            continue;
        while ((f = readdir(cd)) != NULL)
            if (is_input(f->d_name))
                add_fd(e, openat(dirfd(cd), f->d_name, O_RDONLY | O_CLOEXEC));
        closedir(cd);
    }
}

static void hwmon_collect(cls *c)
{
    relist(c);
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < c->e[i].nfd; k++)
            sink += (uint64_t)once(c->e[i].fd[k]);
}

/* ---- Battery: type of every supply, the value files of batteries, Mains online -------- */

#define SUPPLY "/sys/class/power_supply"

static void battery_open(cls *c)
{
    static const char *const files[] = {
        "status", "energy_now", "energy_full", "energy_full_design", "charge_now", "charge_full",
        "charge_full_design", "power_now", "voltage_now", "cycle_count",
    };
    struct dirent *d;
    memset(c, 0, sizeof *c);
    if (!(c->dir = opendir(SUPPLY)))
        return;
    while ((d = readdir(c->dir)) != NULL) {
        char t[32] = "";
        int fd;
        entry *e;
        if (d->d_name[0] == '.')
            continue;
        e = new_entry(c, d->d_name);
        fd = open_at(SUPPLY, d->d_name, "type");
        add_fd(e, fd);
        if (fd < 0 || pread(fd, t, sizeof t - 1, 0) <= 0)
            continue;
        if (strncmp(t, "Mains", 5) == 0)
            add_fd(e, open_at(SUPPLY, d->d_name, "online"));
        if (strncmp(t, "Battery", 7) != 0)
            continue;
        for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
            add_fd(e, open_at(SUPPLY, d->d_name, files[k]));
        if (e->nfd == 1)     /* no energy, charge or power: % Charge from capacity */
            add_fd(e, open_at(SUPPLY, d->d_name, "capacity"));
    }
}

static void battery_collect(cls *c)
{
    relist(c);
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < c->e[i].nfd; k++)
            sink += (uint64_t)once(c->e[i].fd[k]);
}

/* ---- NUMA Node Memory: online, then meminfo and numastat of each node ----------------- */

#define NODE "/sys/devices/system/node"

typedef struct numa_floor {
    rfile online;
    rfile meminfo[64], numastat[64];
    int nodes[64], n;
} numa_floor;

static void numa_open(numa_floor *f)
{
    const char *p;
    memset(f, 0, sizeof *f);
    if (!rf_open(&f->online, NODE "/online", 0))
        return;
    p = rf_read(&f->online);
    while (*p >= '0' && *p <= '9' && f->n < 64) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            p = end;
        }
        for (long v = a; v <= b && f->n < 64; v++) {
            char path[128];
            f->nodes[f->n] = (int)v;
            snprintf(path, sizeof path, NODE "/node%ld/meminfo", v);
            rf_open(&f->meminfo[f->n], path, 0);
            snprintf(path, sizeof path, NODE "/node%ld/numastat", v);
            rf_open(&f->numastat[f->n], path, 0);
            f->n++;
        }
        if (*p == ',')
            p++;
    }
}

/* "Node 0 MemFree:   3395144 kB": every line is a counter (issue 17) */
static void numa_collect(numa_floor *f)
{
    if (f->online.fd < 0)
        return;
    sink += (uint8_t)rf_read(&f->online)[0];
    for (int i = 0; i < f->n; i++) {
        for (const char *p = rf_read(&f->meminfo[i]); p && *p; p = next_line(p)) {
            const char *k = strchr(p + 5, ':');
            if (!k)
                break;
            sink += strtoull(k + 1, NULL, 10);
        }
        for (const char *p = rf_read(&f->numastat[i]); p && *p; p = next_line(p)) {
            const char *sp = strchr(p, ' ');
            if (sp)
                sink += strtoull(sp + 1, NULL, 10);
        }
    }
}

static void numa_close(numa_floor *f)
{
    rf_close(&f->online);
    for (int i = 0; i < f->n; i++) {
        rf_close(&f->meminfo[i]);
        rf_close(&f->numastat[i]);
    }
}

/* ---- Pressure Stall Information ---------------------------------------------------------- */

typedef struct psi_floor {
    rfile f[4];
} psi_floor;

static void psi_open(psi_floor *f)
{
    static const char *const r[4] = { "cpu", "io", "memory", "irq" };
    for (int i = 0; i < 4; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/pressure/%s", r[i]);
        rf_open(&f->f[i], path, 0);
    }
}

/* "some avg10=0.41 avg60=2.33 avg300=2.67 total=21798863" */
static void psi_collect(psi_floor *f)
{
    for (int i = 0; i < 4; i++) {
        if (f->f[i].fd < 0)
            continue;
        for (const char *p = rf_read(&f->f[i]); p && *p; p = next_line(p)) {
            const char *q = p;
            for (int k = 0; k < 4 && (q = strchr(q, '=')) != NULL; k++) {
                char *end;
                uint64_t ip = strtoull(q + 1, &end, 10), fr = 0;
                if (*end == '.')
                    fr = strtoull(end + 1, &end, 10);
                sink += ip * 100 + fr;
                q = end;
            }
        }
    }
}

static void psi_close(psi_floor *f)
{
    for (int i = 0; i < 4; i++)
        rf_close(&f->f[i]);
}

/* ---- sets and main ------------------------------------------------------------------------- */

enum { THERMAL_S, HWMON_S, BATTERY_S, NUMA_S, PSI_S, NSETS };
static const char *const set_names[NSETS] = { "thermal", "hwmon", "battery", "numa", "psi" };

static cls th, hw, bat;
static numa_floor nf;
static psi_floor pf;

static void collect_set(int set)
{
    switch (set) {
    case THERMAL_S: thermal_collect(&th); break;
    case HWMON_S: hwmon_collect(&hw); break;
    case BATTERY_S: battery_collect(&bat); break;
    case NUMA_S: numa_collect(&nf); break;
    default: psi_collect(&pf); break;
    }
}

int main(int argc, char **argv)
{
    floor_bench b = { .names = set_names, .nsets = NSETS };

    if (!floor_args(&b, argc, argv))
        for (int k = 0; k < NSETS; k++)
            b.want[k] = 1;
    thermal_open(&th);
    hwmon_open(&hw);
    battery_open(&bat);
    numa_open(&nf);
    psi_open(&pf);
    printf("# floor_sensors: %d thermal zones, %d hwmon chips, %d power supplies, %d NUMA nodes; "
           "%d round(s) of %.2f s per set\n", th.n, hw.n, bat.n, nf.n, b.rounds, b.secs);
    floor_run(&b);
    cls_close(&th);
    cls_close(&hw);
    cls_close(&bat);
    numa_close(&nf);
    psi_close(&pf);
    return 0;
}
