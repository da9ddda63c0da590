// Draws each `.plot` with the Plotly figure spec in the JSON script it names (data-spec).
// Without plotly.js the fallback text stays and the static PNG figures remain on the page.
(function () {
  "use strict";
  if (typeof Plotly === "undefined") return;
  var config = { displaylogo: false, responsive: true,
                 modeBarButtonsToRemove: ["sendDataToCloud", "select2d", "lasso2d"] };
  document.querySelectorAll(".plot[data-spec]").forEach(function (div) {
    var spec = JSON.parse(document.getElementById(div.getAttribute("data-spec")).textContent);
    div.textContent = "";
    Plotly.newPlot(div, spec.data, spec.layout, config).then(function () {
      div.setAttribute("data-drawn", "true");
    });
  });
})();
