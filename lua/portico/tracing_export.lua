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

local function str(key, value)
  return { key = key, value = { stringValue = tostring(value) } }
end
local function int(key, value)
  return { key = key, value = { intValue = value } }
end

local function nanos(seconds)
  return str_format("%.0f", seconds * 1000) .. "000000"
end

-- "namespace|name|service|host|route|kind" as render/tracing.ts writes it.
local function labels_of(s)
  local parts, from = {}, 1
  for _ = 1, 6 do
    local at = find(s, "|", from, true)
    parts[#parts + 1] = sub(s, from, (at or 0) - 1)
    if not at then break end
    from = at + 1
  end
  return parts
end

-- The OTLP span of a finished request (OpenTelemetry's HTTP server semantic conventions where they name a value).
local function otlp_span(s)
  local l = labels_of(s.labels or "")
  local path = s.uri or ""
  local q = find(path, "?", 1, true)
  if q then path = sub(path, 1, q - 1) end
  local route = l[5] or ""
  local attrs = {
    str("http.request.method", s.method or ""),
    str("url.path", path),
    str("url.scheme", s.scheme or ""),
    int("http.response.status_code", s.status or 0),
    str("server.address", s.host or ""),
    int("server.port", tonumber(s.port) or 0),
    str("client.address", s.client or ""),
  }
  if route ~= "" then attrs[#attrs + 1] = str("http.route", route) end
  if s.user_agent then attrs[#attrs + 1] = str("user_agent.original", s.user_agent) end
  if s.protocol then attrs[#attrs + 1] = str("network.protocol.version", (s.protocol:gsub("^HTTP/", ""))) end
  if s.upstream then attrs[#attrs + 1] = str("upstream.address", s.upstream) end
  if s.upstream_time then attrs[#attrs + 1] = str("upstream.response_time", s.upstream_time) end
  if l[1] and l[1] ~= "" then attrs[#attrs + 1] = str("k8s.namespace.name", l[1]) end
  if l[2] and l[2] ~= "" then attrs[#attrs + 1] = str(l[6] == "HTTPRoute" and "k8s.httproute.name" or "k8s.ingress.name", l[2]) end
  if l[3] and l[3] ~= "" then attrs[#attrs + 1] = str("k8s.service.name", l[3]) end
  local name = s.name
  if not name or name == "" then name = (s.method or "") .. (route ~= "" and (" " .. route) or "") end
  local span = {
    traceId = s.trace,
    spanId = s.span,
    name = name,
    kind = 2, -- SERVER
    startTimeUnixNano = nanos(s.start),
    endTimeUnixNano = nanos(s.finish or s.start),
    attributes = attrs,
    status = { code = (s.status or 0) >= 500 and 2 or 0 }, -- ERROR for 5xx, as the server conventions say
  }
  if s.parent then span.parentSpanId = s.parent end
  return span
end

local function body_of(batch)
  local spans = {}
  for i = 1, #batch do spans[i] = otlp_span(batch[i]) end
  return cjson.encode({
    resourceSpans = { {
      resource = { attributes = { str("service.name", cfg.service), str("telemetry.sdk.name", "portico") } },
      scopeSpans = { { scope = { name = "portico" }, spans = spans } },
    } },
  })
end

-- One POST; true when the collector answered 2xx.
local function post(body)
  local sock = ngx.socket.tcp()
  sock:settimeouts(cfg.connect_ms, cfg.io_ms, cfg.io_ms)
  local ok, err = sock:connect(cfg.host, cfg.port)
  if not ok then return false, "connect: " .. tostring(err) end
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
    local ok, sent, err = pcall(post, body_of(batch))
    if ok and sent then
      count_up("exported", #batch)
    else
      count_up("failed", #batch)
      warn(ok and err or sent, #batch)
      break
    end
  end
end

local function tick(premature)
  flush_counts()
  if busy then return end
  local now = ngx.now()
  -- a worker that exits (reload, stop) exports what it holds
  if not premature and count < cfg.batch and now - last_export < cfg.delay then return end
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
