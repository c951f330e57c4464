// Every page: a table box that scrolls sideways can be reached and scrolled with the keyboard
// (WCAG 2.1.1): it becomes a focusable, named region while its table is wider than the box.
(function () {
  "use strict";
  function nameOf(box) {
    var table = box.querySelector("table");
    var caption = table && table.caption;
    if (caption) return caption.textContent.trim();
    if (table && table.getAttribute("aria-label")) return table.getAttribute("aria-label");
    var node = box.previousElementSibling;
    while (node && !/^H[1-6]$/.test(node.tagName)) node = node.previousElementSibling;
    return node ? node.textContent.trim() + " (table)" : "Table";
  }
  function update() {
    document.querySelectorAll(".table-scroll").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", nameOf(box));
      } else if (box.getAttribute("role") === "region") {
        ["tabindex", "role", "aria-label"].forEach(function (a) { box.removeAttribute(a); });
      }
    });
  }
  window.glossaScrollRegions = update;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", update);
  else update();
  window.addEventListener("resize", update);
})();
