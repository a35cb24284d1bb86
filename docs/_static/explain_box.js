/* The paste box: jaxpurity.explain in the browser, for pasted text.
 *
 * A port of jaxpurity/explainer/_pasted.py (read_error, for text) and
 * jaxpurity/explainer/_explain.py (the matcher); where a function here is named otherwise,
 * a comment names the Python one. The knowledge is window.JAXPURITY_KNOWLEDGE, written at
 * build time from jaxpurity/explainer/known_errors/ (KNOWN_ERRORS, in the matcher's order;
 * docs/sphinxext/explain_box.py), so the box and explain() use one table;
 * tests/e2e/test_site.py checks that both give the same page for every real error of the
 * corpora, and for live tracebacks of what only the frames tell apart. Keep the two in step:
 * a change to the Python matcher comes here too.
 */
(function () {
  "use strict";

  const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;
  const LINE_PREFIX = /^(?:E[ \t]+|#+[ \t]?|>[ \t]?|[│┃║|][ \t]?)/;
  const BORDERS = "│┃║";
  const CHAIN = /The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:|Traceback \(most recent call last\)/g;
  const CHAIN_WHOLE = new RegExp("^(?:" + CHAIN.source + ")$");
  const NAME_END = /(?:Error|Exception)(?=:|[ \t]*$)/gm;
  const NAME_CHAR = /[A-Za-z0-9_.]/;
  const IPYTHON_HEADER = /^[ \t]*([A-Z]\w{0,99})[ \t]+Traceback \(most recent call last\)/;
  const JAX_NAME = /jax(?:\._src)?\.(?:errors|core)\.([A-Z]\w{0,99})/g;
  const JAX_ERROR_WORD = /\b(ConcretizationTypeError|Tracer(?:Array|Bool|Integer)ConversionError|UnexpectedTracerError|NonConcreteBooleanIndexError|KeyReuseError)\b/g;
  const JAX_MACHINERY = /(?:^|[/\\])jax[/\\](?:_src[/\\])?(?:core|errors|traceback_util|source_info_util)\.py$/;
  const FRAME = /^[ \t]*File "([^"\n]{1,1000})", line \d+, in (\S{1,200})[ \t]*(?:\n([ \t]+\S[^\n]{0,1000}))?/gm;
  // _explain.py's _JAX_INTERNAL_PATH.
  const JAX_SOURCE = /(?:^|[/\\])jax[/\\]_src[/\\]/;
  const IPYTHON_FRAME = /^(?:File \[?(?<path8>[^\n\]]{1,1000}?):\d{1,7}\]?(?:\([^)\n]{0,1000}\))?, in (?<name8>[\w.<>]{1,200})\(|(?<path>(?:[A-Za-z]:)?[/\\~<][^\n]{0,999}?) in (?<name>[\w.<>]{1,200})(?:\(|$))/gm;
  const IPYTHON_RAN = /^-{1,8}> ?\d{1,7} ?([^\n]{0,1000})/gm;
  const MAX_BLOCKS = 16;

  const squeeze = (text) => text.replace(/\s+/g, "");
  const spaced = (text) => text.split(/\s+/).filter(Boolean).join(" ");
  const basename = (path) => path.split(/[/\\]/).pop();
  const regexCache = new Map();
  const regex = (pattern) => {
    if (!regexCache.has(pattern)) regexCache.set(pattern, new RegExp(pattern));
    return regexCache.get(pattern);
  };

  // Python's line.rstrip(" \t"). Not line.replace(/[ \t]+$/, ""): that tries again from every
  // blank of a run that a word ends, so one line of 200,000 spaces and a word took 29 s.
  function trimEnd(line) {
    let end = line.length;
    while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) end -= 1;
    return line.slice(0, end);
  }

  function cleanLine(line) {
    const stripped = line.replace(/^[ \t]+/, "");
    const prefix = LINE_PREFIX.exec(stripped);
    if (prefix) line = stripped.slice(prefix[0].length);
    const trimmed = trimEnd(line);
    return trimmed && BORDERS.includes(trimmed.slice(-1)) ? trimmed.slice(0, -1) : line;
  }

  function clean(text) {
    text = text.replace(/\r\n/g, "\n").replace(/\r/g, "\n").replace(ANSI, "");
    return text.split("\n").map(cleanLine).join("\n");
  }

  // _pasted.py's _class_names.
  function named(block) {
    const names = [];
    for (const end of block.matchAll(NAME_END)) {
      let start = end.index;
      const limit = Math.max(0, start - 200);
      while (start > limit && NAME_CHAR.test(block[start - 1])) start -= 1;
      const name = block.slice(start, end.index + end[0].length).split(".").pop();
      const upper = name && name[0] >= "A" && name[0] <= "Z";
      if (upper && (start === 0 || !NAME_CHAR.test(block[start - 1]))) names.push(name);
    }
    return names;
  }

  function textBlock(block) {
    const header = IPYTHON_HEADER.exec(block);
    let names = header ? [header[1]] : [];
    names = names.concat(named(block).reverse());
    for (const m of block.matchAll(JAX_NAME)) names.push(m[1]);
    for (const m of block.matchAll(JAX_ERROR_WORD)) names.push(m[1]);
    names = [...new Set(names.filter((n) => n.endsWith("Error") || n.endsWith("Exception")))];
    let frames = null;
    let raised = null;
    const code = [];
    if (block.slice(0, 300).includes("Traceback (most recent call last)")) {
      let lines = [...block.matchAll(FRAME)].map((m) => [m[1], m[2], m[3] ? m[3].trim() : ""]);
      if (!lines.length) lines = ipythonFrames(block);
      frames = lines.map(([path, name]) => [path, name]);
      for (const [path, name, line] of lines) {
        if (line) code.push(line);
        // The code that raised: the innermost frame outside JAX's error machinery.
        if (!JAX_MACHINERY.test(path)) raised = `${path} in ${name}` + (line ? `\n${line}` : "");
      }
    }
    const text = spaced(block);
    return { names, text, squeezed: squeeze(text), frames, code, raised };
  }

  // IPython's and Jupyter's frames, each with the line marked as run ("-->").
  function ipythonFrames(block) {
    const headers = [...block.matchAll(IPYTHON_FRAME)];
    const ran = [...block.matchAll(IPYTHON_RAN)];
    const lines = [];
    let r = 0;
    headers.forEach((header, i) => {
      const end = i + 1 < headers.length ? headers[i + 1].index : block.length;
      const headerEnd = header.index + header[0].length;
      while (r < ran.length && ran[r].index < headerEnd) r += 1;
      const line = r < ran.length && ran[r].index < end ? ran[r][1].trim() : "";
      const g = header.groups;
      // IPython 8 qualifies the name (Tracer.__bool__); Python's tracebacks name it alone.
      lines.push([g.path8 || g.path, (g.name8 || g.name).split(".").pop(), line]);
    });
    return lines;
  }

  // _pasted.py's _JAX_FRAMES_NOTE_LINE: JAX's note that it hid its own frames, which Python
  // 3.10 chains as the cause of the error JAX raises, is no error of the chain.
  const FRAMES_NOTE = /^(?:jax\.errors\.)?SimplifiedTraceback:/;
  const framesNote = (block) => block.split("\n").some((line) => FRAMES_NOTE.test(line.trimStart()));

  function readError(text) {
    const cleaned = clean(text);
    const starts = [0];
    // As in _pasted.py, the search for the start of a match's line goes back to the previous
    // match only (an unbounded lastIndexOf went back to the text's last newline every time:
    // n * n steps for traceback headers on one line).
    let line = 0;
    let searched = 0;
    for (const m of cleaned.matchAll(CHAIN)) {
      const newline = cleaned.slice(searched, m.index).lastIndexOf("\n");
      if (newline >= 0) line = searched + newline + 1;
      searched = m.index;
      starts.push(Math.max(starts[starts.length - 1], line));
    }
    const blocks = [];
    for (let i = 0; i < starts.length; i++) {
      const block = cleaned.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined);
      const stripped = block.trim();
      if (stripped && !CHAIN_WHOLE.test(stripped) && !framesNote(block)) blocks.push(textBlock(block));
    }
    return blocks.reverse().filter((b) => b.text);
  }

  // _explain.py's _call_of: a call of the function `name` (`name(`, not `obj.name(`).
  const callOf = (name) => regex("(?<![\\w.])" + name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "\\(");

  // _explain.py's _called_back: the function that `when` names in its group `called` (if any)
  // is called in a line the traceback shows, and is not running.
  const calledBack = (found, block) => {
    const name = found.groups?.called;
    if (name === undefined) return true;
    if (block.frames === null || block.frames.some((f) => f[1] === name)) return false;
    return block.code.some((line) => callOf(name).test(line));
  };

  function make(knowledge) {
    const distinctive = new Set(knowledge.distinctive);
    const has = (wording, block) => {
      if (wording.anchor && !block.squeezed.includes(wording.anchor)) return false;
      return wording.regex ? regex(wording.text).test(block.text) : true;
    };
    const holds = (known, block) => {
      if (known.no_error && block.names.length) return false;
      if (known.when !== null) {
        const found = regex(known.when).exec(block.text);
        if (!found || !calledBack(found, block)) return false;
      }
      if (known.raised_in !== null && (block.raised === null || !regex(known.raised_in).test(block.raised)))
        return false;
      return known.unless === null || !regex(known.unless).test(block.text);
    };
    const worded = (known, block) =>
      known.wordings.length ? known.wordings.some((w) => has(w, block)) : known.when !== null;
    const match = (entries, block, needWording) => {
      for (const name of block.names) {
        if (!distinctive.has(name)) continue;
        for (const known of entries) {
          if (known.errors.includes(name) && holds(known, block)) {
            if (!needWording || worded(known, block)) return known;
          }
        }
      }
      for (const known of entries) {
        if (known.wordings.some((w) => has(w, block)) && holds(known, block)) return known;
      }
      return null;
    };
    // _explain.py's _outside_every_transformation: JAX's conversion of a tracer raised with no
    // transformation running (a grad or vmap tracer kept and converted after it returned). An
    // error that passes through jit, grad or vmap loses JAX's frames (or, with filtering off,
    // keeps the transformation's); here the only frames of JAX's are the machinery that raises.
    const outsideEveryTransformation = (block) => {
      if (block.frames === null) return false;
      const paths = block.frames.map((f) => f[0]).filter((path) => JAX_SOURCE.test(path));
      return paths.length > 0 && paths.every((path) => JAX_MACHINERY.test(path));
    };
    // _explain.py's _on_leaked_tracer. (A pasted traceback's frames have no first line, so
    // its test for an exception's frames has no counterpart here.)
    const leakedUse = (block) => {
      let traced = null;
      // A quick test: each wording read here names a Tracer or the tracing.
      if (block.squeezed.includes("Tracer") || block.squeezed.includes("tracing")) {
        if (regex(knowledge.dead_trace).test(block.text)) return true;
        traced = regex(knowledge.traced_function).exec(block.text);
      }
      if (!traced) return outsideEveryTransformation(block);
      if (block.frames === null || JAX_SOURCE.test(traced.groups.file)) return false;
      const file = basename(traced.groups.file);
      const name = traced.groups.name;
      const sameFile = block.frames.filter((f) => basename(f[0]) === file);
      if (!sameFile.length || sameFile.some((f) => f[1] === name)) return false;
      return name.startsWith("<") || !block.code.some((line) => callOf(name).test(line));
    };
    const aboutLeaks = knowledge.entries.filter((k) => k.leaked);
    const others = knowledge.entries.filter((k) => !k.leaked);
    // _explain.py's _error_name.
    const errorName = (block, known) => {
      for (const name of block.names) if (known.errors.includes(name)) return name;
      if (block.names.length && !known.no_error) return block.names[0];
      return known.errors.length ? known.errors[0] : "";
    };
    const lookup = (block, needWording, leaked) => {
      const known = leaked ? match(aboutLeaks, block, needWording) : null;
      const usual = match(others, block, needWording);
      if (known === null) return usual === null ? null : [errorName(block, usual), usual];
      if (block.names.length) return [block.names[0], known];
      return [(usual || known).errors[0], known];
    };
    return function explain(text) {
      const chain = readError(text).slice(0, MAX_BLOCKS);
      const leaked = chain.map(leakedUse);
      for (const needWording of [true, false]) {
        for (let i = 0; i < chain.length; i++) {
          const found = lookup(chain[i], needWording, leaked[i]);
          if (found) return { recognised: true, error: found[0], ...found[1] };
        }
      }
      return { recognised: false, error: chain.length && chain[0].names[0] || "" };
    };
  }

  function siteRoot() {
    const root = document.documentElement.dataset.content_root;
    if (root !== undefined) return root;
    const script = document.querySelector('script[src$="explain_box.js"]');
    return script ? script.getAttribute("src").replace(/_static\/explain_box\.js.*$/, "") : "";
  }

  // The page's language: its edition's words, by their English (explain_box.py).
  const say = (text) => (window.JAXPURITY_KNOWLEDGE?.text ?? {})[text] ?? text;

  // The knowledge's text marks code with backticks (`carry, y = body(carry, x)`): show it as
  // code, without them.
  function rendered(text) {
    return text.split("`").map((part, i) => {
      if (i % 2 === 0) return part;
      const code = document.createElement("code");
      code.textContent = part;
      return code;
    });
  }

  // An answer as jaxpurity.explain writes it: its labels, its colon ("Error: ", "错误："),
  // and its sentence for an error it does not know, with the error's name in the
  // language's brackets (explain_box.py reads them from the package).
  function render(result, output) {
    const knowledge = window.JAXPURITY_KNOWLEDGE;
    output.replaceChildren();
    const paragraph = (label, text) => {
      const p = document.createElement("p");
      const strong = document.createElement("strong");
      strong.textContent = knowledge.labels[label] + knowledge.colon;
      p.append(strong, ...rendered(text));
      output.append(p);
      return p;
    };
    // A link to a page of the site, named by its title (by its path where the build gave none).
    const link = (page, className, text) => {
      const a = document.createElement("a");
      a.href = siteRoot() + page;
      a.className = className;
      a.textContent = text ?? knowledge.titles?.[page] ?? page;
      return a;
    };
    if (!result.recognised) {
      const { named, unnamed } = knowledge.not_recognised;
      const text = result.error ? named.replace("{error}", result.error) : unnamed;
      // "... The {index} lists every error ...", with {index} a link to the error index.
      const [before, after] = text.split("{index}");
      const p = paragraph("Not recognised", before);
      p.append(link(knowledge.error_index, "explain-box-index", knowledge.index_text), after);
      return;
    }
    paragraph("Error", result.error);
    paragraph("Scenario", result.scenario);
    paragraph("Cause", result.cause);
    paragraph("Fix", result.fix);
    paragraph("Read more", "").append(link(result.page, "explain-box-link"));
    // The pages for the other causes the same text can have, where it does not say which.
    for (const page of result.see_also) {
      paragraph("See also", "").append(link(page, "explain-box-also"));
    }
  }

  const explain = window.JAXPURITY_KNOWLEDGE ? make(window.JAXPURITY_KNOWLEDGE) : null;
  window.jaxpurityExplain = explain; // for the end-to-end tests and the curious

  // The box's text area where a link on this page leads: the target's own section holds the
  // box (index.html's "Paste it into the box", #got-an-error), not a section around it.
  function boxAt(hash) {
    let id;
    try {
      id = decodeURIComponent(hash.slice(1));
    } catch {
      return null;
    }
    const section = id ? document.getElementById(id)?.closest("section") : null;
    if (!section) return null;
    const texts = section.querySelectorAll(".explain-box-text");
    return [...texts].find((text) => text.closest("section") === section) ?? null;
  }

  // A link to the box on its page puts the cursor in it, so that a keyboard user can paste at
  // once: the browser scrolls to the link's target, and leaves the focus on the link. (Not a
  // page opened at the box: the focus is the reader's to move there, and Chromium takes it
  // back when it scrolls to the address's fragment.)
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href*='#']") : null;
    if (!link || link.origin !== location.origin || link.pathname !== location.pathname) return;
    const text = boxAt(link.hash);
    // After the browser has followed the link; focus() scrolls only if the box is not in view.
    if (text) setTimeout(() => text.focus(), 0);
  });

  document.addEventListener("DOMContentLoaded", () => {
    for (const box of document.querySelectorAll(".explain-box")) {
      const text = box.querySelector(".explain-box-text");
      const output = box.querySelector(".explain-box-result");
      const run = () => {
        if (!explain) {
          output.textContent = say("The knowledge of jaxpurity.explain did not load.");
        } else if (text.value.trim()) {
          render(explain(text.value), output);
        } else {
          output.textContent = say("Paste an error first.");
        }
      };
      box.querySelector(".explain-box-button").addEventListener("click", run);
      text.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) run();
      });
    }
  });
})();
