/* Kernel samepage merging (mm/ksm.c) as kernel sources: each attribute of
 * /sys/kernel/mm/ksm is one file holding one decimal (sysnum.h), read
 * once per collect and only when a wanted counter needs it.  The files
 * exist with CONFIG_KSM; ksm_zero_pages came with 6.5 (earlier kernels
 * have it under another name or not at all: absent), pages_scanned with
 * 6.7.  Pages count the machine's page size. */
#ifndef PL_KSM_H
#define PL_KSM_H

#include "sysnum.h"

extern const pl_ksrc_def pl_ksrc_ksm_shared, pl_ksrc_ksm_sharing, pl_ksrc_ksm_unshared,
    pl_ksrc_ksm_volatile, pl_ksrc_ksm_zero, pl_ksrc_ksm_full_scans, pl_ksrc_ksm_scanned,
    pl_ksrc_ksm_run;

#endif
