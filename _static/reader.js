// For readers who listen or use the keyboard: MathJax's speech that works the
// first time it is switched on, equations out of the Tab order unless the
// reader puts them in, focus kept where the reader was, the colour mode and
// "Copied!" announced. Jupyter Book adds every .js under _static to every page;
// this one loads after Sphinx's MathJax settings and before MathJax itself.

// 1. MathJax. Its menu re-renders the page when Accessibility > Activate is
// chosen; the speech engine then loads its rules, and MathJax 3.2 signals the
// wait by throwing a "retry" that the menu does not catch: the re-render stops
// half way and every equation is gone. The menu's re-render is wrapped in
// MathJax's own retry handler (mathjax.handleRetriesFor), which waits for the
// component and renders again.
// Only on a page with equations: Sphinx writes MathJax's settings (and loads
// MathJax) on those pages alone, before this file.
if (window.MathJax) window.MathJax.startup = Object.assign(window.MathJax.startup || {}, {
  ready() {
    MathJax.startup.defaultReady();
    MathJax.startup.promise.then(() => {
      const menu = MathJax.startup.document.menu;
      if (!menu || !MathJax._.mathjax) return;
      const handleRetries = MathJax._.mathjax.mathjax.handleRetriesFor;
      const rerender = menu.rerender.bind(menu);
      menu.rerender = (start) => {
        MathJax.startup.promise = MathJax.startup.promise
          .then(() => handleRetries(() => rerender(start)))
          .catch((err) => console.warn("MathJax could not render again:", err));
        return MathJax.startup.promise;
      };
      courseEquationsButton(menu);
    });
    MathJax.startup.promise.then(() => {
      courseScrollableEquations();
      window.addEventListener("resize", courseScrollableEquations);
    });
  },
});

// A display equation wider than the column scrolls sideways; with the
// equations out of the Tab order it could not be reached from the keyboard,
// so one that scrolls stays in the Tab order (and leaves it when it fits).
function courseScrollableEquations() {
  document.querySelectorAll('mjx-container[display="true"]').forEach((e) => {
    const scrolls = e.scrollWidth > e.clientWidth + 1;
    if (scrolls && e.getAttribute("tabindex") !== "0") {
      e.setAttribute("tabindex", "0");
      e.dataset.courseScrolls = "1";
    } else if (!scrolls && e.dataset.courseScrolls) {
      delete e.dataset.courseScrolls;
      const inOrder = window.MathJax && MathJax.startup.document.menu
        && MathJax.startup.document.menu.menu.pool.lookup("inTabOrder").getValue();
      e.setAttribute("tabindex", inOrder ? "0" : "-1");
    }
  });
}

// 2. Equations are out of the Tab order (_config.yml: inTabOrder false), so
// Tab goes from control to control. A button at the top of a page with
// equations puts them back in, for a reader who wants MathJax's menu and
// explorer from the keyboard; MathJax keeps the choice (its menu settings).
function courseEquationsButton(menu) {
  const article = document.querySelector("main article, .bd-article");
  if (!article || !document.querySelector("mjx-container")) return;
  const variable = menu.menu.pool.lookup("inTabOrder");
  // The menu's store (mathjax's context-menu 0.6) checks its old flag before
  // setting the new one, so "Include in Tab Order" changed nothing on the page:
  // the equations' tabindex is set here, for the menu item and this button alike.
  const store = menu.menu.store;
  const inTaborder = store.inTaborder.bind(store);
  store.inTaborder = (flag) => {
    inTaborder(flag);
    document.querySelectorAll("mjx-container").forEach((e) => e.setAttribute("tabindex", flag ? "0" : "-1"));
    document.querySelectorAll("mjx-container[data-course-scrolls]").forEach((e) => { delete e.dataset.courseScrolls; });
    courseScrollableEquations();
  };
  const box = document.createElement("p");
  box.className = "course-equation-keys";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn btn-sm course-equation-tab";
  const show = () => {
    const on = !!variable.getValue();
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = "Equations in the Tab order (for MathJax's speech and explorer)";
  };
  button.addEventListener("click", () => {
    variable.setValue(!variable.getValue());
    show();
  });
  show();
  box.appendChild(button);
  article.insertBefore(box, article.firstChild);
}

