#!/usr/bin/env bash
# Installs the Debian packages kb's tests need, idempotently (run as root):
#   tmux                  drives the terminal UI in end-to-end tests
#   faketime              runs kb with its clock set back in an end-to-end test
#   mesa-vulkan-drivers   lavapipe, a Vulkan driver on the CPU, so WebGPU runs without a GPU.
#                         Dawn needs Mesa >= 23; bookworm has 22, bookworm-backports has 25.
# The backports suite is derived from the machine's own Debian source entry, so no mirror
# host name is written anywhere.
set -euo pipefail

have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
mesa_major() { dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | sed -E 's/^([0-9]+:)?([0-9]+).*/\2/'; }

need=()
have tmux || need+=(tmux)
have faketime || need+=(faketime)
have libvulkan1 || need+=(libvulkan1)
if ! have mesa-vulkan-drivers || [ "$(mesa_major)" -lt 23 ]; then need+=(mesa-vulkan-drivers); fi
[ ${#need[@]} -eq 0 ] && exit 0

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
backports=/etc/apt/sources.list.d/kb-$codename-backports.sources
if [ ! -e "$backports" ] && ! grep -rqs -- "$codename-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  main_entry=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    if grep -qE "^Suites:.*\b$codename\b" "$f" && grep -qE '^URIs:.*/debian/?$' "$f"; then main_entry=$f; break; fi
  done
  if [ -n "$main_entry" ]; then
    # deb822: copy the stanza that serves the main suite, with the suite renamed.
    awk -v cn="$codename" 'BEGIN { RS = "" } $0 ~ ("\nSuites:[^\n]*[ \t]" cn "([ \t\n]|$)") { print; exit }' "$main_entry" \
      | sed -E "s/^Suites:.*/Suites: $codename-backports/" > "$backports"
  elif [ -f /etc/apt/sources.list ]; then
    # one-line format: reuse the URI of the first line that names the main suite.
    line=$(grep -E "^deb [^ ]+ $codename( |$)" /etc/apt/sources.list | head -n 1)
    uri=$(echo "$line" | awk '{print $2}')
    [ -n "$uri" ] && echo "deb $uri $codename-backports main" > "/etc/apt/sources.list.d/kb-$codename-backports.list"
  fi
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
pkgs=()
for p in "${need[@]}"; do
  if [ "$p" = mesa-vulkan-drivers ]; then pkgs+=("mesa-vulkan-drivers/$codename-backports"); else pkgs+=("$p"); fi
done
apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
echo "kb: installed ${need[*]}" >&2
