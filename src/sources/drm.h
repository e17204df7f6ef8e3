/* DRM files as pure parsers (pl_ksrc.h's parse form), for the GPU sets:
 *
 * /proc/PID/fdinfo/N of a DRM file (Documentation/gpu/drm-usage-stats.rst,
 * kernel 5.19 on; read per file by the GPU Engine and GPU Process Memory
 * sets, not through a machine reader, so its def has no path):
 *   drm-driver: i915                  mandatory: a file without it is no DRM client
 *   drm-pdev: 0000:00:02.0            the PCI device, optional
 *   drm-client-id: 7                  several fds may share one client
 *   drm-engine-<name>: <uint> ns      busy time of an engine class
 *   drm-engine-capacity-<name>: <uint>   engines of that class (1 when absent)
 *   drm-cycles-<name>: <uint>, drm-total-cycles-<name>: <uint>   (xe, 6.13)
 *   drm-total-|drm-resident-|drm-shared-<region>: <uint> [KiB|MiB]   (6.10)
 *   drm-memory-<region>: <uint> [KiB|MiB]   the older total (amdgpu, msm)
 * Other keys (pos, flags, drm-maxfreq-, drm-purgeable-, amd-...) are skipped.
 * A value that is not a whole number with a known unit leaves its field
 * unset; names past PL_DRM_NAME bytes, and engines or regions past the
 * table, are skipped, never cut.
 *
 * amdgpu's pp_dpm_sclk / pp_dpm_mclk (drivers/gpu/drm/amd/pm/amdgpu_pm.c,
 * amdgpu_get_pp_dpm_clock): one level per line, "1: 800Mhz *", the one in
 * use marked with '*'. */
#ifndef PL_DRM_H
#define PL_DRM_H

#include "pl_ksrc.h"

#define PL_DRM_NAME 32
#define PL_DRM_ENGINES 16
#define PL_DRM_REGIONS 8

enum { PL_DRM_NS, PL_DRM_CYCLES, PL_DRM_TOTAL_CYCLES, PL_DRM_CAPACITY, PL_DRM_EN };
enum { PL_DRM_TOTAL, PL_DRM_RESIDENT, PL_DRM_SHARED, PL_DRM_MEMORY, PL_DRM_RN };

typedef struct pl_drm_engine {
    char name[PL_DRM_NAME];
    uint64_t v[PL_DRM_EN];
    uint8_t st[PL_DRM_EN];   /* PL_NS_* */
} pl_drm_engine;

typedef struct pl_drm_region {
    char name[PL_DRM_NAME];
    uint64_t v[PL_DRM_RN];   /* bytes */
    uint8_t st[PL_DRM_RN];
} pl_drm_region;

typedef struct pl_drm_fdinfo {
    int drm;                 /* 1: drm-driver was there */
    int has_client;
    char driver[PL_DRM_NAME];
    char pdev[PL_DRM_NAME];  /* "" when absent */
    uint64_t client;
    uint32_t neng, nreg;
    pl_drm_engine eng[PL_DRM_ENGINES];
    pl_drm_region reg[PL_DRM_REGIONS];
} pl_drm_fdinfo;

typedef struct pl_drm_dpm {
    int found;               /* 1: a level marked '*' with a whole MHz */
    uint64_t mhz;
} pl_drm_dpm;

extern const pl_ksrc_def pl_ksrc_drm_fdinfo, pl_ksrc_drm_dpm;

/* The pure parsers (buf[len] is '\0'; safe on any bytes): always 0. */
int pl_parse_drm_fdinfo(const char *buf, size_t len, void *out);
int pl_parse_drm_dpm(const char *buf, size_t len, void *out);

#endif
