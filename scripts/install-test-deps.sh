#!/usr/bin/env bash
# Installs the system tools skillgate's tests use, from Debian's packages.
# Safe to run again: it installs only what is missing. Needs root (or sudo).
set -euo pipefail

# command -> Debian package. The sandbox needs bubblewrap (bwrap), socat (the proxy bridge),
# util-linux (prlimit for its rlimits, setpriv to drop root, unshare for the portal) and mount.
declare -A wanted=(
  [python3]=python3
  [bash]=bash
  [bwrap]=bubblewrap
  [socat]=socat
  [prlimit]=util-linux
  [setpriv]=util-linux
  [unshare]=util-linux
  [mount]=mount
)

missing=()
for command in "${!wanted[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${wanted[$command]}")
done
# One package may provide several commands.
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-test-deps: everything is installed"
else
  run_as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  echo "install-test-deps: installing ${missing[*]}"
  run_as_root apt-get update -qq
  run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The sandbox also needs unprivileged user namespaces; say so now rather than in a failing test.
probe=(bwrap --unshare-all --unshare-user --uid 65534 --gid 65534 --ro-bind /usr /usr)
for path in /bin /lib /lib64; do
  if [ -L "$path" ]; then probe+=(--symlink "$(readlink "$path")" "$path"); elif [ -d "$path" ]; then probe+=(--ro-bind "$path" "$path"); fi
done
if [ "$(id -u)" -eq 0 ]; then
  probe=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all -- "${probe[@]}")
fi
if ! "${probe[@]}" -- /usr/bin/true 2>/dev/null; then
  echo "install-test-deps: warning: bubblewrap cannot make an unprivileged user namespace here;" >&2
  echo "  allow them (sysctl kernel.unprivileged_userns_clone=1 on Debian, or" >&2
  echo "  kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04+) or the sandbox tests fail." >&2
fi
