/* The built-in countersets.  Each provider file defines one (or a family)
 * and exports its definition; builtin.c registers them all. */
#ifndef PL_PROVIDERS_H
#define PL_PROVIDERS_H

#include "perflib.h"

/* GUIDs of sets without a Windows GUID are UUIDv5 of the counterset name in
 * the perflib namespace ec781385-21e7-5abd-bfd2-f7949ffaf93e (which is itself
 * UUIDv5(URL, "perflib:counterset")).  They are written out, not computed,
 * so they never change even if a name does. */
extern const pl_counterset_def pl_processor_def;
extern const pl_counterset_def pl_memory_def;
extern const pl_counterset_def pl_system_def;

#endif
