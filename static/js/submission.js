// A live submission page: without JavaScript it refreshes itself (a meta refresh inside
// <noscript>); with it, it polls the submission's JSON, updates the progress in place, and
// when the status or the datasets done change it fetches the page and puts its new content
// in place, without a reload (focus stays on the link it was on).
(function () {
  var live = document.getElementById("submission-live");
  if (!live) { return; }
  var url = live.dataset.jsonUrl;
  var status = live.dataset.status;
  var done = Number(live.dataset.done);
  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (data) {
      if (data.status !== status || data.datasets_done !== done) {
        swap(); return;
      }
      var elapsed = document.getElementById("submission-elapsed");
      if (data.elapsed_seconds !== null) { elapsed.textContent = Math.round(data.elapsed_seconds) + " s"; }
      data.datasets.forEach(function (row) {
        var tr = document.querySelector('tr[data-dataset="' + CSS.escape(row.name) + '"]');
        if (tr && row.percent !== null) {
          tr.children[1].textContent = row.state;
          tr.children[2].textContent = "";
          var bar = document.createElement("progress"); bar.max = 100; bar.value = row.percent;
          tr.children[2].appendChild(bar); tr.children[2].appendChild(document.createTextNode(" " + row.percent + "%"));
        }
      });
      setTimeout(poll, 2000);
    }).catch(function () { setTimeout(poll, 5000); });
  }
  function swap() {
    fetch(window.location.href, {cache: "no-store", headers: {Accept: "text/html"}}).then(function (r) {
      if (!r.ok) { throw new Error(r.status); }
      return r.text();
    }).then(function (html) {
      var page = new DOMParser().parseFromString(html, "text/html");
      var main = document.getElementById("content");
      var fresh = page.getElementById("content");
      if (!main || !fresh) { throw new Error("no content"); }
      var active = document.activeElement;
      var href = active && main.contains(active) ? active.getAttribute("href") : null;
      main.innerHTML = fresh.innerHTML;
      if (href) {
        var again = main.querySelector('a[href="' + CSS.escape(href) + '"]');
        if (again) { again.focus(); }
      }
      var next = page.getElementById("submission-live");
      if (!next) { return; }  // finished, failed or cancelled: nothing more to follow
      status = next.dataset.status;
      done = Number(next.dataset.done);
      setTimeout(poll, 2000);
    }).catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();
