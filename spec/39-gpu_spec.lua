-- The GPU sets from Lua: GPU Device, GPU Adapter Memory, GPU Engine and GPU
-- Process Memory below spec/fixtures/gpu/basic (made by its make_basic.py;
-- the C tests test_gpu, test_gpu_fdinfo and test_gpu_nvml check every
-- value), formatted with their scales, and on this machine, which has no
-- DRM card and no NVML: zero instances, no error.

local perflib = require "perflib"

local FX = "spec/fixtures/gpu/basic"
local SETS = { "GPU Device", "GPU Adapter Memory", "GPU Engine", "GPU Process Memory" }

local function sample(set, root)
  local q = perflib.query { root = root }
  local idx = assert(q:add("\\" .. set .. "(*)\\*"))
  return assert(q:collect()), idx
end

-- Raw values by instance and counter.
local function raw(s, idx)
  local t = {}
  for inst, v, _, counter in s:raw(idx) do
    t[inst] = t[inst] or {}
    t[inst][counter] = v
  end
  return t
end

describe("GPU countersets", function()
  it("have their title indexes, help texts that name their sources, and costly walks", function()
    local want = { 49000, 50000, 51000, 52000 }
    for i, name in ipairs(SETS) do
      local cs = assert(perflib.counterset(name))
      assert.equal(want[i], cs.index)
      assert.equal("multiple", cs.instance_type)
      assert.equal(i >= 3, cs.costly, name)
      for _, c in ipairs(cs.counters) do
        assert.is_truthy(c.help:find("fdinfo") or c.help:find("device/") or c.help:find("NVML")
          or c.help:find("freq") or c.help:find("_ms") or c.help:find("Usage"), name .. ": " .. c.name)
      end
    end
    assert.equal(-3, perflib.counterset("GPU Device"):counter("Power (mW)").scale)
    assert.equal("PERF_100NSEC_MULTI_TIMER",
      perflib.counterset("GPU Engine"):counter("Utilization Percentage").type_name)
    assert.is_true(perflib.counterset("GPU Engine"):counter("Utilization Percentage Base").hidden)
  end)

  it("read the DRM cards of a fixture tree", function()
    local s, idx = sample("GPU Device", FX)
    local v = raw(s, idx)
    assert.equal(37, v.card0["% GPU Busy"])
    assert.equal(45000000, v.card0["Power (mW)"])          -- uW; scale -3 formats mW
    assert.equal(1825, v.card0["Actual Frequency (MHz)"])
    assert.equal(350, v.card1["Actual Frequency (MHz)"])    -- i915 gt_act_freq_mhz
    assert.equal(1200, v.card2["Actual Frequency (MHz)"])   -- xe freq0/act_freq
    assert.is_nil(v.card3["% GPU Busy"])                    -- virtio_gpu: nothing to read
    -- 45000000 uW at scale -3 formats to 45000 (mW)
    assert.equal(45000, (perflib.calculate("PERF_COUNTER_LARGE_RAWCOUNT",
      { value = v.card0["Power (mW)"] }, nil, { scale = -3 })))
    s, idx = sample("GPU Adapter Memory", FX)
    v = raw(s, idx)
    assert.equal(2147487744 + 33558528, v.card0["Total Committed"])
  end)

  it("read each process's DRM clients from fdinfo", function()
    local s, idx = sample("GPU Engine", FX)
    local v = raw(s, idx)
    -- 9288864723 + 711136277 ns = 100000010 x 100 ns (client 7 once)
    assert.equal(100000010, v.pid_100_card1_render["Running Time"])
    assert.equal(12345678, v.pid_200_card0_gfx["Running Time"])
    assert.is_nil(v.pid_400_card0_render)                   -- no usage stats: no client
    s, idx = sample("GPU Process Memory", FX)
    v = raw(s, idx)
    assert.equal(268435456, v.pid_200_card0["Dedicated Usage"])   -- 262144 KiB
    assert.equal(24117248, v.pid_300_card2["Dedicated Usage"])    -- 23 MiB
  end)

  it("give zero instances and no error on this machine", function()
    for _, name in ipairs(SETS) do
      local s, idx = sample(name)
      local r = assert(s:results()[idx])
      assert.is_nil(r.error, name)
      for _, inst in ipairs(r.instances or {}) do
        assert.is_truthy(inst:match "^card%d+$" or inst:match "^nvidia%d+$"
          or inst:match "^pid_%d+_", name)
      end
    end
  end)
end)
