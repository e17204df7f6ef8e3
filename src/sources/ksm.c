/* KSM's attributes as kernel sources: see ksm.h. */
#include "ksm.h"

const pl_ksrc_def pl_ksrc_ksm_shared = PL_SYSNUM_SRC("sys/kernel/mm/ksm/pages_shared");
const pl_ksrc_def pl_ksrc_ksm_sharing = PL_SYSNUM_SRC("sys/kernel/mm/ksm/pages_sharing");
const pl_ksrc_def pl_ksrc_ksm_unshared = PL_SYSNUM_SRC("sys/kernel/mm/ksm/pages_unshared");
const pl_ksrc_def pl_ksrc_ksm_volatile = PL_SYSNUM_SRC("sys/kernel/mm/ksm/pages_volatile");
const pl_ksrc_def pl_ksrc_ksm_zero = PL_SYSNUM_SRC("sys/kernel/mm/ksm/ksm_zero_pages");
const pl_ksrc_def pl_ksrc_ksm_full_scans = PL_SYSNUM_SRC("sys/kernel/mm/ksm/full_scans");
const pl_ksrc_def pl_ksrc_ksm_scanned = PL_SYSNUM_SRC("sys/kernel/mm/ksm/pages_scanned");
const pl_ksrc_def pl_ksrc_ksm_run = PL_SYSNUM_SRC("sys/kernel/mm/ksm/run");
