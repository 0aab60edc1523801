-- portico.balancer.round_robin: plain round robin over a backend's endpoints (the default algorithm).
local math_random = math.random
local setmetatable = setmetatable

local _M = {}
local mt = { __index = _M }

function _M.new(backend)
  local self = setmetatable({}, mt)
  self:sync(backend)
  return self
end

-- Keeps the cursor when the endpoint set is unchanged; otherwise starts at a random endpoint so that the
-- workers do not all send their first request to the same one.
function _M.sync(self, backend)
  local changed = self.fingerprint ~= backend.fingerprint
  self.endpoints = backend.endpoints
  self.n = backend.n
  self.fingerprint = backend.fingerprint
  if changed or not self.i then
    self.i = self.n > 0 and math_random(self.n) - 1 or 0
  end
end

function _M.pick(self)
  local i = self.i + 1
  if i > self.n then i = 1 end
  self.i = i
  return self.endpoints[i]
end

return _M
