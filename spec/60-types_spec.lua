-- The golden table: hand-computed vectors for every PerfLib counter type of
-- the reference table (windows-perf-model.md 1.3), through perflib.calculate.
-- PDH convention: newer sample first, older second.  Raw values are integers
-- or { value =, base =, time =, multi =, size = }; `base` and `time` both fill
-- the second raw field.  Unless opts.freq says otherwise, F = 10^7 ticks/s.
local perflib = require "perflib"
local C = require "spec.support.compat"

local calc = perflib.calculate

-- Every type of the table with its exact winperf.h value and whether it needs
-- two samples (PERF_DELTA_COUNTER, plus AVERAGE_TIMER / AVERAGE_BULK).
local TYPES = {
  { "PERF_COUNTER_COUNTER", 0x10410400, true },
  { "PERF_COUNTER_BULK_COUNT", 0x10410500, true },
  { "PERF_SAMPLE_COUNTER", 0x00410400, true },
  { "PERF_COUNTER_QUEUELEN_TYPE", 0x00450400, true },
  { "PERF_COUNTER_LARGE_QUEUELEN_TYPE", 0x00450500, true },
  { "PERF_COUNTER_100NS_QUEUELEN_TYPE", 0x00550500, true },
  { "PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE", 0x00650500, true },
  { "PERF_COUNTER_TIMER", 0x20410500, true },
  { "PERF_COUNTER_TIMER_INV", 0x21410500, true },
  { "PERF_100NSEC_TIMER", 0x20510500, true },
  { "PERF_100NSEC_TIMER_INV", 0x21510500, true },
  { "PERF_OBJ_TIME_TIMER", 0x20610500, true },
  { "PERF_COUNTER_MULTI_TIMER", 0x22410500, true },
  { "PERF_COUNTER_MULTI_TIMER_INV", 0x23410500, true },
  { "PERF_100NSEC_MULTI_TIMER", 0x22510500, true },
  { "PERF_100NSEC_MULTI_TIMER_INV", 0x23510500, true },
  { "PERF_COUNTER_MULTI_BASE", 0x42030500, false },
  { "PERF_SAMPLE_FRACTION", 0x20C20400, true },
  { "PERF_SAMPLE_BASE", 0x40030401, false },
  { "PERF_RAW_FRACTION", 0x20020400, false },
  { "PERF_LARGE_RAW_FRACTION", 0x20020500, false },
  { "PERF_RAW_BASE", 0x40030403, false },
  { "PERF_LARGE_RAW_BASE", 0x40030500, false },
  { "PERF_AVERAGE_TIMER", 0x30020400, true },
  { "PERF_AVERAGE_BULK", 0x40020500, true },
  { "PERF_AVERAGE_BASE", 0x40030402, false },
  { "PERF_PRECISION_SYSTEM_TIMER", 0x20470500, true },
  { "PERF_PRECISION_100NS_TIMER", 0x20570500, true },
  { "PERF_PRECISION_OBJECT_TIMER", 0x20670500, true },
  { "PERF_PRECISION_TIMESTAMP", 0x40030500, false },
  { "PERF_ELAPSED_TIME", 0x30240500, false },
  { "PERF_COUNTER_DELTA", 0x00400400, true },
  { "PERF_COUNTER_LARGE_DELTA", 0x00400500, true },
  { "PERF_COUNTER_RAWCOUNT", 0x00010000, false },
  { "PERF_COUNTER_LARGE_RAWCOUNT", 0x00010100, false },
  { "PERF_COUNTER_RAWCOUNT_HEX", 0x00000000, false },
  { "PERF_COUNTER_LARGE_RAWCOUNT_HEX", 0x00000100, false },
  { "PERF_COUNTER_TEXT", 0x00000B00, false },
  { "PERF_COUNTER_NODATA", 0x40000200, false },
  { "PERF_COUNTER_HISTOGRAM_TYPE", 0x80000000, false },
  { "PERF_DOUBLE_RAW", 0x00012000, false },
}

