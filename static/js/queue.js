// The queue follows the work without reloading the page: while something is pending or
// running it fetches the page again every few seconds and puts the new tables in place
// (focus stays where it was), and the visitor can pause and resume. Without JavaScript a
// live queue refreshes itself (a meta refresh inside <noscript>).
(function () {
  "use strict";
  var live = document.getElementById("queue-live");
  if (!live) return;
  var seconds = period();
  var paused = false;
  var timer = null;

  var bar = document.createElement("p");
  bar.className = "live-controls";
  var button = document.createElement("button");
  button.type = "button";
  button.id = "queue-pause";
  var note = document.createElement("span");
  note.id = "queue-updated";
  note.className = "muted";
  bar.appendChild(button);
  bar.appendChild(document.createTextNode(" "));
  bar.appendChild(note);
  live.parentNode.insertBefore(bar, live);

  function period() { return Number(live.getAttribute("data-seconds")) || 15; }
  function isLive() { return live.getAttribute("data-live") === "true"; }
  function clock() { return new Date().toTimeString().slice(0, 8); }
  function show(text) {
    button.hidden = !isLive();
    button.textContent = paused ? "Resume updates" : "Pause updates";
    button.setAttribute("aria-pressed", paused ? "true" : "false");
    note.textContent = text;
  }
  function schedule() {
    window.clearTimeout(timer);
    seconds = period();
    if (isLive() && !paused) timer = window.setTimeout(refresh, seconds * 1000);
  }
  function focusKey() {
    var active = document.activeElement;
    return active && live.contains(active) && active.getAttribute("href");
  }
  function refresh() {
    fetch(window.location.href, { cache: "no-store", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("queue-live");
        if (!fresh) throw new Error("no queue in the page");
        var href = focusKey();
        live.innerHTML = fresh.innerHTML;
        live.setAttribute("data-live", fresh.getAttribute("data-live"));
        if (href) {
          var again = live.querySelector('a[href="' + CSS.escape(href) + '"]');
          if (again) again.focus();
        }
        if (window.glossaScrollRegions) window.glossaScrollRegions();
        show(isLive() ? "Updated at " + clock() + "; updates every " + seconds + " s." : "Updated at " + clock() + "; nothing is pending or running, so updates stopped.");
        schedule();
      })
      .catch(function () {
        show("The last update failed at " + clock() + "; trying again in " + seconds + " s.");
        schedule();
      });
  }
  button.addEventListener("click", function () {
    paused = !paused;
    show(paused ? "Updates paused." : "Updates every " + seconds + " s.");
    if (!paused) refresh();
    else window.clearTimeout(timer);
  });
  show(isLive() ? "Updates every " + seconds + " s." : "");
  schedule();
})();
