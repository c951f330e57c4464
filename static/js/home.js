// Home page: filter the language and group entries as the visitor types (the form's GET
// ?q= does the same on the server without JavaScript). Matching is on each entry's
// data-search text (name, code, board names), case-insensitive.
(function () {
  "use strict";
  var input = document.getElementById("home-q");
  var count = document.getElementById("home-count");
  if (!input) return;
  var entries = Array.prototype.slice.call(document.querySelectorAll(".language-entry[data-search]"));
  function apply() {
    var query = input.value.trim().toLowerCase();
    var shown = 0;
    entries.forEach(function (entry) {
      var match = !query || entry.getAttribute("data-search").indexOf(query) !== -1;
      entry.hidden = !match;
      if (match) shown += 1;
    });
    if (count) count.textContent = query ? shown + " of " + entries.length + " entries match “" + input.value.trim() + "”." : entries.length + " entries.";
    var url = new URL(window.location.href);
    if (query) url.searchParams.set("q", input.value.trim()); else url.searchParams.delete("q");
    window.history.replaceState(null, "", url);
  }
  input.addEventListener("input", apply);
})();
