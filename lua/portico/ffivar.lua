-- nginx variables through lua-nginx-module's FFI calls (resty.core.var declares them), for the modules that read or
-- set a variable on every request (balancer, metrics, router, request id): ngx.var goes through a metamethod LuaJIT
-- cannot compile into the caller's trace ("return to lower frame"). Same C functions ngx.var calls, same results.
-- The scratch buffers are per worker and used only between a call and its return (a worker runs one request's Lua at
-- a time), so one set serves every module.
local ffi = require("ffi")
local base = require("resty.core.base")
require("resty.core.var") -- declares ngx_http_lua_ffi_var_get / _set (lua-nginx-module's FFI ABI)

local C = ffi.C
local ffi_string = ffi.string
local ngx_log = ngx.log
local ERR = ngx.ERR

local value = ffi.new("char *[1]")
local len = ffi.new("size_t[1]")
local get_err = base.get_errmsg_ptr()
-- Names are Portico's own, lowercase and at most 32 bytes: nginx lowercases into this buffer only when asked (0 here).
local lowcase = ffi.new("unsigned char[?]", 32)
local set_err = ffi.new("unsigned char[?]", 256)
local set_errlen = ffi.new("size_t[1]")

local _M = {}

-- The value's bytes in nginx's buffer, valid until the next call into nginx: (pointer, length), or nil when unset.
function _M.raw(r, name)
  if C.ngx_http_lua_ffi_var_get(r, name, #name, lowcase, 0, value, len, get_err) ~= 0 then return nil end
  return value[0], tonumber(len[0])
end

-- The value as a Lua string, nil when unset.
function _M.get(r, name)
  if C.ngx_http_lua_ffi_var_get(r, name, #name, lowcase, 0, value, len, get_err) ~= 0 then return nil end
  return ffi_string(value[0], len[0])
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
