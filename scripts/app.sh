#!/usr/bin/env bash
# Builds and opens ForceBench Studio on the default project (created with the sample data on
# first run), or on the file named by FORCEBENCH_PROJECT. Also builds the `forcebench` command
# line and says where it is. Extra arguments go to the app: scripts/app.sh [ARGS...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The app opens a window: say so at once, before a long build, when there is nowhere to show it.
if [[ -z ${DISPLAY:-} && -z ${WAYLAND_DISPLAY:-} ]]; then
  echo "app: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); run this on a desktop session, or under a virtual one: xvfb-run scripts/app.sh" >&2
  exit 1
fi

scripts/setup.sh
(cd ui && npm run build)
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --locked -p forcebench --bin forcebench
cargo build --locked -p forcebench-studio
bin="${CARGO_TARGET_DIR:-$PWD/target}/debug"
fb="$bin/forcebench"
cat <<MSG
app: the command line is $fb
app:   use it from anywhere with: export PATH="$bin:\$PATH"
app: the default project is ${FORCEBENCH_PROJECT:-$HOME/.local/share/forcebench/default.forcebench}
app:   to start again from the sample, close the app and delete that file (and its -wal and -shm files)
MSG
exec "$bin/forcebench-studio" "$@"
