// The board's "Compare" form carries the board's view (filters, sort, method) to the
// comparison, which links back to it. The server writes them as hidden inputs; a column
// sorted in place (board.js) changes only the address, so on submit they are read again
// from the address.
(function () {
  "use strict";
  var form = document.getElementById("compare-form");
  if (!form) return;
  form.addEventListener("submit", function () {
    form.querySelectorAll("input[data-carried]").forEach(function (input) { input.remove(); });
    new URLSearchParams(window.location.search).forEach(function (value, key) {
      if (key === "models" || key === "board") return;
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = key;
      input.value = value;
      input.setAttribute("data-carried", "");
      form.appendChild(input);
    });
  });
})();
