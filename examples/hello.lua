-- List the countersets perflib knows about.
--
--   build/perflua examples/hello.lua
--
-- perflua has perflib built in: no LUA_PATH or LUA_CPATH needed.
local perflib = require "perflib"

print(("%-24s %-38s %s"):format("counterset", "guid", "instances"))
for cs in perflib.countersets() do
  print(("%-24s %-38s %s"):format(cs.name, cs.guid, cs.instance_type))
end
