-- An LDoc filter (`ldoc --filter ldoc_names.list .`, with this directory on
-- LUA_PATH): prints what LDoc parsed, one documented item a line, so that
-- doc/check-doc.lua compares the reference with what the modules export
-- using LDoc's own model, not a grep of the sources.
--
--   DOC <TAB> module <TAB> kind <TAB> item type <TAB> item name
--
-- kind is "module" or "classmod"; LDoc's own chatter (merge notices) goes
-- to stdout too, which is why every line of ours starts with DOC.
local M = {}

function M.list(module_list)
  for mod in module_list:iter() do
    for item in mod.items:iter() do
      io.write(table.concat({ "DOC", mod.name, mod.type, item.type, item.name }, "\t"), "\n")
    end
    if #mod.items == 0 then io.write(table.concat({ "DOC", mod.name, mod.type, "", "" }, "\t"), "\n") end
  end
end

return M
