-- portico.router: the dynamic route table (docs/adr/0014). Hosts in the dynamic set have no server block of their
-- own: nginx sends them to the catch-all server, whose one `location /` runs route() in the rewrite phase. route()
-- picks the host's entry (exact name, else the one-label wildcard, else the catch-all's) and, within it, the
-- compiled location nginx would have picked: an exact path first, else the longest prefix ending in '/'. The
-- locations are the model's compileLocations output, so the answer is the rendered path's by construction.
--
-- POST /configuration/routes?id=ID  body (JSON, made by src/render/route-entries.ts):
--   { "hosts":   { "a.example.com": HOST, "*.example.com": HOST },
--     "default": HOST }
--   HOST = { "exact": { "/p": target index }, "prefix": { "/": i, "/p/": i }, "hsts": bool, "targets": [ TARGET ] }
--   TARGET = { "backend": "ns_svc_80" | "" (404), "canary": "" | route key, "redirect": 0 | 301..308,
--              "denied": false, "metrics": "" | "ns|ingress|service|host|upstream",
--              "rewrite": bool (run portico.balancer's rewrite step: canary, affinity, tuned upstream),
--              "profile": "" | "@portico_profile_<hex>" (a named location holding the route's directives; for a
--                         404, the catch-all's default backend without an access log line),
--              "cookiePath"?: "off" | "/path" (where the backend's affinity cookie is set; absent: no affinity),
--              "ingress"?: "namespace|ingress|service|port|path" (only when nginx.conf reads $namespace and the like),
--              "maxBody"?: bytes, 0 for none (the route's request body limit, which nginx does not check on the way
--                          into a named location: docs/adr/0063) }
-- POST /configuration/routes?from=OLD&id=ID  body: a delta, { "hosts": { host: HOST | null (removed) }, "default"?: HOST }
-- -> 201, or 400 with a message and nothing changed, or 409 for a delta on a table nginx does not hold (validated
-- and stored by portico.router_config). GET returns what nginx holds.
--
-- Stored by portico.store as kind "routes" (the whole table and the deltas since, each under its version), with its
-- own version, signalled to the workers through its own slot of the version cell (portico.store), so a table push
-- never makes the workers decode the backends again, and vice versa.
-- portico.router_config also keeps each host's entry under a key of its own. Workers read a host's entry on its first
-- request and turn it into lookup tables (exact map, prefix map, the distinct prefix lengths longest first); a delta
-- makes them read again only the hosts it names. A request costs a few table lookups and one substring per candidate
-- prefix length.
local base = require("resty.core.base")
local cjson = require("cjson.safe")
local ffivar = require("portico.ffivar")
local store = require("portico.store")
local balancer = require("portico.balancer")
local metrics_label = require("portico.metrics").label
local metrics_undefined = require("portico.metrics").undefined
-- X-Request-ID (docs/adr/0015): the catch-all server renders no set_by_lua line in dynamic mode; route(), already a
-- rewrite hook, sets $portico_request_id itself (one Lua entry less per request). Optional: absent, nginx's
-- $request_id is used.
local request_id_ok, request_id = pcall(require, "portico.request_id")
if not request_id_ok or type(request_id) ~= "table" or type(request_id.set) ~= "function" then request_id = nil end

local ngx = ngx
local ngx_var = ngx.var
local ngx_exit = ngx.exit
local ngx_exec = ngx.exec
local ngx_redirect = ngx.redirect
local ngx_log = ngx.log
local ERR = ngx.ERR
local pairs = pairs
local ipairs = ipairs
local tostring = tostring
local str_byte = string.byte
local str_sub = string.sub
local str_find = string.find
local table_sort = table.sort
local type = type

local _M = {}

local router_config = require("portico.router_config")
local PLACE = store.place("routes")
_M.KEY_VERSION = PLACE.version
local CELL_SLOT = PLACE.slot
local NOT_FOUND = "@portico_not_found"
-- A body of unknown length to a route without a profile, when the router's location takes no limit (docs/adr/0063).
local BOUNDED = "@portico_bounded"
local req_http_version = ngx.req.http_version
local req_clear_header = ngx.req.clear_header
local tonumber = tonumber

-- Variables through portico.ffivar (lua-nginx-module's FFI calls, as portico.balancer and portico.metrics read theirs): ngx.var's
-- metamethods cannot be compiled into the caller's trace, and route() runs on every request to a dynamic host.
local get_request = base.get_request
local var_get = ffivar.get
-- Names are this module's own (at most 32 bytes); values come from the validated table.
local var_set = ffivar.set

local dict, dict_get
local cell, cell_seen
local synced_version = nil
local hosts = nil     -- exact host -> compiled entry
local wildcards = nil -- "example.com" (of "*.example.com") -> compiled entry
local default = nil   -- the catch-all's entry

local function by_length_desc(a, b) return a > b end

local function compile_target(raw)
  return {
    backend = raw.backend, found = raw.backend ~= "", canary = raw.canary ~= "" and raw.canary or nil,
    redirect = raw.redirect ~= 0 and raw.redirect or nil, denied = raw.denied,
    metrics = raw.metrics ~= "" and raw.metrics or nil, rewrite = raw.rewrite,
    profile = raw.profile ~= "" and raw.profile or nil,
    cookie_path = raw.cookiePath,
    ingress = raw.ingress ~= "" and raw.ingress or nil,
    max_body = raw.maxBody,
  }
end

-- One host's lookup tables; its targets are shared tables, so equal targets cost one entry.
local function compile_host(h)
  local targets = {}
  for i, raw in ipairs(h.targets) do targets[i] = compile_target(raw) end
  local exact, prefix, seen, lens = {}, {}, {}, {}
  for p, i in pairs(h.exact) do exact[p] = targets[i + 1] end
  for p, i in pairs(h.prefix) do
    prefix[p] = targets[i + 1]
    if not seen[#p] then seen[#p] = true; lens[#lens + 1] = #p end
  end
  table_sort(lens, by_length_desc)
  return { exact = exact, prefix = prefix, lens = lens, nlens = #lens, hsts = h.hsts }
end

-- Entries are read from the dict by host (portico.router_config keeps each under a key of its own) and compiled on a
-- host's first request, so a worker started by a reload reads and compiles only the hosts it is asked for (docs/adr/0048,
-- docs/adr/0050). `hosts` and `wildcards` hold compiled entries only.
local synced_base = nil

-- `stored`: a host's or the default entry as portico.router_config stores it, else a delta as posted.
local function dict_entry(key, stored)
  local raw = dict_get(dict, key)
  if raw == nil then return nil end
  local h
  if stored then h = router_config.decode_entry(raw) else h = cjson.decode(raw) end
  if type(h) ~= "table" then
    ngx_log(ERR, "portico: cannot decode the route table entry ", key)
    return nil
  end
  return h
end

-- Forgets what the deltas after `from` (up to `to`) name; false when one of them is gone (a whole table replaced them).
local function forget(from, to)
  for v = from + 1, to do
    local d = dict_entry(PLACE.delta .. v)
    if not d then return false end
    for host in pairs(d.hosts) do
      if str_sub(host, 1, 2) == "*." then wildcards[str_sub(host, 3)] = nil else hosts[host] = nil end
    end
    if d.default ~= nil then default = nil end
  end
  return true
end

-- The table of the dict's version: its base (the whole table's keys) and the deltas after the version this worker saw,
-- whose hosts it compiles again on their next request. False when nothing could be read (the next request asks again).
local function sync()
  local version = tonumber(dict_get(dict, _M.KEY_VERSION))
  local at = tonumber(dict_get(dict, router_config.KEY_BASE))
  if not version or not at then
    hosts, wildcards, default, synced_version, synced_base = nil, nil, nil, nil, nil
    return true
  end
  if at ~= synced_base or not synced_version or synced_version < at or synced_version > version or not forget(synced_version, version) then
    hosts, wildcards, default = {}, {}, nil
  end
  if default == nil then
    local d = dict_entry(router_config.default_key(at), true)
    if not d then
      ngx_log(ERR, "portico: the route table of version ", version, " has no default entry; trying again on the next request")
      synced_version, synced_base, cell_seen = nil, nil, nil
      return false
    end
    default = compile_host(d)
  end
  synced_version, synced_base = version, at
  return true
end

-- The entry the dict holds for `name` (a host, or "*." + a domain) compiled into `t` under `key`, else nil.
local function read_entry(t, key, name)
  local h = dict_entry(router_config.host_key(synced_base, name), true)
  if not h then return nil end
  local c = compile_host(h)
  t[key] = c
  return c
end

local function refresh()
  if cell then
    local seen = cell[CELL_SLOT]
    if seen == cell_seen then return end
    cell_seen = seen
  end
  if dict_get(dict, _M.KEY_VERSION) ~= synced_version then sync() end
end

-- Per worker, on the first routed request (nginx.conf needs no init line of its own).
local function init_worker()
  dict = ngx.shared[PLACE.dict]
  if not dict then return end
  dict_get = dict.get
  cell = store.version_cell()
  if cell then cell_seen = cell[CELL_SLOT] end
  sync()
end

-- init_worker_by_lua (rendered with --enable-dynamic-routes): the table's base and default entry read by a timer as the
-- worker starts (the hosts are read by their first requests). A request that arrives before the timer ran reads them
-- itself.
function _M.init_worker()
  local ok, err = ngx.timer.at(0, function(premature)
    if not premature and dict == nil then init_worker() end
  end)
  if not ok then ngx_log(ERR, "portico: the route table is read on the first request: ", tostring(err)) end
end

-- Whether a version was stored since this worker's last refresh (a whole table's old keys are deleted only after its
-- bump): the cell's slot, one load, else the dict's base.
local function moved()
  if cell then return cell[CELL_SLOT] ~= cell_seen end
  return tonumber(dict_get(dict, router_config.KEY_BASE)) ~= synced_base
end

-- The entry of `host`: its exact name, else `*.` + everything after its first label, else the catch-all's. A name
-- the dict does not hold is asked again on each request (one dict read): a miss is not kept, as request Hosts are
-- anyone's to choose. A miss while a whole table replaces the one this worker read syncs and asks once more.
local function host_entry(host, again)
  local e = hosts[host] or read_entry(hosts, host, host)
  if e then return e end
  local dot = str_find(host, ".", 1, true)
  if dot and dot > 1 then
    local domain = str_sub(host, dot + 1)
    e = wildcards[domain] or read_entry(wildcards, domain, "*." .. domain)
    if e then return e end
  end
  if not again and moved() then
    sync()
    if default ~= nil then return host_entry(host, true) end
  end
  return default
end

-- nginx's choice among the entry's locations: `= uri`, else the longest prefix location (each ends in '/').
local function pick(e, uri)
  local t = e.exact[uri]
  if t then return t end
  local prefix, lens, n = e.prefix, e.lens, #uri
  for i = 1, e.nlens do
    local len = lens[i]
    if len <= n and str_byte(uri, len) == 47 then
      t = prefix[str_sub(uri, 1, len)]
      if t then return t end
    end
  end
  return nil
end

-- The target `host` and `uri` get with the table this worker holds now (nil: none pushed yet, or no location).
-- For tests and debugging; route() below is the same steps inline.
function _M.match(host, uri)
  if dict == nil then init_worker() else refresh() end
  if default == nil then return nil end
  local e = host_entry(host)
  return e and pick(e, uri)
end

-- The built-in 404; from the catch-all's entry, for a host no Ingress defines (metrics-per-undefined-host counts it).
local function not_found(r, e, profile)
  if e == default then metrics_undefined(r) end
  return ngx_exec(profile or NOT_FOUND)
end

-- 413 for a Content-Length above the route's limit, as nginx answers it when it picks a location: its message, and
-- no "100 Continue" first (nginx marks the expectation tested; here the Expect header goes).
local function too_large(length)
  req_clear_header("Expect")
  ngx_log(ERR, "client intended to send too large body: ", length, " bytes")
  return ngx_exit(413)
end

-- rewrite_by_lua of the catch-all server's `location /` (dynamic mode): what the rendered location of the picked
-- path would do, in its order: the HTTPS redirect (ssl-redirect), the backend and metrics labels, the canary route
-- key, then the balancer's rewrite step where a rendered location would have it (canary, cookie affinity, a tuned
-- upstream); elsewhere the balancer alone runs, and a backend without endpoints gets the 503 peer, as rendered.
function _M.route()
  if request_id then request_id.set() end
  if dict == nil then
    init_worker()
    if dict == nil then return ngx_exit(503) end
  else
    refresh()
  end
  if default == nil then return ngx_exit(503) end
  local r = get_request()
  local host = var_get(r, "host") or ""
  local e = host_entry(host)
  if e == nil then return ngx_exit(503) end
  local t = pick(e, var_get(r, "uri") or "/")
  if e.hsts then var_set(r, "portico_route_hsts", var_get(r, "portico_hsts") or "") end
  if t == nil then return not_found(r, e) end
  -- the route's body limit where the router's location does not hold it (docs/adr/0063): before anything else, as
  -- nginx checks it when it picks a location
  local limit, bounded = t.max_body, false
  if limit then
    local length = var_get(r, "content_length")
    if length then
      if limit > 0 and tonumber(length) > limit then return too_large(length) end
    elseif t.found and not t.profile and (var_get(r, "http_transfer_encoding") or (req_http_version() or 1) >= 2) then
      -- a body of unknown length, which nginx bounds as it reads it by the limit of the location reading it
      bounded = true
    end
  end
  if t.denied then return ngx_exit(503) end
  -- to $portico_redirect_host (nginx.conf's map: the host without a port, or the forwarded one under use-forwarded-headers)
  if t.redirect and var_get(r, "scheme") == "http" then
    return ngx_redirect("https://" .. (var_get(r, "portico_redirect_host") or host) .. ngx_var.request_uri, t.redirect)
  end
  -- a 404 with a profile: the catch-all's default backend kept out of the access log (enable-access-log-for-default-backend)
  if not t.found then return not_found(r, e, t.profile) end
  var_set(r, "portico_backend", t.backend)
  -- the labels go to portico.metrics directly: it would only read $portico_metrics back in the log phase
  if t.metrics then metrics_label(r, t.metrics) end
  if t.canary then var_set(r, "portico_canary", t.canary) end
  if t.cookie_path then var_set(r, "portico_affinity_cookie_path", t.cookie_path) end
  -- only when something reads ingress-nginx's $namespace, $service_name... (render/ingress-vars.ts)
  if t.ingress then var_set(r, "portico_ingress", t.ingress) end
  -- a route with directives of its own: its profile's named location (the variables above stay set across it)
  if t.profile then return ngx_exec(t.profile) end
  if bounded then
    if t.rewrite then var_set(r, "portico_bounded_rewrite", "1") end
    return ngx_exec(BOUNDED)
  end
  if t.rewrite then return balancer.rewrite() end
end

-- rewrite_by_lua of @portico_bounded: the balancer's rewrite step, when the route has one (route() said so).
function _M.bounded()
  if var_get(get_request(), "portico_bounded_rewrite") == "1" then return balancer.rewrite() end
end

-- POST/GET /configuration/routes: portico.store with portico.router_config (portico.configuration checked the token).
function _M.post() return store.post("routes") end
function _M.get() return store.get("routes") end
_M.validate = function(body, delta) return router_config.validate(body, delta) end

return _M
