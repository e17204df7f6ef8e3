-- V1 plug-in providers (issue 11, items 4 and 5): seed 002's Transfer/Peer provider
-- (examples/plugins) loaded from a plug-in directory, its objects countersets like the
-- built-in ones, read from Lua, from the V1 registry collection and by a rule under
-- perflua monitor; plug-ins that cannot load, and the guards against one that misbehaves.
-- Every case runs in a child lua5.4 with PERFLIB_PLUGIN_DIR set, so that plug-in sets
-- never join the suite's own process.
local files = dofile "spec/support/files.lua"
local write, run = files.write, files.run

local CPATH = os.getenv "PERFLIB_CORE" and "./build/san/?.so" or "./build/?.so"
local EXAMPLE = "examples/plugins"
local LIB = "build/examples/plugins/libtransferpeer.so"

-- Runs Lua code in a child with PERFLIB_PLUGIN_DIR = dir; its output and exit code.
local function child(dir, code, secs)
  local tmp, remove = files.tempdir()
  write(tmp .. "/case.lua", code)
  local out, rc = run(("PERFLIB_PLUGIN_DIR=%q LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' "
    .. "LUA_CPATH_5_4='%s;;' timeout -k 5 %d lua5.4 %s"):format(dir, CPATH, secs or 60, tmp .. "/case.lua"))
  remove()
  return out, rc
end

-- A plug-in directory with the given files (name -> text); its path and its remover.
local function plugin_dir(entries)
  local dir, remove = files.tempdir()
  for name, text in pairs(entries) do write(dir .. "/" .. name, text) end
  return dir, remove
end

local cwd = files.cwd

-- transferpeer.plugin with its Library made absolute, and extra lines per section.
local function tp_conf(extra_plugin, transfer_extra)
  local text = files.read(EXAMPLE .. "/transferpeer.plugin")
  text = text:gsub("Library = [^\n]+", "Library = " .. cwd() .. "/" .. LIB)
  if extra_plugin then text = text:gsub("%[plugin%]\n", "[plugin]\n" .. extra_plugin .. "\n") end
  if transfer_extra then text = text:gsub("%[object Transfer%]\n", "[object Transfer]\n" .. transfer_extra .. "\n") end
  return text
end

