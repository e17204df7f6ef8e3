/* System's text facts (sysfacts.h) against a temporary tree: uname from
 * /proc/sys/kernel, os-release's quoting (os-release(5)), DMI with a
 * control character, SELinux; the order, a stop by emit, and live. */
#include "perflib.h"
#include "pl_provider.h"
#include "sysfacts.h"
#include "ctest.h"
#include "ctest_snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct facts {
    char text[4096];
    int n, stop_at;
} facts;

static int add(void *ud, const char *key, const char *value)
{
    facts *f = ud;
    size_t o = strlen(f->text);
    snprintf(f->text + o, sizeof f->text - o, "%s=%s;", key, value);
    return ++f->n == f->stop_at;
}

static void test_tree(void)
{
    char dir[] = "/tmp/pl-sf-XXXXXX";
    facts f = { "", 0, 0 };
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "proc/sys/kernel/ostype", "Linux\n"));
    CHECK(put(dir, "proc/sys/kernel/osrelease", "6.1.0-13-amd64\n"));
    CHECK(put(dir, "proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)\n"));
    CHECK(put(dir, "proc/sys/kernel/hostname", "db1\n"));
    CHECK(put(dir, "proc/sys/kernel/domainname", "(none)\n"));
    CHECK(put(dir, "proc/sys/kernel/arch", "aarch64\n"));
    CHECK(put(dir, "usr/lib/os-release",
              "# a comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME='Debian'\n"
              "VERSION_ID=\"12\"\nID=debian\nVERSION=\"12 \\\"bookworm\\\"\"\nBUILD_ID=\"unclosed\n"
              "HOME_URL=\"https://www.debian.org/\"\n"));
    CHECK(put(dir, "sys/class/dmi/id/sys_vendor", "QEMU\n"));
    CHECK(put(dir, "sys/class/dmi/id/product_name", "Standard PC\x1b[2J (Q35)\n"));
    CHECK(put(dir, "sys/class/dmi/id/bios_date", "04/01/2014\n"));
    CHECK(put(dir, "sys/class/dmi/id/product_serial", "SECRET\n"));   /* never read */
    CHECK(put(dir, "sys/fs/selinux/enforce", "1"));
    pl_env *env = pl_env_new(dir);
    CHECK(pl_sysfacts(env, add, &f) == 0);
    CHECK_STR(f.text,
              "kernel_name=Linux;kernel_release=6.1.0-13-amd64;"
              "kernel_version=#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29);hostname=db1;"
              "domainname=(none);machine=aarch64;"
              "os_name=Debian;os_id=debian;os_version=12 \"bookworm\";os_version_id=12;"
              "os_pretty_name=Debian GNU/Linux 12 (bookworm);"
              "dmi_sys_vendor=QEMU;dmi_product_name=Standard PC\\x1b[2J (Q35);dmi_bios_date=04/01/2014;"
              "selinux=enforcing;");
    /* etc/os-release wins over usr/lib's; permissive; a stop after three */
    CHECK(put(dir, "etc/os-release", "ID=alpine\n"));
    CHECK(put(dir, "sys/fs/selinux/enforce", "0\n"));
    memset(&f, 0, sizeof f);
    CHECK(pl_sysfacts(env, add, &f) == 0);
    CHECK(strstr(f.text, "os_id=alpine;dmi_") != NULL && strstr(f.text, "debian") == NULL);
    CHECK(strstr(f.text, "selinux=permissive;") != NULL);
    memset(&f, 0, sizeof f);
    f.stop_at = 3;
    CHECK(pl_sysfacts(env, add, &f) != 0);
    CHECK_STR(f.text, "kernel_name=Linux;kernel_release=6.1.0-13-amd64;"
                      "kernel_version=#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29);");
    pl_env_unref(env);
    rm_tree(dir);
}

