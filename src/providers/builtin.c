/* Registers the built-in countersets with a new environment, in title-index
 * order of the catalog.  The references are strong, so a program linking
 * libperflib-core.a gets every set. */
#include "providers.h"

static const pl_counterset_def *const builtin[] = {
    &pl_processor_def, &pl_memory_def, &pl_system_def,
    &pl_physicaldisk_def, &pl_logicaldisk_def, &pl_netif_def, &pl_ipv4_def, &pl_ipv6_def,
    &pl_tcpv4_def, &pl_tcpv6_def, &pl_udpv4_def, &pl_udpv6_def, &pl_icmp_def, &pl_process_def,
    &pl_thread_def, &pl_pagingfile_def, &pl_thermal_def, &pl_numa_def, &pl_psi_def,
    &pl_cgroup_def, &pl_hwmon_def, &pl_battery_def, &pl_softirq_def, &pl_interrupts_def,
    &pl_nfs_def, &pl_sockets_def, &pl_hwevents_def, &pl_icmpv6_def,
};

int pl_register_builtin(pl_env *env)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        int e = pl_env_register(env, builtin[i]);
        if (e)
            return e;
    }
    return 0;
}
