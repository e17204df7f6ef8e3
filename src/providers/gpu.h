/* Shared by the GPU sets (gpu.c: GPU Device and GPU Adapter Memory; gpu_fdinfo.c:
 * GPU Engine and GPU Process Memory) and the NVML loader (gpu_nvml.c).
 * Internal to the providers. */
#ifndef PL_GPU_H
#define PL_GPU_H

#include "perflib.h"

#include <stdint.h>

/* A row of bytes (a gauge, PERF_COUNTER_LARGE_RAWCOUNT) from field f of
 * source 0, the row the set's collect hands over. */
#define PL_GPU_BYTES_ROW(R, id, name, what, f, det) \
    R(id, name, what, PERF_COUNTER_LARGE_RAWCOUNT, PL_NO_ID, det, 0, PL_U(BYTES, 1, GAUGE), \
      PL_FIELD(0, f))

/* ---- NVML, opened at run time (gpu_nvml.c) ---------------------------------------- */
typedef struct pl_nvml pl_nvml;

/* One device's readings: a field is valid when its bit (1u << PL_NV_*) is
 * in have. */
enum { PL_NV_GPU_BUSY, PL_NV_MEM_BUSY, PL_NV_MEM_TOTAL, PL_NV_MEM_USED, PL_NV_POWER_MW,
       PL_NV_TEMP_C, PL_NV_N };
typedef struct pl_nvml_vals {
    uint64_t v[PL_NV_N];
    uint32_t have;
} pl_nvml_vals;

/* dlopen of $PERFLIB_NVML_LIBRARY, else "libnvidia-ml.so.1", then
 * nvmlInit_v2.  NULL when the library, one of its entry points or its
 * init is missing: no NVIDIA devices, not an error.  Only for the machine
 * itself (root "/") or when PERFLIB_NVML_LIBRARY is set. */
pl_nvml *pl_nvml_open(const pl_env *env);
void pl_nvml_close(pl_nvml *n);
/* Devices (0 without NVML or when the count fails). */
unsigned pl_nvml_count(pl_nvml *n);
/* The readings of device i: 0, or ENODEV when it has no handle. */
int pl_nvml_read(pl_nvml *n, unsigned i, pl_nvml_vals *out);
/* Its product name into buf (control characters escaped): 0 or ENODEV. */
int pl_nvml_name(pl_nvml *n, unsigned i, char *buf, size_t size);


#endif
