-- portico.router_config: the route table's kind of portico.store (docs/adr/0014). POST /configuration/routes?id=ID
-- stores a whole table (validated whole: one bad entry refuses it); POST /configuration/routes?from=OLD&id=ID stores
-- a delta, the entries of the hosts that changed (a host mapped to null is removed; "default" only when it changed),
-- accepted only when the table nginx holds is OLD (else 409: the controller then posts the whole table), at most
-- MAX_DELTAS after a whole table. portico.store keeps the whole table, the deltas since and the version, and this
-- module each host's entry under a key of its own (below); a worker reads the entries of the hosts its requests name
-- and forgets those the deltas it has not seen name (portico.router). GET returns the table as nginx holds it (the
-- whole one with its deltas applied). The format is described in portico.router, which matches on it.
local cjson = require("cjson.safe")
local store = require("portico.store")
local check = require("portico.check")

local type = type
local pairs = pairs
local ipairs = ipairs
local tostring = tostring
local str_byte = string.byte
local str_match = string.match
local str_format = string.format
local str_gmatch = string.gmatch
local table_concat = table.concat
local null = cjson.null
local is_int = check.is_int
local is_object = check.is_object
-- GET's decoder: keeps empty arrays arrays when encoded again where this cjson can (a host's targets are never empty)
local cjson_get = cjson.new()
if cjson_get.decode_array_with_array_mt then cjson_get.decode_array_with_array_mt(true) end

local _M = {}

-- Deltas kept after a whole table, at most: past it a delta is refused (409) and the controller posts the whole table.
_M.MAX_DELTAS = 512

-- Where an entry is, made only for a message: the host's ("hosts[<host>]", "default" when host is nil), or its
-- target i's (0-based): a whole table of 100,000 hosts was checked with a place made for every host and target.
local function where(host, i)
  local at = host == nil and "default" or "hosts[" .. host .. "]"
  if i == nil then return at end
  return str_format("%s.targets[%d]", at, i)
end

local function check_target(t, host, i)
  if type(t) ~= "table" then return where(host, i) .. ": must be an object" end
  if not check.name(t.backend, true) then return where(host, i) .. ".backend: must match [a-z0-9_.-]*" end
  if not check.name(t.canary, true) then return where(host, i) .. ".canary: must match [a-z0-9_.-]*" end
  if not (t.redirect == 0 or is_int(t.redirect, 300, 399)) then return where(host, i) .. ".redirect: must be 0 or 300-399" end
  if type(t.denied) ~= "boolean" then return where(host, i) .. ".denied: must be a boolean" end
  if type(t.rewrite) ~= "boolean" then return where(host, i) .. ".rewrite: must be a boolean" end
  if type(t.profile) ~= "string" or not (t.profile == "" or str_match(t.profile, "^@portico_profile_[0-9a-f]+$")) then
    return where(host, i) .. ".profile: must be \"\" or @portico_profile_<hex>"
  end
  if not check.no_controls(t.metrics, 2048) then
    return where(host, i) .. ".metrics: must be printable, at most 2048"
  end
  local cp = t.cookiePath
  if cp ~= nil and cp ~= "off" and not (type(cp) == "string" and #cp <= 1024 and str_match(cp, "^/[%w%-._~!&'()*+,=:@/%%]*$")) then
    return where(host, i) .. ".cookiePath: must be absent, \"off\" or an absolute path of URI characters without ';', at most 1024"
  end
  -- optional: the route's request body limit in bytes, 0 for none (docs/adr/0063; nginx's largest size is 999999999g)
  if t.maxBody ~= nil and not is_int(t.maxBody, 0, 2 ^ 60) then
    return where(host, i) .. ".maxBody: must be absent or an integer of bytes, 0 to 2^60"
  end
  -- optional: "namespace|ingress|service|port|path" for ingress-nginx's $namespace, $service_name...
  if t.ingress ~= nil and not check.no_controls(t.ingress, 8192) then
    return where(host, i) .. ".ingress: must be printable, at most 8192"
  end
  return nil
end

