-- portico.configuration: the 127.0.0.1 configuration endpoint; validates pushed backends and keeps them in a shared dict.
--
-- POST /configuration/backends  body: JSON array (ADR 0001) -> 201, or 400 with a message and nothing changed
-- POST /configuration/backends-delta  body: {"set": [backend...], "remove": [name...]}: only the backends that
--      changed since the last push (an endpoint change at 10,000 Ingresses is one backend, not all of them) -> 201,
--      400 (nothing changed), or 409 when no full list was posted yet (post one first)
-- GET  /configuration/backends  -> 200 with the JSON nginx holds now (header X-Portico-Version), 404 if none yet
-- POST/GET /configuration/certificates: see portico.certificate
-- POST/GET /configuration/routes: see portico.router (docs/adr/0014)
-- Every request must carry X-Portico-Token (portico.token), else 403 and nothing read or changed.
--
-- The shared dict `portico_backends` holds "backends" (the raw JSON of the last full list, its flags = the version it
-- was posted as: the base), "delta:<v>" for every delta posted since (v = base+1 .. version, as accepted) and
-- "version" (an integer incremented on every accepted POST, after the data). Workers compare "version" on the
-- request path (portico.balancer), through a cheaper signal when the platform allows it: see version_cell(); a worker
-- at a version >= base applies only the deltas after it, any other decodes the full list and the deltas after its
-- base. A full POST deletes the deltas it replaces. Portico posts one at a time (the executor awaits each).
local cjson = require("cjson.safe")

local ngx = ngx
local type = type
local pairs = pairs
local next = next
local ipairs = ipairs
local tostring = tostring
local tonumber = tonumber
local math_floor = math.floor
local str_find = string.find
local str_match = string.match
local str_format = string.format
local str_gsub = string.gsub

local _M = {}

local BACKENDS_DICT = "portico_backends"
_M.BACKENDS_DICT = BACKENDS_DICT
_M.KEY_DATA = "backends"
_M.KEY_VERSION = "version"
_M.DELTA_PREFIX = "delta:"

local json_null = cjson.null

-- The version cell: 4 bytes of memory shared by the nginx master and all of its workers (an anonymous MAP_SHARED
-- page mapped in init_by_lua, before the workers fork), into which every accepted POST writes the new version. A
-- worker reads it with one plain load on the request path and asks the shared dict (which takes its lock and moves
-- the key in its LRU queue, ~550 instructions a request) only when the cell changed. The shared dict stays the
-- truth: a cell value is only a hint to look. The page is mapped once per master: its address is kept in the shared
-- dict (which survives a reload) and found again by the next init_by_lua of the same master after a SIGHUP, so old
-- and new workers share it. Where mmap cannot be used, cell is nil and workers read the dict on every request.
local KEY_CELL = "version-cell-address"
local cell = nil

local function map_cell()
  local ok_ffi, ffi = pcall(require, "ffi")
  if not ok_ffi or ffi.os ~= "Linux" or (ffi.arch ~= "x64" and ffi.arch ~= "arm64") then return nil end
  pcall(ffi.cdef, "void *mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);")
  local dict = ngx.shared[BACKENDS_DICT]
  if not dict then return nil end
  local addr = dict:get(KEY_CELL)
  if type(addr) == "number" then return ffi.cast("int32_t *", ffi.cast("uintptr_t", addr)) end
  local PROT_READ_WRITE, MAP_SHARED_ANONYMOUS = 3, 0x21
  local p = ffi.C.mmap(nil, 4096, PROT_READ_WRITE, MAP_SHARED_ANONYMOUS, -1, 0)
  local addr_num = tonumber(ffi.cast("intptr_t", p))
  if addr_num == -1 or addr_num == 0 then return nil end
  local c = ffi.cast("int32_t *", p)
  c[0] = tonumber(dict:get(_M.KEY_VERSION)) or 0
  if not dict:safe_set(KEY_CELL, addr_num) then return nil end
  return c
end

