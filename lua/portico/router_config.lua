-- portico.router_config: the route table's configuration endpoint (docs/adr/0014): POST /configuration/routes
-- validates the whole table (one bad entry refuses it; the table is one consistent answer of the model) and stores it
-- with its own version; GET returns what nginx holds. The format is described in portico.router, which matches on it.
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

local _M = {}

_M.KEY_DATA = "routes"
_M.KEY_VERSION = "routes-version"
_M.CELL_SLOT = 1 -- the version cell's second int32 (portico.configuration): slot 0 is the backends' version

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

local function check_host(h, at, ntargets)
  if type(h) ~= "table" then return at .. ": must be an object" end
  if type(h.hsts) ~= "boolean" then return at .. ".hsts: must be a boolean" end
  return check_paths(h.exact, at .. ".exact", ntargets, false) or check_paths(h.prefix, at .. ".prefix", ntargets, true)
end

-- The decoded table, or nil and why it was refused (whole: the table is one consistent answer of the model).
function _M.validate(body)
  if type(body) ~= "string" or body == "" then return nil, "empty body: expected a JSON object" end
  local t, err = cjson.decode(body)
  if type(t) ~= "table" then return nil, "invalid JSON: " .. tostring(err or "not an object") end
  if type(t.targets) ~= "table" or (next(t.targets) ~= nil and #t.targets == 0) then return nil, "targets: must be an array" end
  local n = #t.targets
  for i, target in ipairs(t.targets) do
    local msg = check_target(target, str_format("targets[%d]", i - 1))
    if msg then return nil, msg end
  end
  if not is_object(t.hosts) then return nil, "hosts: must be an object" end
  for host, h in pairs(t.hosts) do
    if type(host) ~= "string" or not (str_match(host, "^[a-z0-9][a-z0-9.-]*$") or str_match(host, "^%*%.[a-z0-9][a-z0-9.-]*$")) then
      return nil, "hosts: " .. tostring(host) .. " is not a host name"
    end
    local msg = check_host(h, "hosts[" .. host .. "]", n)
    if msg then return nil, msg end
  end
  local msg = check_host(t.default, "default", n)
  if msg then return nil, msg end
  if t.default.prefix["/"] == nil then return nil, "default.prefix: must hold \"/\"" end
  return t
end


-- POST/GET /configuration/routes (portico.configuration checked the token).
function _M.post()
  local body, rerr = configuration.read_body()
  if rerr then return configuration.respond(500, "could not read the request body: " .. rerr) end
  local t, err = _M.validate(body)
  if not t then return configuration.respond(400, "routes rejected, nothing changed: " .. err) end
  local d = ngx.shared[configuration.BACKENDS_DICT]
  local ok, serr = d:safe_set(_M.KEY_DATA, body)
  if not ok then return configuration.respond(500, "could not store routes, nothing changed: " .. tostring(serr)) end
  local version, ierr = d:incr(_M.KEY_VERSION, 1, 0)
  if not version then return configuration.respond(500, "could not bump the routes version: " .. tostring(ierr)) end
  local c = configuration.version_cell()
  if c then c[_M.CELL_SLOT] = version % 2147483647 end
  ngx.header["X-Portico-Version"] = version
  local n = 0
  for _ in pairs(t.hosts) do n = n + 1 end
  return configuration.respond(201, str_format("routes of %d hosts stored, version %d", n, version))
end

function _M.get()
  local d = ngx.shared[configuration.BACKENDS_DICT]
  local data = d:get(_M.KEY_DATA)
  if not data then return configuration.respond(404, "no routes configured") end
  ngx.header["X-Portico-Version"] = d:get(_M.KEY_VERSION)
  ngx.header["Content-Type"] = "application/json"
  ngx.print(data)
  return ngx_exit(200)
end


return _M
