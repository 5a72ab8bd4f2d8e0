//! The `forcebench` command line: a thin front over the core library. Its commands live in
//! `cli/`; clap and the progress bars are this binary's alone (the `cli` feature), so the desktop
//! app, which depends on the core without it, compiles neither.

mod cli;

fn main() -> std::process::ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`forcebench ... | head`) would panic.
    // The default action ends the process quietly, as other command-line tools do.
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    forcebench::output::ignore_file_size_signal();
    cli::main()
}
