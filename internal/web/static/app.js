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

// Flag forms: submit without a reload, through the public API (the session
// cookie authenticates it), and say plainly what happened. Without this
// script the form posts and the page answers the same.
document.addEventListener("submit", async (e) => {
  const form = e.target.closest("form[data-submit]");
  if (!form) return;
  e.preventDefault();
  const input = form.querySelector("input[name=flag]");
  const button = form.querySelector("button");
  let out = form.parentElement.querySelector(".flag-result");
  if (!out) {
    out = document.createElement("p");
    out.className = "flag-result alert";
    out.setAttribute("role", "status");
    form.after(out);
  }
  button.disabled = true;
  try {
    const path = new URL(form.action).pathname; // /challenges/{slug}/submit
    const r = await fetch("/api/public" + path, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({flag: input.value}),
    });
    const body = await r.json().catch(() => ({}));
    if (r.ok) {
      const badges = (body.result.newBadges || []).map((b) => b.icon + " " + b.title).join(", ");
      out.className = "flag-result alert notice";
      out.textContent = "Correct! +" + body.result.points + (body.result.points === 1 ? " point." : " points.") + (badges ? " New badges: " + badges + "." : "");
      const more = document.createElement("a");
      more.href = location.pathname;
      more.textContent = " Rate it and read the writeups.";
      out.append(more);
      form.remove();
      return;
    }
    out.className = "flag-result alert error";
    if (r.status === 429) {
      const wait = parseInt(r.headers.get("Retry-After"), 10);
      out.textContent = "Too many wrong flags: wait " + (wait > 0 ? waitText(wait) : "a little") + " before the next try.";
    } else if (r.status === 400 && body.error === "wrong flag") {
      out.textContent = "Wrong flag.";
    } else {
      out.textContent = body.error || "Something went wrong; try again.";
    }
  } catch {
    form.submit(); // no network answer: fall back to the plain form
  } finally {
    button.disabled = false;
  }
});

// waitText says a wait in seconds as the pages do (web.waitText).
function waitText(s) {
  if (s < 60) return s + " seconds";
  if (s < 120) return "a minute";
  return Math.ceil(s / 60) + " minutes";
}

// Times: a <time datetime data-local> written in UTC ("26 Nov 2026, 14:05
// UTC", web.readableTime) is said in the viewer's own time zone, which only
// the browser knows, in the same shape; the UTC text stays as its title.
for (const el of document.querySelectorAll("time[data-local]")) {
  const t = new Date(el.getAttribute("datetime"));
  if (isNaN(t)) continue;
  const opts = {day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short"};
  if (/:\d\d:\d\d UTC$/.test(el.textContent)) opts.second = "2-digit";
  const p = {};
  for (const part of new Intl.DateTimeFormat("en-US", opts).formatToParts(t)) p[part.type] = part.value;
  el.title = el.textContent;
  el.textContent = p.day + " " + p.month + " " + p.year + ", " + p.hour + ":" + p.minute + (opts.second ? ":" + p.second : "") + " " + p.timeZoneName;
}

// Countdowns: <span data-countdown="seconds left when the page was
// made"> ticks every second, said as the server says it (web.countdown).
// It counts from the server's figure, not the browser's clock, which may be
// wrong; at zero the page is reloaded once to show what the start opened.
const countdowns = document.querySelectorAll("[data-countdown]");
if (countdowns.length) {
  const began = performance.now();
  const tick = () => {
    const gone = Math.floor((performance.now() - began) / 1000);
    for (const el of countdowns) {
      const left = Math.max(0, parseInt(el.dataset.countdown, 10) - gone);
      el.textContent = countdownText(left);
      if (left === 0 && !el.dataset.done) {
        el.dataset.done = "1";
        setTimeout(() => location.reload(), 1500);
      }
    }
  };
  setInterval(tick, 1000);
}

function countdownText(s) {
  const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  if (d > 0) return d + " d " + h + " h";
  if (h > 0) return h + " h " + m + " min";
  if (m > 0) return m + " min " + (s % 60) + " s";
  return (s % 60) + " s";
}
