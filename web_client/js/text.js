/** Every text the client shows, in the page's language: `TEXT` is that
language's catalogue (i18n/en.js, i18n/es.js: one per language, the same
keys in each), `LANG` its code. Only that catalogue loads (the two are the
client's largest files): the language switch names the others from
its catalogue's `languages`.

The language is chosen once, as the page opens: the player's own choice
(kept in localStorage, storage.js), else the first of the browser's
languages that we have, else English. It stays for the page's life, so a
catalogue is a constant that every module may import; switching language
saves the choice and reloads the page (`switchLanguage`), which takes the
seat back as any reload does (docs/web_client.md, "Languages"). */

import * as storage from './storage.js';

/** Every catalogue (i18n/CODE.js), by its language's code. */
export const LANGUAGES = ['en', 'es'];

/** The language to use: `saved` if we have it, else the first of the
browser's `languages` ("es-ES", "es", "en-GB", …) we have, else English. */
export function pickLanguage(saved, languages) {
  if (LANGUAGES.includes(saved)) return saved;
  for (const tag of languages || []) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

export const LANG = pickLanguage(storage.language(),
  typeof navigator === 'undefined' ? [] : navigator.languages || [navigator.language]);
export const TEXT = (await import(`./i18n/${LANG}.js`)).default;

/** Use `lang` from now on (this tab and the next visits): the page opens again in it. */
export function switchLanguage(lang) {
  if (lang === LANG || !LANGUAGES.includes(lang)) return;
  storage.saveLanguage(lang);
  window.location.reload();
}

/** The player's sentence for a server's refusal `d` ({code, msg}): ours for
its reason code, the server's own words for a code this client does not know. */
export function reasonText(d) {
  // a code whose sentence depends on the command refused has one by both ("address_full_join")
  return TEXT.reasons[`${d.code}_${d.cmd}`] || TEXT.reasons[d.code] || d.msg;
}
