/* System's text facts (the info op): what node_exporter's uname, os, dmi
 * and selinux collectors give as labels, and the time collector's clocksource. */
#ifndef PL_SYSFACTS_H
#define PL_SYSFACTS_H

#include "pl_provider.h"

/* Emits, in this order and each only when its file is there and not empty:
 *   kernel_name, kernel_release, kernel_version, hostname, domainname, machine
 *       proc/sys/kernel/{ostype,osrelease,version,hostname,domainname,arch}
 *       (arch is Linux 6.1+; on the live root, uname(2)'s machine before it)
 *   os_name, os_id, os_id_like, os_version, os_version_id, os_version_codename,
 *   os_pretty_name, os_build_id, os_variant_id
 *       etc/os-release, else usr/lib/os-release (os-release(5): KEY=value,
 *       values in double or single quotes with \-escapes)
 *   dmi_<file>  sys/class/dmi/id: sys_vendor, product_name, product_family,
 *       product_version, product_sku, board_vendor, board_name, board_version,
 *       bios_vendor, bios_version, bios_date, bios_release, chassis_vendor,
 *       chassis_type, chassis_version (serials and UUIDs are left out: they
 *       are root-only and identify the machine)
 *   selinux     sys/fs/selinux/enforce: "enforcing" or "permissive"; "disabled"
 *       when selinuxfs is not there on a kernel that has sys/fs
 *   clocksource, clocksource_available
 *       sys/devices/system/clocksource/clocksource0/{current,available}_clocksource
 *       (node_exporter's time collector labels; the available list as the
 *       kernel gives it, names separated by blanks)
 * Values go through pl_fact_escape.  0, or what emit stopped with (nonzero). */
int pl_sysfacts(const pl_env *env, pl_info_fn emit, void *ud);

/* One os-release line's value (after '='): quotes removed, \-escapes undone,
 * into out (size bytes).  1, or 0 when it is malformed (an unclosed quote). */
int pl_os_release_value(const char *v, size_t len, char *out, size_t size);

#endif
