/* Every kernel source, for the fuzz target and the tests that walk them all:
 * add a new source's definition here. */
#include "sources.h"
#include "netmib.h"
#include "meminfo.h"
#include "diskstats.h"

const pl_ksrc_def *const pl_ksrc_all[] = {
    &pl_ksrc_snmp, &pl_ksrc_netstat, &pl_ksrc_snmp6,
    &pl_ksrc_meminfo, &pl_ksrc_vmstat, &pl_ksrc_diskstats,
    NULL,
};
