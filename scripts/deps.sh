#!/bin/sh
# Install the Debian packages frec needs to build, test and benchmark.
# Runs apt-get only when something is missing, so it is cheap to call often.
set -eu

PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev liblzma-dev
libcmocka-dev pkg-config systemtap-sdt-dev protobuf-compiler mandoc
python3 libclang-rt-14-dev valgrind"
# go tool pprof, which the tests run on frec export --format pprof
PKGS="$PKGS golang-go"
[ "${FREC_DEPS_EXTRA:-}" ] && PKGS="$PKGS $FREC_DEPS_EXTRA"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing; run as root (sudo make deps)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
