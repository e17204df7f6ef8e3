/* System's text facts: uname from /proc/sys/kernel, os-release, DMI,
 * SELinux and the clocksource (sysfacts.h).  Read when asked (the info op), never on the
 * sampling path, so files are opened and closed each time. */
#include "sysfacts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The text of rel (below the root), at most size - 1 bytes: 1, 0 if absent or empty. */
static int read_small(const pl_env *env, const char *rel, char *buf, size_t size)
{
    return pl_read_text(env, rel, buf, size) == 0 && buf[0] != '\0' && buf[0] != '\n';
}

static int uname_facts(const pl_env *env, pl_info_fn emit, void *ud)
{
    static const char *const file[] = { "ostype", "osrelease", "version", "hostname", "domainname" };
    static const char *const key[] = { "kernel_name", "kernel_release", "kernel_version", "hostname",
                                       "domainname" };
    char rel[64], buf[128];
    int r;
    for (size_t i = 0; i < sizeof file / sizeof *file; i++) {
        snprintf(rel, sizeof rel, "proc/sys/kernel/%s", file[i]);
        if ((r = pl_emit_file(env, rel, key[i], emit, ud)) != 0)
            return r;
    }
    if (read_small(env, "proc/sys/kernel/arch", buf, sizeof buf))
        return pl_emit_file(env, "proc/sys/kernel/arch", "machine", emit, ud);
    struct utsname u;
    if (strcmp(pl_env_root(env), "/") == 0 && uname(&u) == 0) {   /* this machine's own */
        pl_fact_escape(u.machine, buf, sizeof buf);
        return emit(ud, "machine", buf);
    }
    return 0;
}

int pl_os_release_value(const char *v, size_t len, char *out, size_t size)
{
    size_t o = 0;
    char q = len && (v[0] == '"' || v[0] == '\'') ? v[0] : 0;
    size_t i = q ? 1 : 0;
    for (; i < len && o + 1 < size; i++) {
        if (q && v[i] == q)
            break;
        if (v[i] == '\\' && q != '\'' && i + 1 < len)
            i++;         /* \" \\ \$ \` keep the character after the backslash */
        out[o++] = v[i];
    }
    out[o] = '\0';
    if (q && (i >= len || v[i] != q))
        return 0;        /* no closing quote (or cut to fit) */
    return 1;
}

static int os_facts(const pl_env *env, pl_info_fn emit, void *ud)
{
    static const struct { const char *name, *key; } keys[] = {
        { "NAME", "os_name" }, { "ID", "os_id" }, { "ID_LIKE", "os_id_like" },
        { "VERSION", "os_version" }, { "VERSION_ID", "os_version_id" },
        { "VERSION_CODENAME", "os_version_codename" }, { "PRETTY_NAME", "os_pretty_name" },
        { "BUILD_ID", "os_build_id" }, { "VARIANT_ID", "os_variant_id" },
    };
    char buf[4096], raw[512], val[1024];
    if (!read_small(env, "etc/os-release", buf, sizeof buf) &&
        !read_small(env, "usr/lib/os-release", buf, sizeof buf))
        return 0;
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        size_t kl = strlen(keys[k].name);
        for (const char *p = buf; p && *p; p = pl_next_line(p)) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            int r;
            if (len <= kl || strncmp(p, keys[k].name, kl) != 0 || p[kl] != '=')
                continue;
            if (!pl_os_release_value(p + kl + 1, len - kl - 1, raw, sizeof raw))
                break;       /* malformed: the key is left out */
            pl_fact_escape(raw, val, sizeof val);
            if (val[0] && (r = emit(ud, keys[k].key, val)) != 0)
                return r;
            break;
        }
    }
    return 0;
}

static int dmi_facts(const pl_env *env, pl_info_fn emit, void *ud)
{
    static const char *const file[] = {
        "sys_vendor", "product_name", "product_family", "product_version", "product_sku",
        "board_vendor", "board_name", "board_version", "bios_vendor", "bios_version", "bios_date",
        "bios_release", "chassis_vendor", "chassis_type", "chassis_version",
    };
    char rel[64], key[64];
    int r;
    for (size_t i = 0; i < sizeof file / sizeof *file; i++) {
        snprintf(rel, sizeof rel, "sys/class/dmi/id/%s", file[i]);
        snprintf(key, sizeof key, "dmi_%s", file[i]);
        if ((r = pl_emit_file(env, rel, key, emit, ud)) != 0)
            return r;
    }
    return 0;
}

static int selinux_fact(const pl_env *env, pl_info_fn emit, void *ud)
{
    char buf[16], path[4096];
    if (read_small(env, "sys/fs/selinux/enforce", buf, sizeof buf))
        return emit(ud, "selinux", buf[0] == '1' ? "enforcing" : "permissive");
    snprintf(path, sizeof path, "%ssys/fs", pl_env_root_prefix(env));
    return access(path, F_OK) == 0 ? emit(ud, "selinux", "disabled") : 0;
}

/* The clock the kernel keeps time with, and the ones it could switch to
 * (Documentation/ABI/testing/sysfs-devices-system-clocksource). */
static int clocksource_facts(const pl_env *env, pl_info_fn emit, void *ud)
{
    static const char dir[] = "sys/devices/system/clocksource/clocksource0/";
    char rel[96];
    int r;
    snprintf(rel, sizeof rel, "%scurrent_clocksource", dir);
    if ((r = pl_emit_file(env, rel, "clocksource", emit, ud)) != 0)
        return r;
    snprintf(rel, sizeof rel, "%savailable_clocksource", dir);
    return pl_emit_file(env, rel, "clocksource_available", emit, ud);
}

int pl_sysfacts(const pl_env *env, pl_info_fn emit, void *ud)
{
    int r;
    if ((r = uname_facts(env, emit, ud)) != 0 || (r = os_facts(env, emit, ud)) != 0 ||
        (r = dmi_facts(env, emit, ud)) != 0 || (r = selinux_fact(env, emit, ud)) != 0)
        return r;
    return clocksource_facts(env, emit, ud);
}
