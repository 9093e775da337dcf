/** The language switch (a select of every catalogue by its own name), in the
lobby and at the table: a choice saves itself and opens the page again in
that language (text.js, `switchLanguage`). */

import { h } from '../dom.js';
import { CATALOGUES, LANG, TEXT, switchLanguage } from '../text.js';

export function languageSwitch() {
  const select = h('select', { class: 'lang-switch', 'aria-label': TEXT.languageLabel, title: TEXT.languageLabel },
    ...Object.entries(CATALOGUES).map(([code, t]) => h('option', { value: code, lang: code, text: t.language })));
  select.value = LANG;
  select.addEventListener('change', () => switchLanguage(select.value));
  return select;
}
