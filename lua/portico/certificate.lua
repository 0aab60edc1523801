-- portico.certificate: certificates pushed as PEM into a shared dict and served per SNI without a reload.
--
-- POST /configuration/certificates  {"certificates": {"<host>|*.<domain>": "<PEM chain + key>"}, "default": "<PEM>"|null,
--                                    "listener": "<PEM>", "plain": ["<host>|*.<domain>", ...]}
--   -> 201; 400 with a message and nothing changed when a host name or a PEM is bad. "listener" (optional) is a
--   Gateway HTTPS listener without hostname: names without a certificate get it, except those in "plain" (names
--   another namespace owns, docs/security.md 2a), which get the default. "deep" (optional): wildcards of Gateway
--   listeners, whose certificate serves names of two or more labels too (an Ingress wildcard takes one).
-- GET  /configuration/certificates  -> {"version": n, "hosts": [...], "default": true|false} (never the PEM).
-- ssl_certificate_by_lua: exact host, then the one-label wildcard, then the listener's (unless plain), then the
-- default; with none of them the server's static ssl_certificate stays.
local cjson = require("cjson.safe")
local ssl = require("ngx.ssl")
local lrucache = require("resty.lrucache")
local store = require("portico.store")

local ngx = ngx
local ngx_log = ngx.log
local ERR = ngx.ERR
local type = type
local pairs = pairs
local ipairs = ipairs
local tostring = tostring
local str_find = string.find
local str_lower = string.lower
local str_match = string.match
local str_sub = string.sub
local str_format = string.format
local table_sort = table.sort

local _M = {}

-- Stored whole (no deltas) by portico.store as kind "certificates", in the portico_certificates dict.
local place = store.place("certificates")
local DEFAULT = "" -- cache key of the default certificate (no host name is empty)
local LISTENER = "*" -- cache key of the listener's certificate (no host name is "*")
local CACHE_SIZE = 1000

local cache                   -- per worker: host -> { pem = <string>, cert = <cdata>, key = <cdata> }
local hosts = {}              -- per worker: host -> PEM, from the shared dict
local default_pem = nil
local listener_pem = nil
local plain = {}              -- per worker: set of names that never get the listener's certificate
local deep = {}               -- per worker: set of wildcards that match more than one label
local synced_version = nil
local dict, cell, cell_seen   -- per worker: the dict, the version cell (portico.store) and its slot's value last seen

local function valid_host(h)
  if type(h) ~= "string" or #h > 253 then return false end
  local rest = str_sub(h, 1, 2) == "*." and str_sub(h, 3) or h
  return str_match(rest, "^[a-z0-9][a-z0-9.-]*$") ~= nil and str_match(rest, "[a-z0-9]$") ~= nil
    and not str_find(rest, "..", 1, true)
end

-- PEMs known to parse: those of the payload this worker last validated or read from the dict. A push repeats most of
-- its PEMs (every host of a shared certificate, every certificate that did not change), and parsing each one again
-- was most of the push: 1,000 hosts took nginx 0.5-0.6 s (docs/adr/0048). A PEM that parsed once parses again, so
-- skipping it gives the same verdict. Rebuilt whole each time: it never holds more PEMs than one payload.
local known = {}

local function parse(pem)
  local cert, err = ssl.parse_pem_cert(pem)
  if not cert then return nil, "certificate: " .. tostring(err) end
  local key, kerr = ssl.parse_pem_priv_key(pem)
  if not key then return nil, "private key: " .. tostring(kerr) end
  return { pem = pem, cert = cert, key = key }
end

