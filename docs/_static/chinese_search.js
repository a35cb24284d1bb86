// Chinese words in a search query, for the Chinese edition (docs/sphinxext/editions.py adds this
// script there only). Sphinx indexes Chinese text as jieba splits it into words, but splits a
// query only at spaces and punctuation, which Chinese does not put between words: "缓冲区捐赠"
// would be one term that no page holds. Here each run of Chinese characters is split, longest
// first, into the words the index holds; characters that start no such word are left out, since
// a page must hold every term of the query.
"use strict";
var splitQuery = (query) => {
  const terms = query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu).filter((t) => t);
  // searchtools.js declares Search with const: a global, but not a property of window.
  const index = typeof Search === "undefined" ? null : Search._index;
  if (!index) return terms;
  const known = (word) => word in index.terms || word in index.titleterms;
  const LONGEST = 8;
  return terms.flatMap((term) => {
    if (!/\p{Script=Han}/u.test(term) || known(term)) return [term];
    const words = [];
    for (let i = 0; i < term.length; ) {
      let end = Math.min(term.length, i + LONGEST);
      while (end > i + 1 && !known(term.slice(i, end))) end--;
      if (known(term.slice(i, end))) words.push(term.slice(i, end));
      i = end;
    }
    return words.length ? words : [term];
  });
};
