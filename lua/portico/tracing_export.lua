-- portico.tracing_export: each worker's bounded span queue and its exporter, OTLP/HTTP with JSON (docs/adr/0018).
--
-- enqueue() runs in the log phase: one table store, or a drop counted when the queue is full (otel-max-queuesize).
-- As OpenTelemetry's batch span processor: a batch goes out once otel-max-export-batch-size spans wait, else when
-- otel-schedule-delay-millis passed since the last export. A timer checks every CHECK_SECONDS (at most the delay) and
-- POSTs batches to http://<otlp-collector-host>:<port>/v1/traces over a cosocket, with short timeouts; one export at
-- a time per worker.
-- A collector that is absent, slow or answers an error costs the spans of that batch (counted), never a request.
-- The counts go to the metrics dict at every check when metrics are on (Portico's /metrics:
-- portico_tracing_spans_exported_total, portico_tracing_spans_dropped_total{reason}).
local cjson = require("cjson.safe")

local ngx = ngx
local ngx_log = ngx.log
local WARN, ERR = ngx.WARN, ngx.ERR
local concat = table.concat
local tostring, tonumber, pcall, str_format = tostring, tonumber, pcall, string.format
local sub, find = string.sub, string.find

local _M = {}

local cfg
local ring, head, count = {}, 1, 0 -- head: the oldest span; the ring has cfg.queue slots
local busy = false
local retry_at = 0 -- after a failed export: no span is made and no export tried before this time
local last_export = 0
local CHECK_SECONDS = 0.25
-- counts not yet added to the metrics dict
local pending = { dropped = 0, exported = 0, failed = 0 }
local last_warning = 0

local function count_up(what, n)
  pending[what] = pending[what] + n
end

function _M.enqueue(span)
  if not cfg or count >= cfg.queue then
    count_up("dropped", 1)
    return
  end
  local at = (head + count - 1) % cfg.queue + 1
  ring[at] = span
  count = count + 1
end

-- Whether a span would find room now; when not, the drop is counted here and the span is never made. While the
-- collector is failing (until the next try, a schedule delay after the failure) no span is made either: it could
-- only wait in the queue for a collector that is not there.
function _M.room()
  if not cfg then return false end
  if retry_at > 0 and ngx.now() < retry_at then
    count_up("failed", 1)
    return false
  end
  if count < cfg.queue then return true end
  count_up("dropped", 1)
  return false
end

local function take(n)
  local out = {}
  for i = 1, n do
    out[i] = ring[head]
    ring[head] = nil
    head = head % cfg.queue + 1
  end
  count = count - n
  return out
end

local encode = cjson.encode

local function nanos(seconds)
  return str_format("%.0f", seconds * 1000) .. "000000"
end

