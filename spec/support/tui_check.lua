-- Shared check of the terminal specs (93-tui_*): rows of a layout fit w x h,
-- carry no control byte, and (styled) each has a style.  The caller passes
-- its busted assert (a dofile'd chunk sees Lua's own).
return function(assert, rows, w, h, styled)
  local S = require "perflib.screen"
  assert.is_true(#rows <= h, ("%d rows for a height of %d"):format(#rows, h))
  for i, r in ipairs(rows) do
    assert.is_true(S.cols(r.text) <= w, ("row %d is %d columns wide: %q"):format(i, S.cols(r.text), r.text))
    assert.is_nil(r.text:find "[%z\1-\31\127]", ("control byte in row %d"):format(i))
    if styled then assert.is_string(r.style) end
  end
end
