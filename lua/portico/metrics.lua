-- portico.metrics: per-request figures counted in the log phase into a worker-local table, flushed to a shared dict.
--
-- Labels come only from what Portico rendered: a location proxying to a backend sets
--   set $portico_metrics "namespace|ingress|service|host|upstream";
-- and the log phase adds the status (nginx's three digits), the method (one of METHODS, else OTHER) and the canary
-- (the backend a canary decision switched $portico_backend to, else ""). No path, query, header or other value a
-- client chooses is ever a label, so the number of series is bounded by what the operator's Ingresses render.
--
-- Hot path (log()): four variable reads (the labels as a string, three numbers parsed in nginx's buffer without making
-- a Lua string), $portico_backend only when a rewrite hook ran in the request (mark()), four nested table lookups, a
-- few additions and bucket scans; no lock, no allocation once a series exists. A timer flushes each worker's table into the dict every FLUSH_SECONDS (and when
-- the worker exits), with dict:incr on the slots that moved. GET /configuration/metrics (portico.configuration,
-- token-protected) dumps the dict for Portico, which exports it under ingress-nginx's names on /metrics.
local ffi = require("ffi")
local base = require("resty.core.base")
local ffivar = require("portico.ffivar")
require("resty.core.misc")    -- declares ngx_http_lua_ffi_get_resp_status
require("resty.core.request") -- declares ngx_http_lua_ffi_req_start_time, ngx_http_lua_ffi_req_get_method

local ngx = ngx
local ngx_now = ngx.now
local ngx_log = ngx.log
local ERR = ngx.ERR
local tonumber = tonumber
local pairs = pairs
local ipairs = ipairs
local str_match = string.match
local str_gsub = string.gsub
local str_sub = string.sub
local concat = table.concat

local _M = {}

_M.DICT = "portico_metrics"
local FLUSH_SECONDS = 1
-- ingress-nginx's default buckets (--time-buckets, --size-buckets, --length-buckets).
local TIME = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 }
local SIZE = { 10, 100, 1000, 10000, 100000, 1000000, 10000000 }
local LENGTH = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 }
_M.BUCKETS = { request_duration = TIME, response_duration = TIME, request_size = SIZE, response_size = LENGTH }

-- Slots of one series (1-based, worker-local array; the dict keys are "<series>\t<slot>"):
--   1 requests; 2 request time sum; 3.. request time buckets (#TIME + 1 with +Inf)
--   then upstream count, upstream sum, its buckets; request size sum + buckets; response size sum + buckets.
local RT = 3
local UC = RT + #TIME + 1
local US = UC + 1
local UB = US + 1
local QS = UB + #TIME + 1
local QB = QS + 1
local PS = QB + #SIZE + 1
local PB = PS + 1
local SLOTS = PB + #LENGTH
_M.SLOTS = { requests = 1, request_duration_sum = 2, request_duration_buckets = RT, response_duration_count = UC,
  response_duration_sum = US, response_duration_buckets = UB, request_size_sum = QS, request_size_buckets = QB,
  response_size_sum = PS, response_size_buckets = PB, total = SLOTS }

-- nginx's method ids (ngx_http_request.h) -> the label; any other method (nginx takes any token) is OTHER.
local METHODS = { [0x0002] = "GET", [0x0004] = "HEAD", [0x0008] = "POST", [0x0010] = "PUT", [0x0020] = "DELETE",
  [0x0080] = "OPTIONS", [0x4000] = "PATCH", [0x8000] = "TRACE", [0x10000] = "CONNECT" }

-- Status labels, made once per code: no string is built per request.
local STATUS = setmetatable({}, { __index = function(t, code)
  local s = (code >= 0 and code <= 999) and string.format("%03d", code) or "000"
  t[code] = s
  return s
end })

-- Variables read straight through lua-nginx-module's FFI call, as portico.balancer reads $portico_backend: ngx.var
-- goes through a metamethod LuaJIT cannot compile into the caller's trace. nil when unset.
local C = ffi.C
local get_request = base.get_request
local var = ffivar.get
local var_raw = ffivar.raw

-- The last figure of a numeric variable ("180", "0.004", "0.004, 0.010" or "0.004 : 0.010" after retries and
-- internal redirects), parsed in nginx's buffer: no Lua string is made per request. nil when the variable is unset,
-- empty, or its last figure is not a number ("-": no upstream answered). The fallback of var_count and var_seconds
-- below where nginx's parsers are not exported.
local function var_number(r, name)
  local p, n = var_raw(r, name)
  if not p then return nil end
  local v, div, digits, bad = 0, 0, false, false
  for i = 0, n - 1 do
    local c = p[i]
    if c >= 48 and c <= 57 then
      v = v * 10 + (c - 48)
      digits = true
      if div > 0 then div = div * 10 end
    elseif c == 46 and div == 0 then
      div = 1
    elseif c == 44 or c == 58 then -- ',' or ':': a later figure follows
      v, div, digits, bad = 0, 0, false, false
    elseif c ~= 32 then
      bad = true
    end
  end
  if bad or not digits then return nil end
  return div > 0 and v / div or v
end

-- nginx's own number parsers (src/core/ngx_string.c; exported by the nginx binary for dynamic modules, as the
-- ngx_http_get_variable portico.ffivar calls) and glibc's memrchr, instead of a Lua loop over the bytes: a loop with
-- a branch per byte left the log phase's trace ("leaving loop in root trace") and ran part of every request in the
-- interpreter (jit.v, docs/adr/0042).
local parsers = pcall(ffi.cdef, [[
  intptr_t ngx_atoi(const unsigned char *line, size_t n);
  intptr_t ngx_atofp(const unsigned char *line, size_t n, size_t point);
  void *memrchr(const void *s, int c, size_t n);
]]) and pcall(function() return C.ngx_atoi ~= nil and C.ngx_atofp ~= nil and C.memrchr ~= nil end)
local u8p = ffi.typeof("const unsigned char *")

