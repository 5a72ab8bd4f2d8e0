//! Harness for driving ForceBench Studio in its real window: finds the tools (failing with a
//! message that says what is missing and how to install it), starts Xvfb when there is no
//! display, starts tauri-driver on free ports, and stops everything it started (tauri-driver
//! with SIGTERM, so it takes WebKitWebDriver and the app down with it).
//!
//! Tests live in `tests/`; each builds its project with the core library in a temp dir. The
//! WebDriver side (sessions, keys, polling, screenshots, the command line) is in [`client`].

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub mod client;

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root exists")
}

/// Where this test leaves screenshots (gitignored).
pub fn shots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("shots")
}

/// The programs a window test needs.
pub struct Tools {
    pub app: PathBuf,
    pub tauri_driver: PathBuf,
    pub webkit_driver: PathBuf,
    /// `None` when `DISPLAY` is set and Xvfb is not needed.
    pub xvfb: Option<PathBuf>,
}

fn which(name: &str, extra: &[PathBuf]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra.iter().cloned())
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Finds every tool or returns one message listing each missing one with its install command.
pub fn find_tools() -> Result<Tools, String> {
    let mut missing = Vec::new();
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|d| d.join("bin"))
        .into_iter()
        .collect::<Vec<_>>();

    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target"));
    let app = std::env::var_os("FORCEBENCH_STUDIO_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("debug").join("forcebench-studio"));
    if !app.is_file() {
        missing.push(format!(
            "the app binary {}: build it with `cargo build -p forcebench-studio` (after `npm run build` in ui/)",
            app.display()
        ));
    }
    let tauri_driver = which("tauri-driver", &cargo_bin);
    if tauri_driver.is_none() {
        missing.push("tauri-driver: `cargo install tauri-driver --locked --version '^2'`".into());
    }
    let webkit_driver = which("WebKitWebDriver", &[]);
    if webkit_driver.is_none() {
        missing.push("WebKitWebDriver: `apt-get install webkit2gtk-driver`".into());
    }
    let needs_xvfb = std::env::var_os("DISPLAY").filter(|d| !d.is_empty()).is_none();
    let xvfb = if needs_xvfb { which("Xvfb", &[]) } else { None };
    if needs_xvfb && xvfb.is_none() {
        missing.push("Xvfb (DISPLAY is not set): `apt-get install xvfb xauth`".into());
    }
    if !missing.is_empty() {
        return Err(format!(
            "cannot run the window tests; missing:\n  - {}\n(scripts/setup.sh installs all of them)",
            missing.join("\n  - ")
        ));
    }
    Ok(Tools { app, tauri_driver: tauri_driver.unwrap(), webkit_driver: webkit_driver.unwrap(), xvfb })
}

/// A TCP port on 127.0.0.1 that nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free local port").port()
}

/// Sends SIGTERM, waits up to `grace`, then SIGKILL as a last resort. Returns how it ended.
fn terminate(child: &mut Child, grace: Duration) -> &'static str {
    if child.try_wait().ok().flatten().is_some() {
        return "had already exited";
    }
    // SAFETY: kill(2) on the pid of a child we spawned and have not reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            return "stopped on SIGTERM";
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    "did not stop on SIGTERM and was killed"
}

/// An X display: the one in `DISPLAY`, or a private Xvfb started for the test.
pub struct Display {
    pub name: String,
    xvfb: Option<Child>,
}

impl Display {
    pub fn start(tools: &Tools) -> Result<Display, String> {
        let Some(xvfb) = &tools.xvfb else {
            return Ok(Display { name: std::env::var("DISPLAY").unwrap(), xvfb: None });
        };
        // -noreset: by default Xvfb resets itself when its last client goes (the app's window
        // closing, in a test that waits for that), and a test connecting meanwhile is refused.
        let mut child = Command::new(xvfb)
            .args(["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", xvfb.display()))?;
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(line) if !line.trim().is_empty() => Ok(Display { name: format!(":{}", line.trim()), xvfb: Some(child) }),
            _ => {
                terminate(&mut child, Duration::from_secs(2));
                Err("Xvfb did not report a display number within 15 s".into())
            }
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some(child) = &mut self.xvfb {
            terminate(child, Duration::from_secs(5));
        }
    }
}

