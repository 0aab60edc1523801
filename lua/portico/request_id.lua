-- portico.request_id: the X-Request-ID of a request that came without one (docs/adr/0015).
--
-- nginx's $request_id calls OpenSSL's RAND_bytes for 16 bytes on every request; on Debian's OpenSSL 3 that call costs
-- about 7,000 instructions (parameter lookups, locks, a fork check), most of a proxied request's budget for an id.
-- Here each worker draws POOL bytes from the same RAND_bytes at once and hands out 16 of them per request, as 32
-- lowercase hex digits like $request_id: the same generator, the same format, the fixed cost shared by 256 requests.
--
-- value() runs in every rendered server's rewrite phase, before any location's: nginx.conf's
--   set_by_lua_block $portico_request_id { return require("portico.request_id").value() }
-- (set_by_lua runs the chunk on the main Lua thread: no coroutine, no variable lookup by name, about half of what a
-- rewrite_by_lua that set the variable cost). nginx.conf maps $portico_request_id to $request_id where it is not set
-- (a server without that line), and $req_id is the client's X-Request-ID, else $portico_request_id.
local ffi = require("ffi")
local bit = require("bit")
local base = require("resty.core.base")
require("resty.core.misc") -- declares ngx_http_lua_ffi_req_is_internal
local var_set = require("portico.ffivar").set

-- pcall: another module (lua-resty-string's resty.random) may have declared it first; a second cdef would raise.
pcall(ffi.cdef, "int RAND_bytes(unsigned char *buf, int num);")

local C = ffi.C
local ffi_string = ffi.string
local band, rshift = bit.band, bit.rshift
local get_request = base.get_request

local ngx = ngx
local _M = {}

local POOL = 4096
local pool = ffi.new("unsigned char[?]", POOL)
-- The pool as 32-hex-digit ids, converted at each draw: a request copies 32 bytes out (ffi.string) and runs no loop.
-- (A loop per request ran in the interpreter: LuaJIT cannot compile the return from a loop's trace into a caller
-- that set_by_lua's chunk runs interpreted, "NYI: return to lower frame".)
local HEX = 2 * POOL
local hex = ffi.new("unsigned char[?]", HEX)
-- Everything counts as handed out until a worker draws its own bytes: a pool drawn before the fork (init_by_lua,
-- in the master) would give every worker the same ids. init_worker() empties it again.
local used = HEX
local DIGITS = ffi.new("const char[17]", "0123456789abcdef")

local NAME = "portico_request_id"

function _M.init_worker()
  used = HEX
end

-- Draws POOL fresh bytes as hex; false when OpenSSL could not give bytes (then nginx's $request_id is used).
local function draw()
  if C.RAND_bytes(pool, POOL) ~= 1 then return false end
  for i = 0, POOL - 1 do
    local b = pool[i]
    hex[2 * i] = DIGITS[rshift(b, 4)]
    hex[2 * i + 1] = DIGITS[band(b, 15)]
  end
  used = 0
  return true
end

-- The offset of the next id in `hex`, or nil.
local function next_id()
  if used >= HEX and not draw() then return nil end
  local at = used
  used = at + 32
  return at
end

-- set_by_lua: the request's id. An internal redirect (error_page to a URI) runs the server's rewrite phase again: it
-- keeps the id the request already has, which its first upstream got and its log line shows.
function _M.value()
  local r = get_request()
  if r and C.ngx_http_lua_ffi_req_is_internal(r) == 1 then return ngx.var.portico_request_id end
  local at = next_id()
  if not at then return ngx.var.request_id end
  -- not a tail call: LuaJIT cannot compile a fast function's return into the interpreted chunk below
  local id = ffi_string(hex + at, 32)
  return id
end

-- 32 random hex digits from the same pool (trace and span ids, portico.tracing), or nil when OpenSSL gave no bytes.
function _M.random_hex()
  local at = next_id()
  if not at then return nil end
  local id = ffi_string(hex + at, 32)
  return id
end

-- rewrite_by_lua, for a location whose own rewrite hook runs instead of the server's value() (a configuration
-- rendered before value() was): $portico_request_id for this request.
function _M.set()
  local r = get_request()
  local at = r and next_id()
  if not at then return end
  var_set(r, NAME, hex + at, 32)
end

return _M
