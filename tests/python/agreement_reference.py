"""Reference values for the agreement intervals, computed by other people's code.

Draws random tables and rating sets from a fixed seed and writes, for each, what statsmodels
(Cohen's kappa and quadratic-weighted kappa with the Fleiss-Cohen-Everitt SE; the Wilson
interval behind PABAK), irrCAC (Gwet's AC1, Fleiss' kappa, Krippendorff's alpha with Gwet's
variances) and the `krippendorff` package (ordinal alpha) give. ForceBench's test
(tests/core/agreement_reference.rs) reads the file and compares; scripts/test-agreement-reference.sh
recomputes it here and checks it against the committed copy.

Conventions matched on purpose, and said here so nobody mistakes them for differences:
irrCAC's intervals are t(n - 1) intervals whose upper end is capped at 1; ForceBench also caps
the lower end at -1, so the reference lower end is max(-1, irrCAC's). irrCAC is asked for 15
digits so its rounding is below the test's tolerance.

Usage: python agreement_reference.py OUT.json
"""
import json
import sys
import warnings

import numpy as np
import pandas as pd
from irrCAC.raw import CAC
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint
import krippendorff

warnings.simplefilter("ignore")
rng = np.random.default_rng(20261125)
PER_KIND = 200


def random_table(q, n):
    # A mixture of agreement and chance so kappa spans its range; skewed marginals too.
    m = rng.dirichlet(np.ones(q) * rng.uniform(0.3, 3))
    k = rng.uniform(-0.2, 0.98)
    p = (1 - k) * np.outer(m, rng.permutation(m) if rng.random() < 0.3 else m) + k * np.diag(m)
    p = np.clip(p, 0, None)
    p /= p.sum()
    return rng.multinomial(n, p.ravel()).reshape(q, q)


def table_to_raw(t):
    a, b = [], []
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            a += [i] * int(t[i, j])
            b += [j] * int(t[i, j])
    return pd.DataFrame({"A": a, "B": b}, dtype=float)


def irr(frame, q, method, weights="identity"):
    cac = CAC(frame, weights=weights, categories=list(range(q)), digits=15)
    est = getattr(cac, method)()["est"]
    lo, hi = est["confidence_interval"]
    return {"value": float(est["coefficient_value"]), "se": float(est["se"]), "ci95": [max(-1.0, float(lo)), float(hi)]}


def ordinal_weights(counts):
    q = len(counts)
    d = np.zeros((q, q))
    for c in range(q):
        for k in range(q):
            a, b = min(c, k), max(c, k)
            d[c, k] = (counts[a : b + 1].sum() - (counts[c] + counts[k]) / 2) ** 2
    return 1 - d / d.max()


def main(out):
    cases = []
    # Two raters: Cohen's kappa (FCE), quadratic-weighted kappa (FCE), AC1 (Gwet), PABAK (Wilson).
    made = 0
    while made < PER_KIND:
        q = int(rng.integers(2, 6))
        n = int(rng.integers(20, 400))
        t = random_table(q, n)
        rows, cols = t.sum(1), t.sum(0)
        if (rows > 0).sum() < 2 or (cols > 0).sum() < 2 or np.trace(t) == n:
            continue  # kappa undefined, or SE 0: nothing to compare
        made += 1
        r = cohens_kappa(t)
        case = {"table": t.tolist(), "cohen": {"value": r["kappa"], "se": r["std_kappa"], "ci95": [max(-1, r["kappa_low"]), min(1, r["kappa_upp"])]}}
        r = cohens_kappa(t, wt="quadratic")
        case["quadratic"] = {"value": r["kappa"], "se": r["std_kappa"], "ci95": [max(-1, r["kappa_low"]), min(1, r["kappa_upp"])]}
        case["ac1"] = irr(table_to_raw(t), q, "gwet")
        agree = int(np.trace(t))
        lo, hi = proportion_confint(agree, n, alpha=0.05, method="wilson")
        case["pabak"] = {"value": (q * agree / n - 1) / (q - 1), "ci95": [(q * lo - 1) / (q - 1), (q * hi - 1) / (q - 1)]}
        cases.append({"kind": "two_raters", "q": q, **case})
    # Several raters with missing ratings: Fleiss, AC1, alpha (nominal) and alpha (ordinal).
    made = 0
    while made < PER_KIND:
        q = int(rng.integers(2, 5))
        raters = int(rng.integers(2, 6))
        n = int(rng.integers(15, 120))
        truth = rng.integers(0, q, size=n)
        skill = rng.uniform(0.2, 0.95)
        ratings = np.where(rng.random((n, raters)) < skill, truth[:, None], rng.integers(0, q, size=(n, raters))).astype(float)
        ratings[rng.random((n, raters)) < rng.uniform(0, 0.3)] = np.nan
        ratings = ratings[~np.isnan(ratings).all(axis=1)]
        pairable = (~np.isnan(ratings)).sum(axis=1) >= 2
        if pairable.sum() < 3 or len(np.unique(ratings[pairable][~np.isnan(ratings[pairable])])) < 2:
            continue
        made += 1
        frame = pd.DataFrame(ratings)
        case = {"fleiss": irr(frame, q, "fleiss"), "ac1": irr(frame, q, "gwet"), "alpha": irr(frame, q, "krippendorff")}
        counts = np.array([(ratings[pairable] == k).sum() for k in range(q)], dtype=float)
        case["alpha_ordinal"] = irr(frame, q, "krippendorff", weights=ordinal_weights(counts))
        case["alpha_ordinal_package"] = float(krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="ordinal", value_domain=list(range(q))))
        units = [[int(v) for v in row if not np.isnan(v)] for row in ratings]
        cases.append({"kind": "many_raters", "q": q, "units": units, **case})
    with open(out, "w") as f:
        json.dump({"generator": "tests/python/agreement_reference.py", "cases": cases}, f, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1])
