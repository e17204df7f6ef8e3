/* The built-in countersets.  Each provider file defines one (or a family)
 * and exports its definition; builtin.c registers them all. */
#ifndef PL_PROVIDERS_H
#define PL_PROVIDERS_H

#include "perflib.h"

/* GUIDs of sets without a Windows GUID are UUIDv5 of the counterset name in
 * the perflib namespace ec781385-21e7-5abd-bfd2-f7949ffaf93e (which is itself
 * UUIDv5(URL, "perflib:counterset")).  They are written out, not computed,
 * so they never change even if a name does. */
extern const pl_counterset_def pl_processor_def, pl_memory_def, pl_system_def, pl_processor_v1_def;
extern const pl_counterset_def pl_physicaldisk_def, pl_logicaldisk_def, pl_pagingfile_def,
    pl_diskpartition_def, pl_nfsrpc_def, pl_mdraid_def;
extern const pl_counterset_def pl_netif_def, pl_ipv4_def, pl_ipv6_def, pl_tcpv4_def, pl_tcpv6_def,
    pl_udpv4_def, pl_udpv6_def, pl_udplitev4_def, pl_udplitev6_def, pl_udpqueue_def, pl_bonding_def,
    pl_icmp_def, pl_icmpv6_def, pl_sockets_def;
extern const pl_counterset_def pl_process_def, pl_thread_def;
extern const pl_counterset_def pl_thermal_def, pl_hwmon_def, pl_battery_def, pl_numa_def, pl_psi_def;
extern const pl_counterset_def pl_softirq_def, pl_interrupts_def, pl_nfs_def, pl_cgroup_def;
extern const pl_counterset_def pl_hwevents_def, pl_softnet_def, pl_conntrack_def,
    pl_buddyinfo_def, pl_ksm_def, pl_slabinfo_def, pl_schedstat_def,
    pl_nfsd_def, pl_taskstates_def, pl_container_def, pl_tcpstates_def, pl_rapl_def, pl_cooling_def,
    pl_edac_def, pl_clock_def, pl_watchdog_def, pl_ipvs_def, pl_arp_def,
    pl_zram_def, pl_nvme_def;
extern const pl_counterset_def pl_gpu_device_def, pl_gpu_adapter_memory_def, pl_gpu_engine_def,
    pl_gpu_process_memory_def;
extern const pl_counterset_def pl_infiniband_def, pl_fibrechannel_def, pl_tape_def;
extern const pl_counterset_def pl_xfs_def;
extern const pl_counterset_def pl_btrfs_def, pl_btrfs_dev_def;
extern const pl_counterset_def pl_ipvs_backend_def, pl_ipc_def, pl_vfs_def;
extern const pl_counterset_def pl_zfs_def, pl_zfs_pool_def, pl_zfs_dataset_def;
extern const pl_counterset_def pl_bcache_def, pl_bcache_dev_def;

/* Registers every built-in set with the process-wide registry, in title-index
 * order, at its fixed index (1000, 2000, ...).  Called by the libraries that
 * bundle the providers (libperflib, the Lua module) before their first
 * environment; thread-safe and idempotent.  0 or the errno of
 * pl_register_counterset with its sentence in msg (may be NULL). */
int pl_register_builtin(char *msg, size_t msgsize);

#endif
