rockspec_format = "3.0"
package = "perflib"
version = "scm-1"
source = {
  url = "git+file://./",
}
description = {
  summary = "Linux performance counters for Lua 5.4, the Windows PerfLib way",
  detailed = [[
Countersets with stable GUIDs and typed counters filled from /proc and /sys,
query handles with wildcard counter paths, timestamped raw samples, and
formatted values (rates, percentages, fractions) computed in C with an
explicit status instead of a wrong number.
]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "builtin",
  modules = {
    ["perflib.core"] = {
      sources = {
        "src/core/env.c", "src/core/formula.c", "src/core/path.c", "src/core/pl_file.c",
        "src/core/pl_sysfs.c",
        "src/core/query.c", "src/core/registry.c", "src/core/sample.c", "src/core/window.c", "src/core/flap.c",
        "src/core/datablock.c", "src/core/v1block.c", "src/core/utf16.c", "src/core/pl_names.c", "src/core/suggest.c",
        "src/core/units.c", "src/core/expose.c",
        "src/providers/battery.c",
        "src/providers/builtin.c", "src/providers/cgroup.c", "src/providers/cputable.c",
        "src/providers/disk.c", "src/providers/hwevents.c", "src/providers/hwmon.c",
        "src/providers/irq.c", "src/providers/logicaldisk.c", "src/providers/memory.c",
        "src/providers/netif.c", "src/providers/netproto.c", "src/providers/netsnmp.c",
        "src/providers/nfs.c", "src/providers/numa.c", "src/providers/pagingfile.c",
        "src/providers/process.c", "src/providers/processor.c", "src/providers/proctable.c",
        "src/providers/psi.c", "src/providers/sockets.c", "src/providers/system.c",
        "src/providers/thermal.c", "src/providers/thread.c", "src/providers/plugin.c",
        "src/providers/plugin_conf.c", "src/providers/plugin_take.c", "src/providers/plugin_host.c",
        "src/providers/textfile.c", "src/providers/textfile_parse.c",
        "src/providers/appseg.c", "src/providers/appseg_parse.c", "src/providers/appseg_live.c",
        "src/providers/remote.c", "src/providers/remote_http.c", "src/lua/lremote.c",
        "src/lua/lcounterset.c", "src/lua/lplugin.c",
        "src/lua/lmachine.c", "src/lua/lperflib.c", "src/lua/lproc.c", "src/lua/lquery.c", "src/lua/lsample.c",
        "src/lua/lsignal.c", "src/lua/lsandbox.c", "src/lua/lwindow.c", "src/lua/lrulebank.c",
        "src/lua/lflap.c", "src/lua/lblock.c", "src/lua/lsuggest.c", "src/lua/lserve.c",
        "src/lua/lprovider.c", "src/provider/provider.c",
        "src/core/expr.c", "src/providers/derived.c", "src/lua/ldefine.c",
        "src/lua/lhttp.c",
      },
      incdirs = { "src/core", "src/providers", "src/capi" },
      libraries = { "inih", "jansson", "dl", "pthread" },
      defines = { "_GNU_SOURCE" },
    },
    ["perflib"] = "lua/perflib/init.lua",
    ["perflib.compat"] = "lua/perflib/compat.lua",
    ["perflib.pretty"] = "lua/perflib/pretty.lua",
    ["perflib.monitor"] = "lua/perflib/monitor.lua",
    ["perflib.view"] = "lua/perflib/view.lua",
    ["perflib.frame"] = "lua/perflib/frame.lua",
    ["perflib.rules"] = "lua/perflib/rules.lua",
    ["perflib.rules.engine"] = "lua/perflib/rules/engine.lua",
    ["perflib.rules.window"] = "lua/perflib/rules/window.lua",
    ["perflib.rules.alert"] = "lua/perflib/rules/alert.lua",
    ["perflib.rules.notify"] = "lua/perflib/rules/notify.lua",
    ["perflib.rules.webhook"] = "lua/perflib/rules/webhook.lua",
    ["perflib.rules.detail"] = "lua/perflib/rules/detail.lua",
    ["perflib.promrules"] = "lua/perflib/promrules.lua",
    ["perflib.rules.text"] = "lua/perflib/rules/text.lua",
    ["perflib.rules.sandbox"] = "lua/perflib/rules/sandbox.lua",
    ["perflib.rules.test"] = "lua/perflib/rules/test.lua",
    ["perflib.record"] = "lua/perflib/record.lua",
    ["perflib.replay"] = "lua/perflib/replay.lua",
  },
}
