-- portico.gateway_ext: the HTTPRoute features portico.gateway hands over (docs/adr/0026): the CORS filter (preflights
-- answered here, response headers added in the header filter), and each try's timeout, the request deadline across
-- tries and the retries granted one try at a time in balancer_by_lua. Values come as data from the route table.
--
-- Action fields (besides portico.gateway's):
--   "cors": { "origins": ["*" | "https://www.example.com" | "https://*.example.com"], "methods": [...], "headers": [...],
--             "expose": [...], "maxAge": n, "credentials": bool },
--   "retry": { "codes": [500, ...], "attempts": n }, "deadlineMs": n (timeouts.request, one deadline across tries),
--   backends[i]."rewrite" / "redirect" (a backendRef's URLRewrite / RequestRedirect, shaped as the rule's).
local check = require("portico.check")
local balancer = require("portico.balancer")
local ngx_balancer = require("ngx.balancer")

local ngx = ngx
local ngx_var = ngx.var
local type = type
local tostring = tostring
local ipairs = ipairs
local str_format = string.format
local str_match = string.match
local str_sub = string.sub
local str_find = string.find
local str_lower = string.lower
local concat = table.concat
local is_int = check.is_int
local printable = check.printable

local _M = {}

local RETRY_CODES = { [403] = true, [404] = true, [429] = true, [500] = true, [502] = true, [503] = true, [504] = true }
local REDIRECT_CODES = { [301] = true, [302] = true, [303] = true, [307] = true, [308] = true }

local function check_list(list, at, pattern)
  if type(list) ~= "table" then return at .. ": must be an array" end
  for i, v in ipairs(list) do
    if not printable(v, 256) or not str_match(v, pattern) then return str_format("%s[%d]: not accepted", at, i - 1) end
  end
  return nil
end

local function check_cors(c, at)
  if type(c) ~= "table" then return at .. ": must be an object" end
  return check_list(c.origins, at .. ".origins", "^[%l%d*+.:/-]+$")
    or check_list(c.methods, at .. ".methods", "^[A-Z*]+$")
    or check_list(c.headers, at .. ".headers", "^[%w!#$%%&'*+.^_`|~-]+$")
    or check_list(c.expose, at .. ".expose", "^[%w!#$%%&'*+.^_`|~-]+$")
    or (not is_int(c.maxAge, 1, 86400) and at .. ".maxAge: must be 1-86400" or nil)
    or (type(c.credentials) ~= "boolean" and at .. ".credentials: must be a boolean" or nil)
end

-- What of an action this module owns is invalid (a message naming it), or nil.
function _M.check(a, at)
  if a.cors ~= nil then
    local msg = check_cors(a.cors, at .. ".cors")
    if msg then return msg end
  end
  if a.retry ~= nil then
    local r = a.retry
    if type(r) ~= "table" or not is_int(r.attempts, 1, 10) or type(r.codes) ~= "table" then return at .. ".retry: attempts 1-10 and codes" end
    for i, code in ipairs(r.codes) do
      if not RETRY_CODES[code] then return str_format("%s.retry.codes[%d]: not a code nginx retries on", at, i - 1) end
    end
  end
  if a.deadlineMs ~= nil and not is_int(a.deadlineMs, 1, 86400000 * 7) then return at .. ".deadlineMs: must be a positive integer" end
  for i, b in ipairs(a.backends) do
    if b.redirect ~= nil and (type(b.redirect) ~= "table" or not REDIRECT_CODES[b.redirect.statusCode]) then
      return str_format("%s.backends[%d].redirect.statusCode: must be 301, 302, 303, 307 or 308", at, i - 1)
    end
    if b.rewrite ~= nil and type(b.rewrite) ~= "table" then return str_format("%s.backends[%d].rewrite: must be an object", at, i - 1) end
  end
  return nil
end

-- An allowed origin: "*", the same origin, or "scheme://*.suffix" with at least one character of host before suffix.
local function origin_allowed(list, origin)
  for _, o in ipairs(list) do
    if o == "*" or o == origin then return true end
    local scheme, suffix = str_match(o, "^([^:]+://)%*(%..+)$")
    if scheme and #origin > #scheme + #suffix and str_sub(origin, 1, #scheme) == scheme and str_sub(origin, -#suffix) == suffix then
      local middle = str_sub(origin, #scheme + 1, -#suffix - 1)
      if not str_find(middle, "[/:@?#]") then return true end
    end
  end
  return false
end

local function join(list) return concat(list, ", ") end

-- rewrite phase, once the rule is chosen: a preflight (OPTIONS with Origin and Access-Control-Request-Method) is
-- answered here, 204, with the CORS headers when its origin is allowed (none otherwise: the browser refuses); any
-- other request with an allowed Origin gets the response headers in the header filter. Returns true when answered.
function _M.cors(p)
  local origin = ngx_var.http_origin
  if type(origin) ~= "string" or origin == "" then return false end
  local ok = origin_allowed(p.origins, str_lower(origin))
  local asked = ngx_var.http_access_control_request_method
  if ngx.req.get_method() == "OPTIONS" and asked then
    local h = ngx.header
    if ok then
      h["Access-Control-Allow-Origin"] = origin
      if p.credentials then h["Access-Control-Allow-Credentials"] = "true" end
      -- "*" in a list: the request's own method and headers (a literal "*" means nothing to a request with credentials)
      h["Access-Control-Allow-Methods"] = p.methods[1] == "*" and asked or join(p.methods)
      local want = ngx_var.http_access_control_request_headers
      if p.headers[1] == "*" then
        if want and want ~= "" then h["Access-Control-Allow-Headers"] = want end
      elseif #p.headers > 0 then
        h["Access-Control-Allow-Headers"] = join(p.headers)
      end
      if #p.expose > 0 then h["Access-Control-Expose-Headers"] = join(p.expose) end
      h["Access-Control-Max-Age"] = tostring(p.maxAge)
    end
    h["Vary"] = "Origin"
    return ngx.exit(204) or true
  end
  if ok then ngx.ctx.portico_gw_cors = { origin = origin, policy = p } end
  return false
end

-- header_filter phase: the CORS response headers of an allowed origin (the backend's own are replaced).
function _M.cors_headers(ctx)
  local c = ctx.portico_gw_cors
  if not c then return end
  local h = ngx.header
  h["Access-Control-Allow-Origin"] = c.origin
  if c.policy.credentials then h["Access-Control-Allow-Credentials"] = "true" end
  if #c.policy.expose > 0 then h["Access-Control-Expose-Headers"] = join(c.policy.expose) end
  local vary = h["Vary"]
  if type(vary) == "table" then vary = concat(vary, ", ") end
  h["Vary"] = vary and (vary .. ", Origin") or "Origin"
end

-- rewrite phase: what balance() needs of the action taken (nil: the location's own target).
function _M.prepare(ctx, a)
  if a.retry or a.deadlineMs or a.timeoutMs then ctx.portico_gw_action = a end
  if a.deadlineMs then ctx.portico_gw_deadline = ngx.req.start_time() + a.deadlineMs / 1000 end
end

-- balancer_by_lua, after the peer is set: this try's timeouts (the rule's per-try timeout, cut to what is left of the
-- deadline) and whether one more try is granted (a retry left, and time left after this try's timeout).
function _M.tries()
  local ctx = ngx.ctx
  local a = ctx.portico_gw_action
  local first = ngx_balancer.get_last_failure() == nil
  if not a then
    -- another request of a location that retries on codes: one try (nginx's retry mask is the location's)
    if first and ngx_var.portico_gw_retry == "1" then ngx_balancer.set_more_tries(0) end
    return
  end
  local t = a.timeoutMs and a.timeoutMs / 1000
  local last = false
  if ctx.portico_gw_deadline then
    ngx.update_time()
    local left = ctx.portico_gw_deadline - ngx.now()
    if left < 0.001 then left = 0.001 end
    if not t or left <= t then t, last = left, true end
  end
  if t then
    local ok, err = ngx_balancer.set_timeouts(t, t, t)
    if not ok then ngx.log(ngx.ERR, "portico: set_timeouts: ", err) end
  end
  local budget
  if a.retry then budget = a.retry.attempts
  elseif ngx_var.portico_gw_retry == "1" then budget = 0
  elseif ctx.portico_gw_deadline then
    if first then ctx.portico_gw_budget = balancer.more_tries() end
    budget = ctx.portico_gw_budget or 0
  else
    return -- a per-try timeout alone: the balancer's own retries stand
  end
  local granted = ctx.portico_gw_granted or 0
  if granted < budget and not last then
    ctx.portico_gw_granted = granted + 1
    ngx_balancer.set_more_tries(1)
  else
    ngx_balancer.set_more_tries(0)
  end
end

return _M
