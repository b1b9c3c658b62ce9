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
