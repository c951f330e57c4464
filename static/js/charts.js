// Draws every Plotly figure embedded in the page as <script type="application/json">.
// The chart bundle is not a <script> of the page: this (small, deferred) script adds it
// once the document is parsed, so the table is shown and DOMContentLoaded fires without
// waiting for the bundle. Its address comes from this script's data-plotly attribute.
(function () {
  "use strict";
  var bundle = document.currentScript && document.currentScript.getAttribute("data-plotly");
  function draw() {
    document.querySelectorAll("[data-figure]").forEach(function (target) {
      var source = document.getElementById(target.getAttribute("data-figure"));
      if (!source) return;
      var figure = JSON.parse(source.textContent);
      target.innerHTML = "";
      window.Plotly.newPlot(target, figure.data, figure.layout, {
        responsive: true,
        displaylogo: false,
        modeBarButtonsToRemove: ["lasso2d", "select2d"],
      }).then(function () { target.setAttribute("data-rendered", "true"); });
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
