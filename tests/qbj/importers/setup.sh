#!/bin/sh
# Sets up YellowFruit's and MODAQ's own QBJ import code to run under node, for
# tests/test_qbj_importers.py (docs/quizbowl.md "Checked with the importers").
#   tests/qbj/importers/setup.sh DIR YELLOWFRUIT_GIT_DIR MODAQ_GIT_DIR
# DIR: a folder outside the repository (their sources are never committed here); the git dirs:
# bare clones of github.com/ANadig/YellowFruit and github.com/alopezlago/MODAQ (their HEAD is
# used; set COMMIT_YF / COMMIT_MODAQ for another). Needs git, node and npm. Then:
#   TABLEBUZZ_QBJ_IMPORTERS=DIR .venv/bin/pytest tests/test_qbj_importers.py
set -eu
dir=$1; yf=$2; modaq=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/ANadig+YellowFruit" "$dir/alopezlago+MODAQ" "$dir/harness"
git --git-dir="$yf" archive "${COMMIT_YF:-HEAD}" | tar -x -C "$dir/ANadig+YellowFruit"
git --git-dir="$modaq" archive "${COMMIT_MODAQ:-HEAD}" | tar -x -C "$dir/alopezlago+MODAQ"
git --git-dir="$yf" rev-parse "${COMMIT_YF:-HEAD}" > "$dir/ANadig+YellowFruit/COMMIT"
git --git-dir="$modaq" rev-parse "${COMMIT_MODAQ:-HEAD}" > "$dir/alopezlago+MODAQ/COMMIT"
cp "$here/modaq.ts" "$here/yellowfruit.ts" "$dir/harness/"
cd "$dir/harness"
[ -f package.json ] || npm init -y > /dev/null
# only what the import paths load: the bundler, MODAQ's mobx / mobx-sync / he, YellowFruit's
# dayjs / string-similarity-js
npm install --no-audit --no-fund esbuild@0.24 mobx@6 mobx-sync he dayjs string-similarity-js
for name in modaq yellowfruit; do
    NODE_PATH="$PWD/node_modules" node_modules/.bin/esbuild "$name.ts" --bundle --platform=node \
        --outfile="$name.js" --log-level=error
done
echo "importers ready in $dir"
