/** The language switch (a select of every language, text.js LANGUAGES, each named as the catalogue's `languages` says), in the lobby (each
language by its own name: English, Español) and in the table's top bar
(by its code, EN, ES: a phone's bar has no room for more). A choice saves
itself and opens the page again in that language (text.js, `switchLanguage`). */

import { h } from '../dom.js';
import { LANGUAGES, LANG, TEXT, switchLanguage } from '../text.js';

export function languageSwitch({ short = false } = {}) {
  const select = h('select', { class: 'lang-switch', 'aria-label': TEXT.languageLabel, title: TEXT.languageLabel },
    ...LANGUAGES.map((code) => h('option', {
      value: code, lang: code, text: short ? code.toUpperCase() : TEXT.languages[code], title: TEXT.languages[code],
    })));
  select.value = LANG;
  select.addEventListener('change', () => switchLanguage(select.value));
  return select;
}
