"""JavaScript the driver evaluates in the page (kept apart from the Python that calls it).

Each snippet reads the JupyterLab / Notebook 7 DOM; none of them changes the notebook.
"""

_CELLS = """(root) => {
  const nb = root.querySelector('.jp-Notebook');
  if (!nb) return [];
  return [...nb.querySelectorAll('.jp-Cell')].filter(c => !c.parentElement.closest('.jp-Cell'));
}"""

STATE_JS = """() => {
  const cells = (__CELLS__)(document);
  const panel = document.querySelector('.jp-NotebookPanel') || document;
  const ind = panel.querySelector('.jp-Notebook-ExecutionIndicator');
  const dlg = document.querySelector('.jp-Dialog');
  return {
    cells: cells.length,
    prompts: cells.filter(c => c.classList.contains('jp-CodeCell')).map(
      c => ((c.querySelector('.jp-InputArea-prompt') || {}).textContent || '').trim()),
    indicator: ind ? ind.dataset.status : null,
    dialog: dlg ? dlg.textContent.replace(/\\s+/g, ' ').slice(0, 300) : null,
  };
}""".replace("__CELLS__", _CELLS)

SNAPSHOT_JS = """async () => {
  const out = [];
  for (const c of (__CELLS__)(document)) {
    const kind = c.classList.contains('jp-CodeCell') ? 'code'
      : (c.classList.contains('jp-MarkdownCell') ? 'markdown' : 'raw');
    const p = c.querySelector('.jp-InputArea-prompt');
    const area = c.querySelector('.jp-Cell-outputArea');
    const rec = {kind, prompt: p ? p.textContent.trim() : '', outputs: [], svgs: [], stderr: [],
                 widgets: 0, progress: 0, sliders: 0, plays: 0, squeezed: [], text: ''};
    if (area) {
      rec.outputs = [...area.querySelectorAll(':scope > .jp-OutputArea-child > .jp-OutputArea-output')]
        .map(o => ({mime: o.dataset.mimeType || (o.querySelector('.jupyter-widgets') ? 'widget' : ''),
                    text: o.textContent.slice(0, 4000)}));
      for (const o of area.querySelectorAll('[data-mime-type="image/svg+xml"]')) {
        const img = o.querySelector('img'), svg = o.querySelector('svg');
        let ok = false, w = 0, h = 0;
        if (img) {
          try { await img.decode(); ok = img.naturalWidth > 0; w = img.naturalWidth; h = img.naturalHeight; }
          catch (e) { ok = false; }
        } else if (svg) {
          ok = svg.querySelector('g, path, text, polygon, ellipse') !== null;
          const b = svg.getBoundingClientRect(); w = b.width; h = b.height;
        }
        const shown = (img || svg) ? (img || svg).getBoundingClientRect() : null;
        const clip = shown ? Math.round(shown.right - area.getBoundingClientRect().right) : 0;
        // shrunk to fit, but with no viewBox to scale by: the SVG's right part is cut off
        let source = '';
        if (img) { try { source = decodeURIComponent(img.getAttribute('src') || ''); } catch (e) {} }
        const viewbox = img ? /viewBox=/.test(source) : !!(svg && svg.getAttribute('viewBox'));
        const shrunk = !!(shown && w > 0 && shown.width + 1 < w);
        rec.svgs.push({ok, w, h, clip, viewbox, shrunk, shown_w: shown ? Math.round(shown.width) : 0,
                       in_widget: !!o.closest('.jupyter-widgets')});
      }
      rec.stderr = [...area.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]')]
        .map(o => o.textContent.slice(0, 2000));
      rec.widgets = area.querySelectorAll('.jupyter-widgets').length;
      rec.progress = area.querySelectorAll('.widget-hprogress, .widget-vprogress').length;
      rec.sliders = area.querySelectorAll('.widget-slider [role="slider"]').length;
      rec.plays = area.querySelectorAll('.widget-play').length;
      rec.squeezed = [...area.querySelectorAll('.widget-output')]
        .map(o => ({box: o.getBoundingClientRect(), text: o.textContent.trim()}))
        .filter(o => o.text.length >= 20 && o.box.width < 120)
        .map(o => ({w: Math.round(o.box.width), h: Math.round(o.box.height), text: o.text.slice(0, 200)}));
      rec.text = area.textContent.slice(0, 20000);
    }
    out.push(rec);
  }
  return out;
}""".replace("__CELLS__", _CELLS)

# What a widget shows, without its own controls: text plus every image and inline svg.
SHOWN_JS = """(cell) => {
  const area = cell.querySelector('.jp-Cell-outputArea');
  if (!area) return '';
  const clone = area.cloneNode(true);
  clone.querySelectorAll('.widget-slider, .widget-play, .widget-readout, .jp-OutputArea-prompt,'
                         + ' .jp-OutputArea-promptOverlay').forEach(e => e.remove());
  const imgs = [...clone.querySelectorAll('img')].map(i => i.getAttribute('src') || '');
  const svgs = [...clone.querySelectorAll('svg')].map(s => s.outerHTML);
  return clone.textContent + '\\n#images ' + imgs.join('|') + '\\n#svg ' + svgs.join('|');
}"""

# Scroll every scroller above the notebook to the top; return how tall the viewport must be for
# the last cell's bottom edge to be on screen.
HEIGHT_JS = """() => {
  const cells = (__CELLS__)(document);
  if (!cells.length) return 0;
  for (let el = cells[0].parentElement; el; el = el.parentElement) el.scrollTop = 0;
  window.scrollTo(0, 0);
  const status = document.querySelector('#jp-main-statusbar');
  const below = status ? status.getBoundingClientRect().height : 0;
  return Math.ceil(cells[cells.length - 1].getBoundingClientRect().bottom + below + 40);
}""".replace("__CELLS__", _CELLS)

# The theme the page shows, and every SVG output per cell (an <img> data URL or inline <svg>
# markup) with the colour it is drawn on: the first opaque background from the picture up the tree.
PICTURES_JS = """() => {
  const ground = (start) => {
    for (let el = start; el; el = el.parentElement) {
      const c = getComputedStyle(el).backgroundColor;
      if (c && !/rgba\\(.*,\\s*0\\)$/.test(c) && c !== 'transparent') return c;
    }
    return 'rgba(0, 0, 0, 0)';
  };
  const cells = (__CELLS__)(document).map(c => {
    const svgs = [];
    for (const o of c.querySelectorAll('[data-mime-type="image/svg+xml"]')) {
      const img = o.querySelector('img'), svg = o.querySelector('svg');
      if (img) svgs.push({src: img.getAttribute('src') || '', bg: ground(img)});
      else if (svg) svgs.push({src: svg.outerHTML, bg: ground(svg)});
    }
    return svgs;
  });
  return {light: document.body.dataset.jpThemeLight, name: document.body.dataset.jpThemeName,
          bg: ground(document.querySelector('.jp-Notebook') || document.body), cells};
}""".replace("__CELLS__", _CELLS)
