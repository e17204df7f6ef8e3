/* Registers the built-in countersets with a new environment, in title-index
 * order.  Sets still being written are weak references: a set whose file is
 * not in the build is simply not registered. */
#include "providers.h"

#define WEAK __attribute__((weak))
extern const pl_counterset_def pl_physicaldisk_def WEAK, pl_logicaldisk_def WEAK, pl_netif_def WEAK,
    pl_ipv4_def WEAK, pl_ipv6_def WEAK, pl_tcpv4_def WEAK, pl_tcpv6_def WEAK, pl_udpv4_def WEAK,
    pl_udpv6_def WEAK, pl_icmp_def WEAK, pl_icmpv6_def WEAK, pl_process_def WEAK, pl_thread_def WEAK,
    pl_pagingfile_def WEAK, pl_thermal_def WEAK, pl_numa_def WEAK, pl_psi_def WEAK, pl_cgroup_def WEAK,
    pl_hwmon_def WEAK, pl_battery_def WEAK, pl_softirq_def WEAK, pl_interrupts_def WEAK,
    pl_nfs_def WEAK, pl_sockets_def WEAK, pl_hwevents_def WEAK;

static const pl_counterset_def *const builtin[] = {
    &pl_processor_def,
    &pl_memory_def,
    &pl_system_def,
    &pl_physicaldisk_def, &pl_logicaldisk_def, &pl_netif_def, &pl_ipv4_def, &pl_ipv6_def,
    &pl_tcpv4_def, &pl_tcpv6_def, &pl_udpv4_def, &pl_udpv6_def, &pl_icmp_def, &pl_process_def,
    &pl_thread_def, &pl_pagingfile_def, &pl_thermal_def, &pl_numa_def, &pl_psi_def,
    &pl_cgroup_def, &pl_hwmon_def, &pl_battery_def, &pl_softirq_def, &pl_interrupts_def,
    &pl_nfs_def, &pl_sockets_def, &pl_hwevents_def, &pl_icmpv6_def,
};

int pl_register_builtin(pl_env *env)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        int e;
        if (!builtin[i])
            continue;
        e = pl_env_register(env, builtin[i]);
        if (e)
            return e;
    }
    return 0;
}
