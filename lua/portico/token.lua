-- portico.token: the per-start secret that lets only Portico use the configuration endpoint (docs/adr/0007).
--
-- Portico makes a random token at start and starts nginx with it in PORTICO_CONFIG_TOKEN (nginx.conf names the
-- variable with `env`, never its value). A request to /configuration/* must carry it whole in X-Portico-Token.
-- No token in the environment, or one too short to be Portico's, refuses every request: never "no check".
local ngx = ngx
local type = type
local byte = string.byte
local bit = require("bit")

local _M = {}

_M.ENV = "PORTICO_CONFIG_TOKEN"
_M.HEADER = "X-Portico-Token"
-- Portico sends 64 hex characters (32 random bytes); anything shorter is not its token.
local MIN_LENGTH = 32

local expected = nil

local function token()
  if expected == nil then expected = os.getenv(_M.ENV) or "" end
  return expected
end

-- init_by_lua: read once in the master, so the workers it forks inherit it.
function _M.init()
  token()
end

-- True when `given` is the token: the whole string, compared in time that does not depend on where they differ.
function _M.matches(given)
  local want = token()
  if #want < MIN_LENGTH or type(given) ~= "string" or #given ~= #want then return false end
  local diff = 0
  for i = 1, #want do diff = bit.bor(diff, bit.bxor(byte(given, i), byte(want, i))) end
  return diff == 0
end

-- True when the current request carries the token (exactly one X-Portico-Token header).
function _M.check()
  return _M.matches(ngx.req.get_headers()["x-portico-token"])
end

return _M
