-- portico.gateway: the Gateway API route table (docs/adr/0011). A location some HTTPRoute match with conditions
-- (headers, query parameters, method, a regex path) or with filters, weights or timeouts may take runs rewrite() in
-- the rewrite phase: it finds the location's candidates by $portico_gw, takes the first whose conditions all hold
-- (the model sorted them by the specification's precedence) and applies its action; none: the location's own target.
--
-- POST /configuration/gateway  body (JSON, made by src/render/lua-payload.ts gatewayPayload):
--   { "actions": [ { "backends": [ { "upstream": "ns_svc_80" | absent (answers 500), "weight": n,
--                                    "requestHeaders"/"responseHeaders": (as below, the backendRef's filters) } ],
--                    "requestHeaders"/"responseHeaders": { "set": [{name,value}], "add": [...], "remove": [name] },
--                    "redirect": { "scheme", "hostname", "port", "statusCode", "path": { "type", "value" } },
--                    "rewrite": { "hostname", "path": { "type", "value" } },
--                    "mirror": [ "10.0.0.1:8080", ... ] (endpoints of the mirror backend), "mirrorPercent": p,
--                    "moreMirrors": [ { "endpoints": [...], "percent": p } ] (the rule's further mirrors),
--                    "timeoutMs": n, "deadlineMs", "retry", "cors" (lua/portico/gateway_ext.lua),
--                    "failStatus": 503 (what a share without a valid backend answers; absent: 500) } ],
--     "locations": { "gw0": [ { "match": { "path": { "type", "value" }, "headers": [{name,type,value}],
--                                          "query": [...], "method": "GET", "scheme": "https",
--                                          "hostSuffix": ".example.com", "ports": [8080],
--                                          "exceptHosts": [ "a.example.com", "*.b.example.com" ] (portico.isolation) }, "action": i } ] },
--     "listenerPorts": { "18080": 8080 } (local port -> Gateway listener port, off the traffic ports) }
-- -> 201 (with a "rejected <entry>: <reason>" line per candidate or action dropped), or 400 when the body is not such
-- an object at all, nothing changed. GET returns what nginx holds. Stored whole (no deltas) by portico.store as
-- kind "gateway", signalled through its own slot of the version cell; a worker decodes it once per push.
local store = require("portico.store")
local gateway_check = require("portico.gateway_check")
local balancer = require("portico.balancer")
local ext = require("portico.gateway_ext")
local isolation = require("portico.isolation")

local ngx = ngx
local ngx_var = ngx.var
local re_find = ngx.re.find
local type = type
local ipairs = ipairs
local pairs = pairs
local tostring = tostring
local math_random = math.random
local str_gsub = string.gsub
local str_sub = string.sub
local str_match = string.match
local str_format = string.format

local _M = {}


local routes = {}      -- location key -> list of { match, action } (worker-local, prepared)
local listener_ports = {} -- local port (string) -> Gateway listener port, off the traffic ports
local synced = nil     -- the dict version `routes` was built from

-- Once per push: header variable names, anchored regexes, the actions' weight totals.
local function prepare(t)
  for _, a in ipairs(t.actions) do
    local total = 0
    for _, b in ipairs(a.backends) do total = total + b.weight end
    a.total = total
    if a.mirror and #a.mirror == 0 then a.mirror = nil end
  end
  local out = {}
  for key, list in pairs(t.locations) do
    local cands = {}
    for i, c in ipairs(list) do
      local m = c.match
      for _, h in ipairs(m.headers) do
        h.var = "http_" .. str_gsub(h.name, "-", "_")
        if h.type == "RegularExpression" then h.re = "^(?:" .. h.value .. ")$" end
      end
      for _, q in ipairs(m.query) do
        if q.type == "RegularExpression" then q.re = "^(?:" .. q.value .. ")$" end
      end
      if m.path.type == "RegularExpression" then m.path.re = "^(?:" .. m.path.value .. ")$" end
      isolation.prepare(m)
      if m.ports then
        local set = {}
        for _, p in ipairs(m.ports) do set[tostring(p)] = true end
        m.port_set = set
      end
      cands[i] = { match = m, action = t.actions[c.action + 1], has_query = #m.query > 0 }
    end
    out[key] = cands
  end
  return out, t.listenerPorts or {}
end

local place, dict, cell, cell_seen

-- Per worker, on the first request: one load of the cell's slot a request, the dict only when it changed.
local function refresh()
  if place == nil then
    place = store.place("gateway")
    dict = ngx.shared[place.dict]
    cell = store.version_cell()
  elseif cell then
    local seen = cell[place.slot]
    if seen == cell_seen then return end
    cell_seen = seen
  end
  local version = dict:get(place.version)
  if version == synced then return end
  local t, _, none = store.read("gateway", nil)
  if not t and none ~= "none" then cell_seen = nil; return end -- moved under the read: the next request asks again
  synced = version
  if t then routes, listener_ports = prepare(t) else routes, listener_ports = {}, {} end
end

local function value_matches(c, v)
  if v == nil then return false end
  if type(v) == "table" then v = v[1] end
  if v == true then v = "" end
  if c.re then return re_find(v, c.re, "jo") ~= nil end
  return v == c.value
end

-- Every condition of one match holds for this request (the path of Exact/PathPrefix already did, by the location).
local function matches(c, uri, args)
  local m = c.match
  if m.method and ngx.req.get_method() ~= m.method then return false, args end
  if m.scheme and ngx_var.scheme ~= m.scheme then return false, args end
  -- a route of other listener ports than the one the request came in on (model/gateway/port-scope.ts)
  if m.port_set and not m.port_set[ngx_var.server_port] then return false, args end
  if m.hostSuffix then
    local host = ngx_var.host or ""
    if #host <= #m.hostSuffix or str_sub(host, -#m.hostSuffix) ~= m.hostSuffix then return false, args end
  end
  -- listener isolation: a more specific listener of the route's Gateway serves this host (portico.isolation)
  if m.except_exact and isolation.excluded(m, ngx_var.host or "") then return false, args end
  if m.path.re and not re_find(uri, m.path.re, "jo") then return false, args end
  for _, h in ipairs(m.headers) do
    if not value_matches(h, ngx_var[h.var]) then return false, args end
  end
  if c.has_query then
    args = args or ngx.req.get_uri_args(100)
    for _, q in ipairs(m.query) do
      if not value_matches(q, args[q.name]) then return false, args end
    end
  end
  return true, args
end

-- ReplacePrefixMatch: the matched prefix replaced, one '/' kept between the replacement and the rest (the table of
-- the specification's HTTPPathModifier: /foo/bar with /foo -> /xyz gives /xyz/bar, with "" or "/" gives /bar).
local function replace_prefix(uri, prefix, with)
  local rest = prefix == "/" and uri or str_sub(uri, #prefix + 1)
  if rest == "" then return with ~= "" and with or "/" end
  if str_sub(with, -1) == "/" and str_sub(rest, 1, 1) == "/" then rest = str_sub(rest, 2) end
  local out = with .. rest
  return out == "" and "/" or out
end

local function new_path(edit, uri, c)
  if not edit then return uri end
  if edit.type == "ReplaceFullPath" then return edit.value end
  return replace_prefix(uri, c.match.path.value, edit.value)
end

local DEFAULT_PORT = { http = 80, https = 443 }

-- RequestRedirect: scheme, hostname, port, path of the Location; the port is left out when it is the scheme's own.
local function redirect(r, uri, c)
  local scheme = r.scheme or ngx_var.scheme
  -- no port: the scheme's when the filter names one, else the listener's (its Gateway port, not the local one)
  local port = r.port or (r.scheme and DEFAULT_PORT[r.scheme]) or listener_ports[ngx_var.server_port] or (ngx_var.https == "on" and 443 or 80)
  local host = r.hostname or ngx_var.host
  local authority = port == DEFAULT_PORT[scheme] and host or (host .. ":" .. port)
  -- the path as the client sent it (still escaped), unless its prefix is written differently from the match's
  local raw = str_match(ngx_var.request_uri or "", "^[^?]*") or ""
  local p = c.match.path
  if raw == "" or (p.type == "PathPrefix" and str_sub(raw, 1, #p.value) ~= p.value) then raw = uri end
  local args = ngx_var.args
  local url = scheme .. "://" .. authority .. new_path(r.path, raw, c) .. (args and args ~= "" and ("?" .. args) or "")
  return ngx.redirect(url, r.statusCode)
end

local function edit_request_headers(e)
  for _, h in ipairs(e.set or {}) do ngx.req.set_header(h.name, h.value) end
  if e.add and #e.add > 0 then
    local have = ngx.req.get_headers(100)
    for _, h in ipairs(e.add) do
      local cur = have[h.name]
      if type(cur) == "table" then cur = table.concat(cur, ",") end
      ngx.req.set_header(h.name, cur and (cur .. "," .. h.value) or h.value)
    end
  end
  for _, n in ipairs(e.remove or {}) do ngx.req.clear_header(n) end
end

local function pick_backend(a)
  local bs = a.backends
  if #bs == 1 then return bs[1] end
  local r = math_random(a.total)
  for _, b in ipairs(bs) do
    r = r - b.weight
    if r <= 0 then return b end
  end
  return bs[#bs]
end

local function rewrite_to(r, uri, c)
  if r.hostname then ngx.req.set_header("Host", r.hostname) end
  if r.path then ngx.req.set_uri(new_path(r.path, uri, c), false) end
end

local function apply(a, c, uri)
  -- a CORS preflight is answered by the gateway, whatever the rule does with other requests
  if a.cors and ext.cors(a.cors) then return end
  if a.redirect then return redirect(a.redirect, uri, c) end
  -- a GRPCRoute's invalid share answers 503, which gRPC clients read as UNAVAILABLE (the GRPCRoute specification)
  if a.total == 0 then return ngx.exit(a.failStatus or 500) end
  if a.requestHeaders then edit_request_headers(a.requestHeaders) end
  if a.rewrite then rewrite_to(a.rewrite, uri, c) end
  local ctx = ngx.ctx
  if a.responseHeaders then ctx.portico_gw_response = a.responseHeaders end
  ext.prepare(ctx, a)
  -- RequestMirror percent/fraction: the other requests keep "" (the mirror location then copies nothing)
  if a.mirror and (not a.mirrorPercent or math_random() * 100 < a.mirrorPercent) then
    ngx_var.portico_gw_mirror = a.mirror[math_random(#a.mirror)]
  end
  -- further mirrors: each its own variable, set only where this nginx.conf declares it (a newer table may run
  -- on an older configuration until the reload)
  for j, m in ipairs(a.moreMirrors or {}) do
    local var = "portico_gw_mirror_" .. (j + 1)
    if #m.endpoints > 0 and ngx_var[var] ~= nil and (not m.percent or math_random() * 100 < m.percent) then
      ngx_var[var] = m.endpoints[math_random(#m.endpoints)]
    end
  end
  local b = pick_backend(a)
  if not b.upstream then return ngx.exit(a.failStatus or 500) end
  -- the backendRef's own RequestRedirect or URLRewrite (the rule has no URLRewrite then)
  if b.redirect then return redirect(b.redirect, uri, c) end
  if b.rewrite then rewrite_to(b.rewrite, uri, c) end
  -- the backendRef's own filters, after the rule's
  if b.requestHeaders then edit_request_headers(b.requestHeaders) end
  if b.responseHeaders then ctx.portico_gw_backend_response = b.responseHeaders end
  ngx_var.portico_backend = b.upstream
  -- metrics (portico.metrics): namespace|route|service|host|upstream of what was chosen, the location's host kept
  -- (declared only with metrics on; a 404 location has none of its own: the server's name is its host)
  local labels = ngx_var.portico_metrics
  if labels ~= nil and type(a.route) == "table" then
    local host = labels ~= "" and str_match(labels, "^[^|]*|[^|]*|[^|]*|([^|]*)") or ngx_var.server_name or ""
    ngx_var.portico_metrics = str_format("%s|%s|%s|%s|%s", tostring(a.route.namespace), tostring(a.route.name), tostring(b.service or ""), host, b.upstream)
  end
  return balancer.rewrite()
end

-- rewrite_by_lua of a location with candidates.
function _M.rewrite()
  refresh()
  local list = routes[ngx_var.portico_gw or ""]
  if list then
    local uri = ngx_var.uri
    local args
    for _, c in ipairs(list) do
      local ok
      ok, args = matches(c, uri, args)
      if ok then return apply(c.action, c, uri) end
    end
  end
  -- no candidate: the location's own target (an Ingress path, the default backend, or 404)
  if ngx_var.portico_backend == "" then
    ngx.status = 404
    ngx.header["Content-Type"] = "text/plain"
    ngx.print("default backend - 404\n")
    return ngx.exit(404)
  end
  return balancer.rewrite()
end

-- ResponseHeaderModifier edits on the response headers.
local function edit_response_headers(e)
  local h = ngx.header
  for _, x in ipairs(e.set or {}) do h[x.name] = x.value end
  for _, x in ipairs(e.add or {}) do
    local cur = h[x.name]
    if type(cur) == "table" then cur = table.concat(cur, ",") end
    h[x.name] = cur and (cur .. "," .. x.value) or x.value
  end
  for _, n in ipairs(e.remove or {}) do h[n] = nil end
end

-- header_filter_by_lua of the same locations: ResponseHeaderModifier of the rule taken, then of its backendRef.
function _M.header_filter()
  local ctx = ngx.ctx
  if ctx.portico_gw_response then edit_response_headers(ctx.portico_gw_response) end
  if ctx.portico_gw_backend_response then edit_response_headers(ctx.portico_gw_backend_response) end
  ext.cors_headers(ctx)
end

-- balancer_by_lua of the portico_gateway upstream: the usual pick, then the rule's timeouts, deadline and retries.
function _M.balance()
  balancer.balance()
  return ext.tries()
end

store.kind("gateway", {
  what = "gateway routes",
  validate = gateway_check.validate,
  describe = function() return "gateway routes stored" end,
})

return _M
