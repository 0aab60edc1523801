-- portico.gateway_check: validation of the Gateway API route table pushed to POST /configuration/gateway (the body
-- portico.gateway documents). A candidate or action that does not validate is dropped and reported, never the whole
-- table. Kept apart from portico.gateway so the request-time module holds only what runs per request.
local cjson = require("cjson.safe")
local check = require("portico.check")
local ext = require("portico.gateway_ext")
local isolation = require("portico.isolation")

local re_find = ngx.re.find
local type = type
local ipairs = ipairs
local pairs = pairs
local tostring = tostring
local str_sub = string.sub
local str_match = string.match
local str_format = string.format

local _M = {}

-- RequestRedirect codes of the standard channel: 301 and 302 (core), 303, 307 and 308 (extended).
local REDIRECT_CODES = { [301] = true, [302] = true, [303] = true, [307] = true, [308] = true }

local is_int = check.is_int
-- true when s is a string of printable ASCII (and tab), at most max
local printable = check.printable

local function check_regex(v, at)
  if not printable(v, 512) or v == "" then return at .. ": must be 1-512 printable characters" end
  local _, _, err = re_find("", "^(?:" .. v .. ")$", "jo")
  if err then return at .. ": " .. err end
  return nil
end

local function check_conditions(list, at, header)
  if type(list) ~= "table" then return at .. ": must be an array" end
  for i, c in ipairs(list) do
    local cat = str_format("%s[%d]", at, i - 1)
    if type(c) ~= "table" then return cat .. ": must be an object" end
    local pattern = header and "^[a-z0-9][a-z0-9-]*$" or "^[\33-\126]+$"
    if type(c.name) ~= "string" or #c.name > 256 or not str_match(c.name, pattern) then return cat .. ".name: not a name Portico matches" end
    if c.type == "RegularExpression" then
      local msg = check_regex(c.value, cat .. ".value")
      if msg then return msg end
    elseif c.type ~= "Exact" or not printable(c.value, 4096) then
      return cat .. ": type must be Exact or RegularExpression, value printable"
    end
  end
  return nil
end

local function check_ports(list)
  if type(list) ~= "table" or #list == 0 or #list > 64 then return false end
  for _, p in ipairs(list) do
    if not is_int(p, 1, 65535) then return false end
  end
  return true
end