-- A count variable ($request_length, $bytes_sent: nginx prints them as plain integers), nil when unset or not one.
local var_count = function(r, name) return var_number(r, name) end
-- A time variable in seconds, its last figure ($upstream_response_time: nginx prints "%T.%03M" per try, tries
-- separated by ", " and internal redirects by " : "; "-" when no upstream answered), nil when unset or not a time.
local var_seconds = var_count
if parsers then
  local atoi, atofp, memrchr = C.ngx_atoi, C.ngx_atofp, C.memrchr
  var_count = function(r, name)
    local p, n = var_raw(r, name)
    if not p or n == 0 then return nil end
    local v = atoi(p, n)
    if v < 0 then return nil end
    return tonumber(v)
  end
  var_seconds = function(r, name)
    local p, n = var_raw(r, name)
    if not p or n == 0 then return nil end
    -- the last figure follows the last space (", " and " : " both end in one)
    local sp = memrchr(p, 32, n)
    if sp ~= nil then
      local from = ffi.cast(u8p, sp) + 1
      n = n - tonumber(from - p)
      p = from
    end
    local v = atofp(p, n, 3)
    if v < 0 then return nil end
    return tonumber(v) / 1000
  end
end

-- Requests in which a rewrite hook ran (portico.balancer.rewrite: canaries, the dynamic router, HTTPRoutes), by the
-- request's address: only they may have switched $portico_backend away from the labels' upstream, so only they pay
-- for reading it. log() clears the mark; one left by a request that never logged costs a later request one read.
local marked = {}
local addr_t = ffi.typeof("uintptr_t")
local function addr(r) return tonumber(ffi.cast(addr_t, r)) end

function _M.mark()
  local r = get_request()
  if r then marked[addr(r)] = true end
end

