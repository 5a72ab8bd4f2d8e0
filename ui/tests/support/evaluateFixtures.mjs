// Fixture answers for the evaluation view: the five baselines on a 33-pair locked split (the
// README's figures), an imported judge with two pairs missing an output, and two small SVG
// plots shaped like the core's (text labels, presentation attributes, no style attributes).

const AXES = ["relation", "modality", "scope", "temporal", "numeric"];
const AXIS_PAIRS = { relation: 8, modality: 7, scope: 8, temporal: 5, numeric: 5 };

function metrics(n, mvr, fs, missing = 0, ci = true) {
  const violations = Math.round(mvr * n);
  return {
    n_pairs: n,
    mvr,
    fs,
    violations,
    missing,
    unanswered: 0,
    mvr_ci95: ci ? [Math.max(0, +(mvr - 0.1).toFixed(3)), Math.min(1, +(mvr + 0.1).toFixed(3))] : null,
    fs_ci95: ci ? [+(fs - 0.05).toFixed(3), +(fs + 0.05).toFixed(3)] : null,
  };
}

function report(name, label_map, mvr, fs, { missing_pairs = [], perAxis = {} } = {}) {
  const overall = metrics(33, mvr, fs, missing_pairs.length);
  const per_axis = {};
  for (const a of AXES) {
    const [m, f] = perAxis[a] ?? [mvr, fs];
    per_axis[a] = metrics(AXIS_PAIRS[a], m, f, 0, false);
  }
  return {
    name,
    label_map,
    split_version: 2,
    per_axis,
    per_severity: { 1: metrics(11, mvr, fs, 0, false), 2: metrics(11, mvr, fs, 0, false), 3: metrics(11, mvr, fs, 0, false) },
    per_source: { ExpertQA: metrics(33, mvr, fs, 0, false) },
    per_family: { none: metrics(33, mvr, fs, 0, false) },
    missing_pairs,
    // Two requests a pair, all answered; the pairs with no usable output were answered unusably.
    completeness: { requests: 66, answered: 66 - missing_pairs.length, unusable: missing_pairs.length, unanswered: 0 },
    ...overall,
  };
}

/** What evaluation_compare answers: sorted by name, as the core does. */
export const reports = [
  report("baseline:axis_lexical", "baseline", 0.606, 0.141),
  report("baseline:citation_presence", "baseline", 1, 0),
  report("baseline:entity_overlap", "baseline", 0.939, 0.021),
  report("baseline:rule_force", "baseline", 0.879, 0.03),
  report("baseline:token_overlap", "baseline", 0.121, 0.1, { perAxis: { numeric: [0.4, 0.05], modality: [0, 0.2] } }),
  report("my-judge", "force", 0.242, 0.455, {
    missing_pairs: [
      { id: "fx-a", problem: "no raised output" },
      { id: "fx-b", problem: "safe label `maybe` is not in the label map" },
    ],
  }),
];

/** The same without the judge: what is stored right after the baselines run. */
export const baselineReports = reports.filter((r) => r.name.startsWith("baseline:"));

const svg = (title, names) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="440" viewBox="0 0 640 440" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">\n` +
  `<rect width="100%" height="100%" fill="white"/>\n<text x="10" y="22" font-size="15" font-weight="bold">${title}</text>\n` +
  names.map((n, i) => `<circle cx="${80 + i * 60}" cy="200" r="6" fill="#1f77b4"/><text x="${80 + i * 60}" y="${240 + i * 14}">${n}</text>`).join("\n") +
  `\n</svg>\n`;

export function plotsFor(list) {
  const names = list.map((r) => r.name.replace(/^baseline:/, ""));
  return { scatter: svg("MVR vs FS", names), heatmap: svg("MVR per axis (lower is better)", names) };
}

export const noLockedSplit = { code: "no_locked_split", message: "there is no split; draft and lock one first" };
export const draftOnly = {
  code: "no_locked_split",
  message: "split v1 is a draft; evaluators are scored on a locked split (`forcebench split lock`)",
};

export const PLOT_FILES = ["mvr_fs.svg", "mvr_fs.png", "mvr_by_axis.svg", "mvr_by_axis.png"];
