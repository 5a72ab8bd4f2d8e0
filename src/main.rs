//! The `forcebench` command line: a thin front over the core library (see `src/cli/`).

fn main() -> std::process::ExitCode {
    forcebench::cli::main()
}
