// The board's filters as one types or ticks: each change of the filter form
// puts its query in the address and asks live.js for the board's regions
// again, so the server filters exactly as it does for the plain form (a GET
// without this script), and a reload or a copied link shows the same board.
(() => {
  const form = document.querySelector("form[data-instant]");
  if (!form || !window.EventSource || !window.fetch) return;
  let timer = 0;
  function apply() {
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v.trim() !== "") q.append(k, v);
    const url = form.getAttribute("action") + (q.toString() ? "?" + q : "");
    if (url === location.pathname + location.search) return;
    history.replaceState(null, "", url);
    document.dispatchEvent(new Event("flagship:refresh"));
  }
  form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(apply, 150); });
})();
