-- portico.tracing: a server span per request in the W3C Trace Context, as ingress-nginx's OpenTelemetry keys ask
-- (docs/adr/0018). Export is portico.tracing_export's, by timer, never on the request path.
--
-- A traced location runs two hooks nginx.conf renders for it (render/tracing.ts), nothing else:
--   set_by_lua_block $opentelemetry_trace_id { return require("portico.tracing").start(trust, "name", "labels") }
--     in the location's rewrite phase: continues the client's traceparent when trusted, else starts a trace;
--     decides sampling; sets traceparent (and tracestate) on the request the backend gets and $opentelemetry_span_id.
--   log_by_lua: finish(), which records a sampled request's span in the worker's queue and returns at once for others.
-- Locations without tracing run neither, and nginx.conf has no tracing line at all when no location traces.
local ffi = require("ffi")
local base = require("resty.core.base")
require("resty.core.misc") -- declares ngx_http_lua_ffi_req_is_internal
local ffivar = require("portico.ffivar")
local random_hex = require("portico.request_id").random_hex
local export = require("portico.tracing_export")

local ngx = ngx
local get_request = base.get_request
local var_set = ffivar.set
local var_raw = ffivar.raw
local var_get = ffivar.get
local sub, byte, tonumber = string.sub, string.byte, tonumber
local ngx_now = ngx.now
local C = ffi.C
local cast = ffi.cast
local uintptr = ffi.typeof("uintptr_t")

-- Spans of the worker's requests in flight, by request address (removed in the log phase): unlike ngx.ctx they
-- survive an internal redirect, which runs the new location's start() again.
-- A request whose log phase runs in a location without tracing (an internal redirect to one) leaves its entry: the
-- table is emptied when it holds more than INFLIGHT_MAX, far more than a worker has requests in flight.
local inflight, inflight_n = {}, 0
local INFLIGHT_MAX = 65536
local function key_of(r)
  return tonumber(cast(uintptr, r))
end

local _M = {}

-- The sampler (otel-sampler, otel-sampler-ratio, otel-sampler-parent-based), set by init_worker from nginx.conf.
local always, never, bound, parent_based = true, false, 0, true
-- Spans are recorded only when a collector is named; without one the ids still reach the backend and the log.
local recording = false

-- TraceIdRatioBased compares the trace id's last 13 hex digits (52 bits, exact in a double) with ratio * 2^52: the
-- same trace gets the same decision in every process that samples by ratio.
local SPAN = 2 ^ 52

function _M.init_worker(cfg)
  always = cfg.sampler == "AlwaysOn"
  never = cfg.sampler == "AlwaysOff"
  bound = (cfg.ratio or 0) * SPAN
  parent_based = cfg.parent_based ~= false
  recording = cfg.host ~= nil
  export.init_worker(cfg)
end

local function ratio_sampled(trace)
  if always then return true end
  if never then return false end
  local low = tonumber(sub(trace, 20, 32), 16)
  return low ~= nil and low < bound
end

local ZERO_TRACE = string.rep("0", 32)
local ZERO_SPAN = string.rep("0", 16)

-- A traceparent header (lowercase hex only): version "00" is exactly 55 characters; a later version may add fields after a "-".
-- Returns trace id, parent span id, sampled (boolean), or nil when the header is not one.
local function parse(h)
  if type(h) ~= "string" then return nil end
  local n = #h
  if n < 55 or (n > 55 and byte(h, 56) ~= 45) then return nil end
  local version, trace, parent, flags = h:match("^([0-9a-f][0-9a-f])%-([0-9a-f]+)%-([0-9a-f]+)%-([0-9a-f][0-9a-f])")
  if not version or #trace ~= 32 or #parent ~= 16 or version == "ff" or (version == "00" and n ~= 55) then return nil end
  if trace == ZERO_TRACE or parent == ZERO_SPAN then return nil end
  return trace, parent, tonumber(flags, 16) % 2 == 1
end
_M.parse = parse

-- set_by_lua in a traced location: returns the trace id for $opentelemetry_trace_id.
function _M.start(trust, name, labels)
  local r = get_request()
  if not r then return "" end
  -- an internal redirect keeps the span (and the traceparent the backend gets) the request already has
  if C.ngx_http_lua_ffi_req_is_internal(r) == 1 then
    local had = var_get(r, "opentelemetry_trace_id")
    if had and had ~= "" then return had end
  end
  local header = trust and var_get(r, "http_traceparent") or nil
  local trace, parent, parent_sampled = parse(header)
  local sampled
  if trace and parent_based then
    sampled = parent_sampled
  else
    trace = trace or random_hex()
    if not trace then return "" end
    sampled = ratio_sampled(trace)
  end
  local span_hex = random_hex()
  if not span_hex then return "" end
  local span = sub(span_hex, 1, 16)
  ngx.req.set_header("traceparent", "00-" .. trace .. "-" .. span .. (sampled and "-01" or "-00"))
  -- a tracestate belongs to the trace it came with: kept only when that trace is continued
  if not parent and var_get(r, "http_tracestate") ~= nil then ngx.req.clear_header("tracestate") end
  var_set(r, "opentelemetry_span_id", span)
  -- a full queue (a dead or slow collector) drops the span before anything is read or kept for it
  if sampled and recording and export.room() then
    var_set(r, "portico_span", "1")
    if inflight_n >= INFLIGHT_MAX then inflight, inflight_n = {}, 0 end
    inflight_n = inflight_n + 1
    inflight[key_of(r)] = { trace = trace, span = span, parent = parent, name = name, labels = labels, start = ngx.req.start_time() }
  end
  return trace
end

-- log_by_lua in a traced location: the span of a sampled request goes to the queue; others cost one variable read.
function _M.finish()
  local r = get_request()
  if not r or var_raw(r, "portico_span") == nil then return end
  local key = key_of(r)
  local s = inflight[key]
  if not s then return end
  inflight[key] = nil
  inflight_n = inflight_n - 1
  s.finish = ngx_now()
  s.status = ngx.status
  s.method = var_get(r, "request_method")
  s.uri = var_get(r, "request_uri")
  s.scheme = var_get(r, "scheme")
  s.host = var_get(r, "host")
  s.port = var_get(r, "server_port")
  s.client = var_get(r, "remote_addr")
  s.upstream = var_get(r, "upstream_addr")
  s.upstream_time = var_get(r, "upstream_response_time")
  s.user_agent = var_get(r, "http_user_agent")
  s.protocol = var_get(r, "server_protocol")
  export.enqueue(s)
end

return _M
