/** A count with its noun in the right number: `plural(1, "draft")` is "1 draft", `plural(2, "draft")` "2 drafts". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
