-- portico.balancer.ewma: latency-aware balancing. Of two random endpoints take the one with the lower
-- score = (EWMA of upstream response time) x (requests in flight + 1); the EWMA decays toward zero while an
-- endpoint is idle, so a once-slow endpoint is tried again later. log() feeds the response times back.
local ngx = ngx
local ngx_var = ngx.var
local ngx_now = ngx.now
local math_exp = math.exp
local math_random = math.random
local setmetatable = setmetatable
local ipairs = ipairs
local tonumber = tonumber
local str_find = string.find
local str_gmatch = string.gmatch

local _M = {}
local mt = { __index = _M }

local DECAY_SECONDS = 10 -- an idle endpoint's EWMA loses about 63% every 10 s
local ALPHA = 0.3        -- weight of a new sample
local FLOOR = 0.001      -- 1 ms: endpoints without samples still compare by requests in flight

function _M.new(backend)
  local self = setmetatable({ stats = {} }, mt)
  self:sync(backend)
  return self
end

-- Keeps the statistics of endpoints that are still there, drops the others.
function _M.sync(self, backend)
  self.endpoints = backend.endpoints
  self.n = backend.n
  if self.fingerprint == backend.fingerprint then return end
  self.fingerprint = backend.fingerprint
  local old, stats = self.stats, {}
  for _, ep in ipairs(backend.endpoints) do
    stats[ep.name] = old[ep.name] or { ewma = 0, t = 0, active = 0 }
  end
  self.stats = stats
end

local function score(st, now)
  local ewma = st.ewma
  if ewma > 0 then ewma = ewma * math_exp((st.t - now) / DECAY_SECONDS) end
  return (ewma + FLOOR) * (st.active + 1)
end

function _M.pick(self)
  local eps, n = self.endpoints, self.n
  local ep = eps[1]
  if n > 1 then
    local i = math_random(n)
    local j = math_random(n - 1)
    if j >= i then j = j + 1 end
    local a, b = eps[i], eps[j]
    local now, stats = ngx_now(), self.stats
    ep = score(stats[a.name], now) <= score(stats[b.name], now) and a or b
  end
  local st = self.stats[ep.name]
  st.active = st.active + 1
  return ep
end

local function observe(st, seconds, now)
  local ewma = st.ewma
  if st.t > 0 then ewma = ewma * math_exp((st.t - now) / DECAY_SECONDS) else ewma = seconds end
  st.ewma = ewma + ALPHA * (seconds - ewma)
  st.t = now
end

-- log_by_lua: the first peer tried is the one pick() counted in flight; every tried peer with a time gets a
-- sample. $upstream_addr / $upstream_response_time list tries as "a, b" (and " : " across internal redirects).
function _M.log(self)
  local addrs = ngx_var.upstream_addr
  if not addrs then return end
  local times = ngx_var.upstream_response_time or ""
  local stats, now = self.stats, ngx_now()
  if not str_find(addrs, ",", 1, true) and not str_find(addrs, " : ", 1, true) then
    local st = stats[addrs]
    if not st then return end
    if st.active > 0 then st.active = st.active - 1 end
    local t = tonumber(times)
    if t then observe(st, t, now) end
    return
  end
  local list, m = {}, 0
  for t in str_gmatch(times, "[^,:%s]+") do
    m = m + 1
    list[m] = tonumber(t) -- "-" (no response) leaves a hole, keeping the positions aligned
  end
  local k = 0
  for addr in str_gmatch(addrs, "[^,%s]+") do
    if addr ~= ":" then
      k = k + 1
      local st = stats[addr]
      if st then
        if k == 1 and st.active > 0 then st.active = st.active - 1 end
        if list[k] then observe(st, list[k], now) end
      end
    end
  end
end

return _M
