-- portico.balancer.ring: a consistent-hash ring (crc32, virtual nodes) over a backend's endpoints.
-- The ring depends only on the endpoint set, so every worker builds the same one and a change of one
-- endpoint moves only about 1/n of the keys.
local ngx_crc32 = ngx.crc32_long
local table_sort = table.sort
local str_format = string.format
local math_floor = math.floor
local ipairs = ipairs
local setmetatable = setmetatable

local _M = {}
local mt = { __index = _M }

local VNODES = 160

local function by_hash(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2].name < b[2].name
end

-- endpoints: the sorted endpoint list of a backend (each with .name = "host:port").
function _M.new(endpoints)
  local points = {}
  for _, ep in ipairs(endpoints) do
    for v = 1, VNODES do
      points[#points + 1] = { ngx_crc32(str_format("%s#%d", ep.name, v)), ep }
    end
  end
  table_sort(points, by_hash)
  local hashes, eps = {}, {}
  for i, p in ipairs(points) do
    hashes[i] = p[1]
    eps[i] = p[2]
  end
  return setmetatable({ hashes = hashes, eps = eps, size = #hashes }, mt)
end

-- The endpoint owning key: the first point clockwise from crc32(key).
-- The ring of `owner.endpoints`, built on first use and kept in `owner.ring` (an owner's sync() clears it when
-- its endpoints change), so workers never pay for backends they do not serve.
function _M.of(owner)
  local r = owner.ring
  if not r then
    r = _M.new(owner.endpoints)
    owner.ring = r
  end
  return r
end

function _M.find(self, key)
  local size = self.size
  if size == 0 then return nil end
  local h = ngx_crc32(key)
  local hashes = self.hashes
  local lo, hi = 1, size
  if h > hashes[size] then return self.eps[1] end
  while lo < hi do
    local mid = math_floor((lo + hi) / 2)
    if hashes[mid] < h then lo = mid + 1 else hi = mid end
  end
  return self.eps[lo]
end

return _M
