-- Every rule of the default rule set (examples/rules/default.lua) driven through
-- perflib.rules.test to firing and back to resolved with values a real machine gives, in the
-- counters' own units (percent 0..100, MB, bytes, cumulative counts, RFC 2863 status codes,
-- load averages), every 10 s as `R.defaults` says.  A rule that cannot fire fails here, and
-- so does a rule added without a case.  Instances a rule must leave alone (totals, loopback,
-- NICs never cabled) are checked never to fire.
local R = require "perflib.rules"
local T = require "perflib.rules.test"

local FILE = "examples/rules/default.lua"
local PI = "\\Processor Information(*)\\"
local PT = "\\Processor Information(_Total)\\"
local NI = "\\Network Interface(*)\\"
local GIB8 = "8589934592"            -- \Memory\Total Bytes of an 8 GiB machine

-- Two CPUs (node 0), their node total and the machine total: what Processor Information lists.
local function cpus(series)
  local t = {}
  for _, inst in ipairs { "0,0", "0,1", "0,_Total", "_Total" } do
    t[PI .. "% Processor Time{instance=" .. inst .. "}"] = series
  end
  return t
end

local function with(t, more)
  for k, v in pairs(more) do t[k] = v end
  return t
end

local CASES = {
  CpuBusy = { labels = { instance = "0,1" }, severity = "crit", input = cpus "20*12 99.5*60 20*40",
              never = { { instance = "0,_Total" }, { instance = "_Total" } } },
  CpuAllBusy = { labels = { instance = "_Total" },
                 input = { [PT .. "% Processor Time{instance=_Total}"] = "10*6 95*60 10*40" } },
  IoWait = { labels = { instance = "_Total" },
             input = { [PT .. "% IO Wait Time{instance=_Total}"] = "2*6 45*90 2*60" } },
  MemoryLow = { input = { ["\\Memory\\Available MBytes"] = "6000*6 500*40 4000*20",
                          ["\\Memory\\Total Bytes"] = GIB8 .. "*66" } },
  OomKill = { severity = "crit", input = { ["\\Memory\\OOM Kills"] = "2*10 3*120" } },
  SwapUsage = { labels = { instance = "_Total" }, severity = "crit",
                input = { ["\\Paging File(_Total)\\% Usage{instance=_Total}"] = "30*6 97*40 50*40" } },
  DiskFull = { labels = { instance = "/" }, severity = "crit",
               input = { ["\\LogicalDisk(*)\\% Free Space{instance=/}"] = "40*6 2.5*20 40*20",
                         ["\\LogicalDisk(*)\\% Free Space{instance=_Total}"] = "2.5*46" },
               never = { { instance = "_Total" } } },
  DiskBusy = { labels = { instance = "vda" },
               input = { ["\\PhysicalDisk(*)\\% Disk Utilization{instance=vda}"] = "10*6 99*120 10*90" } },
  -- +5 errors every 10 s: 150 in 5 minutes
  NetRxErrors = { labels = { instance = "eth0" },
                  input = { [NI .. "Packets Received Errors{instance=eth0}"] = "1000*6 1000+5*60 1300*90" } },
  -- eth0 loses its link (status 2, carrier changes 2 -> 3) and gets it back (1, 4); ifb0 is down
  -- and was never up (carrier changes 0), eno2 was never cabled (1), lo reads unknown (4)
  NetDown = { labels = { instance = "eth0" },
              input = { [NI .. "Operational Status{instance=eth0}"] = "1*6 2*12 1*12",
                        [NI .. "Carrier Changes{instance=eth0}"] = "2*6 3*12 4*12",
                        [NI .. "Operational Status{instance=ifb0}"] = "2*30",
                        [NI .. "Carrier Changes{instance=ifb0}"] = "0*30",
                        [NI .. "Operational Status{instance=eno2}"] = "2*30",
                        [NI .. "Carrier Changes{instance=eno2}"] = "1*30",
                        [NI .. "Operational Status{instance=lo}"] = "4*30",
                        [NI .. "Carrier Changes{instance=lo}"] = "0*30" },
              never = { { instance = "ifb0" }, { instance = "eno2" }, { instance = "lo" } } },
  -- load 5.0 on 2 CPUs: 2.5 per CPU
  LoadHigh = { input = with(cpus "50*150", { ["\\System\\Load Average 5 min"] = "1.2*6 5.0*80 0.8*64" }) },
  CpuPressure = { labels = { instance = "cpu" },
                  input = { ["\\Pressure Stall Information(cpu)\\% Some Stall Time{instance=cpu}"] =
                              "5*6 80*60 5*40" } },
  MemoryPressure = { labels = { instance = "memory" }, severity = "crit",
                     input = { ["\\Pressure Stall Information(memory)\\% Full Stall Time{instance=memory}"] =
                                 "0*6 25*40 0*30" } },
  IoPressure = { labels = { instance = "io" },
                 input = { ["\\Pressure Stall Information(io)\\% Full Stall Time{instance=io}"] =
                             "1*6 60*60 1*40" } },
}

describe("the default rule set", function()
  local set = assert(R.load(FILE))

  it("has a case for every rule", function()
    for _, name in ipairs(set.order) do assert.is_table(CASES[name], "no case for " .. name) end
    for name in pairs(CASES) do assert.is_table(set.rules[name], "no rule " .. name) end
  end)

  for _, name in ipairs(set.order) do
    it(("fires %s and resolves it on realistic input"):format(name), function()
      local case = assert(CASES[name], "no case for " .. name)
      local res = T.run { rules = FILE, every = "10s", input = case.input }
      local fired = res:first(name, case.labels)
      assert.is_number(fired, name .. " never fired:\n" .. res:timeline())
      local resolved = res:first(name, case.labels, "resolved")
      assert.is_number(resolved, name .. " never resolved:\n" .. res:timeline())
      assert.is_true(resolved > fired)
      if case.severity then
        local _, a = res:at(fired, name, case.labels)
        assert.equals(case.severity, a.severity)
      end
      for _, labels in ipairs(case.never or {}) do
        assert.is_true(res:never(name, labels),
          name .. " fired for " .. labels.instance .. ":\n" .. res:timeline())
      end
    end)
  end

  it("does not fire LoadHigh for the same load on 4 CPUs (1.25 per CPU)", function()
    local input = cpus "50*90"
    input[PI .. "% Processor Time{instance=0,2}"], input[PI .. "% Processor Time{instance=0,3}"] = "50*90", "50*90"
    input["\\System\\Load Average 5 min"] = "5.0*90"
    local res = T.run { rules = FILE, every = "10s", input = input }
    assert.is_true(res:never("LoadHigh"))
  end)

  it("does not fire MemoryLow for 500 MB available of 2 GiB (24 %)", function()
    local res = T.run { rules = FILE, every = "10s",
                        input = { ["\\Memory\\Available MBytes"] = "500*60",
                                  ["\\Memory\\Total Bytes"] = "2147483648*60" } }
    assert.is_true(res:never("MemoryLow"))
  end)
end)