/// A running tauri-driver; its output goes to a log file that is printed if a test fails.
pub struct TauriDriver {
    pub port: u16,
    child: Child,
    log: PathBuf,
}

impl TauriDriver {
    /// Starts tauri-driver with `env` added to its environment (the app it launches inherits it)
    /// and waits until it accepts connections.
    pub fn start(tools: &Tools, env: &[(&str, &str)], log_dir: &Path) -> Result<TauriDriver, String> {
        let port = free_port();
        let native_port = loop {
            let p = free_port();
            if p != port {
                break p;
            }
        };
        let log = log_dir.join("tauri-driver.log");
        let out = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut command = Command::new(&tools.tauri_driver);
        command
            .args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .arg("--native-driver")
            .arg(&tools.webkit_driver)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        for (k, v) in env {
            command.env(k, v);
        }
        let child = command.spawn().map_err(|e| format!("cannot start tauri-driver: {e}"))?;
        let mut driver = TauriDriver { port, child, log };
        // Both must listen: tauri-driver forwards to WebKitWebDriver, which comes up a little later
        // (a session requested in between fails with a connect error).
        let deadline = Instant::now() + Duration::from_secs(20);
        for p in [port, native_port] {
            loop {
                if TcpStream::connect(("127.0.0.1", p)).is_ok() {
                    break;
                }
                if let Ok(Some(status)) = driver.child.try_wait() {
                    return Err(format!("tauri-driver exited early ({status}); log:\n{}", driver.log_text()));
                }
                if Instant::now() > deadline {
                    return Err(format!(
                        "port {p} (tauri-driver {port}, WebKitWebDriver {native_port}) not listening \
                         within 20 s; log:\n{}",
                        driver.log_text()
                    ));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Ok(driver)
    }

    /// The process id of tauri-driver: WebKitWebDriver, the app and WebKit's processes descend
    /// from it.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Every process descending from `root` (not `root` itself), with its command name (cut to 15
/// characters by the kernel), parents before children. Only the driver's descendants are an
/// app's: another window test running on the machine at the same time has processes of the same
/// names.
pub fn descendants(root: u32) -> Vec<(u32, String)> {
    let mut procs = Vec::new(); // (pid, parent, name)
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else { continue };
        let field = |k: &str| status.lines().find_map(|l| l.strip_prefix(k)).map(|v| v.trim().to_string());
        let (Some(name), Some(parent)) = (field("Name:"), field("PPid:").and_then(|p| p.parse::<u32>().ok())) else {
            continue;
        };
        procs.push((pid, parent, name));
    }
    let mut family = vec![root];
    let mut out = Vec::new();
    let mut grew = true;
    while grew {
        grew = false;
        for (pid, parent, name) in &procs {
            if family.contains(parent) && !family.contains(pid) {
                family.push(*pid);
                out.push((*pid, name.clone()));
                grew = true;
            }
        }
    }
    out
}

/// The display and tauri-driver for one window test, the app told to open the project file
/// `project` (by `FORCEBENCH_PROJECT`) and tauri-driver's log kept in `log_dir`; panics saying
/// why when either does not start. Drop the driver before the display, so the app goes first.
pub fn start_for(tools: &Tools, project: &Path, log_dir: &Path) -> (Display, TauriDriver) {
    let display = Display::start(tools).unwrap_or_else(|e| panic!("{e}"));
    let env = [("DISPLAY", display.name.as_str()), ("FORCEBENCH_PROJECT", project.to_str().unwrap())];
    let driver = TauriDriver::start(tools, &env, log_dir).unwrap_or_else(|e| panic!("{e}"));
    (display, driver)
}

impl Drop for TauriDriver {
    fn drop(&mut self) {
        // SIGTERM, not SIGKILL: on SIGKILL tauri-driver leaves WebKitWebDriver running.
        let how = terminate(&mut self.child, Duration::from_secs(10));
        if std::thread::panicking() || how.contains("killed") {
            eprintln!("tauri-driver {how}; its log:\n{}", self.log_text());
        }
    }
}
