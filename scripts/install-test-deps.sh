#!/usr/bin/env bash
# Installs the system tools skillgate's tests use, from Debian's packages.
# Safe to run again: it installs only what is missing. Needs root (or sudo).
set -euo pipefail

# command -> Debian package
declare -A wanted=(
  [python3]=python3
  [bash]=bash
)

missing=()
for command in "${!wanted[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${wanted[$command]}")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-test-deps: everything is installed"
  exit 0
fi

run_as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "install-test-deps: installing ${missing[*]}"
run_as_root apt-get update -qq
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
