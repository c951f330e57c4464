// Draws every Plotly figure embedded in the page as <script type="application/json">.
// The chart bundle is not a <script> of the page: this (small, deferred) script adds it
// once the document is parsed, so the table is shown and DOMContentLoaded fires without
// waiting for the bundle. Its address comes from this script's data-plotly attribute.
// Each chart is a named figure (its heading, or the figure's title) and is followed by its
// numbers as a table (folded), for screen readers and for anyone who wants the values.
(function () {
  "use strict";
  var bundle = document.currentScript && document.currentScript.getAttribute("data-plotly");

  function titleText(title) {
    if (!title) return "";
    return typeof title === "string" ? title : title.text || "";
  }
  function chartName(target, figure) {
    if (target.getAttribute("aria-label")) return target.getAttribute("aria-label");
    var own = titleText(figure.layout && figure.layout.title);
    if (own) return own;
    var node = target;
    while (node && node !== document.body) {
      var sibling = node.previousElementSibling;
      while (sibling) {
        if (/^H[1-6]$/.test(sibling.tagName)) return sibling.textContent.trim();
        sibling = sibling.previousElementSibling;
      }
      node = node.parentElement;
    }
    return "Chart";
  }
  function shown(value) {
    if (typeof value === "number") return String(Math.round(value * 100) / 100);
    if (value === null || value === undefined) return "";
    return String(value).replace(/<[^>]*>/g, "");
  }
  function label(trace, i) {
    if (Array.isArray(trace.customdata) && trace.customdata[i] !== undefined) {
      var item = trace.customdata[i];
      return shown(Array.isArray(item) ? item[0] : item);
    }
    if (Array.isArray(trace.hovertext)) return shown(trace.hovertext[i]);
    if (Array.isArray(trace.text)) return shown(trace.text[i]);
    return "";
  }
  function cell(row, tag, text) {
    var c = document.createElement(tag);
    c.textContent = text;
    row.appendChild(c);
  }
  // The figure's points as a table: series, label, x, y (a column only where some trace has it).
  function dataTable(figure, name) {
    var layout = figure.layout || {};
    var traces = (figure.data || []).filter(function (t) { return Array.isArray(t.x) || Array.isArray(t.y); });
    if (!traces.length) return null;
    var hasX = traces.some(function (t) { return Array.isArray(t.x); });
    var hasY = traces.some(function (t) { return Array.isArray(t.y); });
    var table = document.createElement("table");
    table.className = "data";
    var caption = document.createElement("caption");
    caption.className = "visually-hidden";
    caption.textContent = name + ": the chart's numbers";
    table.appendChild(caption);
    var head = table.createTHead().insertRow();
    cell(head, "th", "Series");
    cell(head, "th", "Item");
    if (hasX) cell(head, "th", titleText(layout.xaxis && layout.xaxis.title) || "x");
    if (hasY) cell(head, "th", titleText(layout.yaxis && layout.yaxis.title) || "y");
    head.querySelectorAll("th").forEach(function (th) { th.scope = "col"; });
    var body = table.createTBody();
    traces.forEach(function (trace, t) {
      var count = Math.max((trace.x || []).length, (trace.y || []).length);
      for (var i = 0; i < count; i += 1) {
        var row = body.insertRow();
        cell(row, "td", trace.name || "Series " + (t + 1));
        cell(row, "td", label(trace, i));
        if (hasX) cell(row, "td", trace.x ? shown(trace.x[i]) : "");
        if (hasY) cell(row, "td", trace.y ? shown(trace.y[i]) : "");
      }
    });
    var details = document.createElement("details");
    details.className = "chart-data";
    var summary = document.createElement("summary");
    summary.textContent = "The numbers of \u201c" + name + "\u201d as a table";
    var box = document.createElement("div");
    box.className = "table-scroll";
    box.appendChild(table);
    details.appendChild(summary);
    details.appendChild(box);
    return details;
  }
  function draw() {
    document.querySelectorAll("[data-figure]").forEach(function (target) {
      var source = document.getElementById(target.getAttribute("data-figure"));
      if (!source) return;
      var figure = JSON.parse(source.textContent);
      var name = chartName(target, figure);
      target.setAttribute("role", "figure");
      target.setAttribute("aria-label", name);
      target.innerHTML = "";
      var alternative = dataTable(figure, name);
      if (alternative && !target.nextElementSibling?.classList.contains("chart-data")) {
        target.parentNode.insertBefore(alternative, target.nextSibling);
      }
      window.Plotly.newPlot(target, figure.data, figure.layout, {
        responsive: true,
        displaylogo: false,
        // A phone gets no tool bar: its 24 px buttons are below a touch target's 44 px, and
        // the table under the chart has the numbers.
        displayModeBar: window.matchMedia("(max-width: 640px)").matches ? false : "hover",
        modeBarButtonsToRemove: ["lasso2d", "select2d"],
      }).then(function () {
        // The drawing is one image to a screen reader (the table under it has the numbers).
        target.querySelectorAll("svg.main-svg").forEach(function (svg, i) {
          if (i === 0) {
            svg.setAttribute("role", "img");
            svg.setAttribute("aria-label", name + " (chart; its numbers are in the table below)");
          } else {
            svg.setAttribute("aria-hidden", "true");
          }
        });
        target.setAttribute("data-rendered", "true");
      });
    });
  }
  function load() {
    if (window.Plotly) { draw(); return; }
    if (!bundle || !document.querySelector("[data-figure]")) return;
    var script = document.createElement("script");
    script.src = bundle;
    script.async = true;
    script.addEventListener("load", draw);
    document.head.appendChild(script);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
