// The submit form's languages: every language with a dataset is a checkbox (the form works
// without JavaScript); with it, a search field narrows the list by name or code as you type.
(function () {
  var picker = document.getElementById("language-picker");
  var input = document.getElementById("language-filter");
  if (!picker || !input) { return; }
  var items = Array.prototype.slice.call(picker.querySelectorAll("input[type=checkbox]")).map(function (box) {
    var label = box.closest("label") || box.parentNode;
    var holder = label.closest("div") && label.closest("div") !== picker ? label.closest("div") : label;
    return {box: box, holder: holder, text: (label.textContent + " " + box.value).toLowerCase()};
  });
  var count = document.getElementById("language-count");
  input.parentNode.hidden = false;
  function filter() {
    var query = input.value.trim().toLowerCase();
    var shown = 0;
    items.forEach(function (item) {
      var match = !query || item.text.indexOf(query) !== -1 || item.box.checked;
      item.holder.hidden = !match;
      if (match) { shown += 1; }
    });
    count.textContent = shown + " of " + items.length + " languages shown";
  }
  input.addEventListener("input", filter);
  filter();
})();
