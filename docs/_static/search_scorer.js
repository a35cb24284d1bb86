/*
 * The site search's scorer: html_search_scorer, which docs/sphinxext/search_ranking.py sets.
 *
 * Sphinx scores a result by where the query's words occur (title 15, text 5) and lists ties
 * alphabetically. This scorer adds two things, read from Sphinx's own search index:
 *
 * - Phrases. The place an index entry points at (a page, or an anchor in it), when the entry
 *   begins with the query's words (two words or more, or the whole entry), gets 50, plus up to
 *   50 for the share of the entry's words the query covers: the more of a message a reader
 *   typed, the surer the page. search_ranking.py
 *   writes these entries from jaxpurity's table of known errors: each exception name and
 *   message wording is the main entry of the page that explains it, and an entry of the error
 *   index; an entry that is not the page's main one counts 90%.
 *   An entry whose words the query holds, in any order and among others ("jit recompiles every
 *   call" for the query "my jit recompiles every call"), gets 40, plus up to 40 for the share of
 *   the query's words it covers. searched_for.py adds entries of this kind: the phrases readers
 *   search a page's symptom by (docs/searched_for.json).
 * - Title words. The share of the query's words that the page's own title holds, times
 *   Scorer.title: a gallery page's title says the symptom in a reader's words, so "global
 *   counter" finds "My global counter only moves when jit retraces" before a page that has
 *   those words in a section title or its text.
 *
 * - Directories. A page whose body is mostly pointers to other pages (the landing page, the section
 *   indexes, the API page, the error index: window.JAXPURITY_DIRECTORIES, which
 *   search_ranking.py gives the search page) loses DIRECTORY, so that it comes after every other
 *   page that matches: it lists the page that answers, and never outranks it. Where the query is
 *   the directory's own main index entry (an error that no one page explains), it keeps its score.
 *
 * Result snippets leave out a signature's private parameters (`_split_transpose=False`): the API
 * page shows them, and a reader cannot use them.
 *
 * It also leaves out of a query the words that no page holds, where others are left, so that
 * one unknown word (a library's name) does not empty the results; and where fewer than three
 * pages hold all the words left, it lists every page that holds any, by how much of the query
 * it holds (each word weighted by how few pages hold it).
 *
 * Sphinx puts this file into language_data.js, which loads after searchtools.js (basic and furo
 * themes alike): Scorer holds its defaults here, and Search, Stemmer, splitQuery and stopwords
 * are all defined by the time a query is scored.
 */

