// A live submission page: without JavaScript it refreshes itself (meta refresh); with it,
// it polls the submission's JSON and reloads when the status or the datasets done change.
(function () {
  var live = document.getElementById("submission-live");
  if (!live) { return; }
  var meta = document.querySelector('meta[http-equiv="refresh"]');
  if (meta) { meta.parentNode.removeChild(meta); }
  var url = live.dataset.jsonUrl;
  var status = live.dataset.status;
  var done = Number(live.dataset.done);
  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (data) {
      if (data.status !== status || data.datasets_done !== done) {
        window.location.reload(); return;
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
  setTimeout(poll, 2000);
})();
