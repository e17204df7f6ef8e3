/* NVIDIA devices through NVML, loaded with dlopen when present: no build
 * dependency.  The few entry points used are declared here from NVML's
 * documented API (nvml.h, "NVML API Reference"): a missing library or entry
 * point, or a failed nvmlInit_v2, is no NVIDIA device, never an error.
 * PERFLIB_NVML_LIBRARY names another library (tests: a library of fixed
 * values built by spec/c/test_gpu_nvml.c). */
#include "gpu.h"
#include "pl_provider.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nvml.h: nvmlReturn_t is an enum, NVML_SUCCESS 0; nvmlDevice_t a pointer */
typedef int nv_ret;
typedef struct nv_device *nv_dev;
typedef struct { unsigned int gpu, memory; } nv_util;                 /* nvmlUtilization_t */
typedef struct { unsigned long long total, free, used; } nv_memory;   /* nvmlMemory_t */
#define NV_TEMPERATURE_GPU 0                                          /* NVML_TEMPERATURE_GPU */
#define NV_NAME_SIZE 96      /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NV_MAX_DEVICES 64

typedef struct nv_api {
    nv_ret (*init)(void);
    nv_ret (*shutdown)(void);
    nv_ret (*count)(unsigned int *);
    nv_ret (*handle)(unsigned int, nv_dev *);
    nv_ret (*util)(nv_dev, nv_util *);
    nv_ret (*memory)(nv_dev, nv_memory *);
    nv_ret (*power)(nv_dev, unsigned int *);
    nv_ret (*temp)(nv_dev, int, unsigned int *);
    nv_ret (*name)(nv_dev, char *, unsigned int);
} nv_api;

struct pl_nvml {
    void *lib;
    nv_api f;
    unsigned n;
    nv_dev dev[NV_MAX_DEVICES];   /* NULL: no handle */
};

/* dlsym into a function pointer without the object-to-function cast ISO C
 * lacks: the pointer's bytes are copied. */
static int sym(void *lib, const char *name, void *fnp, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return 0;
    memcpy(fnp, &p, size);
    return 1;
}
#define SYM(lib, name, field) sym(lib, name, &(field), sizeof(field))

static int load(pl_nvml *n)
{
    nv_api *f = &n->f;
    return SYM(n->lib, "nvmlInit_v2", f->init) && SYM(n->lib, "nvmlShutdown", f->shutdown) &&
           SYM(n->lib, "nvmlDeviceGetCount_v2", f->count) &&
           SYM(n->lib, "nvmlDeviceGetHandleByIndex_v2", f->handle) &&
           SYM(n->lib, "nvmlDeviceGetUtilizationRates", f->util) &&
           SYM(n->lib, "nvmlDeviceGetMemoryInfo", f->memory) &&
           SYM(n->lib, "nvmlDeviceGetPowerUsage", f->power) &&
           SYM(n->lib, "nvmlDeviceGetTemperature", f->temp) &&
           SYM(n->lib, "nvmlDeviceGetName", f->name);
}

pl_nvml *pl_nvml_open(const pl_env *env)
{
    const char *path = getenv("PERFLIB_NVML_LIBRARY");
    pl_nvml *n;
    unsigned count = 0;
    /* a fixture tree's machine has no NVIDIA devices of this one */
    if ((!path || !*path) && strcmp(pl_env_root_prefix(env), "/") != 0)
        return NULL;
    if (!(n = calloc(1, sizeof *n)))
        return NULL;
    n->lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->lib || !load(n) || n->f.init() != 0) {
        if (n->lib)
            dlclose(n->lib);
        free(n);
        return NULL;
    }
    if (n->f.count(&count) != 0)
        count = 0;
    n->n = count < NV_MAX_DEVICES ? count : NV_MAX_DEVICES;
    for (unsigned i = 0; i < n->n; i++)
        if (n->f.handle(i, &n->dev[i]) != 0)
            n->dev[i] = NULL;
    return n;
}

void pl_nvml_close(pl_nvml *n)
{
    if (!n)
        return;
    n->f.shutdown();
    dlclose(n->lib);
    free(n);
}

unsigned pl_nvml_count(pl_nvml *n)
{
    return n ? n->n : 0;
}

int pl_nvml_read(pl_nvml *n, unsigned i, pl_nvml_vals *out)
{
    nv_util u;
    nv_memory m;
    unsigned int mw, c;
    out->have = 0;
    if (!n || i >= n->n || !n->dev[i])
        return ENODEV;
    /* each call that fails (NVML_ERROR_NOT_SUPPORTED on a board without the
     * sensor) leaves only its own values unset */
    if (n->f.util(n->dev[i], &u) == 0) {
        out->v[PL_NV_GPU_BUSY] = u.gpu;
        out->v[PL_NV_MEM_BUSY] = u.memory;
        out->have |= 1u << PL_NV_GPU_BUSY | 1u << PL_NV_MEM_BUSY;
    }
    if (n->f.memory(n->dev[i], &m) == 0) {
        out->v[PL_NV_MEM_TOTAL] = m.total;
        out->v[PL_NV_MEM_USED] = m.used;
        out->have |= 1u << PL_NV_MEM_TOTAL | 1u << PL_NV_MEM_USED;
    }
    if (n->f.power(n->dev[i], &mw) == 0) {
        out->v[PL_NV_POWER_MW] = mw;
        out->have |= 1u << PL_NV_POWER_MW;
    }
    if (n->f.temp(n->dev[i], NV_TEMPERATURE_GPU, &c) == 0) {
        out->v[PL_NV_TEMP_C] = c;
        out->have |= 1u << PL_NV_TEMP_C;
    }
    return 0;
}

int pl_nvml_name(pl_nvml *n, unsigned i, char *buf, size_t size)
{
    char name[NV_NAME_SIZE];
    if (!n || i >= n->n || !n->dev[i] || n->f.name(n->dev[i], name, sizeof name) != 0)
        return ENODEV;
    name[sizeof name - 1] = '\0';
    pl_fact_escape(name, buf, size);
    return 0;
}

