-- portico.configuration: the 127.0.0.1 configuration endpoint (content_by_lua of `location /configuration/`), and the
-- backends kind of portico.store: validates pushed backends (ADR 0001).
--
-- POST /configuration/backends[?id=ID]  body: JSON array (ADR 0001) -> 201, or 400 with a message and nothing changed
-- POST /configuration/backends?from=OLD&id=ID  body: {"set": [backend...], "remove": [name...]}: only the backends
--      that changed since the list OLD (an endpoint change at 10,000 Ingresses is one backend, not all of them) -> 201,
--      400 (nothing changed), or 409 when nginx does not hold OLD (post the whole list); /configuration/backends-delta
--      takes the same delta without from= and applies it to whatever whole list nginx holds
-- GET  /configuration/backends  -> 200 with the JSON nginx holds now (header X-Portico-Version), 404 if none yet
-- POST/GET /configuration/certificates, /routes, /gateway: portico.certificate, portico.router_config, portico.gateway
-- Every request must carry X-Portico-Token (portico.token), else 403 and nothing read or changed. Storage, versions,
-- deltas and the version cell the workers watch: portico.store; the worker-side tables: portico.balancer.
local cjson = require("cjson.safe")
local store = require("portico.store")
local check = require("portico.check")

local ngx = ngx
local type = type
local pairs = pairs
local next = next
local ipairs = ipairs
local tostring = tostring
local str_find = string.find
local str_match = string.match
local str_format = string.format
local str_gsub = string.gsub
local str_byte = string.byte

local _M = {}

-- init_by_lua (the master, before the workers fork).
function _M.init()
  require("portico.token").init()
  store.init()
end

local is_integer = check.is_int
local is_absent = check.is_absent

-- The validity rules below are the TypeScript model's, written again (test/lua/validity.test.ts proves them equal).

-- Four decimal octets 0-255 without a leading zero, by bytes: no pattern and no capture strings (a whole push checks
-- one an endpoint, about 1,000,000 at 100,000 Ingresses; four captures and four matches each took most of its check).
local function valid_ipv4(s)
  local n = #s
  if n < 7 or n > 15 then return false end
  local dots, value, digits, first = 0, 0, 0, 0
  for i = 1, n do
    local c = str_byte(s, i)
    if c == 46 then -- "."
      if digits == 0 or dots == 3 then return false end
      dots, value, digits = dots + 1, 0, 0
    elseif c >= 48 and c <= 57 then
      if digits == 1 and first == 48 then return false end -- a leading zero
      if digits == 0 then first = c end
      digits, value = digits + 1, value * 10 + c - 48
      if value > 255 then return false end
    else
      return false
    end
  end
  return dots == 3 and digits > 0
end

-- Colon-separated hex groups ("" is none), or -1 when one is not 1-4 hex digits.
local function hex_groups(part)
  if part == "" then return 0 end
  local n = 0
  for g in (part .. ":"):gmatch("([^:]*):") do
    if not str_match(g, "^%x%x?%x?%x?$") then return -1 end
    n = n + 1
  end
  return n
end

