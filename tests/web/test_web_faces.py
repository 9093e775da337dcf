"""The card faces the project draws (web_client/js/faces.js), read back from their SVG."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from web_support import card, start_solo

from conftest import Tabs, screenshot

pytestmark = pytest.mark.browser

# every face as the page makes it, taken apart with the browser's own XML parser
FACES_JS = """async () => {
  const f = await import('/js/faces.js');
  const parse = (text) => new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  const out = {};
  for (const suit of 'SHDC') for (const rank of 'A23456789TJQK') {
    const svg = parse(f.faceSvg(rank + suit));
    const uses = [...svg.querySelectorAll('use')];
    out[rank + suit] = {
      viewBox: svg.getAttribute('viewBox'),
      index: svg.querySelector('text').textContent,
      pips: uses.length - 1,  // every <use> but the index's suit
      shape: svg.querySelector('symbol path').getAttribute('d'),
      ink: svg.querySelector('g').getAttribute('fill'),
      frame: svg.querySelectorAll('rect').length > 0,
      markup: f.faceSvg(rank + suit),
      error: svg.querySelector('parsererror') ? 'parse error' : '',
    };
  }
  const back = parse(f.backSvg());
  out.back = { viewBox: back.getAttribute('viewBox'), texts: back.querySelectorAll('text').length };
  return out;
}"""


def test_faces_have_pips_courts_and_suits_told_apart_by_shape(tabs: Tabs) -> None:
    page = tabs.page("/")
    faces = page.evaluate(FACES_JS)
    back = faces.pop("back")
    assert back == {"viewBox": "0 0 250 350", "texts": 0}  # a back names nothing
    for name, face in faces.items():
        assert not face["error"], name
        assert face["viewBox"] == "0 0 250 350", name
        rank = name[0]
        assert face["index"] == ("10" if rank == "T" else rank), name
        if rank in "23456789T":
            assert face["pips"] == (10 if rank == "T" else int(rank)), name
            assert not face["frame"], name
        elif rank == "A":
            assert face["pips"] == 1
        else:
            assert face["frame"], f"{name}: a court card has its figure's frame"
    # twelve distinct court cards
    courts = {faces[r + s]["markup"] for r in "JQK" for s in "SHDC"}
    assert len(courts) == 12
    for s in "SHDC":
        assert len({faces[r + s]["markup"] for r in "JQK"}) == 3
    # four suits, four shapes; colour alone tells only two groups apart
    shapes = {s: faces["A" + s]["shape"] for s in "SHDC"}
    assert len(set(shapes.values())) == 4
    assert len({faces["A" + s]["ink"] for s in "SHDC"}) == 2
    for name, face in faces.items():
        assert face["shape"] == shapes[name[1]], name


def test_a_4k_screen_gets_big_cards_drawn_from_the_vector_faces(tabs: Tabs) -> None:
    page = tabs.page("/", viewport={"width": 3840, "height": 2160})
    start_solo(page, "kim", "KL1-D3N-AAAAAAA")
    ace = card(page, "AH")
    expect(ace).to_be_visible()
    box = ace.bounding_box()
    assert box and box["width"] >= 110  # a big screen gets big cards...
    drawn = page.evaluate("""async () => {
      const f = await import('/js/faces.js');
      const el = document.querySelector('.race [data-card="AH"]');
      // ...whose backgrounds are the SVG faces, stretched to the card: a vector image at any size
      const img = new Image();
      img.src = 'data:image/svg+xml,' + encodeURIComponent(f.faceSvg('AH'));
      await img.decode();
      return {same: getComputedStyle(el).backgroundImage === f.faceUrl('AH'), svg: img.naturalWidth > 0,
              size: getComputedStyle(el).backgroundSize};
    }""")
    assert drawn == {"same": True, "svg": True, "size": "100% 100%"}
    screenshot(page, "table-4k")
