-- portico.balancer.sticky: cookie affinity (ingress-nginx `affinity: cookie` semantics).
--   persistent: the cookie holds md5("host:port") of the client's endpoint; the client stays on it for as long
--               as it exists, otherwise it gets the next endpoint by round robin and a new cookie.
--   balanced:   the cookie holds a random 16-hex-digit key that is placed on a consistent-hash ring of the
--               endpoints; a client stays while the set is unchanged, and a changed set moves only the ~1/n
--               of clients needed to rebalance (including every client of an endpoint that went away).
--               "-" and 8 hex digits of md5(backend name) follow the key, so owns() can tell which backend
--               issued it (a key without them, from before, still pins; it just belongs to no backend).
-- Where: a location of an Ingress that asked for affinity sets $portico_affinity_cookie_path to the cookie's path,
-- the backend's other locations set "off" (no cookie there; a client's cookie still picks), and where nginx.conf
-- sets nothing (the dynamic route table) the backend's session-cookie-path, else /, applies.
-- owns(): ingress-nginx's is_affinitized, for the canary decision (affinity-canary-behavior sticky; legacy: never).
-- rewrite() runs in the rewrite phase, where Set-Cookie can still be added; pick() is the fallback without a
-- cookie for the balancer phase.
local ring = require("portico.balancer.ring")
local round_robin = require("portico.balancer.round_robin")

local ngx = ngx
local ngx_var = ngx.var
local ngx_md5 = ngx.md5
local ngx_time = ngx.time
local ngx_http_time = ngx.http_time -- RFC 1123 date (ngx.cookie_time gives a 2-digit year)
local math_random = math.random
local setmetatable = setmetatable
local type = type
local table_concat = table.concat
local ipairs = ipairs
local str_format = string.format
local str_match = string.match
local str_sub = string.sub

local _M = {}
local mt = { __index = _M }

-- The attributes after Path, which each location may give (set_cookie).
local function cookie_attributes(a)
  local attrs = {}
  if type(a.maxAge) == "number" then attrs[#attrs + 1] = str_format("; Max-Age=%d", a.maxAge) end
  if type(a.sameSite) == "string" and a.sameSite ~= "" then attrs[#attrs + 1] = "; SameSite=" .. a.sameSite end
  if a.secure == true then attrs[#attrs + 1] = "; Secure" end
  attrs[#attrs + 1] = "; HttpOnly"
  return table_concat(attrs)
end

function _M.new(backend)
  local self = setmetatable({}, mt)
  self:sync(backend)
  return self
end

function _M.sync(self, backend)
  local a = backend.affinity
  self.persistent = a.mode == "persistent"
  self.legacy = a.canaryBehavior == "legacy"
  self.tag = str_sub(ngx_md5(backend.name or ""), 1, 8)
  self.cookie_name = a.name
  self.cookie_var = "cookie_" .. a.name
  self.path = type(a.path) == "string" and a.path ~= "" and a.path or "/"
  self.attributes = cookie_attributes(a)
  self.secure = a.secure == true
  self.expires = type(a.expires) == "number" and a.expires or nil
  if self.rr then self.rr:sync(backend) else self.rr = round_robin.new(backend) end
  if self.fingerprint ~= backend.fingerprint then
    self.fingerprint = backend.fingerprint
    self.endpoints = backend.endpoints
    self.ring = nil
    self.by_id = nil
  end
end

function _M.pick(self)
  return self.rr:pick()
end

local function set_cookie(self, value)
  local path = ngx_var.portico_affinity_cookie_path
  if path == "off" then return end
  if path == nil or path == "" then path = self.path end
  local cookie = self.cookie_name .. "=" .. value .. "; Path=" .. path .. self.attributes
  if self.expires then cookie = cookie .. "; Expires=" .. ngx_http_time(ngx_time() + self.expires) end
  -- As ingress-nginx: over HTTPS the cookie is Secure whatever session-cookie-secure says.
  if not self.secure and ngx_var.https == "on" then cookie = cookie .. "; Secure" end
  ngx.header["Set-Cookie"] = cookie
end

local function by_id_of(self)
  local by_id = self.by_id
  if not by_id then
    by_id = {}
    for _, ep in ipairs(self.endpoints) do by_id[ngx_md5(ep.name)] = ep end
    self.by_id = by_id
  end
  return by_id
end

-- The ring key of a balanced cookie value ("<16 hex>" or "<16 hex>-<8 hex>"), and its backend tag; nil if neither.
local function balanced_key(value)
  if not value then return nil end
  if #value == 16 and str_match(value, "^%x+$") then return value, nil end
  if #value == 25 and str_match(value, "^%x+%-%x+$") and str_sub(value, 17, 17) == "-" then return str_sub(value, 1, 16), str_sub(value, 18) end
  return nil
end

local function persistent(self, value)
  local by_id = by_id_of(self)
  local ep = value and by_id[value]
  if ep then return ep end
  ep = self.rr:pick()
  set_cookie(self, ngx_md5(ep.name))
  return ep
end

local function balanced(self, value)
  local r = ring.of(self)
  local key = balanced_key(value)
  if key then return r:find(key) end
  key = str_format("%08x%08x", math_random(0, 0x7fffffff), math_random(0, 0x7fffffff))
  set_cookie(self, key .. "-" .. self.tag)
  return r:find(key)
end

-- Whether this request's cookie was issued by this backend (and names a live endpoint, persistent mode).
function _M.owns(self)
  if self.legacy then return false end
  local value = ngx_var[self.cookie_var]
  if not value then return false end
  if self.persistent then return by_id_of(self)[value] ~= nil end
  local _, tag = balanced_key(value)
  return tag == self.tag
end

-- Rewrite phase: the endpoint for this request, setting the cookie when the client needs a new one.
function _M.rewrite(self)
  local value = ngx_var[self.cookie_var]
  if self.persistent then return persistent(self, value) end
  return balanced(self, value)
end

return _M
