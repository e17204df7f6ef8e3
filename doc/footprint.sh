#!/usr/bin/env bash
# The installed size of Debian packages on a minimal Debian 12, in MB:
#   doc/footprint.sh PKG...
# Method: the minimal system is the packages of Priority "required" with
# their dependencies (what debootstrap --variant=minbase installs), found by
# `apt-get install --simulate` against an empty dpkg status; a status file
# holding those (from apt-cache dumpavail) stands for that system, and
# `apt-get install --simulate` against it
# (Dir::State::status) lists what apt would install on such a system, with
# Recommends as `apt-get install -y` (make deps) does and without them; the
# Installed-Size fields of those packages are summed.  Nothing is installed
# and nothing is downloaded; the package lists must be there (apt-get update).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 PKG..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
apt-cache dumpavail > "$tmp/avail"
: > "$tmp/empty"
mapfile -t required < <(awk -v RS= '/\nPriority: required\n/ {sub(/^Package: /, ""); sub(/\n.*/, ""); print}' \
  "$tmp/avail" | sort -u)
apt-get -s -o Dir::State::status="$tmp/empty" -o Debug::NoLocking=1 --no-install-recommends \
  install "${required[@]}" 2>/dev/null | awk '/^Inst / {print $2}' | sort -u > "$tmp/base"
[ -s "$tmp/base" ] || { echo "$0: could not resolve the minimal system" >&2; exit 1; }
awk -v RS= -v ORS='\n\n' 'NR == FNR {base[$0] = 1; next}
  {name = $0; sub(/^Package: /, "", name); sub(/\n.*/, "", name)
   if (name in base && !(name in seen)) {seen[name] = 1
     sub(/\n/, "\nStatus: install ok installed\n"); print}}' RS='\n' "$tmp/base" RS= "$tmp/avail" > "$tmp/status"
sizes() {       # Installed-Size (KiB) of each package apt-get -s would install
  apt-get -s -o Dir::State::status="$tmp/status" -o Debug::NoLocking=1 "$@" install "${PKGS[@]}" 2>/dev/null \
    | awk '/^Inst / {print $2}' | sort -u > "$tmp/list"
  local n kib
  n=$(wc -l < "$tmp/list")
  kib=$(xargs -a "$tmp/list" apt-cache show --no-all-versions 2>/dev/null \
    | awk '/^Installed-Size:/ {s += $2} END {print s + 0}')
  awk -v n="$n" -v k="$kib" 'BEGIN {printf "%d packages, %.0f MB\n", n, k / 1024}'
}
PKGS=("$@")
echo "minimal system: $(wc -l < "$tmp/base") packages, $(grep -c "^Package:" "$tmp/status") in the status file"
printf 'with Recommends (apt-get install -y): '; sizes
printf 'without Recommends:                   '; sizes --no-install-recommends
