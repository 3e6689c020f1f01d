-- File helpers for the specs.
local M = {}

-- The whole file, as bytes.
function M.read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end

return M
