// The page's only behaviour besides the graph: "/" focuses search, copy buttons, and the
// first matching message brought into view. No inline script anywhere (the CSP forbids it).
"use strict";
document.addEventListener("keydown", function (event) {
  var target = event.target;
  var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" ||
                          target.isContentEditable);
  if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
    var box = document.getElementById("q");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
  }
});

function copyText(text, button) {
  function done() { button.textContent = "Copied"; }
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () { fallback(text); done(); });
  } else { fallback(text); done(); }
}

function fallback(text) {
  var area = document.createElement("textarea");
  area.value = text;
  document.body.appendChild(area);
  area.select();
  try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
  document.body.removeChild(area);
}

document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () { copyText(button.dataset.copy, button); });
  });
  if (!location.hash) {
    var first = document.querySelector(".msg.match");
    if (first) { first.scrollIntoView({block: "center"}); }
  }
});
