-- perflib's live view: CPU, memory and system counters of this machine,
-- once per second, until Ctrl-C.
--   perflua examples/top.lua [seconds]      (0 or none: until Ctrl-C)
--   make run SECONDS=10
local perflib = require "perflib"

local limit = math.tointeger(tonumber(arg and arg[1] or "0") or 0) or 0
local tty = os.getenv("TERM") ~= nil and os.getenv("TERM") ~= "dumb"
  and io.popen("test -t 1 && echo y"):read("l") == "y"

local q <close> = perflib.query()
local CPU = q:add "\\Processor Information(*)\\*"
local MEM = q:add "\\Memory\\*"
local SYS = q:add "\\System\\*"

local function bytes(n)
  if not n then return "-" end
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local i = 1
  while n >= 1024 and i < #units do n, i = n / 1024, i + 1 end
  return ("%.1f %s"):format(n, units[i])
end

local function num(v, fmt)
  if v == nil then return "-" end
  return (fmt or "%.1f"):format(v)
end

local function duration(s)
  if not s then return "-" end
  s = math.floor(s)
  return ("%dd %02d:%02d:%02d"):format(s // 86400, s % 86400 // 3600, s % 3600 // 60, s % 60)
end

local cpu_cols = {
  { "% Processor Time", "%Proc" }, { "% User Time", "%User" }, { "% Privileged Time", "%Priv" },
  { "% IO Wait Time", "%IOwt" }, { "% Steal Time", "%Steal" }, { "% Idle Time", "%Idle" },
  { "Interrupts/sec", "Intr/s", "%.0f" }, { "DPCs Queued/sec", "SoftIRQ/s", "%.0f" },
  { "Processor Frequency", "MHz", "%.0f" },
}

local function render(s1, s0)
  local out = {}
  local function say(fmt, ...) out[#out + 1] = fmt:format(...) end
  local cpu = s1:values(s0, CPU)
  local mem = s1:values(s0, MEM)
  local sys = s1:values(s0, SYS)
  local function m(name) return mem[name] and mem[name][""] end
  local function y(name) return sys[name] and sys[name][""] end

  say("perflib top · sample %d · %s · every 1 s%s", s1.seq, os.date("%H:%M:%S", math.floor(s1.timestamp)),
      limit > 0 and (" · %d s"):format(limit) or " · Ctrl-C to stop")
  say("")
  local head = { ("%-10s"):format("CPU") }
  for _, c in ipairs(cpu_cols) do head[#head + 1] = ("%10s"):format(c[2]) end
  say("%s", table.concat(head))
  local names = {}
  for _, r in ipairs(s1:results()) do
    if r.index == CPU then names = r.instances end
  end
  for _, inst in ipairs(names) do
    local row = { ("%-10s"):format(inst) }
    for _, c in ipairs(cpu_cols) do
      local v = cpu[c[1]] and cpu[c[1]][inst]
      row[#row + 1] = ("%10s"):format(num(v, c[3]))
    end
    say("%s", table.concat(row))
  end
  say("")
  say("Memory   available %s of %s (%s free), cache %s, committed %s (%s %% of limit)",
      bytes(m "Available Bytes"), bytes(m "Total Bytes"), bytes(m "Free & Zero Page List Bytes"),
      bytes(m "Cache Bytes"), bytes(m "Committed Bytes"), num(m "% Committed Bytes In Use"))
  say("         swap %s free of %s, page faults %s/s, major %s/s, swap in/out %s/%s pages/s",
      bytes(m "Swap Free Bytes"), bytes(m "Swap Total Bytes"), num(m "Page Faults/sec", "%.0f"),
      num(m "Page Reads/sec", "%.0f"), num(m "Pages Input/sec", "%.0f"), num(m "Pages Output/sec", "%.0f"))
  say("System   load %s %s %s, run queue %s, blocked %s, %s processes, %s threads",
      num(y "Load Average 1 min", "%.2f"), num(y "Load Average 5 min", "%.2f"),
      num(y "Load Average 15 min", "%.2f"), num(y "Processor Queue Length", "%.0f"),
      num(y "Processes Blocked", "%.0f"), num(y "Processes", "%.0f"), num(y "Threads", "%.0f"))
  say("         context switches %s/s, forks %s/s, file handles %s of %s, up %s",
      num(y "Context Switches/sec", "%.0f"), num(y "Forks/sec", "%.1f"),
      num(y "File Handles Allocated", "%.0f"), num(y "File Handles Max", "%.0f"),
      duration(y "System Up Time"))
  if not s0 then say("(rates appear from the second sample on)") end
  return table.concat(out, "\n")
end

-- one sample more than the seconds asked for: rates need a pair
for s1, s0 in q:samples(1, limit > 0 and limit + 1 or nil) do
  local text = render(s1, s0)
  if tty then
    io.write("\27[H\27[2J", text, "\n")
  else
    io.write(text, "\n\n")
  end
  io.flush()
end
