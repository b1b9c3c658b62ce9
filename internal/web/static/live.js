// Live pages: the event stream (/api/events, Server-Sent Events) tells this
// page when something happened; the regions marked data-live are then
// fetched again and swapped in place, with no polling and no reload, and a
// new announcement is said in a polite live region. Every page works
// without this script; it only keeps them current.
(() => {
  if (!window.EventSource || !window.fetch) return;

  // Events that change what a live region shows.
  const changes = ["solve", "released", "started", "frozen", "unfrozen", "ended"];
  const regions = () => document.querySelectorAll("[data-live]");
  // The stream position the page was rendered at: events after it are
  // news to this page, even those made while the script was loading.
  const first = document.querySelector("[data-live-after]");
  let lastId = first ? first.dataset.liveAfter : "";

  // At most one refresh a second; a random delay within it spreads the
  // fetches of thousands of open pages over the second after an event.
  let timer = 0, last = 0, busy = false, again = false;
  function schedule() {
    if (!regions().length || timer) return;
    if (busy) { again = true; return; }
    const wait = Math.max(0, last + 1000 - Date.now()) + Math.random() * 1000;
    timer = setTimeout(() => { timer = 0; refresh(); }, wait);
  }

  // A page's own script asks for its regions at once after changing the
  // address (board.js: the filters as one types); during a fetch, another
  // follows it, so the last address wins.
  let wanted = false;
  document.addEventListener("flagship:refresh", () => { if (busy) wanted = true; else refresh(); });

  async function refresh() {
    busy = true;
    last = Date.now();
    try {
      const r = await fetch(location.href, {credentials: "same-origin", headers: {Accept: "text/html"}});
      if (!r.ok) return;
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      const fresh = doc.querySelectorAll("[data-live]");
      const old = regions();
      if (fresh.length !== old.length) return; // another page now: leave it
      old.forEach((el, i) => swap(el, fresh[i]));
    } catch {
      // The network failed: the next event tries again.
    } finally {
      busy = false;
      if (wanted) { wanted = again = false; refresh(); }
      if (again) { again = false; schedule(); }
    }
  }

  // swap replaces el's content with fresh's, keeping the scroll position
  // and the keyboard focus (on the same element of the new content).
  function swap(el, fresh) {
    const focused = document.activeElement;
    const path = el.contains(focused) && focused !== el ? pathTo(el, focused) : null;
    const x = window.scrollX, y = window.scrollY;
    el.replaceChildren(...Array.from(fresh.childNodes, (n) => document.importNode(n, true)));
    if (path) {
      const same = (focused.id && document.getElementById(focused.id)) || follow(el, path);
      if (same && same.tagName === focused.tagName) same.focus({preventScroll: true});
    }
    window.scrollTo(x, y);
  }
  function pathTo(root, node) {
    const path = [];
    for (; node !== root; node = node.parentElement) path.unshift(Array.prototype.indexOf.call(node.parentElement.children, node));
    return path;
  }
  function follow(root, path) {
    let node = root;
    for (const i of path) { node = node && node.children[i]; }
    return node;
  }

  // The announcement notice: a live region present from the start (screen
  // readers announce changes to a region they already know), filled when
  // an announcement arrives.
  const notice = document.createElement("div");
  notice.className = "live-notice";
  notice.setAttribute("role", "status");
  notice.setAttribute("aria-live", "polite");
  (document.getElementById("main") || document.body).prepend(notice);
  function announce(data) {
    let title = "";
    try { title = JSON.parse(data).title || ""; } catch { return; }
    const p = document.createElement("p");
    p.className = "alert notice";
    p.append("New announcement: ");
    const a = document.createElement("a");
    a.href = "/announcements";
    a.textContent = title;
    p.append(a);
    notice.replaceChildren(p);
  }

  // A hidden tab lets its connection go (a browser allows six per site
  // over HTTP/1.1) and resumes from its last event when shown again.
  let source = null, retry = 0;
  function open() {
    if (source) return;
    clearTimeout(retry);
    const es = new EventSource("/api/events" + (lastId ? "?after=" + encodeURIComponent(lastId) : ""));
    source = es;
    const seen = (e) => { if (e.lastEventId) lastId = e.lastEventId; };
    for (const kind of changes) es.addEventListener(kind, (e) => { seen(e); schedule(); });
    es.addEventListener("announcement", (e) => { seen(e); announce(e.data); schedule(); });
    // A refused stream (429: this address or the server holds too many)
    // closes the EventSource for good, where a dropped one reconnects by
    // itself: try again in a minute or so.
    es.addEventListener("error", () => {
      if (source !== es || es.readyState !== EventSource.CLOSED) return;
      source = null;
      retry = setTimeout(() => { if (!document.hidden) open(); }, 30000 + Math.random() * 30000);
    });
  }
  function close() {
    clearTimeout(retry);
    if (source) { source.close(); source = null; }
  }
  document.addEventListener("visibilitychange", () => (document.hidden ? close() : open()));
  if (!document.hidden) open();
})();
