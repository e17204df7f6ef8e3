-- Writes doc/countersets.md, the counter reference, from the built-in
-- definitions themselves (the rows of src/providers/*.c, through the
-- binding), so the page cannot drift from what perflib collects:
--
--   lua5.4 doc/gen-countersets.lua > doc/countersets.md   (make countersets-doc)
--
-- spec/11-countersets_doc_spec.lua fails when the committed page differs
-- from what this prints.  Plain Markdown (lists, no tables) so that LDoc's
-- markdown and GitHub render it alike; config.ld makes it an LDoc topic.
local perflib = require "perflib"

local BUILTIN_LIMIT = 1000000   -- built-in sets have fixed title indexes below it

-- One line of text (the help strings are single paragraphs already), with
-- the characters Markdown would take as markup escaped.
local function text(s)
  return (tostring(s):gsub("%s+", " "):gsub("[\\`*_<%[%]]", "\\%0"))
end

local function units(c)
  local u = c.unit or "none"
  if c.unit_scale and c.unit_scale ~= 1 then u = ("%s x %g"):format(u, c.unit_scale) end
  return ("%s, %s"):format(u, c.semantics or "gauge")
end

local function counter_line(c)
  local parts = { c.type_name, c.detail }
  if c.scale and c.scale ~= 0 then parts[#parts + 1] = ("scale %d"):format(c.scale) end
  if c.size == 4 then parts[#parts + 1] = "32-bit" end
  if c.base then parts[#parts + 1] = ("base: %s"):format(c.base) end
  parts[#parts + 1] = units(c)
  if c.hidden then parts[#parts + 1] = "hidden from `*`" end
  return ("- **%s** (id %d, index %d): `%s`. %s"):format(text(c.name), c.id, c.index,
    table.concat(parts, "`, `"), text(c.help))
end

local function set_section(out, cs)
  out[#out + 1] = ("## %s"):format(text(cs.name))
  out[#out + 1] = ""
  out[#out + 1] = ("Title index %d; GUID `%s`; %s; %s.  %s"):format(cs.index, tostring(cs.guid),
    cs.instance_type == "single" and "one instance" or "multiple instances",
    cs.costly and "costly (left out of Global)" or "in Global", text(cs.help))
  out[#out + 1] = ""
  -- a blank line between items: a loose list in Markdown, and one paragraph
  -- a counter where LDoc has no Markdown formatter (Debian's ldoc)
  for _, c in ipairs(cs.counters) do
    out[#out + 1] = counter_line(c)
    out[#out + 1] = ""
  end
end

local function render()
  local sets = {}
  for cs in perflib.machine():countersets() do
    if cs.index < BUILTIN_LIMIT then sets[#sets + 1] = cs end
  end
  table.sort(sets, function(a, b) return a.index < b.index end)
  local out = {
    "# The counters",
    "",
    "Every built-in counterset and counter, written by `doc/gen-countersets.lua` from",
    "the definitions (`make countersets-doc`); do not edit by hand.  Each counter:",
    "its name, id, title index, counter type, detail level, base, units of the raw",
    "value and their semantics, and its help, which names its source.",
    "",
    ("%d countersets, %d counters."):format(#sets, (function()
      local n = 0
      for _, cs in ipairs(sets) do n = n + #cs.counters end
      return n
    end)()),
    "",
  }
  for _, cs in ipairs(sets) do set_section(out, cs) end
  return table.concat(out, "\n")
end

-- loadfile(...)("--render") hands the page to a spec instead of printing it
if ... == "--render" then return render end
io.write(render())