-- Without brackets or zone (ADR 0001): eight groups, or fewer around one "::", the last two optionally dotted IPv4.
local function valid_ipv6(s)
  if #s < 2 or #s > 45 or not str_match(s, "^[%x:.]+$") then return false end
  local head, max = s, 8
  local v4 = str_match(s, ":(%d+%.%d+%.%d+%.%d+)$")
  if v4 then
    if not valid_ipv4(v4) then return false end
    head = s:sub(1, #s - #v4)
    if s:sub(#head - 1, #head) ~= "::" then head = head:sub(1, #head - 1) end
    max = 6
  elseif str_find(s, ".", 1, true) then
    return false
  end
  local at = str_find(head, "::", 1, true)
  if not at then return hex_groups(head) == max end
  if str_find(head, "::", at + 2, true) then return false end
  local left, right = hex_groups(head:sub(1, at - 1)), hex_groups(head:sub(at + 2))
  return left >= 0 and right >= 0 and left + right <= max - 1
end

-- hashBy: at most 32 tokens, each $var, ${var} (lower-case names) or one of [A-Za-z0-9_.:/-]; at least one variable.
local function valid_hash_by(s)
  if s == "" then return true end
  local i, tokens, vars = 1, 0, 0
  while i <= #s do
    local v = str_match(s, "^%$[a-z_][a-z0-9_]*", i) or str_match(s, "^%${[a-z_][a-z0-9_]*}", i)
    if v then
      vars = vars + 1
    else
      v = str_match(s, "^[%w_.:/-]", i)
      if not v then return false end
    end
    i = i + #v
    tokens = tokens + 1
    if tokens > 32 then return false end
  end
  return vars > 0
end

local SAMESITE = { None = true, Lax = true, Strict = true }

local function check_affinity(a, at)
  if type(a) ~= "table" then return at .. ": must be null or an object" end
  if a.mode ~= "balanced" and a.mode ~= "persistent" then
    return at .. ".mode: must be \"balanced\" or \"persistent\""
  end
  -- cookie-name token (RFC 6265): no separators, no spaces, no control characters
  if type(a.name) ~= "string" or not str_match(a.name, "^[%w!#%%&'*+.^_`|~-]+$") or #a.name > 64 then
    return at .. ".name: must be a cookie name"
  end
  if not is_absent(a.path) and (type(a.path) ~= "string" or #a.path > 1024 or not str_match(a.path, "^/[%w%-._~!&'()*+,=:@/%%]*$")) then
    return at .. ".path: must be an absolute path of URI characters without ';', at most 1024"
  end
  if not is_absent(a.maxAge) and not is_integer(a.maxAge, 0, 2^31) then
    return at .. ".maxAge: must be null or an integer number of seconds"
  end
  if not is_absent(a.expires) and not is_integer(a.expires, 0, 2^31) then
    return at .. ".expires: must be null or an integer number of seconds"
  end
  if not is_absent(a.canaryBehavior) and a.canaryBehavior ~= "legacy" and a.canaryBehavior ~= "sticky" then
    return at .. ".canaryBehavior: must be null, \"sticky\" or \"legacy\""
  end
  if not is_absent(a.sameSite) and a.sameSite ~= "" and not SAMESITE[a.sameSite] then
    return at .. ".sameSite: must be null, \"\", \"None\", \"Lax\" or \"Strict\""
  end
  if not is_absent(a.secure) and type(a.secure) ~= "boolean" then
    return at .. ".secure: must be a boolean"
  end
  return nil
end

-- Where a backend is in the body ("backends[3]"), and with its name once it has a valid one: made only for a message.
local function place_of(list, i, name)
  if name == nil then return str_format("%s[%d]", list, i - 1) end
  return str_format("%s[%d] (%s)", list, i - 1, name)
end

-- The first thing wrong with backend `b`, the `i`th of `list` ("backends" or "set"), as a message; nil when valid.
local function check_backend(b, list, i, seen)
  if type(b) ~= "table" then return place_of(list, i) .. ": must be an object" end
  local name = b.name
  if not check.name(name) then
    return place_of(list, i) .. ".name: must match [a-z0-9_.-]+"
  end
  if seen[name] then return place_of(list, i) .. ".name: duplicate backend " .. name end
  seen[name] = true

  local eps = b.endpoints
  if not check.is_array(eps) then
    return place_of(list, i, name) .. ".endpoints: must be an array"
  end
  for j, ep in ipairs(eps) do
    if type(ep) ~= "table" then return str_format("%s.endpoints[%d]: must be an object", place_of(list, i, name), j - 1) end
    local address = ep.address
    if type(address) ~= "string" or not (valid_ipv4(address) or valid_ipv6(address)) then
      return str_format("%s.endpoints[%d].address: must be an IPv4 or IPv6 address (IPv6 without brackets)", place_of(list, i, name), j - 1)
    end
    if not is_integer(ep.port, 1, 65535) then return str_format("%s.endpoints[%d].port: must be an integer 1-65535", place_of(list, i, name), j - 1) end
  end

  if not is_absent(b.loadBalance) and b.loadBalance ~= "round_robin" and b.loadBalance ~= "ewma" then
    return place_of(list, i, name) .. ".loadBalance: must be \"round_robin\" or \"ewma\""
  end
  if not is_absent(b.hashBy) and (type(b.hashBy) ~= "string" or not valid_hash_by(b.hashBy)) then
    return place_of(list, i, name) .. ".hashBy: must be \"\" or an nginx variable expression such as $request_uri"
  end
  if not is_absent(b.hashSubset) and not is_integer(b.hashSubset, 1, 1000) then
    return place_of(list, i, name) .. ".hashSubset: must be null or an integer 1-1000"
  end
  if not is_absent(b.canary) then
    local msg = require("portico.canary").validate(b.canary, place_of(list, i, name) .. ".canary")
    if msg then return msg end
  end
  if not is_absent(b.affinity) then
    return check_affinity(b.affinity, place_of(list, i, name) .. ".affinity")
  end
  return nil
end

-- Returns the decoded list of valid backends and the list of rejected ones ({ at = "backends[i] (name)", reason = ...
-- }), or nil and a message when the body itself is not a JSON array. One bad backend is dropped and reported; it
-- never takes the others with it.
function _M.validate_backends(body)
  if type(body) ~= "string" or body == "" then return nil, "empty body: expected a JSON array of backends" end
  local list, err = cjson.decode(body)
  if list == nil then return nil, "invalid JSON: " .. tostring(err) end
  if type(list) ~= "table" then return nil, "expected a JSON array of backends" end
  if next(list) ~= nil and #list == 0 then return nil, "expected a JSON array of backends, got an object" end
  local n = 0
  for _ in pairs(list) do n = n + 1 end
  if n ~= #list then return nil, "expected a JSON array of backends" end
  local seen, valid, rejected = {}, {}, {}
  for i, b in ipairs(list) do
    local msg = check_backend(b, "backends", i, seen)
    if msg then
      rejected[#rejected + 1] = { name = type(b) == "table" and type(b.name) == "string" and b.name or "", reason = msg }
    else
      valid[#valid + 1] = b
    end
  end
  return valid, rejected
end

-- Validates a delta body: the valid backends to set, the names to remove (a rejected backend is removed too, as a
-- full list drops it) and the rejected ones; or nil and a message when the body itself is not a delta.
function _M.validate_delta(body)
  if type(body) ~= "string" or body == "" then return nil, "empty body: expected {\"set\": [...], \"remove\": [...]}" end
  local d, err = cjson.decode(body)
  if d == nil then return nil, "invalid JSON: " .. tostring(err) end
  if type(d) ~= "table" or type(d.set) ~= "table" or type(d.remove) ~= "table" then return nil, "expected {\"set\": [...], \"remove\": [...]}" end
  local seen, set, remove, rejected = {}, {}, {}, {}
  for i, b in ipairs(d.set) do
    local msg = check_backend(b, "set", i, seen)
    if msg then
      local name = type(b) == "table" and type(b.name) == "string" and b.name or ""
      rejected[#rejected + 1] = { name = name, reason = msg }
      if check.name(name) then remove[#remove + 1] = name end
    else
      set[#set + 1] = b
    end
  end
  for i, name in ipairs(d.remove) do
    if not check.name(name) then return nil, str_format("remove[%d]: must be a backend name", i - 1) end
    remove[#remove + 1] = name
  end
  return { set = set, remove = remove }, rejected
end

-- A delta applied to a decoded list (GET): a set backend replaces the one of its name or is appended; removed
-- names are dropped.
local function merge(list, d)
  local at = {}
  for i, b in ipairs(list) do at[b.name] = i end
  for _, b in ipairs(d.set) do
    local i = at[b.name]
    if i then list[i] = b else list[#list + 1] = b; at[b.name] = #list end
  end
  local gone = {}
  for _, name in ipairs(d.remove) do gone[name] = true end
  if next(gone) == nil then return list end
  local kept = {}
  for _, b in ipairs(list) do
    if not gone[b.name] then kept[#kept + 1] = b end
  end
  return kept
end

-- GET: cjson 2.1 encodes an empty table as {}: endpoints is the only array a backend holds (a key of that name followed
-- by {} cannot occur inside a JSON string, whose quotes are escaped)
local function encode(list)
  return #list == 0 and "[]" or (str_gsub(cjson.encode(list), '"endpoints":{}', '"endpoints":[]'))
end

store.kind("backends", {
  what = "backends",
  validate = _M.validate_backends,
  validate_delta = _M.validate_delta,
  merge = merge,
  encode = encode,
  describe = function(p, delta)
    if delta then return str_format("%d backends set, %d removed", #p.set, #p.remove) end
    return str_format("%d backends stored", #p)
  end,
})

-- The kinds of portico.store, each loaded on first use (portico.certificate needs ngx.ssl, portico.router the
-- balancer), and the metrics.
local function kind(name) return { GET = function() return store.get(name) end, POST = function() return store.post(name) end } end
local routes = {
  ["/configuration/backends"] = kind("backends"),
  ["/configuration/backends-delta"] = { POST = function() return store.post("backends", true) end },
  ["/configuration/certificates"] = kind("certificates"),
  -- the dynamic route table (portico.router, docs/adr/0014)
  ["/configuration/routes"] = kind("routes"),
  -- the Gateway API route table (portico.gateway, docs/adr/0011)
  ["/configuration/gateway"] = kind("gateway"),
  -- per-request figures (portico.metrics), read by Portico on every scrape of /metrics
  ["/configuration/metrics"] = { GET = function() return require("portico.metrics").dump() end },
}

-- content_by_lua in `location /configuration/` of the status server.
function _M.call()
  -- Only Portico, before any other work: the per-start token (portico.token, docs/adr/0007).
  if not require("portico.token").check() then return store.respond(403, "forbidden: the configuration endpoint answers Portico only") end
  local handlers = routes[ngx.var.uri]
  if not handlers then return store.respond(404, "unknown configuration path " .. ngx.var.uri) end
  local handler = handlers[ngx.req.get_method()]
  if not handler then
    ngx.header["Allow"] = "GET, POST"
    return store.respond(405, "method not allowed")
  end
  return handler()
end

return _M
