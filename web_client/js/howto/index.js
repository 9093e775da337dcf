/** The how-to-play page in each language there is, and the one to show.
A new language is a file beside en.js with the same names, added here. */

import en from './en.js';

export const PAGES = { en };

/** The page in the first of `languages` (the browser's, by default) we have, else English. */
export function howtoPage(languages = navigator.languages || [navigator.language || 'en']) {
  for (const tag of languages) {
    const page = PAGES[String(tag).toLowerCase()] || PAGES[String(tag).slice(0, 2).toLowerCase()];
    if (page) return page;
  }
  return en;
}
