-- portico.router_config: the route table's configuration endpoint (docs/adr/0014). POST /configuration/routes?id=ID
-- stores a whole table (validated whole: one bad entry refuses it); POST /configuration/routes?from=OLD&id=ID stores
-- a delta, the entries of the hosts that changed (a host mapped to null is removed; "default" only when it changed),
-- accepted only when the table nginx holds is OLD (else 409: the controller then posts the whole table). Deltas
-- since the last whole table are kept in the dict beside it, each under its own version, so a worker applies the
-- ones it has not seen to the table it compiled, and a worker with nothing compiled takes the whole table and then
-- the deltas. GET returns the table as nginx holds it (the whole one with its deltas applied). The format is
-- described in portico.router, which matches on it.
local cjson = require("cjson.safe")
local configuration = require("portico.configuration")

local ngx = ngx
local ngx_exit = ngx.exit
local type = type
local pairs = pairs
local ipairs = ipairs
local next = next
local tostring = tostring
local math_floor = math.floor
local str_byte = string.byte
local str_find = string.find
local str_match = string.match
local str_format = string.format
local null = cjson.null
-- GET's decoder: keeps empty arrays arrays when encoded again where this cjson can (a host's targets are never empty)
local cjson_get = cjson.new()
if cjson_get.decode_array_with_array_mt then cjson_get.decode_array_with_array_mt(true) end

local _M = {}

_M.KEY_VERSION = "routes-version" -- bumped by every POST (whole or delta)
_M.KEY_BASE = "routes-base"       -- the version of the last whole table
_M.KEY_ID = "routes-id"           -- the controller's id of the table nginx holds (deltas name it as `from`)
_M.CELL_SLOT = 1 -- the version cell's second int32 (portico.configuration): slot 0 is the backends' version
-- Deltas kept after a whole table, at most: past it a delta is refused (409) and the controller posts the whole table.
_M.MAX_DELTAS = 512

-- The whole table of version v, and the delta that made version v.
function _M.whole_key(v) return "routes:" .. v end
function _M.delta_key(v) return "routes-delta:" .. v end

local function is_int(v, min, max)
  return type(v) == "number" and v == math_floor(v) and v >= min and v <= max
end

local function is_object(v)
  if type(v) ~= "table" then return false end
  return next(v) == nil or #v == 0
end

local function check_target(t, at)
  if type(t) ~= "table" then return at .. ": must be an object" end
  if type(t.backend) ~= "string" or not str_match(t.backend, "^[a-z0-9_.-]*$") then return at .. ".backend: must match [a-z0-9_.-]*" end
  if type(t.canary) ~= "string" or not str_match(t.canary, "^[a-z0-9_.-]*$") then return at .. ".canary: must match [a-z0-9_.-]*" end
  if not (t.redirect == 0 or is_int(t.redirect, 300, 399)) then return at .. ".redirect: must be 0 or 300-399" end
  if type(t.denied) ~= "boolean" then return at .. ".denied: must be a boolean" end
  if type(t.rewrite) ~= "boolean" then return at .. ".rewrite: must be a boolean" end
  if type(t.profile) ~= "string" or not (t.profile == "" or str_match(t.profile, "^@portico_profile_[0-9a-f]+$")) then
    return at .. ".profile: must be \"\" or @portico_profile_<hex>"
  end
  if type(t.metrics) ~= "string" or #t.metrics > 2048 or str_find(t.metrics, "[%z\1-\31\127]") then
    return at .. ".metrics: must be printable, at most 2048"
  end
  return nil
end

