/* Where the core's own statuses become Windows codes: the one table of each
 * mapping, for the PerfLib C APIs (perfv2.c, perfv1.c, perfunits.c) and the
 * Lua binding's `code` (lquery.c, lserve.c), which promise the Win32 status
 * PerfAddCounters would write.  The core never sees these codes.
 *
 *   pl_add_status (pl_query_add/_add_path/_find)  ->  Win32 ERROR_*
 *   pl_status (a formatted value)                 ->  PDH_CSTATUS_* / PDH_CALC_*
 *   errno (an environment failure)                ->  Win32 ERROR_*
 *
 * Header-only (static inline over static tables) because the Lua module does
 * not link src/capi; spec/c/test_capi_codes.c walks every status of each
 * table.  Not installed. */
#ifndef PL_CODES_H
#define PL_CODES_H

#include "perflib.h"
#include "perflib_v2.h"

#include <errno.h>
#include <stdint.h>

/* PerfAddCounters' and PerfDeleteCounters' Status for each outcome.  Windows
 * has one code for every way a specification is malformed, so a bad
 * instance, a bad path and (PerfDeleteCounters) one not in the query share
 * ERROR_INVALID_PARAMETER. */
static inline uint32_t pl_add_status_win32(pl_add_status st)
{
    static const uint32_t code[PL_ADD_STATUS_COUNT] = {
        [PL_ADD_OK] = ERROR_SUCCESS,
        [PL_ADD_NO_SET] = ERROR_WMI_GUID_NOT_FOUND,
        [PL_ADD_NO_COUNTER] = ERROR_WMI_ITEMID_NOT_FOUND,
        [PL_ADD_BAD_INSTANCE] = ERROR_INVALID_PARAMETER,
        [PL_ADD_DUPLICATE] = ERROR_ALREADY_EXISTS,
        [PL_ADD_BAD_PATH] = ERROR_INVALID_PARAMETER,
        [PL_ADD_NOT_IN_QUERY] = ERROR_INVALID_PARAMETER,
    };
    return (unsigned)st < PL_ADD_STATUS_COUNT ? code[st] : ERROR_INVALID_PARAMETER;
}

/* The PDH status of a formatted value (what PdhGetFormattedCounterValue's
 * CStatus would say), for callers that speak PDH. */
static inline uint32_t pl_status_pdh(pl_status st)
{
    static const uint32_t code[PL_STATUS_COUNT] = {
        [PL_VALID] = 0x00000000u,               /* PDH_CSTATUS_VALID_DATA */
        [PL_FIRST_SAMPLE] = 0xC0000BBAu,        /* PDH_CSTATUS_INVALID_DATA, as PDH on a first collect */
        [PL_NEGATIVE_DELTA] = 0x800007D8u,      /* PDH_CALC_NEGATIVE_VALUE */
        [PL_ZERO_INTERVAL] = 0x800007D6u,       /* PDH_CALC_NEGATIVE_DENOMINATOR */
        [PL_NEGATIVE_INTERVAL] = 0x800007D7u,   /* PDH_CALC_NEGATIVE_TIMEBASE */
        [PL_ZERO_BASE] = 0x800007D6u,           /* PDH_CALC_NEGATIVE_DENOMINATOR */
        [PL_NO_INSTANCE] = 0x800007D1u,         /* PDH_CSTATUS_NO_INSTANCE */
        [PL_NO_DATA] = 0x800007D5u,             /* PDH_NO_DATA */
        [PL_INVALID_DATA] = 0xC0000BBAu,        /* PDH_CSTATUS_INVALID_DATA */
        [PL_UNSUPPORTED_TYPE] = 0xC0000BBEu,    /* PDH_FUNCTION_NOT_FOUND */
        [PL_NO_ACCESS] = 0xC0000BDBu,           /* PDH_ACCESS_DENIED */
    };
    return (unsigned)st < PL_STATUS_COUNT ? code[st] : 0xC0000BBAu;
}

/* The Win32 code of an errno the core returned: the V2 API's answer when
 * opening a machine, enumerating or collecting fails. */
static inline uint32_t pl_errno_win32(int e)
{
    switch (e) {
    case 0: return ERROR_SUCCESS;
    case ENOMEM: return ERROR_OUTOFMEMORY;
    case ENOENT: return ERROR_FILE_NOT_FOUND;
    case EACCES: case EPERM: return ERROR_ACCESS_DENIED;
    default: return ERROR_INVALID_DATA;
    }
}

#endif
