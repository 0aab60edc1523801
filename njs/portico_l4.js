// Picks the peer of one TCP connection or UDP session on a Gateway TCP/UDP listener (docs/adr/0041), for
// `js_set $portico_l4_peer portico_l4.peer`. The controller rewrites the listener's peers table (JSON data, never
// code: src/controller/l4-peers.ts) by temp file and rename; nginx's njs (0.7.x) clones a fresh VM per session,
// so the table is read per session and nothing is cached. Each endpoint counts its backend's weight; the pick walks
// the weights at a position drawn from nginx's connection serial number ($connection, one counter for all workers;
// the upstream connection takes the next number, so a proxied connection counts two), scattered by a stride prime to
// the total: `total` consecutive proxied connections give each endpoint its weight, interleaved (as a static
// upstream's weighted round robin), with no state kept between sessions; other traffic on the counter makes it
// approximate.
// Anything unexpected (no table, bad JSON, no endpoint, an address that is not IP:port) names the upstream
// `portico_l4_none`, whose only server is down: nginx closes the connection, as with a static upstream without
// endpoints.
var fs = require('fs');

var NONE = 'portico_l4_none';
var ADDRESS = /^([0-9]{1,3}(\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]{2,45}\]):[0-9]{1,5}$/;
var MAX_ENDPOINTS = 100000;

function table(s) {
  try {
    return JSON.parse(fs.readFileSync(s.variables.portico_l4_table, 'utf8'));
  } catch (e) {
    return null;
  }
}

function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}

// A position in [0, total): the connection serial scattered by a prime stride, or random when either is unusable.
function position(s, total) {
  var serial = Math.floor(Number(s.variables.connection) / 2);
  if (total !== Math.floor(total) || total > 1e9 || !(serial >= 0)) return Math.random() * total;
  var strides = [7919, 104729, 1299709];
  for (var k = 0; k < strides.length; k++) {
    if (gcd(total, strides[k]) === 1) return ((serial % total) * strides[k]) % total;
  }
  return serial % total;
}

function peer(s) {
  var t = table(s);
  var backends = t !== null && Array.isArray(t.backends) ? t.backends : [];
  var total = 0;
  var seen = 0;
  var i;
  var j;
  for (i = 0; i < backends.length; i++) {
    var b = backends[i];
    if (typeof b.weight !== 'number' || !(b.weight > 0) || !Array.isArray(b.endpoints)) continue;
    total += b.weight * b.endpoints.length;
  }
  if (!(total > 0)) return NONE;
  var r = position(s, total);
  for (i = 0; i < backends.length; i++) {
    var c = backends[i];
    if (typeof c.weight !== 'number' || !(c.weight > 0) || !Array.isArray(c.endpoints)) continue;
    for (j = 0; j < c.endpoints.length && seen < MAX_ENDPOINTS; j++, seen++) {
      r -= c.weight;
      if (r < 0) return typeof c.endpoints[j] === 'string' && ADDRESS.test(c.endpoints[j]) ? c.endpoints[j] : NONE;
    }
  }
  return NONE;
}

export default { peer };
