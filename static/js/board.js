// Progressive enhancement for a board: filters apply on change, columns sort in place.
// Without JavaScript the same works through links and the Apply button (server-side).
(function () {
  "use strict";
  var form = document.getElementById("board-filters");
  var table = document.getElementById("board-table");

  if (form) {
    form.addEventListener("change", function (event) {
      if (event.target.name !== "q") form.submit();
    });
  }
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
})();
