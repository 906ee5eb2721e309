// Search result snippets are cut from the pages' text, where an equation is
// still its TeX source ("\(\dot q\)"). Before Sphinx cuts a snippet, every
// equation in the page is replaced by a plain-text reading of it
// ("q̇", "Mᵀ", "θ₁"), and long display equations by "[equation]".
// This file loads before Sphinx's searchtools.js: the patch waits for the page.
document.addEventListener("DOMContentLoaded", function () {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const GREEK = {alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", theta: "θ",
    kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ",
    varphi: "φ", psi: "ψ", omega: "ω", Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Phi: "Φ", Psi: "Ψ",
    Omega: "Ω", partial: "∂", nabla: "∇", cdot: "·", times: "×", le: "≤", leq: "≤", ge: "≥", geq: "≥",
    ne: "≠", neq: "≠", approx: "≈", to: "→", infty: "∞", sum: "Σ", int: "∫", dots: "…", ldots: "…"};
  const SUB = {"0": "₀", "1": "₁", "2": "₂", "3": "₃", "4": "₄", "5": "₅", "6": "₆", "7": "₇", "8": "₈",
    "9": "₉", "i": "ᵢ", "j": "ⱼ", "k": "ₖ", "n": "ₙ", "t": "ₜ"};
  function plain(tex) {
    let s = tex.replace(/^\\\(|\\\)$|^\\\[|\\\]$/g, "").trim();
    s = s.replace(/\\(?:mathsf|mathrm)\{?T\}?/g, "ᵀ").replace(/\^\{?ᵀ\}?/g, "ᵀ");
    s = s.replace(/\\ddot\{?(\\?[A-Za-z]+)\}?/g, (m, x) => plain(x) + "\u0308");
    s = s.replace(/\\dot\{?(\\?[A-Za-z]+)\}?/g, (m, x) => plain(x) + "\u0307");
    s = s.replace(/\\[,;:! ]/g, " ");
    s = s.replace(/\\([A-Za-z]+)/g, (m, w) => GREEK[w] !== undefined ? GREEK[w] : "");
    s = s.replace(/_\{?([0-9ijknt])\}?/g, (m, c) => SUB[c]);
    return s.replace(/[{}]/g, "").replace(/\s+/g, " ").trim();
  }
  const original = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(".math").forEach((el) => {
      const display = el.tagName === "DIV" || el.classList.contains("notranslate") && el.textContent.length > 60;
      el.textContent = display ? " [equation] " : plain(el.textContent);
    });
    return original(doc.documentElement.outerHTML, anchor);
  };
});
