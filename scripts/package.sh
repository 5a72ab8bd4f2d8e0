#!/usr/bin/env bash
# Builds the release app and the `forcebench` command and writes the Debian package
# dist/forcebench-studio_<version>_amd64.deb with cargo-deb, and the same files as an RPM
# (dist/forcebench-studio-<version>-1.x86_64.rpm) with cargo-generate-rpm (both pinned below;
# installed from crates.io if missing). The package's contents are listed in src-tauri/Cargo.toml
# ([package.metadata.deb]); its library dependencies come from dpkg-shlibdeps.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_DEB_VERSION=3.8.0
CARGO_GENERATE_RPM_VERSION=0.21.1
say() { printf 'package: %s\n' "$*"; }

scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
if ! command -v dpkg-shlibdeps >/dev/null; then
  say "apt-get install dpkg-dev (dpkg-shlibdeps lists the libraries the binaries need)"
  apt-get install -y -q --no-install-recommends dpkg-dev
fi
if [[ "$(cargo deb --version 2>/dev/null)" != *"$CARGO_DEB_VERSION"* ]]; then
  say "cargo install cargo-deb $CARGO_DEB_VERSION"
  cargo install cargo-deb --locked --version "=$CARGO_DEB_VERSION"
fi
if [[ "$(cargo generate-rpm --version 2>/dev/null)" != *"$CARGO_GENERATE_RPM_VERSION"* ]]; then
  say "cargo install cargo-generate-rpm $CARGO_GENERATE_RPM_VERSION"
  cargo install cargo-generate-rpm --locked --version "=$CARGO_GENERATE_RPM_VERSION"
fi

say "building the UI and the release binaries"
(cd ui && npm run --silent build)
cargo build --locked --release --bin forcebench
cargo build --locked --release -p forcebench-studio --features tauri/custom-protocol

mkdir -p dist
cargo deb --no-build -p forcebench-studio --output dist/ >/dev/null
deb=$(ls -t dist/forcebench-studio_*_amd64.deb | head -1)
say "wrote $deb ($(du -h "$deb" | cut -f1))"
cargo generate-rpm -p src-tauri -o dist/ >/dev/null
rpm=$(ls -t dist/forcebench-studio-*.x86_64.rpm | head -1)
say "wrote $rpm ($(du -h "$rpm" | cut -f1))"
