-- portico.certificate_check: the checks of a certificates payload and of a delta (lua/portico/certificate.lua, which
-- serves them): host names, PEMs that parse (each parsed once: the PEMs this worker already holds are known good), and
-- the delta merged into a payload for GET.
local cjson = require("cjson.safe")
local ssl = require("ngx.ssl")

local type = type
local pairs = pairs
local ipairs = ipairs
local tostring = tostring
local str_find = string.find
local str_match = string.match
local str_sub = string.sub
local str_format = string.format

local _M = {}

local function valid_host(h)
  if type(h) ~= "string" or #h > 253 then return false end
  local rest = str_sub(h, 1, 2) == "*." and str_sub(h, 3) or h
  return str_match(rest, "^[a-z0-9][a-z0-9.-]*$") ~= nil and str_match(rest, "[a-z0-9]$") ~= nil
    and not str_find(rest, "..", 1, true)
end

-- PEMs known to parse: those of the payload this worker last validated or read from the dict. A push repeats most of
-- its PEMs (every host of a shared certificate, every certificate that did not change), and parsing each one again
-- was most of the push: 1,000 hosts took nginx 0.5-0.6 s (docs/adr/0048). A PEM that parsed once parses again, so
-- skipping it gives the same verdict. Rebuilt with each whole payload (a delta only adds to it): it holds the PEMs of
-- one payload and of the deltas after it.
local known = {}

-- The worker's whole set read from the dict: its PEMs are the known ones now.
function _M.know_only(pems)
  known = pems
end

-- A PEM read from the dict (a POST validated it).
function _M.know(pem)
  known[pem] = true
end

-- A PEM's certificate and key, parsed: { pem, cert, key } (cdata), or nil and what failed.
function _M.parse(pem)
  local cert, err = ssl.parse_pem_cert(pem)
  if not cert then return nil, "certificate: " .. tostring(err) end
  local key, kerr = ssl.parse_pem_priv_key(pem)
  if not key then return nil, "private key: " .. tostring(kerr) end
  return { pem = pem, cert = cert, key = key }
end

-- Whether every PEM of a payload parses: those of the payload this worker last validated or read are known to; `good`
-- collects the ones of this payload that passed.
local function pem_checker(good)
  return function(pem)
    if known[pem] or good[pem] then
      good[pem] = true
      return true
    end
    local ok, perr = _M.parse(pem)
    if ok then good[pem] = true end
    return ok, perr
  end
end

-- host -> PEM entries of `certs` (nil or null: none) that are good, the others rejected; or nil and a message.
local function check_hosts(certs, field, check_pem, reject)
  if certs == nil or certs == cjson.null then return {} end
  if type(certs) ~= "table" then return nil, field .. ": must be an object of host -> PEM" end
  local kept = {}
  for host, pem in pairs(certs) do
    if not valid_host(host) then
      reject(tostring(host), str_format("%s[%s]: not a lower-case host name or *.domain", field, tostring(host)))
    elseif type(pem) ~= "string" then
      reject(host, str_format("%s[%s]: must be a PEM string", field, host))
    else
      local ok, perr = check_pem(pem)
      if ok then kept[host] = pem else reject(host, str_format("%s[%s]: %s", field, host, perr)) end
    end
  end
  return kept
end

-- A list of host names (nil or null: none), or a message naming the first bad one.
local function check_names(names, field)
  if names == nil or names == cjson.null then return nil end
  if type(names) ~= "table" then return field .. ": must be an array of host names" end
  for i, h in ipairs(names) do
    if not valid_host(h) then return str_format("%s[%d]: not a lower-case host name or *.domain", field, i - 1) end
  end
  return nil
end

-- default, listener, plain and deep of a whole payload or a delta's rest: a bad PEM is dropped (rejected), a bad name
-- list is a message.
local function check_rest(rest, check_pem, reject)
  for _, field in ipairs({ "default", "listener" }) do
    local pem = rest[field]
    if pem ~= nil and pem ~= cjson.null then
      local ok, perr
      if type(pem) ~= "string" then ok, perr = nil, "must be a PEM string or null" else ok, perr = check_pem(pem) end
      if not ok then
        reject(field, field .. ": " .. perr)
        rest[field] = nil
      end
    end
  end
  return check_names(rest.plain, "plain") or check_names(rest.deep, "deep")
end

-- What a whole payload and a delta check alike: the body decoded as an object, and its host -> PEM entries under
-- `field` kept where good. Returns the body, the kept entries, the list of what was dropped ({ name, reason }), the
-- PEM check for the body's other PEMs and the PEMs that passed; or nil and what is wrong with the body itself.
local function open(body, field)
  if type(body) ~= "string" or body == "" then return nil, "empty body" end
  local payload, err = cjson.decode(body)
  if type(payload) ~= "table" then return nil, "invalid JSON: " .. tostring(err or "expected an object") end
  local rejected, good = {}, {}
  local function reject(name, reason) rejected[#rejected + 1] = { name = name, reason = reason } end
  local check_pem = pem_checker(good)
  local kept, herr = check_hosts(payload[field], field, check_pem, reject)
  if not kept then return nil, herr end
  return payload, kept, rejected, function(rest) return check_rest(rest, check_pem, reject) end, good
end

-- Returns the decoded payload without its bad entries and the list of those ({ name, reason }), or nil and what is
-- wrong with the body itself. Every PEM is parsed once here, so a bad one is dropped at the door instead of failing
-- handshakes later, and never takes the other hosts' certificates with it.
function _M.validate(body)
  local payload, kept, rejected, rest_checked, good = open(body, "certificates")
  if not payload then return nil, kept end
  payload.certificates = kept
  local rerr = rest_checked(payload)
  if rerr then return nil, rerr end
  -- only what this payload holds (a PEM known before and not sent again is forgotten)
  known = good
  return payload, rejected
end

-- A delta (see the top): its bad entries dropped and listed, as for a whole payload; nil and a message when the body,
-- a removed name or the rest's name lists are bad, or a host is both set and removed.
function _M.validate_delta(body)
  local d, kept, rejected, rest_checked, good = open(body, "set")
  if not d then return nil, kept end
  local remove = d.remove
  if remove == nil or remove == cjson.null then remove = {} end
  local rerr = check_names(remove, "remove")
  if rerr then return nil, rerr end
  for i, h in ipairs(remove) do
    if type(d.set) == "table" and d.set[h] ~= nil then return nil, str_format("remove[%d]: %s is also set", i - 1, h) end
  end
  local rest = d.rest
  if rest == cjson.null then rest = nil end
  if rest ~= nil then
    if type(rest) ~= "table" then return nil, "rest: must be an object" end
    rerr = rest_checked(rest)
    if rerr then return nil, "rest." .. rerr end
  end
  -- what the held payload already had stays known: a delta only adds
  for pem in pairs(good) do known[pem] = true end
  return { set = kept, remove = remove, rest = rest }, rejected
end

-- A delta applied to a whole payload (GET, and what portico.store's current() gives).
function _M.merge(payload, d)
  local certs = type(payload.certificates) == "table" and payload.certificates or {}
  payload.certificates = certs
  for host, pem in pairs(type(d.set) == "table" and d.set or {}) do certs[host] = pem end
  for _, host in ipairs(type(d.remove) == "table" and d.remove or {}) do certs[host] = nil end
  local rest = d.rest
  if type(rest) == "table" then
    payload.default, payload.listener, payload.plain, payload.deep = rest.default, rest.listener, rest.plain, rest.deep
  end
  return payload
end

return _M