-- init_by_lua (the master, before the workers fork).
function _M.init()
  require("portico.token").init()
  local ok, c = pcall(map_cell)
  if ok then cell = c else ngx.log(ngx.WARN, "portico: no shared version cell, workers read the dict: ", tostring(c)) end
end

-- The version cell (int32_t *) or nil.
function _M.version_cell()
  return cell
end

local function is_integer(v, min, max)
  return type(v) == "number" and v == math_floor(v) and v >= min and v <= max
end

local function is_absent(v)
  return v == nil or v == json_null
end

-- The validity rules below are the TypeScript model's, written again (test/lua/validity.test.ts proves them equal).

local function valid_octet(o)
  return o ~= nil and (o == "0" or str_match(o, "^[1-9]%d?%d?$") ~= nil) and tonumber(o) <= 255
end

local function valid_ipv4(s)
  local a, b, c, d = str_match(s, "^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
  return valid_octet(a) and valid_octet(b) and valid_octet(c) and valid_octet(d)
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

local function check_backend(b, at, seen)
  if type(b) ~= "table" then return at .. ": must be an object" end
  if type(b.name) ~= "string" or not str_match(b.name, "^[a-z0-9_.-]+$") then
    return at .. ".name: must match [a-z0-9_.-]+"
  end
  if seen[b.name] then return at .. ".name: duplicate backend " .. b.name end
  seen[b.name] = true
  at = str_format("%s (%s)", at, b.name)

  local eps = b.endpoints
  if type(eps) ~= "table" or (next(eps) ~= nil and #eps == 0) then
    return at .. ".endpoints: must be an array"
  end
  for j, ep in ipairs(eps) do
    local eat = str_format("%s.endpoints[%d]", at, j - 1)
    if type(ep) ~= "table" then return eat .. ": must be an object" end
    if type(ep.address) ~= "string" or not (valid_ipv4(ep.address) or valid_ipv6(ep.address)) then
      return eat .. ".address: must be an IPv4 or IPv6 address (IPv6 without brackets)"
    end
    if not is_integer(ep.port, 1, 65535) then return eat .. ".port: must be an integer 1-65535" end
  end

  if not is_absent(b.loadBalance) and b.loadBalance ~= "round_robin" and b.loadBalance ~= "ewma" then
    return at .. ".loadBalance: must be \"round_robin\" or \"ewma\""
  end
  if not is_absent(b.hashBy) and (type(b.hashBy) ~= "string" or not valid_hash_by(b.hashBy)) then
    return at .. ".hashBy: must be \"\" or an nginx variable expression such as $request_uri"
  end
  if not is_absent(b.canary) then
    local msg = require("portico.canary").validate(b.canary, at .. ".canary")
    if msg then return msg end
  end
  if not is_absent(b.affinity) then
    return check_affinity(b.affinity, at .. ".affinity")
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
    local msg = check_backend(b, str_format("backends[%d]", i - 1), seen)
    if msg then
      rejected[#rejected + 1] = { name = type(b) == "table" and type(b.name) == "string" and b.name or "", reason = msg }
    else
      valid[#valid + 1] = b
    end
  end
  return valid, rejected
end

-- The lines of a 201 answer that name what was dropped: "rejected <name>: <reason>", one a line.
function _M.rejected_lines(rejected)
  local out = {}
  for i, r in ipairs(rejected) do out[i] = str_format("\nrejected %s: %s", r.name, r.reason) end
  return table.concat(out)
end

function _M.read_body()
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  if body then return body end
  local path = ngx.req.get_body_file()
  if not path then return nil end
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  body = f:read("*a")
  f:close()
  return body
end

function _M.respond(status, text)
  ngx.status = status
  ngx.header["Content-Type"] = "text/plain; charset=utf-8"
  ngx.print(text, "\n")
  return ngx.exit(status)
end

-- The new version: data first, then version, then the cell (a worker that sees the new cell value or version finds
-- the new data in the dict). Returns the version or nil and a message.
local function bump(dict)
  local version, ierr = dict:incr(_M.KEY_VERSION, 1, 0)
  if not version then return nil, "could not bump the backends version: " .. tostring(ierr) end
  if cell then cell[0] = version % 2147483647 end
  return version
end

local function post_backends()
  local body, rerr = _M.read_body()
  if rerr then return _M.respond(500, "could not read the request body: " .. rerr) end
  local list, rejected = _M.validate_backends(body)
  if not list then return _M.respond(400, "backends rejected, nothing changed: " .. rejected) end
  -- Only what was accepted is stored; the body as sent when everything was (the common case: no re-encoding).
  if #rejected > 0 then
    body = #list == 0 and "[]" or cjson.encode(list)
    ngx.log(ngx.WARN, "portico: dropped ", #rejected, " invalid backends:", _M.rejected_lines(rejected))
  end

  local dict = ngx.shared[BACKENDS_DICT]
  local before = tonumber(dict:get(_M.KEY_VERSION)) or 0
  local _, old_base = dict:get(_M.KEY_DATA)
  -- safe_set never evicts the version key to make room; a full dict is an error, not a silent loss. The flags hold
  -- the version this list becomes (the base the deltas after it build on).
  local ok, err = dict:safe_set(_M.KEY_DATA, body, 0, before + 1)
  if not ok then return _M.respond(500, "could not store backends, nothing changed: " .. tostring(err)) end
  local version, berr = bump(dict)
  if not version then return _M.respond(500, berr) end
  -- the deltas the new list replaces (a worker still reading them finds one missing and decodes the full list)
  for v = (tonumber(old_base) or before) + 1, before do dict:delete(_M.DELTA_PREFIX .. v) end
  ngx.header["X-Portico-Version"] = version
  return _M.respond(201, str_format("%d backends stored, version %d", #list, version) .. _M.rejected_lines(rejected))
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
    local msg = check_backend(b, str_format("set[%d]", i - 1), seen)
    if msg then
      local name = type(b) == "table" and type(b.name) == "string" and b.name or ""
      rejected[#rejected + 1] = { name = name, reason = msg }
      if str_match(name, "^[a-z0-9_.-]+$") then remove[#remove + 1] = name end
    else
      set[#set + 1] = b
    end
  end
  for i, name in ipairs(d.remove) do
    if type(name) ~= "string" or not str_match(name, "^[a-z0-9_.-]+$") then return nil, str_format("remove[%d]: must be a backend name", i - 1) end
    remove[#remove + 1] = name
  end
  return { set = set, remove = remove }, rejected
end

local function post_backends_delta()
  local body, rerr = _M.read_body()
  if rerr then return _M.respond(500, "could not read the request body: " .. rerr) end
  local delta, rejected = _M.validate_delta(body)
  if not delta then return _M.respond(400, "delta rejected, nothing changed: " .. rejected) end
  local dict = ngx.shared[BACKENDS_DICT]
  if dict:get(_M.KEY_DATA) == nil then return _M.respond(409, "no full backends list yet: post one to /configuration/backends first") end
  if #rejected > 0 then
    body = cjson.encode(delta)
    ngx.log(ngx.WARN, "portico: dropped ", #rejected, " invalid backends:", _M.rejected_lines(rejected))
  end
  local before = tonumber(dict:get(_M.KEY_VERSION)) or 0
  local ok, err = dict:safe_set(_M.DELTA_PREFIX .. (before + 1), body)
  if not ok then return _M.respond(500, "could not store the delta, nothing changed: " .. tostring(err)) end
  local version, berr = bump(dict)
  if not version then return _M.respond(500, berr) end
  ngx.header["X-Portico-Version"] = version
  return _M.respond(201, str_format("%d backends set, %d removed, version %d", #delta.set, #delta.remove, version) .. _M.rejected_lines(rejected))
end

-- The deltas v = from+1 .. to, decoded, or nil when one is gone (a full POST replaced them) or does not decode.
local function deltas(dict, from, to)
  local out = {}
  for v = from + 1, to do
    local raw = dict:get(_M.DELTA_PREFIX .. v)
    local d = raw and cjson.decode(raw)
    if type(d) ~= "table" then return nil end
    out[#out + 1] = d
  end
  return out
end

-- What a reader at version `since` (nil: none) needs to be at the version the dict holds now:
--   list == nil, ds, version: since >= the base, and ds are the deltas after `since` (in order)
--   list, ds, version: the full list decoded, and the deltas after its base
--   nil when nothing was posted, or the dict changed under three reads in a row (the next request asks again)
function _M.read(since)
  local dict = ngx.shared[BACKENDS_DICT]
  for _ = 1, 3 do
    local version = tonumber(dict:get(_M.KEY_VERSION)) or 0
    local data, base = dict:get(_M.KEY_DATA)
    if not data then return nil end
    base = tonumber(base) or version
    if since and since >= base and since <= version then
      local ds = deltas(dict, since, version)
      if ds then return nil, ds, version end
    end
    local list = cjson.decode(data)
    if type(list) ~= "table" then
      ngx.log(ngx.ERR, "portico: cannot decode the backends list of version ", tostring(base))
      return nil
    end
    -- base > version: a full POST between its data and its version bump; the list is that version
    if base >= version then return list, {}, base end
    local ds = deltas(dict, base, version)
    if ds then return list, ds, version end
  end
  return nil
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

local function get_backends()
  local dict = ngx.shared[BACKENDS_DICT]
  local data, base = dict:get(_M.KEY_DATA)
  if not data then return _M.respond(404, "no backends configured") end
  local version = tonumber(dict:get(_M.KEY_VERSION)) or 0
  -- deltas since the full list: the list as the workers hold it, encoded again
  if (tonumber(base) or version) < version then
    local list, ds, v = _M.read(nil)
    if not list then return _M.respond(503, "the backends changed under the read; ask again") end
    for _, d in ipairs(ds) do list = merge(list, d) end
    -- lua-cjson 2.1 encodes an empty table as {}: endpoints is the only array a backend holds (a key of that name
    -- followed by {} cannot occur inside a JSON string, whose quotes are escaped)
    data, version = #list == 0 and "[]" or str_gsub(cjson.encode(list), '"endpoints":{}', '"endpoints":[]'), v
  end
  ngx.header["X-Portico-Version"] = version
  ngx.header["Content-Type"] = "application/json"
  ngx.print(data)
  return ngx.exit(200)
end

-- portico.certificate requires this module, so it is loaded on first use, not here.
local function post_certificates() return require("portico.certificate").post() end
local function get_certificates() return require("portico.certificate").get() end

local routes = {
  ["/configuration/backends"] = { GET = get_backends, POST = post_backends },
  ["/configuration/backends-delta"] = { POST = post_backends_delta },
  ["/configuration/certificates"] = { GET = get_certificates, POST = post_certificates },
  -- the dynamic route table (portico.router, docs/adr/0014), loaded on first use like portico.certificate
  ["/configuration/routes"] = { GET = function() return require("portico.router").get() end, POST = function() return require("portico.router").post() end },
  -- the Gateway API route table (portico.gateway, docs/adr/0011)
  ["/configuration/gateway"] = { GET = function() return require("portico.gateway").get() end, POST = function() return require("portico.gateway").post() end },
  -- per-request figures (portico.metrics), read by Portico on every scrape of /metrics
  ["/configuration/metrics"] = { GET = function() return require("portico.metrics").dump() end },
}

-- content_by_lua in `location /configuration/` of the status server.
function _M.call()
  -- Only Portico, before any other work: the per-start token (portico.token, docs/adr/0007).
  if not require("portico.token").check() then return _M.respond(403, "forbidden: the configuration endpoint answers Portico only") end
  local handlers = routes[ngx.var.uri]
  if not handlers then return _M.respond(404, "unknown configuration path " .. ngx.var.uri) end
  local handler = handlers[ngx.req.get_method()]
  if not handler then
    ngx.header["Allow"] = "GET, POST"
    return _M.respond(405, "method not allowed")
  end
  return handler()
end

return _M
