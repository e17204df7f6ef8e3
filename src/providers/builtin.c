/* Registers the built-in countersets with a new environment. */
#include "providers.h"

static const pl_counterset_def *const builtin[] = {
    &pl_processor_def,
    &pl_memory_def,
    &pl_system_def,
};

int pl_register_builtin(pl_env *env)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        int e = pl_env_register(env, builtin[i]);
        if (e)
            return e;
    }
    return 0;
}