// 3. A polite live region: what a sighted reader sees change briefly
// ("Copied!", the colour mode) is also spoken.
function courseAnnounce(text) {
  let region = document.getElementById("course-announce");
  if (!region) {
    region = document.createElement("div");
    region.id = "course-announce";
    region.className = "visually-hidden";
    region.setAttribute("aria-live", "polite");
    region.setAttribute("role", "status");
    document.body.appendChild(region);
  }
  region.textContent = "";
  window.setTimeout(() => { region.textContent = text; }, 50);
}

document.addEventListener("DOMContentLoaded", () => {
  courseAnnounce("");

  // A second skip link, beside the theme's "Skip to main content": straight to
  // the first interactive figure's control (a slider or an animation player),
  // which otherwise comes after every link, code toggle and copy button above it.
  const control = document.querySelector(".bd-article input[type=range], .bd-article .anim-buttons button");
  const skip = document.querySelector("#pst-skip-link a, a.skip-link");
  if (control && skip) {
    const link = document.createElement("a");
    link.className = "skip-link course-skip-controls";
    const figure = control.closest("figure") || control;
    if (!figure.id) figure.id = "course-first-control";
    link.href = "#" + figure.id;
    link.textContent = "Skip to the first interactive figure";
    link.addEventListener("click", (event) => {
      event.preventDefault();
      figure.scrollIntoView();
      control.focus();
    });
    skip.after(" ", link);
  }

  // sphinx-copybutton shows "Copied!" as a tooltip (data-tooltip) only.
  new MutationObserver((changes) => {
    for (const change of changes) {
      const tip = change.target.getAttribute("data-tooltip") || "";
      if (change.target.classList.contains("copybtn") && tip && tip !== change.oldValue && !/^copy( to clipboard)?$/i.test(tip)) {
        courseAnnounce(tip);
      }
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["data-tooltip"], attributeOldValue: true});

  // The colour-mode button says which mode is on, and keeps the focus.
  const modeNames = {light: "light", dark: "dark", auto: "automatic (the system's)"};
  const modeButtons = () => document.querySelectorAll(".theme-switch-button");
  const showMode = (announce) => {
    const mode = document.documentElement.dataset.mode || "auto";
    modeButtons().forEach((b) => b.setAttribute("aria-label", `Color mode: ${modeNames[mode] || mode}`));
    if (announce) courseAnnounce(`Color mode: ${modeNames[mode] || mode}`);
  };
  showMode(false);
  new MutationObserver(() => showMode(true))
    .observe(document.documentElement, {attributes: true, attributeFilter: ["data-mode"]});

  // Buttons the theme re-renders or that close a drawer leave the focus on
  // the body: give it back to the button the reader pressed.
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".theme-switch-button, .primary-toggle, .secondary-toggle, .sidebar-toggle");
    if (!button) return;
    window.setTimeout(() => {
      if (document.activeElement && document.activeElement !== document.body) return;
      const visible = Array.from(document.querySelectorAll(".theme-switch-button, .primary-toggle, .secondary-toggle"))
        .filter((b) => b.offsetParent !== null && b.classList.contains(button.classList[0]) === true);
      (button.offsetParent !== null ? button : visible[0] || button).focus();
    }, 0);
  });
  // The phone drawer (a <dialog>) closed with Escape or its backdrop: back to its toggle.
  document.querySelectorAll("dialog").forEach((dialog) => dialog.addEventListener("close", () => {
    const toggle = Array.from(document.querySelectorAll(".primary-toggle, .sidebar-toggle"))
      .find((b) => b.offsetParent !== null);
    if (toggle && (document.activeElement === document.body || !document.activeElement)) toggle.focus();
  }));
});
