/* Windows performance-counter constants with their exact winperf.h / perflib.h
 * values, so counter types, detail levels and instance types travel unchanged
 * between perflib and Windows tools.  No Lua, no system headers. */
#ifndef PL_WINPERF_H
#define PL_WINPERF_H

/* ---- counter type bit fields (winperf.h) ---- */
#define PERF_SIZE_DWORD          0x00000000u
#define PERF_SIZE_LARGE          0x00000100u
#define PERF_SIZE_ZERO           0x00000200u
#define PERF_SIZE_VARIABLE_LEN   0x00000300u
#define PERF_TYPE_NUMBER         0x00000000u
#define PERF_TYPE_COUNTER        0x00000400u
#define PERF_TYPE_TEXT           0x00000800u
#define PERF_TYPE_ZERO           0x00000C00u
#define PERF_NUMBER_HEX          0x00000000u
#define PERF_NUMBER_DECIMAL      0x00010000u
#define PERF_NUMBER_DEC_1000     0x00020000u
#define PERF_COUNTER_VALUE       0x00000000u
#define PERF_COUNTER_RATE        0x00010000u
#define PERF_COUNTER_FRACTION    0x00020000u
#define PERF_COUNTER_BASE        0x00030000u
#define PERF_COUNTER_ELAPSED     0x00040000u
#define PERF_COUNTER_QUEUELEN    0x00050000u
#define PERF_COUNTER_HISTOGRAM   0x00060000u
#define PERF_COUNTER_PRECISION   0x00070000u
#define PERF_TIMER_TICK          0x00000000u
#define PERF_TIMER_100NS         0x00100000u
#define PERF_OBJECT_TIMER        0x00200000u
#define PERF_DELTA_COUNTER       0x00400000u
#define PERF_DELTA_BASE          0x00800000u
#define PERF_INVERSE_COUNTER     0x01000000u
#define PERF_MULTI_COUNTER       0x02000000u
#define PERF_DISPLAY_NO_SUFFIX   0x00000000u
#define PERF_DISPLAY_PER_SEC     0x10000000u
#define PERF_DISPLAY_PERCENT     0x20000000u
#define PERF_DISPLAY_SECONDS     0x30000000u
#define PERF_DISPLAY_NOSHOW      0x40000000u

/* ---- counter types (winperf.h) ---- */
#define PERF_COUNTER_COUNTER                0x10410400u
#define PERF_COUNTER_BULK_COUNT             0x10410500u
#define PERF_SAMPLE_COUNTER                 0x00410400u
#define PERF_COUNTER_QUEUELEN_TYPE          0x00450400u
#define PERF_COUNTER_LARGE_QUEUELEN_TYPE    0x00450500u
#define PERF_COUNTER_100NS_QUEUELEN_TYPE    0x00550500u
#define PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE 0x00650500u
#define PERF_COUNTER_TIMER                  0x20410500u
#define PERF_COUNTER_TIMER_INV              0x21410500u
#define PERF_100NSEC_TIMER                  0x20510500u
#define PERF_100NSEC_TIMER_INV              0x21510500u
#define PERF_OBJ_TIME_TIMER                 0x20610500u
#define PERF_COUNTER_MULTI_TIMER            0x22410500u
#define PERF_COUNTER_MULTI_TIMER_INV        0x23410500u
#define PERF_100NSEC_MULTI_TIMER            0x22510500u
#define PERF_100NSEC_MULTI_TIMER_INV        0x23510500u
#define PERF_COUNTER_MULTI_BASE             0x42030500u
#define PERF_SAMPLE_FRACTION                0x20C20400u
#define PERF_SAMPLE_BASE                    0x40030401u
#define PERF_RAW_FRACTION                   0x20020400u
#define PERF_LARGE_RAW_FRACTION             0x20020500u
#define PERF_RAW_BASE                       0x40030403u
#define PERF_LARGE_RAW_BASE                 0x40030500u
#define PERF_AVERAGE_TIMER                  0x30020400u
#define PERF_AVERAGE_BULK                   0x40020500u
#define PERF_AVERAGE_BASE                   0x40030402u
#define PERF_PRECISION_SYSTEM_TIMER         0x20470500u
#define PERF_PRECISION_100NS_TIMER          0x20570500u
#define PERF_PRECISION_OBJECT_TIMER         0x20670500u
#define PERF_PRECISION_TIMESTAMP            0x40030500u
#define PERF_ELAPSED_TIME                   0x30240500u
#define PERF_COUNTER_DELTA                  0x00400400u
#define PERF_COUNTER_LARGE_DELTA            0x00400500u
#define PERF_COUNTER_RAWCOUNT               0x00010000u
#define PERF_COUNTER_LARGE_RAWCOUNT         0x00010100u
#define PERF_COUNTER_RAWCOUNT_HEX           0x00000000u
#define PERF_COUNTER_LARGE_RAWCOUNT_HEX     0x00000100u
#define PERF_COUNTER_TEXT                   0x00000B00u
#define PERF_COUNTER_NODATA                 0x40000200u
#define PERF_COUNTER_HISTOGRAM_TYPE         0x80000000u

/* ---- detail levels ---- */
#define PERF_DETAIL_NOVICE   100u
#define PERF_DETAIL_ADVANCED 200u
#define PERF_DETAIL_EXPERT   300u
#define PERF_DETAIL_WIZARD   400u

/* ---- V1 data blocks (PERF_DATA_BLOCK, PERF_OBJECT_TYPE) ---- */
#define PERF_DATA_VERSION 1u
#define PERF_DATA_REVISION 1u
#define PERF_NO_INSTANCES (-1)
#define PERF_METADATA_MULTIPLE_INSTANCES (-2)
#define PERF_METADATA_NO_INSTANCES (-3)
#define PERF_NO_UNIQUE_ID (-1)

/* ---- counterset instance types (perflib.h) ---- */
#define PERF_COUNTERSET_SINGLE_INSTANCE  0u
#define PERF_COUNTERSET_MULTI_INSTANCES  2u

/* ---- V2 query constants ---- */
#define PERF_WILDCARD_COUNTER  0xFFFFFFFFu
#define PERF_WILDCARD_INSTANCE "*"
#define PERF_AGGREGATE_INSTANCE "_Total"
#define PERF_MAX_INSTANCE_NAME 1024u

/* ---- result shapes (PerfCounterDataType) ---- */
#define PERF_ERROR_RETURN        0u
#define PERF_SINGLE_COUNTER      1u
#define PERF_MULTIPLE_COUNTERS   2u
#define PERF_MULTIPLE_INSTANCES  4u
#define PERF_COUNTERSET          6u

#endif
