// Flagship's only script. Every page works without it; it adds comforts.
// Copy buttons: <button data-copy="#id"> copies the text of #id.
document.addEventListener("click", (e) => {
  const b = e.target.closest("[data-copy]");
  if (!b) return;
  const el = document.querySelector(b.dataset.copy);
  if (el && navigator.clipboard) {
    navigator.clipboard.writeText(el.textContent.trim()).then(() => {
      const t = b.textContent;
      b.textContent = "Copied";
      setTimeout(() => { b.textContent = t; }, 1500);
    });
  }
});

// Flag forms: send the form without a reload and swap in the challenge's
// page it lands on (post/redirect/get: fetch follows the redirect, and the
// page says the answer in the flag's section), so the solved mark, the
// counts, the rating and the writeups appear at once and the answer is
// the server's own words. Without this script the form posts and the
// browser lands on the same page.
document.addEventListener("submit", async (e) => {
  const form = e.target.closest("form[data-submit]");
  if (!form) return;
  e.preventDefault();
  const button = form.querySelector("button");
  button.disabled = true;
  let r;
  try {
    r = await fetch(form.action, {method: "POST", credentials: "same-origin", body: new URLSearchParams(new FormData(form))});
  } catch {
    button.disabled = false;
    form.submit(); // no network answer: fall back to the plain form
    return;
  }
  if (!r.ok) {
    form.submit(); // an error page (nothing was recorded): let the browser show it
    return;
  }
  const old = document.querySelector("article.challenge");
  const doc = new DOMParser().parseFromString(await r.text().catch(() => ""), "text/html");
  const fresh = doc.querySelector("article.challenge");
  if (!old || !fresh || new URL(r.url).pathname !== location.pathname) {
    location.assign(r.url); // another page (the login): go there
    return;
  }
  const article = document.importNode(fresh, true);
  old.replaceWith(article);
  document.title = doc.title;
  enhance(article);
  const result = article.querySelector("#flag-result");
  const input = article.querySelector("form[data-submit] input[name=flag]");
  if (result && result.classList.contains("error") && input) {
    input.focus(); // try again at once; the error is the field's description
  } else if (result) {
    result.focus();
  }
});

// The theme switch: the button names the theme to go to; the choice is
// the same cookie the server sets (its name on the form), and the page
// stays as it is, with whatever was typed in its forms. Without this
// script the form posts and the server sets the cookie.
document.addEventListener("submit", (e) => {
  const form = e.target.closest("form.theme-switch");
  if (!form || !form.dataset.cookie) return;
  const button = e.submitter && e.submitter.closest("button[name=theme]");
  if (!button) return;
  e.preventDefault();
  const theme = button.value;
  const name = form.dataset.cookie;
  document.cookie = name + "=" + theme + "; Path=/; Max-Age=31536000; SameSite=Lax" + (name.startsWith("__Host-") ? "; Secure" : "");
  document.documentElement.dataset.theme = theme;
  // The pressed button is hidden now: the other one, shown, takes the focus.
  const other = form.querySelector("button[name=theme]:not([value=" + theme + "])");
  if (other) other.focus();
});

// Hints: an Unlock that costs points opens its confirmation in place (what
// it takes, Confirm and Cancel), which without this script is a page of
// its own (the link's address). Cancel closes it, back on the Unlock.
document.addEventListener("click", (e) => {
  const open = e.target.closest("a[data-unlock]");
  const cancel = e.target.closest(".confirm [data-cancel]");
  const box = open ? document.getElementById(open.dataset.unlock) : cancel && cancel.closest(".confirm");
  if (!box) return;
  e.preventDefault();
  const opener = open || document.querySelector('a[data-unlock="' + box.id + '"]');
  box.hidden = !box.hidden;
  if (opener) opener.setAttribute("aria-expanded", String(!box.hidden));
  if (!box.hidden) box.querySelector("p").focus();
  else if (opener) opener.focus();
});

// enhance adds this script's comforts to root: the page at load, and what
// a form swapped in.
function enhance(root) {
  localTimes(root);
  for (const a of root.querySelectorAll("a[data-unlock]")) {
    a.setAttribute("aria-controls", a.dataset.unlock);
    a.setAttribute("aria-expanded", "false");
  }
  for (const el of root.querySelectorAll("[data-countdown]")) startCountdown(el);
}

// Times: a <time datetime data-local> written in UTC ("26 Nov 2026, 14:05
// UTC", web.readableTime) is said in the viewer's own time zone, which only
// the browser knows, in the same shape; the UTC text stays as its title.
function localTimes(root) {
  for (const el of root.querySelectorAll("time[data-local]")) {
    const t = new Date(el.getAttribute("datetime"));
    if (isNaN(t)) continue;
    const opts = {day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short"};
    if (/:\d\d:\d\d UTC$/.test(el.textContent)) opts.second = "2-digit";
    const p = {};
    for (const part of new Intl.DateTimeFormat("en-US", opts).formatToParts(t)) p[part.type] = part.value;
    el.title = el.textContent;
    el.textContent = p.day + " " + p.month + " " + p.year + ", " + p.hour + ":" + p.minute + (opts.second ? ":" + p.second : "") + " " + p.timeZoneName;
  }
}

// Countdowns: <span data-countdown="seconds left when the page was
// made"> ticks every second, said as the server says it (web.countdown).
// It counts from the server's figure, not the browser's clock, which may be
// wrong; at zero the page is reloaded once to show what the start opened.
const countdowns = new Map(); // element -> when it started counting
let ticking = 0;
function startCountdown(el) {
  countdowns.set(el, performance.now());
  if (!ticking) ticking = setInterval(tick, 1000);
}
function tick() {
  for (const [el, began] of countdowns) {
    if (!el.isConnected) { countdowns.delete(el); continue; }
    const gone = Math.floor((performance.now() - began) / 1000);
    const left = Math.max(0, parseInt(el.dataset.countdown, 10) - gone);
    el.textContent = countdownText(left);
    if (left === 0 && !el.dataset.done) {
      el.dataset.done = "1";
      setTimeout(() => location.reload(), 1500);
    }
  }
}

function countdownText(s) {
  const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  if (d > 0) return d + " d " + h + " h";
  if (h > 0) return h + " h " + m + " min";
  if (m > 0) return m + " min " + (s % 60) + " s";
  return (s % 60) + " s";
}

enhance(document);

// On a phone a wide table scrolls in its own box (app.css); a box that
// scrolls takes the keyboard's focus, so that it can be scrolled without a
// pointer. Only boxes that do scroll get the tab stop, checked again when
// the window's size or the page (a live region) changes.
(() => {
  let queued = false;
  function mark() {
    queued = false;
    for (const t of document.querySelectorAll("table.board")) {
      if (t.scrollWidth > t.clientWidth + 1) {
        if (!t.hasAttribute("tabindex")) t.setAttribute("tabindex", "0");
      } else if (t.getAttribute("tabindex") === "0") {
        t.removeAttribute("tabindex");
      }
    }
  }
  function queue() {
    if (!queued) { queued = true; requestAnimationFrame(mark); }
  }
  addEventListener("resize", queue);
  new MutationObserver(queue).observe(document.body, { childList: true, subtree: true });
  queue();
})();
