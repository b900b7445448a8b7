#!/usr/bin/env bash
# Installs the system tools skillgate's tests use, from Debian's packages. `npm test` runs it
# first (the pretest script). Safe to run again: with everything installed it changes nothing.
# It installs what is missing when it can (as root, or with sudo that needs no password);
# otherwise it stops and prints the one command to run.
set -euo pipefail

# command -> Debian package. The sandbox needs bubblewrap (bwrap), socat (the proxy bridge),
# util-linux (prlimit for its rlimits, setpriv to drop root, unshare for the portal) and mount.
# The proxy's tests drive real clients (curl) over TLS (openssl makes their certificate); the
# terminal tests of `skillgate run` use script(1) for a pseudo-terminal. The web UI's browser
# tests drive Debian's chromium through playwright-core (no downloaded browser). The package environment tests make wheels (pip,
# setuptools) and npm tarballs (npm pack) locally. The Redis queue's tests start their own
# redis-server (Debian `redis-server`) on a free port.
declare -A wanted=(
  [python3]=python3
  [bash]=bash
  [bwrap]=bubblewrap
  [socat]=socat
  [prlimit]=util-linux
  [setpriv]=util-linux
  [unshare]=util-linux
  [mount]=mount
  [curl]=curl
  [openssl]=openssl
  [script]=bsdutils
  [chromium]=chromium
  [tar]=tar
  [npm]=npm
  [redis-server]=redis-server
)

missing=()
for command in "${!wanted[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${wanted[$command]}")
done
# Python modules of Debian's python3, by package: the interpreter tests make venvs
# (python3-venv) with --system-site-packages and import a system package from them
# (python3-yaml); the tests of skills shaped like the public ones import yaml
# (argv-project-validator, and anthropics' skill-creator from a checkout) and pypdf
# (argv-pdf-fields, and anthropics' pdf).
declare -A wanted_modules=(
  [venv]=python3-venv
  [yaml]=python3-yaml
  [pypdf]=python3-pypdf
)
for module in "${!wanted_modules[@]}"; do
  /usr/bin/python3 -c "import $module" >/dev/null 2>&1 || missing+=("${wanted_modules[$module]}")
done
# The package environment tests build wheels with Debian's own pip and setuptools.
/usr/bin/python3 -c "import pip" >/dev/null 2>&1 || missing+=(python3-pip)
/usr/bin/python3 -c "import setuptools, wheel" >/dev/null 2>&1 || missing+=(python3-setuptools python3-wheel)
# One package may provide several commands.
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-test-deps: everything is installed"
else
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo)
  else
    echo "install-test-deps: the tests need ${missing[*]} (Debian packages); install them once with:" >&2
    echo "  sudo bash scripts/install-test-deps.sh" >&2
    exit 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: the tests need ${missing[*]} (Debian package names); this system has no apt-get: install them with its package manager" >&2
    exit 1
  fi
  echo "install-test-deps: installing ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
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
