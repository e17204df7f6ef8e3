/* A stand-in for libnvidia-ml.so.1 with fixed values, built and loaded by
 * spec/c/test_gpu_nvml.c through PERFLIB_NVML_LIBRARY: the entry points
 * perflib's loader (src/providers/gpu_nvml.c) uses, with NVML's documented
 * signatures (nvml.h).  Two devices: 0 reports everything; 1 has no power
 * sensor (NVML_ERROR_NOT_SUPPORTED, 3) and a control character in its name.
 * -DFAKE_NO_NAME leaves nvmlDeviceGetName out (a library too old or
 * broken); -DFAKE_INIT_FAILS makes nvmlInit_v2 fail (no driver loaded). */
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_dev { int index; } *nvmlDevice_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_DRIVER_NOT_LOADED 9

static struct fake_dev devs[2] = { { 0 }, { 1 } };
static int inits;

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *c);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len);
int fake_inits(void);

nvmlReturn_t nvmlInit_v2(void)
{
#ifdef FAKE_INIT_FAILS
    return NVML_ERROR_DRIVER_NOT_LOADED;
#else
    inits++;
    return NVML_SUCCESS;
#endif
}

nvmlReturn_t nvmlShutdown(void)
{
    inits--;
    return NVML_SUCCESS;
}

/* init calls not yet shut down (the test checks that close shuts down) */
int fake_inits(void)
{
    return inits;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = 2;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
    if (i >= 2)
        return NVML_ERROR_INVALID_ARGUMENT;
    *d = &devs[i];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    u->gpu = d->index ? 3 : 55;
    u->memory = d->index ? 1 : 20;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    m->total = d->index ? 8589934592ull : 25769803776ull;      /* 8 GiB, 24 GiB */
    m->used = d->index ? 268435456ull : 4296015872ull;         /* 256 MiB, 4 GiB + 1 MiB */
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
    if (d->index)
        return NVML_ERROR_NOT_SUPPORTED;
    *mw = 215000;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *c)
{
    if (sensor != 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    *c = d->index ? 41 : 67;
    return NVML_SUCCESS;
}

#ifndef FAKE_NO_NAME
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
    const char *n = d->index ? "NVIDIA\001Test" : "NVIDIA GeForce RTX 4090";
    if (strlen(n) + 1 > len)
        return NVML_ERROR_INVALID_ARGUMENT;
    memcpy(name, n, strlen(n) + 1);
    return NVML_SUCCESS;
}
#endif
