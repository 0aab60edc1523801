-- portico.check: the small validators every pushed payload uses (backends, routes, Gateway API routes, canary
-- policies, certificates), written once. Each answers true or false; the callers word the message, naming the field.
local type = type
local next = next
local math_floor = math.floor
local str_find = string.find
local str_match = string.match
local json_null = require("cjson.safe").null

local _M = {}

-- An integer number min..max (JSON numbers are doubles: 1.5 is refused).
function _M.is_int(v, min, max)
  return type(v) == "number" and v == math_floor(v) and v >= min and v <= max
end

-- Absent from the JSON, or JSON null.
function _M.is_absent(v)
  return v == nil or v == json_null
end

-- A decoded JSON object ({} too): a table with no array part.
function _M.is_object(v)
  if type(v) ~= "table" then return false end
  return next(v) == nil or #v == 0
end

-- A decoded JSON array ([] decodes as {} too): a table that is empty or has an array part.
function _M.is_array(v)
  return type(v) == "table" and (next(v) == nil or #v > 0)
end

-- A string of printable ASCII and tab, at most max bytes.
function _M.printable(s, max)
  return type(s) == "string" and #s <= max and not str_match(s, "[^\t\32-\126]")
end

-- A string of printable ASCII (32-126) without tab, '$' refused too when no_dollar; no length bound.
function _M.ascii(s, no_dollar)
  if type(s) ~= "string" or str_find(s, "[^\32-\126]") then return false end
  return not (no_dollar and str_find(s, "$", 1, true))
end

-- A string without control characters (UTF-8 allowed), at most max bytes.
function _M.no_controls(s, max)
  return type(s) == "string" and #s <= max and not str_find(s, "[%z\1-\31\127]")
end

-- A backend (upstream) name as the model makes them: [a-z0-9_.-]+ ("" too when empty_ok).
function _M.name(s, empty_ok)
  if type(s) ~= "string" then return false end
  if s == "" then return empty_ok == true end
  return str_match(s, "^[a-z0-9_.-]+$") ~= nil
end

-- The controller's id of a pushed payload (portico.store: a delta names the one it starts from).
function _M.id(s)
  return type(s) == "string" and #s <= 64 and str_match(s, "^[A-Za-z0-9._-]+$") ~= nil
end

return _M