-- Requests the dynamic router (portico.router) routed, by address -> their labels: the router hands them over here
-- instead of setting $portico_metrics for log() to read back (a variable set and a read, ~900 instructions). Cleared
-- by the request's own log(): every location a routed request can end in (the catch-all's, its profiles', the 404
-- one) runs it while metrics are on, and label() keeps nothing while they are off.
local routed = {}
local enabled = false -- init_worker() ran: nginx.conf has the dict and the log hook
-- --metrics-per-undefined-host: a request for a host no Ingress defines (labels UNDEFINED, set by the catch-all
-- server's 404 locations or handed over by the router) is counted under its $host, with no namespace, Ingress or
-- Service; without the flag it is not counted. The host is the client's: the operator chose the unbounded label.
local undefined_hosts = false
local UNDEFINED = "?"

-- The dynamic router's labels for this request (r: the request, as the router already holds it).
function _M.label(r, labels)
  if enabled then routed[addr(r)] = labels end
end

-- The router's mark for a request whose host no Ingress defines (counted only with --metrics-per-undefined-host).
function _M.undefined(r)
  if undefined_hosts then routed[addr(r)] = UNDEFINED end
end

-- The labels of an undefined host's request: its host, made of name characters only ('|' separates the labels).
local function undefined_labels(r)
  local host = var(r, "host") or ""
  return "|||" .. str_sub(str_gsub(host, "[^%w%.%-_:%[%]]", "_"), 1, 253) .. "|"
end

-- label string -> its upstream (the last field): worked out once per label set, not per request.
local upstream_of = setmetatable({}, { __index = function(t, labels)
  local u = str_match(labels, "|([^|]*)$") or ""
  t[labels] = u
  return u
end })

local pending = {} -- labels -> canary -> status -> method -> slots
local dirty = false

-- bucket_of(bounds)(slots, at, v): counts v in its histogram bucket, slots at .. at + #bounds (the last: +Inf). One
-- comparison per bound written out, not a loop: a loop with an early return inside the log phase's trace hit
-- LuaJIT's unroll limit and fell back to the interpreter (a response above the last size bound scans them all).
local function bucket_of(bounds)
  local src = { "return function(s, at, v)" }
  for i, b in ipairs(bounds) do
    src[#src + 1] = string.format("if v <= %.17g then s[at + %d] = s[at + %d] + 1 return end", b, i - 1, i - 1)
  end
  src[#src + 1] = string.format("s[at + %d] = s[at + %d] + 1 end", #bounds, #bounds)
  return assert(loadstring(concat(src, "\n"), "=portico.metrics.bucket"))()
end
local time_bucket, size_bucket, length_bucket = bucket_of(TIME), bucket_of(SIZE), bucket_of(LENGTH)

local function new_slots()
  local s = {}
  for i = 1, SLOTS do s[i] = 0 end
  return s
end

local function series(labels, canary, status, method)
  local by_canary = pending[labels]
  if not by_canary then by_canary = {}; pending[labels] = by_canary end
  local by_status = by_canary[canary]
  if not by_status then by_status = {}; by_canary[canary] = by_status end
  local by_method = by_status[status]
  if not by_method then by_method = {}; by_status[status] = by_method end
  local s = by_method[method]
  if not s then s = new_slots(); by_method[method] = s end
  return s
end

-- log_by_lua (http level, inherited by every location without a log hook of its own; portico.balancer.log calls it
-- where a location has one). Requests of locations that render no labels (internal servers, 404s) are not counted.
function _M.log()
  local r = get_request()
  if not r then return end
  local at = addr(r)
  local switched = marked[at]
  if switched then marked[at] = nil end
  local labels = routed[at]
  if labels then routed[at] = nil else labels = var(r, "portico_metrics") end
  if labels == nil or labels == "" then return end
  if labels == UNDEFINED then
    if not undefined_hosts then return end
    labels = undefined_labels(r)
  end
  local canary = ""
  if switched then
    local backend = var(r, "portico_backend")
    if backend ~= nil and backend ~= upstream_of[labels] then canary = backend end
  end
  local s = series(labels, canary, STATUS[C.ngx_http_lua_ffi_get_resp_status(r)], METHODS[C.ngx_http_lua_ffi_req_get_method(r)] or "OTHER")
  s[1] = s[1] + 1
  -- $request_time, without formatting and parsing it: the cached time now minus the request's start
  local rt = ngx_now() - tonumber(C.ngx_http_lua_ffi_req_start_time(r))
  if rt < 0 then rt = 0 end
  s[2] = s[2] + rt
  time_bucket(s, RT, rt)
  -- "0.004, 0.010" after retries, "-" when no upstream answered: the last figure is the answering upstream's
  local ut = var_seconds(r, "upstream_response_time")
  if ut then
    s[UC] = s[UC] + 1
    s[US] = s[US] + ut
    time_bucket(s, UB, ut)
  end
  local qs = var_count(r, "request_length") or 0
  s[QS] = s[QS] + qs
  size_bucket(s, QB, qs)
  local ps = var_count(r, "bytes_sent") or 0
  s[PS] = s[PS] + ps
  length_bucket(s, PB, ps)
  dirty = true
end

-- Adds one slot to the dict without ever evicting another key to make room (safe_add): a full dict drops the
-- figure and says so, it never makes a counter go backwards.
local function add(dict, key, v)
  local _, err = dict:incr(key, v)
  if err == "not found" then
    local ok, aerr = dict:safe_add(key, v)
    if ok then return end
    if aerr == "exists" then dict:incr(key, v); return end
    ngx_log(ERR, "portico: metrics dict full, a figure was dropped: ", aerr)
  end
end

local function flush()
  if not dirty then return end
  local dict = ngx.shared[_M.DICT]
  local batch = pending
  pending, dirty = {}, false
  for labels, by_canary in pairs(batch) do
    for canary, by_status in pairs(by_canary) do
      for status, by_method in pairs(by_status) do
        for method, s in pairs(by_method) do
          local key = concat({ labels, canary, status, method }, "|")
          for i = 1, SLOTS do
            if s[i] ~= 0 then add(dict, key .. "\t" .. i, s[i]) end
          end
        end
      end
    end
  end
end
_M.flush = flush

-- init_worker_by_lua: the flush timer. A premature run (the worker is exiting: reload or quit) flushes too.
function _M.init_worker(opts)
  if not ngx.shared[_M.DICT] then return end
  enabled = true
  undefined_hosts = opts ~= nil and opts.undefined_hosts == true
  local ok, err = ngx.timer.every(FLUSH_SECONDS, function() flush() end)
  if not ok then ngx_log(ERR, "portico: metrics flush timer: ", err) end
end

-- GET /configuration/metrics: "<namespace|ingress|service|host|upstream|canary|status|method>\t<slot>\t<value>" lines.
function _M.dump()
  local dict = ngx.shared[_M.DICT]
  if not dict then
    ngx.status = 404
    ngx.print("metrics are off\n")
    return ngx.exit(404)
  end
  local keys = dict:get_keys(0)
  local out = {}
  for i = 1, #keys do
    local v = dict:get(keys[i])
    if v then out[#out + 1] = keys[i] .. "\t" .. v end
  end
  ngx.header["Content-Type"] = "text/plain; charset=utf-8"
  out[#out + 1] = ""
  ngx.print(concat(out, "\n"))
  return ngx.exit(200)
end

return _M
