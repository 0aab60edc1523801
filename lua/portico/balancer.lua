-- portico.balancer: per-worker backend table kept in step with the shared dict, and the request hooks of the single
-- Lua-balanced upstream `portico_balancer` (ADR 0001).
--
-- Hot path: a location proxied to a round-robin backend runs Lua once, in balance(): one shared-dict version read,
-- one table lookup, a round-robin bump and set_current_peer. rewrite() and log() run only where nginx.conf asks for
-- them (an algorithm that picks in the rewrite phase, or learns from responses). A backend that is unknown or has no
-- endpoint is sent to the `unavailable` peer given to init_worker(): an nginx server that answers 503 (ngx.exit(503)
-- in the balancer phase would give 500 on stock nginx).
local base = require("resty.core.base")
local ffivar = require("portico.ffivar")
local ngx_balancer = require("ngx.balancer")
local store = require("portico.store")
local canary = require("portico.canary")
local metrics_log = require("portico.metrics").log
local metrics_mark = require("portico.metrics").mark

local ngx = ngx
local ngx_var = ngx.var
local ngx_exit = ngx.exit
local ngx_log = ngx.log
local ERR = ngx.ERR
local ipairs = ipairs
local type = type
local tostring = tostring
local str_find = string.find
local str_format = string.format
local str_gsub = string.gsub
local table_sort = table.sort
local table_concat = table.concat
local set_current_peer = ngx_balancer.set_current_peer
local set_more_tries = ngx_balancer.set_more_tries
local get_last_failure = ngx_balancer.get_last_failure

local get_request = base.get_request

-- $portico_backend read straight through lua-nginx-module's FFI call: ngx.var.portico_backend goes through a
-- metamethod that LuaJIT cannot compile into the caller's trace ("return to lower frame"), so every request would
-- run it in the interpreter. Same C function, same result; nil when the variable is unset.
local BACKEND_VAR = "portico_backend"
local var_get = ffivar.get

local function backend_name()
  local r = get_request()
  if not r then return nil end
  return var_get(r, BACKEND_VAR)
end

-- The backends' keys in portico.store and their slot of the version cell.
local PLACE = store.place("backends")
local KEY_VERSION = PLACE.version
local SLOT = PLACE.slot

local _M = {}

-- Algorithms: name -> module with new(backend), :sync(backend), :pick(), and optionally :rewrite() (pick in the
-- rewrite phase, e.g. to set a cookie) and :log() (learn from the response).
local IMPLS = {
  round_robin = require("portico.balancer.round_robin"),
  ewma = require("portico.balancer.ewma"),
  chash = require("portico.balancer.chash"),
  sticky = require("portico.balancer.sticky"),
}

