-- portico.store: the one versioned store of every payload Portico pushes to Lua (docs/adr/0001): backends, the
-- route table (docs/adr/0014), the Gateway API route table (docs/adr/0011) and certificates. Each of them is a kind:
-- its module registers (kind()) what is its own (validating a whole payload and a delta, merging a delta into a
-- payload, a summary line) and builds its worker-local tables from read(); everything else is here.
--
-- POST /configuration/<kind>[?id=ID]          a whole payload: replaces what nginx holds, and the deltas since
-- POST /configuration/<kind>?from=OLD&id=ID   a delta: only what changed since payload OLD; refused (409, nothing
--      changed) unless nginx holds OLD, or when nginx holds no whole payload, or past the kind's bound on deltas
--      (the controller then posts the whole payload). -> 201 (a "rejected <name>: <reason>" line per entry the
--      kind dropped), 400 with a message and nothing changed. X-Portico-Version names the version stored.
-- GET  /configuration/<kind>                  what nginx holds (the whole payload with its deltas merged), or 404.
-- portico.configuration routes the requests here after checking the token (portico.token).
--
-- A kind's keys in its shared dict: "<kind>" (the last whole payload; its flags are the version it was stored as: the
-- base), "<kind>:delta:<v>" (every delta accepted since, v = base+1 .. version), "<kind>:version" (written after the
-- data) and "<kind>:id" (the controller's id of what nginx holds). A whole payload deletes the deltas it replaces.
-- Portico posts one at a time (the executor awaits each).
local cjson = require("cjson.safe")
local check = require("portico.check")

local ngx = ngx
local type = type
local pairs = pairs
local ipairs = ipairs
local tostring = tostring
local tonumber = tonumber
local str_format = string.format
local table_concat = table.concat

local _M = {}

_M.DICT = "portico_backends" -- every kind's dict but the certificates', and where the version cell's address is kept

-- Each kind: its dict, its int32 in the version cell, the module that registers it, and its keys.
local PLACES = {}
for kind, p in pairs({
  backends = { dict = "portico_backends", slot = 0, module = "portico.configuration" },
  routes = { dict = "portico_backends", slot = 1, module = "portico.router_config" },
  gateway = { dict = "portico_backends", slot = 2, module = "portico.gateway" },
  certificates = { dict = "portico_certificates", slot = 3, module = "portico.certificate" },
}) do
  p.whole, p.version, p.id, p.delta = kind, kind .. ":version", kind .. ":id", kind .. ":delta:"
  PLACES[kind] = p
end

-- Deltas kept after a whole payload, at most, unless the kind says otherwise: past it a delta is refused (409).
local MAX_DELTAS = 1024

local specs = {} -- kind -> what its module registered

-- Where a kind lives: { dict, slot, whole, version, id, delta } (keys as above).
function _M.place(kind)
  return PLACES[kind]
end

-- A kind's module registers itself when loaded. spec:
--   what                  the payload's name in answers ("backends", "routes", ...)
--   validate(body)        -> payload, rejected ({ name, reason } list, may be nil) | nil, message: a whole payload
--   validate_delta(body)  -> delta, rejected | nil, message (absent: the kind takes whole payloads only)
--   merge(payload, delta) -> payload with the delta applied (GET and current())
--   encode(payload)       a whole payload's JSON, stored when entries were dropped and shown by GET after deltas
--                         (default cjson.encode; a delta with dropped entries is stored as cjson.encode gives it)
--   describe(payload, is_delta) -> the 201 answer's first words ("3 backends stored")
--   show(payload, version) the GET body (default: the payload as stored, or encode(current()) after deltas)
--   decoder               the cjson instance current() decodes with (default cjson.safe)
--   max_deltas            the bound on deltas (default 1024)
--   stage(dict, payload, is_delta, base) -> nil | message: called once a payload is accepted, before it is stored and
--                         its version bumped (a kind's own keys, read by its workers); base is the version of the whole
--                         payload the stored data then builds on (the new version itself for a whole payload)
--   commit(dict, version) -> nil | message: called once a whole payload is stored, just before its version is bumped
--                         (its keys made the ones its workers read)
--   replaced(dict, base)  called after a whole payload replaced the one stored as version `base`, or failed to be
--                         stored as version `base` (its own keys' cleanup)
function _M.kind(kind, spec)
  specs[kind] = spec
  return PLACES[kind]
end

local function spec_of(kind)
  local spec = specs[kind]
  if spec then return spec end
  require(PLACES[kind].module)
  return specs[kind]
end

-- The version cell: 4 bytes a kind (its slot) of memory shared by the nginx master and all of its workers (an
-- anonymous MAP_SHARED page mapped in init_by_lua, before the workers fork), into which every accepted POST writes
-- its kind's new version. A worker reads its slot with one plain load on the request path and asks the shared dict
-- (which takes its lock and moves the key in its LRU queue, ~550 instructions a request) only when the slot changed.
-- The shared dict stays the truth: a cell value is only a hint to look. The page is mapped once per master: its
-- address is kept in the shared dict (which survives a reload) and found again by the next init_by_lua of the same
-- master after a SIGHUP, so old and new workers share it. Where mmap cannot be used, cell is nil and workers read the
-- dict on every request.
local KEY_CELL = "version-cell-address"
local cell = nil

local function map_cell()
  local ok_ffi, ffi = pcall(require, "ffi")
  if not ok_ffi or ffi.os ~= "Linux" or (ffi.arch ~= "x64" and ffi.arch ~= "arm64") then return nil end
  pcall(ffi.cdef, "void *mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);")
  local dict = ngx.shared[_M.DICT]
  if not dict then return nil end
  local addr = dict:get(KEY_CELL)
  if type(addr) == "number" then return ffi.cast("int32_t *", ffi.cast("uintptr_t", addr)) end
  local PROT_READ_WRITE, MAP_SHARED_ANONYMOUS = 3, 0x21
  local p = ffi.C.mmap(nil, 4096, PROT_READ_WRITE, MAP_SHARED_ANONYMOUS, -1, 0)
  local addr_num = tonumber(ffi.cast("intptr_t", p))
  if addr_num == -1 or addr_num == 0 then return nil end
  local c = ffi.cast("int32_t *", p)
  for _, place in pairs(PLACES) do
    local d = ngx.shared[place.dict]
    c[place.slot] = d and tonumber(d:get(place.version)) or 0
  end
  if not dict:safe_set(KEY_CELL, addr_num) then return nil end
  return c
end

-- init_by_lua (the master, before the workers fork).
function _M.init()
  local ok, c = pcall(map_cell)
  if ok then cell = c else ngx.log(ngx.WARN, "portico: no shared version cell, workers read the dict: ", tostring(c)) end
end

-- The version cell (int32_t *, a kind's version at its place's slot) or nil.
function _M.version_cell()
  return cell
end

-- Request bodies and answers of the configuration endpoint.

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

-- The lines of a 201 answer that name what was dropped: "rejected <name>: <reason>", one a line.
function _M.rejected_lines(rejected)
  local out = {}
  for i, r in ipairs(rejected or {}) do out[i] = str_format("\nrejected %s: %s", r.name, r.reason) end
  return table_concat(out)
end

-- The new version, after the data: then the id, then the cell (a worker that sees the new cell value or version finds
-- the new data in the dict). Returns an error message or nil.
local function bump(dict, place, version, id)
  local ok, err = dict:safe_set(place.version, version)
  if not ok then return "could not store the version: " .. tostring(err) end
  if id then dict:safe_set(place.id, id) else dict:delete(place.id) end
  if cell then cell[place.slot] = version % 2147483647 end
  ngx.header["X-Portico-Version"] = version
  return nil
end

-- POST /configuration/<kind>: a whole payload, or a delta (`from` given, or as_delta: the backends' older path
-- /configuration/backends-delta, which applies to whatever whole list nginx holds when it names no `from`).
function _M.post(kind, as_delta)
  local spec, place = spec_of(kind), PLACES[kind]
  local args = ngx.req.get_uri_args(4)
  local id, from = args.id, args.from
  local delta = as_delta or from ~= nil
  local refused = spec.what .. (delta and " delta" or "") .. " rejected, nothing changed: "
  if id ~= nil and not check.id(id) then return _M.respond(400, refused .. "id must match [A-Za-z0-9._-]{1,64}") end
  if from ~= nil and (not check.id(from) or id == nil) then return _M.respond(400, refused .. "a delta needs from= and id=") end
  if delta and not spec.validate_delta then return _M.respond(400, refused .. "this payload takes no delta") end
  local body, rerr = _M.read_body()
  if rerr then return _M.respond(500, "could not read the request body: " .. rerr) end
  local payload, rejected
  if delta then payload, rejected = spec.validate_delta(body) else payload, rejected = spec.validate(body) end
  if not payload then return _M.respond(400, refused .. tostring(rejected)) end
  rejected = rejected or {}
  local lines = _M.rejected_lines(rejected)
  -- Only what was accepted is stored; the body as sent when everything was (the common case: no re-encoding).
  if #rejected > 0 then
    body = (not delta and spec.encode or cjson.encode)(payload)
    ngx.log(ngx.WARN, "portico: dropped ", #rejected, " ", spec.what, " entries:", lines)
  end

  local dict = ngx.shared[place.dict]
  local before = tonumber(dict:get(place.version)) or 0
  local held, base = dict:get(place.whole)
  base = tonumber(base) or before
  local version = before + 1
  if delta then
    local why
    if held == nil then
      why = "nginx holds no whole " .. spec.what .. ": post it first"
    elseif from ~= nil and dict:get(place.id) ~= from then
      why = "nginx does not hold " .. spec.what .. " " .. from .. ": post the whole payload"
    elseif before - base >= (spec.max_deltas or MAX_DELTAS) then
      why = "too many deltas since the whole payload: post it again"
    end
    if why then return _M.respond(409, spec.what .. " delta refused, nothing changed: " .. why) end
    local serr = spec.stage and spec.stage(dict, payload, true, base)
    if serr then return _M.respond(500, "could not store the " .. spec.what .. " delta: " .. serr) end
    local ok, err = dict:safe_set(place.delta .. version, body)
    if not ok then return _M.respond(500, "could not store the " .. spec.what .. " delta, nothing changed: " .. tostring(err)) end
  else
    -- safe_set never evicts another key to make room: a full dict is an error, not a silent loss. The flags hold the
    -- version this payload becomes (the base the deltas after it build on).
    local err = spec.stage and spec.stage(dict, payload, false, version)
    if not err then
      local ok, serr = dict:safe_set(place.whole, body, 0, version)
      if not ok then err = tostring(serr) end
    end
    if not err and spec.commit then err = spec.commit(dict, version) end
    if err then
      if spec.replaced then spec.replaced(dict, version) end -- what its stage wrote
      return _M.respond(500, "could not store " .. spec.what .. ", nothing changed: " .. err)
    end
  end
  local berr = bump(dict, place, version, id)
  if berr then return _M.respond(500, berr) end
  -- the deltas a whole payload replaces (a worker still reading them finds one missing and reads the whole again)
  if not delta and held ~= nil then
    for v = base + 1, before do dict:delete(place.delta .. v) end
    -- base == version: the payload held was stored under this very version by a POST that failed before its bump;
    -- the keys stage just wrote are this payload's
    if spec.replaced and base ~= version then spec.replaced(dict, base) end
  end
  return _M.respond(201, str_format("%s, version %d", spec.describe(payload, delta), version) .. lines)
end

-- The deltas v = from+1 .. to, decoded, or nil when one is gone (a whole payload replaced them) or does not decode.
local function deltas(dict, place, from, to, decoder)
  local out = {}
  for v = from + 1, to do
    local raw = dict:get(place.delta .. v)
    local d = raw and decoder.decode(raw)
    if type(d) ~= "table" then return nil end
    out[#out + 1] = d
  end
  return out
end

-- What a reader (a worker) at version `since` (nil: none) needs to be at the version the dict holds now:
--   nil, ds, version: since >= the base, and ds are the deltas after `since` (in order)
--   payload, ds, version: the whole payload decoded, and the deltas after its base
--   nil, nil, "none": nothing was posted; nil: the dict changed under three reads in a row (the next request asks
--   again) or the payload does not decode (logged)
function _M.read(kind, since, decoder)
  local place = PLACES[kind]
  local dict = ngx.shared[place.dict]
  decoder = decoder or cjson
  for _ = 1, 3 do
    local version = tonumber(dict:get(place.version)) or 0
    local data, base = dict:get(place.whole)
    if not data then return nil, nil, "none" end
    base = tonumber(base) or version
    if since and since >= base and since <= version then
      local ds = deltas(dict, place, since, version, decoder)
      if ds then return nil, ds, version end
    end
    local payload = decoder.decode(data)
    if type(payload) ~= "table" then
      ngx.log(ngx.ERR, "portico: cannot decode the ", kind, " of version ", tostring(base))
      return nil
    end
    -- base > version: a whole POST between its data and its version bump; the payload is that version
    if base >= version then return payload, {}, base end
    local ds = deltas(dict, place, base, version, decoder)
    if ds then return payload, ds, version end
  end
  return nil
end

-- The payload nginx holds now, deltas merged, and its version; nil when none was posted or it moved under the read.
function _M.current(kind)
  local spec = spec_of(kind)
  local payload, ds, version = _M.read(kind, nil, spec.decoder)
  if not payload then return nil end
  for _, d in ipairs(ds) do payload = spec.merge(payload, d) end
  return payload, version
end

-- GET /configuration/<kind>: the payload as stored when no delta followed it, else the merged one encoded again.
function _M.get(kind)
  local spec, place = spec_of(kind), PLACES[kind]
  local dict = ngx.shared[place.dict]
  local data, base = dict:get(place.whole)
  local version = tonumber(dict:get(place.version)) or 0
  local body
  if spec.show then
    local payload
    if data then payload, version = _M.current(kind) end
    body = spec.show(payload, version or 0)
  elseif not data then
    return _M.respond(404, "no " .. spec.what .. " configured")
  elseif (tonumber(base) or version) >= version then
    body = data
  else
    local payload, v = _M.current(kind)
    if not payload then return _M.respond(503, "the " .. spec.what .. " changed under the read; ask again") end
    body, version = (spec.encode or cjson.encode)(payload), v
  end
  ngx.header["X-Portico-Version"] = version
  ngx.header["Content-Type"] = "application/json"
  ngx.print(body)
  return ngx.exit(200)
end

return _M