describe("the Transfer/Peer example plug-in (seed 002)", function()
  it("is loaded from its directory and shows up as two countersets", function()
    local out, rc = child(EXAMPLE, [[
local perflib = require "perflib"
local p = perflib.plugins()[1]
print(#perflib.plugins(), p.name, p.state, p.failures, table.concat(p.countersets, ","), p.error)
local t = assert(perflib.counterset "Transfer")
print(t.name, t.instance_type, t.help)
for _, c in ipairs(t.counters) do print(c.id, c.name, c.type_name, c.base_id or "-", c.help) end
local peer = assert(perflib.counterset "Peer")
print(peer.instance_type)
for _, i in ipairs(peer:instances()) do print("instance", i.name, i.id) end
print("index", perflib.index_of "Transfer" >= 1000000000, perflib.index_of "Transfer" % 1000)
]])
    assert.equals(0, rc, out)
    assert.matches("1\ttransferpeer\trunning\t0\tTransfer,Peer\tnil", out, 1, true)
    assert.matches("Transfer\tsingle\tCounters of the example server's transfers", out, 1, true)
    assert.matches("0\tBytes Sent\tPERF_COUNTER_RAWCOUNT\t-\tBytes the server has sent", out, 1, true)
    assert.matches("1\tAvailable Bandwidth\tPERF_RAW_FRACTION\t2\t", out, 1, true)
    assert.matches("2\tTotal Bandwidth\tPERF_RAW_BASE\t-\t", out, 1, true)
    assert.matches("\nmultiple\n", out, 1, true)
    assert.matches("instance\tPeer1\t0\ninstance\tPeer2\t1\n", out, 1, true)
    assert.matches("index\ttrue\t0", out, 1, true)
  end)

  it("gives the seed's values through a query: 5 bytes sent, 20 of 50 available = 40 %, 15 and 30 served", function()
    local out, rc = child(EXAMPLE, [[
local perflib = require "perflib"
local q = perflib.query()
q:add "\\Transfer\\*"
q:add "\\Peer(*)\\Bytes Served"
local s0 = assert(q:collect())
local s1 = assert(q:collect())
for inst, v, st, counter in s1:formatted(s0) do print(counter, inst, v, st) end
for inst, v, _, counter in s1:raw() do print("raw", counter, inst, v) end
]])
    assert.equals(0, rc, out)
    assert.matches("Bytes Sent\t\t5.0\tvalid", out, 1, true)
    assert.matches("Available Bandwidth\t\t40.0\tvalid", out, 1, true)   -- 100 * 20 / 50
    assert.matches("Bytes Served\tPeer1\t15.0\tvalid", out, 1, true)
    assert.matches("Bytes Served\tPeer2\t30.0\tvalid", out, 1, true)
    assert.matches("raw\tAvailable Bandwidth\t\t20", out, 1, true)
  end)

  it("answers the registry-style collections: a V1 Global block carries its objects", function()
    local out, rc = child(EXAMPLE, [[
local perflib = require "perflib"
local idx = perflib.index_of "Transfer"
local names = perflib.collect "Counter 009"
print(names[idx], names[perflib.index_of("Transfer", "Available Bandwidth")])
local block = assert(perflib.collect(tostring(idx) .. " " .. perflib.index_of "Peer", { v1 = true }))
local s = assert(perflib.sample_from_block(block))
for _, r in ipairs(s:results()) do print(r.counterset, #r.instances) end
]])
    assert.equals(0, rc, out)
    assert.matches("Transfer\tAvailable Bandwidth", out, 1, true)
    assert.matches("Transfer\t1\nPeer\t2\n", out, 1, true)
  end)

  it("drives a rule under perflua monitor", function()
    local out = run(("PERFLIB_PLUGIN_DIR=%s build/perflua monitor examples/rules/transferpeer.lua "
      .. "--interval 0.2 --seconds 1"):format(EXAMPLE))
    assert.matches("PeerBusy", out, 1, true)
    assert.matches("peer Peer2 served 30 bytes", out, 1, true)
    assert.not_matches("peer Peer1", out, 1, true)
    assert.matches("available bandwidth 40%", out, 1, true)
  end)

  it("keeps its title indexes from run to run", function()
    local code = [[
local perflib = require "perflib"
print(perflib.index_of "Transfer", perflib.index_of "Peer", perflib.counterset("Transfer").guid)]]
    local a = child(EXAMPLE, code)
    local b = child(EXAMPLE, code)
    assert.equals(a, b)
    assert.matches("^%d+\t%d+\t%x+%-", a)
  end)
end)

describe("plug-ins that cannot load", function()
  it("lists a bad file, a missing library and an index taken by another plug-in, each with its reason", function()
    local dir, remove = plugin_dir {
      ["a.plugin"] = tp_conf(nil, "Index = 900000"),
      ["b.plugin"] = "[plugin]\nLibrary = x.so\nOpen = o\nCollect = c\nClose = x\nColect Timeout = 5\n",
      ["c.plugin"] = tp_conf():gsub("libtransferpeer%.so", "libmissing.so"),
      ["d.plugin"] = tp_conf(nil, "Index = 900000"):gsub("%[object Transfer%]", "[object Transfer2]")
        :gsub("%[object Peer%]", "[object Peer2]"),
    }
    local out, rc = child(dir, [[
local perflib = require "perflib"
for _, p in ipairs(perflib.plugins()) do print(p.name, p.state, table.concat(p.countersets, ","), p.error) end
print("index", perflib.index_of "Transfer")
local q = perflib.query()
q:add "\\Memory\\Available Bytes"
print("memory", select(2, assert(q:collect()):raw()()) ~= nil)
]])
    remove()
    assert.equals(0, rc, out)
    assert.matches("a\trunning\tTransfer,Peer\tnil", out, 1, true)
    assert.matches("b\tfailed\t\t[^\n]*b%.plugin:6: %[plugin%] has no key 'Colect Timeout'", out)
    assert.matches("c\tfailed\t\t[^\n]*libmissing%.so", out)
    assert.matches("d\trunning\tPeer2\tobject 'Transfer2' not registered: [^\n]*900000%.%.900999 are taken by "
      .. "'Transfer'", out)
    assert.matches("index\t900000", out, 1, true)
    assert.matches("memory\ttrue", out, 1, true)
  end)

  it("refuses a plug-in file, a library or a directory that someone else could write", function()
    local dir, remove = plugin_dir { ["e.plugin"] = tp_conf() }
    local lib = dir .. "/libcopy.so"
    assert(os.execute(("cp %s %s && chmod 0666 %s"):format(LIB, lib, lib)))
    write(dir .. "/f.plugin", tp_conf():gsub("Library = [^\n]+", "Library = " .. lib))
    assert(os.execute("chmod 0666 " .. dir .. "/e.plugin"))
    local open_dir, remove2 = files.tempdir()
    assert(os.execute("chmod 0777 " .. open_dir))
    local out, rc = child(dir, ([[
local perflib = require "perflib"
for _, p in ipairs(perflib.plugins()) do print(p.name, p.state, #p.countersets, p.error) end
print(perflib.load_plugins %q)
]]):format(open_dir))
    remove()
    remove2()
    assert.equals(0, rc, out)
    assert.matches("e\tfailed\t0\t[^\n]*e%.plugin: refused: writable by others", out)
    assert.matches("f\tfailed\t0\t[^\n]*libcopy%.so: refused: writable by others", out)
    assert.matches("nil\t[^\n]*: refused: writable by others\t1", out)
  end)

  it("loads nothing when the Perflib key disables V1 counters, and load_plugins says why a directory fails", function()
    local dir, remove = plugin_dir {
      ["perflib.conf"] = "[perflib]\nDisable Performance Counters = 1\n",
      ["a.plugin"] = tp_conf(),
    }
    local out, rc = child(dir, [[
local perflib = require "perflib"
print(#perflib.plugins(), perflib.counterset "Transfer")
print(perflib.load_plugins "/nonexistent/plugins")
print(pcall(perflib.load_plugins))
]])
    remove()
    assert.equals(0, rc, out)
    assert.matches("0\tnil\tno counterset", out, 1, true)
    assert.matches("nil\t/nonexistent/plugins: No such file or directory\t2", out, 1, true)
    assert.matches("false\t[^\n]*bad argument #1 to '[%w.]*load_plugins'", out)
  end)

  it("reads every directory of a ':'-separated PERFLIB_PLUGIN_DIR, a missing one included", function()
    local dir, remove = plugin_dir {
      ["two.plugin"] = tp_conf():gsub("%[object Transfer%]", "[object Transfer2]")
        :gsub("%[object Peer%]", "[object Peer2]"),
    }
    local out, rc = child(EXAMPLE .. ":/nonexistent/plugins:" .. dir, [[
local perflib = require "perflib"
for _, p in ipairs(perflib.plugins()) do print(p.name, p.state, table.concat(p.countersets, ",")) end]])
    remove()
    assert.equals(0, rc, out)
    assert.matches("transferpeer\trunning\tTransfer,Peer\ntwo\trunning\tTransfer2,Peer2\n", out, 1, true)
  end)

  it("a plug-in switched off is listed as off", function()
    local dir, remove = plugin_dir { ["a.plugin"] = tp_conf "Disable Performance Counters = 1" }
    local out, rc = child(dir, [[
local perflib = require "perflib"
local p = perflib.plugins()[1]
print(p.state, #p.countersets, p.error, perflib.counterset "Transfer")
]])
    remove()
    assert.equals(0, rc, out)
    assert.matches("off\t0\tDisable Performance Counters is 1 in [^\n]*\tnil", out)
  end)
end)
