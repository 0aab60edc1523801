-- portico.balancer.chash: consistent hashing on `hashBy`, an nginx variable expression evaluated per request
-- ("$request_uri", "$remote_addr", "$host$uri", "${cookie_user}-x"). One key always reaches one endpoint
-- while the endpoint set is unchanged; a changed set moves only about 1/n of the keys.
local ring = require("portico.balancer.ring")

local ngx_var = ngx.var
local setmetatable = setmetatable
local str_find = string.find
local str_match = string.match
local str_sub = string.sub
local table_concat = table.concat

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
  if self.fingerprint ~= backend.fingerprint then
    self.fingerprint = backend.fingerprint
    self.endpoints = backend.endpoints
    self.ring = nil -- rebuilt on first use (ring.of)
  end
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
  return ring.of(self):find(self:key())
end

return _M