local function check_paths(m, host, field, ntargets, prefix)
  if not is_object(m) then return where(host) .. field .. ": must be an object" end
  for p, i in pairs(m) do
    if type(p) ~= "string" or str_byte(p, 1) ~= 47 or #p > 8192 then return where(host) .. field .. ": paths must start with '/'" end
    if prefix and str_byte(p, #p) ~= 47 then return str_format("%s%s[%q]: a prefix must end with '/'", where(host), field, p) end
    if not is_int(i, 0, ntargets - 1) then return str_format("%s%s[%q]: must be a target index", where(host), field, p) end
  end
  return nil
end

-- The host's entry (host nil: the default entry).
local function check_host(h, host)
  if type(h) ~= "table" then return where(host) .. ": must be an object" end
  if type(h.hsts) ~= "boolean" then return where(host) .. ".hsts: must be a boolean" end
  local targets = h.targets
  if not check.is_array(targets) then return where(host) .. ".targets: must be an array" end
  for i, target in ipairs(targets) do
    local msg = check_target(target, host, i - 1)
    if msg then return msg end
  end
  local n = #targets
  return check_paths(h.exact, host, ".exact", n, false) or check_paths(h.prefix, host, ".prefix", n, true)
end

local function check_default(h)
  local msg = check_host(h, nil)
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
      local msg = check_host(h, host)
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

-- Each host's entry under a key of its own, for the workers (portico.router): a worker started by a reload reads the
-- hosts its requests name, not the whole table (at 100,000 hosts its decode took a worker 0.5-0.7 s and 86-90 MiB;
-- docs/adr/0050).
-- Keys of the whole table stored as version B (its base), in portico.store's dict beside the kind's own keys:
--   "routes:h:B:<host>"  a host's entry as JSON, opened by a count (put below; "*.example.com" as posted); a delta
--                        rewrites or deletes the hosts it names
--   "routes:d:B"         the default entry, stored the same way
--   "routes:l:B"         every host name stored under B, one a line (to delete them when a whole table replaces B)
--   "routes:base"        B of the table the workers read (set just before the version is bumped)
_M.KEY_BASE = "routes:base"
function _M.host_key(base, host) return "routes:h:" .. base .. ":" .. host end
function _M.default_key(base) return "routes:d:" .. base end
local function list_key(base) return "routes:l:" .. base end

-- Deletes the keys of the hosts `names` lists under `base`.
local function delete_hosts(dict, base, names)
  for name in str_gmatch(names, "[^\n]+") do dict:delete(_M.host_key(base, name)) end
end

-- An entry is stored as "[n,{...}]", n counting this worker's puts (docs/adr/0061): LuaJIT (OpenResty's branch, as
-- Debian ships it) hashes a string of 128 bytes or more from its first and last 8 bytes and 16 samples at offsets
-- drawn at random when nginx starts. 100,000 entries that differ only between the samples all hashed alike, and
-- interning each new one walked a chain of all the others: a 100,000-host table took minutes instead of 3-6 s in
-- about half the nginx starts. The count makes the first 8 bytes differ.
local puts = 0
local function put(dict, key, value)
  puts = puts % 9999999 + 1
  local ok, err = dict:safe_set(key, cjson.encode({ puts, value }))
  if not ok then return key .. ": " .. tostring(err) end
  return nil
end

-- A stored entry (a host's or the default), decoded; nil when it does not decode.
function _M.decode_entry(raw)
  local e = cjson.decode(raw)
  if type(e) ~= "table" or type(e[2]) ~= "table" then return nil end
  return e[2]
end

-- portico.store's stage: the entries of a whole table under its own base (nothing else reads them until commit), or
-- a delta's into the base the workers read. The host list first: whatever fails after it, the list names every key
-- written, and portico.store's `replaced` deletes a failed whole table's keys by it.
local function stage(dict, t, delta, base)
  local listed = {}
  for host, h in pairs(t.hosts) do
    if h ~= null and not (delta and dict:get(_M.host_key(base, host)) ~= nil) then listed[#listed + 1] = host end
  end
  if #listed > 0 or not delta then
    local before = delta and dict:get(list_key(base))
    local ok, err = dict:safe_set(list_key(base), (before and before .. "\n" or "") .. table_concat(listed, "\n"))
    if not ok then return "the host list: " .. tostring(err) end
  end
  for host, h in pairs(t.hosts) do
    local key = _M.host_key(base, host)
    if h == null then
      dict:delete(key)
    else
      local err = put(dict, key, h)
      if err then return err end
    end
  end
  return t.default ~= nil and put(dict, _M.default_key(base), t.default) or nil
end

-- A whole table's keys become the ones the workers read.
local function commit(dict, version)
  local ok, err = dict:safe_set(_M.KEY_BASE, version)
  if not ok then return "the table's base: " .. tostring(err) end
  return nil
end

-- The keys of the table stored as `base`: replaced, or never committed (its stage or store failed).
local function replaced(dict, base)
  delete_hosts(dict, base, dict:get(list_key(base)) or "")
  dict:delete(list_key(base))
  dict:delete(_M.default_key(base))
end

store.kind("routes", {
  stage = stage,
  commit = commit,
  replaced = replaced,
  what = "routes",
  validate = function(body) return _M.validate(body, false) end,
  validate_delta = function(body) return _M.validate(body, true) end,
  merge = _M.apply_delta,
  encode = function(t) return cjson_get.encode(t) end,
  decoder = cjson_get,
  max_deltas = _M.MAX_DELTAS,
  describe = function(t, delta)
    local n = 0
    for _ in pairs(t.hosts) do n = n + 1 end
    return str_format("routes of %d hosts %s", n, delta and "changed" or "stored")
  end,
})

return _M
