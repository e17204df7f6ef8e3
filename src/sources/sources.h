/* The kernel sources (pl_ksrc.h): one module per kernel file or file family
 * in this directory, each a pure parser of the file's bytes into a typed
 * struct and its pl_ksrc_def.  Providers read them through the machine's
 * readers (pl_ksrc_attach, pl_ksrc_get). */
#ifndef PL_SOURCES_H
#define PL_SOURCES_H

#include "pl_ksrc.h"

/* Every source definition, NULL-terminated (all.c). */
extern const pl_ksrc_def *const pl_ksrc_all[];

#endif