-- The integer whose 8 bytes are the IEEE double d (PERF_DOUBLE_RAW data).
local function bits(d)
  if string.pack then return (string.unpack("<i8", string.pack("<d", d))) end
  -- before 5.3: the same 8 bytes as an int64 in the form raw values take there, a
  -- decimal string beyond 2^53 (lcompat.h); 0/0 is 0xFFF8000000000000 on x86-64
  if d ~= d then return -2251799813685248 end
  return ({ [2.5] = "4612811918334230528", [-0.125] = "-4629700416936869888", [math.huge] = "9218868437227405312",
            [0] = 0, [1e300] = "9094988921128908188" })[d]
end

local U = "unsupported_type"

-- golden[type] = rows { n1 = newer, n0 = older (nil: one sample), opts =, want = }:
-- want is a number (status "valid", a float) or the expected status (value nil).
local golden = {
  -- ---- rates: ΔN / (ΔT / F) ----
  PERF_COUNTER_COUNTER = {
    -- (1500-1000) / ((25e6-5e6)/1e7 s) = 500 / 2 s = 250/s
    { n1 = { value = 1500, time = 25000000 }, n0 = { value = 1000, time = 5000000 }, want = 250 },
    -- F = 1e9: (4000-1000) / ((3e9-1e9)/1e9 s) = 3000 / 2 s = 1500/s
    { n1 = { value = 4000, time = 3000000000 }, n0 = { value = 1000, time = 1000000000 },
      opts = { freq = 1000000000 }, want = 1500 },
    -- 32-bit data wraps: 4294967290 -> 5 is (2^32 - 4294967290) + 5 = 11, over 1e7/1e7 = 1 s: 11/s
    { n1 = { value = 5, time = 10000000, size = 4 }, n0 = { value = 4294967290, time = 0, size = 4 }, want = 11 },
    -- the same fall in 64-bit data is a reset, not a spike
    { n1 = { value = 5, time = 10000000 }, n0 = { value = 4294967290, time = 0 }, want = "negative_delta" },
  },
  PERF_COUNTER_BULK_COUNT = {
    -- (2497631-2472631) / ((25e6-0)/1e7 s) = 25000 / 2.5 s = 10000/s
    { n1 = { value = 2497631, time = 25000000 }, n0 = { value = 2472631, time = 0 }, want = 10000 },
    -- beyond 32 bits: (2^40+3e6 - 2^40) / (3e7/1e7 s) = 3e6 / 3 s = 1e6/s
    { n1 = { value = 1099514627776, time = 30000000 }, n0 = { value = 1099511627776, time = 0 }, want = 1000000 },
    -- 4 < 5 in 64-bit data: reset
    { n1 = { value = 4, time = 10 }, n0 = { value = 5, time = 0 }, want = "negative_delta" },
    -- T1 = T0 = 0: no time passed
    { n1 = { value = 6, time = 0 }, n0 = { value = 5, time = 0 }, want = "zero_interval" },
    -- T1 = 0 < T0 = 9: time went backwards
    { n1 = { value = 6, time = 0 }, n0 = { value = 5, time = 9 }, want = "negative_interval" },
  },
  PERF_SAMPLE_COUNTER = {
    -- (130-100) / ((3e7-0)/1e7 s) = 30 / 3 s = 10
    { n1 = { value = 130, time = 30000000 }, n0 = { value = 100, time = 0 }, want = 10 },
    -- 32-bit wrap: 4294967295 -> 9 is 1 + 9 = 10, over 2e7/1e7 = 2 s: 5
    { n1 = { value = 9, time = 20000000, size = 4 }, n0 = { value = 4294967295, time = 0, size = 4 }, want = 5 },
  },
  -- ---- queue lengths: ΔN / ΔT, no frequency ----
  PERF_COUNTER_QUEUELEN_TYPE = {
    -- (600-200) / (400-200) = 400 / 200 = 2
    { n1 = { value = 600, time = 400 }, n0 = { value = 200, time = 200 }, want = 2 },
    -- F plays no part: still 400 / 200 = 2 at freq 1000
    { n1 = { value = 600, time = 400 }, n0 = { value = 200, time = 200 }, opts = { freq = 1000 }, want = 2 },
    -- 32-bit wrap: 4294967286 -> 10 is 10 + 10 = 20, over 20 - 0 = 20: 1
    { n1 = { value = 10, time = 20, size = 4 }, n0 = { value = 4294967286, time = 0, size = 4 }, want = 1 },
  },
  PERF_COUNTER_LARGE_QUEUELEN_TYPE = {
    -- (7500-0) / (3000-0) = 2.5
    { n1 = { value = 7500, time = 3000 }, n0 = { value = 0, time = 0 }, want = 2.5 },
    -- 0 < 7500 in 64-bit data: reset
    { n1 = { value = 0, time = 3000 }, n0 = { value = 7500, time = 0 }, want = "negative_delta" },
  },
  PERF_COUNTER_100NS_QUEUELEN_TYPE = {
    -- (35e6-5e6) / (2e7-1e7) = 3e7 / 1e7 = 3
    { n1 = { value = 35000000, time = 20000000 }, n0 = { value = 5000000, time = 10000000 }, want = 3 },
    -- T1 = T0 = 1e7
    { n1 = { value = 35000000, time = 10000000 }, n0 = { value = 5000000, time = 10000000 }, want = "zero_interval" },
  },
  PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE = {
    -- (1250-250) / (1500-1000) = 1000 / 500 = 2
    { n1 = { value = 1250, time = 1500 }, n0 = { value = 250, time = 1000 }, want = 2 },
    -- the object clock's frequency plays no part: 2 at freq 1000
    { n1 = { value = 1250, time = 1500 }, n0 = { value = 250, time = 1000 }, opts = { freq = 1000 }, want = 2 },
  },
  -- ---- % of elapsed time: 100·ΔN/ΔT; _INV 100·(1 − ΔN/ΔT) ----
  PERF_COUNTER_TIMER = {
    -- 100 * (3e6-0) / (1e7-0) = 30 %
    { n1 = { value = 3000000, time = 10000000 }, n0 = { value = 0, time = 0 }, want = 30 },
    -- F plays no part: 30 % at freq 1e9
    { n1 = { value = 3000000, time = 10000000 }, n0 = { value = 0, time = 0 },
      opts = { freq = 1000000000 }, want = 30 },
    -- 100 * 2e7 / 1e7 = 200 %, capped at 100
    { n1 = { value = 20000000, time = 10000000 }, n0 = { value = 0, time = 0 }, want = 100 },
    -- ... and 200 % with nocap
    { n1 = { value = 20000000, time = 10000000 }, n0 = { value = 0, time = 0 }, opts = { nocap = true }, want = 200 },
  },
  PERF_COUNTER_TIMER_INV = {
    -- 100 * (1 - 3e6/1e7) = 100 * 0.7 = 70 %
    { n1 = { value = 3000000, time = 10000000 }, n0 = { value = 0, time = 0 }, want = 70 },
    -- 100 * (1 - 1.2e7/1e7) = -20 %, capped at 0
    { n1 = { value = 12000000, time = 10000000 }, n0 = { value = 0, time = 0 }, want = 0 },
    -- ... and -20 % with nocap
    { n1 = { value = 12000000, time = 10000000 }, n0 = { value = 0, time = 0 }, opts = { nocap = true }, want = -20 },
  },
  PERF_100NSEC_TIMER = {
    -- 100 * (7.5e6-5e6) / (3e7-1e7) = 100 * 2.5e6 / 2e7 = 12.5 %
    { n1 = { value = 7500000, time = 30000000 }, n0 = { value = 5000000, time = 10000000 }, want = 12.5 },
    -- 100 * 15 / 10 = 150 %, capped at 100
    { n1 = { value = 15, time = 10 }, n0 = { value = 0, time = 0 }, want = 100 },
    -- ... and 150 % with nocap
    { n1 = { value = 15, time = 10 }, n0 = { value = 0, time = 0 }, opts = { nocap = true }, want = 150 },
  },
  PERF_100NSEC_TIMER_INV = {
    -- 100 * (1 - (7.5e6-5e6)/(3e7-1e7)) = 100 * (1 - 0.125) = 87.5 %
    { n1 = { value = 7500000, time = 30000000 }, n0 = { value = 5000000, time = 10000000 }, want = 87.5 },
  },
  PERF_OBJ_TIME_TIMER = {
    -- 100 * (450-200) / (1500-1000) = 100 * 250 / 500 = 50 %
    { n1 = { value = 450, time = 1500 }, n0 = { value = 200, time = 1000 }, want = 50 },
    -- the object clock's frequency plays no part: 50 % at freq 1000
    { n1 = { value = 450, time = 1500 }, n0 = { value = 200, time = 1000 }, opts = { freq = 1000 }, want = 50 },
  },
  -- ---- multi timers: 100·(ΔN/ΔT)/M; _INV 100·(M − ΔN/ΔT); M = multi of the newer ----
  PERF_COUNTER_MULTI_TIMER = {
    -- 100 * (3e7/1e7) / 4 = 300 / 4 = 75 %
    { n1 = { value = 30000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 4 }, want = 75 },
    -- M is the newer's: 100 * (3e7/1e7) / 4 = 75 % although the older says 2
    { n1 = { value = 30000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 2 }, want = 75 },
    -- 100 * (6e7/1e7) / 4 = 150 %, capped at 100
    { n1 = { value = 60000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 4 }, want = 100 },
    -- ... and 150 % with nocap
    { n1 = { value = 60000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 4 },
      opts = { nocap = true }, want = 150 },
    -- M = 0: nothing to divide by
    { n1 = { value = 30000000, time = 10000000, multi = 0 }, n0 = { value = 0, time = 0 }, want = "zero_base" },
  },
  PERF_COUNTER_MULTI_TIMER_INV = {
    -- 100 * (2 - 1.7e7/1e7) = 100 * 0.3 = 30 %
    { n1 = { value = 17000000, time = 10000000, multi = 2 }, n0 = { value = 0, time = 0, multi = 2 }, want = 30 },
    -- 100 * (4 - 1.5e7/1e7) = 250 %, capped at 100
    { n1 = { value = 15000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 4 }, want = 100 },
    -- ... and 250 % with nocap (winperf.h's un-normalised form)
    { n1 = { value = 15000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 4 },
      opts = { nocap = true }, want = 250 },
    -- M = 0
    { n1 = { value = 15000000, time = 10000000, multi = 0 }, n0 = { value = 0, time = 0 }, want = "zero_base" },
  },
  PERF_100NSEC_MULTI_TIMER = {
    -- 100 * ((1.2e7-0)/(2e7-1e7)) / 2 = 100 * 1.2 / 2 = 60 %
    { n1 = { value = 12000000, time = 20000000, multi = 2 }, n0 = { value = 0, time = 10000000, multi = 2 },
      want = 60 },
    -- M = 0
    { n1 = { value = 12000000, time = 20000000, multi = 0 }, n0 = { value = 0, time = 10000000 }, want = "zero_base" },
  },
  PERF_100NSEC_MULTI_TIMER_INV = {
    -- 100 * (4 - 3.5e7/1e7) = 100 * 0.5 = 50 %
    { n1 = { value = 35000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 4 }, want = 50 },
    -- nocap: 100 * (4 - 1e7/1e7) = 300 %
    { n1 = { value = 10000000, time = 10000000, multi = 4 }, n0 = { value = 0, time = 0, multi = 4 },
      opts = { nocap = true }, want = 300 },
    -- M = 0
    { n1 = { value = 10000000, time = 10000000, multi = 0 }, n0 = { value = 0, time = 0 }, want = "zero_base" },
  },
  PERF_COUNTER_MULTI_BASE = {
    -- a base (instance count): no number, with one sample or two
    { n1 = 4, want = U },
    { n1 = 4, n0 = 4, want = U },
  },
  -- ---- fractions ----
  PERF_SAMPLE_FRACTION = {
    -- 100 * (130-100) / (540-500) = 100 * 30 / 40 = 75 %
    { n1 = { value = 130, base = 540 }, n0 = { value = 100, base = 500 }, want = 75 },
    -- 32-bit base wraps: 4294967291 -> 10 is 5 + 10 = 15; 100 * (20-10) / 15 = 66.67 %
    { n1 = { value = 20, base = 10, size = 4 }, n0 = { value = 10, base = 4294967291, size = 4 }, want = 200 / 3 },
    -- 100 * (150-100) / (540-500) = 125 %, capped at 100
    { n1 = { value = 150, base = 540 }, n0 = { value = 100, base = 500 }, want = 100 },
    -- ... and 125 % with nocap
    { n1 = { value = 150, base = 540 }, n0 = { value = 100, base = 500 }, opts = { nocap = true }, want = 125 },
    -- ΔB = 500 - 500 = 0
    { n1 = { value = 130, base = 500 }, n0 = { value = 100, base = 500 }, want = "zero_base" },
  },
  PERF_SAMPLE_BASE = {
    { n1 = 40, want = U },
    { n1 = 40, n0 = 30, want = U },
  },
  PERF_RAW_FRACTION = {
    -- 100 * 3 / 8 = 37.5 %
    { n1 = { value = 3, base = 8 }, want = 37.5 },
    -- one sample: the older plays no part, still 100 * 3 / 8
    { n1 = { value = 3, base = 8 }, n0 = { value = 1, base = 2 }, want = 37.5 },
    -- B = 0
    { n1 = { value = 3, base = 0 }, want = "zero_base" },
  },
  PERF_LARGE_RAW_FRACTION = {
    -- 100 * 2^33 / 2^35 = 25 %
    { n1 = { value = 8589934592, base = 34359738368 }, want = 25 },          -- 2^33, 2^35
    -- 100 * 677 / 2466177 = 0.027451...%
    { n1 = { value = 677, base = 2466177 }, want = 100 * 677 / 2466177 },
    -- B = 0
    { n1 = { value = 677, base = 0 }, want = "zero_base" },
  },
  PERF_RAW_BASE = {
    { n1 = 8, want = U },
  },
  PERF_LARGE_RAW_BASE = {
    { n1 = 34359738368, want = U },                                        -- 2^35
  },
  -- ---- averages per operation: two samples ----
  PERF_AVERAGE_TIMER = {
    -- ((2e5-0)/1e7 s) / (14-10) = 0.02 s / 4 = 0.005 s
    { n1 = { value = 200000, base = 14 }, n0 = { value = 0, base = 10 }, want = 0.005 },
    -- F = 1e9: ((3e9-0)/1e9 s) / (16-10) = 3 s / 6 = 0.5 s
    { n1 = { value = 3000000000, base = 16 }, n0 = { value = 0, base = 10 }, opts = { freq = 1000000000 }, want = 0.5 },
    -- ΔB = 10 - 10 = 0
    { n1 = { value = 200000, base = 10 }, n0 = { value = 0, base = 10 }, want = "zero_base" },
    -- no older sample
    { n1 = { value = 200000, base = 14 }, want = "first_sample" },
  },
  PERF_AVERAGE_BULK = {
    -- (4096-0) / (14-10) = 1024
    { n1 = { value = 4096, base = 14 }, n0 = { value = 0, base = 10 }, want = 1024 },
    -- ΔB = 0
    { n1 = { value = 4096, base = 10 }, n0 = { value = 0, base = 10 }, want = "zero_base" },
    -- no older sample
    { n1 = { value = 4096, base = 14 }, want = "first_sample" },
  },
  PERF_AVERAGE_BASE = {
    { n1 = 14, want = U },
    { n1 = 14, n0 = 10, want = U },
  },
  -- ---- % against a private clock carried in the base: 100·ΔN/ΔB ----
  PERF_PRECISION_SYSTEM_TIMER = {
    -- 100 * (600-100) / (2000-1000) = 50 %
    { n1 = { value = 600, base = 2000 }, n0 = { value = 100, base = 1000 }, want = 50 },
    -- F plays no part: 50 % at freq 1e9
    { n1 = { value = 600, base = 2000 }, n0 = { value = 100, base = 1000 }, opts = { freq = 1000000000 }, want = 50 },
    -- ΔB = 1000 - 1000 = 0: the private clock did not move
    { n1 = { value = 600, base = 1000 }, n0 = { value = 100, base = 1000 }, want = "zero_interval" },
    -- ΔB = 900 - 1000 < 0: the private clock went backwards
    { n1 = { value = 600, base = 900 }, n0 = { value = 100, base = 1000 }, want = "negative_interval" },
  },
  PERF_PRECISION_100NS_TIMER = {
    -- 100 * (4.8e7-0) / (1e8-0) = 48 %
    { n1 = { value = 48000000, base = 100000000 }, n0 = { value = 0, base = 0 }, want = 48 },
    -- `time` fills the same field as `base`: 48 %
    { n1 = { value = 48000000, time = 100000000 }, n0 = { value = 0, time = 0 }, want = 48 },
  },
  PERF_PRECISION_OBJECT_TIMER = {
    -- 100 * (1300-1000) / (5000-4000) = 30 %
    { n1 = { value = 1300, base = 5000 }, n0 = { value = 1000, base = 4000 }, want = 30 },
  },
  PERF_PRECISION_TIMESTAMP = {
    -- same value as PERF_LARGE_RAW_BASE
    { n1 = 5000, want = U },
  },
  -- ---- one-sample values ----
  PERF_ELAPSED_TIME = {
    -- (T - N) / F = (6.5e8 - 5e7) / 1e7 = 60 s
    { n1 = { value = 50000000, time = 650000000 }, want = 60 },
    -- F = 1000: (91000 - 1000) / 1000 = 90 s
    { n1 = { value = 1000, time = 91000 }, opts = { freq = 1000 }, want = 90 },
    -- object time given as base; the older plays no part: (6.5e8 - 5e7) / 1e7 = 60 s
    { n1 = { value = 50000000, base = 650000000 }, n0 = { value = 0, base = 1 }, want = 60 },
  },
  PERF_COUNTER_DELTA = {
    -- 1050 - 1000 = 50
    { n1 = 1050, n0 = 1000, want = 50 },
    -- 32-bit wrap: 4294967290 -> 5 is 6 + 5 = 11
    { n1 = { value = 5, size = 4 }, n0 = { value = 4294967290, size = 4 }, want = 11 },
    -- no older sample
    { n1 = 1050, want = "first_sample" },
  },
  PERF_COUNTER_LARGE_DELTA = {
    -- (2^40 + 5) - 2^40 = 5
    { n1 = 1099511627781, n0 = 1099511627776, want = 5 },
    -- 2^40 < 2^40 + 5: reset
    { n1 = 1099511627776, n0 = 1099511627781, want = "negative_delta" },
  },
  PERF_COUNTER_RAWCOUNT = {
    -- N = 42
    { n1 = 42, want = 42 },
    -- one sample: the older plays no part
    { n1 = { value = 42, size = 4 }, n0 = { value = 99, size = 4 }, want = 42 },
  },
  PERF_COUNTER_LARGE_RAWCOUNT = {
    -- N = 25178882048 (beyond 32 bits)
    { n1 = 25178882048, want = 25178882048 },
  },
  PERF_COUNTER_RAWCOUNT_HEX = {
    -- hex is a display choice: 0xBEEF = 48879
    { n1 = 0xBEEF, want = 48879 },
  },
  PERF_COUNTER_LARGE_RAWCOUNT_HEX = {
    -- 0x123456789A = 78187493530
    { n1 = 0x123456789A, want = 78187493530 },
  },
  PERF_COUNTER_TEXT = {
    { n1 = 0x41, want = U },
  },
  PERF_COUNTER_NODATA = {
    { n1 = 0, want = U },
  },
  PERF_COUNTER_HISTOGRAM_TYPE = {
    { n1 = 7, want = U },
    { n1 = 7, n0 = 3, want = U },
  },
  PERF_DOUBLE_RAW = {
    -- the 8 bytes of the double 2.5 (0x4004000000000000) = 2.5
    { n1 = bits(2.5), want = 2.5 },
    -- the bits of -0.125 (a negative integer in Lua) = -0.125
    { n1 = bits(-0.125), want = -0.125 },
    -- a NaN or an infinity is no value
    { n1 = bits(0 / 0), want = "invalid_data" },
    { n1 = bits(math.huge), want = "invalid_data" },
  },
}

-- Checks one outcome against want: a number (valid float) or a status.
local function expect(want, v, st, what)
  if type(want) == "number" then
    assert.equals("valid", st, what)
    if C.integers then assert.equals("float", C.math_type(v), what) end
    assert.near(want, v, 1e-12 * math.max(1, math.abs(want)), what)
  else
    assert.is_nil(v, what)
    assert.equals(want, st, what)
  end
end

describe("perflib.types", function()
  it("holds the exact winperf.h value of all 41 types", function()
    assert.equals(41, #TYPES)
    for _, t in ipairs(TYPES) do
      assert.equals(t[2], perflib.types[t[1]], t[1])
      assert.equals("integer", C.math_type(perflib.types[t[1]]), t[1])
    end
    -- PERF_PRECISION_TIMESTAMP is defined as PERF_LARGE_RAW_BASE
    assert.equals(perflib.types.PERF_LARGE_RAW_BASE, perflib.types.PERF_PRECISION_TIMESTAMP)
  end)

  it("holds no other names", function()
    local known = {}
    for _, t in ipairs(TYPES) do known[t[1]] = true end
    for name in pairs(perflib.types) do
      assert.is_true(known[name], name)
    end
  end)
end)

describe("golden table", function()
  it("has at least one vector for every type", function()
    for _, t in ipairs(TYPES) do
      assert.is_table(golden[t[1]], t[1])
      assert.is_true(#golden[t[1]] >= 1, t[1])
    end
    for name in pairs(golden) do
      assert.is_number(perflib.types[name], name)
    end
  end)

  for _, t in ipairs(TYPES) do
    local name = t[1]
    describe(name, function()
      for i, row in ipairs(golden[name] or {}) do
        it("vector " .. i .. " by name and by value", function()
          local what = name .. " vector " .. i
          local v, st = calc(name, row.n1, row.n0, row.opts)
          expect(row.want, v, st, what)
          v, st = calc(t[2], row.n1, row.n0, row.opts)
          expect(row.want, v, st, what .. " (by value)")
        end)
      end
    end)
  end

  it("answers first_sample for every two-sample type given one sample", function()
    for _, t in ipairs(TYPES) do
      local v, st = calc(t[1], { value = 10, base = 20, multi = 1 })
      if t[3] then
        assert.is_nil(v, t[1])
        assert.equals("first_sample", st, t[1])
      else
        assert.are_not.equal("first_sample", st, t[1])
      end
    end
  end)
end)

describe("perflib.calculate edge vectors", function()
  local B, RAW, LRAW = "PERF_COUNTER_BULK_COUNT", "PERF_COUNTER_RAWCOUNT", "PERF_COUNTER_LARGE_RAWCOUNT"
  local n1, n0 = { value = 2497631, time = 25000000 }, { value = 2472631, time = 0 }

  it("first sample: a two-sample type without older", function()
    expect("first_sample", calc(B, n1))
    expect("first_sample", calc("PERF_COUNTER_TIMER", { value = 1, time = 1 }))
  end)

  it("32-bit wrap with size 4, a reset with size 8", function()
    -- 4294967290 -> 5 is +11 over 1 s
    expect(11, calc("PERF_COUNTER_COUNTER", { value = 5, time = 10000000, size = 4 },
      { value = 4294967290, time = 0, size = 4 }))
    expect("negative_delta", calc("PERF_COUNTER_COUNTER", { value = 5, time = 10000000 },
      { value = 4294967290, time = 0 }))
    expect("negative_delta", calc(B, { value = 5, time = 10000000 }, { value = 4294967290, time = 0 }))
    -- older given first by mistake: the fall shows
    expect("negative_delta", calc(B, n0, n1))
  end)

  it("zero and negative intervals", function()
    expect("zero_interval", calc(B, { value = 6, time = 7 }, { value = 5, time = 7 }))
    expect("negative_interval", calc(B, { value = 6, time = 7 }, { value = 5, time = 8 }))
    expect("zero_interval", calc("PERF_100NSEC_TIMER", { value = 6, time = 7 }, { value = 5, time = 7 }))
    expect("negative_interval", calc("PERF_COUNTER_QUEUELEN_TYPE", { value = 6, time = 7 }, { value = 5, time = 8 }))
  end)

  it("zero base for fractions, averages and sample fractions", function()
    expect("zero_base", calc("PERF_RAW_FRACTION", { value = 1, base = 0 }))
    expect("zero_base", calc("PERF_LARGE_RAW_FRACTION", { value = 1, base = 0 }))
    expect("zero_base", calc("PERF_SAMPLE_FRACTION", { value = 2, base = 5 }, { value = 1, base = 5 }))
    expect("zero_base", calc("PERF_AVERAGE_TIMER", { value = 2, base = 5 }, { value = 1, base = 5 }))
    expect("zero_base", calc("PERF_AVERAGE_BULK", { value = 2, base = 5 }, { value = 1, base = 5 }))
  end)

  it("multi timers with multi = 0", function()
    for _, name in ipairs { "PERF_COUNTER_MULTI_TIMER", "PERF_COUNTER_MULTI_TIMER_INV",
                            "PERF_100NSEC_MULTI_TIMER", "PERF_100NSEC_MULTI_TIMER_INV" } do
      expect("zero_base", calc(name, { value = 5, time = 10, multi = 0 }, { value = 0, time = 0, multi = 0 }))
    end
  end)

  it("caps percentages at 100 and 0 unless nocap", function()
    local over1, over0 = { value = 15, time = 10 }, { value = 0, time = 0 }
    expect(100, calc("PERF_100NSEC_TIMER", over1, over0))                     -- 150 % -> 100
    expect(150, calc("PERF_100NSEC_TIMER", over1, over0, { nocap = true }))   -- 100 * 15 / 10
    expect(0, calc("PERF_100NSEC_TIMER_INV", over1, over0))                   -- -50 % -> 0
    expect(-50, calc("PERF_100NSEC_TIMER_INV", over1, over0, { nocap = true })) -- 100 * (1 - 1.5)
    -- a rate is no percentage: 15 / (10 / 1e7 s) = 1.5e7/s, not capped
    expect(15000000, calc(B, over1, over0))
  end)

  it("x1000, scale and noscale", function()
    expect(38000, calc(LRAW, 38, nil, { x1000 = true }))                      -- 38 * 1000
    expect(0.38, calc(LRAW, 38, nil, { scale = -2 }))                         -- 38 * 10^-2
    expect(38000, calc(RAW, 38, nil, { scale = 3 }))                          -- 38 * 10^3
    expect(38, calc(RAW, 38, nil, { scale = 3, noscale = true }))             -- scale ignored
    expect(38, calc(LRAW, 38, nil, { scale = -2, noscale = true }))           -- scale ignored
    expect(380, calc(LRAW, 38, nil, { scale = -2, x1000 = true }))            -- 38 * 10^-2 * 1000
    expect(38000, calc(LRAW, 38, nil, { scale = -2, noscale = true, x1000 = true })) -- 38 * 1000
    expect(10000000, calc(B, n1, n0, { scale = 3 }))                          -- 10000/s * 10^3
    expect(100, calc(B, n1, n0, { scale = -2 }))                              -- 10000/s * 10^-2
  end)

  it("formats PERF_NUMBER_DEC_1000 as value / 1000", function()
    -- 0x00020000 = PERF_SIZE_DWORD | PERF_TYPE_NUMBER | PERF_NUMBER_DEC_1000: 5000 / 1000 = 5
    expect(5, calc(0x00020000, 5000))
    -- 1234 / 1000 = 1.234
    expect(1.234, calc(0x00020000, 1234))
    -- 64-bit data, 0x00020100: 2^40 / 1000 = 1099511627.776
    expect(1099511627.776, calc(0x00020100, 1099511627776))                -- 2^40
  end)

  it("formats the hex types to the plain value", function()
    expect(255, calc("PERF_COUNTER_RAWCOUNT_HEX", 0xFF))
    expect(0x7FFFFFFFFF, calc("PERF_COUNTER_LARGE_RAWCOUNT_HEX", 0x7FFFFFFFFF))   -- 549755813887
  end)

  it("reads PERF_DOUBLE_RAW as the bits of a double", function()
    expect(2.5, calc("PERF_DOUBLE_RAW", bits(2.5)))
    expect(2.5, calc("PERF_DOUBLE_RAW", { value = bits(2.5) }))
    expect(0, calc("PERF_DOUBLE_RAW", bits(0.0)))
    expect(1e300, calc("PERF_DOUBLE_RAW", bits(1e300)))
  end)

  it("elapsed time from a start and the object time now", function()
    -- (T - N) / F = (3.6e10 - 0) / 1e7 = 3600 s
    expect(3600, calc("PERF_ELAPSED_TIME", { value = 0, time = 36000000000 }))
    -- (T - N) / F = (5e7 - 5e7) / 1e7 = 0 s
    expect(0, calc("PERF_ELAPSED_TIME", { value = 50000000, time = 50000000 }))
    -- F = 100 (USER_HZ): (12345 - 345) / 100 = 120 s
    expect(120, calc("PERF_ELAPSED_TIME", { value = 345, base = 12345 }, nil, { freq = 100 }))
  end)
end)
