/* perflib's extensions PerflibQueryCounterUnits (perflib_v2.h, by
 * counterset GUID and counter id) and PerflibQueryCounterUnitsByIndex
 * (perflib_v1.h, by a V1 block's CounterNameTitleIndex): a counter's units
 * and semantics (src/core/units.c) and its metric name, for C programs,
 * under the C APIs' one lock. */
#include "perflib_v1.h"
#include "perflib_v2.h"
#include "perflib.h"
#include "pl_capi.h"
#include "pl_le.h"

#include <stdio.h>
#include <string.h>

#define API __attribute__((visibility("default")))

static void fill(PPERFLIB_COUNTER_UNITS u, const pl_counterset_def *cs, const pl_counter_def *c)
{
    pl_units x;
    pl_metric m;
    pl_counter_units(c, &x);
    memset(u, 0, sizeof *u);
    u->CounterId = c->id;
    u->Unit = (ULONG)x.kind;
    u->Semantics = (ULONG)x.semantics;
    u->Declared = (ULONG)x.declared;
    u->Scale = x.scale;
    u->FormattedUnit = (ULONG)x.fkind;
    u->FormattedPer = (ULONG)x.fper;
    u->FormattedScale = x.fscale;
    snprintf(u->UnitName, sizeof u->UnitName, "%s", pl_unit_name(x.kind));
    snprintf(u->SemanticsName, sizeof u->SemanticsName, "%s", pl_semantics_name(x.semantics));
    pl_units_format(&x, u->FormattedText, sizeof u->FormattedText);
    /* a name cut at 255 bytes stays a valid, if shortened, name */
    pl_metric_name(cs, c, u->MetricName, sizeof u->MetricName, &m);
    snprintf(u->MetricType, sizeof u->MetricType, "%s", m.type);
    u->MetricFactor = m.factor;
}

API ULONG PerflibQueryCounterUnits(LPCWSTR szMachine, LPCGUID pCounterSetId, ULONG CounterId,
                                   PPERFLIB_COUNTER_UNITS pUnits)
{
    ULONG err = ERROR_SUCCESS;
    pl_guid g;
    if (!pCounterSetId || !pUnits)
        return ERROR_INVALID_PARAMETER;
    pl_capi_lock();
    pl_env *env = pl_capi_machine(szMachine, &err);
    if (env) {
        pl_guid_get(pCounterSetId, &g);
        const pl_counterset_def *cs = pl_env_find_guid(env, &g);
        int i = cs ? pl_counter_index(cs, CounterId) : -1;
        if (!cs)
            err = ERROR_WMI_GUID_NOT_FOUND;
        else if (i < 0)
            err = ERROR_WMI_ITEMID_NOT_FOUND;
        else
            fill(pUnits, cs, &cs->counters[i]);
        pl_env_unref(env);
    }
    pl_capi_unlock();
    return err;
}

API ULONG PerflibQueryCounterUnitsByIndex(LPCWSTR szMachine, DWORD CounterNameTitleIndex,
                                         PPERFLIB_COUNTER_UNITS pUnits)
{
    ULONG err = ERROR_SUCCESS;
    if (!pUnits)
        return ERROR_INVALID_PARAMETER;
    pl_capi_lock();
    pl_env *env = pl_capi_machine(szMachine, &err);
    if (env) {
        const pl_counterset_def *cs;
        const pl_counter_def *c;
        int help;
        /* a counterset's index, a help index or an unknown one names no counter */
        if (pl_env_lookup_index(env, CounterNameTitleIndex, &cs, &c, &help) != 0 || !c || help)
            err = ERROR_FILE_NOT_FOUND;
        else
            fill(pUnits, cs, c);
        pl_env_unref(env);
    }
    pl_capi_unlock();
    return err;
}
