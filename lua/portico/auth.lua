-- External auth: sends the auth response's Set-Cookie (from auth_request_set $portico_auth_cookie) to the client,
-- beside the backend's own cookies. A header filter, so the location's inherited add_header lines stay intact.
local ngx = ngx
local ngx_var = ngx.var

local _M = {}

-- The status codes ingress-nginx sends the auth cookie with, unless auth-always-set-cookie.
local COOKIE_STATUS = { [200] = true, [201] = true, [204] = true, [206] = true, [301] = true, [302] = true,
  [303] = true, [304] = true, [307] = true, [308] = true }

function _M.set_cookie(always)
  local cookie = ngx_var.portico_auth_cookie
  if not cookie or cookie == "" then return end
  if not always and not COOKIE_STATUS[ngx.status] then return end
  local have = ngx.header["Set-Cookie"]
  if have == nil then
    ngx.header["Set-Cookie"] = cookie
  elseif type(have) == "table" then
    have[#have + 1] = cookie
    ngx.header["Set-Cookie"] = have
  else
    ngx.header["Set-Cookie"] = { have, cookie }
  end
end

return _M