-- The JSON of a location's fixed attributes ("namespace|name|service|host|route|kind", render/tracing.ts), made
-- once per location: a batch is mostly string appends. Emptied above LABELS_MAX, which only a churn of routes reaches.
local labels_json, labels_n, LABELS_MAX = {}, 0, 4096
local function fixed(labels)
  local hit = labels_json[labels]
  if hit then return hit[1], hit[2] end
  local parts, from = {}, 1
  for i = 1, 6 do
    local at = find(labels, "|", from, true)
    parts[i] = sub(labels, from, (at or 0) - 1)
    if not at then break end
    from = at + 1
  end
  local out = {}
  local function add(key, value)
    if value and value ~= "" then out[#out + 1] = ',{"key":"' .. key .. '","value":{"stringValue":' .. encode(value) .. "}}" end
  end
  add("http.route", parts[5])
  add("k8s.namespace.name", parts[1])
  add(parts[6] == "HTTPRoute" and "k8s.httproute.name" or "k8s.ingress.name", parts[2])
  add("k8s.service.name", parts[3])
  if labels_n >= LABELS_MAX then labels_json, labels_n = {}, 0 end
  labels_n = labels_n + 1
  hit = { concat(out), parts[5] or "" }
  labels_json[labels] = hit
  return hit[1], hit[2]
end

-- Appends one OTLP span (JSON) of a finished request to buf: OpenTelemetry's HTTP server conventions where they name
-- a value, then Portico's. Kind SERVER (2); status ERROR (2) for a 5xx.
local function append_span(buf, s)
  local attrs, route = fixed(s.labels or "")
  local path = s.uri or ""
  local q = find(path, "?", 1, true)
  if q then path = sub(path, 1, q - 1) end
  local name = s.name
  if not name or name == "" then name = (s.method or "") .. (route ~= "" and (" " .. route) or "") end
  local n = #buf
  local function put(x)
    n = n + 1
    buf[n] = x
  end
  local function str(key, value)
    if value then put(',{"key":"' .. key .. '","value":{"stringValue":' .. encode(value) .. "}}") end
  end
  put('{"traceId":"' .. s.trace .. '","spanId":"' .. s.span .. '"')
  if s.parent then put(',"parentSpanId":"' .. s.parent .. '"') end
  put(',"name":' .. encode(name) .. ',"kind":2,"startTimeUnixNano":"' .. nanos(s.start) .. '","endTimeUnixNano":"' .. nanos(s.finish or s.start) .. '"')
  put(',"status":{"code":' .. (((s.status or 0) >= 500) and "2" or "0") .. '},"attributes":[')
  put('{"key":"http.response.status_code","value":{"intValue":' .. (tonumber(s.status) or 0) .. "}}")
  put(',{"key":"server.port","value":{"intValue":' .. (tonumber(s.port) or 0) .. "}}")
  str("http.request.method", s.method)
  str("url.path", path)
  str("url.scheme", s.scheme)
  str("server.address", s.host)
  str("client.address", s.client)
  str("user_agent.original", s.user_agent)
  if s.protocol then str("network.protocol.version", (s.protocol:gsub("^HTTP/", ""))) end
  str("upstream.address", s.upstream)
  str("upstream.response_time", s.upstream_time)
  put(attrs)
  put("]}")
end

local function body_of(batch)
  local buf = {
    '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":', encode(cfg.service),
    '}},{"key":"telemetry.sdk.name","value":{"stringValue":"portico"}}]},"scopeSpans":[{"scope":{"name":"portico"},"spans":[',
  }
  for i = 1, #batch do
    if i > 1 then buf[#buf + 1] = "," end
    append_span(buf, batch[i])
  end
  buf[#buf + 1] = "]}]}]}"
  return concat(buf)
end

-- One POST of a batch; true when the collector answered 2xx. The body is encoded only once the connection is up.
local function post(batch)
  local sock = ngx.socket.tcp()
  sock:settimeouts(cfg.connect_ms, cfg.io_ms, cfg.io_ms)
  local ok, err = sock:connect(cfg.host, cfg.port)
  if not ok then return false, "connect: " .. tostring(err) end
  local body = body_of(batch)
  local req = concat({
    "POST /v1/traces HTTP/1.1\r\nHost: ", cfg.host, ":", cfg.port,
    "\r\nContent-Type: application/json\r\nUser-Agent: portico\r\nConnection: close\r\nContent-Length: ", #body, "\r\n\r\n", body,
  })
  ok, err = sock:send(req)
  if not ok then
    sock:close()
    return false, "send: " .. tostring(err)
  end
  local line
  line, err = sock:receive("*l")
  sock:close()
  if not line then return false, "read: " .. tostring(err) end
  local status = tonumber(line:match("^HTTP/1%.%d (%d%d%d)"))
  if not status or status < 200 or status > 299 then return false, "answered " .. line:sub(1, 64) end
  return true
end

local function flush_counts()
  local dict = ngx.shared.portico_metrics
  if not dict then return end
  for what, n in pairs(pending) do
    if n > 0 then
      dict:incr("tracing\t" .. what, n, 0)
      pending[what] = 0
    end
  end
end

local function warn(err, lost)
  local now = ngx.now()
  if now - last_warning < 60 then return end
  last_warning = now
  ngx_log(WARN, "portico: OTLP export to ", cfg.host, ":", cfg.port, " failed (", err, "): ", lost, " spans dropped; next warning in 60 s at the earliest")
end

-- Exports what the queue holds, batch after batch (at most the queue's size in one run); stops at the first failure.
local function export_all()
  local rounds = 0
  while count > 0 and rounds * cfg.batch < cfg.queue do
    rounds = rounds + 1
    local batch = take(count < cfg.batch and count or cfg.batch)
    local ok, sent, err = pcall(post, batch)
    if ok and sent then
      count_up("exported", #batch)
    else
      count_up("failed", #batch)
      warn(ok and err or sent, #batch)
      -- no new try before the schedule delay: meanwhile a full queue drops new spans, which costs a request nothing
      retry_at = ngx.now() + cfg.delay
      break
    end
  end
end

local function tick(premature)
  flush_counts()
  if busy then return end
  local now = ngx.now()
  -- a worker that exits (reload, stop) exports what it holds
  if not premature and (now < retry_at or (count < cfg.batch and now - last_export < cfg.delay)) then return end
  busy = true
  last_export = now
  if cfg.host then
    local ok, err = pcall(export_all)
    if not ok then ngx_log(ERR, "portico: OTLP export: ", err) end
  end
  flush_counts()
  busy = false
end

function _M.init_worker(c)
  cfg = {
    host = c.host,
    port = c.port or 4318,
    service = c.service or "nginx",
    queue = c.queue or 2048,
    batch = c.batch or 512,
    connect_ms = 1000,
    io_ms = 2000,
    delay = (c.delay_ms or 5000) / 1000,
  }
  if cfg.batch > cfg.queue then cfg.batch = cfg.queue end
  last_export = ngx.now()
  local ok, err = ngx.timer.every(cfg.delay < CHECK_SECONDS and cfg.delay or CHECK_SECONDS, tick)
  if not ok then ngx_log(ERR, "portico: tracing export timer: ", err) end
end

-- For tests and the exit hook: the queue's length and the counts not flushed yet.
function _M.state()
  return { queued = count, dropped = pending.dropped, exported = pending.exported, failed = pending.failed, busy = busy }
end

return _M
