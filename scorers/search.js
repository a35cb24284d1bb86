// Score the built site's search on questions in users' words, in Node, as the browser ranks.
//
//     node scorers/search.js build/html tests/data/search_questions_dev.json
//     node scorers/search.js build/html/zh_CN tests/data/search_phrasings.json --field zh_CN
//     node scorers/search.js build/html tests/data/search_questions_dev.json --misses
//
// Each table is a JSON file whose "questions" (or "phrasings") rows have a "query" and a
// "topic" (jaxpurity._pages); a row scores when the topic's page is the first result (and how
// many put it in the first three is shown beside). It runs
// the search page's own scripts (searchtools.js, language_data.js with search_scorer.js, the
// edition's splitter, searchweights.js, the directories the page names) on searchindex.js, so
// it ranks as the browser does, in a second instead of the e2e test's minutes; the e2e test
// (tests/e2e/test_search_phrasings.py) stays the judge. --misses prints each question that
// does not put its page first, with where it is and what came first: never use it on a
// held-out table, whose questions must not shape the ranking.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const [site, ...rest] = process.argv.slice(2);
const misses = rest.includes("--misses");
const field = rest.includes("--field") ? rest[rest.indexOf("--field") + 1] : "query";
const tables = rest.filter((a, i) => !a.startsWith("--") && rest[i - 1] !== "--field");
if (!site || !tables.length) {
  console.error("usage: node scorers/search.js SITE TABLE.json... [--field F] [--misses]");
  process.exit(2);
}

// The search page's scripts that rank, in its order, in a context with just enough of a
// browser for them: Sphinx's searchtools.js writes its progress to the page, which is absent.
const page = fs.readFileSync(path.join(site, "search.html"), "utf8");
const element = () => ({ appendChild: (x) => x, classList: { add() {} }, setAttribute() {} });
const context = {
  console,
  URLSearchParams,
  location: { search: "" },
  localStorage: { setItem() {}, getItem: () => null },
  document: { getElementById: () => null, createElement: element, addEventListener() {} },
  _ready: () => {},
  _: (text) => text,
  SPHINX_HIGHLIGHT_ENABLED: false,
};
context.window = context;
vm.createContext(context);
const inline = page.match(/window\.JAXPURITY_DIRECTORIES = [^<]*/);
if (inline) vm.runInContext(inline[0], context);
const ranking = /(documentation_options|chinese_search|searchweights|searchtools|language_data)\.js$/;
for (const [, src] of page.matchAll(/<script src="([^"?]+)/g)) {
  if (!ranking.test(src)) continue;
  // Top-level const and let stay in a script's own scope; the next script needs them.
  const code = fs.readFileSync(path.join(site, src), "utf8").replace(/^(const|let) /gm, "var ");
  vm.runInContext(code, context, { filename: src });
}
vm.runInContext(fs.readFileSync(path.join(site, "searchindex.js"), "utf8"), context);

// The documents the search lists for a query, best first (searchtools.js shows its list from
// the end).
const search = (query) => {
  context.location.search = `?q=${encodeURIComponent(query)}`;
  const parsed = context.Search._parseQuery(query);
  return context.Search._performSearch(...parsed).reverse().map((result) => result[0]);
};
const docnames = context.Search._index.docnames;
const pageOf = (topic) => docnames.find((doc) => doc.split("/").pop() === topic);

for (const table of tables) {
  const data = JSON.parse(fs.readFileSync(table, "utf8"));
  const rows = (data.questions || data.phrasings).filter((row) => row[field]);
  let first = 0;
  let three = 0;
  for (const row of rows) {
    const expected = pageOf(row.topic);
    const found = search(row[field]);
    const rank = found.indexOf(expected) + 1;
    if (rank === 1) first += 1;
    if (rank >= 1 && rank <= 3) three += 1;
    else if (misses) {
      console.log(`  ${row[field]}: ${row.topic} at ${rank || "absent"}, first ${found[0]}`);
    }
  }
  const name = path.basename(table);
  console.log(`${name}: ${first}/${rows.length} put their page first, ${three} in the first three`);
}
