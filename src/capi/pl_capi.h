/* What the C APIs of libperflib share (not installed): the one lock that
 * serializes every call, V1 and V2, and the local machine made under it. */
#ifndef PL_CAPI_H
#define PL_CAPI_H

#include "perflib.h"
#include "perflib_wintypes.h"

void pl_capi_lock(void);
void pl_capi_unlock(void);
/* This machine's environment with the built-in sets registered and synced
 * (a new reference), or NULL with *err; call with the lock held. */
pl_env *pl_capi_local(ULONG *err);
/* The same for szMachine as the V2 functions read it (perfv2.c). */
pl_env *pl_capi_machine(LPCWSTR szMachine, ULONG *err);

#endif
