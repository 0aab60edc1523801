-- portico.request_id: the X-Request-ID of a request that came without one (docs/adr/0015).
--
-- nginx's $request_id calls OpenSSL's RAND_bytes for 16 bytes on every request; on Debian's OpenSSL 3 that call costs
-- about 7,000 instructions (parameter lookups, locks, a fork check), most of a proxied request's budget for an id.
-- Here each worker draws POOL bytes from the same RAND_bytes at once and hands out 16 of them per request, as 32
-- lowercase hex digits like $request_id: the same generator, the same format, the fixed cost shared by 256 requests.
--
-- set() runs in the rewrite phase (an http-level rewrite_by_lua, inherited by locations without a rewrite hook of
-- their own) and stores the id in $portico_rid; nginx.conf maps an empty $portico_rid to $request_id, so a location
-- whose own rewrite hook does not call set() still gets an id, nginx's.
local ffi = require("ffi")
local bit = require("bit")
local base = require("resty.core.base")
local var_set = require("portico.ffivar").set

-- pcall: another module (lua-resty-string's resty.random) may have declared it first; a second cdef would raise.
pcall(ffi.cdef, "int RAND_bytes(unsigned char *buf, int num);")

local C = ffi.C
local band, rshift = bit.band, bit.rshift
local get_request = base.get_request

local ngx = ngx
local _M = {}

local POOL = 4096
local pool = ffi.new("unsigned char[?]", POOL)
-- Everything counts as handed out until a worker draws its own bytes: a pool drawn before the fork (init_by_lua,
-- in the master) would give every worker the same ids. init_worker() empties it again.
local used = POOL
local DIGITS = ffi.new("const char[17]", "0123456789abcdef")
local id = ffi.new("unsigned char[32]")

local NAME = "portico_rid"

function _M.init_worker()
  used = POOL
end

-- Fills `id` with the next 32 hex digits; false when OpenSSL could not give bytes (then nginx's $request_id is used).
local function next_id()
  if used >= POOL then
    if C.RAND_bytes(pool, POOL) ~= 1 then return false end
    used = 0
  end
  for i = 0, 15 do
    local b = pool[used + i]
    id[2 * i] = DIGITS[rshift(b, 4)]
    id[2 * i + 1] = DIGITS[band(b, 15)]
  end
  used = used + 16
  return true
end

-- rewrite_by_lua: $portico_rid for this request (nginx copies the value into the request's pool).
function _M.set()
  local r = get_request()
  if not r or not next_id() then return end
  var_set(r, NAME, id, 32)
end

return _M
