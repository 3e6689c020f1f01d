#!/bin/sh
# Installs with apt-get whichever of the Debian packages named is missing; as root, or through
# sudo when not root. The one installer of the two README commands and of tools/windows/build.sh.
#   sh .ci/install.sh package...
set -eu
missing=""
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing:$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086 # one argument a package
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
