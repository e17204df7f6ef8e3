/* Processor Information's text facts (the info op) and the two numbers read
 * from the same files: whether a CPU is isolated (isolcpus= / nohz_full=),
 * and how many vulnerability files say "Vulnerable".  Both come from boot
 * parameters or the CPU's microcode: read once per query, at its first
 * collect that wants them, then kept (no allocation, no reading after). */
#ifndef PL_CPUFACTS_H
#define PL_CPUFACTS_H

#include "pl_provider.h"

typedef struct pl_cpufacts {
    int loaded;              /* the files below were read */
    char isolated[1024];     /* the CPU lists; "" when empty or not a list */
    char nohz_full[1024];
    int isol_ok;             /* sys/devices/system/cpu/isolated was read */
    uint64_t vulnerable;     /* files of vulnerabilities/ that start with "Vulnerable" */
    int vuln_ok;             /* the directory was there (Linux 4.15+, x86 and arm64) */
} pl_cpufacts;

/* Reads the lists and counts the vulnerabilities, once. */
void pl_cpufacts_load(pl_cpufacts *f, const pl_env *env);
/* 1 when cpu is in the isolated or nohz_full list (call after load;
 * meaningful only when isol_ok). */
int pl_cpufacts_isolated(const pl_cpufacts *f, uint32_t cpu);

/* The facts of one CPU (cpufreq governor, driver, energy preference) and
 * of the machine (_Total: isolated, nohz_full, cpuidle driver and governor,
 * one key per vulnerability file).  Files that are not there are left
 * out; 0 (or what emit stopped with: nonzero). */
int pl_cpufacts_cpu(const pl_env *env, uint32_t cpu, pl_info_fn emit, void *ud);
int pl_cpufacts_total(const pl_env *env, pl_info_fn emit, void *ud);


#endif
