"""The report's inline script: sort, filter, URL-fragment state, claim links and export.

It reads the page's ``view-data`` JSON (:func:`offline_eval.report.triage.view_records`),
never the network. The view lives in the URL fragment, e.g.
``#verdict=incorrect&group=wrong&claim=contradicted&sort=metric-asc&metric=vital_precision&max=0.5&q=paris&open=r3-c0``
(each key and value URI-encoded),
so a link reproduces it; a plain ``#r3-c0`` still opens that claim. Export writes the
shown answers, in the shown order, as CSV (one line per claim) or JSON, through a ``blob:``
download made in the page; ``offlineEvalExport("csv" | "json")`` returns (a promise of) the
same text. Each card's body comes packed, ten cards a pack (base85 of deflated JSON, see
:func:`offline_eval.report.response.packs_html`), and is inflated with the browser's
``DecompressionStream`` when the card is opened, a claim is linked to, or an export needs it.
"""
from __future__ import annotations

JS = r"""
(function () {
  "use strict";
  var dataEl = document.getElementById("view-data");
  var records = dataEl ? JSON.parse(dataEl.textContent) : [];
  var byIndex = {};
  records.forEach(function (r) { byIndex[r.i] = r; });
  var box = document.getElementById("cards");
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.resp"));
  // what the search reads: the card as sent (id, query, answer, reasons), not its packed body
  sections.forEach(function (s) { s._text = s.textContent.toLowerCase(); });
  var $ = function (id) { return document.getElementById(id); };
  var controls = {verdict: $("filter"), claim: $("claim"), group: $("group"),
                  sort: $("sort"), metric: $("metric"), max: $("max"), q: $("search")};
  var defaults = {verdict: "all", claim: "any", group: "", sort: "severity",
                  metric: controls.metric ? controls.metric.options[0].value : "",
                  max: "", q: ""};
  var state = {}, openId = "";

  function reset() { Object.keys(defaults).forEach(function (k) { state[k] = defaults[k]; }); }
  function decode(s) { try { return decodeURIComponent(s); } catch (err) { return s; } }
  function readHash() {
    var h = location.hash.slice(1);
    reset(); openId = "";
    if (h.indexOf("=") === -1) { openId = decode(h); return; }
    h.split("&").forEach(function (part) {   // split first: a value may hold an encoded "&"
      var eq = part.indexOf("="), k = decode(part.slice(0, eq)), v = decode(part.slice(eq + 1));
      if (k === "open") { openId = v; }
      else if (Object.prototype.hasOwnProperty.call(defaults, k)) { state[k] = v; }
    });
  }
  function writeHash() {
    var parts = [];
    Object.keys(defaults).forEach(function (k) {
      if (state[k] !== defaults[k] && state[k] !== "") {
        parts.push(k + "=" + encodeURIComponent(state[k]));
      }
    });
    if (openId) { parts.push("open=" + encodeURIComponent(openId)); }
    var url = parts.length ? "#" + parts.join("&") : location.pathname + location.search;
    try { history.replaceState(null, "", url); } catch (err) { /* a page that may not */ }
  }
  function toControls() {
    Object.keys(controls).forEach(function (k) {
      var c = controls[k];
      if (!c) { return; }
      c.value = state[k];
      if (c.tagName === "SELECT" && c.value !== state[k]) { state[k] = defaults[k]; c.value = state[k]; }
    });
  }
  function fromControls() {
    Object.keys(controls).forEach(function (k) { if (controls[k]) { state[k] = controls[k].value; } });
  }
  function metricOf(r) {
    var v = r.metrics ? r.metrics[state.metric] : undefined;
    return typeof v === "number" ? v : null;
  }
  function keep(s) {
    var r = byIndex[s.getAttribute("data-i")];
    if (!r) { return true; }
    if (state.verdict !== "all" && r.verdict !== state.verdict) { return false; }
    if (state.claim !== "any" && r.claim_verdicts.indexOf(state.claim) === -1) { return false; }
    if (state.group !== "" && r.g !== state.group) { return false; }
    if (state.max !== "") {
      var m = metricOf(r), lim = parseFloat(state.max);
      if (m === null || (!isNaN(lim) && m > lim)) { return false; }
    }
    if (state.q) { return s._text.indexOf(state.q.toLowerCase()) !== -1; }
    return true;
  }
  function compare(a, b) {
    var ra = byIndex[a.getAttribute("data-i")], rb = byIndex[b.getAttribute("data-i")];
    if (state.sort === "input") { return ra.i - rb.i; }
    if (state.sort === "id") { return String(ra.id).localeCompare(String(rb.id)) || ra.i - rb.i; }
    if (state.sort === "metric-asc" || state.sort === "metric-desc") {
      var ma = metricOf(ra), mb = metricOf(rb);
      if (ma === null || mb === null) { return (ma === null) - (mb === null) || ra.sev - rb.sev; }
      return (state.sort === "metric-asc" ? ma - mb : mb - ma) || ra.sev - rb.sev;
    }
    return ra.sev - rb.sev;
  }
  function shownSections() {   // in the order shown
    return Array.prototype.filter.call(box ? box.children : sections,
      function (s) { return s.classList.contains("resp") && !s.classList.contains("hidden"); });
  }
  function apply() {
    var shown = 0, order = sections.slice().sort(compare);
    var moved = box && order.some(function (s, n) { return box.children[n] !== s; });
    order.forEach(function (s) {
      var ok = keep(s);
      s.classList.toggle("hidden", !ok);
      if (ok) { shown += 1; }
      if (moved) { box.appendChild(s); }   // the page comes worst first: no move on load
    });
    var count = $("shown");
    if (count) { count.textContent = shown + " of " + sections.length + " shown"; }
  }
  // A card's body (claims, evidence, nuggets, metrics) and its claims' export records come
  // packed, ten cards a pack in page order: base85 (Python's alphabet, "<" written ".") of
  // zlib-deflated JSON in an inert octet-stream element zp-K, inflated in the page the first
  // time one of its cards is needed (a card packed alone carries it in data-z).
  var packs = {}, B85 = new Int8Array(128).fill(-1);
  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;.=>?@^_`{|}~"
    .split("").forEach(function (ch, v) { B85[ch.charCodeAt(0)] = v; });
  function base85(text) {   // as Python's base64.b85decode: a short last group is padded with "~"
    var n = text.length, bytes = new Uint8Array(Math.floor(n / 5) * 4 + Math.max(n % 5 - 1, 0));
    for (var i = 0, o = 0; i < n; i += 5) {
      var acc = 0;
      for (var j = i; j < i + 5; j++) {
        var c = j < n ? text.charCodeAt(j) : 126, v = c < 128 ? B85[c] : -1;
        if (v < 0) { throw new Error("bad base85 at " + j); }
        acc = acc * 85 + v;
      }
      for (var s = 24; s >= 0 && o < bytes.length; s -= 8) { bytes[o++] = (acc >>> s) & 255; }
    }
    return bytes;
  }
  function unpack(text) {   // a promise, rejected (never thrown) when the text is damaged
    return Promise.resolve(text).then(function (t) {
      var stream = new Blob([base85(t.trim())]).stream()
        .pipeThrough(new DecompressionStream("deflate"));
      return new Response(stream).text();
    }).then(JSON.parse);
  }
  function bodyData(d) {
    if (d.hasAttribute("data-z")) {
      return unpack(d.getAttribute("data-z")).then(function (a) { return a[0]; });
    }
    var p = d.getAttribute("data-zp"), j = +d.getAttribute("data-zj");
    if (!packs[p]) {
      var el = $("zp-" + p);
      packs[p] = el ? unpack(el.textContent) : Promise.reject(new Error("pack " + p + " is missing"));
    }
    return packs[p].then(function (a) {
      if (!a[j]) { throw new Error("card " + j + " is not in pack " + p); }
      return a[j];
    });
  }
  function inflate(d) {
    if (!d._ready) {
      d._ready = bodyData(d).then(function (o) {
        var div = document.createElement("div");
        div.className = "zbody"; div.innerHTML = o.html; d.appendChild(div);
        d._claims = o.claims; return d;
      }, function (err) {   // a damaged card says so; the rest of the page goes on
        var p = document.createElement("p");
        p.className = "error-box"; p.textContent = "This card could not be unpacked: " + err;
        d.appendChild(p); d._claims = []; return d;
      });
    }
    return d._ready;
  }
  var PACKED = "details.body[data-zp], details.body[data-z]";
  function bodyOf(sec) { return sec ? sec.querySelector(PACKED) : null; }
  function claimsOf(sec) {
    var b = bodyOf(sec);
    return b ? inflate(b).then(function (d) { return d._claims; }) : Promise.resolve([]);
  }
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (d.matches && d.matches(PACKED) && d.open) { inflate(d); }
  }, true);
  var revealing = 0;
  function reveal(id, scroll) {
    var sec = id ? document.getElementById(id.split("-")[0]) : null;
    if (!sec || !sec.classList.contains("resp")) { sec = null; }
    if (sec && sec.classList.contains("hidden")) {   // show it: the filters give way
      var sort = state.sort; reset(); state.sort = sort; toControls(); apply(); writeHash();
    }
    var b = bodyOf(sec), token = ++revealing;
    return (b && id !== sec.id ? inflate(b) : Promise.resolve()).then(function () {
      var el = document.getElementById(id);
      if (!el || token !== revealing) { return; }   // a later click won
      for (var p = el; p; p = p.parentElement) { if (p.tagName === "DETAILS") { p.open = true; } }
      if (scroll !== false) { el.scrollIntoView({block: "start"}); }
    });
  }
  function update() { fromControls(); openId = ""; apply(); writeHash(); }
  function fromHash() { readHash(); toControls(); apply(); if (openId) { reveal(openId); } }

  Object.keys(controls).forEach(function (k) {
    var c = controls[k];
    if (c) { c.addEventListener(c.tagName === "INPUT" ? "input" : "change", update); }
  });
  function setAll(open) {   // the cards shown only: hidden ones stay packed
    var shown = shownSections();
    return Promise.all(open ? shown.map(bodyOf).filter(Boolean).map(inflate) : []).then(function () {
      shown.forEach(function (s) {
        s.querySelectorAll("details").forEach(function (d) { d.open = open; });
      });
    });
  }
  var ex = $("expand"), co = $("collapse");
  if (ex) { ex.addEventListener("click", function () { setAll(true); }); }
  if (co) { co.addEventListener("click", function () { setAll(false); }); }
  function titleBadge(e) {   // "claim 3: incorrect, vital", read from the badge's classes
    var a = e.target.closest ? e.target.closest("a.cb") : null;
    if (!a || a.hasAttribute("title")) { return; }
    var of = function (p) {
      var c = Array.prototype.find.call(a.classList, function (x) { return x.indexOf(p) === 0; });
      return c && c !== p + "none" ? c.slice(p.length) : "–";
    };
    a.title = "claim " + a.textContent + ": " + of("s-") + ", " + of("imp-");
  }
  document.addEventListener("mouseover", titleBadge);
  document.addEventListener("focusin", titleBadge);
  document.addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a.cb, a.wl, a.tile") : null;
    if (!a) { return; }
    e.preventDefault();
    if (a.classList.contains("tile")) {
      reset(); state.verdict = a.getAttribute("href").split("=")[1]; openId = "";
      toControls(); apply(); writeHash();
      var head = $("answers"); if (head) { head.scrollIntoView({block: "start"}); }
      return;
    }
    openId = a.classList.contains("wl") ? a.getAttribute("data-open") : a.getAttribute("href").slice(1);
    reveal(openId);
    writeHash();
  });
  window.addEventListener("hashchange", fromHash);

  function cell(v) {
    if (v === null || v === undefined) { return ""; }
    if (typeof v === "number" || typeof v === "boolean") { return String(v); }
    var s = Array.isArray(v) ? v.join("; ") : typeof v === "object" ? JSON.stringify(v) : String(v);
    // never a formula in a spreadsheet (a number such as "-1" stays a number)
    if (/^[=+\-@\t\r]/.test(s) && !/^[+-]?\d+(\.\d+)?$/.test(s)) { s = "'" + s; }
    return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }
  var COLS = ["answer_id", "group", "answer_verdict", "severity", "query", "answer_reasons", "error",
              "claim_id", "claim", "sentence", "claim_status", "nli_verdict", "importance",
              "rule", "verdict_reason", "audit_reasons", "magnitude", "core", "timeliness",
              "compared", "evidence_document", "evidence_passage", "evidence_url"];
  var CLAIM_KEYS = ["id", "text", "sentence", "status", "verdict", "importance", "rule",
                    "reason", "audit_reasons", "magnitude", "core", "timeliness", "compared",
                    "evidence_doc", "evidence_passage", "evidence_url"];
  function exportText(kind) {
    var secs = shownSections();
    return Promise.all(secs.map(claimsOf)).then(function (lists) {
      var recs = secs.map(function (s, n) {
        var r = {}, src = byIndex[s.getAttribute("data-i")];
        Object.keys(src).forEach(function (k) { r[k] = src[k]; });
        r.claims = lists[n];
        return r;
      });
      if (kind === "json") { return JSON.stringify(recs, null, 1) + "\n"; }
      var metrics = controls.metric ? Array.prototype.map.call(controls.metric.options,
        function (o) { return o.value; }) : [];
      var lines = [COLS.concat(metrics).map(cell).join(",")];
      recs.forEach(function (r) {
        var head = [r.id, r.group, r.verdict, r.severity, r.query, r.reasons, r.error];
        var tail = metrics.map(function (m) { return r.metrics[m]; });
        (r.claims.length ? r.claims : [null]).forEach(function (c) {
          var mid = CLAIM_KEYS.map(function (k) { return c ? c[k] : null; });
          lines.push(head.concat(mid, tail).map(cell).join(","));
        });
      });
      return lines.join("\r\n") + "\r\n";
    });
  }
  function download(kind) {
    return exportText(kind).then(function (text) {
      var blob = new Blob([text], {type: kind === "json" ? "application/json" : "text/csv"});
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = "offline-eval-view." + kind;
      document.body.appendChild(a); a.click(); document.body.removeChild(a);
      setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
    });
  }
  window.offlineEvalExport = exportText;
  var ec = $("export-csv"), ej = $("export-json");
  if (ec) { ec.addEventListener("click", function () { download("csv"); }); }
  if (ej) { ej.addEventListener("click", function () { download("json"); }); }
  fromHash();
}());
"""
