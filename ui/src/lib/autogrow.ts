// Text boxes that grow with their text, so a long claim or repair is read whole instead of behind
// a scrollbar. `use:autogrow={value}`: the box fits its text on typing, when the value changes
// from outside (another row, an undo), and when its width changes. The height is set through the
// CSSOM (the app's CSP forbids inline style attributes); a CSS max-height still caps it.
//
// Boxes whose value changed from outside are fitted together, in one microtask: every box is
// reset first, then all are measured (one layout), then all heights are set. Fitting them one by
// one cost a full layout per box on each change of row (four boxes in the annotate view).

const due = new Set<HTMLTextAreaElement>();

function fitAll(els: Iterable<HTMLTextAreaElement>) {
  const boxes = [...els].filter((el) => el.isConnected);
  for (const el of boxes) el.style.height = "auto";
  // scrollHeight excludes the border; add it back so the last line is not cut.
  const heights = boxes.map((el) => el.scrollHeight + el.offsetHeight - el.clientHeight);
  boxes.forEach((el, i) => (el.style.height = `${heights[i]}px`));
}

function fitSoon(el: HTMLTextAreaElement) {
  if (due.size === 0)
    queueMicrotask(() => {
      const els = [...due];
      due.clear();
      fitAll(els);
    });
  due.add(el);
}

export function autogrow(el: HTMLTextAreaElement, _value?: unknown) {
  // A box growing as it is typed in stays in view: its new last line would otherwise go below
  // the edge of the pane (the notes, the last box, at 1280x800).
  const fit = () => {
    fitAll([el]);
    if (document.activeElement === el) el.scrollIntoView({ block: "nearest" });
  };
  fitSoon(el);
  el.addEventListener("input", fit);
  let width = el.clientWidth;
  const resized = new ResizeObserver(() => {
    if (el.clientWidth !== width) {
      width = el.clientWidth;
      fit();
    }
  });
  resized.observe(el);
  return {
    update: () => fitSoon(el),
    destroy() {
      due.delete(el);
      el.removeEventListener("input", fit);
      resized.disconnect();
    },
  };
}
