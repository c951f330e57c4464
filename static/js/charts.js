// Draws every Plotly figure embedded in the page as <script type="application/json">.
(function () {
  "use strict";
  function draw() {
    if (!window.Plotly) return;
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
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw);
  else draw();
})();
