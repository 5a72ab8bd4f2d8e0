// Text boxes that grow with their text, so a long claim or repair is read whole instead of behind
// a scrollbar. `use:autogrow={value}`: the box fits its text on typing, when the value changes
// from outside (another row, an undo), and when its width changes. The height is set through the
// CSSOM (the app's CSP forbids inline style attributes); a CSS max-height still caps it.

export function autogrow(el: HTMLTextAreaElement, _value?: unknown) {
  const fit = () => {
    el.style.height = "auto";
    // scrollHeight excludes the border; add it back so the last line is not cut.
    const border = el.offsetHeight - el.clientHeight;
    el.style.height = `${el.scrollHeight + border}px`;
  };
  fit();
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
    update: () => queueMicrotask(fit),
    destroy() {
      el.removeEventListener("input", fit);
      resized.disconnect();
    },
  };
}
