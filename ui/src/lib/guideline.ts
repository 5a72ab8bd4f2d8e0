// The guideline's small Markdown (# and ## headings, "-" bullets, "1." steps, paragraphs) as
// blocks the overlay renders with text nodes. No Markdown library and no HTML.

export type Block =
  | { kind: "h1" | "h2" | "p"; text: string }
  | { kind: "ul" | "ol"; items: string[] };

export function parseGuideline(md: string): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ kind: "p", text: para.join(" ") });
    para = [];
  };
  const list = (kind: "ul" | "ol", item: string) => {
    flush();
    const last = blocks[blocks.length - 1];
    if (last && last.kind === kind) last.items.push(item);
    else blocks.push({ kind, items: [item] });
  };
  let inItem = false;
  for (const raw of md.split("\n")) {
    const line = raw.trimEnd();
    let m: RegExpMatchArray | null;
    if (line.trim() === "") {
      flush();
      inItem = false;
    } else if ((m = line.match(/^(#{1,6})\s+(.*)$/))) {
      flush();
      blocks.push({ kind: m[1].length === 1 ? "h1" : "h2", text: m[2] });
      inItem = false;
    } else if ((m = line.match(/^\s*[-*]\s+(.*)$/))) {
      list("ul", m[1]);
      inItem = true;
    } else if ((m = line.match(/^\s*\d+[.)]\s+(.*)$/))) {
      list("ol", m[1]);
      inItem = true;
    } else if (inItem && /^\s+/.test(raw)) {
      // A wrapped list item continues on an indented line.
      const last = blocks[blocks.length - 1];
      if (last && (last.kind === "ul" || last.kind === "ol")) last.items[last.items.length - 1] += " " + line.trim();
    } else {
      inItem = false;
      para.push(line.trim());
    }
  }
  flush();
  return blocks;
}