-- Returns the decoded payload without its bad entries and the list of those ({ name, reason }), or nil and what is
-- wrong with the body itself. Every PEM is parsed once here, so a bad one is dropped at the door instead of failing
-- handshakes later, and never takes the other hosts' certificates with it.
function _M.validate(body)
  if type(body) ~= "string" or body == "" then return nil, "empty body" end
  local payload, err = cjson.decode(body)
  if type(payload) ~= "table" then return nil, "invalid JSON: " .. tostring(err or "expected an object") end
  local certs = payload.certificates
  if certs == nil or certs == cjson.null then certs = {} end
  if type(certs) ~= "table" then return nil, "certificates: must be an object of host -> PEM" end
  local rejected = {}
  local function reject(name, reason) rejected[#rejected + 1] = { name = name, reason = reason } end
  local kept, good = {}, {}
  -- good: the PEMs of this payload that passed (parsed now, or known); it becomes `known` below
  local function check_pem(pem)
    if known[pem] or good[pem] then
      good[pem] = true
      return true
    end
    local ok, perr = parse(pem)
    if ok then good[pem] = true end
    return ok, perr
  end
  for host, pem in pairs(certs) do
    if not valid_host(host) then
      reject(tostring(host), str_format("certificates[%s]: not a lower-case host name or *.domain", tostring(host)))
    elseif type(pem) ~= "string" then
      reject(host, str_format("certificates[%s]: must be a PEM string", host))
    else
      local ok, perr = check_pem(pem)
      if ok then kept[host] = pem else reject(host, str_format("certificates[%s]: %s", host, perr)) end
    end
  end
  payload.certificates = kept
  for _, field in ipairs({ "default", "listener" }) do
    local pem = payload[field]
    if pem ~= nil and pem ~= cjson.null then
      local ok, perr
      if type(pem) ~= "string" then ok, perr = nil, "must be a PEM string or null" else ok, perr = check_pem(pem) end
      if not ok then
        reject(field, field .. ": " .. perr)
        payload[field] = nil
      end
    end
  end
  for _, field in ipairs({ "plain", "deep" }) do
    local names = payload[field]
    if names ~= nil and names ~= cjson.null then
      if type(names) ~= "table" then return nil, field .. ": must be an array of host names" end
      for i, h in ipairs(names) do
        if not valid_host(h) then return nil, str_format("%s[%d]: not a lower-case host name or *.domain", field, i - 1) end
      end
    end
  end
  -- only what this payload holds (a PEM known before and not sent again is forgotten)
  known = good
  return payload, rejected
end

-- GET: the hosts and whether a default is held, never the PEM. (Debian's lua-cjson has no array_mt: an empty table
-- would encode as {}.)
local function show(payload, version)
  local list = {}
  for host in pairs(payload and type(payload.certificates) == "table" and payload.certificates or {}) do list[#list + 1] = host end
  table_sort(list)
  return str_format('{"version":%d,"hosts":%s,"default":%s}', version, #list == 0 and "[]" or cjson.encode(list),
    tostring(payload ~= nil and type(payload.default) == "string"))
end

store.kind("certificates", {
  what = "certificates",
  validate = _M.validate,
  show = show,
  describe = function(payload)
    local n = 0
    for _ in pairs(payload.certificates or {}) do n = n + 1 end
    return str_format("%d certificates stored", n)
  end,
})

local function sync(version)
  local payload, _, none = store.read("certificates", nil)
  if none == "none" then payload = {} end
  if not payload then cell_seen = nil; return end -- moved under the read or not decoded: the next handshake asks again
  synced_version = version
  hosts = type(payload.certificates) == "table" and payload.certificates or {}
  default_pem = type(payload.default) == "string" and payload.default or nil
  listener_pem = type(payload.listener) == "string" and payload.listener or nil
  plain, deep = {}, {}
  if type(payload.plain) == "table" then
    for _, h in ipairs(payload.plain) do plain[h] = true end
  end
  if type(payload.deep) == "table" then
    for _, h in ipairs(payload.deep) do deep[h] = true end
  end
  -- the dict holds only PEMs a POST validated: the next POST this worker validates need not parse them again
  local pems = {}
  for _, pem in pairs(hosts) do pems[pem] = true end
  if default_pem then pems[default_pem] = true end
  if listener_pem then pems[listener_pem] = true end
  known = pems
end

-- SNI -> (cache key, PEM): exact host, then "*." + everything after the first label, then the default.
local function lookup(name)
  if name then
    -- a fully qualified SNI ("host.") names the same host, as nginx takes a Host header with its trailing dot
    if str_sub(name, -1) == "." then name = str_sub(name, 1, -2) end
    name = str_lower(name)
    local pem = hosts[name]
    if pem then return name, pem end
    local dot = str_find(name, ".", 1, true)
    local wildcard = dot and ("*" .. str_sub(name, dot)) or nil
    if wildcard then
      pem = hosts[wildcard]
      if pem then return wildcard, pem end
      -- a Gateway listener's wildcard of more labels: the longest first (bounded by the name's dots)
      local at = str_find(name, ".", dot + 1, true)
      while at do
        local w = "*" .. str_sub(name, at)
        if deep[w] and hosts[w] then return w, hosts[w] end
        at = str_find(name, ".", at + 1, true)
      end
    end
    if listener_pem and not plain[name] and not (wildcard and plain[wildcard]) then return LISTENER, listener_pem end
  end
  return DEFAULT, default_pem
end

-- ssl_certificate_by_lua. A parsed certificate is reused while its PEM is the same string (Lua strings are
-- interned, so the comparison is a pointer comparison): a push re-parses only what changed.
function _M.call()
  if dict == nil then
    dict = ngx.shared[place.dict]
    if not dict then return end
    cell = store.version_cell()
  end
  -- one load of the cell's slot a handshake, the dict only when it changed
  local seen = cell and cell[place.slot]
  if seen == nil or seen ~= cell_seen then
    cell_seen = seen
    local version = dict:get(place.version)
    if version ~= synced_version then sync(version) end
  end

  local name = ssl.server_name()
  local key, pem = lookup(name)
  if not pem then return end -- the server's static certificate stays

  if not cache then cache = lrucache.new(CACHE_SIZE) end
  local entry = cache:get(key)
  if not entry or entry.pem ~= pem then
    local err
    entry, err = parse(pem)
    if not entry then
      ngx_log(ERR, "portico: certificate for ", key == DEFAULT and "default" or key == LISTENER and "listener" or key, ": ", err)
      return
    end
    cache:set(key, entry)
  end

  local ok, err = ssl.clear_certs()
  if ok then ok, err = ssl.set_cert(entry.cert) end
  if ok then ok, err = ssl.set_priv_key(entry.key) end
  if not ok then
    ngx_log(ERR, "portico: serving the certificate of ", tostring(name), ": ", err)
    return ngx.exit(ngx.ERROR)
  end
end

return _M
