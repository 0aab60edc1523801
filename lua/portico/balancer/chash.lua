-- portico.balancer.chash: consistent hashing on `hashBy`, an nginx variable expression evaluated per request
-- ("$request_uri", "$remote_addr", "$host$uri", "${cookie_user}-x"). One key always reaches one endpoint
-- while the endpoint set is unchanged; a changed set moves only about 1/n of the keys.
-- With `hashSubset` (upstream-hash-by-subset) the sorted endpoints are cut into subsets of that many (the last one
-- filled up from the start, as ingress-nginx does), the key picks a subset on a ring of them, and the request a
-- random endpoint inside it.
local ring = require("portico.balancer.ring")

local ngx_var = ngx.var
local setmetatable = setmetatable
local str_find = string.find
local str_match = string.match
local str_sub = string.sub
local str_format = string.format
local table_concat = table.concat
local math_ceil = math.ceil
local math_random = math.random

local _M = {}
local mt = { __index = _M }

-- "$a-x${b}" -> { {var="a"}, "-x", {var="b"} }; validated upstream by portico.configuration.
function _M.parse(expr)
  local parts, pos = {}, 1
  while pos <= #expr do
    local s = str_find(expr, "$", pos, true)
    if not s then
      parts[#parts + 1] = str_sub(expr, pos)
      break
    end
    if s > pos then parts[#parts + 1] = str_sub(expr, pos, s - 1) end
    local name = str_match(expr, "^{([%w_]+)}", s + 1)
    if name then
      pos = s + #name + 3
    else
      name = str_match(expr, "^[%w_]+", s + 1) or ""
      pos = s + #name + 1
    end
    parts[#parts + 1] = { var = name }
  end
  return parts
end

function _M.new(backend)
  local self = setmetatable({}, mt)
  self:sync(backend)
  return self
end

function _M.sync(self, backend)
  if self.hash_by ~= backend.hashBy then
    self.hash_by = backend.hashBy
    local parts = _M.parse(backend.hashBy)
    -- the common case, one variable alone, reads it directly with no concatenation
    self.single = #parts == 1 and parts[1].var or nil
    self.parts = parts
    self.buf = {}
  end
  local subset = backend.hashSubset
  if self.fingerprint ~= backend.fingerprint or self.subset ~= subset then
    self.fingerprint = backend.fingerprint
    self.subset = subset
    self.endpoints = backend.endpoints
    self.ring = nil -- rebuilt on first use (ring.of)
    self.subsets = nil
  end
end

-- The subsets of `endpoints`, `size` each, as ring members (each named for the ring's points).
local function subsets_of(endpoints, size)
  local n = #endpoints
  local out = {}
  for s = 1, math_ceil(n / size) do
    local members = {}
    for j = 1, size do members[j] = endpoints[((s - 1) * size + j - 1) % n + 1] end
    out[s] = { name = str_format("subset-%d", s), members = members, n = size }
  end
  return out
end

function _M.key(self)
  local single = self.single
  if single then return ngx_var[single] or "" end
  local parts, buf = self.parts, self.buf
  for i = 1, #parts do
    local p = parts[i]
    if p.var then buf[i] = ngx_var[p.var] or "" else buf[i] = p end
  end
  return table_concat(buf, "", 1, #parts)
end

function _M.pick(self)
  local size = self.subset
  if not size then return ring.of(self):find(self:key()) end
  local sets = self.subsets
  if not sets then
    sets = { endpoints = subsets_of(self.endpoints, size) }
    self.subsets = sets
  end
  local set = ring.of(sets):find(self:key())
  if not set then return nil end
  return set.members[math_random(set.n)]
end

return _M