local function check_paths(m, at, ntargets, prefix)
  if not is_object(m) then return at .. ": must be an object" end
  for p, i in pairs(m) do
    if type(p) ~= "string" or str_byte(p, 1) ~= 47 or #p > 8192 then return at .. ": paths must start with '/'" end
    if prefix and str_byte(p, #p) ~= 47 then return str_format("%s[%q]: a prefix must end with '/'", at, p) end
    if not is_int(i, 0, ntargets - 1) then return str_format("%s[%q]: must be a target index", at, p) end
  end
  return nil
end

local function check_host(h, at)
  if type(h) ~= "table" then return at .. ": must be an object" end
  if type(h.hsts) ~= "boolean" then return at .. ".hsts: must be a boolean" end
  local targets = h.targets
  if type(targets) ~= "table" or (next(targets) ~= nil and #targets == 0) then return at .. ".targets: must be an array" end
  for i, target in ipairs(targets) do
    local msg = check_target(target, str_format("%s.targets[%d]", at, i - 1))
    if msg then return msg end
  end
  local n = #targets
  return check_paths(h.exact, at .. ".exact", n, false) or check_paths(h.prefix, at .. ".prefix", n, true)
end

local function check_default(h)
  local msg = check_host(h, "default")
  if msg then return msg end
  if h.prefix["/"] == nil then return "default.prefix: must hold \"/\"" end
  return nil
end

-- The decoded table or delta, or nil and why it was refused (whole: one bad entry refuses all of it). In a delta
-- (`delta` true) a host may be null (removed) and the default may be absent (unchanged).
function _M.validate(body, delta)
  if type(body) ~= "string" or body == "" then return nil, "empty body: expected a JSON object" end
  local t, err = cjson.decode(body)
  if type(t) ~= "table" then return nil, "invalid JSON: " .. tostring(err or "not an object") end
  if not is_object(t.hosts) then return nil, "hosts: must be an object" end
  for host, h in pairs(t.hosts) do
    if type(host) ~= "string" or not (str_match(host, "^[a-z0-9][a-z0-9.-]*$") or str_match(host, "^%*%.[a-z0-9][a-z0-9.-]*$")) then
      return nil, "hosts: " .. tostring(host) .. " is not a host name"
    end
    if not (delta and h == null) then
      local msg = check_host(h, "hosts[" .. host .. "]")
      if msg then return nil, msg end
    end
  end
  if not (delta and t.default == nil) then
    local msg = check_default(t.default)
    if msg then return nil, msg end
  end
  return t
end

-- `t` (a decoded whole table) with the delta `d` applied, in place.
function _M.apply_delta(t, d)
  for host, h in pairs(d.hosts) do
    if h == null then t.hosts[host] = nil else t.hosts[host] = h end
  end
  if d.default ~= nil then t.default = d.default end
  return t
end

local function valid_id(id)
  return type(id) == "string" and #id <= 64 and str_match(id, "^[A-Za-z0-9._-]+$") ~= nil
end

-- The new version, its id and the cell (data first: a worker that sees the version finds its data in the dict).
local function bump(d, version, id)
  local ok, err = d:safe_set(_M.KEY_VERSION, version)
  if not ok then return "could not store the routes version: " .. tostring(err) end
  if id then d:set(_M.KEY_ID, id) else d:delete(_M.KEY_ID) end
  local c = configuration.version_cell()
  if c then c[_M.CELL_SLOT] = version % 2147483647 end
  ngx.header["X-Portico-Version"] = version
  return nil
end

-- POST /configuration/routes[?id=ID] (whole) or ?from=OLD&id=ID (delta); portico.configuration checked the token.
function _M.post()
  local args = ngx.req.get_uri_args(4)
  local id, from = args.id, args.from
  if id ~= nil and not valid_id(id) then return configuration.respond(400, "routes rejected, nothing changed: id must match [A-Za-z0-9._-]{1,64}") end
  local delta = from ~= nil
  if delta and (not valid_id(from) or id == nil) then return configuration.respond(400, "routes rejected, nothing changed: a delta needs from= and id=") end
  local body, rerr = configuration.read_body()
  if rerr then return configuration.respond(500, "could not read the request body: " .. rerr) end
  local t, err = _M.validate(body, delta)
  if not t then return configuration.respond(400, "routes rejected, nothing changed: " .. err) end
  local d = ngx.shared[configuration.BACKENDS_DICT]
  local current = d:get(_M.KEY_VERSION) or 0
  local base = d:get(_M.KEY_BASE)
  local version = current + 1
  local n = 0
  for _ in pairs(t.hosts) do n = n + 1 end
  if delta then
    if base == nil or d:get(_M.KEY_ID) ~= from then
      return configuration.respond(409, "routes delta refused, nothing changed: nginx does not hold table " .. from .. ": post the whole table")
    end
    if version - base > _M.MAX_DELTAS then
      return configuration.respond(409, "routes delta refused, nothing changed: too many deltas since the whole table: post it again")
    end
    local ok, serr = d:safe_set(_M.delta_key(version), body)
    if not ok then return configuration.respond(500, "could not store the routes delta, nothing changed: " .. tostring(serr)) end
    local berr = bump(d, version, id)
    if berr then return configuration.respond(500, berr) end
    return configuration.respond(201, str_format("routes of %d hosts changed, version %d", n, version))
  end
  local ok, serr = d:safe_set(_M.whole_key(version), body)
  if not ok then return configuration.respond(500, "could not store routes, nothing changed: " .. tostring(serr)) end
  d:set(_M.KEY_BASE, version)
  local berr = bump(d, version, id)
  if berr then return configuration.respond(500, berr) end
  -- what the new whole table replaces (a worker still reading it finds it gone and starts again from this one)
  if base then
    d:delete(_M.whole_key(base))
    for v = base + 1, current do d:delete(_M.delta_key(v)) end
  end
  return configuration.respond(201, str_format("routes of %d hosts stored, version %d", n, version))
end

-- The whole table of the dict's current version as a Lua table (decoded whole table, deltas applied), its version;
-- nil when none was posted. (For GET: a worker compiles from the same keys, portico.router.)
function _M.current()
  local d = ngx.shared[configuration.BACKENDS_DICT]
  for _ = 1, 3 do
    local version, base = d:get(_M.KEY_VERSION), d:get(_M.KEY_BASE)
    if base == nil or version == nil then return nil end
    local t = cjson_get.decode(d:get(_M.whole_key(base)) or "")
    local ok = type(t) == "table"
    for v = base + 1, version do
      if not ok then break end
      local delta = cjson_get.decode(d:get(_M.delta_key(v)) or "")
      if type(delta) == "table" then _M.apply_delta(t, delta) else ok = false end
    end
    if ok then return t, version end
  end
  return nil
end

function _M.get()
  local t, version = _M.current()
  if not t then return configuration.respond(404, "no routes configured") end
  ngx.header["X-Portico-Version"] = version
  ngx.header["Content-Type"] = "application/json"
  ngx.print(cjson_get.encode(t))
  return ngx_exit(200)
end


return _M
