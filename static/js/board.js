// Progressive enhancement for a board: filters apply on change (the page reloads with the
// filters in its URL and focus goes back to the control that changed), columns sort in place,
// columns can be hidden, score cells are shaded by their place in their column, and on a
// phone the filters start folded. Without JavaScript the same works through links and the
// Apply button (server-side), with every column shown and the filters open.
(function () {
  "use strict";
  var form = document.getElementById("board-filters");
  var table = document.getElementById("board-table");
  var panel = document.getElementById("filters-panel");
  var FOCUS_KEY = "glossa-board-focus";
  var narrow = window.matchMedia("(max-width: 640px)");

  function restoreFocus() {
    var saved;
    try { saved = JSON.parse(window.sessionStorage.getItem(FOCUS_KEY) || "null"); } catch (e) { saved = null; }
    window.sessionStorage.removeItem(FOCUS_KEY);
    if (!saved || saved.path !== window.location.pathname || !form) return false;
    var control = Array.prototype.find.call(form.elements, function (el) {
      return el.name === saved.name && (saved.value === null || el.value === saved.value);
    });
    if (!control) return false;
    if (panel) panel.open = true;
    control.focus();
    return true;
  }

  if (form) {
    form.addEventListener("change", function (event) {
      var target = event.target;
      if (target.name === "q") return;
      var checkable = target.type === "checkbox" || target.type === "radio";
      try {
        window.sessionStorage.setItem(FOCUS_KEY, JSON.stringify({
          path: window.location.pathname, name: target.name, value: checkable ? target.value : null,
        }));
      } catch (e) { /* storage refused: the page still filters */ }
      form.submit();
    });
  }
  var refocused = restoreFocus();
  // On a phone the table comes first: the filters start folded (their summary says when on).
  if (panel && narrow.matches && !refocused) panel.open = false;
  // On a wide screen the filters are always open (their summary is not shown there).
  narrow.addEventListener("change", function () { if (panel && !narrow.matches) panel.open = true; });
  if (!table) return;

  function setParams(sort, dir) {
    var url = new URL(window.location.href);
    url.searchParams.delete("sort");
    url.searchParams.delete("dir");
    if (sort) url.searchParams.set("sort", sort);
    if (sort && dir === "desc") url.searchParams.set("dir", "desc");
    window.history.replaceState(null, "", url.pathname + url.search);
    ["export-csv", "export-json"].forEach(function (id) {
      var link = document.getElementById(id);
      if (link) link.href = link.getAttribute("data-base") + url.search;
    });
    if (form) {
      form.querySelectorAll("input[name=sort], input[name=dir]").forEach(function (i) { i.remove(); });
      if (sort) {
        var s = document.createElement("input");
        s.type = "hidden"; s.name = "sort"; s.value = sort; form.appendChild(s);
        if (dir === "desc") {
          var d = document.createElement("input");
          d.type = "hidden"; d.name = "dir"; d.value = "desc"; form.appendChild(d);
        }
      }
    }
  }

  function compare(a, b, dir) {
    // Empty values (missing scores) always go last.
    if (a === "" && b === "") return 0;
    if (a === "") return 1;
    if (b === "") return -1;
    var numeric = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
    // Numbers numerically; text by code point, like the server-side sort.
    var result = (numeric.test(a) && numeric.test(b)) ? parseFloat(a) - parseFloat(b) : (a < b ? -1 : a > b ? 1 : 0);
    return dir === "desc" ? -result : result;
  }

  function sortBy(index, key, dir) {
    table.querySelectorAll("tbody").forEach(function (body) {
      var rows = Array.prototype.filter.call(body.rows, function (r) { return !r.classList.contains("section"); });
      var keyed = rows.map(function (row, i) {
        var cell = row.cells[index];
        return { row: row, value: cell ? (cell.getAttribute("data-v") || "") : "", i: i };
      });
      keyed.sort(function (p, q) { return compare(p.value, q.value, dir) || p.i - q.i; });
      keyed.forEach(function (k) { body.appendChild(k.row); });
    });
    table.querySelectorAll("thead th").forEach(function (th) { th.setAttribute("aria-sort", "none"); });
    var th = table.querySelector('thead th[data-key="' + key + '"]');
    th.setAttribute("aria-sort", dir === "desc" ? "descending" : "ascending");
    setParams(key, dir);
  }

  table.querySelectorAll("thead th").forEach(function (th, index) {
    var link = th.querySelector("a");
    if (!link) return;
    link.addEventListener("click", function (event) {
      event.preventDefault();
      var dir = th.getAttribute("aria-sort") === "ascending" ? "desc" : "asc";
      sortBy(index, th.getAttribute("data-key"), dir);
    });
  });
  // Shading of score cells: each ranked cell by its quarter of its column (the darker, the
  // better); the number in the cell says the same, the legend says what the shade means.
  var SHADED = { "c-dataset": "high", "c-task": "low", "c-language": "low", "c-score": "low" };
  function shade() {
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var rows = table.querySelectorAll("tbody.ranked tr");
    headers.forEach(function (th, index) {
      var better = SHADED[th.className.split(" ")[0]];
      if (!better) return;
      var cells = [];
      rows.forEach(function (row) {
        var cell = row.cells[index];
        var value = cell ? parseFloat(cell.getAttribute("data-v")) : NaN;
        if (!isNaN(value)) cells.push({ cell: cell, value: better === "high" ? value : -value });
      });
      if (cells.length < 4) return;
      var sorted = cells.map(function (c) { return c.value; }).sort(function (a, b) { return a - b; });
      cells.forEach(function (c) {
        var below = sorted.filter(function (v) { return v < c.value; }).length;
        c.cell.classList.add("tint-" + (1 + Math.min(3, Math.floor((4 * below) / sorted.length))));
      });
    });
    var legend = document.getElementById("board-legend");
    if (legend) {
      var note = document.createElement("span");
      note.className = "tint-legend";
      note.innerHTML = ' Shading: <span class="tint-1"></span> lowest to <span class="tint-4"></span> highest quarter of its column (darker is better; the numbers say the same).';
      legend.appendChild(note);
    }
  }

  // Column toggles: a "Columns" menu beside the filters; the choice is kept per board.
  function columnToggles() {
    var controls = document.querySelector(".board-controls");
    if (!controls) return;
    var storeKey = "glossa-columns:" + window.location.pathname;
    var style = document.createElement("style");
    document.head.appendChild(style);
    var hidden;
    try { hidden = JSON.parse(window.localStorage.getItem(storeKey) || "[]"); } catch (e) { hidden = []; }
    var menu = document.createElement("details");
    menu.className = "column-toggles";
    menu.innerHTML = "<summary>Columns</summary><div role=\"group\" aria-label=\"Columns shown\"></div>";
    var box = menu.querySelector("div");
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    function apply() {
      var rules = [];
      headers.forEach(function (th, index) {
        if (hidden.indexOf(th.getAttribute("data-key")) !== -1) {
          rules.push("#board-table tr > :nth-child(" + (index + 1) + ") { display: none; }");
        }
      });
      style.textContent = rules.join("\n");
      try { window.localStorage.setItem(storeKey, JSON.stringify(hidden)); } catch (e) { /* not kept */ }
      if (window.glossaScrollRegions) window.glossaScrollRegions();
    }
    headers.forEach(function (th) {
      var key = th.getAttribute("data-key");
      if (key === "rank" || key === "model") return;
      var label = document.createElement("label");
      var check = document.createElement("input");
      check.type = "checkbox";
      check.checked = hidden.indexOf(key) === -1;
      check.addEventListener("change", function () {
        hidden = hidden.filter(function (k) { return k !== key; });
        if (!check.checked) hidden.push(key);
        apply();
      });
      label.appendChild(check);
      label.appendChild(document.createTextNode(" " + th.querySelector("a").textContent));
      box.appendChild(label);
    });
    var all = document.createElement("button");
    all.type = "button";
    all.className = "show-all";
    all.textContent = "Show every column";
    all.addEventListener("click", function () {
      hidden = [];
      box.querySelectorAll("input").forEach(function (i) { i.checked = true; });
      apply();
    });
    box.appendChild(all);
    controls.appendChild(menu);
    apply();
  }

  shade();
  columnToggles();
})();
