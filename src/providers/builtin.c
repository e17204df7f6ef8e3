/* Registers the built-in countersets with the process-wide registry, in
 * title-index order of the catalog.  The core does not call this: the
 * libraries that bundle the providers do (libperflib, the Lua module). */
#include "providers.h"

#include <stdatomic.h>

static const pl_counterset_def *const builtin[] = {
    &pl_processor_def, &pl_memory_def, &pl_system_def,
    &pl_physicaldisk_def, &pl_logicaldisk_def, &pl_netif_def, &pl_ipv4_def, &pl_ipv6_def,
    &pl_tcpv4_def, &pl_tcpv6_def, &pl_udpv4_def, &pl_udpv6_def, &pl_icmp_def, &pl_process_def,
    &pl_thread_def, &pl_pagingfile_def, &pl_thermal_def, &pl_numa_def, &pl_psi_def,
    &pl_cgroup_def, &pl_hwmon_def, &pl_battery_def, &pl_softirq_def, &pl_interrupts_def,
    &pl_nfs_def, &pl_sockets_def, &pl_hwevents_def, &pl_icmpv6_def, &pl_processor_v1_def,
    &pl_softnet_def, &pl_conntrack_def, &pl_buddyinfo_def, &pl_ksm_def,
    &pl_slabinfo_def, &pl_schedstat_def, &pl_nfsd_def, &pl_diskpartition_def,
    &pl_nfsrpc_def, &pl_mdraid_def,
    &pl_udplitev4_def, &pl_udplitev6_def, &pl_udpqueue_def, &pl_bonding_def,
    &pl_rapl_def, &pl_cooling_def, &pl_edac_def, &pl_clock_def, &pl_watchdog_def,
    &pl_gpu_device_def, &pl_gpu_adapter_memory_def, &pl_gpu_engine_def, &pl_gpu_process_memory_def,
    &pl_taskstates_def, &pl_container_def, &pl_ipvs_def, &pl_arp_def, &pl_zram_def, &pl_nvme_def,
    &pl_infiniband_def, &pl_fibrechannel_def, &pl_tape_def, &pl_tcpstates_def,
    &pl_xfs_def, &pl_btrfs_def, &pl_bcache_def, &pl_bcache_dev_def,
    &pl_zfs_def, &pl_zfs_pool_def, &pl_zfs_dataset_def,
    &pl_ipvs_backend_def, &pl_ipc_def, &pl_vfs_def, &pl_btrfs_dev_def,
};

/* set once every set is in, so that later calls (one per new C API machine)
 * cost one load */
static atomic_int registered;

int pl_register_builtin(char *msg, size_t msgsize)
{
    if (atomic_load(&registered))
        return 0;
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        int e = pl_register_counterset(builtin[i], NULL, msg, msgsize);
        if (e)
            return e;
    }
    atomic_store(&registered, 1);
    return 0;
}