local function check_match(m, at)
  if type(m) ~= "table" or type(m.path) ~= "table" then return at .. ".path: must be an object" end
  local p = m.path
  if p.type == "RegularExpression" then
    local msg = check_regex(p.value, at .. ".path.value")
    if msg then return msg end
  elseif (p.type ~= "Exact" and p.type ~= "PathPrefix") or type(p.value) ~= "string" or str_sub(p.value, 1, 1) ~= "/" then
    return at .. ".path: must be Exact, PathPrefix or RegularExpression with a path"
  end
  return check_conditions(m.headers, at .. ".headers", true) or check_conditions(m.query, at .. ".query", false)
    or ((m.method ~= nil and not (type(m.method) == "string" and str_match(m.method, "^[A-Z]+$"))) and at .. ".method: must be a method" or nil)
    or ((m.scheme ~= nil and m.scheme ~= "http" and m.scheme ~= "https") and at .. ".scheme: must be http or https" or nil)
    or ((m.ports ~= nil and not check_ports(m.ports)) and at .. ".ports: must be an array of ports" or nil)
    or ((m.hostSuffix ~= nil and not (type(m.hostSuffix) == "string" and #m.hostSuffix <= 253 and str_match(m.hostSuffix, "^%.[a-z0-9][a-z0-9.-]*$")))
      and at .. ".hostSuffix: must be .domain" or nil)
    or isolation.check(m.exceptHosts, at .. ".exceptHosts")
end

local function check_edits(e, at)
  if e == nil then return nil end
  if type(e) ~= "table" then return at .. ": must be an object" end
  for _, kind in ipairs({ "set", "add" }) do
    for i, h in ipairs(e[kind] or {}) do
      if type(h) ~= "table" or not printable(h.name, 256) or not str_match(h.name, "^[%w!#$%%&'*+.^_`|~-]+$") or not printable(h.value, 4096) then
        return str_format("%s.%s[%d]: must be a header name and a printable value", at, kind, i - 1)
      end
    end
  end
  for i, n in ipairs(e.remove or {}) do
    if not printable(n, 256) then return str_format("%s.remove[%d]: must be a header name", at, i - 1) end
  end
  return nil
end

local function check_action(a, at)
  if type(a) ~= "table" or type(a.backends) ~= "table" then return at .. ".backends: must be an array" end
  for i, b in ipairs(a.backends) do
    if type(b) ~= "table" or not is_int(b.weight, 1, 1000000) then return str_format("%s.backends[%d].weight: must be 1-1000000", at, i - 1) end
    if b.upstream ~= nil and (type(b.upstream) ~= "string" or not str_match(b.upstream, "^[a-z0-9_.-]+$")) then
      return str_format("%s.backends[%d].upstream: must match [a-z0-9_.-]+", at, i - 1)
    end
    if b.service ~= nil and (type(b.service) ~= "string" or not str_match(b.service, "^[a-z0-9.-]*$")) then
      return str_format("%s.backends[%d].service: must be a Service name", at, i - 1)
    end
    local msg = check_edits(b.requestHeaders, str_format("%s.backends[%d].requestHeaders", at, i - 1))
      or check_edits(b.responseHeaders, str_format("%s.backends[%d].responseHeaders", at, i - 1))
    if msg then return msg end
  end
  if a.timeoutMs ~= nil and not is_int(a.timeoutMs, 1, 86400000 * 7) then return at .. ".timeoutMs: must be a positive integer" end
  if a.failStatus ~= nil and a.failStatus ~= 503 then return at .. ".failStatus: must be 503" end
  if a.redirect ~= nil and (type(a.redirect) ~= "table" or not REDIRECT_CODES[a.redirect.statusCode]) then
    return at .. ".redirect.statusCode: must be 301, 302, 303, 307 or 308"
  end
  if a.mirrorPercent ~= nil and not (type(a.mirrorPercent) == "number" and a.mirrorPercent >= 0 and a.mirrorPercent <= 100) then
    return at .. ".mirrorPercent: must be a number 0-100"
  end
  for i, ep in ipairs(a.mirror or {}) do
    if type(ep) ~= "string" or not str_match(ep, "^[%x.:%[%]]+:%d+$") then return str_format("%s.mirror[%d]: must be address:port", at, i - 1) end
  end
  if a.moreMirrors ~= nil and (type(a.moreMirrors) ~= "table" or #a.moreMirrors > 3) then return at .. ".moreMirrors: must be an array of at most 3" end
  for j, m in ipairs(a.moreMirrors or {}) do
    local mat = str_format("%s.moreMirrors[%d]", at, j - 1)
    if type(m) ~= "table" or type(m.endpoints) ~= "table" then return mat .. ".endpoints: must be an array" end
    for i, ep in ipairs(m.endpoints) do
      if type(ep) ~= "string" or not str_match(ep, "^[%x.:%[%]]+:%d+$") then return str_format("%s.endpoints[%d]: must be address:port", mat, i - 1) end
    end
    if m.percent ~= nil and not (type(m.percent) == "number" and m.percent >= 0 and m.percent <= 100) then return mat .. ".percent: must be a number 0-100" end
  end
  return check_edits(a.requestHeaders, at .. ".requestHeaders") or check_edits(a.responseHeaders, at .. ".responseHeaders")
    or ext.check(a, at)
end

-- The decoded table and the list of what was dropped ({ name = "locations.gw0[1]", reason = ... }), or nil and a
-- message when the body is not a table at all. A candidate that does not validate (a regex PCRE refuses, an action
-- that does not) is dropped and reported, never the whole table: the other routes keep working (as for backends).
function _M.validate(body)
  if type(body) ~= "string" or body == "" then return nil, "empty body: expected a JSON object" end
  local t, err = cjson.decode(body)
  if type(t) ~= "table" then return nil, "invalid JSON: " .. tostring(err) end
  if type(t.actions) ~= "table" or type(t.locations) ~= "table" then return nil, "expected { actions, locations }" end
  if t.listenerPorts ~= nil then
    if type(t.listenerPorts) ~= "table" then return nil, "listenerPorts: must be an object" end
    for k, v in pairs(t.listenerPorts) do
      if type(k) ~= "string" or not str_match(k, "^%d+$") or not is_int(v, 1, 65535) then return nil, "listenerPorts: local port -> listener port" end
    end
  end
  local rejected, bad_action = {}, {}
  for i, a in ipairs(t.actions) do
    local msg = check_action(a, str_format("actions[%d]", i - 1))
    if msg then
      bad_action[i - 1] = true
      rejected[#rejected + 1] = { name = str_format("actions[%d]", i - 1), reason = msg }
    end
  end
  for key, list in pairs(t.locations) do
    if type(key) ~= "string" or not str_match(key, "^[%w_.-]+$") or type(list) ~= "table" then return nil, "locations: keys must be names, values arrays" end
    local kept = {}
    for i, c in ipairs(list) do
      local at = str_format("locations.%s[%d]", key, i - 1)
      local msg
      if type(c) ~= "table" or not is_int(c.action, 0, #t.actions - 1) then
        msg = at .. ".action: must index actions"
      elseif bad_action[c.action] then
        msg = str_format("%s: its action actions[%d] was rejected", at, c.action)
      else
        msg = check_match(c.match, at .. ".match")
      end
      if msg then rejected[#rejected + 1] = { name = at, reason = msg } else kept[#kept + 1] = c end
    end
    t.locations[key] = kept
  end
  return t, rejected
end

return _M
