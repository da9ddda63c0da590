// Sortable tables: click a header of a `table.sortable` to sort its body by that column,
// click again to reverse. A cell's `data-sort` attribute, when present, is the value sorted on;
// numbers sort as numbers, empty values last, text in the reader's locale order.
(function () {
  "use strict";

  function key(cell) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    raw = raw.trim();
    if (raw === "" || raw === "—" || raw === "–") return { empty: true };
    var n = Number(raw.replace(/,/g, ""));
    return isNaN(n) ? { text: raw.toLowerCase() } : { num: n };
  }

  function compare(a, b) {
    if (a.empty || b.empty) return a.empty === b.empty ? 0 : a.empty ? 1 : -1;
    if (a.num !== undefined && b.num !== undefined) return a.num - b.num;
    if (a.num !== undefined) return -1;
    if (b.num !== undefined) return 1;
    return a.text.localeCompare(b.text);
  }

  function sortBy(table, th, index) {
    var body = table.tBodies[0];
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      return { row: row, key: key(row.cells[index]), i: i };
    });
    rows.sort(function (a, b) {
      var c = compare(a.key, b.key);
      if (a.key.empty || b.key.empty) return c || a.i - b.i;
      return (ascending ? c : -c) || a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.tabIndex = 0;
      th.title = th.title || "sort by " + th.textContent.trim();
      th.addEventListener("click", function () { sortBy(table, th, index); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, index); }
      });
    });
  });
})();
