/** The language switch (a select of every catalogue), in the lobby (each
language by its own name: English, Español) and in the table's top bar
(by its code, EN, ES: a phone's bar has no room for more). A choice saves
itself and opens the page again in that language (text.js, `switchLanguage`). */

import { h } from '../dom.js';
import { CATALOGUES, LANG, TEXT, switchLanguage } from '../text.js';

export function languageSwitch({ short = false } = {}) {
  const select = h('select', { class: 'lang-switch', 'aria-label': TEXT.languageLabel, title: TEXT.languageLabel },
    ...Object.entries(CATALOGUES).map(([code, t]) => h('option', {
      value: code, lang: code, text: short ? code.toUpperCase() : t.language, title: t.language,
    })));
  select.value = LANG;
  select.addEventListener('change', () => switchLanguage(select.value));
  return select;
}
