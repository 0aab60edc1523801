-- portico.canary: the canary decision of a main backend (ADR 0006), in ingress-nginx's precedence: header, then
-- cookie, then weight. Validated when posted; prepared once per sync; decided in the rewrite phase.
local ngx = ngx
local ngx_var = ngx.var
local re_find = ngx.re.find
local math_random = math.random
local type = type
local pairs = pairs
local str_match = string.match
local str_lower = string.lower
local str_gsub = string.gsub
local str_sub = string.sub
local str_find = string.find

local _M = {}

local check = require("portico.check")
local is_int = check.is_int
-- True when every byte of s is printable ASCII (32-126), '$' too unless no_dollar.
local printable = check.ascii

-- Escapes both PCRE and JavaScript read alike: d D w W s S b B n t and punctuation.
local PLAIN_ESCAPE = "dDwWsSbBnt!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

-- The model's pcreCommon (src/annotations/values.ts), written again: nil, or what is outside the shared syntax.
local function pcre_common(p)
  local i = 1
  while i <= #p do
    if str_sub(p, i, i) == "\\" then
      local c = str_sub(p, i + 1, i + 1)
      if c == "" or not str_find(PLAIN_ESCAPE, c, 1, true) then return "the escape \\" .. c .. " reads differently in PCRE and JavaScript" end
      i = i + 2
    else
      i = i + 1
    end
  end
  local body = (str_gsub(p, "^%(%?i%)", ""))
  body = (str_gsub(body, "\\.", ""))
  local at = str_find(body, "(?", 1, true)
  while at do
    if str_sub(body, at + 2, at + 2) ~= ":" then return "only (...) and (?:...) groups are taken" end
    at = str_find(body, "(?", at + 1, true)
  end
  if str_find(body, "%[%^?%]") then return "an empty character class reads differently in PCRE and JavaScript" end
  return nil
end

-- Returns nil, or a message saying what is wrong with one policy.
local function validate_policy(c, at)
  if type(c) ~= "table" then return at .. ": must be an object" end
  if type(c.backend) ~= "string" or not str_match(c.backend, "^[a-z0-9_.-]+$") then
    return at .. ".backend: must match [a-z0-9_.-]+"
  end
  if type(c.header) ~= "string" or (c.header ~= "" and not str_match(c.header, "^[%w][%w-]*$")) or #c.header > 64 then
    return at .. ".header: must be \"\" or a header name"
  end
  if type(c.headerValue) ~= "string" or #c.headerValue > 1024 or not printable(c.headerValue, true) then
    return at .. ".headerValue: must be printable ASCII without '$', at most 1024"
  end
  if type(c.headerPattern) ~= "string" or #c.headerPattern > 256 or not printable(c.headerPattern) then
    return at .. ".headerPattern: must be printable ASCII, at most 256"
  end
  if c.headerPattern ~= "" then
    local outside = pcre_common(c.headerPattern)
    if outside then return at .. ".headerPattern: " .. outside end
    local _, _, err = re_find("", c.headerPattern, "jo")
    if err then return at .. ".headerPattern: " .. err end
  end
  if type(c.cookie) ~= "string" or (c.cookie ~= "" and not str_match(c.cookie, "^[%w!#%%&'*+.^_`|~-]+$")) or #c.cookie > 64 then
    return at .. ".cookie: must be \"\" or a cookie name"
  end
  if not is_int(c.weightTotal, 1, 1000000) then return at .. ".weightTotal: must be an integer 1-1000000" end
  if not is_int(c.weight, 0, c.weightTotal) then return at .. ".weight: must be an integer 0-weightTotal" end
  return nil
end

-- Returns nil, or a message saying what is wrong with `cs`, the "canary" object of one backend: route key -> policy.
function _M.validate(cs, at)
  if type(cs) ~= "table" then return at .. ": must be an object" end
  local n = 0
  for key, c in pairs(cs) do
    n = n + 1
    if type(key) ~= "string" or not str_match(key, "^[a-z0-9_.-]+$") then return at .. ": route keys must match [a-z0-9_.-]+" end
    local msg = validate_policy(c, at .. "." .. key)
    if msg then return msg end
  end
  if n ~= 0 and #cs ~= 0 then return at .. ": must be an object" end
  return nil
end

-- Adds the nginx variable names each decision reads (once per sync, not per request).
function _M.prepare_all(cs)
  for _, c in pairs(cs) do
    c.header_var = c.header ~= "" and ("http_" .. str_gsub(str_lower(c.header), "-", "_")) or nil
    c.cookie_var = c.cookie ~= "" and ("cookie_" .. c.cookie) or nil
  end
  return cs
end

-- true: route this request to the canary backend.
function _M.wanted(c)
  local hv = c.header_var and ngx_var[c.header_var]
  if hv then
    if c.headerValue ~= "" then
      if hv == c.headerValue then return true end
    elseif c.headerPattern ~= "" then
      if re_find(hv, c.headerPattern, "jo") then return true end
    elseif hv == "always" then
      return true
    elseif hv == "never" then
      return false
    end
  end
  local cv = c.cookie_var and ngx_var[c.cookie_var]
  if cv == "always" then return true end
  if cv == "never" then return false end
  local w = c.weight
  return w > 0 and math_random(c.weightTotal) <= w
end

return _M
