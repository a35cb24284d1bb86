/*
 * The site search's scorer: html_search_scorer, which docs/sphinxext/search_ranking.py sets.
 *
 * Sphinx scores a result by where the query's words occur (title 15, text 5) and lists ties
 * alphabetically. This scorer adds these, read from Sphinx's own search index:
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
 * - Words. Sphinx lists only the pages that hold every word of a query, and ranks a page that
 *   mentions a word once with the page about it. Here every page that holds any word is listed,
 *   ranked by BM25 on how often its prose holds each (search_weights.py counts them at build
 *   time, in _static/searchweights.js), a word of a section title counting more.
 * - Directories. A page whose body is mostly pointers to other pages (the landing page, the section
 *   indexes, the API page, the error index: window.JAXPURITY_DIRECTORIES, which
 *   search_ranking.py gives the search page) loses DIRECTORY, so that it comes after every other
 *   page that matches: it lists the page that answers, and never outranks it. Where the query is
 *   the directory's own main index entry (an error that no one page explains), it keeps its score.
 *
 * Result snippets leave out a signature's private parameters (`_split_transpose=False`): the API
 * page shows them, and a reader cannot use them.
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

  // How a page is ranked on the words of a query: BM25 (Robertson and Zaragoza, "The
  // Probabilistic Relevance Framework: BM25 and Beyond", 2009) over every page that holds any
  // word, on how often each page's prose holds each word (window.JAXPURITY_WEIGHTS, written
  // by search_weights.py; its code and captured output repeat words that happen to be
  // there). Sphinx's own search lists only the pages that hold every word, and ranks a page
  // that mentions a word once with the page about it: a question in a user's
  // words ("grad of fori_loop leads to cryptic error message") has a word that the page which
  // answers it lacks, and its other words are on most pages.
  const K1 = 3; // how soon more of one word stops counting
  const B = 0.5; // how much a long page's counts are discounted
  const TEXT = 30; // a page that holds every word as often as counts, in Sphinx's units
  const IN_HEADING = 4; // a word of a section title counts as this many more on its page
  const PARTIAL = 0.5; // an indexed word that holds a query's word ("argnums" for "argnum")

  let counted = { index: null };
  const counts = () => {
    const index = Search._index;
    if (counted.index === index) return counted;
    const table = window.JAXPURITY_WEIGHTS;
    const byTerm = new Map();
    for (const [term, pairs] of Object.entries(table.terms)) {
      const files = new Map();
      for (let i = 0; i < pairs.length; i += 2) files.set(pairs[i], pairs[i + 1]);
      byTerm.set(term, files);
    }
    const length = table.length;
    const average = length.reduce((a, b) => a + b, 0) / (length.length || 1);
    // How many of each file's titles (its own and its sections') hold each term.
    const headingTerms = index.docnames.map(() => new Map());
    for (const [title, places] of Object.entries(index.alltitles)) {
      const terms = new Set(stems(title));
      for (const [file] of places) {
        const held = headingTerms[file];
        for (const term of terms) held.set(term, (held.get(term) || 0) + 1);
      }
    }
    counted = { index, byTerm, length, average, headingTerms };
    return counted;
  };

  // The terms of a table (term -> files) that a query's word finds, as Sphinx's search finds
  // them: the word itself, or, where the table lacks it and it has three letters or more, the
  // terms that hold it. Each with its weight: 1, or PARTIAL.
  const matches = (table, word) => {
    if (Object.hasOwn(table, word)) return new Map([[word, 1]]);
    const terms = new Map();
    if (word.length > 2) {
      for (const term of Object.keys(table)) if (term.includes(word)) terms.set(term, PARTIAL);
    }
    return terms;
  };

  // How often each file holds a query's word in its prose: its count, or 1 where the index
  // lists the file and the table leaves it out (a word the page holds once, or only in code),
  // and IN_HEADING more for each of its titles that holds it.
  const frequencies = (index, word) => {
    const { byTerm, headingTerms } = counts();
    const tf = new Map();
    const add = (file, count) => tf.set(file, (tf.get(file) || 0) + count);
    for (const table of [index.terms, index.titleterms]) {
      for (const [term, weight] of matches(table, word)) {
        const files = Array.isArray(table[term]) ? table[term] : [table[term]];
        for (const file of files) {
          const heading = (headingTerms[file].get(term) || 0) * IN_HEADING;
          add(file, weight * ((byTerm.get(term)?.get(file) || 1) + heading));
        }
      }
    }
    return tf;
  };

  const performTermsSearch = Search.performTermsSearch;
  Search.performTermsSearch = (searchTerms, excludedTerms) => {
    if (!window.JAXPURITY_WEIGHTS) return performTermsSearch(searchTerms, excludedTerms);
    const index = Search._index;
    const { length, average } = counts();
    const pages = index.docnames.length;
    const excluded = new Set();
    for (const word of excludedTerms) frequencies(index, word).forEach((_, f) => excluded.add(f));
    const scores = new Map();
    let best = 0;
    for (const word of searchTerms) {
      const tf = frequencies(index, word);
      if (!tf.size) continue;
      const idf = Math.log(1 + (pages - tf.size + 0.5) / (tf.size + 0.5));
      best += idf * (K1 + 1);
      for (const [file, n] of tf) {
        const norm = K1 * (1 - B + (B * (length[file] || average)) / average);
        scores.set(file, (scores.get(file) || 0) + (idf * n * (K1 + 1)) / (n + norm));
      }
    }
    return [...scores]
      .filter(([file]) => !excluded.has(file))
      .map(([file, score]) => [
        index.docnames[file],
        index.titles[file],
        "",
        null,
        (TEXT * score) / best,
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
