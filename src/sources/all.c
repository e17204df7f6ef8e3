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

const pl_ksrc_def *const pl_ksrc_all[] = {
    &pl_ksrc_snmp, &pl_ksrc_netstat, &pl_ksrc_snmp6,
    &pl_ksrc_meminfo, &pl_ksrc_vmstat, &pl_ksrc_diskstats,
    &pl_ksrc_netdev, &pl_ksrc_sockstat, &pl_ksrc_sockstat6,
    &pl_ksrc_swaps,
    &pl_ksrc_stat, &pl_ksrc_interrupts, &pl_ksrc_softirqs, &pl_ksrc_uptime, &pl_ksrc_loadavg,
    &pl_ksrc_cpuinfo,
    &pl_ksrc_zoneinfo, &pl_ksrc_filenr, &pl_ksrc_entropy, &pl_ksrc_pidmax, &pl_ksrc_threadsmax,
    NULL,
};