local dict                  -- ngx.shared.portico_backends, set in init_worker
local dict_get              -- its :get, localised for the hot path
local backends = {}         -- name -> backend entry (worker-local)
local synced_version = nil  -- the shared-dict version `backends` was built from (nil: nothing posted yet)
local retry_cursor = 0
local any_log = false       -- does any backend learn from responses? If not, log() reads nothing
local unavailable = nil     -- the 503 peer (init_worker's opts.unavailable)
local cell = nil            -- the version cell shared with the other workers (portico.store), or nil
local cell_seen = nil       -- its value when this worker last asked the dict

-- Precedence (ADR 0001): affinity, then hashBy, then loadBalance.
local function algorithm_of(b)
  if type(b.affinity) == "table" then return "sticky" end
  if type(b.hashBy) == "string" and b.hashBy ~= "" then return "chash" end
  if b.loadBalance == "ewma" then return "ewma" end
  return "round_robin"
end

local function by_name(a, b) return a.name < b.name end

-- Turns one validated backend from the JSON into a worker-local entry.
local function build_entry(b)
  local eps = {}
  for i, ep in ipairs(b.endpoints) do
    local address = ep.address
    -- set_current_peer parses "::1" as host ":" and port ":1": IPv6 needs brackets (as $upstream_addr shows it)
    local host = str_find(address, ":", 1, true) and str_format("[%s]", address) or address
    local name = str_format("%s:%d", host, ep.port)
    eps[i] = { address = address, host = host, port = ep.port, name = name, tried_mark = str_format(" %s,", name) }
  end
  table_sort(eps, by_name)
  local names = {}
  for i, ep in ipairs(eps) do names[i] = ep.name end
  b.endpoints = eps
  b.n = #eps
  b.fingerprint = table_concat(names, ",")
  b.more_tries = b.n > 1 and b.n - 1 or 0
  b.algorithm = algorithm_of(b)
  return b
end

-- Installs one validated backend from the JSON into `into`. It keeps the balancer instance of `prev` (the entry it
-- replaces) and so its state (ewma scores, round-robin position, sticky tables) when the algorithm is unchanged; the
-- instance's sync() decides what to keep.
local function install(into, prev, raw)
  local b = build_entry(raw)
  if prev and prev.algorithm == b.algorithm then
    prev.impl:sync(b)
    b.impl = prev.impl
  else
    b.impl = IMPLS[b.algorithm].new(b)
  end
  b.on_log = b.impl.log ~= nil
  b.on_rewrite = b.impl.rewrite ~= nil
  if type(b.canary) == "table" then canary.prepare_all(b.canary) else b.canary = nil end
  into[b.name] = b
  return b.on_log
end

-- A backend of a whole list waits in the table as posted (no `impl`) and is installed by its first request (entry()):
-- installing all 10,000 of a list took a new worker 0.3-0.6 s after every reload, before it served anything
-- (docs/adr/0048). PREV (a key no JSON object has) holds the installed entry it replaces, whose state install keeps.
local PREV = {}

-- The installed entry a new one for `name` replaces: the one in `old`, or the one a deferred entry there still holds.
local function installed(old, name)
  local prev = old[name]
  if prev ~= nil and prev.impl == nil then return prev[PREV] end
  return prev
end

local function defer(into, old, raw)
  raw[PREV] = installed(old, raw.name)
  into[raw.name] = raw
  return IMPLS[algorithm_of(raw)].log ~= nil
end

local function put(into, old, raw)
  return install(into, installed(old, raw.name), raw)
end

-- One delta (portico.configuration, the backends kind of portico.store): set backends replace theirs in `into` (by
-- `how`: put, or defer when a whole list is being read with the deltas after it), removed names leave it.
local function apply_delta(into, old, d, how)
  local with_log = false
  for _, raw in ipairs(d.set) do with_log = how(into, old, raw) or with_log end
  for _, name in ipairs(d.remove) do into[name] = nil end
  return with_log
end

-- Brings the worker-local table to the shared dict's version: only the deltas posted since `synced_version` when
-- they are all there (an endpoint change: one backend, whatever the number of others), else the full list decoded
-- again and the deltas after it. On a failed read the table stays and the next request asks again.
local function sync()
  local list, ds, version = store.read("backends", synced_version)
  if not ds then
    if version == "none" then backends, any_log, synced_version = {}, false, nil end
    cell_seen = nil
    return
  end
  if list then
    local fresh, with_log = {}, false
    for _, raw in ipairs(list) do with_log = defer(fresh, backends, raw) or with_log end
    for _, d in ipairs(ds) do with_log = apply_delta(fresh, fresh, d, defer) or with_log end
    backends, any_log = fresh, with_log
  else
    -- in place: a removed backend with a log hook leaves any_log true, which only costs a lookup in log()
    for _, d in ipairs(ds) do any_log = apply_delta(backends, backends, d, put) or any_log end
  end
  synced_version = version
end

-- opts.unavailable: the peer ("unix:/path" or "host:port") of a server answering 503 for every request.
function _M.init_worker(opts)
  unavailable = opts and opts.unavailable
  dict = ngx.shared[PLACE.dict]
  if not dict then
    ngx_log(ERR, "portico: lua_shared_dict ", PLACE.dict, " is not configured")
    return
  end
  dict_get = dict.get
  math.randomseed(ngx.now() * 1000 + ngx.worker.pid())
  cell = store.version_cell()
  if cell then cell_seen = cell[SLOT] end -- the cell first: a POST landing in between is seen on the next request
  sync()
end

-- Brings the worker-local table up to date: one load of the version cell (one shared-dict read without a cell), and
-- the dict only when the cell changed. A change lands on the next request.
local function refresh()
  if cell then
    local seen = cell[SLOT]
    if seen == cell_seen then return end
    cell_seen = seen
  end
  if dict_get(dict, KEY_VERSION) ~= synced_version then sync() end
end

-- The entry of backend `name` (nil: unknown), installed now if it waits as posted.
local function entry(name)
  local b = backends[name]
  if b ~= nil and b.impl == nil then
    local prev = b[PREV]
    b[PREV] = nil
    install(backends, prev, b)
  end
  return b
end

-- Whether the request's affinity cookie was issued by backend b (sticky.owns; false without cookie affinity).
local function owns(b)
  local impl = b and b.impl
  return impl ~= nil and impl.owns ~= nil and impl:owns()
end

-- rewrite_by_lua, rendered only where an algorithm picks in the rewrite phase (e.g. to set a cookie): bring the
-- table up to date, answer 503 when the backend is unknown or has no endpoint, and pick.
function _M.rewrite()
  metrics_mark() -- $portico_backend may change here: the log phase reads it for this request only
  refresh()
  local b = entry(backend_name())
  if b and b.canary and b.n > 0 then
    -- the policy of this location's route (ADR 0006); a canary with no endpoint leaves the request on the main backend,
    -- and a main backend with no endpoint answers 503 whatever the canary (ingress-nginx asks the canary only through
    -- the main backend's balancer)
    local policy = b.canary[ngx_var.portico_canary or ""]
    local alt = policy and entry(policy.backend)
    -- affinity-canary-behavior sticky (ingress-nginx's default): a cookie of one side keeps the request there
    local to_alt = false
    if policy then
      if owns(b) then to_alt = false
      elseif owns(alt) then to_alt = true
      else to_alt = canary.wanted(policy) end
    end
    if to_alt and alt and alt.n > 0 then
      b = alt; ngx_var.portico_backend = alt.name
      ngx_var.proxy_alternative_upstream_name = alt.name -- the access log's field, as ingress-nginx logs a canary
    end
  end
  if not b or b.n == 0 then return ngx_exit(503) end
  if b.on_rewrite then ngx.ctx.portico_endpoint = b.impl:rewrite() end
end

-- On a retry (proxy_next_upstream) take the next endpoint not yet tried in this request. $upstream_addr lists
-- the tries as "a, b" (" : " across internal redirects); matching " host:port," keeps 10.0.0.1:80 from
-- matching 10.0.0.1:8080.
local function pick_untried(b)
  local tried = " " .. str_gsub(ngx_var.upstream_addr or "", " : ", ", ") .. ","
  local eps, n = b.endpoints, b.n
  retry_cursor = retry_cursor + 1
  for k = 0, n - 1 do
    local ep = eps[(retry_cursor + k) % n + 1]
    if not str_find(tried, ep.tried_mark, 1, true) then return ep end
  end
  return eps[retry_cursor % n + 1]
end

-- Sends the request to the server that answers 503 (unknown backend, no endpoint). Without one, nginx's
-- placeholder peer fails the request (502).
local function to_unavailable(name)
  if not unavailable then
    ngx_log(ERR, "portico: backend ", tostring(name), " has no endpoint and no 503 peer is configured")
    return
  end
  local ok, err = set_current_peer(unavailable)
  if not ok then ngx_log(ERR, "portico: set_current_peer ", unavailable, ": ", err) end
end

-- balancer_by_lua: bring the table up to date and set the peer. The first try also grants up to n-1 retries; nginx
-- caps them with proxy_next_upstream_tries.
function _M.balance()
  refresh()
  local name = backend_name()
  local b = backends[name]
  if b ~= nil and b.impl == nil then b = entry(name) end
  if b == nil or b.n == 0 then return to_unavailable(name) end
  local ep
  local more = b.more_tries
  -- a backend with one endpoint gets no retries, so only the others need to ask whether this is one
  if more == 0 or get_last_failure() == nil then
    if more > 0 then set_more_tries(more) end
    if b.on_rewrite then ep = ngx.ctx.portico_endpoint end
    if ep == nil then ep = b.impl:pick() end
  else
    ep = pick_untried(b)
  end
  local ok, err = set_current_peer(ep.host, ep.port)
  if not ok then ngx_log(ERR, "portico: set_current_peer ", ep.name, ": ", err) end
end

-- The retries the first try of this request's backend grants (n-1 endpoints; 0 when unknown): portico.gateway_ext
-- grants them one at a time when a deadline may cut them short.
function _M.more_tries()
  local b = entry(backend_name())
  return b and b.more_tries or 0
end

-- log_by_lua, rendered only where an algorithm learns from responses (ewma): feed the response back to it. It
-- replaces the http-level metrics hook in those locations, so it counts the request too.
function _M.log()
  metrics_log()
  if not any_log then return end
  local b = entry(backend_name())
  if b and b.on_log then b.impl:log() end
end

return _M
