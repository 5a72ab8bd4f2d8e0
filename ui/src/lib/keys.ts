// A key press as the views' models read it: a KeyboardEvent is one, and a test writes one as a
// plain object.
export interface KeyPress {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
  defaultPrevented?: boolean;
}

/** What a key went to: a text field or a select, an editable element, a button, or other. */
export type KeyTarget = "field" | "editable" | "button" | "other";
