-- portico.certificate: certificates pushed as PEM into a shared dict and served per SNI without a reload.
--
-- POST /configuration/certificates  {"certificates": {"<host>|*.<domain>": "<PEM chain + key>"}, "default": "<PEM>"|null,
--                                    "listener": "<PEM>", "plain": ["<host>|*.<domain>", ...]}
--   -> 201; 400 with a message and nothing changed when a host name or a PEM is bad. "listener" (optional) is a
--   Gateway HTTPS listener without hostname: names without a certificate get it, except those in "plain" (names
--   another namespace owns, docs/security.md 2a), which get the default. "deep" (optional): wildcards of Gateway
--   listeners, whose certificate serves names of two or more labels too (an Ingress wildcard takes one).
-- POST /configuration/certificates?from=OLD&id=ID  a delta (portico.store): {"set": {"<host>": "<PEM>"}, "remove":
--   ["<host>", ...], "rest": {"default": ..., "listener": ..., "plain": [...], "deep": [...]}}: the hosts whose
--   certificate changed or is new, the hosts gone, and (only when one of them changed) the four other fields, which
--   then replace the held ones whole. One Secret rotated at 10,000 TLS hosts is one host's PEM, not the whole set
--   (25 MiB at 100,000 Ingresses) for nginx to decode and every worker to decode again (docs/adr/0056).
-- GET  /configuration/certificates  -> {"version": n, "hosts": [...], "default": true|false} (never the PEM).
-- ssl_certificate_by_lua: exact host, then the one-label wildcard, then the listener's (unless plain), then the
-- default; with none of them the server's static ssl_certificate stays.
local cjson = require("cjson.safe")
local ssl = require("ngx.ssl")
local lrucache = require("resty.lrucache")
local store = require("portico.store")
local check = require("portico.certificate_check")

local ngx = ngx
local ngx_log = ngx.log
local ERR = ngx.ERR
local type = type
local pairs = pairs
local ipairs = ipairs
local tostring = tostring
local str_find = string.find
local str_lower = string.lower
local str_sub = string.sub
local str_format = string.format
local table_sort = table.sort

local _M = {}

-- Stored by portico.store as kind "certificates" (whole payloads and deltas), in the portico_certificates dict.
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

-- GET: the hosts and whether a default is held, never the PEM. (Debian's lua-cjson has no array_mt: an empty table
-- would encode as {}.)
local function show(payload, version)
  local list = {}
  for host in pairs(payload and type(payload.certificates) == "table" and payload.certificates or {}) do list[#list + 1] = host end
  table_sort(list)
  return str_format('{"version":%d,"hosts":%s,"default":%s}', version, #list == 0 and "[]" or cjson.encode(list),
    tostring(payload ~= nil and type(payload.default) == "string"))
end

local function count(t)
  local n = 0
  for _ in pairs(type(t) == "table" and t or {}) do n = n + 1 end
  return n
end

store.kind("certificates", {
  what = "certificates",
  validate = check.validate,
  validate_delta = check.validate_delta,
  merge = check.merge,
  show = show,
  describe = function(payload, is_delta)
    if is_delta then return str_format("%d certificates set, %d removed", count(payload.set), #payload.remove) end
    return str_format("%d certificates stored", count(payload.certificates))
  end,
})

-- The default, listener, plain and deep of a whole payload or a delta's rest, into this worker's tables.
local function take_rest(rest)
  default_pem = type(rest.default) == "string" and rest.default or nil
  listener_pem = type(rest.listener) == "string" and rest.listener or nil
  plain, deep = {}, {}
  if type(rest.plain) == "table" then
    for _, h in ipairs(rest.plain) do plain[h] = true end
  end
  if type(rest.deep) == "table" then
    for _, h in ipairs(rest.deep) do deep[h] = true end
  end
  if default_pem then check.know(default_pem) end
  if listener_pem then check.know(listener_pem) end
end

-- A whole payload into this worker's tables.
local function take_whole(payload)
  hosts = type(payload.certificates) == "table" and payload.certificates or {}
  -- the dict holds only PEMs a POST validated: the next POST this worker validates need not parse them again
  local pems = {}
  for _, pem in pairs(hosts) do pems[pem] = true end
  check.know_only(pems)
  take_rest(payload)
end

-- A delta onto this worker's tables (a PEM no longer named stays known until the next whole payload).
local function take_delta(d)
  for host, pem in pairs(type(d.set) == "table" and d.set or {}) do
    hosts[host] = pem
    check.know(pem)
  end
  for _, host in ipairs(type(d.remove) == "table" and d.remove or {}) do hosts[host] = nil end
  if type(d.rest) == "table" then take_rest(d.rest) end
end

-- This worker's tables brought to what the dict holds: the deltas since the version it holds, or the whole payload
-- and the deltas after it.
local function sync()
  local payload, ds, version = store.read("certificates", synced_version)
  if version == "none" then
    hosts, synced_version = {}, nil
    check.know_only({})
    take_rest({})
    return
  end
  if not ds then cell_seen = nil; return end -- moved under the read or not decoded: the next handshake asks again
  if payload then take_whole(payload) end
  for _, d in ipairs(ds) do take_delta(d) end
  synced_version = version
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
    if version ~= synced_version then sync() end
  end

  local name = ssl.server_name()
  local key, pem = lookup(name)
  if not pem then return end -- the server's static certificate stays

  if not cache then cache = lrucache.new(CACHE_SIZE) end
  local entry = cache:get(key)
  if not entry or entry.pem ~= pem then
    local err
    entry, err = check.parse(pem)
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