/* An empty tree: no facts, no error; without sys/fs no SELinux guess. */
static void test_empty(void)
{
    char dir[] = "/tmp/pl-sf-XXXXXX";
    facts f = { "", 0, 0 };
    CHECK(mkdtemp(dir) != NULL);
    pl_env *env = pl_env_new(dir);
    CHECK(pl_sysfacts(env, add, &f) == 0);
    CHECK_STR(f.text, "");
    CHECK(put(dir, "sys/fs/cgroup/x", "1\n"));           /* sys/fs without selinuxfs */
    CHECK(pl_sysfacts(env, add, &f) == 0);
    CHECK_STR(f.text, "selinux=disabled;");
    pl_env_unref(env);
    rm_tree(dir);
}

/* The clocksource files after SELinux: the kernel's trailing blank and
 * newline dropped, a control character escaped; one without the other. */
static void test_clocksource(void)
{
    char dir[] = "/tmp/pl-sf-XXXXXX";
    facts f = { "", 0, 0 };
    CHECK(mkdtemp(dir) != NULL);
    CHECK(put(dir, "sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n"));
    CHECK(put(dir, "sys/devices/system/clocksource/clocksource0/available_clocksource",
              "tsc hpet acpi_pm \n"));
    pl_env *env = pl_env_new(dir);
    CHECK(pl_sysfacts(env, add, &f) == 0);
    CHECK_STR(f.text, "clocksource=tsc;clocksource_available=tsc hpet acpi_pm;");
    CHECK(put(dir, "sys/devices/system/clocksource/clocksource0/current_clocksource", "kvm\x01" "clock\n"));
    CHECK(put(dir, "sys/devices/system/clocksource/clocksource0/available_clocksource", ""));
    memset(&f, 0, sizeof f);
    CHECK(pl_sysfacts(env, add, &f) == 0);
    CHECK_STR(f.text, "clocksource=kvm\\x01clock;");
    memset(&f, 0, sizeof f);
    f.stop_at = 1;                                        /* a stop by emit at the first */
    CHECK(pl_sysfacts(env, add, &f) != 0);
    CHECK_STR(f.text, "clocksource=kvm\\x01clock;");
    pl_env_unref(env);
    rm_tree(dir);
}

static void test_os_release_value(void)
{
    char out[16];
    CHECK(pl_os_release_value("\"a\\\"b\"", 6, out, sizeof out) && strcmp(out, "a\"b") == 0);
    CHECK(pl_os_release_value("'x\\y'", 5, out, sizeof out) && strcmp(out, "x\\y") == 0);
    CHECK(pl_os_release_value("plain", 5, out, sizeof out) && strcmp(out, "plain") == 0);
    CHECK(!pl_os_release_value("\"open", 5, out, sizeof out));
    CHECK(!pl_os_release_value("\"0123456789abcdefghij\"", 22, out, sizeof out));   /* cut: no quote */
    CHECK(pl_os_release_value("", 0, out, sizeof out) && out[0] == '\0');
}

/* Live: the System set's info op gives this kernel's release. */
static void test_live(void)
{
    facts f = { "", 0, 0 };
    pl_env *env = pl_env_new("/");
    const pl_counterset_def *cs = pl_env_find(env, "System");
    CHECK(cs && pl_counterset_info(env, cs, NULL, add, &f) == 0);
    CHECK(strstr(f.text, "kernel_release=") != NULL && strstr(f.text, "machine=") != NULL);
    if (access("/sys/devices/system/clocksource/clocksource0/current_clocksource", R_OK) == 0)
        CHECK(strstr(f.text, "clocksource=") != NULL && strstr(f.text, "clocksource_available=") != NULL);
    CHECK(cs && pl_counterset_info(env, cs, "x", add, &f) == EINVAL);   /* a single-instance set */
    pl_env_unref(env);
}

int main(void)
{
    RUN(test_tree);
    RUN(test_empty);
    RUN(test_clocksource);
    RUN(test_os_release_value);
    RUN(test_live);
    return CT_END();
}
