/* Every kernel source, for the fuzz target and the tests that walk them all:
 * add a new source's definition here. */
#include "sources.h"
#include "netmib.h"
#include "meminfo.h"
#include "diskstats.h"
#include "netdev.h"
#include "sockstat.h"
#include "swaps.h"
#include "procstat.h"
#include "cputab.h"
#include "proc_misc.h"
#include "cpuinfo.h"
#include "sysnum.h"
#include "softnet.h"
#include "conntrack.h"
#include "buddyinfo.h"
#include "ksm.h"
#include "slabinfo.h"
#include "schedstat.h"
#include "nfsd.h"
#include "nfsrpc.h"
#include "mdstat.h"
#include "udpq.h"
#include "tcptab.h"
#include "drm.h"
#include "ipvs.h"
#include "arp.h"
#include "ipvsdest.h"
#include "sysvipc.h"
#include "locks.h"
#include "zfs.h"

const pl_ksrc_def *const pl_ksrc_all[] = {
    &pl_ksrc_snmp, &pl_ksrc_netstat, &pl_ksrc_snmp6,
    &pl_ksrc_meminfo, &pl_ksrc_vmstat, &pl_ksrc_diskstats,
    &pl_ksrc_netdev, &pl_ksrc_sockstat, &pl_ksrc_sockstat6,
    &pl_ksrc_swaps,
    &pl_ksrc_stat, &pl_ksrc_interrupts, &pl_ksrc_softirqs, &pl_ksrc_uptime, &pl_ksrc_loadavg,
    &pl_ksrc_cpuinfo,
    &pl_ksrc_zoneinfo, &pl_ksrc_filenr, &pl_ksrc_entropy, &pl_ksrc_pidmax, &pl_ksrc_threadsmax,
    &pl_ksrc_softnet, &pl_ksrc_ct_count, &pl_ksrc_ct_max, &pl_ksrc_ct_stat,
    &pl_ksrc_buddyinfo,
    &pl_ksrc_ksm_shared, &pl_ksrc_ksm_sharing, &pl_ksrc_ksm_unshared, &pl_ksrc_ksm_volatile,
    &pl_ksrc_ksm_zero, &pl_ksrc_ksm_full_scans, &pl_ksrc_ksm_scanned, &pl_ksrc_ksm_run,
    &pl_ksrc_slabinfo, &pl_ksrc_schedstat, &pl_ksrc_nfsd,
    &pl_ksrc_nfsrpc, &pl_ksrc_mdstat,
    &pl_ksrc_udp, &pl_ksrc_udp6,
    &pl_ksrc_drm_fdinfo, &pl_ksrc_drm_dpm,
    &pl_ksrc_tcp, &pl_ksrc_tcp6,
    &pl_ksrc_ipvs_stats,
    &pl_ksrc_arp,
    &pl_ksrc_ipvs_dests,
    &pl_ksrc_ipc_shm, &pl_ksrc_ipc_msg, &pl_ksrc_ipc_sem,
    &pl_ksrc_shmmax, &pl_ksrc_shmall, &pl_ksrc_shmmni, &pl_ksrc_msgmax, &pl_ksrc_msgmnb,
    &pl_ksrc_msgmni, &pl_ksrc_semlim,
    &pl_ksrc_locks, &pl_ksrc_inodenr, &pl_ksrc_dentry, &pl_ksrc_aionr, &pl_ksrc_aiomax,
    &pl_ksrc_zfs_arcstats, &pl_ksrc_zfs_zil, &pl_ksrc_zfs_dmu_tx, &pl_ksrc_zfs_zfetch,
    &pl_ksrc_zfs_abd,
    NULL,
};
