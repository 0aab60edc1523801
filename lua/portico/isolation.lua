-- portico.isolation: listener isolation of the Gateway API route table (src/model/gateway/isolation.ts). A match of
-- a route attached through a less specific listener carries "exceptHosts", the hostnames of the more specific
-- listeners of the same Gateway and port (exact names, or "*.example.com" for any name of one or more labels more);
-- portico.gateway skips the match when the request's $host (lower case, as nginx makes it) matches one of them.
local type = type
local ipairs = ipairs
local str_sub = string.sub
local str_match = string.match

local _M = {}

local MAX = 64

-- nil when `list` is absent or an array of at most 64 listener hostnames, else a message naming `at`.
function _M.check(list, at)
  if list == nil then return nil end
  if type(list) ~= "table" or #list == 0 or #list > MAX then return at .. ": must be an array of 1-64 hostnames" end
  for i, h in ipairs(list) do
    if type(h) ~= "string" or #h > 253 or not str_match(h, "^[*]?[a-z0-9.-]+$") or (str_sub(h, 1, 1) == "*" and str_sub(h, 2, 2) ~= ".") then
      return at .. "[" .. (i - 1) .. "]: must be a hostname or *.domain"
    end
  end
  return nil
end

-- Once per push: the exact names as a set, the wildcards as suffixes (".example.com").
function _M.prepare(m)
  if m.exceptHosts == nil then return end
  local exact, suffixes = {}, {}
  for _, h in ipairs(m.exceptHosts) do
    if str_sub(h, 1, 2) == "*." then suffixes[#suffixes + 1] = str_sub(h, 2) else exact[h] = true end
  end
  m.except_exact, m.except_suffixes = exact, suffixes
end

-- true when `host` is a name one of the more specific listeners serves: the match is not for this request.
function _M.excluded(m, host)
  if m.except_exact[host] then return true end
  local n = #host
  for _, s in ipairs(m.except_suffixes) do
    if n > #s and str_sub(host, -#s) == s then return true end
  end
  return false
end

return _M
