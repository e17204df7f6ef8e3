-- Network Interface, IPv4/6, TCPv4/6, UDPv4/6, ICMP/ICMPv6 and Sockets
-- against the net-* fixture trees in spec/fixtures (run from the repository
-- root), then on this machine.  Expected values are worked out by hand from
-- the fixture files; the arithmetic is in the comments.  net-basic2 is
-- net-basic 10 s later.  /proc/net/dev fields: rx bytes packets errs drop
-- fifo frame compressed multicast, tx bytes packets errs drop fifo colls
-- carrier compressed.

local perflib = require "perflib"
local C = require "spec.support.compat"

local FX = "spec/fixtures/"
local BULK = "PERF_COUNTER_BULK_COUNT"
local TOTAL_ID = 0xFFFFFFFE

-- One sample of \Set(*)\* (or \Set\*) below a fixture root.
local function sample(tree, set)
  local q = perflib.query { root = FX .. tree, page_size = 4096 }
  local path = set == "Network Interface" and "\\Network Interface(*)\\*" or ("\\" .. set .. "\\*")
  local idx = assert(q:add(path))
  return assert(q:collect()), idx, q
end

-- Every counter of one instance: expected[counter] or no_data when absent.
local function check_row(s, idx, inst, expected)
  local names = s:results()[idx].counters
  assert.is_true(#names > 0)
  for _, name in ipairs(names) do
    local v, st = s:value(idx, inst, name)
    if expected[name] == nil then
      assert.is_nil(v, inst .. " " .. name)
      assert.equal("no_data", st, inst .. " " .. name)
    else
      assert.equal(expected[name], v, inst .. " " .. name)
      assert.equal("integer", C.math_type(v))
    end
  end
end

-- A Network Interface row from the 16 /proc/net/dev fields and sysfs values.
local function nic(f, sys)
  sys = sys or {}
  return {
    ["Bytes Total/sec"] = f[1] + f[9], ["Packets/sec"] = f[2] + f[10],
    ["Packets Received/sec"] = f[2], ["Packets Sent/sec"] = f[10],
    ["Current Bandwidth"] = sys.bw, ["Bytes Received/sec"] = f[1],
    ["Packets Received Non-Unicast/sec"] = f[8], ["Packets Received Discarded"] = f[4],
    ["Packets Received Errors"] = f[3], ["Packets Received Unknown"] = sys.nh,
    ["Bytes Sent/sec"] = f[9], ["Packets Outbound Discarded"] = f[12],
    ["Packets Outbound Errors"] = f[11], ["Receive FIFO Errors"] = f[5],
    ["Receive Frame Errors"] = f[6], ["Transmit FIFO Errors"] = f[13], ["Collisions"] = f[14],
    ["Carrier Errors"] = f[15], ["Compressed Packets Received"] = f[7],
    ["Compressed Packets Sent"] = f[16], ["MTU"] = sys.mtu, ["Operational Status"] = sys.oper,
    ["Carrier Changes"] = sys.cc,
  }
end

local F = {
  lo = { 69220802, 132764, 0, 0, 0, 0, 0, 0, 69220802, 132764, 0, 0, 0, 0, 0, 0 },
  ifb0 = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
  eth0 = { 41846382, 1136, 2, 3, 4, 5, 6, 7, 64504, 719, 8, 9, 10, 11, 12, 13 },
  enp3s0 = { 9876543210, 7654321, 11, 12, 13, 14, 15, 16, 1234567890, 2345678, 17, 18, 19, 20, 21, 22 },
  veth1a2b3c4d5e = { 123456789012, 98765, 0, 1, 0, 0, 0, 5, 2000, 30, 0, 2, 0, 0, 0, 0 },
  ["old:alias"] = { 100, 10, 0, 0, 0, 0, 0, 0, 200, 20, 0, 0, 0, 0, 0, 0 },
}

-- Writes text to root/rel in place (kept fds see it), creating directories.
local function put(root, rel, text)
  local dir = (root .. "/" .. rel):match("^(.*)/[^/]*$")
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  local fh = assert(io.open(root .. "/" .. rel, "w"))
  fh:write(text)
  fh:close()
end

local DEV_HDR = "Inter-|   Receive                                                |  Transmit\n"
  .. " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop"
  .. " fifo colls carrier compressed\n"

describe("network countersets", function()
  describe("metadata", function()
    local sets = {
      { "Network Interface", "9522ef18-bc04-585b-bca1-4c469f9e2d1f", "multiple", false, 31 },
      { "IPv4", "870fb42a-6264-5175-88de-1af8024110b4", "single", false, 19 },
      { "IPv6", "ff90b8cf-7060-57e6-b522-4de19cbcd5dd", "single", false, 19 },
      { "TCPv4", "1a64366b-36ff-5767-a8c1-11195c48c1af", "single", false, 38 },
      { "TCPv6", "f7c27857-fc23-5c0b-a901-890636c05bdf", "single", true, 4 },
      { "UDPv4", "3f93c40c-ecbf-5129-a61b-377bfa73a00e", "single", false, 10 },
      { "UDPv6", "6e13e8eb-b7c2-53a4-ab1b-21053f6726bc", "single", false, 10 },
      { "ICMP", "adbaffb2-a77f-5d33-8af8-9817103b0f0d", "single", false, 12 },
      { "ICMPv6", "dbdcb1ea-62d0-5029-8256-721371a171d4", "single", false, 14 },
      { "Sockets", "23006823-5d1c-556c-b95d-0969941a91ba", "single", false, 16 },
      { "UDPLitev4", "3fa72545-82e9-5266-a627-1f06237e498c", "single", false, 10 },
      { "UDPLitev6", "1777530c-1863-5ccd-9349-d6bc854d73a4", "single", false, 10 },
      { "UDP Queues", "2a317c97-e53f-5d98-992c-9da3ec5992c1", "multiple", true, 6 },
      { "Bonding", "dcf99e06-63da-5177-b50f-3b4243015b63", "multiple", false, 6 },
    }
    it("has stable GUIDs, instance types, costly flags and counters", function()
      for _, t in ipairs(sets) do
        local cs = assert(perflib.counterset(t[1]), t[1])
        assert.equal(t[2], cs.guid)
        assert.equal(t[3], cs.instance_type, t[1])
        assert.equal(t[4], cs.costly, t[1])
        assert.equal(t[5], #cs.counters, t[1])
        for _, c in ipairs(cs.counters) do
          assert.equal(c.name:find("/sec", 1, true) ~= nil, c.type_name == BULK, c.name)
        end
      end
      assert.equal("Received Dest. Unreachable", perflib.counterset("ICMP"):counter(5).name)
      assert.equal("Received Destination Unreachable", perflib.counterset("ICMPv6"):counter(5).name)
    end)
  end)

  describe("Network Interface on net-basic", function()
    local s, idx = sample("net-basic", "Network Interface")

    it("names interfaces as the kernel does, with the ifindex as id", function()
      local r = s:results()[idx]
      -- padding trimmed; "old:alias:" split at its last ':'; no sysfs: id 0
      assert.same({ "lo", "ifb0", "eth0", "enp3s0", "veth1a2b3c4d5e", "old:alias", "_Total" }, r.instances)
      assert.same({ 1, 2, 4, 3, 12, 0, TOTAL_ID }, r.ids)
    end)

    it("reports every counter of every interface", function()
      check_row(s, idx, "lo", nic(F.lo, { mtu = 65536, oper = 4, cc = 0, nh = 0 }))  -- no speed
      check_row(s, idx, "ifb0", nic(F.ifb0, { mtu = 1500, oper = 2, cc = 0, nh = 0 }))
      check_row(s, idx, "eth0", nic(F.eth0, { mtu = 1400, oper = 1, cc = 2, nh = 0 }))  -- speed -1
      check_row(s, idx, "enp3s0",                   -- 1000 Mb/s x 10^6
        nic(F.enp3s0, { bw = 1000000000, mtu = 1500, oper = 1, cc = 4, nh = 7 }))
      check_row(s, idx, "veth1a2b3c4d5e",
        nic(F.veth1a2b3c4d5e, { bw = 10000000000, mtu = 1500, oper = 7, cc = 1, nh = 0 }))
      check_row(s, idx, "old:alias", nic(F["old:alias"]))
      assert.equal(41846382 + 64504, (s:value(idx, "eth0", "Bytes Total/sec")))
      assert.equal(123456789012, (s:value(idx, "veth1a2b3c4d5e", "Bytes Received/sec")))  -- glued to ':'
    end)

    it("leaves loopback out of _Total", function()
      local tot = {}
      for k = 1, 16 do
        tot[k] = F.ifb0[k] + F.eth0[k] + F.enp3s0[k] + F.veth1a2b3c4d5e[k] + F["old:alias"][k]
      end
      -- speeds 10^9 + 10^10; old:alias has no sysfs: no rx_nohandler or carrier sum
      check_row(s, idx, "_Total", nic(tot, { bw = 11000000000 }))
      -- 0 + 41846382 + 9876543210 + 123456789012 + 100
      assert.equal(133375178704, (s:value(idx, "_Total", "Bytes Received/sec")))
    end)

    it("computes rates against net-basic2 (10 s)", function()
      local s1 = sample("net-basic2", "Network Interface")
      local function rate(inst, name)
        return perflib.calculate(BULK, { value = (s1:value(idx, inst, name)), time = 100000000 },
          { value = (s:value(idx, inst, name)), time = 0 })
      end
      assert.is.near(12500000, rate("enp3s0", "Bytes Received/sec"), 1e-6)  -- 125000000 / 10
      assert.is.near(12000, rate("enp3s0", "Packets/sec"), 1e-9)            -- (100000 + 20000) / 10
      assert.is.near(1, rate("eth0", "Packets Received Non-Unicast/sec"), 1e-9)   -- 10 / 10
      assert.is.near(12600005, rate("_Total", "Bytes Received/sec"), 1e-6)  -- (1000000+125000000+50)/10
      assert.equal(7 + 3, (s1:value(idx, "enp3s0", "Packets Received Unknown")))
    end)
  end)

  describe("Network Interface across collects of one query", function()
    it("unwraps 32-bit values, resets on re-registration, keeps _Total rising", function()
      local root = os.tmpname()
      os.remove(root)
      put(root, "sys/class/net/lo/type", "772\n")
      put(root, "sys/class/net/eth0/ifindex", "2\n")
      put(root, "sys/class/net/wan0/ifindex", "3\n")
      put(root, "proc/net/dev", DEV_HDR
        .. "    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n"
        .. "  eth0: 4294967000 100 0 0 0 0 0 0 5000 50 0 0 0 0 0 0\n"
        .. "  wan0: 5000000000 7000 0 0 0 0 0 0 6000000000 8000 0 0 0 0 0 0\n")
      local q = perflib.query { root = root }
      local idx = assert(q:add("\\Network Interface(*)\\Bytes Received/sec"))
      local s0 = assert(q:collect())
      assert.equal(9294967000, (s0:value(idx, "_Total", "Bytes Received/sec")))  -- 4294967000 + 5e9
      -- eth0 wrapped (+1296), wan0 re-registered as ifindex 5 (all fell)
      put(root, "sys/class/net/wan0/ifindex", "5\n")
      put(root, "proc/net/dev", DEV_HDR
        .. "    lo: 2000 20 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n"
        .. "  eth0: 1000 110 0 0 0 0 0 0 5100 55 0 0 0 0 0 0\n"
        .. "  wan0: 100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n")
      local s1 = assert(q:collect())
      assert.equal(4294968296, (s1:value(idx, "eth0", "Bytes Received/sec")))   -- 2^32 + 1000
      assert.equal(100, (s1:value(idx, "wan0", "Bytes Received/sec")))
      assert.same({ 0, 2, 5, TOTAL_ID }, s1:results()[idx].ids)   -- this lo has no ifindex file
      assert.equal(9294967000 + 1296 + 100, (s1:value(idx, "_Total", "Bytes Received/sec")))
      local v, st = s1:format(s0, idx, "eth0", "Bytes Received/sec")
      assert.equal("valid", st)
      assert.is_true(v > 0)
      -- the re-registered wan0 is a new instance (new id): no rate across it
      v, st = s1:format(s0, idx, "wan0", "Bytes Received/sec")
      assert.is_nil(v)
      assert.not_equal("valid", st)                   -- the core's status for a new instance
      q:close()
      os.execute("rm -rf '" .. root .. "'")
    end)
  end)

  describe("the SNMP sets on net-basic and on a kernel with extra columns", function()
    local rows = {
      -- Ip InReceives 130000 ... FragCreates 13; IpExt InOctets 41846382 OutOctets 9876543
      IPv4 = { ["Datagrams/sec"] = 130000 + 128000, ["Datagrams Received/sec"] = 130000,
        ["Datagrams Received Header Errors"] = 1, ["Datagrams Received Address Errors"] = 2,
        ["Datagrams Forwarded/sec"] = 3, ["Datagrams Received Unknown Protocol"] = 4,
        ["Datagrams Received Discarded"] = 5, ["Datagrams Received Delivered/sec"] = 129000,
        ["Datagrams Sent/sec"] = 128000, ["Datagrams Outbound Discarded"] = 6,
        ["Datagrams Outbound No Route"] = 7, ["Fragments Received/sec"] = 8,
        ["Fragments Re-assembled/sec"] = 9, ["Fragment Re-assembly Failures"] = 10,
        ["Fragmented Datagrams/sec"] = 11, ["Fragmentation Failures"] = 12,
        ["Fragments Created/sec"] = 13, ["Bytes Received/sec"] = 41846382, ["Bytes Sent/sec"] = 9876543 },
      IPv6 = { ["Datagrams/sec"] = 5000 + 4000, ["Datagrams Received/sec"] = 5000,
        ["Datagrams Received Header Errors"] = 1, ["Datagrams Received Address Errors"] = 2,
        ["Datagrams Forwarded/sec"] = 5, ["Datagrams Received Unknown Protocol"] = 3,
        ["Datagrams Received Discarded"] = 4, ["Datagrams Received Delivered/sec"] = 4900,
        ["Datagrams Sent/sec"] = 4000, ["Datagrams Outbound Discarded"] = 6,
        ["Datagrams Outbound No Route"] = 7, ["Fragments Received/sec"] = 8,
        ["Fragments Re-assembled/sec"] = 9, ["Fragment Re-assembly Failures"] = 10,
        ["Fragmented Datagrams/sec"] = 11, ["Fragmentation Failures"] = 12,
        ["Fragments Created/sec"] = 13, ["Bytes Received/sec"] = 640000, ["Bytes Sent/sec"] = 512000 },
      -- Tcp: MaxConn -1 is no counter; TcpExt ListenOverflows 31 ListenDrops 32 TCPTimeouts 33 TCPSynRetrans 34
      TCPv4 = { ["Segments/sec"] = 129026 + 128604, ["Connections Established"] = 3,
        ["Connections Active"] = 88, ["Connections Passive"] = 69, ["Connection Failures"] = 1,
        ["Connections Reset"] = 22, ["Segments Received/sec"] = 129026, ["Segments Sent/sec"] = 128604,
        ["Segments Retransmitted/sec"] = 5, ["Receive Errors"] = 4, ["Resets Sent/sec"] = 23,
        ["Checksum Errors"] = 2, ["Listen Overflows"] = 31, ["Listen Drops"] = 32,
        ["Timeouts/sec"] = 33, ["SYN Retransmits/sec"] = 34,
        -- the TcpExt drops and retransmission kinds: the fixture's values 41 .. 61, TW 13
        ["SYN Cookies Sent/sec"] = 41, ["SYN Cookies Received/sec"] = 42, ["SYN Cookies Failed"] = 43,
        ["Receive Queue Prunes/sec"] = 44, ["Receive Queue Pruned Drops"] = 45,
        ["Out-of-Order Queue Pruned Drops"] = 46, ["Time Wait Finished/sec"] = 13,
        ["Time Wait Overflows"] = 55, ["Lost Retransmits/sec"] = 47, ["Fast Retransmits/sec"] = 48,
        ["Slow Start Retransmits/sec"] = 49, ["Retransmit Failures"] = 57, ["Aborts On Data"] = 50,
        ["Aborts On Memory"] = 51, ["Aborts On Timeout"] = 52, ["Memory Pressures"] = 53,
        ["Backlog Drops"] = 54, ["Request Queue Full Drops"] = 56, ["Out-of-Order Queued/sec"] = 58,
        ["Out-of-Order Drops"] = 59, ["Zero Window Drops"] = 60, ["Receive Queue Drops"] = 61 },
      -- UdpLite: 31 5 1 33 2 3 4 6 7 (the Udp pair before it is another set's)
      UDPLitev4 = { ["Datagrams/sec"] = 31 + 33, ["Datagrams Received/sec"] = 31,
        ["Datagrams No Port/sec"] = 5, ["Datagrams Received Errors"] = 1, ["Datagrams Sent/sec"] = 33,
        ["Receive Buffer Errors"] = 2, ["Send Buffer Errors"] = 3, ["Checksum Errors"] = 4,
        ["Ignored Multicast"] = 6, ["Memory Errors"] = 7 },
      -- UdpLite6: no IgnoredMulti line, as on this VM's 6.18 kernel
      UDPLitev6 = { ["Datagrams/sec"] = 77 + 78, ["Datagrams Received/sec"] = 77,
        ["Datagrams No Port/sec"] = 1, ["Datagrams Received Errors"] = 2, ["Datagrams Sent/sec"] = 78,
        ["Receive Buffer Errors"] = 3, ["Send Buffer Errors"] = 4, ["Checksum Errors"] = 5,
        ["Memory Errors"] = 6 },
      UDPv4 = { ["Datagrams/sec"] = 67 + 2468, ["Datagrams Received/sec"] = 67,
        ["Datagrams No Port/sec"] = 2400, ["Datagrams Received Errors"] = 6, ["Datagrams Sent/sec"] = 2468,
        ["Receive Buffer Errors"] = 7, ["Send Buffer Errors"] = 8, ["Checksum Errors"] = 9,
        ["Ignored Multicast"] = 10, ["Memory Errors"] = 11 },
      UDPv6 = { ["Datagrams/sec"] = 300 + 310, ["Datagrams Received/sec"] = 300,
        ["Datagrams No Port/sec"] = 20, ["Datagrams Received Errors"] = 1, ["Datagrams Sent/sec"] = 310,
        ["Receive Buffer Errors"] = 2, ["Send Buffer Errors"] = 3, ["Checksum Errors"] = 4,
        ["Ignored Multicast"] = 5, ["Memory Errors"] = 6 },
      ICMP = { ["Messages/sec"] = 45 + 40, ["Messages Received/sec"] = 45, ["Messages Received Errors"] = 1,
        ["Messages Sent/sec"] = 40, ["Messages Outbound Errors"] = 2, ["Received Dest. Unreachable"] = 20,
        ["Received Time Exceeded"] = 3, ["Received Echo/sec"] = 12, ["Received Echo Reply/sec"] = 10,
        ["Sent Destination Unreachable"] = 15, ["Sent Echo/sec"] = 11, ["Sent Echo Reply/sec"] = 12 },
      ICMPv6 = { ["Messages/sec"] = 50 + 60, ["Messages Received/sec"] = 50, ["Messages Received Errors"] = 1,
        ["Messages Sent/sec"] = 60, ["Messages Outbound Errors"] = 2,
        ["Received Destination Unreachable"] = 3, ["Received Time Exceeded"] = 5, ["Received Echo/sec"] = 6,
        ["Received Echo Reply/sec"] = 7, ["Sent Destination Unreachable"] = 8, ["Sent Echo/sec"] = 10,
        ["Sent Echo Reply/sec"] = 11, ["Received Packet Too Big"] = 4, ["Sent Packet Too Big"] = 9 },
      -- mem 95 and 5 pages x 4096; FRAG memory is already bytes
      Sockets = { ["Sockets Used"] = 27, ["TCP In Use"] = 2, ["TCP Orphans"] = 1, ["TCP TIME_WAIT"] = 32,
        ["TCP Allocated"] = 3, ["TCP Memory Bytes"] = 95 * 4096, ["UDP In Use"] = 4,
        ["UDP Memory Bytes"] = 5 * 4096, ["RAW In Use"] = 1, ["FRAG In Use"] = 2, ["FRAG Memory Bytes"] = 4096,
        ["TCP6 In Use"] = 3, ["UDP6 In Use"] = 2, ["RAW6 In Use"] = 1, ["FRAG6 In Use"] = 1,
        ["FRAG6 Memory Bytes"] = 1152 },
      -- tcp6 states 0A 0A 01 01 01 08 06 06 02: ESTABLISHED + CLOSE_WAIT = 4
      TCPv6 = { ["Connections Established"] = 4, ["Connections Listening"] = 2,
        ["Connections Time Wait"] = 2, ["Connections Total"] = 9 },
    }
    for set, row in pairs(rows) do
      it(set .. " reports every counter", function()
        local s, idx = sample("net-basic", set)
        check_row(s, idx, "", row)
        if set ~= "TCPv6" then
          s, idx = sample("net-newkernel", set)   -- columns inserted: parsed by name
          check_row(s, idx, "", row)
        end
      end)
    end

    it("computes rates against net-basic2 (10 s)", function()
      local cases = {
        { "IPv4", "Datagrams/sec", 3500 },            -- (20000 + 15000) / 10
        { "IPv4", "Bytes Received/sec", 2000000 },    -- 20000000 / 10
        { "TCPv4", "Segments/sec", 3200 },            -- (18000 + 14000) / 10
        { "TCPv4", "SYN Retransmits/sec", 1 },        -- 10 / 10
        { "UDPv6", "Datagrams/sec", 40 },             -- (100 + 300) / 10
        { "ICMP", "Messages/sec", 5.5 },              -- (30 + 25) / 10
        { "ICMPv6", "Received Echo/sec", 0.5 },       -- 5 / 10
      }
      for _, c in ipairs(cases) do
        local s0, idx = sample("net-basic", c[1])
        local s1, idx1 = sample("net-basic2", c[1])
        local v, st = perflib.calculate(BULK, { value = (s1:value(idx1, "", c[2])), time = 100000000 },
          { value = (s0:value(idx, "", c[2])), time = 0 })
        assert.equal("valid", st, c[2])
        assert.is.near(c[3], v, 1e-9)
      end
    end)
  end)

  describe("traps", function()
    local function no_data(s, idx, inst, name)
      local v, st = s:value(idx, inst, name)
      assert.is_nil(v, name)
      assert.equal("no_data", st, name)
    end

    it("IPv6 disabled: the v6 sets fail with ENOENT, the rest work in the same query", function()
      local q = perflib.query { root = FX .. "net-nov6" }
      local i6 = assert(q:add("\\IPv6\\*"))
      local u6 = assert(q:add("\\UDPv6\\Datagrams/sec"))
      local t6 = assert(q:add("\\TCPv6\\*"))
      local i4 = assert(q:add("\\IPv4\\Datagrams Received/sec"))
      local sk = assert(q:add("\\Sockets\\*"))
      local s = assert(q:collect())
      local r = s:results()
      assert.matches("net%-nov6/proc/net/snmp6: No such file or directory", r[i6].error)
      assert.matches("proc/net/snmp6: No such file or directory", r[u6].error)
      assert.matches("proc/net/tcp6: No such file or directory", r[t6].error)
      assert.equal(130000, (s:value(i4, "", "Datagrams Received/sec")))
      assert.equal(27, (s:value(sk, "", "Sockets Used")))
      no_data(s, sk, "", "TCP6 In Use")             -- no sockstat6: only the v6 counters
    end)

    it("an old kernel lacks fields and netstat: those counters only are unset", function()
      local s, idx = sample("net-old-kernel", "TCPv4")
      assert.equal(2, (s:value(idx, "", "Connections Established")))
      no_data(s, idx, "", "Checksum Errors")
      no_data(s, idx, "", "Listen Overflows")
      s, idx = sample("net-old-kernel", "Network Interface")
      assert.same({ 0, 0, TOTAL_ID }, s:results()[idx].ids)      -- no sysfs
      assert.equal(500000, (s:value(idx, "_Total", "Bytes Received/sec")))  -- lo by its name
    end)

    it("files without a final newline: the last line counts as written", function()
      local s, idx = sample("net-broken-truncated", "Network Interface")
      assert.equal(9876543210, (s:value(idx, "enp3s0", "Bytes Received/sec")))
      assert.equal(13, (s:value(idx, "enp3s0", "Receive FIFO Errors")))   -- the last field
      no_data(s, idx, "_Total", "Bytes Sent/sec")
      s, idx = sample("net-broken-truncated", "TCPv4")
      assert.equal(3, (s:value(idx, "", "Connections Established")))
      assert.equal(1290, (s:value(idx, "", "Segments Received/sec")))  -- "1290", no newline
      no_data(s, idx, "", "Segments/sec")                                -- no OutSegs
    end)

    it("garbage and negative numbers leave their own counters unset", function()
      local s, idx = sample("net-broken-garbage", "Network Interface")
      assert.same({ "eth0", "eth1", "_Total" }, s:results()[idx].instances)
      no_data(s, idx, "eth0", "Packets Received/sec")   -- 11x6
      assert.equal(719, (s:value(idx, "eth0", "Packets Sent/sec")))
      no_data(s, idx, "eth1", "Bytes Received/sec")     -- above 2^64
      no_data(s, idx, "eth1", "Bytes Sent/sec")         -- -64
      s, idx = sample("net-broken-garbage", "TCPv4")
      no_data(s, idx, "", "Connections Active")         -- -88
      assert.equal(69, (s:value(idx, "", "Connections Passive")))
    end)

    it("empty files fail their sets with the path", function()
      for set, path in pairs { ["Network Interface"] = "proc/net/dev", IPv4 = "proc/net/snmp",
                               ICMPv6 = "proc/net/snmp6", Sockets = "proc/net/sockstat" } do
        local s, idx = sample("net-broken-empty", set)
        local r = s:results()[idx]
        assert.equal("error", r.shape)
        assert.matches(path:gsub("%p", "%%%0") .. ": Invalid argument", r.error)
      end
    end)
  end)

  describe("live machine", function()
    it("gives plausible values for every set", function()
      local q = perflib.query()
      local nif = assert(q:add("\\Network Interface(*)\\*"))
      local tcp = assert(q:add("\\TCPv4\\*"))
      local ip = assert(q:add("\\IPv4\\*"))
      local sk = assert(q:add("\\Sockets\\*"))
      local s0 = assert(q:collect())
      perflib.sleep(0.1)
      local s1 = assert(q:collect())
      local r = s1:results()[nif]
      assert.equal("_Total", r.instances[#r.instances])
      for _, inst in ipairs(r.instances) do
        local v, st = s1:format(s0, nif, inst, "Bytes Total/sec")
        assert.equal("valid", st, inst)
        assert.is_true(v >= 0)
      end
      assert.is_true((s1:value(tcp, "", "Segments Received/sec")) > 0)
      assert.is_true((s1:value(ip, "", "Datagrams Received/sec")) > 0)
      assert.is_true((s1:value(sk, "", "Sockets Used")) > 0)
    end)
  end)
end)
