/* Processor Information's text facts and the isolated / vulnerable numbers
 * (cpufacts.h).  The files, as Documentation/ABI/testing/
 * sysfs-devices-system-cpu describes them:
 *   sys/devices/system/cpu/isolated        CPU list of isolcpus= ("\n" if none)
 *   sys/devices/system/cpu/nohz_full       CPU list of nohz_full= (CONFIG_NO_HZ_FULL
 *                                          only; kernels before 5.x print "(null)")
 *   sys/devices/system/cpu/vulnerabilities/<name>   "Not affected", "Vulnerable...",
 *                                          "Mitigation: ..." (Linux 4.15+)
 *   sys/devices/system/cpu/cpuN/cpufreq/scaling_governor, scaling_driver,
 *                                          energy_performance_preference
 *   sys/devices/system/cpu/cpuidle/current_driver, current_governor_ro */
#include "cpufacts.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A CPU list file: "" when empty or not a list ("(null)"). */
static int read_list(const pl_env *env, const char *rel, char *out, size_t size)
{
    int e = pl_read_text(env, rel, out, size);
    const char *p = out;
    uint32_t lo, hi;
    int r;
    if (!e && strlen(out) == size - 1 && !strchr(out, '\n'))
        e = EFBIG;           /* cut short: a part of a list would be a wrong list */
    if (e) {
        out[0] = '\0';
        return e;
    }
    while ((r = pl_cpulist_next(&p, UINT32_MAX, &lo, &hi)) == 1)
        ;
    if (r < 0)
        out[0] = '\0';
    else
        out[strcspn(out, "\n")] = '\0';
    return 0;
}

static uint64_t count_vulnerable(const pl_env *env, int *ok)
{
    int fd = pl_open_rel(env, "sys/devices/system/cpu/vulnerabilities");
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;
    uint64_t n = 0;
    char rel[128], text[512];
    *ok = d != NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/vulnerabilities/%.64s", de->d_name);
        if (pl_read_text(env, rel, text, sizeof text) == 0 && strncmp(text, "Vulnerable", 10) == 0)
            n++;
    }
    closedir(d);
    return n;
}

void pl_cpufacts_load(pl_cpufacts *f, const pl_env *env)
{
    if (f->loaded)
        return;
    f->loaded = 1;
    f->isol_ok = read_list(env, "sys/devices/system/cpu/isolated", f->isolated, sizeof f->isolated) == 0;
    read_list(env, "sys/devices/system/cpu/nohz_full", f->nohz_full, sizeof f->nohz_full);
    f->vulnerable = count_vulnerable(env, &f->vuln_ok);
}

static int in_list(const char *list, uint32_t cpu)
{
    uint32_t lo, hi;
    while (pl_cpulist_next(&list, UINT32_MAX, &lo, &hi) == 1)
        if (cpu >= lo && cpu <= hi)
            return 1;
    return 0;
}

int pl_cpufacts_isolated(const pl_cpufacts *f, uint32_t cpu)
{
    return in_list(f->isolated, cpu) || in_list(f->nohz_full, cpu);
}

/* emit(key, the file's escaped text) when rel can be read. */
static int fact(const pl_env *env, const char *rel, const char *key, pl_info_fn emit, void *ud)
{
    char text[512], esc[1024];
    if (pl_read_text(env, rel, text, sizeof text) != 0)
        return 0;
    pl_fact_escape(text, esc, sizeof esc);
    return emit(ud, key, esc);
}

int pl_cpufacts_cpu(const pl_env *env, uint32_t cpu, pl_info_fn emit, void *ud)
{
    static const char *const files[][2] = {
        { "scaling_governor", "governor" }, { "scaling_driver", "driver" },
        { "energy_performance_preference", "energy_performance_preference" },
    };
    char rel[128];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpufreq/%s", (unsigned)cpu, files[k][0]);
        if (fact(env, rel, files[k][1], emit, ud))
            return 1;
    }
    return 0;
}

/* One key per vulnerability file: "vulnerability_<file>". */
static int vulnerabilities(const pl_env *env, pl_info_fn emit, void *ud)
{
    int fd = pl_open_rel(env, "sys/devices/system/cpu/vulnerabilities"), stop = 0;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;
    char rel[128], name[80], key[96];
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    while (!stop && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/vulnerabilities/%.64s", de->d_name);
        pl_fact_escape(de->d_name, name, sizeof name);   /* keys are text too */
        snprintf(key, sizeof key, "vulnerability_%.64s", name);
        stop = fact(env, rel, key, emit, ud);
    }
    closedir(d);
    return stop;
}

int pl_cpufacts_total(const pl_env *env, pl_info_fn emit, void *ud)
{
    static const char *const lists[][2] = {
        { "sys/devices/system/cpu/isolated", "isolated" },
        { "sys/devices/system/cpu/nohz_full", "nohz_full" },
    };
    static const char *const files[][2] = {
        { "sys/devices/system/cpu/cpuidle/current_driver", "cpuidle_driver" },
        { "sys/devices/system/cpu/cpuidle/current_governor_ro", "cpuidle_governor" },
    };
    char list[1024], esc[1024];
    /* the CPU lists as read_list has them: "" for none, "(null)" included */
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        if (read_list(env, lists[k][0], list, sizeof list) != 0)
            continue;
        pl_fact_escape(list, esc, sizeof esc);
        if (emit(ud, lists[k][1], esc))
            return 1;
    }
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        if (fact(env, files[k][0], files[k][1], emit, ud))
            return 1;
    return vulnerabilities(env, emit, ud);
}
