#!/usr/bin/env bash
# The install test: builds the Debian package, installs it into this machine with apt, runs the
# installed `forcebench` through the whole workflow on the sample in a temporary directory, opens
# the installed app under Xvfb and checks in its real window that the first view shows the sample
# rows, then removes the package. Needs root (apt). Separate from scripts/test.sh: a release build
# of the app takes longer than the rest of the tests together on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'test-package: %s\n' "$*"; }

scripts/package.sh
deb=$(ls -t dist/forcebench-studio_*_amd64.deb | head -1)

say "the package's contents"
dpkg-deb --contents "$deb" | awk '{print $6}' > target/package-contents.txt
for path in ./usr/bin/forcebench ./usr/bin/forcebench-studio ./usr/share/applications/forcebench-studio.desktop \
  ./usr/share/icons/hicolor/512x512/apps/forcebench-studio.png ./usr/share/doc/forcebench-studio/guideline.md \
  ./usr/share/forcebench-studio/sample-data/candidates.csv; do
  grep -qx "$path" target/package-contents.txt || { echo "missing from the package: $path" >&2; exit 1; }
done
dpkg-deb --field "$deb" Depends | grep -q 'libwebkit2gtk-4.1-0' || { echo "the package does not depend on WebKitGTK 4.1" >&2; exit 1; }

say "the RPM's contents and requirements (it cannot be installed on Debian; rpm reads it)"
command -v rpm >/dev/null || apt-get install -y -q --no-install-recommends rpm >/dev/null
rpm_file=$(ls -t dist/forcebench-studio-*.x86_64.rpm | head -1)
diff <(rpm -qpl "$rpm_file" | sort) <(sed 's#^\.##' target/package-contents.txt | grep -v '/$' | grep -v '/copyright$' | sort) ||
  { echo "the RPM and the Debian package hold different files" >&2; exit 1; }
rpm -qpR "$rpm_file" | grep -qx 'webkit2gtk4.1' || { echo "the RPM does not require webkit2gtk4.1" >&2; exit 1; }

say "apt-get install ./$deb"
start=$(date +%s.%N)
apt-get install -y -q "./$deb" >/dev/null
say "installed in $(echo "$(date +%s.%N) - $start" | bc) s"
trap 'say "apt-get remove forcebench-studio"; apt-get remove -y -q forcebench-studio >/dev/null' EXIT

say "the installed command line, the whole workflow on the sample"
forcebench --version
test "$(command -v forcebench)" = /usr/bin/forcebench
work=$(mktemp -d)
fb() { (cd "$work" && HOME="$work" /usr/bin/forcebench --project "$work/study.forcebench" "$@"); }
fb init --name "Installed" >/dev/null
fb sample load >/dev/null
for who in Ana Ben Chidi Dana; do fb annotators add "$who" >/dev/null; done
fb annotators add Eve --role adjudicator >/dev/null
fb assign --seed 1 >/dev/null
fb sample annotate --rows 106 >/dev/null
fb agreement --json | python3 -c 'import json,sys; k=json.load(sys.stdin)["cohen_kappa"]; assert k is not None and 0 < k <= 1, k'
fb adjudicate confirm-agreements --adjudicator Eve --affirm >/dev/null
fb qc run >/dev/null
fb split draft >/dev/null
fb sample audit >/dev/null
fb split lock >/dev/null
fb export "$work/export" >/dev/null
fb verify "$work/export" >/dev/null
say "workflow ok: $(wc -l < "$work/export/eval.jsonl") evaluation rows exported and verified"

say "the installed app in its real window"
FORCEBENCH_STUDIO_BIN=/usr/bin/forcebench-studio cargo test --locked -p forcebench-e2e --test installed -- --ignored
rm -rf "$work"
say "passed"
