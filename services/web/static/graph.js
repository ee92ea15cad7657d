// The wiki's link graph: a small force layout drawn as SVG, one <a> per page, so a click (or
// Enter) opens the page as any link does. Hand-written: the whole job is ~100 lines, smaller
// than any library that does it, and nothing has to be vendored.
"use strict";
(function () {
  var SVG = "http://www.w3.org/2000/svg";
  function make(name, attrs) {
    var el = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    return el;
  }

  function layout(nodes, pairs, width, height) {
    var n = nodes.length, i, j, step;
    // Start on a circle (deterministic: the same graph is drawn the same way every time).
    nodes.forEach(function (node, k) {
      var angle = 2 * Math.PI * k / Math.max(1, n);
      node.x = width / 2 + Math.cos(angle) * width * 0.35;
      node.y = height / 2 + Math.sin(angle) * height * 0.35;
    });
    var ideal = Math.sqrt(width * height / Math.max(1, n)) * 0.7;
    var steps = n > 600 ? 60 : 250;
    for (step = 0; step < steps; step++) {
      var heat = ideal * (1 - step / steps) * 0.5 + 0.5;
      nodes.forEach(function (node) { node.dx = 0; node.dy = 0; });
      for (i = 0; i < n; i++) {
        for (j = i + 1; j < n; j++) {
          var a = nodes[i], b = nodes[j];
          var dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy + 0.01;
          if (d2 > 4 * ideal * ideal) { continue; }  // far pages no longer push (as in F-R)
          var push = ideal * ideal / d2;
          a.dx += dx * push; a.dy += dy * push; b.dx -= dx * push; b.dy -= dy * push;
        }
      }
      pairs.forEach(function (p) {
        var a = nodes[p[0]], b = nodes[p[1]];
        var dx = a.x - b.x, dy = a.y - b.y, d = Math.sqrt(dx * dx + dy * dy) + 0.01;
        var pull = d / ideal;
        a.dx -= dx * pull; a.dy -= dy * pull; b.dx += dx * pull; b.dy += dy * pull;
      });
      nodes.forEach(function (node) {
        // Gravity, so that pages linked to nothing stay in view instead of drifting off.
        node.dx += (width / 2 - node.x) * 0.05; node.dy += (height / 2 - node.y) * 0.05;
        var len = Math.sqrt(node.dx * node.dx + node.dy * node.dy) + 0.01;
        node.x += node.dx / len * Math.min(len, heat);
        node.y += node.dy / len * Math.min(len, heat);
        node.x = Math.max(12, Math.min(width - 12, node.x));
        node.y = Math.max(12, Math.min(height - 12, node.y));
      });
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var svg = document.getElementById("graph");
    var source = document.getElementById("graph-data");
    if (!svg || !source) { return; }
    var data = JSON.parse(source.textContent);
    var nodes = data.nodes, pairs = data.pairs, hubs = {};
    data.hubs.slice(0, 5).forEach(function (path) { hubs[path] = true; });
    var labelAll = nodes.length <= 40;
    var width = 900, height = 600;
    layout(nodes, pairs, width, height);
    var edges = make("g", {"class": "edges"});
    pairs.forEach(function (p) {
      var a = nodes[p[0]], b = nodes[p[1]];
      edges.appendChild(make("line", {x1: a.x.toFixed(1), y1: a.y.toFixed(1),
                                      x2: b.x.toFixed(1), y2: b.y.toFixed(1)}));
    });
    svg.appendChild(edges);
    var group = make("g", {"class": "nodes"});
    nodes.forEach(function (node) {
      var kind = hubs[node.path] ? "hub" : node.orphan ? "orphan" :
        node.missing_from_index ? "missing" : node.catalog ? "catalog" : "page";
      var link = make("a", {href: "/ui/kb/page?ref=" +
                              encodeURIComponent(node.path).replace(/%2F/g, "/"),
                            "class": "node " + kind + (node.broken ? " broken" : ""),
                            "data-path": node.path});
      var circle = make("circle", {cx: node.x.toFixed(1), cy: node.y.toFixed(1),
                                   r: ((nodes.length > 60 ? 3 : 6) + Math.min(9, Math.sqrt(node.inbound) * 1.5)).toFixed(1)});
      var title = make("title", {});
      title.textContent = (node.title || node.path) + " (" + node.inbound + " links in" +
        (node.broken ? ", " + node.broken + " broken" : "") + ")";
      circle.appendChild(title);
      link.appendChild(circle);
      if (labelAll || hubs[node.path]) {
        var label = make("text", {x: (node.x + 10).toFixed(1), y: (node.y + 4).toFixed(1)});
        label.textContent = node.title || node.path;
        link.appendChild(label);
      }
      group.appendChild(link);
    });
    svg.appendChild(group);
  });
})();
