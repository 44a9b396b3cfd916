#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to build and run immoreel: ffmpeg/ffprobe for
# rendering, make/g++/python3 for better-sqlite3's from-source build, PostgreSQL (≥ 15, Debian's
# `postgresql` package) that the scale-out tests start on loopback (docs/scaling.md "Tests"), and
# Chromium for the Studio's browser tests (docs/studio.md), heif-enc for the HEIC tests. Does
# nothing when all are present.
# Needs root (or sudo) only when something is missing.
set -euo pipefail

need=()
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
command -v make >/dev/null 2>&1 || need+=(make)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# Debian keeps initdb/pg_ctl in /usr/lib/postgresql/<major>/bin, off PATH.
has_postgres=no
for bin in /usr/lib/postgresql/*/bin/initdb; do
  [ -x "$bin" ] || continue
  major=$(basename "$(dirname "$(dirname "$bin")")")
  [ "${major%%.*}" -ge 15 ] 2>/dev/null && has_postgres=yes
done
[ "$has_postgres" = yes ] || need+=(postgresql)
[ -x "${IMMOREEL_CHROMIUM:-/usr/bin/chromium}" ] || need+=(chromium)
# promtool (Debian's `prometheus` package) checks the /metrics output (docs/operations.md "Metrics").
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v ps >/dev/null 2>&1 || need+=(procps)  # the Ctrl-C test checks that no ffmpeg is left running
# heif-enc makes the real HEIC (iPhone) photos the tests decode (test/helpers/heic.ts).
command -v heif-enc >/dev/null 2>&1 || need+=(libheif-examples)
[ ${#need[@]} -eq 0 ] && exit 0

packages=$(printf '%s\n' "${need[@]}" | sort -u | tr '\n' ' ')
if ! command -v apt-get >/dev/null 2>&1; then
  echo "immoreel needs: ${packages}— install them with your package manager." >&2
  exit 1
fi
echo "Installing ${packages}(apt-get)" >&2
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $packages >/dev/null
