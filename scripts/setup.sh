#!/usr/bin/env bash
# Installs everything ForceBench Studio needs to build, run and test on a fresh Debian 12:
# system packages (WebKitGTK, Xvfb, WebKitWebDriver, Chromium, ImageMagick...), the UI's npm
# packages (npm ci in ui/) and tauri-driver. Idempotent: each step is skipped when already done.
# Expects rustup/cargo and Node.js (20.19+) to be installed already.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

APT_PACKAGES=(
  libwebkit2gtk-4.1-dev build-essential pkg-config   # build the Tauri app
  xvfb xauth webkit2gtk-driver                        # run its window headless and drive it
  chromium                                            # test the UI alone
  imagemagick                                         # screenshots (import -window root)
  fonts-dejavu-core sqlite3 curl ca-certificates
  python3-venv python3-pip                            # pandas + datasets read the export (tests)
)

# --- system packages -------------------------------------------------------------------------
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
  elif command -v sudo >/dev/null; then
    SUDO=(sudo)
  else
    die "not root and no sudo; install these Debian packages first: ${missing[*]}"
  fi
  say "installing Debian packages: ${missing[*]}"
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  say "Debian packages present"
fi

# --- toolchains that must already be there ----------------------------------------------------
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo >/dev/null ||
  die "cargo not found: install Rust with rustup (https://rustup.rs), then re-run this script"
# The test command checks the layout and the lints of every crate.
for tool in fmt clippy; do
  if ! cargo "$tool" --version >/dev/null 2>&1; then
    say "rustup component add ${tool/fmt/rustfmt}"
    rustup component add "${tool/fmt/rustfmt}" ||
      die "cargo $tool is missing and rustup could not add it: run \`rustup component add ${tool/fmt/rustfmt}\`"
  fi
done
command -v node >/dev/null && command -v npm >/dev/null ||
  die "node/npm not found: install Node.js 20.19 or newer (Vite 8 needs it), then re-run this script"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' ||
  die "Node.js $(node --version) is too old: Vite 8 needs 20.19 or newer"

# --- UI packages: npm ci, skipped while node_modules matches package-lock.json ----------------
stamp=ui/node_modules/.forcebench-installed-lock
if [[ -f $stamp ]] && cmp -s "$stamp" ui/package-lock.json; then
  say "ui/node_modules up to date"
else
  say "npm ci in ui/"
  (cd ui && npm ci --no-audit --no-fund)
  cp ui/package-lock.json "$stamp"
fi

# --- tauri-driver (WebDriver bridge for the window tests) -------------------------------------
if cargo install --list | grep -q '^tauri-driver v2\.'; then
  say "tauri-driver present"
else
  say "cargo install tauri-driver"
  cargo install tauri-driver --locked --version '^2'
fi
say "done"
