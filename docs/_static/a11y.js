// A code block wider than its box scrolls sideways, and a keyboard can scroll it only when
// something in it takes the focus. The build (docs/sphinxext/accessibility.py) makes each code
// block that scrolls on a phone a Tab stop, named as a region; which blocks scroll depends on the
// width of the window, so this script fits those Tab stops to it, from a ResizeObserver: a block
// that scrolls and holds nothing focusable gets one, a block that no longer scrolls loses it.
"use strict";
(() => {
  // Named by its number among the highlighted blocks, as the build names it: each region's name
  // is its own.
  const label = (pre) => {
    const blocks = [...document.querySelectorAll("div > div.highlight > pre")];
    const number = blocks.indexOf(pre) + 1;
    // The Chinese edition's words are docs/sphinxext/editions.py's.
    return document.documentElement.lang.startsWith("zh")
      ? `代码块 ${number}，可滚动`
      : `Code block ${number}, scrolls`;
  };
  const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]:not([data-a11y-scrolls])";
  const ADDED = ["tabindex", "role", "aria-label", "data-a11y-scrolls"];

  const update = (pre) => {
    const scrolls =
      (pre.scrollWidth > pre.clientWidth || pre.scrollHeight > pre.clientHeight) &&
      !pre.querySelector(FOCUSABLE);
    if (scrolls === pre.hasAttribute("data-a11y-scrolls")) return;
    if (scrolls) {
      pre.setAttribute("tabindex", "0");
      pre.setAttribute("role", "region");
      pre.setAttribute("aria-label", label(pre));
      pre.setAttribute("data-a11y-scrolls", "");
    } else {
      for (const name of ADDED) pre.removeAttribute(name);
    }
  };

  const observer = new ResizeObserver((entries) => {
    for (const entry of entries) update(entry.target);
  });
  for (const pre of document.querySelectorAll("pre")) observer.observe(pre);
})();
