#!/usr/bin/env bash
# Makes deno 2.9.6, node 24 and bun 1.4.4 available from the npm registry when they are not
# installed already, each in its own prefix under .tools/, one line per runtime it installs.
# Idempotent and quiet when all is there.
# Source it (`. scripts/toolchain.sh`) to get the binaries on PATH, or run it to just install.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"
mkdir -p "$tools/bin"

want_deno="2.9.6"
want_node_major="24"
want_bun="1.4.4"

install_pkg() { # install_pkg <dir> <spec>
  local dir="$tools/$1"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
  echo "toolchain: installing $2 from npm" >&2
  npm install --prefix "$dir" --no-audit --no-fund --no-update-notifier --loglevel=error "$2" >/dev/null
}

link() { ln -sf "$2" "$tools/bin/$1"; }

# Which runtimes to make ready: BUB_TOOLCHAIN_RUNTIMES (e.g. "deno"; `scripts/tool` sets it to
# the runtime it runs), default all three. Node 24 is always made ready: npm runs under it to
# install the project's dependencies.
runtimes=" ${BUB_TOOLCHAIN_RUNTIMES:-deno node bun} "
wants() { case "$runtimes" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# deno
if ! wants deno; then
  :
elif command -v deno >/dev/null 2>&1 && [ "$(deno --version 2>/dev/null | head -n1 | awk '{print $2}')" = "$want_deno" ] && [ "$(command -v deno)" != "$tools/bin/deno" ]; then
  :
elif [ -x "$tools/deno/node_modules/.bin/deno" ] && "$tools/deno/node_modules/.bin/deno" --version 2>/dev/null | head -n1 | grep -q " $want_deno "; then
  link deno "$tools/deno/node_modules/.bin/deno"
else
  install_pkg deno "deno@$want_deno"
  link deno "$tools/deno/node_modules/.bin/deno"
fi

# node 24 (system node may be older; we only ever run the project's code on 24)
node24="$tools/node24/node_modules/.bin/node"
if [ -x "$node24" ] && "$node24" --version 2>/dev/null | grep -q "^v$want_node_major\."; then
  :
else
  install_pkg node24 "node@$want_node_major"
fi
link node24 "$node24"

# bun
if ! wants bun; then
  :
elif [ -x "$tools/bun/node_modules/.bin/bun" ] && [ "$("$tools/bun/node_modules/.bin/bun" --version 2>/dev/null)" = "$want_bun" ]; then
  :
else
  install_pkg bun "bun@$want_bun"
fi
wants bun && link bun "$tools/bun/node_modules/.bin/bun"

# Older Nodes only for the npm smoke test (Node 22 runs the package, Node 20 is refused with a
# message): installed when asked, `BUB_TOOLCHAIN_OLD_NODES="22 20"` (or BUB_TOOLCHAIN_NODE22=1).
old_nodes="${BUB_TOOLCHAIN_OLD_NODES:-}"
[ "${BUB_TOOLCHAIN_NODE22:-0}" = "1" ] && old_nodes="22 $old_nodes"
for major in $old_nodes; do
  old="$tools/node$major/node_modules/.bin/node"
  if ! { [ -x "$old" ] && "$old" --version 2>/dev/null | grep -q "^v$major\."; }; then
    install_pkg "node$major" "node@$major"
  fi
  link "node$major" "$old"
done

# project dependencies
if [ ! -d "$root/node_modules" ] || [ "$root/package.json" -nt "$root/node_modules/.package-lock.json" ]; then
  echo "toolchain: installing project dependencies" >&2
  # Under Node 24 (its bin folder first on PATH): npm skips optional dependencies whose engines the running node
  # does not meet (the OpenTelemetry SDK needs node >= 22.15), and the machine's node may be older.
  (cd "$root" && PATH="$tools/node24/node_modules/.bin:$PATH" npm install --no-audit --no-fund --no-update-notifier --loglevel=error >/dev/null 2>&1 ||
    (cd "$root" && PATH="$tools/node24/node_modules/.bin:$PATH" npm install --no-audit --no-fund --no-update-notifier --loglevel=error))
fi

case ":$PATH:" in
  *":$tools/bin:"*) ;;
  *) export PATH="$tools/bin:$PATH" ;;
esac