(() => {
  const PHRASE = 50; // a phrase hit ranks above any page that only has the query's words
  const NOT_MAIN = 0.9; // an entry that is not the page's main one (the error index's)
  const HELD = 40; // a query that holds an entry's words, below one that begins the entry
  const DIRECTORY = 1000; // more than any page's score: a directory comes after them all

  const words = (text) => splitQuery(text.toLowerCase());
  // The query's words as the search matches them: stemmed, without stop words or numbers.
  const stems = (text) => {
    const stemmer = new Stemmer();
    return words(text)
      .filter((word) => !stopwords.has(word) && !/^\d+$/.test(word))
      .map((word) => stemmer.stemWord(word));
  };
  const startsWith = (entry, query) =>
    query.length <= entry.length && query.every((word, i) => entry[i] === word);

  // What one query needs, worked out once: the phrase score of each file, the query's stems.
  let cached = { query: null, index: null };
  const forQuery = () => {
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const index = Search._index;
    if (cached.query === query && cached.index === index) return cached;
    const asked = words(query);
    const askedStems = new Set(stems(query));
    const phrase = new Map(); // "file number#anchor" -> best phrase score
    const own = new Set(); // files whose main index entry the query hit
    for (const [entry, places] of Object.entries(index.indexentries)) {
      const entryWords = words(entry);
      const whole = asked.length === entryWords.length;
      let score = 0;
      if (asked.length && startsWith(entryWords, asked) && (asked.length >= 2 || whole)) {
        score = PHRASE + (PHRASE * asked.length) / entryWords.length;
      } else {
        // The query holds the entry: every word of it, in any order, among other words.
        const entryStems = new Set(stems(entry));
        const held = [...entryStems].every((stem) => askedStems.has(stem));
        if (entryStems.size && held) score = HELD + (HELD * entryStems.size) / askedStems.size;
      }
      if (!score) continue;
      for (const [file, id, main] of places) {
        const place = id ? `${file}#${id}` : `${file}`;
        const scored = main ? score : NOT_MAIN * score;
        phrase.set(place, Math.max(phrase.get(place) || 0, scored));
        if (main) own.add(file);
      }
    }
    const file = new Map(index.docnames.map((docname, i) => [docname, i]));
    const directories = new Set(
      (window.JAXPURITY_DIRECTORIES || []).map((docname) => file.get(docname)),
    );
    cached = { query, index, phrase, own, directories, stems: new Set(stems(query)), file };
    return cached;
  };

  // The pages that hold a word as Sphinx's search finds it: the word itself, or for a word of
  // three letters or more, an indexed word that holds it; in the text or in a title.
  const filesOf = (index, word) => {
    const found = new Set();
    for (const table of [index.terms, index.titleterms]) {
      for (const [w, files] of Object.entries(table)) {
        if (w === word || (word.length > 2 && w.includes(word))) {
          (Array.isArray(files) ? files : [files]).forEach((f) => found.add(f));
        }
      }
    }
    return found;
  };

  // A query word that no page holds (a project's name, "Sinkhorn", "arctan2") would leave the
  // query without any result, since a page must hold every word: leave such words out, as long
  // as one word of the query is left. A query that finds anything as typed is searched as typed.
  const parseQuery = Search._parseQuery;
  Search._parseQuery = (query) => {
    const parsed = parseQuery(query);
    const [, searchTerms] = parsed;
    const index = Search._index;
    if (!index) return parsed;
    const kept = [...searchTerms].filter((word) => filesOf(index, word).size > 0);
    if (kept.length && kept.length < searchTerms.size) {
      searchTerms.clear();
      for (const word of kept) searchTerms.add(word);
    }
    return parsed;
  };

  // Sphinx lists only the pages that hold every word of the query. A question in a user's
  // words ("tracking function compilation") often has a word that only pages about something
  // else hold, and then finds those, or nothing. Where fewer than FEW pages hold every word,
  // every page that holds any is listed, by how much of the query it holds, each word weighted
  // by how rare it is among the pages (a word every page holds, "jax", counts little): the
  // pages that hold every word still come first among pages alike otherwise, and a page's
  // title (Scorer.score) decides among the rest.
  const FEW = 3;
  const COVERED = 10; // the score of a page that holds every word, in Sphinx's units
  const performTermsSearch = Search.performTermsSearch;
  Search.performTermsSearch = (searchTerms, excludedTerms) => {
    const results = performTermsSearch(searchTerms, excludedTerms);
    if (results.length >= FEW || searchTerms.size < 2) return results;
    return anyTermsSearch(searchTerms, excludedTerms);
  };
  const anyTermsSearch = (searchTerms, excludedTerms) => {
    const index = Search._index;
    const pages = index.docnames.length;
    const weights = new Map();
    const held = new Map();
    for (const word of searchTerms) {
      held.set(word, filesOf(index, word));
      weights.set(word, Math.log((pages + 1) / (held.get(word).size + 0.5)));
    }
    const total = [...weights.values()].reduce((a, b) => a + b, 0) || 1;
    const excluded = new Set([...excludedTerms].flatMap((w) => [...filesOf(index, w)]));
    const scores = new Map();
    for (const [word, files] of held) {
      for (const file of files) {
        if (!excluded.has(file)) {
          scores.set(file, (scores.get(file) || 0) + (COVERED * weights.get(word)) / total);
        }
      }
    }
    return [...scores].map(([file, score]) => [
      index.docnames[file],
      index.titles[file],
      "",
      null,
      score,
      index.filenames[file],
      SearchResultKind.text,
    ]);
  };

  Scorer.score = (result) => {
    const [docname, , anchor, , score] = result;
    const { index, phrase, own, directories, stems: asked, file: fileOf } = forQuery();
    const file = fileOf.get(docname);
    if (file === undefined || asked.size === 0) return score;
    const title = new Set(stems(index.titles[file]));
    const titled = [...asked].filter((stem) => title.has(stem)).length / asked.size;
    const place = `${file}${anchor}`; // a result's anchor is "" or "#id"
    const scored = Math.max(score, phrase.get(place) || 0) + Scorer.title * titled;
    return directories.has(file) && !own.has(file) ? scored - DIRECTORY : scored;
  };

  // A private parameter in a signature, with its default: ", _split_transpose=False".
  const PRIVATE = /,?\s*\b_[A-Za-z]\w*\s*=\s*[^,)\s]+/g;
  const htmlToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) =>
    htmlToText(htmlString, anchor).replace(PRIVATE, "");
})();
