//! Coverage of the agreement intervals: for every population in the two-rater grid (n = 30, 50,
//! 100, 200, 433, 2,000; kappa 0.4, 0.78, 0.9; prevalence of accept 0.5 and 0.85; two and three
//! labels) and the many-rater grid (three to five raters, each rating missing with chance 0.2,
//! n = 30, 50, 100, 200), how often each 95% interval holds the population value. Prints two
//! Markdown tables and writes every cell as JSON (for the plot) to the path in
//! FORCEBENCH_COVERAGE_JSON when set.
//!
//! Run: `scripts/bench-coverage.sh` (replicates via FORCEBENCH_COVERAGE_REPS, default 1,000;
//! bootstrap replicates via FORCEBENCH_COVERAGE_BOOT, default 200).

use forcebench::agreement::coverage::{self, CoverageCell, ManyRaters, Method, Population};

fn text(cells: &[CoverageCell]) -> String {
    cells
        .iter()
        .map(|c| {
            if c.undefined > 0 {
                format!("{:.3} ({} undef.)", c.coverage, c.undefined)
            } else {
                format!("{:.3}", c.coverage)
            }
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn seed(q: usize, n: usize, kappa: f64, prevalence: f64) -> u64 {
    0xC0FE_u64 ^ ((q as u64) << 40) ^ ((n as u64) << 8) ^ (kappa * 100.0) as u64 ^ ((prevalence * 100.0) as u64) << 20
}

fn main() {
    let env = |k: &str, d: u32| std::env::var(k).ok().and_then(|s| s.parse().ok()).unwrap_or(d);
    let reps = env("FORCEBENCH_COVERAGE_REPS", 1000);
    let boot = env("FORCEBENCH_COVERAGE_BOOT", 200);
    let mut all = Vec::new();
    println!("Two raters:\n");
    println!("| labels | prevalence | kappa | n | {} |", Method::ALL.map(|m| m.as_str()).join(" | "));
    println!("|---|---|---|---|{}", "---|".repeat(Method::ALL.len()));
    for q in [2usize, 3] {
        for prevalence in [0.5, 0.85] {
            for kappa in [0.4, 0.78, 0.9] {
                for n in [30usize, 50, 100, 200, 433, 2000] {
                    let pop = Population { categories: q, kappa, prevalence };
                    // The bootstrap costs n * boot per replicate: fewer replicates at large n.
                    let r = if n >= 2000 { reps / 4 } else { reps };
                    let cells = coverage::simulate(pop, n, &Method::ALL, r, boot, seed(q, n, kappa, prevalence), 1.0);
                    println!("| {q} | {prevalence} | {kappa} | {n} | {} |", text(&cells));
                    all.extend(cells);
                }
            }
        }
    }
    println!("\nThree to five raters, each rating missing with chance 0.2:\n");
    println!("| raters | labels | prevalence | kappa | n | {} |", Method::MANY.map(|m| m.as_str()).join(" | "));
    println!("|---|---|---|---|---|{}", "---|".repeat(Method::MANY.len()));
    for raters in [3usize, 4, 5] {
        for q in [2usize, 3] {
            for prevalence in [0.5, 0.85] {
                for kappa in [0.4, 0.78, 0.9] {
                    for n in [30usize, 50, 100, 200] {
                        let many = ManyRaters {
                            population: Population { categories: q, kappa, prevalence },
                            raters,
                            missing: 0.2,
                        };
                        let s = seed(q, n, kappa, prevalence) ^ ((raters as u64) << 48);
                        let cells = coverage::simulate_many(many, n, &Method::MANY, reps, s);
                        println!("| {raters} | {q} | {prevalence} | {kappa} | {n} | {} |", text(&cells));
                        all.extend(cells);
                    }
                }
            }
        }
    }
    if let Ok(path) = std::env::var("FORCEBENCH_COVERAGE_JSON") {
        std::fs::write(&path, serde_json::to_string_pretty(&all).unwrap()).unwrap();
    }
}
