-- nginx variables through FFI calls, for the modules that read or set a variable on every request (balancer, metrics,
-- router, request id): ngx.var goes through a metamethod LuaJIT cannot compile into the caller's trace ("return to
-- lower frame").
--
-- Reads call nginx's own ngx_http_get_variable (exported by the nginx binary for dynamic modules; its signature and
-- ngx_http_variable_value_t are nginx's module API since 0.x) with the name's hash worked out once per name, not per
-- request: lua-nginx-module's ngx_http_lua_ffi_var_get, which ngx.var calls, lowercases and hashes the name on every
-- call before making the same call (about a third of a read, measured with callgrind). Without that symbol (another
-- nginx build) reads fall back to ngx_http_lua_ffi_var_get. Sets always go through lua-nginx-module
-- (ngx_http_lua_ffi_var_set: it knows which variables are changeable).
-- The scratch buffers are per worker and used only between a call and its return (a worker runs one request's Lua at
-- a time), so one set serves every module.
local ffi = require("ffi")
local base = require("resty.core.base")
require("resty.core.var") -- declares ngx_http_lua_ffi_var_get / _set (lua-nginx-module's FFI ABI)

local C = ffi.C
local ffi_string = ffi.string
local band = require("bit").band
local ngx_log = ngx.log
local ERR = ngx.ERR

local value = ffi.new("char *[1]")
local len = ffi.new("size_t[1]")
local get_err = base.get_errmsg_ptr()
-- Names are Portico's own or nginx's, lowercase and at most 32 bytes: lua-nginx-module lowercases them into this buffer.
local lowcase = ffi.new("unsigned char[?]", 32)
local set_err = ffi.new("unsigned char[?]", 256)
local set_errlen = ffi.new("size_t[1]")

-- nginx's API (src/http/ngx_http_variables.h, src/core/ngx_hash.h), under names of our own so that no other module's
-- declaration of ngx_str_t can clash with them. ngx_http_variable_value_t starts with the bitfields len:28, valid:1,
-- no_cacheable:1, not_found:1, escape:1 (one 32-bit word, the first field in the low bits on x86-64 and arm64), read
-- here with masks: LuaJIT does not compile bitfield accesses, and a trace that aborts runs in the interpreter.
local direct = pcall(ffi.cdef, [[
  typedef struct { size_t len; const unsigned char *data; } portico_var_name_t;
  typedef struct { uint32_t bits; unsigned char *data; } portico_var_value_t;
  portico_var_value_t *ngx_http_get_variable(void *r, portico_var_name_t *name, uintptr_t key);
  uintptr_t ngx_hash_key(const unsigned char *data, size_t len);
]]) and pcall(function() return C.ngx_http_get_variable ~= nil and C.ngx_hash_key ~= nil end)

-- name -> { name = portico_var_name_t (pointing at `bytes`), key = its hash, bytes = the name kept alive }
local names = setmetatable({}, { __index = function(t, name)
  local bytes = ffi.new("unsigned char[?]", #name + 1, name)
  local entry = { bytes = bytes, name = ffi.new("portico_var_name_t", #name, bytes), key = C.ngx_hash_key(bytes, #name) }
  t[name] = entry
  return entry
end })

local _M = {}

local LEN, NOT_FOUND = 0x0FFFFFFF, 0x40000000
local raw
if direct then
  local get_variable = C.ngx_http_get_variable
  -- The value's bytes in nginx's buffer, valid until the next call into nginx: (pointer, length), or nil when unset.
  raw = function(r, name)
    local e = names[name]
    local vv = get_variable(r, e.name, e.key)
    if vv == nil then return nil end
    local bits = vv.bits
    if band(bits, NOT_FOUND) ~= 0 then return nil end
    return vv.data, band(bits, LEN)
  end
else
  raw = function(r, name)
    if C.ngx_http_lua_ffi_var_get(r, name, #name, lowcase, 0, value, len, get_err) ~= 0 then return nil end
    return value[0], tonumber(len[0])
  end
end
_M.raw = raw
_M.direct = direct

-- The value as a Lua string, nil when unset.
function _M.get(r, name)
  local p, n = raw(r, name)
  if p == nil then return nil end
  -- not a tail call: LuaJIT cannot compile a fast function's return into a caller's interpreted frame
  local s = ffi_string(p, n)
  return s
end

-- Sets a variable declared with `set` somewhere in nginx.conf; `n` is the length when `v` is a C buffer. Logs a
-- failure (an undeclared name is a rendering bug) and returns false.
function _M.set(r, name, v, n)
  set_errlen[0] = 256
  if C.ngx_http_lua_ffi_var_set(r, name, #name, lowcase, v, n or #v, set_err, set_errlen) ~= 0 then
    ngx_log(ERR, "portico: cannot set $", name, ": ", ffi_string(set_err, set_errlen[0]))
    return false
  end
  return true
end

return _M
